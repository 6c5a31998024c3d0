"""Elementwise primitives. Binary ops broadcast like numpy; each backward returns the gradient
at the broadcast shape and the engine sums it back to each input's shape (`unbroadcast`).
G is the gradient of the output, `out` the forward result."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import Function
from ..errors import InvalidArgumentError


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
    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a, self.b = a, b
        self.out = a ** b
        return self.out

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.a, self.b
        da = db = None
        with np.errstate(divide="ignore", invalid="ignore"):  # the masked entries' inf and NaN
            if self.needs_input_grad[0]:
                da = np.where(b == 0, 0, g * b * a ** (b - 1))
            if self.needs_input_grad[1]:
                db = np.where((a == 0) & (b >= 0), 0, g * self.out * np.log(a))
        return da, db


class Exp(Function):
    """out = exp(a).   da = G * out"""

    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.exp(a)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * self.out


class Log(Function):
    """out = log(a).   da = G / a"""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.log(a)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g / self.a


class Sqrt(Function):
    """out = sqrt(a).   da = G / (2 * out)"""

    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.sqrt(a)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g / (2 * self.out)


class Tanh(Function):
    """out = tanh(a).   da = G * (1 - out**2)"""

    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.tanh(a)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * (1 - self.out * self.out)


class Sigmoid(Function):
    """out = 1 / (1 + exp(-a)).   da = G * out * (1 - out)"""

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

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.sin(a)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * np.cos(self.a)


class Cos(Function):
    """out = cos(a).   da = -G * sin(a)"""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.cos(a)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return -g * np.sin(self.a)


class Log1p(Function):
    """out = log(1 + a).   da = G / (1 + a)

    A primitive, not log(1 + a) composed, for accuracy near 0: 1 + a rounds away the digits of
    a small `a` (log(1 + 1e-10) is 8e-9 off in float64, and log(1 + 1e-8) is 0 in float32)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return np.log1p(a)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g / (1 + self.a)


class Expm1(Function):
    """out = exp(a) - 1.   da = G * (out + 1)

    A primitive, not exp(a) - 1 composed, for accuracy near 0, where the subtraction cancels
    the leading digits (exp(1e-10) - 1 is 8e-9 off in float64)."""

    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.out = np.expm1(a)
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * (self.out + 1)


class Erf(Function):
    """out = erf(a) = 2/sqrt(pi) * integral of exp(-t**2) from 0 to a.
    da = G * 2/sqrt(pi) * exp(-a**2)

    numpy has no erf, so forward evaluates W. J. Cody's rational Chebyshev approximations
    (`_erf`), in float64 whatever the input's dtype."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.a = a
        return _erf(a).astype(a.dtype, copy=False)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g * (_TWO_OVER_SQRT_PI * np.exp(-self.a * self.a))


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


# --------------------------------------------------------------------------------------------
# erf: W. J. Cody, "Rational Chebyshev approximations for the error function", Mathematics of
# Computation 23 (1969) 631-637, with the coefficients of his CALERF routine (netlib specfun).
# --------------------------------------------------------------------------------------------
_TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi)
_ONE_OVER_SQRT_PI = 0.56418958354775628695
# erf(x) = x * A(x^2) / B(x^2) for |x| <= 0.46875
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)
# erfc(y) = exp(-y^2) * C(y) / D(y) for 0.46875 < y <= 4
_ERFC_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
           2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
           2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_ERFC_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
           1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
           3.43936767414372164e03, 1.23033935480374942e03)
# erfc(y) = exp(-y^2) / y * (1/sqrt(pi) - z P(z) / Q(z)), z = 1/y^2, for y > 4
_ERFC_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
           1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_ERFC_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
           6.05183413124413191e-2, 2.33520497626869185e-3)
_ERF_IS_ONE = 6.0  # erfc(6) = 2e-17 is below half an ulp of 1: erf(x) rounds to +-1 beyond


def _rational(x: np.ndarray, numerator: tuple[float, ...],
              denominator: tuple[float, ...]) -> np.ndarray:
    """N(x) / D(x) in Cody's nesting: N = ((n[-1] x + n[0]) x + n[1]) x ... + n[len(d)-1],
    D = ((x + d[0]) x + d[1]) x ... + d[-1]."""
    num, den = numerator[-1] * x, x
    for n, d in zip(numerator[:len(denominator) - 1], denominator[:-1]):
        num = (num + n) * x
        den = (den + d) * x
    return (num + numerator[len(denominator) - 1]) / (den + denominator[-1])


def _erfc_scaled_exp(y: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """exp(-y^2) * ratio, with y^2 split as (y rounded down to 1/16)^2 + rest, so that the
    rounding of y*y in float64 does not cost the relative accuracy of exp(-y^2)."""
    head = np.trunc(y * 16) / 16
    return np.exp(-head * head) * np.exp(-(y - head) * (y + head)) * ratio


def _erf(x: np.ndarray) -> np.ndarray:
    """erf(x) in float64, accurate to a few units in the last place on the whole real line
    (tested against math.erf). Regions of |x|: Cody's erf approximation up to 0.46875, then
    1 - erfc with his two erfc approximations, and +-1 from 6 on; NaN stays NaN."""
    x = np.asarray(x, dtype=np.float64)
    y = np.abs(x)
    out = x.copy()  # NaN entries fall in no region below and stay NaN
    small = y <= 0.46875
    z = y[small] ** 2
    out[small] = x[small] * _rational(z, _ERF_A, _ERF_B)
    middle = (y > 0.46875) & (y <= 4)
    ym = y[middle]
    erfc = _erfc_scaled_exp(ym, _rational(ym, _ERFC_C, _ERFC_D))
    out[middle] = np.copysign(1 - erfc, x[middle])
    tail = (y > 4) & (y < _ERF_IS_ONE)
    yt = y[tail]
    z = 1 / (yt * yt)
    erfc = _erfc_scaled_exp(yt, (_ONE_OVER_SQRT_PI - z * _rational(z, _ERFC_P, _ERFC_Q)) / yt)
    out[tail] = np.copysign(1 - erfc, x[tail])
    beyond = y >= _ERF_IS_ONE
    out[beyond] = np.sign(x[beyond])
    return out
