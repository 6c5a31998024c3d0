"""Elementwise primitives. Binary ops broadcast like numpy; each backward returns the gradient
at the broadcast shape and the engine sums it back to each input's shape (`unbroadcast`).
G is the gradient of the output, `out` the forward result."""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import Function
from ..errors import InvalidArgumentError
from . import special_math

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2
_SQRT_TWO_PI = math.sqrt(2 * math.pi)


def _in_dtype(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A special function's float64 `values` rounded to `dtype` (float32: inf beyond its
    range, as PyTorch's float32 routines give, without numpy's overflow warning)."""
    with np.errstate(over="ignore"):
        return values.astype(dtype, copy=False)


def _erf_slope(a: np.ndarray) -> np.ndarray:
    """erf's derivative 2/sqrt(pi) * exp(-a**2); a**2 overflows to inf from |a| = 1.3e154 on,
    where exp(-inf) = 0 is the slope, so numpy's overflow warning is silenced."""
    with np.errstate(over="ignore"):
        return _TWO_OVER_SQRT_PI * np.exp(-a * a)


def _exp_of_square(out: np.ndarray, scale: float) -> np.ndarray:
    """exp(scale * out**2), the slope of an inverse of erf or ndtr at its output `out`: inf
    beyond exp's range (near the ends, as out = ndtri(5e-324) = -38.5), without numpy's
    overflow warning."""
    with np.errstate(over="ignore"):
        return np.exp(scale * out * out)


