"""Tier 2: PyTorch's elementwise functions at the top level (`torch.exp(x)`, `torch.maximum(a,
b)`, `torch.clamp(x, 0, 1)`, ...), exported as `minigrad.exp`, `minigrad.maximum`, ...

Each is the Tensor method of the same name, applied to its first argument; the methods are the
definitions (minigrad/tensor.py).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .engine import ArrayLike
from .tensor import Frexp, Tensor

__all__ = [
    "abs", "absolute", "acos", "acosh", "add", "angle", "arccos", "arccosh", "arcsin", "arcsinh",
    "arctan", "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clamp", "clip", "copysign", "cos", "cosh", "deg2rad", "digamma", "div", "divide",
    "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "floor", "floor_divide", "fmax",
    "fmin", "fmod", "frexp", "gcd", "ge", "greater", "greater_equal", "gt", "heaviside", "hypot",
    "i0", "igamma", "igammac", "isclose", "isfinite", "isinf", "isnan", "isneginf", "isposinf",
    "isreal", "lcm", "ldexp", "le", "lerp", "less", "less_equal", "lgamma", "log", "log10",
    "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or",
    "logical_xor", "logit", "lt", "maximum", "minimum", "mul", "multiply", "mvlgamma",
    "nan_to_num", "ne", "neg", "negative", "nextafter", "not_equal", "polygamma", "positive",
    "pow", "rad2deg", "reciprocal", "relu", "remainder", "round", "rsqrt", "rsub", "sgn",
    "sigmoid", "sign", "signbit", "sin", "sinc", "sinh", "sqrt", "square", "sub", "subtract",
    "tan", "tanh", "true_divide", "trunc", "xlogy",
]


def _tensor(input: ArrayLike, beside: ArrayLike = None) -> Tensor:
    """`input` as a tensor. A number before a tensor operand (`minigrad.add(2, x)`) takes the
    dtype PyTorch gives it next to that tensor, as in `2 + x`: an int next to an int8 tensor is
    int8, not the float32 of `Tensor(2)`. A bool stays a bool tensor, which promotes the same
    way and keeps the refusals of a bool operand (True - x raises, as in PyTorch)."""
    if isinstance(input, Tensor):
        return input
    if (isinstance(beside, Tensor) and isinstance(input, (int, float, np.number))
            and not isinstance(input, bool)):
        return beside._lift(input)
    return Tensor(input)


# one argument
def abs(input: Tensor) -> Tensor:
    return _tensor(input).abs()


def neg(input: Tensor) -> Tensor:
    return -_tensor(input)


def exp(input: Tensor) -> Tensor:
    return _tensor(input).exp()


def exp2(input: Tensor) -> Tensor:
    return _tensor(input).exp2()


def expm1(input: Tensor) -> Tensor:
    return _tensor(input).expm1()


def log(input: Tensor) -> Tensor:
    return _tensor(input).log()


def log2(input: Tensor) -> Tensor:
    return _tensor(input).log2()


def log10(input: Tensor) -> Tensor:
    return _tensor(input).log10()


def log1p(input: Tensor) -> Tensor:
    return _tensor(input).log1p()


def sqrt(input: Tensor) -> Tensor:
    return _tensor(input).sqrt()


def rsqrt(input: Tensor) -> Tensor:
    return _tensor(input).rsqrt()


def reciprocal(input: Tensor) -> Tensor:
    return _tensor(input).reciprocal()


def square(input: Tensor) -> Tensor:
    return _tensor(input).square()


def sin(input: Tensor) -> Tensor:
    return _tensor(input).sin()


def cos(input: Tensor) -> Tensor:
    return _tensor(input).cos()


def tan(input: Tensor) -> Tensor:
    return _tensor(input).tan()


def tanh(input: Tensor) -> Tensor:
    return _tensor(input).tanh()


def sigmoid(input: Tensor) -> Tensor:
    return _tensor(input).sigmoid()


def relu(input: Tensor) -> Tensor:
    return _tensor(input).relu()


def erf(input: Tensor) -> Tensor:
    return _tensor(input).erf()


def erfc(input: Tensor) -> Tensor:
    return _tensor(input).erfc()


def erfinv(input: Tensor) -> Tensor:
    return _tensor(input).erfinv()


def lgamma(input: Tensor) -> Tensor:
    return _tensor(input).lgamma()


def digamma(input: Tensor) -> Tensor:
    return _tensor(input).digamma()


def polygamma(n: int, input: Tensor) -> Tensor:
    return _tensor(input).polygamma(n)


def mvlgamma(input: Tensor, p: int) -> Tensor:
    return _tensor(input).mvlgamma(p)


def i0(input: Tensor) -> Tensor:
    return _tensor(input).i0()


def sign(input: Tensor) -> Tensor:
    return _tensor(input).sign()


def floor(input: Tensor) -> Tensor:
    return _tensor(input).floor()


def ceil(input: Tensor) -> Tensor:
    return _tensor(input).ceil()


def trunc(input: Tensor) -> Tensor:
    return _tensor(input).trunc()


def positive(input: Tensor) -> Tensor:
    return _tensor(input).positive()


def frexp(input: Tensor) -> Frexp:
    return _tensor(input).frexp()


def isreal(input: Tensor) -> Tensor:
    return _tensor(input).isreal()


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    return _tensor(input).round(decimals)


def isnan(input: Tensor) -> Tensor:
    return _tensor(input).isnan()


def isinf(input: Tensor) -> Tensor:
    return _tensor(input).isinf()


def isfinite(input: Tensor) -> Tensor:
    return _tensor(input).isfinite()


def logical_not(input: Tensor) -> Tensor:
    return _tensor(input).logical_not()


def asin(input: Tensor) -> Tensor:
    return _tensor(input).asin()


def acos(input: Tensor) -> Tensor:
    return _tensor(input).acos()


def atan(input: Tensor) -> Tensor:
    return _tensor(input).atan()


def sinh(input: Tensor) -> Tensor:
    return _tensor(input).sinh()


def cosh(input: Tensor) -> Tensor:
    return _tensor(input).cosh()


def asinh(input: Tensor) -> Tensor:
    return _tensor(input).asinh()


def acosh(input: Tensor) -> Tensor:
    return _tensor(input).acosh()


def atanh(input: Tensor) -> Tensor:
    return _tensor(input).atanh()


def bitwise_not(input: Tensor) -> Tensor:
    return _tensor(input).bitwise_not()


# two or more arguments
def add(input: Tensor, other: ArrayLike, *, alpha: float = 1) -> Tensor:
    return _tensor(input, other).add(other, alpha=alpha)


def sub(input: Tensor, other: ArrayLike, *, alpha: float = 1) -> Tensor:
    return _tensor(input, other).sub(other, alpha=alpha)


def mul(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) * other


def div(input: Tensor, other: ArrayLike, *, rounding_mode: str | None = None) -> Tensor:
    return _tensor(input, other).div(other, rounding_mode=rounding_mode)


def pow(input: Tensor, exponent: ArrayLike) -> Tensor:
    return _tensor(input, exponent) ** exponent


def remainder(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) % other


def fmod(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).fmod(other)


def floor_divide(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).floor_divide(other)


def maximum(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).maximum(other)


def minimum(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).minimum(other)


def clamp(input: Tensor, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
    return _tensor(input).clamp(min, max)


def clip(input: Tensor, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
    return _tensor(input).clamp(min, max)


def lerp(input: Tensor, end: ArrayLike, weight: ArrayLike) -> Tensor:
    return _tensor(input).lerp(end, weight)


def eq(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) == other


def ne(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) != other


def lt(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) < other


def le(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) <= other


def gt(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) > other


def ge(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) >= other


def logical_and(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).logical_and(other)


def logical_or(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).logical_or(other)


def logical_xor(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).logical_xor(other)


def atan2(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).atan2(other)


def copysign(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).copysign(other)


def nextafter(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).nextafter(other)


def logaddexp(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).logaddexp(other)


def logaddexp2(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).logaddexp2(other)


def hypot(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).hypot(other)


def gcd(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).gcd(other)


def lcm(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).lcm(other)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    return _tensor(input, values).heaviside(values)


def xlogy(input: Tensor | float, other: ArrayLike) -> Tensor:
    return _tensor(input, other).xlogy(other)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    return _tensor(input).logit(eps)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    return _tensor(input).nan_to_num(nan, posinf, neginf)


def deg2rad(input: Tensor) -> Tensor:
    return _tensor(input).deg2rad()


def rad2deg(input: Tensor) -> Tensor:
    return _tensor(input).rad2deg()


def isclose(input: Tensor, other: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    return _tensor(input, other).isclose(other, rtol, atol, equal_nan)


def bitwise_and(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).bitwise_and(other)


def bitwise_or(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).bitwise_or(other)


def bitwise_xor(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).bitwise_xor(other)


def bitwise_left_shift(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).bitwise_left_shift(other)


def bitwise_right_shift(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).bitwise_right_shift(other)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    return _tensor(input, other).ldexp(other)


def rsub(input: Tensor, other: ArrayLike, *, alpha: float = 1) -> Tensor:
    """other - alpha * input: sub with the operands swapped (a number `other` takes the dtype
    it would have next to `input`)."""
    input = _tensor(input)
    return input._lift(other).sub(input, alpha=alpha)


# PyTorch's other names for the functions above
def fix(input: Tensor) -> Tensor:
    return _tensor(input).trunc()



def absolute(input: Tensor) -> Tensor:
    return _tensor(input).abs()


def negative(input: Tensor) -> Tensor:
    return -_tensor(input)


def igamma(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).igamma(other)


def igammac(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).igammac(other)


def angle(input: Tensor) -> Tensor:
    return _tensor(input).angle()


def sgn(input: Tensor) -> Tensor:
    return _tensor(input).sign()


def multiply(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) * other


def subtract(input: Tensor, other: ArrayLike, *, alpha: float = 1) -> Tensor:
    return _tensor(input, other).sub(other, alpha=alpha)


def divide(input: Tensor, other: ArrayLike, *, rounding_mode: str | None = None) -> Tensor:
    return _tensor(input, other).div(other, rounding_mode=rounding_mode)


def true_divide(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) / other


def greater(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) > other


def greater_equal(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) >= other


def less(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) < other


def less_equal(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) <= other


def not_equal(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other) != other


def arcsin(input: Tensor) -> Tensor:
    return _tensor(input).asin()


def arccos(input: Tensor) -> Tensor:
    return _tensor(input).acos()


def arctan(input: Tensor) -> Tensor:
    return _tensor(input).atan()


def arctan2(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).atan2(other)


def arcsinh(input: Tensor) -> Tensor:
    return _tensor(input).asinh()


def arccosh(input: Tensor) -> Tensor:
    return _tensor(input).acosh()


def arctanh(input: Tensor) -> Tensor:
    return _tensor(input).atanh()


def fmax(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).fmax(other)


def fmin(input: Tensor, other: ArrayLike) -> Tensor:
    return _tensor(input, other).fmin(other)


def sinc(input: Tensor) -> Tensor:
    return _tensor(input).sinc()


def signbit(input: Tensor) -> Tensor:
    return _tensor(input).signbit()


def isposinf(input: Tensor) -> Tensor:
    return _tensor(input).isposinf()


def isneginf(input: Tensor) -> Tensor:
    return _tensor(input).isneginf()


# torch.exp_(x), torch.relu_(x), torch.zero_(x), ...: PyTorch's top-level spellings of the
# in-place methods, each calling its method (torch has these names, not one per method)
_IN_PLACE_FUNCTIONS = (
    "abs", "acos", "acosh", "addmv", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
    "asin", "asinh", "atan", "atanh", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "cos",
    "cosh", "deg2rad", "detach", "erf", "erfc", "exp", "exp2", "expm1", "fill", "fix", "floor",
    "frac", "gcd", "i0", "index_put", "lcm", "ldexp", "log", "log10", "log1p", "log2", "logit",
    "nan_to_num", "neg", "negative", "rad2deg", "reciprocal", "relu", "round", "rsqrt", "sigmoid",
    "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "xlogy", "zero",
)


def _in_place_function(name: str) -> Callable[..., Tensor]:
    def in_place(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return getattr(input, name)(*args, **kwargs)

    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"input.{name}(...), as torch.{name}: changes input and returns it."
    return in_place


for _name in _IN_PLACE_FUNCTIONS:
    globals()[_name + "_"] = _in_place_function(_name + "_")
__all__ += [name + "_" for name in _IN_PLACE_FUNCTIONS]
