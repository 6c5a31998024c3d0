"""Elementwise ops. Binary ops broadcast like numpy; their backward sums the gradient back to each
input's shape with `unbroadcast`. G is the gradient of the output, `out` the forward result."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..engine import Function, unbroadcast


def _broadcasting(forward):
    """Decorate a broadcasting op's `forward(self, *arrays)` so that inputs whose shapes do not
    broadcast raise a ValueError naming the op and the shapes, instead of numpy's bare message.
    The try costs nothing on success; the shapes are only examined after a failure."""

    @functools.wraps(forward)
    def checked(self, *arrays, **settings):
        try:
            return forward(self, *arrays, **settings)
        except ValueError:
            shapes = [np.shape(x) for x in (*arrays, *settings.values())
                      if isinstance(x, np.ndarray)]
            try:
                np.broadcast_shapes(*shapes)
            except ValueError:
                raise ValueError(f"{type(self).__name__}: shapes "
                                 f"{' and '.join(str(s) for s in shapes)} do not broadcast "
                                 f"together") from None
            raise  # some other failure: numpy's own message

    return checked


class Add(Function):
    """out = a + b.   da = G,  db = G"""

    @_broadcasting
    def forward(self, a, b):
        self.a_shape, self.b_shape = a.shape, b.shape
        return a + b

    def backward(self, g):
        return unbroadcast(g, self.a_shape), unbroadcast(g, self.b_shape)


class Sub(Function):
    """out = a - b.   da = G,  db = -G"""

    @_broadcasting
    def forward(self, a, b):
        self.a_shape, self.b_shape = a.shape, b.shape
        return a - b

    def backward(self, g):
        db = unbroadcast(-g, self.b_shape) if self.needs_input_grad[1] else None
        return unbroadcast(g, self.a_shape), db


class Mul(Function):
    """out = a * b.   da = G * b,  db = G * a"""

    @_broadcasting
    def forward(self, a, b):
        self.a, self.b = a, b
        return a * b

    def backward(self, g):
        da = unbroadcast(g * self.b, self.a.shape) if self.needs_input_grad[0] else None
        db = unbroadcast(g * self.a, self.b.shape) if self.needs_input_grad[1] else None
        return da, db


class Div(Function):
    """out = a / b.   da = G / b,  db = -G * a / b**2"""

    @_broadcasting
    def forward(self, a, b):
        self.a, self.b = a, b
        return a / b

    def backward(self, g):
        a, b = self.a, self.b
        da = unbroadcast(g / b, a.shape) if self.needs_input_grad[0] else None
        db = unbroadcast(-g * a / (b * b), b.shape) if self.needs_input_grad[1] else None
        return da, db


class Neg(Function):
    """out = -a.   da = -G"""

    def forward(self, a):
        return -a

    def backward(self, g):
        return -g


class Pow(Function):
    """out = a ** b.   da = G * b * a**(b-1),  db = G * out * log(a)"""

    @_broadcasting
    def forward(self, a, b):
        self.a, self.b = a, b
        self.out = a ** b
        return self.out

    def backward(self, g):
        a, b = self.a, self.b
        da = unbroadcast(g * b * a ** (b - 1), a.shape) if self.needs_input_grad[0] else None
        db = unbroadcast(g * self.out * np.log(a), b.shape) if self.needs_input_grad[1] else None
        return da, db


class Exp(Function):
    """out = exp(a).   da = G * out"""

    def forward(self, a):
        self.out = np.exp(a)
        return self.out

    def backward(self, g):
        return g * self.out


class Log(Function):
    """out = log(a).   da = G / a"""

    def forward(self, a):
        self.a = a
        return np.log(a)

    def backward(self, g):
        return g / self.a


class Sqrt(Function):
    """out = sqrt(a).   da = G / (2 * out)"""

    def forward(self, a):
        self.out = np.sqrt(a)
        return self.out

    def backward(self, g):
        return g / (2 * self.out)


class Abs(Function):
    """out = |a|.   da = G * sign(a)   (0 at a = 0)"""

    def forward(self, a):
        self.a = a
        return np.abs(a)

    def backward(self, g):
        return g * np.sign(self.a)


class Tanh(Function):
    """out = tanh(a).   da = G * (1 - out**2)"""

    def forward(self, a):
        self.out = np.tanh(a)
        return self.out

    def backward(self, g):
        return g * (1 - self.out * self.out)


class Sigmoid(Function):
    """out = 1 / (1 + exp(-a)).   da = G * out * (1 - out)"""

    def forward(self, a):
        # exp of -|a| never overflows: sigmoid(a) = 1/(1+e^-a) for a >= 0, e^a/(1+e^a) for a < 0
        e = np.exp(-np.abs(a))
        self.out = np.where(a >= 0, 1 / (1 + e), e / (1 + e))
        return self.out

    def backward(self, g):
        return g * self.out * (1 - self.out)


class Relu(Function):
    """out = max(a, 0).   da = G * (a > 0)"""

    def forward(self, a):
        self.positive = a > 0
        return np.where(self.positive, a, 0).astype(a.dtype, copy=False)

    def backward(self, g):
        return g * self.positive


_GELU_C = math.sqrt(2 / math.pi)
_GELU_K = 0.044715


class Gelu(Function):
    """GELU, tanh approximation (GPT-2):  out = 0.5 a (1 + tanh(u)),  u = c (a + 0.044715 a**3),
    c = sqrt(2/pi).
    da = G * (0.5 (1 + t) + 0.5 a (1 - t**2) c (1 + 3 * 0.044715 a**2)),  t = tanh(u)

    Both passes work in place on one or two buffers (no temporary per arithmetic step), and a**3
    is a*a*a: np.power is many times slower."""

    def forward(self, a):
        k, c = a.dtype.type(_GELU_K), a.dtype.type(_GELU_C)
        t = a * a
        t *= a
        t *= k
        t += a
        t *= c
        np.tanh(t, out=t)
        self.a, self.t = a, t
        out = t + 1
        out *= a
        out *= 0.5
        return out

    def backward(self, g):
        a, t = self.a, self.t
        da = a * a  # becomes c (1 + 3k a^2), then the whole derivative
        da *= a.dtype.type(3 * _GELU_K)
        da += 1
        da *= a.dtype.type(_GELU_C)
        tmp = t * t
        np.subtract(1, tmp, out=tmp)  # 1 - t^2
        da *= tmp
        da *= a
        da *= 0.5
        np.multiply(t, 0.5, out=tmp)
        da += tmp
        da += 0.5
        da *= g
        return da


class MaskedFill(Function):
    """out = where(mask, value, a): entries where `mask` is True become `value`.
    da = where(mask, 0, G)   (a replaced entry does not depend on a)"""

    def forward(self, a, mask, value):
        mask = np.asarray(mask, dtype=bool)
        try:
            fits = np.broadcast_shapes(mask.shape, a.shape) == a.shape
        except ValueError:  # shapes that do not broadcast at all
            fits = False
        if not fits:
            raise ValueError(f"MaskedFill: mask of shape {mask.shape} does not broadcast to the "
                             f"tensor's shape {a.shape}")
        self.mask = mask
        return np.where(mask, a.dtype.type(value), a)

    def backward(self, g):
        return np.where(self.mask, g.dtype.type(0), g)


class Where(Function):
    """out = where(cond, a, b).   da = where(cond, G, 0),  db = where(cond, 0, G)"""

    @_broadcasting
    def forward(self, a, b, cond):
        self.cond = np.asarray(cond, dtype=bool)
        self.a_shape, self.b_shape = a.shape, b.shape
        return np.where(self.cond, a, b)

    def backward(self, g):
        zero = g.dtype.type(0)
        da = unbroadcast(np.where(self.cond, g, zero), self.a_shape) \
            if self.needs_input_grad[0] else None
        db = unbroadcast(np.where(self.cond, zero, g), self.b_shape) \
            if self.needs_input_grad[1] else None
        return da, db