def _broadcasting(forward: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """Decorate a broadcasting op's `forward(self, *arrays)` so that inputs whose shapes do not
    broadcast raise a ValueError naming the op and the shapes, instead of numpy's bare message.
    The try costs nothing on success; the shapes are only examined after a failure."""

    @functools.wraps(forward)
    def checked(self: Function, *arrays: np.ndarray, **settings: Any) -> np.ndarray:
        try:
            return forward(self, *arrays, **settings)
        except ValueError:
            shapes = [np.shape(x) for x in (*arrays, *settings.values())
                      if isinstance(x, np.ndarray)]
            try:
                np.broadcast_shapes(*shapes)
            except ValueError:
                raise InvalidArgumentError(f"{type(self).__name__}: shapes "
                                           f"{' and '.join(str(s) for s in shapes)} do not "
                                           "broadcast together") from None
            raise  # some other failure: numpy's own message

    return checked


def _quiet(method: Callable[..., Any]) -> Callable[..., Any]:
    """Run an op's forward or backward without numpy's floating-point warnings. For the ops
    decorated, the infinities and NaNs numpy warns about are the values PyTorch's same formulas
    give, silently: exp(800) = inf, log(0) = -inf, sqrt(-1) = NaN, 0 ** -1 = inf,
    sin(inf) = NaN, and in backward G / 0 or 0 * inf. It costs 2 to 4 us a call, which is why
    Div, in nearly every composition (mean is a sum over a count), is not decorated: its
    operator warns as numpy's, and reciprocal is a power."""

    @functools.wraps(method)
    def quiet(self: Function, *args: Any, **settings: Any) -> Any:
        with np.errstate(all="ignore"):
            return method(self, *args, **settings)

    return quiet


class Add(Function):
    """out = a + b.   da = G,  db = G"""

    saves_inputs = False

    @_broadcasting
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a + b

    def backward(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return g, g


class Sub(Function):
    """out = a - b.   da = G,  db = -G"""

    saves_inputs = False

    @_broadcasting
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a - b

    def backward(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        db = -g if self.needs_input_grad[1] else None
        return g, db


class Mul(Function):
    """out = a * b.   da = G * b,  db = G * a"""

    reads_inputs_for_the_others = True

    @_broadcasting
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a, self.b = a, b
        return a * b

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        da = g * self.b if self.needs_input_grad[0] else None
        db = g * self.a if self.needs_input_grad[1] else None
        return da, db


class Div(Function):
    """out = a / b.   da = G / b,  db = -G * a / b**2"""

    @_broadcasting
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a, self.b = a, b
        return a / b

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.a, self.b
        da = g / b if self.needs_input_grad[0] else None
        db = -g * a / (b * b) if self.needs_input_grad[1] else None
        return da, db


class Neg(Function):
    """out = -a.   da = -G"""

    saves_inputs = False

    def forward(self, a: np.ndarray) -> np.ndarray:
        return -a

    def backward(self, g: np.ndarray) -> np.ndarray:
        return -g


class Pow(Function):
    """out = a ** b.   da = G * b * a**(b-1)  (0 where b = 0),
    db = G * out * log(a)  (0 where a = 0 and b >= 0)

    The two exceptions are the limits that the formulas reach as 0 * inf = NaN: x**0 is the
    constant 1, and 0**b is 0 for every b > 0 (PyTorch's values)."""

    saves_output = True

    @_broadcasting
    @_quiet
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a, self.b = a, b
        self.out = a ** b
        return self.out

    @_quiet
    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.a, self.b
        da = db = None
        if self.needs_input_grad[0]:
            da = np.where(b == 0, 0, g * b * a ** (b - 1))
        if self.needs_input_grad[1]:
            db = np.where((a == 0) & (b >= 0), 0, g * self.out * np.log(a))
        return da, db


class Exp(Function):
    """out = exp(a).   da = G * out"""

    saves_inputs = False  # backward reads the output alone
    saves_output = True

    @_quiet
    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.exp(a)
        return self.out

    @_quiet
    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * self.out


class Log(Function):
    """out = log(a).   da = G / a"""

    @_quiet
    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.log(a)

    @_quiet
    def backward(self, g: np.ndarray) -> np.ndarray:
        return g / self.a


class Sqrt(Function):
    """out = sqrt(a).   da = G / (2 * out)"""

    saves_inputs = False  # backward reads the output alone
    saves_output = True

    @_quiet
    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.sqrt(a)
        return self.out

    @_quiet
    def backward(self, g: np.ndarray) -> np.ndarray:
        return g / (2 * self.out)


class Tanh(Function):
    """out = tanh(a).   da = G * (1 - out**2)"""

    saves_inputs = False  # backward reads the output alone
    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.tanh(a)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * (1 - self.out * self.out)


class Sigmoid(Function):
    """out = 1 / (1 + exp(-a)).   da = G * out * (1 - out)"""

    saves_inputs = False  # backward reads the output alone
    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        # exp of -|a| never overflows: sigmoid(a) = 1/(1+e^-a) for a >= 0, e^a/(1+e^a) for a < 0
        e = np.exp(-np.abs(a))
        self.out = np.where(a >= 0, 1 / (1 + e), e / (1 + e))
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * self.out * (1 - self.out)


class Where(Function):
    """out = where(cond, a, b)  (`cond` a fixed bool array).
    da = where(cond, G, 0),  db = where(cond, 0, G)"""

    saves_inputs = False

    @_broadcasting
    def forward(self, a: np.ndarray, b: np.ndarray, cond: np.ndarray | np.bool_) -> np.ndarray:
        self.cond = cond
        return np.where(cond, a, b)

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        zero = g.dtype.type(0)
        da = np.where(self.cond, g, zero) if self.needs_input_grad[0] else None
        db = np.where(self.cond, zero, g) if self.needs_input_grad[1] else None
        return da, db


class Sin(Function):
    """out = sin(a).   da = G * cos(a)"""

    @_quiet
    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.sin(a)

    @_quiet
    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * np.cos(self.a)


class Cos(Function):
    """out = cos(a).   da = -G * sin(a)"""

    @_quiet
    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.cos(a)

    @_quiet
    def backward(self, g: np.ndarray) -> np.ndarray:
        return -g * np.sin(self.a)


class Log1p(Function):
    """out = log(1 + a).   da = G / (1 + a)

    A primitive, not log(1 + a) composed, for accuracy near 0: 1 + a rounds away the digits of
    a small `a` (log(1 + 1e-10) is 8e-9 off in float64, and log(1 + 1e-8) is 0 in float32)."""

    @_quiet
    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.log1p(a)

    @_quiet
    def backward(self, g: np.ndarray) -> np.ndarray:
        return g / (1 + self.a)


class Expm1(Function):
    """out = exp(a) - 1.   da = G * (out + 1)

    A primitive, not exp(a) - 1 composed, for accuracy near 0, where the subtraction cancels
    the leading digits (exp(1e-10) - 1 is 8e-9 off in float64)."""

    saves_inputs = False  # backward reads the output alone
    saves_output = True

    @_quiet
    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.expm1(a)
        return self.out

    @_quiet
    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * (self.out + 1)


class Erf(Function):
    """out = erf(a) = 2/sqrt(pi) * integral of exp(-t**2) from 0 to a.
    da = G * 2/sqrt(pi) * exp(-a**2)

    numpy has no erf, so forward evaluates W. J. Cody's rational Chebyshev approximations
    (`special_math.erf`), in float64 whatever the input's dtype, as do the other special
    functions below."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return _in_dtype(special_math.erf(a), a.dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * _erf_slope(self.a)


class Erfc(Function):
    """out = erfc(a) = 1 - erf(a).   da = -G * 2/sqrt(pi) * exp(-a**2)

    A primitive, not 1 - erf composed, because the subtraction loses every digit of a small
    result: erfc(10) is 2e-45, and 1 - erf(10) is 0."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return _in_dtype(special_math.erfc(a), a.dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return -g * _erf_slope(self.a)


class Erfcx(Function):
    """out = erfcx(a) = exp(a**2) * erfc(a).   da = G * (2 * a * out - 2/sqrt(pi))

    A primitive because the product overflows and underflows (0 * inf from a = 27 on) where
    erfcx itself is about 1 / (a sqrt(pi)). The gradient is taken in float64, as the forward,
    then rounded: its two terms cancel for large a (to about 1 / (sqrt(pi) a**2)), which
    would leave no float32 digit from a = 1e4 on."""

    saves_output = True  # for float64 the float64 values kept are the output itself

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        self.exact = special_math.erfcx(a)
        return _in_dtype(self.exact, a.dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # inf * 0 at a = inf: NaN, as in PyTorch
            slope = 2 * self.a.astype(np.float64) * self.exact - _TWO_OVER_SQRT_PI
        return g * _in_dtype(slope, g.dtype)


class Erfinv(Function):
    """out = erfinv(a), the x with erf(x) = a.   da = G * sqrt(pi)/2 * exp(out**2)"""

    saves_inputs = False
    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = _in_dtype(special_math.erfinv(a), a.dtype)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * (_SQRT_PI_OVER_TWO * _exp_of_square(self.out, 1.0))


class Ndtri(Function):
    """out = ndtri(a), the x with ndtr(x) = a (the standard normal quantile).
    da = G * sqrt(2 pi) * exp(out**2 / 2)

    A primitive, not sqrt(2) erfinv(2a - 1), because 2a - 1 rounds a small `a` away
    (ndtri(1e-300) is -37.05, and erfinv(2e-300 - 1) is -inf)."""

    saves_inputs = False
    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = _in_dtype(special_math.ndtri(a), a.dtype)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * (_SQRT_TWO_PI * _exp_of_square(self.out, 0.5))


class Lgamma(Function):
    """out = log |Gamma(a)|.   da = G * digamma(a)"""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return _in_dtype(special_math.lgamma(a), a.dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * _in_dtype(special_math.digamma(self.a), g.dtype)


class Polygamma(Function):
    """out = polygamma(n, a), the n-th derivative of digamma (n = 0: digamma(a), the
    derivative of lgamma).   da = G * polygamma(n + 1, a)"""

    def forward(self, a: np.ndarray, n: int) -> np.ndarray:
        self.a, self.n = a, n
        return _in_dtype(special_math.polygamma(n, a), a.dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * _in_dtype(special_math.polygamma(self.n + 1, self.a), g.dtype)


class Zeta(Function):
    """out = zeta(x, q), the Hurwitz zeta function: the sum over k >= 0 of (q + k)**-x.
    dq = -G * x * zeta(x + 1, q);  dx: none, NotImplementedError as PyTorch's (zeta has no
    closed-form derivative in x)"""

    @_broadcasting
    def forward(self, x: np.ndarray, q: np.ndarray) -> np.ndarray:
        self.x, self.q = x, q
        return _in_dtype(special_math.zeta(x, q), x.dtype)

    @_quiet  # inf at q's poles, and G * inf
    def backward(self, g: np.ndarray) -> tuple[None, np.ndarray | None]:
        if self.needs_input_grad[0]:
            raise NotImplementedError("the derivative of zeta(x, q) with respect to x is not "
                                      "implemented (as in PyTorch); only q can require grad")
        x = self.x.astype(np.float64)
        return None, g * _in_dtype(-x * special_math.zeta(x + 1, self.q), g.dtype)


class Igamma(Function):
    """out = P(a, x), the regularized lower incomplete gamma function gamma(a, x) / Gamma(a);
    with upper, Q(a, x) = 1 - P(a, x).
    dx = G * x**(a - 1) * exp(-x) / Gamma(a)  (negated for Q);  da: none, NotImplementedError
    as PyTorch's"""

    @_broadcasting
    def forward(self, a: np.ndarray, x: np.ndarray, upper: bool = False) -> np.ndarray:
        self.a, self.x, self.upper = a, x, upper
        function = special_math.gammaincc if upper else special_math.gammainc
        return _in_dtype(function(a, x), a.dtype)

    @_quiet  # inf at x = 0 for a < 1, and G * inf
    def backward(self, g: np.ndarray) -> tuple[None, np.ndarray | None]:
        if self.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative of {'igammac' if self.upper else 'igamma'}"
                                      f"(a, x) with respect to a is not implemented (as in "
                                      f"PyTorch); only x can require grad")
        slope = _in_dtype(special_math.gammainc_density(self.a, self.x), g.dtype)
        return None, -g * slope if self.upper else g * slope


class I0(Function):
    """out = i0(a), the modified Bessel function of the first kind of order 0 (inf from |a| =
    709.8 on).   da = G * i1(a)

    A primitive, not i0e(a) * exp(|a|): that product's derivative, (i1e(a) - sign(a) i0e(a)
    + sign(a) i0e(a)) exp(|a|), cancels to 0 near 0, where i1(a) is a / 2, and is inf - inf
    = NaN where exp(|a|) overflows."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return _in_dtype(special_math.i0(a), a.dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * _in_dtype(special_math.i1(self.a), g.dtype)


class I0e(Function):
    """out = i0e(a) = exp(-|a|) * I0(a), the scaled modified Bessel function of order 0.
    da = G * (i1e(a) - sign(a) * out)

    A primitive because I0's derivative is I1, which is no composition of I0."""

    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        self.out = _in_dtype(special_math.i0e(a), a.dtype)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        i1e = _in_dtype(special_math.i1e(self.a), g.dtype)
        return g * (i1e - np.sign(self.a) * self.out)


class I1e(Function):
    """out = i1e(a) = exp(-|a|) * I1(a), the scaled modified Bessel function of order 1.
    da = G * (i0e(a) - out * (sign(a) + 1/a))  (G / 2 at a = 0)"""

    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        self.out = _in_dtype(special_math.i1e(a), a.dtype)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        a = self.a
        i0e = _in_dtype(special_math.i0e(a), g.dtype)
        # out / a tends to 1/2 at 0, where the quotient is 0 / 0; and it is 1/2 to every digit
        # below the smallest normal float, where out, a subnormal a / 2, is rounded (i1e(5e-324)
        # is 5e-324, and the quotient 1)
        normal = np.abs(a) >= np.finfo(a.dtype).tiny
        out_over_a = np.divide(self.out, a, out=np.full_like(self.out, 0.5), where=normal)
        return g * (i0e - np.sign(a) * self.out - out_over_a)


class Remainder(Function):
    """out = a - floor(a / b) * b  (Python's %: the sign of b).   da = G,  db = -G * floor(a / b)

    A primitive because that formula, evaluated as written, loses every digit when a / b is large
    (1e20 % 3 gives 0 instead of 1): forward is numpy's exact remainder."""

    @_broadcasting
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a, self.b = a, b
        return np.remainder(a, b)

    def backward(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        db = -g * np.floor_divide(self.a, self.b) if self.needs_input_grad[1] else None
        return g, db


class Atan2(Function):
    """out = atan2(a, b), the angle of the point (b, a) in (-pi, pi].
    da = G * b / (a**2 + b**2),  db = -G * a / (a**2 + b**2);  both 0 where a**2 + b**2 is 0
    (the origin, where PyTorch's gradient is 0 too)

    A primitive because no arithmetic of the others gives an angle; atan, asin and acos are
    composed from it (asin(x) = atan2(x, sqrt(1 - x**2)) stays accurate up to |x| = 1)."""

    @_broadcasting
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a, self.b = a, b
        return np.arctan2(a, b)

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.a, self.b
        squared_radius = a * a + b * b
        inverse = np.divide(1, squared_radius, out=np.zeros_like(squared_radius),
                            where=squared_radius != 0)
        da = g * b * inverse if self.needs_input_grad[0] else None
        db = -g * a * inverse if self.needs_input_grad[1] else None
        return da, db


class Cast(Function):
    """out = a converted to the floating-point `dtype`.   da = G (in a's dtype)

    A primitive because no arithmetic of a and constants lowers a dtype (float64 to float32);
    the engine casts G back to a's dtype, as for every input."""

    saves_inputs = False

    def forward(self, a: np.ndarray, dtype: np.dtype | type[np.floating]) -> np.ndarray:
        return a.astype(dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g
