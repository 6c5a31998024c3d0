"""Elementwise primitives. Binary ops broadcast like numpy; each backward returns the gradient
at the broadcast shape and the engine sums it back to each input's shape (`unbroadcast`).
G is the gradient of the output, `out` the forward result."""
from __future__ import annotations

import functools

import numpy as np

from ..engine import Function


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
        return a + b

    def backward(self, g):
        return g, g


class Sub(Function):
    """out = a - b.   da = G,  db = -G"""

    @_broadcasting
    def forward(self, a, b):
        return a - b

    def backward(self, g):
        db = -g if self.needs_input_grad[1] else None
        return g, db


class Mul(Function):
    """out = a * b.   da = G * b,  db = G * a"""

    @_broadcasting
    def forward(self, a, b):
        self.a, self.b = a, b
        return a * b

    def backward(self, g):
        da = g * self.b if self.needs_input_grad[0] else None
        db = g * self.a if self.needs_input_grad[1] else None
        return da, db


class Div(Function):
    """out = a / b.   da = G / b,  db = -G * a / b**2"""

    @_broadcasting
    def forward(self, a, b):
        self.a, self.b = a, b
        return a / b

    def backward(self, g):
        a, b = self.a, self.b
        da = g / b if self.needs_input_grad[0] else None
        db = -g * a / (b * b) if self.needs_input_grad[1] else None
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
        da = g * b * a ** (b - 1) if self.needs_input_grad[0] else None
        db = g * self.out * np.log(a) if self.needs_input_grad[1] else None
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


class Where(Function):
    """out = where(cond, a, b)  (`cond` a fixed bool array).
    da = where(cond, G, 0),  db = where(cond, 0, G)"""

    @_broadcasting
    def forward(self, a, b, cond):
        self.cond = cond
        return np.where(cond, a, b)

    def backward(self, g):
        zero = g.dtype.type(0)
        da = np.where(self.cond, g, zero) if self.needs_input_grad[0] else None
        db = np.where(self.cond, zero, g) if self.needs_input_grad[1] else None
        return da, db
