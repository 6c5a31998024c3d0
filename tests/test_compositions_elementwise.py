"""Tier 2, the elementwise family: PyTorch's pointwise ops and activations, comparisons and
logic, indexing, conversions, and the creation functions.

Every composition in CASES is checked against a hand-written numpy reference, gradient-checked
in float64 on primitives alone (under `minigrad.fused(False)`), kept in float32, and compared
with PyTorch's values and gradients where PyTorch is installed, at its kinks too (ties, bounds,
0), where the choice of gradient is a convention that minigrad follows.
"""
import math
from fractions import Fraction
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

import minigrad
import minigrad.functional as F
from minigrad import Tensor, gradcheck, kernels, ops, special

from tests.helpers import (assert_keeps_float32, assert_raises_like_torch, default_dtype,
                           op_types, runs_in_a_fresh_interpreter)

rng = np.random.default_rng(10)


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch not installed: the cross-checks "
                               "against it are skipped")


@pytest.fixture(params=[True, False], ids=["kernels", "composed"])
def mode(request):
    with minigrad.fused(request.param):
        yield request.param


def uniform(*shape, low=-3.0, high=3.0, avoid=()):
    """Random entries kept 0.05 or more from the points in `avoid` (kinks, jumps), so that
    finite differences never straddle one."""
    data = rng.uniform(low, high, size=shape)
    for point in avoid:
        data = np.where(np.abs(data - point) < 0.05, point + 0.1, data)
    return data


def with_points(points, *shape, low=-3.0, high=3.0):
    """The given points (kinks, ties, bounds) followed by random entries: for comparing the
    gradient PyTorch chooses at a kink."""
    return np.concatenate([np.asarray(points, dtype=np.float64),
                           rng.uniform(low, high, size=shape)])


_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)
_lgamma = np.vectorize(math.lgamma)


def _bessel_i1(x):
    """I_1(x) = (1/pi) * integral over [0, pi] of exp(x cos t) cos t dt, by the trapezoid rule,
    exact to rounding for this periodic integrand."""
    t = np.linspace(0, np.pi, 2001)
    return np.trapezoid(np.exp(np.multiply.outer(x, np.cos(t))) * np.cos(t), t, axis=-1) / np.pi


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


@dataclass
class Case:
    fn: Callable  # on minigrad tensors
    reference: Callable  # the same on numpy arrays, written out by hand
    torch_fn: Callable | None  # (torch module, *torch tensors) -> tensor
    make: Callable  # -> list of float64 arrays, away from kinks
    edge: Callable | None = None  # -> arrays through the kinks, for the comparison with torch
    torch_grad: bool = True  # False where PyTorch has no gradient (floor_divide)
    torch_rtol: float = 1e-12
    kwargs: dict = field(default_factory=dict)


def unary(fn, reference, torch_fn, low=-3.0, high=3.0, kinks=(), **kw):
    """A Case of one input: random entries away from `kinks`, and the kinks themselves."""
    return Case(fn, reference, torch_fn, lambda: [uniform(3, 4, low=low, high=high, avoid=kinks)],
                lambda: [with_points(kinks, 8, low=low, high=high)], **kw)


def tnn(name, **kw):
    """torch.nn.functional.<name>(x, **kw)."""
    return lambda torch, x: getattr(torch.nn.functional, name)(x, **kw)


CASES = {
    # ---- pointwise ----
    "tan": unary(lambda x: x.tan(), np.tan, lambda t, x: t.tan(x), low=-1.3, high=1.3),
    "log2": unary(lambda x: x.log2(), np.log2, lambda t, x: t.log2(x), 0.1, 9.0, (0.125, 1, 8)),
    "log10": unary(lambda x: x.log10(), np.log10, lambda t, x: t.log10(x), 0.1, 200.0, (1, 100)),
    "exp2": unary(lambda x: x.exp2(), lambda x: 2.0 ** x, lambda t, x: t.exp2(x), -6.0, 6.0,
                  (-3, 0, 5)),
    "rsqrt": unary(lambda x: x.rsqrt(), lambda x: 1 / np.sqrt(x), lambda t, x: t.rsqrt(x),
                   0.1, 5.0),
    "reciprocal": unary(lambda x: x.reciprocal(), lambda x: 1 / x, lambda t, x: t.reciprocal(x),
                        0.2, 4.0),
    "square": unary(lambda x: x.square(), lambda x: x * x, lambda t, x: t.square(x)),
    "floor": unary(lambda x: x.floor(), np.floor, lambda t, x: t.floor(x), kinks=(-2, 0, 1)),
    "ceil": unary(lambda x: x.ceil(), np.ceil, lambda t, x: t.ceil(x), kinks=(-2, 0, 1)),
    "trunc": unary(lambda x: x.trunc(), lambda x: np.sign(x) * np.floor(np.abs(x)),
                   lambda t, x: t.trunc(x), kinks=(-1, 0, 1)),
    "round": unary(lambda x: x.round(), np.rint, lambda t, x: t.round(x),
                   kinks=(-1.5, -0.5, 0.5, 2.5)),
    "round_decimals": unary(lambda x: x.round(decimals=2), lambda x: np.rint(x * 100) / 100,
                            lambda t, x: t.round(x, decimals=2), kinks=(0.125, 1.005)),
    "sign": unary(lambda x: x.sign(), lambda x: (x > 0) * 1.0 - (x < 0) * 1.0,
                  lambda t, x: t.sign(x), kinks=(0.0,)),
    "clone": unary(lambda x: x.clone(), lambda x: x + 0.0, lambda t, x: x.clone()),
    "maximum": Case(lambda a, b: a.maximum(b), lambda a, b: np.where(a > b, a, b),
                    lambda t, a, b: t.maximum(a, b), lambda: [uniform(3, 4), uniform(4)],
                    lambda: [np.array([1.0, 2.0, 3.0, -1.0, 0.0, 2.5]),
                             np.array([1.0, 1.0, 4.0, -1.0, 0.5, 2.5])]),  # ties: half each
    "maximum_scalar": unary(lambda x: x.maximum(0.25), lambda x: np.where(x > 0.25, x, 0.25),
                            lambda t, x: t.maximum(x, t.tensor(0.25, dtype=x.dtype)),
                            kinks=(0.25,)),
    "minimum": Case(lambda a, b: a.minimum(b), lambda a, b: np.where(a < b, a, b),
                    lambda t, a, b: t.minimum(a, b), lambda: [uniform(2, 3), uniform(2, 3)],
                    lambda: [np.array([1.0, 2.0, 3.0, -1.0]), np.array([1.0, 1.0, 4.0, -1.0])]),
    "clamp": unary(lambda x: x.clamp(-0.5, 0.7), lambda x: np.where(
        x < -0.5, -0.5, np.where(x > 0.7, 0.7, x)), lambda t, x: t.clamp(x, -0.5, 0.7),
        kinks=(-0.5, 0.7)),
    "clamp_min": unary(lambda x: x.clamp(min=0.2), lambda x: np.where(x < 0.2, 0.2, x),
                       lambda t, x: t.clamp(x, min=0.2), kinks=(0.2,)),
    "clamp_max": unary(lambda x: x.clamp(max=0.2), lambda x: np.where(x > 0.2, 0.2, x),
                       lambda t, x: t.clamp(x, max=0.2), kinks=(0.2,)),
    # tensor bounds; where min > max the result is max
    "clamp_tensors": Case(
        lambda x, lo, hi: x.clamp(lo, hi),
        lambda x, lo, hi: np.where(lo > hi, hi, np.where(x < lo, lo, np.where(x > hi, hi, x))),
        lambda t, x, lo, hi: t.clamp(x, lo, hi),
        lambda: [uniform(3, 4), uniform(3, 4, low=-2, high=0), uniform(4, low=0, high=2)],
        lambda: [np.array([0.5, 1.0, 2.0, 3.0, 0.0, 1.5]),
                 np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
                 np.array([2.0, 2.0, 2.0, 0.5, 0.5, 1.5])]),
    "lerp": Case(lambda a, b: a.lerp(b, 0.3), lambda a, b: a + 0.3 * (b - a),
                 lambda t, a, b: t.lerp(a, b, 0.3), lambda: [uniform(3, 4), uniform(4)]),
    "lerp_high_weight": Case(lambda a, b: a.lerp(b, 0.8), lambda a, b: b - 0.2 * (b - a),
                             lambda t, a, b: t.lerp(a, b, 0.8), lambda: [uniform(5), uniform(5)]),
    "lerp_tensor_weight": Case(
        lambda a, b, w: a.lerp(b, w), lambda a, b, w: a + w * (b - a),
        lambda t, a, b, w: t.lerp(a, b, w),
        lambda: [uniform(2, 6), uniform(2, 6), uniform(6, low=-0.5, high=1.5, avoid=(0.5,))],
        lambda: [uniform(7), uniform(7), np.array([0.0, 0.3, 0.5, 0.7, 1.0, -0.6, 1.2])]),
    "remainder": Case(lambda a, b: a % b, lambda a, b: a - np.floor(a / b) * b,
                      lambda t, a, b: t.remainder(a, b),
                      lambda: [uniform(3, 4, low=-5, high=5), uniform(4, low=0.5, high=2)]),
    "fmod": Case(lambda a, b: a.fmod(b), lambda a, b: a - np.trunc(a / b) * b,
                 lambda t, a, b: t.fmod(a, b),
                 lambda: [uniform(3, 4, low=-5, high=5),
                          uniform(4, low=0.5, high=2) * np.array([1, -1, 1, -1])]),
    "floor_divide": Case(lambda a, b: a // b, lambda a, b: np.floor(a / b),
                         lambda t, a, b: t.floor_divide(a, b),
                         lambda: [uniform(3, 4, low=-5, high=5), uniform(4, low=0.5, high=2)],
                         torch_grad=False),
    "clamp_min_method": unary(lambda x: x.clamp_min(0.2), lambda x: np.maximum(x, 0.2),
                              lambda t, x: t.clamp_min(x, 0.2), kinks=(0.2,)),
    "clamp_max_method": unary(lambda x: x.clamp_max(0.2), lambda x: np.minimum(x, 0.2),
                              lambda t, x: t.clamp_max(x, 0.2), kinks=(0.2,)),
    "frac": unary(lambda x: x.frac(), lambda x: x - np.trunc(x), lambda t, x: t.frac(x),
                  kinks=(-1, 0, 1)),
    "fix": unary(lambda x: minigrad.fix(x), np.trunc, lambda t, x: t.fix(x), kinks=(-1, 0, 1)),
    "frexp_mantissa": unary(lambda x: x.frexp().mantissa, lambda x: np.frexp(x)[0],
                            lambda t, x: t.frexp(x).mantissa, -40.0, 40.0, (-2, 0.5, 1, 16)),
    "ldexp": Case(lambda a, b: minigrad.ldexp(a, b), lambda a, b: a * 2.0 ** b,
                  lambda t, a, b: t.ldexp(a, b), lambda: [uniform(3, 4), uniform(4)]),
    "rsub": Case(lambda a, b: minigrad.rsub(a, b, alpha=-1.5), lambda a, b: b + 1.5 * a,
                 lambda t, a, b: t.rsub(a, b, alpha=-1.5), lambda: [uniform(3, 4), uniform(4)]),
    "rsub_number": unary(lambda x: minigrad.rsub(x, 2), lambda x: 2 - x,
                         lambda t, x: t.rsub(x, 2)),
    "addcmul": Case(lambda a, b, c: a.addcmul(b, c, value=0.5), lambda a, b, c: a + 0.5 * b * c,
                    lambda t, a, b, c: t.addcmul(a, b, c, value=0.5),
                    lambda: [uniform(3, 4), uniform(4), uniform(3, 1)]),
    "addcdiv": Case(lambda a, b, c: a.addcdiv(b, c, value=-2.0), lambda a, b, c: a - 2.0 * b / c,
                    lambda t, a, b, c: t.addcdiv(a, b, c, value=-2.0),
                    lambda: [uniform(3, 4), uniform(3, 4), uniform(4, low=0.5, high=2)]),
    "where_method": Case(lambda a, b: a.where(a.data > 0, b), lambda a, b: np.where(a > 0, a, b),
                         lambda t, a, b: a.where(a > 0, b),
                         lambda: [uniform(3, 4, avoid=(0.0,)), uniform(4)]),
    # ---- inverse trigonometric and hyperbolic functions (numpy's as references) ----
    "atan2": Case(lambda a, b: a.atan2(b), np.arctan2, lambda t, a, b: t.atan2(a, b),
                  lambda: [uniform(3, 4), uniform(4, avoid=(0.0,))],
                  lambda: [np.array([0.0, 1.0, -1.0, 2.0, -0.5]),
                           np.array([1.0, 0.0, 0.0, -3.0, -0.5])]),
    "atan": unary(lambda x: x.atan(), np.arctan, lambda t, x: t.atan(x), -6.0, 6.0),
    "asin": unary(lambda x: x.asin(), np.arcsin, lambda t, x: t.asin(x), -0.95, 0.95, (0.0,)),
    "acos": unary(lambda x: x.acos(), np.arccos, lambda t, x: t.acos(x), -0.95, 0.95, (0.0,)),
    "sinh": unary(lambda x: x.sinh(), np.sinh, lambda t, x: t.sinh(x), -4.0, 4.0, (0.0,)),
    "cosh": unary(lambda x: x.cosh(), np.cosh, lambda t, x: t.cosh(x), -4.0, 4.0, (0.0,)),
    "asinh": unary(lambda x: x.asinh(), np.arcsinh, lambda t, x: t.asinh(x), -6.0, 6.0, (0.0,)),
    "acosh": unary(lambda x: x.acosh(), np.arccosh, lambda t, x: t.acosh(x), 1.05, 6.0,
                   (2.0 ** 28,)),  # where it switches to log(2x)
    "atanh": unary(lambda x: x.atanh(), np.arctanh, lambda t, x: t.atanh(x), -0.95, 0.95,
                   (0.0,)),
    # ---- more functions of two tensors ----
    "copysign": Case(lambda a, b: a.copysign(b), np.copysign, lambda t, a, b: t.copysign(a, b),
                     lambda: [uniform(3, 4, avoid=(0.0,)), uniform(4, avoid=(0.0,))],
                     lambda: [np.array([0.0, -0.0, 1.5, -2.0, 0.0, 3.0]),
                              np.array([1.0, 1.0, -0.0, 0.0, -2.0, -1.0])]),  # +-0 included
    "logaddexp": Case(lambda a, b: a.logaddexp(b), np.logaddexp,
                      lambda t, a, b: t.logaddexp(a, b), lambda: [uniform(3, 4), uniform(4)],
                      lambda: [np.array([1.0, -700.0, 800.0, 2.0]),
                               np.array([1.0, -705.0, 790.0, -3.0])]),  # a tie; far out
    "logaddexp2": Case(lambda a, b: a.logaddexp2(b), lambda a, b: np.log2(2.0 ** a + 2.0 ** b),
                       lambda t, a, b: t.logaddexp2(a, b), lambda: [uniform(3, 4), uniform(4)],
                       lambda: [np.array([1.0, -1100.0, 1100.0, 2.0, -np.inf]),
                                np.array([1.0, -1105.0, 1090.0, -3.0, -np.inf])]),
    "hypot": Case(lambda a, b: a.hypot(b), lambda a, b: np.sqrt(a * a + b * b),
                  lambda t, a, b: t.hypot(a, b), lambda: [uniform(3, 4), uniform(4)],
                  lambda: [np.array([3.0, 0.0, -1e300, 1e200, -2.5, 1e-300]),  # no overflow,
                           np.array([4.0, -2.0, 1e300, 1e-200, 1.5, 1e-300])]),  # no underflow
    "xlogy": Case(lambda a, b: a.xlogy(b), lambda a, b: a * np.log(b),
                  lambda t, a, b: t.xlogy(a, b),
                  lambda: [uniform(3, 4), uniform(4, low=0.1, high=3.0)],
                  lambda: [np.array([0.0, 0.0, 0.0, 2.0, 2.0, -1.0, 1.0]),  # 0 where self is 0
                           np.array([0.5, -1.0, np.nan, 0.0, 3.0, -1.0, np.inf])]),
    "xlogy_number_first": unary(lambda b: minigrad.xlogy(2.5, b), lambda b: 2.5 * np.log(b),
                                lambda t, b: t.xlogy(2.5, b), 0.1, 3.0),
    "fmax": Case(lambda a, b: a.fmax(b), lambda a, b: np.where(a >= b, a, b),
                 lambda t, a, b: t.fmax(a, b), lambda: [uniform(3, 4), uniform(4)],
                 lambda: [np.array([1.0, np.nan, np.nan, 2.0, 3.0]),  # NaN loses; ties: self
                          np.array([np.nan, 1.0, np.nan, 2.0, 1.0])]),
    "fmin": Case(lambda a, b: minigrad.fmin(a, b), lambda a, b: np.where(a <= b, a, b),
                 lambda t, a, b: t.fmin(a, b), lambda: [uniform(3, 4), uniform(4)],
                 lambda: [np.array([1.0, np.nan, np.nan, 2.0, 3.0]),
                          np.array([np.nan, 1.0, np.nan, 2.0, 1.0])]),
    "nextafter": Case(lambda a, b: a.nextafter(b), np.nextafter, lambda t, a, b: t.nextafter(a, b),
                      lambda: [uniform(3, 4), uniform(4)],
                      lambda: [np.array([1.0, 1.0, 0.0, -0.0, 0.0, 5e-324, 2.0, 1e308, 3.0]),
                               np.array([2.0, 1.0, -0.0, 0.0, np.nan, 0.0, np.inf, 1e308, -1.0])]),
    "sinc": unary(lambda x: x.sinc(), lambda x: np.sin(np.pi * x) / (np.pi * x),
                  lambda t, x: t.sinc(x), kinks=(0.0,)),  # 1 at 0, with gradient 0
    "logit": Case(lambda x: x.logit(), lambda x: np.log(x / (1 - x)), lambda t, x: t.logit(x),
                  lambda: [uniform(3, 4, low=0.02, high=0.98)],
                  lambda: [with_points([0.0, 1.0], 8, low=0.02, high=0.98)]),  # -inf, inf
    "logit_eps": unary(lambda x: minigrad.logit(x, eps=0.2),
                       lambda x: np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8))),
                       lambda t, x: t.logit(x, eps=0.2), -0.5, 1.5, (0.2, 0.8)),
    "nan_to_num": unary(lambda x: x.nan_to_num(), np.nan_to_num, lambda t, x: t.nan_to_num(x),
                        kinks=(np.nan, np.inf, -np.inf)),
    "nan_to_num_values": unary(lambda x: minigrad.nan_to_num(x, 1.0, posinf=2.0, neginf=-3.0),
                               lambda x: np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0),
                               lambda t, x: t.nan_to_num(x, 1.0, posinf=2.0, neginf=-3.0),
                               kinks=(np.nan, np.inf, -np.inf)),
    "deg2rad": unary(lambda x: x.deg2rad(), lambda x: x * np.pi / 180, lambda t, x: t.deg2rad(x),
                     -400.0, 400.0),
    "rad2deg": unary(lambda x: minigrad.rad2deg(x), lambda x: x * 180 / np.pi,
                     lambda t, x: t.rad2deg(x)),
    # ---- special functions composed (minigrad.special) ----
    # PyTorch's ndtr loses digits from about -4 on (it is 0 below -8.3): compared above -3.5
    "ndtr": unary(special.ndtr, lambda x: _erfc(-x / math.sqrt(2)) / 2,
                  lambda t, x: t.special.ndtr(x), -3.5, 5.0, (0.0,)),
    # its two branches meet at -1; far out on either side, erfcx and log1p keep the digits
    "log_ndtr": unary(special.log_ndtr, lambda x: np.log(_erfc(-x / math.sqrt(2)) / 2),
                      lambda t, x: t.special.log_ndtr(x), -6.0, 6.0, (-1.0, -40.0, 30.0),
                      torch_rtol=1e-10),
    "xlog1py": Case(special.xlog1py, lambda a, b: a * np.log1p(b),
                    lambda t, a, b: t.special.xlog1py(a, b),
                    lambda: [uniform(3, 4), uniform(4, low=-0.9, high=3.0)],
                    lambda: [np.array([0.0, 0.0, 0.0, 2.0, 2.0, -1.0, 1.0]),  # 0 where self is 0
                             np.array([0.5, -2.0, np.nan, -1.0, 3.0, -2.0, np.inf])]),
    "xlog1py_number_first": unary(lambda b: special.xlog1py(2.5, b),
                                  lambda b: 2.5 * np.log1p(b),
                                  lambda t, b: t.special.xlog1py(2.5, b), -0.9, 3.0),
    "entr": unary(special.entr, lambda x: -x * np.log(x), lambda t, x: t.special.entr(x),
                  0.05, 4.0, (1.0,)),
    "i1": unary(special.i1, lambda x: _bessel_i1(x), lambda t, x: t.special.i1(x), -5.0, 5.0,
                (0.0,)),
    "mvlgamma": unary(lambda x: x.mvlgamma(3),
                      lambda x: 3 / 2 * math.log(math.pi) + sum(_lgamma(x - j / 2)
                                                               for j in range(3)),
                      lambda t, x: t.mvlgamma(x, 3), 1.2, 8.0),
    # ---- activations ----
    "leaky_relu": unary(F.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x), tnn("leaky_relu"),
                        kinks=(0.0,)),
    "leaky_relu_slope": unary(lambda x: F.leaky_relu(x, 0.2),
                              lambda x: np.where(x > 0, x, 0.2 * x),
                              tnn("leaky_relu", negative_slope=0.2), kinks=(0.0,)),
    "elu": unary(F.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1), tnn("elu"), kinks=(0.0,)),
    "elu_alpha": unary(lambda x: F.elu(x, alpha=0.5),
                       lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1)),
                       tnn("elu", alpha=0.5), kinks=(0.0,)),
    "celu": unary(lambda x: F.celu(x, alpha=2.0),
                  lambda x: np.where(x > 0, x, 2.0 * (np.exp(x / 2.0) - 1)),
                  tnn("celu", alpha=2.0), kinks=(0.0,)),
    "selu": unary(F.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * (np.exp(x) - 1)),
                  tnn("selu"), kinks=(0.0,)),
    "silu": unary(F.silu, lambda x: x / (1 + np.exp(-x)), tnn("silu")),
    "gelu": unary(F.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))), tnn("gelu"), -5, 5),
    "softplus": unary(F.softplus, lambda x: np.log(1 + np.exp(x)), tnn("softplus"), -8, 8),
    # beta x beyond the threshold is x itself (x = 2.5 sits on it: still the soft branch)
    "softplus_threshold": unary(lambda x: F.softplus(x, beta=2.0, threshold=5.0),
                                lambda x: np.where(2 * x > 5, x, np.log(1 + np.exp(2 * x)) / 2),
                                tnn("softplus", beta=2.0, threshold=5.0), -4, 4, (2.5,)),
    "mish": unary(F.mish, lambda x: x * np.tanh(np.log(1 + np.exp(x))), tnn("mish"), -5, 5),
    "hardtanh": unary(F.hardtanh, lambda x: np.where(x < -1, -1.0, np.where(x > 1, 1.0, x)),
                      tnn("hardtanh"), kinks=(-1.0, 1.0)),
    "hardtanh_bounds": unary(lambda x: F.hardtanh(x, -2.0, 0.5),
                             lambda x: np.where(x < -2, -2.0, np.where(x > 0.5, 0.5, x)),
                             tnn("hardtanh", min_val=-2.0, max_val=0.5), kinks=(-2.0, 0.5)),
    "relu6": unary(F.relu6, lambda x: np.where(x < 0, 0.0, np.where(x > 6, 6.0, x)),
                   tnn("relu6"), -2, 8, (0.0, 6.0)),
    # PyTorch's backward multiplies by 1/6 rounded to float32, in float64 too
    "hardsigmoid": unary(F.hardsigmoid,
                         lambda x: np.where(x < -3, 0, np.where(x > 3, 1, x / 6 + 0.5)),
                         tnn("hardsigmoid"), -5, 5, (-3.0, 3.0), torch_rtol=1e-7),
    "hardswish": unary(F.hardswish,
                       lambda x: x * np.where(x < -3, 0, np.where(x > 3, 1, x / 6 + 0.5)),
                       tnn("hardswish"), -5, 5, (-3.0, 3.0)),
    "logsigmoid": unary(F.logsigmoid, lambda x: -np.log(1 + np.exp(-x)), tnn("logsigmoid"),
                        -8, 8, (0.0,)),
    "hardshrink": unary(F.hardshrink, lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
                        tnn("hardshrink"), kinks=(-0.5, 0.5)),
    "hardshrink_lambd": unary(lambda x: F.hardshrink(x, 1.5),
                              lambda x: np.where(np.abs(x) > 1.5, x, 0.0),
                              tnn("hardshrink", lambd=1.5), kinks=(-1.5, 1.5)),
    "softshrink": unary(F.softshrink,
                        lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0)),
                        tnn("softshrink"), kinks=(-0.5, 0.0, 0.5)),
    "softshrink_lambd_0": unary(lambda x: F.softshrink(x, 0.0), lambda x: x + 0.0,
                                tnn("softshrink", lambd=0.0), kinks=(0.0,)),
    "tanhshrink": unary(F.tanhshrink, lambda x: x - np.tanh(x), tnn("tanhshrink")),
    "threshold": unary(lambda x: F.threshold(x, 0.3, -7.0), lambda x: np.where(x > 0.3, x, -7.0),
                       lambda t, x: t.nn.functional.threshold(x, 0.3, -7.0), kinks=(0.3,)),
    "softsign": unary(F.softsign, lambda x: x / (1 + np.abs(x)), tnn("softsign"), kinks=(0.0,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_forward_matches_numpy(name, mode):
    case = CASES[name]
    arrays = case.make()
    out = case.fn(*[Tensor(a) for a in arrays])
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.data, case.reference(*arrays), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_on_primitives_alone(name):
    case = CASES[name]
    inputs = [Tensor(a, requires_grad=True) for a in case.make()]
    with minigrad.fused(False):
        assert op_types(case.fn(*inputs)) <= set(ops.primitives())
        assert gradcheck(case.fn, inputs)


@pytest.mark.parametrize("name", list(CASES))
def test_keeps_float32(name):
    """float32 in, float32 out, and every primitive's backward returns float32 gradients."""
    case = CASES[name]
    inputs = [Tensor(a.astype(np.float32), requires_grad=True) for a in case.make()]
    with minigrad.fused(False):
        assert_keeps_float32(case.fn, inputs)


@pytest.mark.parametrize("name", list(CASES))
# the kinks include poles and infinities (logit at 0 and 1, xlogy at 0, logaddexp2 of -inf),
# where numpy warns as it computes the inf or NaN PyTorch also gives
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning",
                            "ignore:invalid value:RuntimeWarning")
def test_matches_torch_values_and_gradients(name, torch):
    """On random inputs and on the kinks, where each library picks one of the one-sided
    derivatives (or half of each, for ties): minigrad picks PyTorch's."""
    case = CASES[name]
    for arrays in filter(None, [case.make(), case.edge and case.edge()]):
        inputs = [Tensor(a, requires_grad=True) for a in arrays]
        out = case.fn(*inputs)
        torch_inputs = [torch.tensor(a, requires_grad=case.torch_grad) for a in arrays]
        expected = case.torch_fn(torch, *torch_inputs)
        np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-14)
        if not case.torch_grad:
            continue
        upstream = rng.standard_normal(out.shape)
        grads = minigrad.grad(out, inputs, upstream)
        expected_grads = torch.autograd.grad(expected, torch_inputs, torch.tensor(upstream),
                                             allow_unused=True)
        for i, (g, e) in enumerate(zip(grads, expected_grads)):
            e = np.zeros_like(arrays[i]) if e is None else e.numpy()
            g = np.zeros_like(arrays[i]) if g is None else g
            np.testing.assert_allclose(g, e, rtol=case.torch_rtol, atol=1e-14,
                                       err_msg=f"{name}: gradient of input {i} at {arrays}")


# how to call each function of minigrad.special and torch.special (lib) on x in (0.1, 0.9)
SPECIAL_CALLS = {
    "polygamma": lambda lib, x: lib.polygamma(2, x),
    "multigammaln": lambda lib, x: lib.multigammaln(x + 1, 3),
    "softmax": lambda lib, x: lib.softmax(x, 1),
    "log_softmax": lambda lib, x: lib.log_softmax(x, 0),
    "logsumexp": lambda lib, x: lib.logsumexp(x, 1),
    "xlogy": lambda lib, x: lib.xlogy(x, x + 1),
    "xlog1py": lambda lib, x: lib.xlog1py(x, x - 0.5),
    "round": lambda lib, x: lib.round(x, decimals=1),
    "zeta": lambda lib, x: lib.zeta(3.0, x),  # differentiable in q only
    "gammainc": lambda lib, x: lib.gammainc(x.detach() + 0.5, x),  # in x only
    "gammaincc": lambda lib, x: lib.gammaincc(x.detach() * 3, x),
    # the orthogonal polynomials, of degree 7: past the switch to the trigonometric form for the
    # shifted kinds and T, before it for U, V and W
    **{name: lambda lib, x, name=name: getattr(lib, name)(x, 7) for name in special.__all__
       if "_polynomial_" in name},
}
# which give a result without gradient, as PyTorch's
UNARY_WITHOUT_GRADIENT = ["spherical_bessel_j0", "bessel_j0", "bessel_j1", "modified_bessel_i0",
                          "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                          "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]
NO_GRADIENT = {name for name in special.__all__ if "_polynomial_" in name} | set(
    UNARY_WITHOUT_GRADIENT)


@pytest.mark.parametrize("name", special.__all__)
def test_special_namespace_matches_torch_special(name, torch):
    """Every name of minigrad.special is one of torch.special's, with its meaning: the same
    values and gradients."""
    assert hasattr(torch.special, name)
    call = SPECIAL_CALLS.get(name, lambda lib, x: getattr(lib, name)(x))
    x = rng.uniform(0.1, 0.9, (3, 4))
    leaf = Tensor(x, requires_grad=True)
    out = call(special, leaf)
    torch_leaf = torch.tensor(x, requires_grad=True)
    expected = call(torch.special, torch_leaf)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-15)
    if name in NO_GRADIENT:
        assert not out.requires_grad and out.grad_fn is None and expected.grad_fn is None
        return
    upstream = rng.standard_normal(out.shape)
    (grad,) = minigrad.grad(out, [leaf], upstream)
    (expected_grad,) = torch.autograd.grad(expected, torch_leaf, torch.tensor(upstream))
    # digamma's gradient is trigamma, PyTorch's accurate to about 5e-10
    rtol = 1e-9 if name in ("digamma", "psi") else 1e-10
    np.testing.assert_allclose(grad, expected_grad.numpy(), rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("eps", [None, 0.0, 1e-6, 0.2, 0.7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning",
                            "ignore:invalid value:RuntimeWarning")
def test_logit_at_and_outside_its_domain_matches_torch(eps, dtype, torch):
    """Regression: outside [0, 1] (and, with eps, at NaN) the gradient was finite where
    PyTorch's is NaN. With eps, p below eps is eps and above 1 - eps is 1 - eps (eps first,
    as eps = 0.7 shows): gradient 0 there, the slope at the bounds themselves. Over 0, 1, the
    eps bounds, beyond them, infinities and NaN."""
    bound = 0.0 if eps is None else eps
    x = np.array([-np.inf, -0.5, 0.0, 1e-7, bound, 0.3, 1 - bound, 1.0, 1.5, np.inf, np.nan],
                 dtype=dtype)
    ours = Tensor(x, requires_grad=True)
    out = minigrad.logit(ours, eps)
    theirs = torch.tensor(x, requires_grad=True)
    expected = torch.logit(theirs, eps)
    upstream = rng.standard_normal(x.shape).astype(dtype)
    (grad,) = minigrad.grad(out, [ours], upstream)
    (expected_grad,) = torch.autograd.grad(expected, theirs, torch.tensor(upstream))
    assert out.dtype == grad.dtype == dtype
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=rtol)
    np.testing.assert_allclose(grad, expected_grad.numpy(), rtol=rtol)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf - inf, as PyTorch's
def test_logaddexp_beside_and_at_infinities_matches_torch(name, dtype, torch):
    """Regression: beside one +inf the gradient was NaN (exp(inf) * 0 in the backward of the
    shifted sum) where PyTorch's is 0 and 1. Ties of equal infinities keep PyTorch's value,
    that infinity, and its gradient, NaN; -inf beside a number, or opposite infinities,
    give the other's value with gradients 0 and 1."""
    inf = np.inf
    a = np.array([1.0, inf, inf, -inf, -inf, 1.0, inf, -inf, 2.0, 800.0], dtype=dtype)
    b = np.array([inf, -2.0, inf, -inf, 1.0, -inf, -inf, inf, 2.0, -3.0], dtype=dtype)
    ours = [Tensor(a, requires_grad=True), Tensor(b, requires_grad=True)]
    theirs = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    out, expected = getattr(ours[0], name)(ours[1]), getattr(torch, name)(*theirs)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-6)
    grads = minigrad.grad(out, ours, np.ones(len(a), dtype=dtype))
    for grad, expected_grad in zip(grads, torch.autograd.grad(expected.sum(), theirs)):
        assert grad.dtype == dtype
        np.testing.assert_allclose(grad, expected_grad.numpy(), rtol=1e-6)


def test_entr_at_zero_and_below(torch):
    """Values as PyTorch's: 0 at 0, -inf below, NaN at NaN. The gradient is that of the
    composition's constants there, 0, where PyTorch's formula -(1 + log x) gives inf at 0 and
    NaN below (docs/api.md's table of differences)."""
    x = np.array([0.0, -1.0, -np.inf, np.nan, np.inf, 2.0])
    np.testing.assert_array_equal(special.entr(Tensor(x)).data,
                                  torch.special.entr(torch.tensor(x)).numpy())
    leaf = Tensor(x[:3], requires_grad=True)
    (grad,) = minigrad.grad(special.entr(leaf), [leaf], np.ones(3))
    np.testing.assert_array_equal(grad, [0.0, 0.0, 0.0])


def test_ndtr_keeps_its_digits_far_below_zero():
    """erfc(-x / sqrt(2)) / 2 down to the smallest floats (PyTorch's CPU ndtr is 0 below
    -8.3), and log_ndtr stays finite where ndtr underflows."""
    x = -np.geomspace(1, 37, 300)
    expected = _erfc(-x / math.sqrt(2)) / 2
    # the rounding of x / sqrt(2) is magnified by about x**2 in the result
    np.testing.assert_allclose(special.ndtr(Tensor(x)).data, expected, rtol=1e-12 * 37 ** 2)
    np.testing.assert_allclose(special.log_ndtr(Tensor(np.array([-40.0]))).data,
                               [-804.6084420137538], rtol=1e-14)


SPECIAL_EXTREMES = [1e300, -1e300, np.inf, -np.inf, np.nan, 0.0, 5e-324, -5e-324, 1e-300, 1.5e154,
                    -1.5e154, 800.0, -800.0, 1.0, -1.0, 0.5]
# inputs whose result (or, for the backward, gradient) is NaN where the true one is infinite,
# as PyTorch's: numpy's warning there is about a wrong result, and the sweep leaves them out
NAN_AT = {"i1": [np.inf, -np.inf]}
POLYNOMIALS = [name for name in special.__all__ if "_polynomial_" in name]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_orthogonal_polynomials_match_torch_for_every_degree(name, torch):
    """Each of n = -3 ... 40, 100, 1000, non-integer n (truncated), NaN, infinite and huge n
    (0, as PyTorch's cast makes them negative), at x inside [-1, 1] (and [0, 1]), outside it,
    at its ends and at NaN and the infinities, with n a tensor broadcast against x: PyTorch's
    values to 1e-10 relative (the recurrences and the trigonometric forms past PyTorch's
    switch agree with its to rounding; near a root, where the recurrence's rounding, up to
    2e-13 absolute at n = 1000 (PyTorch's compiler fuses some multiply-adds), is all either
    library has, 1e-12 absolute). Where the recurrence overflows float64, PyTorch's fused
    multiply-adds may keep a finite value past 1e300 one step further than numpy's."""
    draw = np.random.default_rng(7)
    x = np.concatenate([draw.uniform(-1, 1, 200), draw.uniform(0, 1, 100),
                        draw.uniform(-3, 3, 60), draw.uniform(-30, 30, 20),
                        [1.0, -1.0, 0.0, -0.0, 0.5, 1 - 2 ** -53, 2 ** -54, -1e-300, np.nan,
                         np.inf, -np.inf]])
    n = np.array([*range(-3, 41), 100, 1000, 2.7, 7.5, -0.5, np.nan, np.inf, -np.inf, 1e20])
    ours = getattr(special, name)(Tensor(x[:, None]), Tensor(n)).data
    theirs = getattr(torch.special, name)(torch.tensor(x[:, None]), torch.tensor(n)).numpy()
    finite = np.isfinite(ours) & np.isfinite(theirs)
    largest_finite = np.fmax(np.abs(np.where(np.isfinite(ours), ours, 0)),
                             np.abs(np.where(np.isfinite(theirs), theirs, 0)))
    assert (finite | ~np.isfinite(ours) & ~np.isfinite(theirs) | (largest_finite > 1e300)).all()
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-10, atol=1e-12)
    edges = ~np.isfinite(x)  # NaN, inf and -inf: no rounding on the way, the same to the bit
    np.testing.assert_array_equal(ours[edges], theirs[edges])


@pytest.mark.parametrize("name", POLYNOMIALS + UNARY_WITHOUT_GRADIENT)
def test_orthogonal_polynomials_and_bessel_functions_dtypes_and_no_gradient_as_torch(name, torch):
    """Integers and bools give the default float dtype, float32 stays float32 (beside a 0-d
    float64 n too), a float64 n tensor promotes; a Python number may be either argument. The
    result never requires grad, as PyTorch's, also for an input that does."""
    if name in UNARY_WITHOUT_GRADIENT:
        arguments = [(np.array([0, 3]),), (np.array([True]),), (np.float32([0.25, 1.5]),)]
    else:
        arguments = [(np.array([0, 3]), 4), (np.float32([0.25, 0.5]), np.array(3.0)),
                     (np.float32([0.25, 0.5]), np.array([3.0, 12.0])), (2.5, np.array([2, 9])),
                     (np.array([True, False]), np.array([True])),
                     (np.array([0.3]), np.int32([1, 2, 3]).reshape(3, 1))]
    for values in arguments:
        ours = getattr(special, name)(*(Tensor(v) if isinstance(v, np.ndarray) else v
                                        for v in values))
        theirs = getattr(torch.special, name)(*(torch.tensor(v) if isinstance(v, np.ndarray)
                                                else v for v in values))
        assert str(theirs.dtype) == f"torch.{ours.dtype}" and ours.shape == tuple(theirs.shape)
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6)
    leaf = Tensor(np.array([0.3, 2.0]), requires_grad=True)
    out = getattr(special, name)(leaf) if name in UNARY_WITHOUT_GRADIENT else getattr(
        special, name)(leaf, 3)
    assert not out.requires_grad and out.grad_fn is None


def test_spherical_bessel_j0_matches_torch_near_0_and_far_out(torch):
    """sin(x) / x: 1 at 0, its series below 0.5 where the quotient would lose digits, 0 at the
    infinities, NaN at NaN; PyTorch's values to 1e-15 relative."""
    x = np.concatenate([np.linspace(-3, 3, 2001), np.geomspace(1e-10, 1e10, 500),
                        [0.0, -0.0, 0.49999999, 0.5, np.inf, -np.inf, np.nan]])
    ours = special.spherical_bessel_j0(Tensor(x)).data
    expected = torch.special.spherical_bessel_j0(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, expected, rtol=1e-15, atol=0)


def _bessel_extremes():
    """0 and -0, the infinities, NaN, the smallest and largest magnitudes, both signs."""
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e-300, 1e300]
    return np.array(edges + [-e for e in edges[5:]])


@pytest.mark.parametrize("name", UNARY_WITHOUT_GRADIENT[3:])
def test_modified_bessel_functions_match_torch(name, torch):
    """I_0, I_1, K_0, K_1 and the scaled K from 1e-12 to 1e4 (past where I overflows and K
    underflows), below 0 (I_1 odd, K NaN) and at the edges (K inf at 0, 0 at inf): PyTorch's
    values to 1e-13 relative (I_1(5e-324), half the smallest subnormal, rounds to 0 here and
    to 5e-324 in PyTorch)."""
    x = np.concatenate([np.geomspace(1e-12, 1e4, 2000), -np.geomspace(1e-12, 1e4, 200),
                        rng.uniform(0, 40, 1000), _bessel_extremes()])
    ours = getattr(special, name)(Tensor(x)).data
    theirs = getattr(torch.special, name)(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-13,
                               atol=np.finfo(float).smallest_subnormal)
    numbers = ~np.isnan(theirs)
    np.testing.assert_array_equal(np.signbit(ours[numbers]), np.signbit(theirs[numbers]))


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_j1"])
def test_bessel_j_matches_torch_below_2_and_from_25_on(name, torch):
    """J_0 and J_1 near 0 (the series) and far out (Hankel's expansion), both signs, and at
    the edges (NaN at +-inf, as PyTorch's Hankel form gives): PyTorch's values to 1e-13
    relative (1e-15 absolute near the zeros, where the rounding of x - pi/4 decides)."""
    x = np.concatenate([np.geomspace(1e-12, 2, 500), rng.uniform(25, 1e4, 1000)])
    x = np.concatenate([x, -x, _bessel_extremes()])
    ours = getattr(special, name)(Tensor(x)).data
    theirs = getattr(torch.special, name)(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(np.signbit(ours[x == 0]), np.signbit(theirs[x == 0]))


def _exact_bessel_j(order, x):
    """J_order(x) from its power series summed in exact rational arithmetic, then rounded."""
    quarter_square = -Fraction(x) ** 2 / 4
    term = (Fraction(x) / 2) ** order / math.factorial(order)
    total, k = term, 0
    while abs(term) > Fraction(1, 10 ** 40) or k < 2 * abs(x):
        k += 1
        term = term * quarter_square / (k * (k + order))
        total += term
    return float(total)


@pytest.mark.parametrize("order", [0, 1])
def test_bessel_j_between_2_and_25_is_its_exact_series(order):
    """Between 2 and 25 PyTorch 2.13's J_0 and J_1 are up to 4e-7 off (near x = 5; docs/api.md),
    so minigrad's trapezoidal rule there is checked against the power series summed exactly:
    within 1e-15 absolute (J is O(0.1) there), 1e-13 relative away from the zeros."""
    x = np.concatenate([rng.uniform(2, 25, 60), [2.0, 5.0, 5.025423615743829, 24.99]])
    x = np.concatenate([x, -x])
    exact = np.array([_exact_bessel_j(order, value) for value in x])
    ours = getattr(special, f"bessel_j{order}")(Tensor(x)).data
    np.testing.assert_allclose(ours, exact, rtol=1e-13, atol=1e-15)


NAN_GRADIENT_AT = {"i1": [1e300, -1e300, np.inf, -np.inf, 1.5e154, -1.5e154, 800.0, -800.0],
                   "log_ndtr": [-np.inf]}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ["erf", "erfc", "erfcx", "erfinv", "ndtr", "ndtri", "log_ndtr",
                                  "i0", "i0e", "i1", "i1e", "digamma", "gammaln", "polygamma"])
def test_special_functions_of_extreme_inputs_warn_nothing(name, dtype):
    """Their results there (inf, 0, NaN outside the domain) are right, and numpy's overflow
    and invalid-value warnings about how they came about must not reach the user: erf's and
    erfc's gradients warned from |x| = 1.3e154 on, i1 beyond 709.8, ndtri's at 5e-324."""
    function = (lambda x: special.polygamma(1, x)) if name == "polygamma" else getattr(special,
                                                                                          name)

    def values(leaving_out):
        with np.errstate(over="ignore"):  # 1e300 and 1.5e154 are inf in float32
            x = np.array(SPECIAL_EXTREMES).astype(dtype)
        return x[~np.isin(x, leaving_out)]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function(Tensor(values(NAN_AT.get(name, []))))
        leaf = Tensor(values(NAN_GRADIENT_AT.get(name, [])), requires_grad=True)
        minigrad.grad(function(leaf), [leaf], np.ones(leaf.shape, dtype))


def _extremes(dtype):
    """0 and -0, the infinities, NaN, the largest and the smallest normal magnitudes, and
    numbers where exp overflows or underflows (800, -800) and where float32's does (100)."""
    finfo = np.finfo(dtype)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, finfo.max, -finfo.max, finfo.tiny,
                     -finfo.tiny, 1.0, -1.0, 0.5, 100.0, -100.0, 800.0, -800.0], dtype=dtype)


def _full(x, value):
    return np.full(np.shape(x), value, dtype=x.dtype)


# name: (minigrad's function of a tensor, PyTorch's of the torch module and a tensor)
ELEMENTARY_AT_EXTREMES = {
    "exp": (minigrad.exp, lambda torch, t: t.exp()),
    "exp2": (minigrad.exp2, lambda torch, t: t.exp2()),
    "expm1": (minigrad.expm1, lambda torch, t: t.expm1()),
    "log": (minigrad.log, lambda torch, t: t.log()),
    "log1p": (minigrad.log1p, lambda torch, t: t.log1p()),
    "sqrt": (minigrad.sqrt, lambda torch, t: t.sqrt()),
    "rsqrt": (minigrad.rsqrt, lambda torch, t: t.rsqrt()),
    "reciprocal": (minigrad.reciprocal, lambda torch, t: t.reciprocal()),
    "tanh": (minigrad.tanh, lambda torch, t: t.tanh()),
    "sigmoid": (minigrad.sigmoid, lambda torch, t: t.sigmoid()),
    "logsigmoid": (F.logsigmoid, lambda torch, t: torch.nn.functional.logsigmoid(t)),
    "softplus": (F.softplus, lambda torch, t: torch.nn.functional.softplus(t)),
    "x ** 2": (lambda x: x ** 2, lambda torch, t: t ** 2),
    "x ** 3": (lambda x: x ** 3, lambda torch, t: t ** 3),
    "x ** -1": (lambda x: x ** -1.0, lambda torch, t: t ** -1.0),
    "x ** 0.5": (lambda x: x ** 0.5, lambda torch, t: t ** 0.5),
    "2 ** x": (lambda x: 2.0 ** x, lambda torch, t: 2.0 ** t),
    "0 ** x": (lambda x: 0.0 ** x, lambda torch, t: 0.0 ** t),
    "sinc": (minigrad.sinc, lambda torch, t: t.sinc()),
    "xlogy(x, 2)": (lambda x: x.xlogy(_full(x.data, 2.0)), lambda torch, t: t.xlogy(2.0)),
    "xlogy(x, 0)": (lambda x: x.xlogy(_full(x.data, 0.0)), lambda torch, t: t.xlogy(0.0)),
    "xlogy(2, y)": (lambda y: Tensor(_full(y.data, 2.0)).xlogy(y),
                    lambda torch, t: torch.full_like(t, 2.0).xlogy(t)),
    "xlogy(0, y)": (lambda y: Tensor(_full(y.data, 0.0)).xlogy(y),
                    lambda torch, t: torch.zeros_like(t).xlogy(t)),
    "xlog1py(2, y)": (lambda y: special.xlog1py(Tensor(_full(y.data, 2.0)), y),
                      lambda torch, t: torch.special.xlog1py(2.0, t)),
    "entr": (special.entr, lambda torch, t: torch.special.entr(t)),
}
# where the gradient differs from PyTorch's on purpose (docs/api.md's last table) or by
# PyTorch's rounding: sinc near 0 (the series' slope, PyTorch's quotient cancels to 0), xlogy
# of x = 0 (0 for y = 0 and inf, PyTorch's NaN), entr at and below 0 and at inf; x ** 0.5 at
# -0 and -inf, where PyTorch's x ** -0.5 is rsqrt (-inf and NaN) and numpy's C pow (inf and 0)
GRADIENT_DIFFERS_AT = {
    "sinc": lambda x: np.abs(x) <= np.finfo(x.dtype).tiny,
    "xlogy(0, y)": lambda y: (y == 0) | (y == np.inf),
    "entr": lambda x: (x <= 0) | (x == np.inf),
    "x ** 0.5": lambda x: np.signbit(x) & ((x == 0) | np.isinf(x)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(ELEMENTARY_AT_EXTREMES))
def test_elementary_functions_at_extremes_match_torch_without_warnings(name, dtype, torch):
    """Regression: exp, expm1 and 2 ** x of large x, log and log1p of 0 and of negatives, sqrt,
    rsqrt and reciprocal of 0, xlogy(x, 0), sinc of inf and the largest floats, ... printed numpy's
    overflow, divide-by-zero or invalid-value warnings, in forward or in backward, where their
    values and gradients are PyTorch's: inf, -inf, NaN. Values and gradients as PyTorch's, up to
    results below the smallest normal float (PyTorch's float32 exp flushes them to 0)."""
    function, torch_function = ELEMENTARY_AT_EXTREMES[name]
    x = _extremes(dtype)
    leaf = Tensor(x, requires_grad=True)
    upstream = np.ones(x.shape, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = function(leaf)
        (grad,) = minigrad.grad(out, [leaf], upstream)
    theirs = torch.tensor(x, requires_grad=True)
    expected = torch_function(torch, theirs)
    (expected_grad,) = torch.autograd.grad(expected, theirs, torch.tensor(upstream))
    tolerance = dict(rtol=1e-6 if dtype == np.float32 else 1e-13, atol=np.finfo(dtype).tiny)
    assert out.dtype == grad.dtype == dtype
    np.testing.assert_allclose(out.data, expected.detach().numpy(), **tolerance,
                               err_msg=f"{name} of {x}")
    same = ~GRADIENT_DIFFERS_AT.get(name, lambda x: np.zeros(x.shape, bool))(x)
    np.testing.assert_allclose(grad[same], expected_grad.numpy()[same], **tolerance,
                               err_msg=f"gradient of {name} at {x[same]}")


@pytest.mark.parametrize("fused", [True, False], ids=["kernels", "composed"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp", "softmin"])
def test_softmax_family_with_infinities_matches_torch_without_warnings(name, dtype, fused,
                                                                        torch):
    """Regression: rows holding +inf (NaN, as in PyTorch), a row of -inf only (log_softmax:
    NaN; logsumexp: -inf) and -inf beside numbers warned about inf - inf, log(0) and 0 * inf.
    Values and gradients are PyTorch's, except softmax's (softmin's) of a row of -inf (+inf)
    only: zeros, a deliberate difference (docs/api.md)."""
    inf, nan = np.inf, np.nan
    x = np.array([[1.0, 2.0, 3.0], [-inf, -inf, -inf], [inf, 1.0, 2.0], [inf, inf, 1.0],
                  [-inf, 1.0, 2.0], [inf, -inf, 0.0], [nan, 1.0, 2.0], [-inf, -inf, 5.0],
                  [inf, inf, inf], [800.0, -800.0, 0.0]], dtype=dtype)
    call = {"softmax": lambda lib, x: lib.softmax(x, -1),
            "log_softmax": lambda lib, x: lib.log_softmax(x, -1),
            "logsumexp": lambda lib, x: lib.logsumexp(x, -1),
            "softmin": lambda lib, x: lib.softmin(x, -1)}[name]
    leaf = Tensor(x, requires_grad=True)
    with warnings.catch_warnings(), minigrad.fused(fused):
        warnings.simplefilter("error")
        out = call(F if name != "logsumexp" else minigrad, leaf)
        upstream = rng.standard_normal(out.shape).astype(dtype)
        (grad,) = minigrad.grad(out, [leaf], upstream)
    theirs = torch.tensor(x, requires_grad=True)
    expected = call(torch.nn.functional if name != "logsumexp" else torch, theirs)
    (expected_grad,) = torch.autograd.grad(expected, theirs, torch.tensor(upstream))
    expected, expected_grad = expected.detach().numpy(), expected_grad.numpy()
    all_masked = {"softmax": 1, "softmin": 8}.get(name)  # the row of softmax's difference
    if all_masked is not None:
        np.testing.assert_array_equal(out.data[all_masked], 0.0)
        np.testing.assert_array_equal(grad[all_masked], 0.0)
        expected[all_masked] = expected_grad[all_masked] = 0.0
    rtol = 1e-5 if dtype == np.float32 else 1e-13
    # log_softmax's gradient G - softmax * sum(G) cancels: float32 entries near 0 are only
    # as accurate as G's scale, not relative to themselves
    atol = 1e-6 if dtype == np.float32 else 1e-30
    np.testing.assert_allclose(out.data, expected, rtol=rtol, atol=1e-30)
    np.testing.assert_allclose(grad, expected_grad, rtol=rtol, atol=atol)

def test_xlog1py_where_x_is_zero_and_log1p_is_undefined():
    """0 where x is 0 and other <= -1 or other is inf, with gradient 0 for both (as xlogy's)."""
    x = Tensor(np.zeros(3), requires_grad=True)
    y = Tensor(np.array([-1.0, -3.0, np.inf]), requires_grad=True)
    out = special.xlog1py(x, y)
    np.testing.assert_array_equal(out.data, np.zeros(3))
    grads = minigrad.grad(out, [x, y], np.ones(3))
    np.testing.assert_array_equal(grads[0], np.zeros(3))
    np.testing.assert_array_equal(grads[1], np.zeros(3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_abs_of_negative_zero_is_positive_zero(dtype):
    # as PyTorch (and IEEE fabs): the sign bit is cleared, so 1 / |x| is +inf
    x = Tensor(np.array([-0.0, 0.0, -2.0], dtype=dtype), requires_grad=True)
    out = x.abs()
    assert not np.signbit(out.data).any() and out.dtype == dtype
    out.backward(np.ones(3, dtype=dtype))
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, -1.0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sign_of_nan_is_0_and_so_is_abss_gradient_there_as_torch(torch, dtype):
    """PyTorch's sign is (x > 0) - (x < 0): 0 for NaN (numpy's is NaN); abs's gradient is
    sign(x), so 0 at NaN too."""
    values = np.array([np.nan, -np.inf, -2.0, -0.0, 0.0, 3.0, np.inf], dtype=dtype)
    ours = Tensor(values, requires_grad=True)
    theirs = torch.tensor(values, requires_grad=True)
    np.testing.assert_array_equal(ours.sign().data, theirs.sign().detach().numpy())
    ours.abs().sum().backward()
    theirs.abs().sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_angle_is_torchs_with_gradient_0(torch, dtype):
    values = np.array([np.nan, -np.inf, -2.0, -0.0, 0.0, 3.0, np.inf])
    values = values.astype(dtype) if dtype in (np.float32, np.float64) else \
        np.array([-2, 0, 3]).astype(dtype)
    expected = torch.angle(torch.from_numpy(values))
    out = minigrad.angle(minigrad.tensor(values))
    assert str(expected.dtype) == f"torch.{out.dtype}"
    np.testing.assert_array_equal(out.data, expected.numpy())
    if dtype in (np.float32, np.float64):
        x = Tensor(values, requires_grad=True)
        x.angle().sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros_like(values))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_copysign_takes_a_nan_others_sign_bit_value_and_gradient_as_torch(torch, dtype):
    """A NaN other gives self its sign bit (NaN or -NaN, a tensor or a number): the value is
    +-|self| and self's gradient +-G, 0 at a zero self, other's 0, as PyTorch's. Where self is
    NaN or infinite the gradient stays +-G (PyTorch's is NaN: docs/api.md)."""
    values = np.array([2.0, -3.0, 0.0, -0.0, 2.0, -3.0, 0.0, -0.0], dtype=dtype)
    others = np.array([np.nan] * 4 + [-np.nan] * 4, dtype=dtype)
    upstream = np.arange(1, 9, dtype=dtype)
    for other in (others, np.nan, -np.nan):
        ours, theirs = Tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
        our_other = Tensor(other, requires_grad=True) if isinstance(other, np.ndarray) else other
        their_other = (torch.tensor(other, requires_grad=True) if isinstance(other, np.ndarray)
                       else other)
        out, expected = ours.copysign(our_other), theirs.copysign(their_other)
        assert out.dtype == dtype
        np.testing.assert_array_equal(np.signbit(out.data), np.signbit(expected.detach().numpy()))
        np.testing.assert_array_equal(out.data, expected.detach().numpy())
        out.backward(Tensor(upstream))
        expected.backward(torch.tensor(upstream))
        np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
        if isinstance(other, np.ndarray):
            np.testing.assert_array_equal(our_other.grad.numpy(), their_other.grad.numpy())
    ours = Tensor(np.array([np.nan, np.inf, -np.inf], dtype=dtype), requires_grad=True)
    ours.copysign(Tensor(np.array([-1.0, -1.0, np.nan], dtype=dtype))).backward(
        Tensor(np.ones(3, dtype=dtype)))
    np.testing.assert_array_equal(ours.grad.numpy(), [-1.0, -1.0, -1.0])


def test_step_functions_pass_back_zeros():
    """floor, ceil, trunc, round, sign and // are in the graph with gradient 0 (as PyTorch's),
    so backward through them works."""
    x = Tensor(np.array([-1.5, 0.2, 2.7]), requires_grad=True)
    for out in (x.floor(), x.ceil(), x.trunc(), x.round(), x.sign(), x // 2.0):
        assert out.requires_grad
        out.sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0])


def test_division_with_rounding_passes_back_zeros_also_at_zero_and_inf():
    # as PyTorch's: the quotient is a step function of both operands wherever it is defined
    a = Tensor(np.array([1.0, 0.0, np.inf, 3.0, -2.0]), requires_grad=True)
    b = Tensor(np.array([0.0, 0.0, 2.0, np.inf, 0.5]), requires_grad=True)
    for mode in ("trunc", "floor"):
        a.grad = b.grad = None
        with np.errstate(divide="ignore", invalid="ignore"):  # the zeros are the point
            a.div(b, rounding_mode=mode).sum().backward()
        np.testing.assert_array_equal(a.grad, np.zeros(5))
        np.testing.assert_array_equal(b.grad, np.zeros(5))


def test_rounding_an_integer_tensor_copies_it():
    x = Tensor(np.array([3, -2]))
    for out in (x.floor(), x.ceil(), x.trunc(), x.round()):
        assert out.dtype == np.int64
        np.testing.assert_array_equal(out.data, [3, -2])
        assert not np.shares_memory(out.data, x.data)
    assert x.sign().dtype == np.int64 and x.sign().tolist() == [1, -1]


def test_maximum_and_minimum_propagate_nan_and_handle_infinite_ties():
    a = Tensor(np.array([np.nan, 1.0, np.inf, -np.inf]), requires_grad=True)
    b = Tensor(np.array([1.0, np.nan, np.inf, -np.inf]), requires_grad=True)
    out = a.maximum(b)
    np.testing.assert_array_equal(out.data, [np.nan, np.nan, np.inf, -np.inf])
    np.testing.assert_array_equal(a.minimum(b).data, [np.nan, np.nan, np.inf, -np.inf])
    out.backward(np.array([1.0, 2.0, 3.0, 4.0]))
    # NaN's gradient goes to the NaN; a tie of infinities gives it all to b
    np.testing.assert_array_equal(a.grad, [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(b.grad, [0.0, 2.0, 3.0, 4.0])


def test_maximum_and_minimum_of_integers_are_exact_at_the_extremes(torch):
    """Regression: minimum was -maximum(-a, -b), and -(-2**31) overflows int32, so
    minimum(int32 min, int32 max) gave int32 max; both also came out as float64."""
    info = np.iinfo(np.int32)
    a = np.array([info.min, -1234, 0, 1234, info.max], dtype=np.int32)
    for b in (np.int32(info.min), np.int32(info.max), np.int32(7)):
        for name, reference in (("maximum", np.maximum), ("minimum", np.minimum)):
            out = getattr(Tensor(a), name)(Tensor(b))
            assert out.dtype == np.int32
            np.testing.assert_array_equal(out.data, reference(a, b))
            expected = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
            np.testing.assert_array_equal(out.data, expected.numpy())
    flags = Tensor(np.array([True, False, False]))
    assert flags.maximum(Tensor(np.array([False, True, False]))).tolist() == [True, True, False]
    assert flags.minimum(Tensor(np.array([False, True, False]))).tolist() == [False, False, False]


# (name, op, numpy reference, a, b, dtype): the dtypes hand-written from PyTorch's promotion
# rules. Tensors with dims decide, then 0-d tensors, then Python numbers, which count only when
# they bring a higher category (bool < integer < float); an integer meeting a float gives that
# float; / is always float. The reference computes in the expected dtype.
I32 = np.array([3, -4, 5], dtype=np.int32)
F32 = np.array([1.5, -2.0, 0.5], dtype=np.float32)
PROMOTION = [
    ("int / int", lambda a, b: a / b, np.true_divide, I32, np.array([2, 3, -2], np.int32),
     np.float32),
    ("int / number", lambda a, b: a / b, np.true_divide, I32, 2, np.float32),
    ("int * float number", lambda a, b: a * b, np.multiply, I32, 0.5, np.float32),
    ("int + float tensor", lambda a, b: a + b, np.add, I32, F32, np.float32),
    ("int ** int number", lambda a, b: a ** b, np.power, I32, 2, np.int32),
    ("float number ** int", lambda a, b: b ** a, lambda a, b: np.power(b, a), I32, 0.7,
     np.float32),
    ("int % float tensor", lambda a, b: a % b, np.mod, I32, F32, np.float32),
    ("int // int number", lambda a, b: a // b, np.floor_divide, I32, 2, np.int32),
    ("bool + int number", lambda a, b: a + b, np.add, np.array([True, False]), 1, np.int64),
    ("float32 + float64 0-d", lambda a, b: a + b, np.add, F32, np.array(2.0), np.float32),
    ("int32 + float64 0-d", lambda a, b: a + b, np.add, I32, np.array(2.5), np.float64),
    ("int32 + int64 0-d", lambda a, b: a + b, np.add, I32, np.array(2, np.int64), np.int32),
    ("uint8 + int8", lambda a, b: a + b, np.add, np.array([200], np.uint8),
     np.array([-3], np.int8), np.int16),
    ("maximum int, float", lambda a, b: a.maximum(b), np.maximum, I32, F32, np.float32),
    ("clamp int to a float", lambda a, b: a.clamp(b), np.maximum, I32, 0.5, np.float32),
    ("exp of int", lambda a, b: a.exp(), lambda a, b: np.exp(a), I32, None, np.float32),
    ("sqrt of int", lambda a, b: a.abs().sqrt(), lambda a, b: np.sqrt(np.abs(a)), I32, None,
     np.float32),
]
IDS = [case[0] for case in PROMOTION]


def _in(x, dtype):
    """An operand as given to minigrad (arrays as Tensors), or to the reference (in dtype)."""
    if dtype is None:
        return Tensor(x) if isinstance(x, np.ndarray) else x
    return np.asarray(x, dtype=dtype) if x is not None else None


@pytest.mark.parametrize("name,fn,reference,a,b,dtype", PROMOTION, ids=IDS)
def test_mixed_dtypes_promote_as_in_pytorch(name, fn, reference, a, b, dtype):
    """Regression: numpy's promotion was used, so int32 / int32 and int32 * 0.5 gave float64,
    int32 ** 2 gave int64."""
    out = fn(_in(a, None), _in(b, None))
    assert out.dtype == dtype
    np.testing.assert_allclose(out.data, reference(_in(a, dtype), _in(b, dtype)), rtol=1e-6)


@pytest.mark.parametrize("name,fn,reference,a,b,dtype", PROMOTION, ids=IDS)
def test_mixed_dtypes_match_torch(name, fn, reference, a, b, dtype, torch):
    as_torch = (lambda x: torch.from_numpy(x) if isinstance(x, np.ndarray) else x)
    out = fn(_in(a, None), _in(b, None))
    expected = fn(as_torch(a), as_torch(b))
    assert str(expected.dtype) == f"torch.{np.dtype(dtype)}"
    np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)


NUMBER_FIRST = ["add", "sub", "mul", "div", "true_divide", "pow", "floor_divide", "remainder",
                "fmod", "bitwise_and", "bitwise_or", "bitwise_xor", "xlogy"]
TENSOR_DTYPES = [np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("number", [3, 1.5, True], ids=["int", "float", "bool"])
@pytest.mark.parametrize("dtype", TENSOR_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", NUMBER_FIRST)
def test_a_number_before_a_tensor_takes_the_dtype_torch_gives_it(name, dtype, number, torch):
    """Regression: minigrad.add(3, int8 tensor) gave float32 (the number became Tensor(3))
    where PyTorch gives int8, as for 3 + tensor."""
    values = np.array([1, 2, 3]).astype(dtype)
    tensor = Tensor(values) if dtype != np.float16 else minigrad.tensor(values)
    try:
        expected = getattr(torch, name)(number, torch.from_numpy(values))
    except TypeError:  # torch's argument parsing takes no number first here; minigrad does
        return
    except (RuntimeError, NotImplementedError):  # a combination it refuses (True - tensor, ...)
        # regression: a bool before an integer tensor became an integer, so True - x ran
        with pytest.raises((RuntimeError, NotImplementedError)):
            getattr(minigrad, name)(number, tensor)
        return
    out = getattr(minigrad, name)(number, tensor)
    assert str(expected.dtype) == f"torch.{out.dtype}"
    np.testing.assert_allclose(out.data.astype(np.float64), expected.double().numpy(),
                               rtol=1e-3)


@pytest.mark.parametrize("other", [np.int8, np.bool_, np.float16], ids=["int8", "bool", "f16"])
@pytest.mark.parametrize("name", ["fmod", "copysign", "hypot", "nextafter", "logaddexp",
                                  "ldexp"])
def test_float16_tensors_stay_float16_as_in_torch(name, other, torch):
    """Regression: these composed ops wrapped their numpy intermediates with Tensor(), which
    makes float16 float32, so float16 inputs gave float32 (ldexp: 2 ** int exponent did)."""
    a = np.array([1.5, -2.5, 3.0], np.float16)
    b = np.array([1, 0, 2]).astype(other)
    try:
        expected = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b))
    except (RuntimeError, NotImplementedError):  # ldexp of a bool exponent
        return
    out = getattr(minigrad, name)(minigrad.tensor(a), minigrad.tensor(b))
    assert out.dtype == np.float16 and str(expected.dtype) == "torch.float16"
    np.testing.assert_allclose(out.data.astype(np.float64), expected.double().numpy(),
                               rtol=1e-3)


def test_where_promotes_its_two_values_as_in_pytorch(torch):
    cond = np.array([True, False, True])
    assert minigrad.where(cond, 4, 2).dtype == np.int64  # Python ints: int64
    assert minigrad.where(cond, 4.0, 2).dtype == np.float32
    mixed = minigrad.where(cond, Tensor(I32), Tensor(F32))
    assert mixed.dtype == np.float32
    np.testing.assert_array_equal(mixed.data, np.where(cond, I32, F32).astype(np.float32))
    expected = torch.where(torch.tensor(cond), torch.from_numpy(I32), torch.from_numpy(F32))
    np.testing.assert_array_equal(mixed.data, expected.numpy())


def test_where_and_masked_fill_take_bool_conditions_only_as_in_pytorch():
    """Regression: an integer or float condition was silently read as `!= 0`."""
    x = Tensor(np.array([1.0, 2.0]))
    for misuse in (lambda lib: lib.where(lib.tensor([1, 0]), lib.ones(2), lib.zeros(2)),
                   lambda lib: lib.where(lib.tensor([1.0, 0.0]), 1.0, 2.0),
                   lambda lib: lib.ones(2).masked_fill(lib.tensor([1, 0]), 2.0),
                   lambda lib: lib.ones(2).masked_fill(lib.tensor([0.5, 0.0]), 2.0),
                   lambda lib: lib.ones(2, 2).masked_fill(lib.tensor([True, False]),
                                                          lib.tensor([5.0, 6.0]))):
        assert_raises_like_torch(lambda lib, F: misuse(lib))
    with pytest.raises(TypeError, match="where: the mask or condition must be a bool"):
        minigrad.where(np.array([1, 0]), x, 0.0)
    assert minigrad.where([True, False], x, 0.0).tolist() == [1.0, 0.0]
    with pytest.raises(TypeError, match="input and other"):
        minigrad.where(np.array([True]), x)


def test_nonzero_static_truncates_or_pads_as_torch(torch):
    data = np.array([[0, 1], [2, 0], [3, 4]])
    for x, kwargs in [(data, {"size": 2}), (data, {"size": 5, "fill_value": -7}),
                      (np.array(3), {"size": 2}), (np.array([1.0, 0.0]), {"size": 0}),
                      (np.zeros((2, 3)), {"size": 1})]:
        out = minigrad.nonzero_static(Tensor(x), **kwargs)
        expected = torch.nonzero_static(torch.from_numpy(x), **kwargs)
        assert out.shape == tuple(expected.shape) and out.dtype == np.int64
        np.testing.assert_array_equal(out.data, expected.numpy())
    assert Tensor(data).nonzero_static(size=1).tolist() == [[0, 1]]
    assert_raises_like_torch(lambda lib, F: lib.nonzero_static(lib.ones(2), size=-1))


def test_nonzero_and_where_with_the_condition_alone_match_pytorch(torch):
    data = np.array([[0, 2, 0], [3, 0, -1]])
    assert minigrad.nonzero(Tensor(data)).tolist() == [[0, 1], [1, 0], [1, 2]]
    rows, cols = minigrad.where(Tensor(data != 0))
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    cases = [(data, {}), (data, {"as_tuple": True}), (np.array(3.0), {}), (np.array(0.0), {}),
             (np.array(3.0), {"as_tuple": True}), (np.zeros((2, 0)), {}), (np.array([0.5, 0]), {})]
    for array, kwargs in cases:
        out = Tensor(array).nonzero(**kwargs)
        expected = torch.from_numpy(array).nonzero(**kwargs)
        for got, want in zip(out, expected) if kwargs else [(out, expected)]:
            assert got.dtype == np.int64 and got.shape == tuple(want.shape)
            np.testing.assert_array_equal(got.data, want.numpy())
    for got, want in zip(minigrad.where(Tensor(data)), torch.where(torch.from_numpy(data))):
        np.testing.assert_array_equal(got.data, want.numpy())


def test_masked_fill_and_relu_keep_an_integer_dtype_as_in_pytorch(torch):
    ints = np.array([[-2, 3], [0, -7]])
    mask = ints < 0
    for t in (ints, ints.astype(np.int32)):
        filled = Tensor(t).masked_fill(mask, 0.0)
        expected = torch.tensor(t).masked_fill(torch.tensor(mask), 0.0)
        assert filled.dtype == t.dtype and str(expected.dtype) == f"torch.{t.dtype}"
        np.testing.assert_array_equal(filled.data, expected.numpy())
        relu = Tensor(t).relu()
        assert relu.dtype == t.dtype
        np.testing.assert_array_equal(relu.data, torch.relu(torch.tensor(t)).numpy())


def test_clamp_at_nan_matches_pytorch(torch):
    """Regression: a NaN entry passed its gradient on (PyTorch's is 0: NaN is in no range), and a
    NaN bound was ignored (PyTorch's result is NaN there)."""
    data = np.array([1.0, np.nan, -2.0, 0.5, np.nan])
    tensor_bounds = (np.array([0.0, 0.0, np.nan, 0.0, 0.0]),
                     np.array([2.0, 2.0, 2.0, np.nan, 1.0]))
    for bounds in [(0.0, 1.0), (None, 0.0), (float("nan"), None), (None, float("nan")),
                   tensor_bounds]:
        x, expected_x = Tensor(data.copy(), requires_grad=True), torch.tensor(data,
                                                                              requires_grad=True)
        out = x.clamp(*(Tensor(b) if isinstance(b, np.ndarray) else b for b in bounds))
        expected = expected_x.clamp(*(torch.tensor(b) if isinstance(b, np.ndarray) else b
                                      for b in bounds))
        np.testing.assert_array_equal(out.data, expected.detach().numpy())
        out.backward(np.arange(1.0, 6.0))
        expected.backward(torch.arange(1.0, 6.0, dtype=torch.float64))
        np.testing.assert_array_equal(x.grad, expected_x.grad.numpy())


def test_clamp_needs_a_bound_and_clip_is_clamp():
    x = Tensor(np.array([-2.0, 0.0, 2.0]))
    with pytest.raises(ValueError, match="clamp"):
        x.clamp()
    np.testing.assert_array_equal(x.clip(-1, 1).data, [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(minigrad.clip(x, max=0.5).data, [-2.0, 0.0, 0.5])


def test_lerp_at_weight_one_gives_end_exactly():
    start, end = Tensor(np.array([1e16, 0.1])), Tensor(np.array([1.0, 0.7]))
    np.testing.assert_array_equal(start.lerp(end, 1.0).data, end.data)
    np.testing.assert_array_equal(start.lerp(end, 0.0).data, start.data)


def test_div_rounding_modes():
    a, b = Tensor(np.array([7.0, -7.0])), Tensor(np.array([2.0, 2.0]))
    np.testing.assert_array_equal(a.div(b).data, [3.5, -3.5])
    np.testing.assert_array_equal(a.div(b, rounding_mode="trunc").data, [3.0, -3.0])
    np.testing.assert_array_equal(a.div(b, rounding_mode="floor").data, [3.0, -4.0])
    with pytest.raises(ValueError, match="rounding_mode"):
        a.div(b, rounding_mode="nearest")
    np.testing.assert_array_equal((7.0 // b).data, [3.0, 3.0])  # reflected
    np.testing.assert_array_equal((1.0 // Tensor(np.array([0.1]))).data, [1.0 // 0.1])  # 9, not 10


def test_integer_division_with_rounding_stays_integer(torch):
    """Regression: div(rounding_mode="trunc") of integers gave float32; PyTorch keeps the
    integer dtype for "trunc" and "floor" (and gives float for no rounding)."""
    a = np.array([5, 6, 7, 0, -5, -6, -7, 110, -111], dtype=np.int32)
    for divisor in (-10, -3, -1, 1, 2, 3, 55):
        b = np.full(a.shape, divisor, dtype=np.int32)
        truncated = [int(x / y) for x, y in zip(a.tolist(), b.tolist())]  # Python int() truncates
        floored = [x // y for x, y in zip(a.tolist(), b.tolist())]
        for mode, expected in (("trunc", truncated), ("floor", floored)):
            out = Tensor(a).div(Tensor(b), rounding_mode=mode)
            assert out.dtype == np.int32 and out.tolist() == expected
            reference = torch.from_numpy(a).div(torch.from_numpy(b), rounding_mode=mode)
            assert out.tolist() == reference.tolist()
        assert Tensor(a).div(Tensor(b)).dtype == np.float32


def test_integer_remainder_and_floor_divide_follow_python():
    a, b = np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3])
    np.testing.assert_array_equal((Tensor(a) % Tensor(b)).data, [x % y for x, y in zip(a, b)])
    np.testing.assert_array_equal((Tensor(a) // Tensor(b)).data, [x // y for x, y in zip(a, b)])
    assert (Tensor(a) // Tensor(b)).dtype == np.int64


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf, as in C
def test_fmod_is_exact_and_keeps_the_sign_of_the_dividend_as_torch():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: fmod is not checked")
    a = np.array([5.0, -5.0, 5.0, -5.0, 1e-20, -1e-20, -0.0, 7.5, -1e20, 2.0, np.inf])
    b = np.array([3.0, 3.0, -3.0, -3.0, 3.0, -3.0, 2.0, np.inf, 3.0, 1.0, 2.0])
    x, y = Tensor(a.copy(), requires_grad=True), Tensor(b.copy(), requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out, expected = x.fmod(y), torch.fmod(tx, ty)
    np.testing.assert_array_equal(out.data, expected.detach().numpy())  # fmod(inf, 2) NaN
    np.testing.assert_array_equal(np.signbit(out.data[:-1]),
                                  np.signbit(expected.detach().numpy()[:-1]))  # -0.0 too
    out[:-1].sum().backward()
    expected[:-1].sum().backward()
    np.testing.assert_array_equal(x.grad, tx.grad.numpy())
    np.testing.assert_array_equal(y.grad, ty.grad.numpy())
    ints = np.array([7, -7, 7, -7, np.iinfo(np.int64).min]), np.array([3, 3, -3, -3, 3])
    got = minigrad.fmod(Tensor(ints[0]), Tensor(ints[1]))
    assert got.dtype == np.int64
    assert got.tolist() == torch.fmod(*map(torch.from_numpy, ints)).tolist()
    assert minigrad.fmod(Tensor(np.float32([5.5])), 2).dtype == np.float32


def test_integer_tensor_to_negative_integer_tensor_powers_as_torch():
    """A negative power of an integer is 0 unless the base is 1 or -1 (PyTorch truncates
    1 / base**k); with a Python int exponent both libraries refuse."""
    torch = pytest.importorskip("torch", reason="PyTorch not installed: pow is not checked")
    base = np.array([-2, -1, 0, 1, 2, 3, -1, 5])
    exponent = np.array([-1, -1, -2, -3, -2, -1, -4, 2])
    cases = [
        (lambda m: m(base) ** m(exponent)),
        (lambda m: m(base.astype(np.int32)) ** m(exponent.astype(np.int32))),
        (lambda m: m(base) ** m(np.array(-2))),
        (lambda m: 2 ** m(exponent)),
        (lambda m: m(base > 0) ** m(exponent)),
    ]
    for case in cases:
        ours, theirs = case(Tensor), case(torch.from_numpy)
        assert ours.tolist() == theirs.tolist()
        assert ours.dtype == theirs.numpy().dtype
    with pytest.raises(RuntimeError, match="negative integer power"):  # PyTorch's class
        Tensor(base) ** -1


def test_isclose_of_bool_tensors_is_equality_as_in_pytorch():
    flags = Tensor(np.array([True, False, True]))
    out = flags.isclose(Tensor(np.array([True, True, True])), equal_nan=True)
    assert out.dtype == np.bool_ and out.tolist() == [True, False, True]


def test_sign_and_square_of_bool_tensors_have_torchs_dtypes():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: dtypes not checked")
    flags = np.array([True, False, True])
    for op in ("sign", "square"):
        ours, theirs = getattr(Tensor(flags), op)(), getattr(torch.from_numpy(flags), op)()
        assert ours.dtype == theirs.numpy().dtype and ours.tolist() == theirs.tolist(), op


# --------------------------------------------------------------------------------------------
# Activations: stability at extreme inputs, gelu's two forms
# --------------------------------------------------------------------------------------------
EXTREMES = np.array([-1e30, -1000.0, -50.0, -20.0, 0.0, 20.0, 50.0, 1000.0, 1e30])


@pytest.mark.parametrize("name,fn,expected", [
    ("softplus", F.softplus, np.where(EXTREMES > 0, EXTREMES, 0.0)),
    ("logsigmoid", F.logsigmoid, np.where(EXTREMES < 0, EXTREMES, 0.0)),
    ("elu", F.elu, np.where(EXTREMES > 0, EXTREMES, -1.0)),
    ("selu", F.selu, SELU_SCALE * np.where(EXTREMES > 0, EXTREMES, -SELU_ALPHA)),
    ("celu", lambda x: F.celu(x, 0.5), np.where(EXTREMES > 0, EXTREMES, -0.5)),
    ("mish", F.mish, np.where(EXTREMES > 0, EXTREMES, 0.0)),
    ("silu", F.silu, np.where(EXTREMES > 0, EXTREMES, 0.0)),
    ("gelu", F.gelu, np.where(EXTREMES > 0, EXTREMES, 0.0)),
    ("softsign", F.softsign, EXTREMES / (1 + np.abs(EXTREMES))),
])
def test_activations_stay_finite_at_extreme_inputs(name, fn, expected):
    x = Tensor(EXTREMES, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no inf * 0 along the way
        out = fn(x)
        out.sum().backward()
    big = np.abs(EXTREMES) >= 1000  # far out, where the exact value is the asymptote
    np.testing.assert_allclose(out.data[big], expected[big], rtol=1e-15, atol=1e-300)
    assert np.all(np.isfinite(out.data)) and np.all(np.isfinite(x.grad)), (out.data, x.grad)


def test_inverse_hyperbolic_functions_far_out_and_at_their_bounds(torch):
    """asinh and acosh switch to log(2x) from 2**28 on, where x**2 would overflow float32;
    atanh is +-inf at +-1; outside their domains they are NaN, as numpy's and PyTorch's."""
    for dtype in (np.float32, np.float64):
        x = np.array([1e30, 3e38 if dtype == np.float32 else 1e300, 2.0 ** 28, 1e4], dtype=dtype)
        for name, reference in (("asinh", np.arcsinh), ("acosh", np.arccosh)):
            out = getattr(Tensor(x), name)()
            assert out.dtype == dtype
            np.testing.assert_allclose(out.data, reference(x.astype(np.float64)), rtol=1e-6)
        np.testing.assert_allclose(Tensor(-x).asinh().data, -np.arcsinh(x.astype(np.float64)),
                                   rtol=1e-6)
    with np.errstate(invalid="ignore", divide="ignore"):  # the infinities are the point
        np.testing.assert_array_equal(Tensor(np.array([-1.0, 1.0])).atanh().data,
                                      [-np.inf, np.inf])
        outside = np.array([-300.0, -1e30, 1.5, np.nan])
        for name in ("asin", "acos", "atanh"):
            assert np.isnan(getattr(Tensor(outside), name)().data).all()
        assert np.isnan(Tensor(np.array([0.5, -2.0, -1e30])).acosh().data).all()
        # the one-sided derivatives at the bounds are infinite, as in PyTorch (not inf * 0)
        for name, at in (("asin", [-1.0, 1.0]), ("acos", [-1.0, 1.0]), ("acosh", [1.0]),
                         ("atanh", [-1.0, 1.0])):
            x = Tensor(np.array(at), requires_grad=True)
            getattr(x, name)().sum().backward()
            tx = torch.tensor(at, requires_grad=True)
            getattr(torch, name)(tx).sum().backward()
            np.testing.assert_array_equal(x.grad, tx.grad.numpy())


def test_isclose_matches_numpy_and_torch(torch):
    a = np.array([1.0, 1.0, 0.0, np.inf, np.inf, np.nan, 1e-7, 2.0, -np.inf])
    b = np.array([1.0 + 1e-6, 1.1, 1e-9, np.inf, -np.inf, np.nan, 0.0, 2.00001, -np.inf])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.2, "atol": 0.0}, {"atol": 1e-6}):
        out = Tensor(a).isclose(Tensor(b), **kw)
        assert out.dtype == np.bool_ and not out.requires_grad
        np.testing.assert_array_equal(out.data, np.isclose(a, b, **kw))
        expected = torch.isclose(torch.tensor(a), torch.tensor(b), **kw)
        np.testing.assert_array_equal(out.data, expected.numpy())
    assert minigrad.isclose(Tensor(np.array([3, 4])), 3).tolist() == [True, False]


@pytest.mark.parametrize("call", [
    lambda lib: lib.gcd(lib.tensor([-12, 0, 7, -5, 0, 2**40]), lib.tensor([18, 0, -14, 0, 3, 6])),
    lambda lib: lib.lcm(lib.tensor([-12, 0, 7, -5, 0, 2**40]), lib.tensor([18, 0, -14, 0, 3, 6])),
    lambda lib: lib.tensor([4, 9], dtype=lib.uint8).gcd(lib.tensor([6], dtype=lib.uint8)),
    lambda lib: lib.tensor([[4], [10]], dtype=lib.int32).lcm(lib.tensor([6, 15])),  # int64
    lambda lib: lib.heaviside(lib.tensor([-1.0, 0.0, 2.0, math.nan, -0.0, math.inf]),
                              lib.tensor([0.5])),
    lambda lib: lib.tensor([-1.0, 0.0, 3.0], dtype=lib.float64).heaviside(
        lib.tensor([[math.nan], [2.0]], dtype=lib.float64)),
    lambda lib: lib.heaviside(lib.tensor([0, 2, -1]), lib.tensor([7])),
], ids=["gcd", "lcm", "gcd_uint8", "lcm_broadcast_promoted", "heaviside", "heaviside_nan_values",
        "heaviside_int"])
def test_gcd_lcm_and_heaviside_match_torch(torch, call):
    out, expected = call(minigrad), call(torch)
    assert str(expected.dtype) == f"torch.{out.dtype}" and out.shape == tuple(expected.shape)
    np.testing.assert_array_equal(out.data, expected.numpy())


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.gcd(lib.tensor([1.0]), lib.tensor([2.0])),
    lambda lib, F: lib.lcm(lib.tensor([True]), lib.tensor([False])),
    lambda lib, F: lib.heaviside(lib.tensor([1.0]), lib.tensor([0.5], dtype=lib.float64)),
    lambda lib, F: lib.heaviside(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 1.0, 2.0])),
])
def test_gcd_lcm_and_heaviside_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("call", [
    lambda lib: lib.tensor([0.0, -3.5, math.inf, -math.inf, math.nan, 1e-40, 3e38, -0.0]).frexp(),
    lambda lib: lib.frexp(lib.tensor([[0.75], [1024.0]], dtype=lib.float64)),
    lambda lib: lib.ldexp(lib.tensor([1, 2]), lib.tensor([3, -4])),  # integers: float32
    lambda lib: lib.ldexp(lib.tensor([1.0, 2.0]), lib.tensor([3, 130])),  # float32 kept: inf
    lambda lib: lib.tensor([1.0, 2.0]).ldexp(lib.tensor([3.0], dtype=lib.float64)),
    lambda lib: lib.fix(lib.tensor([-2, 3], dtype=lib.int32)),
    lambda lib: lib.rsub(lib.tensor([1, 2], dtype=lib.int32), 3, alpha=2),
    lambda lib: lib.rsub(lib.tensor([1, 2]), 0.5),
    lambda lib: lib.positive(lib.tensor([-1, 2], dtype=lib.int8)),
    lambda lib: lib.tensor([1.0, math.nan, -math.inf]).isreal(),
    lambda lib: lib.isreal(lib.tensor([[3]])),
], ids=["frexp_edges_float32", "frexp_float64", "ldexp_integers", "ldexp_overflow",
        "ldexp_float64_exponent", "fix_int", "rsub_int", "rsub_float", "positive_int8", "isreal",
        "isreal_int"])
def test_frexp_ldexp_fix_rsub_positive_and_isreal_match_torch(torch, call):
    for out, expected in zip(*(pieces if isinstance(pieces, tuple) else (pieces,)
                               for pieces in (call(minigrad), call(torch)))):
        assert str(expected.dtype) == f"torch.{out.dtype}" and out.shape == tuple(expected.shape)
        np.testing.assert_array_equal(out.data, expected.numpy())


def test_positive_is_the_tensor_itself_and_frexps_gradient_is_torchs_at_the_edges(torch):
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    assert minigrad.positive(x) is x and x.positive() is x  # as torch.positive
    # (not near float32's max: there PyTorch's 1 / 2 ** 128 is 1 / inf = 0, minigrad's 2 ** -128)
    data = np.array([0.0, -3.5, np.inf, np.nan, 1e-40, 3e30], dtype=np.float32)
    x, t = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    with warnings.catch_warnings():  # 2 ** 132, the subnormal's gradient, overflows float32
        warnings.simplefilter("ignore", RuntimeWarning)
        x.frexp().mantissa.backward(np.ones(6, dtype=np.float32))
    t.frexp().mantissa.backward(torch.ones(6))
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad, t.grad.numpy())


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.frexp(lib.tensor([1, 2])),
    lambda lib, F: lib.ldexp(lib.tensor([1.0]), 2),
    lambda lib, F: lib.positive(lib.tensor([True])),
    lambda lib, F: lib.rsub(lib.tensor([True]), lib.tensor([False])),
    lambda lib, F: lib.rsub(lib.tensor([1, 2]), 3, alpha=0.5),
])
def test_frexp_ldexp_positive_and_rsub_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


def test_bitwise_functions_and_shifts_on_integer_and_bool_tensors(torch):
    a, b = np.array([1, -8, 1, 32, 1, 6], np.int32), np.array([3, 5, 0, 33, -1, 2], np.int32)
    for name, reference in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                            ("bitwise_xor", np.bitwise_xor),
                            ("bitwise_left_shift", lambda x, y: x << (y % 8)),
                            ("bitwise_right_shift", lambda x, y: x >> (y % 8))):
        shift = name.endswith("shift")
        other = b % 8 if shift else b  # shifts by 0..7
        out = getattr(Tensor(a), name)(Tensor(other))
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out.data, reference(a, b))
        expected = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(other))
        np.testing.assert_array_equal(out.data, expected.numpy())
    assert (Tensor(a) << 2).tolist() == (a * 4).tolist()
    assert (Tensor(a) >> 1).tolist() == (a // 2).tolist()  # arithmetic: keeps the sign
    assert Tensor(a).bitwise_not().tolist() == (-a - 1).tolist()
    flags = Tensor(np.array([True, False]))
    assert minigrad.bitwise_not(flags).tolist() == [False, True]
    assert flags.bitwise_xor(Tensor(np.array([True, True]))).tolist() == [False, True]
    with pytest.raises(TypeError, match="bitwise_and|and"):
        Tensor(np.array([1.5])).bitwise_and(Tensor(np.array([1.5])))
    # a number shifted by a tensor, as PyTorch's 2 << t (there was no reflected shift)
    for shift in (lambda lib: 2 << lib.tensor([0, 3, 5], dtype=lib.int8),
                  lambda lib: -64 >> lib.tensor([1, 2]), lambda lib: True << lib.tensor([2]),
                  lambda lib: lib.tensor([True, False]) << 1):  # a bool and an int: int64
        out, expected = shift(minigrad), shift(torch)
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())
    # PyTorch has no shift of bools (they were shifted as int8) or of floats
    for misuse in (lambda m, F: m.tensor([True, False]) << True,
                   lambda m, F: m.tensor([True]) >> m.tensor([True]),
                   lambda m, F: 2 << m.tensor([1.0])):
        assert_raises_like_torch(misuse)


def test_logsigmoid_keeps_precision_far_out():
    """log(sigmoid(x)) through sigmoid would give log(0) = -inf at -800 and 0 at 40."""
    out = F.logsigmoid(Tensor(np.array([-800.0, 40.0]))).data
    np.testing.assert_allclose(out, [-800.0, -math.exp(-40.0)], rtol=1e-15)


def test_gelu_uses_the_kernel_only_for_the_tanh_approximation():
    x = Tensor(rng.standard_normal((2, 3)), requires_grad=True)
    assert kernels.Gelu in op_types(F.gelu(x, approximate="tanh"))
    exact = F.gelu(x)
    assert kernels.Gelu not in op_types(exact) and ops.Erf in op_types(exact)
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(x, approximate="sigmoid")


def test_gelu_default_is_exact_and_differs_from_tanh():
    x = Tensor(np.array([-2.0, -0.5, 1.0, 3.0]))
    exact = 0.5 * x.data * (1 + _erf(x.data / math.sqrt(2)))
    np.testing.assert_allclose(F.gelu(x).data, exact, rtol=1e-15)
    assert np.max(np.abs(F.gelu(x, approximate="tanh").data - exact)) > 1e-5


def test_hardtanh_rejects_min_above_max():
    with pytest.raises(ValueError, match="hardtanh"):
        F.hardtanh(Tensor(np.zeros(2)), 1.0, -1.0)


@pytest.mark.parametrize("name", ["hardtanh", "relu6"])
def test_hardtanh_refuses_bool_tensors_as_pytorch(name):
    assert_raises_like_torch(lambda lib, F: getattr(F, name)(lib.tensor([True, False])))


# --------------------------------------------------------------------------------------------
# Comparisons: elementwise bool tensors with no grad (regression: == was identity, < raised)
# --------------------------------------------------------------------------------------------
COMPARISONS = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
               ">": np.greater, ">=": np.greater_equal}
REFLECTED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _compare(a, op, b):
    return {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
            "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()


@pytest.mark.parametrize("op", list(COMPARISONS))
def test_comparisons_are_elementwise_bool_tensors_without_grad(op):
    x = np.array([[0.0, 1.0, 2.0], [2.0, -1.0, 0.0]])
    y = np.array([2.0, 1.0, 0.0])
    t = Tensor(x, requires_grad=True)
    expected = COMPARISONS[op](x, y[None, :])  # spelled out: broadcast over the rows
    for other in (Tensor(y), y, y.tolist()):
        out = _compare(t, op, other)
        assert isinstance(out, Tensor) and out.dtype == np.bool_
        assert not out.requires_grad and out.grad_fn is None
        np.testing.assert_array_equal(out.data, expected)
    np.testing.assert_array_equal(_compare(t, op, 0.0).data, COMPARISONS[op](x, 0.0))
    # reflected: a number or a numpy array on the left
    np.testing.assert_array_equal(_compare(1.0, op, t).data, COMPARISONS[op](1.0, x))
    reflected = _compare(y, op, t)
    assert isinstance(reflected, Tensor)
    np.testing.assert_array_equal(reflected.data, COMPARISONS[REFLECTED[op]](x, y))


def test_comparison_methods_and_functions():
    a, b = Tensor(np.array([1.0, 2.0])), Tensor(np.array([2.0, 2.0]))
    for name, op in [("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                     ("ge", ">=")]:
        np.testing.assert_array_equal(getattr(a, name)(b).data, _compare(a, op, b).data)
        np.testing.assert_array_equal(getattr(minigrad, name)(a, b).data,
                                      COMPARISONS[op](a.data, b.data))


def test_masking_by_comparison_works_as_in_pytorch():
    """The trap of the issue: x * (x != 0) was x * True = x."""
    x = Tensor(np.array([0.0, 3.0, -2.0]), requires_grad=True)
    y = x * (x > 0)
    np.testing.assert_array_equal(y.data, [0.0, 3.0, 0.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 1.0, 0.0])


def test_comparing_with_other_types_and_mismatched_shapes():
    t = Tensor(np.array([1.0, 2.0]))
    assert (t == None) is False and (t != None) is True  # noqa: E711  (Python's fallback)
    assert (t == "a") is False
    with pytest.raises(ValueError, match="broadcast"):
        t == Tensor(np.ones(3))  # noqa: B015


def test_float32_compares_with_a_python_number_in_float32_like_pytorch():
    t = Tensor(np.array([0.1], dtype=np.float32))
    assert (t == 0.1).item()  # 0.1 rounded to float32, as PyTorch does with a Python number


def test_clamp_gives_a_nan_bound_no_gradient_as_pytorch(torch):
    """Regression: a bound that requires grad got the gradient where it was NaN (PyTorch's is 0
    there: its comparisons with NaN are False), and where x was NaN min got it."""
    data = np.array([-1.0, np.nan, 1.5, 0.5, np.nan])  # (x > max with min NaN: see docs/api.md)
    low, high = np.array([0.0, 0.0, np.nan, np.nan, 0.0]), np.array([2.0, 2.0, 2.0, 1.0, np.nan])
    ours = [Tensor(a.copy(), requires_grad=True) for a in (data, low, high)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (data, low, high)]
    out, expected = ours[0].clamp(*ours[1:]), theirs[0].clamp(*theirs[1:])
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    out.backward(np.arange(1.0, 6.0))
    expected.backward(torch.arange(1.0, 6.0, dtype=torch.float64))
    for mine, reference in zip(ours, theirs):
        np.testing.assert_array_equal(mine.grad, reference.grad.numpy())


def test_comparisons_and_bitwise_ops_promote_as_in_pytorch(torch):
    """Regression: numpy's promotion was used, so a float32 tensor met a 0-d float64 one in
    float64 (0.1 != 0.1), int8 & a 0-d int64 gave int64, and uint8 & -3 raised OverflowError."""
    cases = [
        (lambda lib, t: t([0.1], lib.float32) == t(0.1, lib.float64)),
        (lambda lib, t: t([1], lib.int8) == t(257, lib.int64)),
        (lambda lib, t: t([7, -7, 0, 3], lib.int8) & t(3, lib.int64)),
        (lambda lib, t: t([7, -7, 0, 3], lib.int16) | t(-2, lib.int32)),
        (lambda lib, t: t([7, 200, 0, 3], lib.uint8) ^ t(5, lib.int8)),
        (lambda lib, t: t([7, 200, 0, 3], lib.uint8) & -3),
        (lambda lib, t: t([1, 3], lib.int32) << t(2, lib.int64)),
        (lambda lib, t: t([True, False], lib.bool) & t([3, 2], lib.int64)),
    ]
    for case in cases:
        out = case(minigrad, lambda data, dtype: minigrad.tensor(data, dtype=dtype))
        expected = case(torch, lambda data, dtype: torch.tensor(data, dtype=dtype))
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())


def test_python_ints_out_of_an_integer_dtypes_range_wrap_as_in_pytorch(torch):
    """Regression: numpy raised OverflowError for uint8 - 3 and int8 * 200. True division
    meets the number as a float: uint8 / -3 is negative."""
    for fn in (lambda x: x - 3, lambda x: 3 - x, lambda x: x * -3, lambda x: x / -3,
               lambda x: -3 / x, lambda x: x // -3, lambda x: x % -3):
        out = fn(minigrad.tensor(np.array([7, 200, 1, 3], np.uint8)))
        expected = fn(torch.tensor(np.array([7, 200, 1, 3], np.uint8)))
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)
    out = minigrad.tensor(np.array([2, -1], np.int8)) * 200
    assert out.dtype == np.int8 and out.tolist() == [-112, 56]  # 400 and -200 modulo 256


def test_true_division_by_a_0d_integer_tensor_keeps_its_value_as_in_pytorch(torch):
    """Regression: the 0-d divisor (or dividend) was cast to the other's integer dtype before
    the division, so uint8 / tensor(-3) divided by 253 and int8 / tensor(300) by 44."""
    for fn in (lambda lib, x: x / lib.tensor(-3), lambda lib, x: lib.tensor(-3) / x,
               lambda lib, x: x / lib.tensor(300),
               lambda lib, x: x.div(lib.tensor(300, dtype=lib.int16)),
               lambda lib, x: x.to(lib.int8) / lib.tensor(1.5, dtype=lib.float64),
               lambda lib, x: x.to(lib.float16) / lib.tensor([3, 4])):
        out = fn(minigrad, minigrad.tensor(np.array([7, 200], np.uint8)))
        expected = fn(torch, torch.tensor(np.array([7, 200], np.uint8)))
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-3)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning",  # xlogy(-3, 0): log 0
                            "ignore:invalid value:RuntimeWarning")  # xlogy(x, -3): NaN
def test_other_float_valued_ops_keep_a_negative_integer_operands_value_as_in_pytorch(torch):
    """As for /: atan2, copysign and xlogy cast uint8 next to tensor(-3) or -3 straight to
    float (regression: through uint8 first, so -3 was 253)."""
    for fn in (lambda lib, x: lib.atan2(lib.tensor(-3), x),
               lambda lib, x: lib.atan2(x, lib.tensor(-3)), lambda lib, x: lib.copysign(x, -3), lambda lib, x: lib.copysign(lib.tensor(-3), x),
               lambda lib, x: lib.xlogy(lib.tensor(-3), x), lambda lib, x: lib.xlogy(x, -3)):
        out = fn(minigrad, minigrad.tensor(np.array([0, 7, 200], np.uint8)))
        expected = fn(torch, torch.tensor(np.array([0, 7, 200], np.uint8)))
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.tensor([True, False]) ** -1,
    lambda m, F: m.tensor([1, 2]).add(m.tensor([1, 2]), alpha=0.5),
    lambda m, F: m.tensor([1, 2]).sub(3, alpha=2.0),
    lambda m, F: m.add(m.tensor([True]), m.tensor([True]), alpha=1.5),
    *[lambda m, F, name=name: getattr(m.tensor([True, False]), name)()
      for name in ("floor", "ceil", "trunc", "round", "relu")],
    lambda m, F: F.relu(m.tensor([True, False])),
    lambda m, F: m.tensor([True, False]) // m.tensor([True, True]),
    lambda m, F: m.tensor([True, False]) % True,
    lambda m, F: m.fmod(m.tensor([True, False]), m.tensor([True, True])),
    lambda m, F: m.tensor([True, False]) ** m.tensor([True, True]),
    # lerp of integers and addcdiv's integer division (regression: both computed in float)
    lambda m, F: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), 0.5),
    lambda m, F: m.addcdiv(m.tensor([1.0, 2.0]), m.tensor([1, 2]), m.tensor([3, 4])),
    lambda m, F: m.tensor([1, 2]).addcdiv(m.tensor([1, 2]), m.tensor([True, True])),
])
def test_integer_misuses_raise_as_in_pytorch(misuse):
    assert_raises_like_torch(misuse)


def test_addcdiv_of_an_integer_and_a_float_tensor_is_float_as_torch(torch):
    for fn in (lambda lib: lib.addcdiv(lib.tensor([1, 2]), lib.tensor([1.0, 2.0]),
                                       lib.tensor([3, 4])),
               lambda lib: lib.tensor([1.0, 2.0]).addcdiv(lib.tensor([3, 4]),
                                                          lib.tensor([2.0, 8.0]), value=2)):
        out, expected = fn(minigrad), fn(torch)
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-7)
    # addcmul of integers with a float value is float (PyTorch truncates value: docs/api.md)
    ints = Tensor(np.array([1, 2]))
    out = minigrad.addcmul(ints, ints, Tensor(np.array([3, 4])), value=0.5)
    assert out.dtype == np.float32 and out.tolist() == [2.5, 6.0]


def test_float_alpha_is_fine_where_the_result_is_float(torch):
    for fn in (lambda lib: lib.tensor([1, 2]).add(1.5, alpha=0.5),
               lambda lib: lib.tensor([1.0, 2.0]).sub(lib.tensor([1, 2]), alpha=0.5),
               lambda lib: lib.tensor([1, 2]).add(lib.tensor([3, 4]), alpha=2),
               # bools stay bool (regression: alpha * other was int64, so True + 2 True was 3)
               lambda lib: lib.tensor([True, False]).add(lib.tensor([True, True]), alpha=2),
               lambda lib: lib.tensor([True, False]).add(lib.tensor([True, False]), alpha=0),
               # alpha times a bool keeps the integer tensor's dtype (regression: int64)
               lambda lib: lib.tensor([1, 2], dtype=lib.int32).add(lib.tensor([True, False]),
                                                                   alpha=2),
               lambda lib: lib.tensor([1, 2], dtype=lib.uint8).add(lib.tensor([True, True]),
                                                                   alpha=-1)):
        out, expected = fn(minigrad), fn(torch)
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())


def test_subtraction_with_bools_raises_as_in_pytorch():
    flags, floats = Tensor(np.array([True, False])), Tensor(np.array([1.0, 2.0]))
    for misuse in (lambda lib: lib.tensor([True, False]) - lib.tensor([1.0, 2.0]),
                   lambda lib: lib.tensor([1.0, 2.0]) - lib.tensor([True, False]),
                   lambda lib: lib.tensor([1, 2]) - True, lambda lib: True - lib.tensor([1.0]),
                   lambda lib: lib.tensor([True]) - 1, lambda lib: lib.tensor([1.0]).sub(
                       lib.tensor(True)),
                   # with an alpha too (regression: alpha * a bool was an integer, subtracted)
                   lambda lib: lib.tensor([1.0]).sub(lib.tensor([True]), alpha=2),
                   lambda lib: lib.sub(lib.tensor([1, 2]), True, alpha=-1)):
        assert_raises_like_torch(lambda lib, F: misuse(lib))
    with pytest.raises(TypeError, match="logical_not"):
        flags - flags
    assert (floats - 1).tolist() == [0.0, 1.0] and (1 - floats).tolist() == [0.0, -1.0]


def test_tensors_hash_by_identity_and_stay_dict_keys():
    a, b = Tensor(np.array([1.0])), Tensor(np.array([1.0]))
    table = {a: "a", b: "b"}
    assert table[a] == "a" and table[b] == "b" and len({a, b, a}) == 2
    assert hash(a) == hash(a) and hash(a) != hash(b)
    assert hash(minigrad.nn.Parameter(np.ones(2))) is not None


def test_bool_of_a_tensor_follows_pytorch(torch):
    assert bool(Tensor(np.array([[2.0]]))) and not bool(Tensor(np.array(0.0)))
    for data, message in [([1.0, 2.0], "more than one value"), ([], "no values")]:
        with pytest.raises(RuntimeError, match=f"Boolean value of Tensor with {message} is "
                                               f"ambiguous"):
            bool(Tensor(np.array(data)))
        with pytest.raises(RuntimeError, match=message):
            bool(torch.tensor(data))
    with pytest.raises(RuntimeError, match="ambiguous"):
        if Tensor(np.array([1.0, 2.0])) == Tensor(np.array([1.0, 2.0])):
            pass


def test_membership_in_lists_and_in_a_tensor_follows_pytorch(torch):
    a, b = Tensor(np.array([1.0, 2.0])), Tensor(np.array([1.0, 2.0]))
    assert a in [a, b]  # identity first, as in any Python list
    with pytest.raises(RuntimeError, match="ambiguous"):
        _ = Tensor(np.array([1.0, 2.0])) in [b]  # then ==, elementwise: ambiguous
    ta = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="ambiguous"):
        _ = torch.tensor([1.0, 2.0]) in [ta]
    # `element in tensor` asks whether any entry equals it
    assert 2.0 in a and 3.0 not in a and Tensor(np.array(1.0)) in a
    with pytest.raises(TypeError, match="__contains__"):
        _ = "a" in a


def test_float_and_int_of_a_one_element_tensor():
    assert float(Tensor(np.array([[2.5]]))) == 2.5 and int(Tensor(np.array(3.7))) == 3
    with pytest.raises(ValueError):
        float(Tensor(np.array([1.0, 2.0])))


# --------------------------------------------------------------------------------------------
# Logic on bool tensors
# --------------------------------------------------------------------------------------------
def test_logical_operators_on_bool_tensors():
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    tp, tq = Tensor(p), Tensor(q)
    np.testing.assert_array_equal((tp & tq).data, [True, False, False, False])
    np.testing.assert_array_equal((tp | tq).data, [True, True, True, False])
    np.testing.assert_array_equal((tp ^ tq).data, [False, True, True, False])
    np.testing.assert_array_equal((~tp).data, [False, False, True, True])
    for out in (tp & q, q & tp, tp | True, False | tp, tp ^ q):  # numpy and Python on either side
        assert isinstance(out, Tensor) and out.dtype == np.bool_
    np.testing.assert_array_equal((q & tp).data, p & q)
    # integers: bitwise, as in PyTorch
    np.testing.assert_array_equal((Tensor(np.array([5, 6])) ^ 3).data, [6, 5])
    np.testing.assert_array_equal((~Tensor(np.array([1, 2]))).data, [-2, -3])


def test_logical_operators_reject_float_tensors():
    x = Tensor(np.array([1.0, 0.0]))
    for op in (lambda: x & x, lambda: x | True, lambda: ~x):
        with pytest.raises(TypeError, match="bool or integer"):
            op()


def test_logical_functions_take_any_dtype():
    a, b = Tensor(np.array([1.0, 0.0, 2.0])), Tensor(np.array([3, 0, 0]))
    np.testing.assert_array_equal(a.logical_and(b).data, [True, False, False])
    np.testing.assert_array_equal(minigrad.logical_or(a, b).data, [True, False, True])
    np.testing.assert_array_equal(minigrad.logical_xor(a, b).data, [False, False, True])
    np.testing.assert_array_equal(minigrad.logical_not(a).data, [False, True, False])
    assert minigrad.logical_not(Tensor(np.array(0.0))).dtype == np.bool_


def test_isnan_isinf_isfinite():
    x = Tensor(np.array([1.0, np.nan, np.inf, -np.inf]), requires_grad=True)
    np.testing.assert_array_equal(x.isnan().data, [False, True, False, False])
    np.testing.assert_array_equal(minigrad.isinf(x).data, [False, False, True, True])
    np.testing.assert_array_equal(minigrad.isfinite(x).data, [True, False, False, False])
    assert not x.isnan().requires_grad and Tensor(np.array(np.nan)).isnan().item() is True


# --------------------------------------------------------------------------------------------
# Indexing: PyTorch's rule when ints meet index arrays (regression: numpy's shapes)
# --------------------------------------------------------------------------------------------
def test_int_next_to_index_array_gives_pytorchs_shape():
    """The issue's example: numpy gives (2, 3)."""
    x = Tensor(np.arange(24.0).reshape(2, 3, 4))
    out = x[0, :, np.array([0, 2])]
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(out.data, np.arange(24.0).reshape(2, 3, 4)[0][:, [0, 2]])


def test_int_next_to_a_tuple_index_uses_the_tuple_once():
    """Regression: a tuple inside the index (a sequence of indices, as a list) was not taken
    for an index array, so next to an int it indexed twice: wrong shape and values."""
    data = np.arange(24.0).reshape(2, 3, 4)
    out = Tensor(data)[1, (2, 1), None, [0, 2]]
    # the int selects first; the two index arrays, split by None, make the first dim
    np.testing.assert_array_equal(out.data, np.array([[data[1, 2, 0]], [data[1, 1, 2]]]))
    np.testing.assert_array_equal(Tensor(data)[0, (2, 0)].data, data[0][[2, 0]])


IDX = np.array([0, 2])
MASK3 = np.array([True, False, True])
INDEXES = {
    "int_slice_array": (0, slice(None), IDX),
    "negative_int_slice_array": (-1, slice(None), IDX),
    "array_slice_int": (IDX[:1], slice(None), 1),
    "int_array_array": (0, IDX, IDX),
    "slice_int_array": (slice(None), 0, IDX),
    "array_int_array": (np.array([1, 0]), 1, IDX),
    "int_ellipsis_array": (0, Ellipsis, IDX),
    "ellipsis_int_array": (Ellipsis, 0, IDX),
    "none_int_slice_array": (None, 0, slice(None), IDX),
    "int_none_array": (1, None, IDX),
    "array_none_int": (IDX[:1], None, 2),
    "int_slice_2d_array": (0, slice(1, None), np.array([[0, 1], [3, 3]])),
    "list_index": (0, slice(None), [3, 1, 1]),
    "tuple_index": (0, slice(None), (3, 1, 1)),
    "int_tuple_none_array": (1, (2, 1), None, IDX),
    "zero_d_tensor_as_int": ("0d", slice(None), IDX),
    "numpy_int": (np.int64(1), slice(None), IDX),
    "mask_and_int": (0, MASK3, IDX),
    "int_slice_mask": (1, slice(None), np.array([True, False, True, True])),
    "mask_2d_then_int": (np.ones((2, 3), dtype=bool), 0),
    "bool_scalar_int_array": (True, 0, slice(None), IDX),
    "int_slice_bool_scalar_array": (0, slice(None), True, IDX),
    "slice_step_int_array": (slice(None, None, 2), 2, IDX),
    "arrays_around_an_empty_ellipsis": (slice(None), IDX, Ellipsis, np.array([1, 3])),
    "int_array_empty_ellipsis_array": (1, IDX, Ellipsis, np.array([1, 3])),
    "mask_none_empty_ellipsis_array": (None, MASK3[:2], slice(None), Ellipsis, IDX),
    "arrays_around_an_ellipsis": (IDX[:1], Ellipsis, np.array([1, 3])),
    "ints_only": (1, 2),
    "arrays_only": (np.array([1, 0, 1]), slice(None), IDX[:1]),
    "single_array": np.array([1, 1, 0]),
    "single_mask": np.array([True, False]),
    "one_element_array": np.array([1]),
    "one_element_array_then_int": (np.array([1]), 0),
    "slice_one_element_array": (slice(None), np.array([2]), slice(None)),
    "tensor_index": "tensor",
}


def _index(name, torch=None):
    """The index of INDEXES[name], with tensors where it says so (minigrad's or torch's)."""
    index = INDEXES[name]
    if isinstance(index, str):  # "tensor"
        return (minigrad.arange(2) if torch is None else torch.arange(2)), 1
    if isinstance(index, tuple) and isinstance(index[0], str):  # "0d"
        zero = Tensor(np.array(0)) if torch is None else torch.tensor(0)
        return (zero,) + index[1:]
    if torch is not None:
        convert = (lambda p: torch.tensor(p) if isinstance(p, np.ndarray) else p)
        return tuple(map(convert, index)) if isinstance(index, tuple) else convert(index)
    return index


@pytest.mark.parametrize("name", list(INDEXES))
def test_indexing_matches_torch_in_values_and_gradients(name, torch):
    data = rng.standard_normal((2, 3, 4))
    x = Tensor(data, requires_grad=True)
    out = x[_index(name)]
    tx = torch.tensor(data, requires_grad=True)
    expected = tx[_index(name, torch)]
    assert out.shape == tuple(expected.shape)
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", [name for name in INDEXES if name != "tensor_index"])
def test_index_arrays_given_as_tensors_index_as_arrays(name, torch):
    """A Tensor in an index is an index array, whatever its size: the one-element integer
    tensors that have __index__ (so that `lst[t]` works) keep their dim, as in PyTorch, and
    do not become the ints numpy would make of them."""
    as_tensor = (lambda p: minigrad.tensor(p) if isinstance(p, np.ndarray) else p)
    index = _index(name)
    index = tuple(map(as_tensor, index)) if isinstance(index, tuple) else as_tensor(index)
    data = rng.standard_normal((2, 3, 4))
    expected = torch.tensor(data)[_index(name, torch)]
    np.testing.assert_array_equal(Tensor(data)[index].data, expected.numpy())
    assert Tensor(data)[index].shape == tuple(expected.shape)
    written, theirs = Tensor(data.copy()), torch.tensor(data.copy())
    with minigrad.no_grad():
        written[index] = Tensor(np.array(7.0))
    theirs[_index(name, torch)] = 7.0
    np.testing.assert_array_equal(written.data, theirs.numpy())


def test_a_one_element_integer_tensor_is_an_index_where_python_wants_one(torch):
    """__index__, as PyTorch's: lists, ranges, slice bounds and the int arguments of ops."""
    one, two = minigrad.tensor(1), minigrad.tensor([[2]])
    assert [10, 20, 30][one] == 20 and [10, 20, 30][two] == 30 and list(range(two)) == [0, 1]
    assert isinstance(one.__index__(), int) and minigrad.tensor(3, dtype=np.uint8).__index__() == 3
    data = np.arange(12.0).reshape(3, 4)
    x, tx = Tensor(data), torch.tensor(data)
    np.testing.assert_array_equal(x.narrow(1, one, two).data,
                                  tx.narrow(1, torch.tensor(1), torch.tensor([[2]])).numpy())
    np.testing.assert_array_equal(x[one:two + 1].data,
                                  tx[torch.tensor(1):torch.tensor(3)].numpy())
    for not_an_index in (Tensor(np.array(1.0)), minigrad.tensor([1, 2]), minigrad.tensor([]),
                         Tensor(np.array(1.0), requires_grad=True)):
        with pytest.raises(TypeError, match="only integer tensors of a single element"):
            [10, 20][not_an_index]
    assert [10, 20][minigrad.tensor(True)] == [10, 20][torch.tensor(True)] == 20


def test_assignment_through_arrays_around_an_empty_ellipsis_matches_torch(torch):
    # numpy would take the arrays for separated and want a value of shape (2, 2) transposed
    data = rng.standard_normal((2, 3, 4))
    value = rng.standard_normal((2, 2))
    ours, theirs = Tensor(data.copy()), torch.tensor(data.copy())
    ours[:, IDX, ..., np.array([1, 3])] = Tensor(value)
    theirs[:, torch.tensor(IDX), ..., torch.tensor([1, 3])] = torch.tensor(value)
    np.testing.assert_array_equal(ours.data, theirs.numpy())


def test_slices_with_negative_steps_take_numpys_meaning():
    """PyTorch refuses a negative step; minigrad keeps numpy's reversed slices (tinygrad has
    them too), with the gradient scattered back to where each entry came from."""
    data = rng.standard_normal((5, 4))
    x = Tensor(data, requires_grad=True)
    out = x[::-2, 3:0:-1]
    np.testing.assert_array_equal(out.data, data[::-2, 3:0:-1])
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected = np.zeros_like(data)
    expected[::-2, 3:0:-1] = upstream
    np.testing.assert_array_equal(x.grad, expected)


def test_indexing_gradient_accumulates_repeated_entries():
    x = Tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    out = x[1, np.array([0, 0, 3])]
    np.testing.assert_array_equal(out.data, [4.0, 4.0, 7.0])
    out.backward(np.array([1.0, 2.0, 3.0]))
    expected = np.zeros((3, 4))
    expected[1, 0], expected[1, 3] = 3.0, 3.0
    np.testing.assert_array_equal(x.grad, expected)


def test_bool_mask_tensor_indexing():
    data = np.arange(6.0).reshape(2, 3)
    x = Tensor(data, requires_grad=True)
    out = x[x > 2]
    np.testing.assert_array_equal(out.data, [3.0, 4.0, 5.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad, (data > 2) * 1.0)


def test_index_errors_name_the_op():
    x = Tensor(np.zeros((2, 3)))
    with pytest.raises(IndexError, match="GetItem"):
        x[5, np.array([0])]
    with pytest.raises(IndexError, match="GetItem"):
        x[Tensor(np.array([0.5]))]  # float indices


def test_a_nested_list_index_is_one_index_array():
    """numpy's reading, which PyTorch's deprecation warning announces (it still reads a tuple):
    docs/api.md lists it."""
    x = Tensor(np.arange(12.0).reshape(3, 4))
    assert x[[[0, 1], [1, 2]]].shape == (2, 2, 4)
    np.testing.assert_array_equal(x[[[0, 1], [1, 2]]].data, x.data[np.array([[0, 1], [1, 2]])])


def test_an_empty_mask_must_match_the_dims_it_indexes_as_in_pytorch(torch):
    """numpy reads an empty bool array as an empty integer index, whatever the dim's size
    (regression: x[empty mask] gave an empty result where PyTorch raises)."""
    for misuse in (lambda m, F: m.ones(2, 3)[m.zeros(0, dtype=m.bool)],
                   lambda m, F: m.ones(2, 3)[:, m.zeros(0, dtype=m.bool)],
                   lambda m, F: m.ones(2, 0, 4)[..., m.zeros(0, dtype=m.bool)],
                   lambda m, F: m.ones(2, 3).__setitem__(m.zeros(0, dtype=m.bool), 1.0)):
        assert_raises_like_torch(misuse)
    # masks of empty dims, which match
    none, four = np.zeros(0, bool), np.zeros(4, bool)
    for shape, index, torch_index in (
            ((0, 3), none, torch.tensor(none)),
            ((2, 0, 4), (Ellipsis, four), (Ellipsis, torch.tensor(four))),
            ((2, 0), (slice(None), none), (slice(None), torch.tensor(none)))):
        assert minigrad.ones(*shape)[index].shape == tuple(torch.ones(shape)[torch_index].shape)


def test_a_uint8_index_is_refused():
    """PyTorch reads a uint8 index as a mask (deprecated), numpy as integers: minigrad took
    numpy's reading, so x[t] differed silently from PyTorch's; now both ways are refused."""
    x = Tensor(np.zeros((2, 3)))
    for index in (Tensor(np.array([1, 0], np.uint8)), (0, np.array([1, 0, 1], np.uint8))):
        with pytest.raises(IndexError, match="uint8"):
            x[index]
        with pytest.raises(IndexError, match="uint8"):
            x[index] = 1.0


# Misuse that PyTorch rejects too, written once for both libraries: `m` is minigrad or torch,
# `F` its functional module. Most are RuntimeError in PyTorch, a bad type TypeError.
TORCH_ERRORS = [
    lambda m, F: m.ones(2) + m.ones(3),
    # compositions that look at the arrays first: the shapes are checked before numpy's error
    *[lambda m, F, name=name: getattr(m, name)(m.ones(2, 3), m.ones(4))
      for name in ("maximum", "minimum", "logaddexp", "copysign", "isclose")],
    lambda m, F: m.ones(2, 3).clamp(m.zeros(4)),
    lambda m, F: m.ones(2, 3).clamp(max=m.zeros(4)),
    lambda m, F: m.ones(2) < m.ones(3),
    lambda m, F: m.where(m.ones(2, dtype=m.bool), m.ones(3), m.ones(3)),
    lambda m, F: m.ones(4) & m.ones(4),
    lambda m, F: m.ones(4).bitwise_xor(m.ones(4)),
    lambda m, F: m.ones(4).bitwise_not(),
    lambda m, F: ~m.ones(4),
    lambda m, F: m.tensor([-2, 0, 2]) ** -2,
    lambda m, F: -m.tensor([True, False]),
    lambda m, F: m.tensor([True, False]).abs(),
    lambda m, F: m.ones(2).div(m.ones(2), rounding_mode="typo"),
    # an integer divided by zero: PyTorch's RuntimeError ("ZeroDivisionError"), not numpy's 0
    lambda m, F: m.fmod(m.tensor([5, -3]), m.tensor([0, 2])),
    lambda m, F: m.tensor([5, -3]).fmod(0),
    lambda m, F: m.tensor([5, -3]) % m.tensor([0, 2]),
    lambda m, F: m.tensor([5]).remainder(0),
    lambda m, F: 5 % m.tensor([0]),
    lambda m, F: m.tensor([5]) // 0,
    lambda m, F: m.tensor([5]).div(m.tensor([0]), rounding_mode="trunc"),
    lambda m, F: m.ones(2).clamp(),
    lambda m, F: m.ones(2, 3).masked_fill(m.ones(4, dtype=m.bool), 0.0),
    lambda m, F: bool(m.ones(2)),
    lambda m, F: "a" in m.ones(2),
    lambda m, F: m.ones(2).to(""),
    lambda m, F: m.ones(3)[5],
    lambda m, F: m.ones(2, 3).size(5),
    lambda m, F: m.tensor("abc"),
    lambda m, F: m.tensor([1, 2], requires_grad=True),
    lambda m, F: m.zeros(-3, 2),
    lambda m, F: m.zeros(2.5),
    lambda m, F: m.full((-3,), 2.0),
    lambda m, F: m.eye(-3),
    lambda m, F: m.randn(-3),
    lambda m, F: m.rand(2, dtype=m.int64),
    lambda m, F: m.zeros(2, dtype="x"),
    lambda m, F: m.arange(0, 5, 0),
    lambda m, F: m.arange(5, 0, 1),
    lambda m, F: m.arange(0, float("inf")),
    lambda m, F: m.arange(float("nan")),
    lambda m, F: m.linspace(1, 2, -1),
    lambda m, F: m.linspace(1, 2, 2.5),
    lambda m, F: m.linspace(5, 10, 3, dtype=m.bool),
    lambda m, F: m.randint(5),
    lambda m, F: m.randint(5, 5, (2,)),
    lambda m, F: m.randint(-5, 5, (2,), dtype=m.uint8),  # values that would wrap around
    lambda m, F: m.randint(0, 257, (2,), dtype=m.uint8),
    lambda m, F: m.randint(0, 2**31 + 1, (2,), dtype=m.int32),
    lambda m, F: m.randint(3, (2,), dtype=m.bool),
    lambda m, F: m.rand(2, generator=3),
]


@pytest.mark.parametrize("misuse", TORCH_ERRORS)
def test_errors_are_of_pytorchs_class(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# Reductions and softmax on 0-d tensors, stack's dim check (regressions)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("name", ["sum", "mean", "max"])
def test_reductions_accept_dim_0_and_minus_1_on_a_0d_tensor(name, dim):
    def values(result):  # max with a dim may return (values, indices), as PyTorch's
        return result[0] if isinstance(result, tuple) else result

    x = Tensor(np.array(2.5), requires_grad=True)
    out = values(getattr(x, name)(dim))
    assert out.shape == () and out.item() == 2.5
    out.backward()
    assert x.grad == 1.0
    assert values(getattr(x, name)(dim, keepdim=True)).shape == ()
    with pytest.raises((ValueError, IndexError), match="out of range"):
        getattr(x, name)(1)


@pytest.mark.parametrize("fn,value", [(F.softmax, 1.0), (F.log_softmax, 0.0)])
@pytest.mark.parametrize("dim", [0, -1])
def test_softmax_of_a_0d_tensor(fn, value, dim, mode):
    x = Tensor(np.array(3.0), requires_grad=True)
    out = fn(x, dim=dim)
    assert out.shape == () and out.item() == value
    out.backward()
    assert x.grad == 0.0  # a softmax over one entry is constant


def test_softmax_of_a_0d_tensor_matches_torch(torch):
    t = torch.tensor(3.0)
    assert torch.softmax(t, -1).item() == F.softmax(Tensor(np.float32(3.0))).item()
    assert torch.log_softmax(t, 0).item() == F.log_softmax(Tensor(np.float32(3.0)), 0).item()


def test_stack_with_dim_out_of_range_says_so():
    """An IndexError, as PyTorch's and as minigrad's other ops raise for a dim out of range."""
    tensors = [Tensor(np.zeros((2, 3))), Tensor(np.ones((2, 3)))]
    with pytest.raises(IndexError, match="stack: dim 77 is out of range"):
        minigrad.stack(tensors, dim=77)
    with pytest.raises(IndexError, match="out of range"):
        minigrad.stack(tensors, dim=-4)
    assert minigrad.stack(tensors, dim=-3).shape == (2, 2, 3)


# --------------------------------------------------------------------------------------------
# Conversions, copies and size queries
# --------------------------------------------------------------------------------------------
def test_float_to_float_conversions_are_differentiable():
    x = Tensor(np.array([1.5, -2.0], dtype=np.float32), requires_grad=True)
    y = x.double()
    assert y.dtype == np.float64 and y.requires_grad
    (y * y).sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad, [3.0, -4.0])
    assert x.float() is x and x.to(np.float32) is x and x.to(minigrad.float32) is x
    assert x.to(minigrad.float64).dtype == np.float64
    assert x.half().dtype == np.float16 and x.half().requires_grad
    assert x.type_as(Tensor(np.zeros(1))).dtype == np.float64
    assert x.to(Tensor(np.zeros(1, dtype=np.float64))).dtype == np.float64


def test_type_names_the_dtype_as_torch_and_converts_as_to(torch):
    """x.type() is PyTorch's legacy name under minigrad's module; x.type(dtype) converts, from
    a dtype or either library's name, to the dtype PyTorch's would."""
    for numpy_dtype, torch_dtype in [(np.float32, torch.float32), (np.float64, torch.float64),
                                     (np.float16, torch.float16), (np.int64, torch.int64),
                                     (np.int32, torch.int32), (np.int16, torch.int16),
                                     (np.int8, torch.int8), (np.uint8, torch.uint8),
                                     (np.bool_, torch.bool)]:
        name = torch.zeros(1, dtype=torch_dtype).type()
        assert minigrad.zeros(1, dtype=numpy_dtype).type() == name.replace("torch.", "minigrad.")
        x = Tensor(np.array([1.5, -2.0]))
        expected = torch.tensor([1.5, -2.0], dtype=torch.float64).type(name)
        for target in (numpy_dtype, name, name.replace("torch.", "minigrad.")):
            np.testing.assert_array_equal(x.type(target).data, expected.numpy())
            assert x.type(target).dtype == numpy_dtype
    x = Tensor(np.array([1.5, -2.0], dtype=np.float32), requires_grad=True)
    assert x.type(np.float32) is x and x.type("torch.FloatTensor") is x
    x.type(minigrad.float64).sum().backward()  # float to float: differentiable, as `to`
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])
    for wrong in ("FloatTensor", "float64", "torch.NoSuchTensor", "numpy.FloatTensor"):
        with pytest.raises(ValueError, match="invalid type"):
            x.type(wrong)


def test_np_asarray_gives_the_values_as_torch():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: not compared")
    values = np.array([[1.5, -2.0], [0.0, 4.0]], dtype=np.float32)
    x = Tensor(values.copy())
    np.testing.assert_array_equal(np.asarray(x), np.asarray(torch.from_numpy(values)))
    assert np.asarray(x) is x.data and np.asarray(x, dtype=np.float64).dtype == np.float64
    assert np.array(x) is not x.data  # np.array copies, as for an array
    assert_raises_like_torch(lambda lib, F: np.asarray(lib.ones(2, requires_grad=True)))


def test_conversions_to_integers_and_bool_are_not_differentiable():
    x = Tensor(np.array([1.7, -2.2, 0.0]), requires_grad=True)
    for out, dtype, values in [(x.long(), np.int64, [1, -2, 0]), (x.int(), np.int32, [1, -2, 0]),
                               (x.bool(), np.bool_, [True, True, False])]:
        assert out.dtype == dtype and not out.requires_grad
        np.testing.assert_array_equal(out.data, values)
    assert Tensor(np.array([1, 2])).float().dtype == np.float32
    with pytest.raises(AssertionError, match="CPU only"):  # PyTorch built without CUDA
        x.to("cuda")
    assert x.to(None) is x  # as PyTorch's
    with pytest.raises(TypeError, match="to: expected a dtype"):
        x.to("bogus")


def test_clone_is_a_differentiable_copy():
    x = Tensor(np.array([1.0, -0.0, np.inf]), requires_grad=True)
    c = x.clone()
    assert not np.shares_memory(c.data, x.data)
    np.testing.assert_array_equal(c.data, x.data)
    assert np.signbit(c.data[1])
    c.backward(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.grad, [1.0, 2.0, 3.0])
    ints = Tensor(np.array([1, 2]))
    assert ints.clone().dtype == np.int64 and not np.shares_memory(ints.clone().data, ints.data)


def test_size_numel_dim_tolist_view_contiguous():
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    assert x.size() == (2, 3) and x.size(0) == 2 and x.size(-1) == 3
    with pytest.raises(IndexError, match="size: dim 2"):
        x.size(2)
    assert x.numel() == 6 and x.dim() == 2
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and Tensor(np.array(2)).tolist() == 2
    assert x.view(3, 2).shape == (3, 2) and x.view(-1).shape == (6,)
    assert x.contiguous() is x


LAYOUT_VIEWS = [  # a (2, 3, 4) tensor and views of it, in either library
    lambda x: x, lambda x: x[:, 1:], lambda x: x[..., ::2], lambda x: x.transpose(0, 2),
    lambda x: x[:1].expand(3, 3, 4), lambda x: x[1], lambda x: x[:, :, 1],
    lambda x: x.unsqueeze(1), lambda x: x[1:].reshape(-1), lambda x: x[0].t(),
    lambda x: x[0, 0, 0],
]


@pytest.mark.parametrize("view", LAYOUT_VIEWS)
def test_layout_queries_as_torch(torch, view):
    """stride (in entries), storage_offset, is_contiguous and the sizes in bytes; contiguous()
    is the tensor itself, or a copy in row-major order that is in the graph."""
    data = np.arange(24.0).reshape(2, 3, 4)
    ours, theirs = view(Tensor(data.copy())), view(torch.tensor(data))
    assert ours.shape == tuple(theirs.shape)
    assert ours.stride() == theirs.stride() and ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    if ours.ndim:
        assert ours.stride(-1) == theirs.stride(-1) and ours.stride(0) == theirs.stride(0)
    assert (ours.nbytes, ours.itemsize, ours.ndimension()) == \
        (theirs.nbytes, theirs.itemsize, theirs.ndimension())
    copy, their_copy = ours.contiguous(), theirs.contiguous()
    assert (copy is ours) == (their_copy is theirs) and copy.is_contiguous()
    assert copy.stride() == their_copy.stride()
    np.testing.assert_array_equal(copy.data, their_copy.numpy())
    leaf = Tensor(data, requires_grad=True)
    out = view(leaf * 1.0).contiguous()
    (out * Tensor(copy.data)).sum().backward()
    their_leaf = torch.tensor(data, requires_grad=True)
    (view(their_leaf * 1.0).contiguous() * their_copy).sum().backward()
    np.testing.assert_array_equal(leaf.grad, their_leaf.grad.numpy())


def test_storage_offset_counts_from_the_array_that_owns_the_memory():
    """docs/api.md: PyTorch's from_numpy starts a storage at a view's first entry instead."""
    owner = np.arange(6.0)
    assert minigrad.from_numpy(owner[2:]).storage_offset() == 2
    assert minigrad.from_numpy(owner[2:])[1:].storage_offset() == 3


def test_stride_of_a_dim_out_of_range_raises_as_torch():
    assert_raises_like_torch(lambda m, F: m.ones(2, 3).stride(2))
    assert_raises_like_torch(lambda m, F: m.ones(2, 3).stride(-3))


DTYPE_PAIRS = [(np.float32, "float32"), (np.float64, "float64"), (np.float16, "float16"),
               (np.int64, "int64"), (np.int32, "int32"), (np.int16, "int16"), (np.int8, "int8"),
               (np.uint8, "uint8"), (np.bool_, "bool")]


@pytest.mark.parametrize("numpy_dtype, name", DTYPE_PAIRS)
def test_dtype_queries_as_torch(torch, numpy_dtype, name):
    ours = minigrad.zeros(2, 3, dtype=numpy_dtype)
    theirs = torch.zeros(2, 3, dtype=getattr(torch, name))
    assert ours.is_signed() == theirs.is_signed()
    assert ours.is_complex() == theirs.is_complex() is False
    assert (ours.itemsize, ours.nbytes) == (theirs.itemsize, theirs.nbytes)
    realness = ours.isreal()
    assert realness.dtype == np.bool_ and not realness.requires_grad
    np.testing.assert_array_equal(realness.data, theirs.isreal().numpy())


def test_byte_char_short_convert_as_torch(torch):
    values = np.array([1.7, 2.2, 0.0, 127.9])
    for method, dtype in (("byte", np.uint8), ("char", np.int8), ("short", np.int16)):
        x = Tensor(values, requires_grad=True)
        out, expected = getattr(x, method)(), getattr(torch.tensor(values), method)()
        assert out.dtype == dtype and not out.requires_grad  # not differentiable, as long()
        np.testing.assert_array_equal(out.data, expected.numpy())


def test_is_same_size_is_nonzero_and_the_identities_of_real_tensors_as_torch(torch):
    for lib in (minigrad, torch):
        x = lib.ones(2, 3)
        assert x.is_same_size(lib.zeros(2, 3)) and not x.is_same_size(lib.zeros(3, 2))
        assert lib.tensor([[2.0]]).is_nonzero() and not lib.tensor([0.0]).is_nonzero()
        assert lib.tensor([float("nan")]).is_nonzero() and lib.tensor(-1).is_nonzero()
        assert x.conj() is x and x.resolve_conj() is x and x.resolve_neg() is x
    assert_raises_like_torch(lambda m, F: m.ones(2).is_nonzero())
    assert_raises_like_torch(lambda m, F: m.ones(0).is_nonzero())
    values = np.array([1 + 2j, 3.0])
    ours, theirs = Tensor(values), torch.tensor(values)
    np.testing.assert_array_equal(ours.conj().data, theirs.conj().resolve_conj().numpy())
    np.testing.assert_array_equal(ours.isreal().data, theirs.isreal().numpy())
    assert ours.is_complex() and ours.is_signed() == theirs.is_signed()


def test_operator_method_names():
    a, b = Tensor(np.array([1.0, 2.0])), Tensor(np.array([3.0, 5.0]))
    np.testing.assert_array_equal(a.add(b, alpha=2).data, [7.0, 12.0])
    np.testing.assert_array_equal(minigrad.sub(a, b, alpha=2).data, [-5.0, -8.0])
    np.testing.assert_array_equal(a.mul(b).data, [3.0, 10.0])
    np.testing.assert_array_equal(minigrad.pow(b, 2).data, [9.0, 25.0])
    np.testing.assert_array_equal(a.neg().data, [-1.0, -2.0])
    np.testing.assert_array_equal(minigrad.remainder(b, 2).data, [1.0, 1.0])


# every top-level function: the method of the same name (or the operator)
TOP_LEVEL = {
    "abs": (), "neg": (), "exp": (), "exp2": (), "expm1": (), "log": (), "log2": (), "log10": (),
    "log1p": (), "sqrt": (), "rsqrt": (), "reciprocal": (), "square": (), "sin": (), "cos": (),
    "tan": (), "tanh": (), "sigmoid": (), "relu": (), "erf": (), "sign": (), "floor": (),
    "ceil": (), "trunc": (), "round": (), "isnan": (), "isinf": (), "isfinite": (),
    "logical_not": (), "maximum": (0.7,), "minimum": (0.7,), "clamp": (0.2, 0.9),
    "lerp": (2.0, 0.25), "floor_divide": (0.3,), "fmod": (0.3,), "div": (0.3,), "mul": (0.3,),
    "clamp_min": (0.5,), "clamp_max": (0.5,), "frac": (), "addcmul": (2.0, 3.0),
    "addcdiv": (2.0, 3.0), "masked_fill": (np.eye(2, 3, dtype=bool), 0.0), "clone": (),
}


@pytest.mark.parametrize("name", list(TOP_LEVEL))
def test_top_level_functions_are_the_methods(name):
    data = rng.uniform(0.1, 2.0, size=(2, 3))
    args = TOP_LEVEL[name]
    np.testing.assert_array_equal(getattr(minigrad, name)(Tensor(data), *args).data,
                                  getattr(Tensor(data), name)(*args).data)


def test_top_level_round_takes_decimals():
    x = Tensor(np.array([1.2345, -0.0049]))
    np.testing.assert_array_equal(minigrad.round(x, decimals=2).data, [1.23, -0.0])


# --------------------------------------------------------------------------------------------
# Creation
# --------------------------------------------------------------------------------------------
def test_dtype_names_are_numpy_dtypes():
    assert minigrad.float32 is np.float32 and minigrad.float is np.float32
    assert minigrad.float64 is np.float64 and minigrad.double is np.float64
    assert minigrad.int64 is np.int64 and minigrad.long is np.int64
    assert minigrad.int32 is np.int32 and minigrad.int is np.int32
    assert minigrad.bool is np.bool_ and minigrad.float16 is np.float16
    assert minigrad.get_default_dtype() is np.float32
    assert Tensor(np.ones(2, np.float32)).dtype == minigrad.float32


def test_tensor_copies_data_with_pytorchs_dtypes(torch):
    for data in ([1, 2], [1.5, 2.0], [True, False], [[1, 2], [3, 4]], 3, 2.5, [],
                 np.array([1.0, 2.0]), np.array([1, 2], dtype=np.int32), np.float64(1.5)):
        ours, theirs = minigrad.tensor(data), torch.tensor(data)
        assert ours.dtype == theirs.numpy().dtype, data
        np.testing.assert_array_equal(ours.data, theirs.numpy())
    array = np.array([1.0, 2.0])
    copy = minigrad.tensor(array, dtype=minigrad.float32, requires_grad=True)
    assert copy.dtype == np.float32 and copy.requires_grad and copy.is_leaf
    assert not np.shares_memory(minigrad.tensor(array).data, array)
    assert minigrad.tensor(Tensor(array)).dtype == np.float64
    with pytest.raises(TypeError, match="tensor"):
        minigrad.tensor(["a", "b"])
    with pytest.raises(TypeError, match="only floating-point"):
        minigrad.tensor([1, 2], requires_grad=True)


# What PyTorch makes in its default dtype, read at the call: each entry makes a tensor with
# `lib`, minigrad or torch (torch.Tensor is minigrad.Tensor's counterpart for Python numbers)
FOLLOW_THE_DEFAULT_DTYPE = {
    "tensor of Python floats": lambda lib: lib.tensor([1.2, 3]),
    "tensor of a Python float": lambda lib: lib.tensor(1.5),
    "Tensor of Python numbers": lambda lib: lib.Tensor([1, 2]),
    "zeros": lambda lib: lib.zeros(2, 3),
    "ones": lambda lib: lib.ones(2),
    "empty": lambda lib: lib.empty(2),
    "full, float fill": lambda lib: lib.full((2,), 1.5),
    "full, int fill": lambda lib: lib.full((2,), 1),
    "eye": lambda lib: lib.eye(2),
    "rand": lambda lib: lib.rand(3),
    "randn": lambda lib: lib.randn(3),
    "normal of numbers": lambda lib: lib.normal(0.0, 1.0, (3,)),
    "arange of floats": lambda lib: lib.arange(0.0, 3),
    "arange of ints": lambda lib: lib.arange(3),
    "linspace": lambda lib: lib.linspace(0, 1, 3),
    "logspace": lambda lib: lib.logspace(0, 1, 3),
    "scalar_tensor": lambda lib: lib.scalar_tensor(1),
    "hann_window": lambda lib: lib.hann_window(4),
    "zeros_like keeps float32": lambda lib: lib.zeros_like(lib.ones(2, dtype=lib.float32)),
    "randn_like keeps float32": lambda lib: lib.randn_like(lib.ones(2, dtype=lib.float32)),
    "int64 * float": lambda lib: lib.tensor([1, 2]) * 1.5,
    "int32 + float": lambda lib: lib.tensor([1, 2], dtype=lib.int32) + 0.5,
    "bool * float": lambda lib: lib.tensor([True, False]) * 1.5,
    "int / int": lambda lib: lib.tensor([1, 2]) / 2,
    "int.exp()": lambda lib: lib.tensor([1, 2]).exp(),
    "deg2rad of ints": lambda lib: lib.deg2rad(lib.tensor([1, 2])),
    "float32 * float keeps float32": lambda lib: lib.ones(2, dtype=lib.float32) * 1.5,
    "float32 * 0-d default": lambda lib: lib.ones(2, dtype=lib.float32) * lib.tensor(1.5),
    "int.float() is float32": lambda lib: lib.tensor([1, 2]).float(),
}


@pytest.mark.parametrize("name", ["float64", "float16"])
def test_what_follows_the_default_dtype_has_torchs_dtype_after_set_default_dtype(torch, name):
    """Before, minigrad had no set_default_dtype; each case is read at the call, not captured
    when minigrad was imported, and switching back gives float32 again."""
    def dtypes():
        return {case: np.dtype(make(minigrad).dtype) for case, make in cases}, \
            {case: make(torch).numpy().dtype for case, make in cases}

    cases = FOLLOW_THE_DEFAULT_DTYPE.items()
    with default_dtype(name, torch):
        assert minigrad.get_default_dtype() is getattr(minigrad, name)
        ours, theirs = dtypes()
        assert ours == theirs
        assert ours["zeros"] == name and minigrad.finfo().dtype == torch.finfo().dtype == name
    ours, theirs = dtypes()
    assert ours == theirs and ours["zeros"] == np.float32 and minigrad.finfo().dtype == "float32"


def test_the_mean_of_integers_and_repr_follow_the_default_dtype(torch):
    """PyTorch refuses the mean of integers (minigrad makes it, docs/api.md), and prints the
    dtype of a float tensor unless it is the default."""
    with default_dtype("float64", torch):
        assert minigrad.tensor([1, 2]).mean().dtype == np.float64
        for dtype in ("float32", "float64"):
            ours = repr(minigrad.tensor([1.5], dtype=getattr(minigrad, dtype)))
            theirs = repr(torch.tensor([1.5], dtype=getattr(torch, dtype)))
            assert ("dtype=" in ours) == ("dtype=" in theirs) == (dtype == "float32")
    assert "dtype=" not in repr(minigrad.tensor([1.5]))


def test_the_default_dtype_is_float32_at_import_and_read_at_each_call():
    """In a new Python, so that no test's setting can hide it: nothing imported after the
    change keeps float32."""
    runs_in_a_fresh_interpreter(
        "import numpy as np\n"
        "import minigrad\n"
        "assert minigrad.get_default_dtype() is np.float32\n"
        "minigrad.set_default_dtype(minigrad.float64)\n"
        "from minigrad import nn, optim\n"
        "import minigrad.functional as F\n"
        "assert nn.Linear(2, 2).weight.dtype == minigrad.zeros(1).dtype == np.float64\n"
        "assert F.softmax(minigrad.tensor([1.0, 2.0]), 0).dtype == np.float64\n")


@pytest.mark.parametrize("d, expected", [
    (minigrad.double, np.float64), (np.float64, np.float64), (np.dtype("float64"), np.float64),
    ("float64", np.float64), (minigrad.half, np.float16), ("float16", np.float16),
    (minigrad.float, np.float32)])
def test_set_default_dtype_takes_the_float_dtypes_by_any_name(d, expected):
    with default_dtype("float16" if expected is np.float32 else "float32"):
        minigrad.set_default_dtype(d)
        assert minigrad.get_default_dtype() is expected
        assert minigrad.zeros(1).dtype == expected
    assert minigrad.get_default_dtype() is np.float32


@pytest.mark.parametrize("name", ["int64", "int32", "uint8", "bool"])
def test_set_default_dtype_refuses_other_dtypes_as_torch(name):
    """PyTorch raises a TypeError, and the default stays as it was."""
    assert_raises_like_torch(lambda lib, F: lib.set_default_dtype(getattr(lib, name)))
    assert minigrad.get_default_dtype() is np.float32


@pytest.mark.parametrize("d", ["bfloat16", None, 3, np.complex64, "f8,f8"])
def test_set_default_dtype_refuses_what_numpy_has_no_float_dtype_for(d):
    """bfloat16, which PyTorch takes, numpy has not got; None would be numpy's float64."""
    with pytest.raises(TypeError, match="only floating-point"):
        minigrad.set_default_dtype(d)
    assert minigrad.get_default_dtype() is np.float32


def test_float16_random_draws_stay_in_their_ranges():
    """Before, rand and randn refused float16, which can now be the default; a float32 draw
    just below 1 rounded to float16 would be 1.0."""
    g = minigrad.Generator().manual_seed(0)
    u = minigrad.rand(200_000, generator=g, dtype=minigrad.float16)
    assert u.dtype == np.float16 and u.data.min() >= 0 and u.data.max() < 1
    assert len(np.unique(u.data)) == 2048  # every k / 2048 drawn
    n = minigrad.randn(20_000, generator=g, dtype=minigrad.float16)
    assert n.dtype == np.float16 and abs(n.data.astype(np.float64).std() - 1) < 0.03


def test_abs_builtin():
    x = Tensor(np.array([-1.5, 2.0]), requires_grad=True)
    np.testing.assert_array_equal(abs(x).data, [1.5, 2.0])


@pytest.mark.parametrize("fn,fill", [(minigrad.zeros, 0.0), (minigrad.ones, 1.0)])
def test_zeros_and_ones(fn, fill):
    for out in (fn(2, 3), fn((2, 3)), fn([2, 3])):
        assert out.shape == (2, 3) and out.dtype == np.float32 and not out.requires_grad
        assert np.all(out.data == fill)
    assert fn(()).shape == () and fn(0, 4).shape == (0, 4)
    assert fn(3, dtype=minigrad.int64).dtype == np.int64
    out = fn(2, dtype=minigrad.float64, requires_grad=True)
    assert out.dtype == np.float64 and out.requires_grad and out.is_leaf
    with pytest.raises(ValueError, match="non-negative integers"):
        fn(2, -1)
    with pytest.raises(TypeError, match="non-negative integers"):
        fn(2.5)
    with pytest.raises(TypeError, match="not a dtype"):
        fn(2, dtype="floaty")


def test_full_empty_eye():
    assert minigrad.full((2,), 3).dtype == np.int64  # the dtype follows the fill value
    assert minigrad.full((2,), True).dtype == np.bool_
    out = minigrad.full((2, 2), 2.5)
    assert out.dtype == np.float32 and np.all(out.data == 2.5)
    assert minigrad.full((2,), 3, dtype=minigrad.float64).dtype == np.float64
    assert minigrad.empty(3, 2).shape == (3, 2) and minigrad.empty(3).dtype == np.float32
    np.testing.assert_array_equal(minigrad.eye(3).data, [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_array_equal(minigrad.eye(2, 3).data, [[1, 0, 0], [0, 1, 0]])
    assert minigrad.eye(2).dtype == np.float32


def test_like_forms_take_shape_and_dtype():
    x = Tensor(np.ones((2, 3), dtype=np.float64))
    for fn in (minigrad.zeros_like, minigrad.ones_like, minigrad.empty_like, minigrad.rand_like,
               minigrad.randn_like):
        out = fn(x)
        assert out.shape == (2, 3) and out.dtype == np.float64 and not out.requires_grad
        assert fn(x, dtype=minigrad.float32).dtype == np.float32
        assert fn(x, requires_grad=True).requires_grad
    out = minigrad.full_like(x, 7)
    assert out.dtype == np.float64 and np.all(out.data == 7)
    assert np.all(minigrad.zeros_like(x).data == 0) and np.all(minigrad.ones_like(x).data == 1)


def test_creation_takes_the_size_as_pytorch_does(torch):
    """f(2, 3), f((2, 3)) and f(size=(2, 3)); regression: size= raised TypeError."""
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        for args, kwargs in [((2, 3), {}), (((2, 3),), {}), ((), {"size": (2, 3)}),
                             ((), {"size": [4]})]:
            out = getattr(minigrad, name)(*args, **kwargs)
            assert out.shape == tuple(getattr(torch, name)(*args, **kwargs).shape)
        with pytest.raises(TypeError, match="not both"):
            getattr(minigrad, name)(2, size=(2,))


def test_arange():
    out = minigrad.arange(5)
    assert out.dtype == np.int64 and out.tolist() == [0, 1, 2, 3, 4]
    assert minigrad.arange(2, 8, 3).tolist() == [2, 5]
    assert minigrad.arange(5, 0, -2).tolist() == [5, 3, 1]
    floats = minigrad.arange(0, 1, 0.25)
    assert floats.dtype == np.float32 and floats.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert minigrad.arange(3.0).dtype == np.float32
    assert minigrad.arange(3, dtype=minigrad.float64).dtype == np.float64
    # 0-d tensors count as their numbers (regression: an int64 one gave float32)
    counted = minigrad.arange(minigrad.tensor(3))
    assert counted.dtype == np.int64 and counted.tolist() == [0, 1, 2]
    assert minigrad.arange(minigrad.tensor(1), minigrad.tensor(2.0), 0.5).tolist() == [1.0, 1.5]
    with pytest.raises(ValueError, match="step must be nonzero"):
        minigrad.arange(0, 3, 0)
    with pytest.raises(ValueError, match="cannot be reached"):
        minigrad.arange(0, 3, -1)


def test_linspace():
    out = minigrad.linspace(0, 1, 5)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert minigrad.linspace(2, 3, 1).tolist() == [2.0]
    assert minigrad.linspace(0, 1, 0).shape == (0,)
    with pytest.raises(ValueError, match="steps"):
        minigrad.linspace(0, 1, -1)
    with pytest.raises(ValueError, match="not bool"):  # PyTorch has no bool linspace either
        minigrad.linspace(0, 1, 3, dtype=minigrad.bool)


def test_creation_matches_torch(torch):
    pairs = [
        (minigrad.arange(10), torch.arange(10)),
        (minigrad.arange(-1, 2.5, 0.3), torch.arange(-1, 2.5, 0.3)),
        (minigrad.arange(1, 2.5, 0.5), torch.arange(1, 2.5, 0.5)),
        (minigrad.arange(True, 4), torch.arange(True, 4)),  # a bool counts as an int
        (minigrad.arange(False, 3, True), torch.arange(False, 3, True)),
        (minigrad.linspace(-1, 1, 7), torch.linspace(-1, 1, 7)),
        (minigrad.linspace(0, 10, 11, dtype=minigrad.float64),
         torch.linspace(0, 10, 11, dtype=torch.float64)),
        (minigrad.eye(3, 2), torch.eye(3, 2)),
        (minigrad.full((2,), 1.5), torch.full((2,), 1.5)),
        (minigrad.full((2,), 3), torch.full((2,), 3)),
        (minigrad.zeros(2, 3), torch.zeros(2, 3)),
    ]
    for ours, theirs in pairs:
        assert ours.shape == tuple(theirs.shape)
        assert ours.dtype == theirs.numpy().dtype
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6, atol=1e-7)


def test_random_functions_are_seedable_through_a_generator():
    g = minigrad.Generator().manual_seed(3)
    assert g.initial_seed() == 3
    first = [minigrad.rand(4, generator=g), minigrad.randn(2, 2, generator=g),
             minigrad.randint(10, (5,), generator=g)]
    g.manual_seed(3)
    again = [minigrad.rand(4, generator=g), minigrad.randn(2, 2, generator=g),
             minigrad.randint(10, (5,), generator=g)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a.data, b.data)
    # a numpy Generator works too
    np.testing.assert_array_equal(minigrad.randn(3, generator=np.random.default_rng(1)).data,
                                  np.random.default_rng(1).standard_normal(3, dtype=np.float32))


def test_manual_seed_seeds_the_default_generator():
    minigrad.manual_seed(5)
    a = minigrad.randn(3)
    minigrad.manual_seed(5)
    np.testing.assert_array_equal(minigrad.randn(3).data, a.data)
    assert minigrad.manual_seed(6) is minigrad.creation.default_generator


def test_random_values_dtypes_and_ranges():
    g = minigrad.Generator().manual_seed(0)
    u = minigrad.rand(20_000, generator=g)
    assert u.dtype == np.float32 and u.data.min() >= 0 and u.data.max() < 1
    assert abs(u.data.mean() - 0.5) < 0.01
    n = minigrad.randn(20_000, generator=g, dtype=minigrad.float64)
    assert n.dtype == np.float64 and abs(n.data.mean()) < 0.03 and abs(n.data.std() - 1) < 0.03
    r = minigrad.randint(3, 7, (1000,), generator=g)
    assert r.dtype == np.int64 and set(r.tolist()) == {3, 4, 5, 6}
    assert minigrad.randint(0, 2, (3,), dtype=minigrad.float32, generator=g).dtype == np.float32
    # the whole range of a small dtype, up to its bounds and no further (PyTorch's check)
    r = minigrad.randint(-128, 128, (5000,), dtype=minigrad.int8, generator=g)
    assert r.dtype == np.int8 and r.data.min() == -128 and r.data.max() == 127
    assert set(minigrad.randint(0, 2, (100,), dtype=minigrad.bool, generator=g).tolist()) == {
        False, True}
    assert minigrad.randn(2, 3, requires_grad=True).requires_grad


def test_random_functions_reject_bad_arguments():
    with pytest.raises(ValueError, match="greater than low"):
        minigrad.randint(5, 5, (2,))
    with pytest.raises(TypeError, match="randint"):
        minigrad.randint(5)
    with pytest.raises(TypeError, match="float32 or float64"):
        minigrad.rand(2, dtype=minigrad.int64)
    with pytest.raises(TypeError, match="generator"):
        minigrad.randn(2, generator=3)
    with pytest.raises(ValueError, match="seed"):
        minigrad.Generator().manual_seed(-1)


RANDOM_DRAWS = {  # lib -> a draw, as minigrad and torch both spell it
    "normal_tensors": lambda lib: lib.normal(lib.zeros(2, 1), lib.ones(3)),
    "normal_tensor_mean": lambda lib: lib.normal(lib.zeros(4, dtype=lib.float64), 2.0),
    "normal_tensor_std": lambda lib: lib.normal(1.0, lib.ones(2, 3)),
    # two tensors: the result has mean's dtype, not the two promoted
    "normal_float32_mean_float64_std": lambda lib: lib.normal(lib.zeros(3),
                                                              lib.ones(3, dtype=lib.float64)),
    "normal_float64_mean_float32_std": lambda lib: lib.normal(lib.zeros(3, dtype=lib.float64),
                                                              lib.ones(3)),
    "normal_numbers": lambda lib: lib.normal(1.0, 2.0, (2, 3)),
    "normal_numbers_float64": lambda lib: lib.normal(1.0, 2.0, (2,), dtype=lib.float64),
    "bernoulli": lambda lib: lib.bernoulli(lib.full((3, 2), 0.5)),
    "bernoulli_p": lambda lib: lib.bernoulli(lib.zeros(4, dtype=lib.float64), 0.5),
    "bernoulli_method": lambda lib: lib.zeros(5).bernoulli(0.3),
    "multinomial": lambda lib: lib.multinomial(lib.tensor([1.0, 0.0, 3.0]), 3),
    "multinomial_rows": lambda lib: lib.ones(2, 5).multinomial(4, replacement=True),
    "poisson": lambda lib: lib.poisson(lib.tensor([[1.0, 0.0], [3.5, 2.0]])),
    "binomial": lambda lib: lib.binomial(lib.tensor([5.0, 10.0], dtype=lib.float64),
                                         lib.tensor([0.5, 0.0], dtype=lib.float64)),
    "randint_like": lambda lib: lib.randint_like(lib.zeros(2, 3), 5),
    "randint_like_low_high": lambda lib: lib.randint_like(lib.zeros(4, dtype=lib.int32), 3, 5),
}


@pytest.mark.parametrize("name", list(RANDOM_DRAWS))
def test_random_draws_have_torchs_shapes_and_dtypes_and_repeat_after_manual_seed(name, torch):
    draw = RANDOM_DRAWS[name]
    expected = draw(torch)
    minigrad.manual_seed(7)
    out = draw(minigrad)
    assert out.shape == tuple(expected.shape) and str(expected.dtype) == f"torch.{out.dtype}"
    minigrad.manual_seed(7)
    np.testing.assert_array_equal(draw(minigrad).data, out.data)


def test_seed_and_initial_seed_name_the_default_generators_seed():
    chosen = minigrad.seed()
    assert isinstance(chosen, int) and minigrad.initial_seed() == chosen
    first = minigrad.randn(3)
    minigrad.manual_seed(chosen)
    np.testing.assert_array_equal(minigrad.randn(3).data, first.data)
    minigrad.manual_seed(4)
    assert minigrad.initial_seed() == 4


def test_random_draws_follow_their_distributions():
    g = minigrad.Generator().manual_seed(1)
    n = 40_000
    samples = minigrad.normal(minigrad.full((n,), 2.0), minigrad.full((n,), 3.0), generator=g)
    assert abs(samples.data.mean() - 2) < 0.05 and abs(samples.data.std() - 3) < 0.05
    samples = minigrad.normal(-1.0, 0.5, (n,), generator=g)
    assert abs(samples.data.mean() + 1) < 0.01 and abs(samples.data.std() - 0.5) < 0.01
    ones = minigrad.bernoulli(minigrad.full((n,), 0.3), generator=g).data
    assert set(np.unique(ones)) == {0.0, 1.0} and abs(ones.mean() - 0.3) < 0.01
    assert minigrad.bernoulli(minigrad.tensor([0.0, 1.0]), generator=g).tolist() == [0.0, 1.0]
    counts = minigrad.poisson(minigrad.full((n,), 4.0), generator=g).data
    assert abs(counts.mean() - 4) < 0.05 and abs(counts.var() - 4) < 0.15
    successes = minigrad.binomial(minigrad.full((n,), 10.0), minigrad.full((n,), 0.25),
                                  generator=g).data
    assert abs(successes.mean() - 2.5) < 0.05 and successes.max() <= 10
    picks = minigrad.randint_like(minigrad.zeros(1000), 2, 4, generator=g)
    assert set(picks.tolist()) == {2.0, 3.0}
    for count, prob in [(-1.0, 0.5), (3.0, 1.5)]:  # PyTorch draws anyway: docs/api.md
        with pytest.raises(ValueError, match="count must be >= 0 and prob in"):
            minigrad.binomial(minigrad.tensor([count]), minigrad.tensor([prob]))


def test_multinomial_draws_in_proportion_to_unnormalised_weights():
    g = minigrad.Generator().manual_seed(2)
    weights = minigrad.tensor([2.0, 0.0, 6.0])  # 1 : 0 : 3, not normalised
    drawn = minigrad.multinomial(weights, 40_000, replacement=True, generator=g)
    assert drawn.dtype == np.int64
    shares = np.bincount(drawn.data, minlength=3) / 40_000
    np.testing.assert_allclose(shares, [0.25, 0.0, 0.75], atol=0.01)
    # without replacement: each index once per row, weight-0 categories last; the first draw
    # in proportion to the weights
    rows = minigrad.multinomial(minigrad.tensor([[2.0, 0.0, 6.0]] * 20_000), 3, generator=g).data
    assert (np.sort(rows, 1) == [0, 1, 2]).all() and (rows[:, 2] == 1).all()
    assert abs((rows[:, 0] == 2).mean() - 0.75) < 0.01


def test_random_draws_pass_torchs_zero_gradient_back(torch):
    """normal, bernoulli and poisson of tensors that require grad join their graph with gradient
    0, as PyTorch's; binomial (whose gradient PyTorch does not implement) stays outside."""
    for draw in [lambda lib, x: lib.normal(x, x * 0 + 1), lambda lib, x: lib.bernoulli(x),
                 lambda lib, x: lib.poisson(x)]:
        x = Tensor(np.array([0.25, 0.5]), requires_grad=True)
        t = torch.tensor([0.25, 0.5], dtype=torch.float64, requires_grad=True)
        draw(minigrad, x).sum().backward()
        draw(torch, t).sum().backward()
        np.testing.assert_array_equal(x.grad, t.grad.numpy())
    x = Tensor(np.array([3.0]), requires_grad=True)
    assert not minigrad.binomial(x, Tensor(np.array([0.5]))).requires_grad


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.bernoulli(lib.tensor([1.5])),
    lambda lib, F: lib.bernoulli(lib.tensor([1, 0])),
    lambda lib, F: lib.bernoulli(lib.zeros(2), 1.5),
    lambda lib, F: lib.multinomial(lib.tensor([-1.0, 1.0]), 1),
    lambda lib, F: lib.multinomial(lib.tensor([math.inf, 1.0]), 1),
    lambda lib, F: lib.multinomial(lib.tensor([0.0, 0.0]), 1),
    lambda lib, F: lib.multinomial(lib.ones(2, 2, 2), 1),
    lambda lib, F: lib.multinomial(lib.tensor([1, 2]), 1),
    lambda lib, F: lib.multinomial(lib.ones(3), 0),
    lambda lib, F: lib.multinomial(lib.ones(3), 4),
    lambda lib, F: lib.poisson(lib.tensor([-1.0])),
    lambda lib, F: lib.poisson(lib.tensor([1, 2])),
    lambda lib, F: lib.normal(lib.zeros(2), lib.tensor([-1.0, 1.0])),
    lambda lib, F: lib.normal(0.0, -1.0, size=(2,)),
    lambda lib, F: lib.normal(lib.zeros(2), lib.ones(3)),
    lambda lib, F: lib.normal(lib.tensor([1, 2]), 1.0),
    lambda lib, F: lib.binomial(lib.tensor([5, 10]), lib.tensor([0.5, 0.5])),
    lambda lib, F: lib.randint_like(lib.zeros(2), 5, 3),
])
def test_random_draws_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("name, kwargs", [
    ("hann_window", {}), ("hamming_window", {}), ("hamming_window", {"alpha": 0.5, "beta": 0.3}),
    ("blackman_window", {}), ("bartlett_window", {}), ("kaiser_window", {}),
    ("kaiser_window", {"beta": 5.0})])
def test_windows_match_torch(name, kwargs, periodic, dtype, torch):
    for length in (0, 1, 2, 5, 8):
        out = getattr(minigrad, name)(length, periodic, **kwargs, dtype=getattr(minigrad, dtype))
        expected = getattr(torch, name)(length, periodic, **kwargs, dtype=getattr(torch, dtype))
        assert out.shape == tuple(expected.shape) and str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6, atol=1e-7)
    assert getattr(minigrad, name)(4).dtype == np.float32  # periodic and float32 by default
    np.testing.assert_allclose(getattr(minigrad, name)(4).data, getattr(torch, name)(4).numpy(),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.hann_window(-1),
    lambda lib, F: lib.hamming_window(3, dtype=lib.int64),
    lambda lib, F: lib.kaiser_window(-2),
])
def test_windows_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def test_promote_types_and_can_cast_match_torch_for_every_pair(torch):
    for a in DTYPES:
        for b in DTYPES:
            ours = minigrad.promote_types(getattr(minigrad, a), getattr(minigrad, b))
            assert f"torch.{ours}" == str(torch.promote_types(getattr(torch, a),
                                                              getattr(torch, b))), (a, b)
            assert minigrad.can_cast(getattr(minigrad, a), getattr(minigrad, b)) == \
                torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


@pytest.mark.parametrize("operands", [
    lambda lib: (lib.tensor([1]), 2.5), lambda lib: (lib.tensor([1], dtype=lib.int32), 2),
    lambda lib: (lib.tensor([1.0]), lib.tensor(1.0, dtype=lib.float64)),
    lambda lib: (lib.tensor(1, dtype=lib.int8), lib.tensor([1], dtype=lib.uint8)),
    lambda lib: (lib.tensor([True]), 3), lambda lib: (2, 2.5), lambda lib: (3, True),
    lambda lib: (lib.tensor(1.0, dtype=lib.float64), 1),
])
def test_result_type_follows_torchs_promotion(operands, torch):
    assert f"torch.{minigrad.result_type(*operands(minigrad))}" == str(
        torch.result_type(*operands(torch)))


def test_scalar_tensor_is_a_0_d_float32_tensor_unless_told(torch):
    for s, kwargs in [(3, {}), (True, {}), (2.5, {}), (3, {"dtype": "int64"}),
                      (1.5, {"dtype": "float64"})]:
        out = minigrad.scalar_tensor(s, **{k: getattr(minigrad, v) for k, v in kwargs.items()})
        expected = torch.scalar_tensor(s, **{k: getattr(torch, v) for k, v in kwargs.items()})
        assert out.shape == () and str(expected.dtype) == f"torch.{out.dtype}"
        assert out.item() == expected.item()
    assert minigrad.scalar_tensor(1.0, requires_grad=True).requires_grad


def test_unravel_index_matches_torch(torch):
    for indices, shape in [([4, 1, -1], (2, 3)), (5, (2, 3)), ([[4]], 6), ([0, 23], (2, 3, 4)),
                           ([], (2, 0))]:
        out = minigrad.unravel_index(minigrad.tensor(indices, dtype=minigrad.int64), shape)
        expected = torch.unravel_index(torch.tensor(indices, dtype=torch.int64), shape)
        assert len(out) == len(expected)
        for got, want in zip(out, expected):
            assert got.shape == tuple(want.shape) and got.dtype == np.int64
            np.testing.assert_array_equal(got.data, want.numpy())


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.unravel_index(lib.tensor([1.0]), (2, 3)),
    lambda lib, F: lib.unravel_index(lib.tensor([1]), (2, -3)),
])
def test_unravel_index_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


def test_unravel_index_refuses_indices_out_of_range():
    """PyTorch wraps them around (6 in shape (2, 3) is (0, 0)); minigrad says what is wrong."""
    for index in (6, -7):
        with pytest.raises(IndexError, match=r"indices must be in \[-6, 6\)"):
            minigrad.unravel_index(minigrad.tensor([index]), (2, 3))


@pytest.mark.parametrize("name", ["exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt",
                                  "rsqrt", "reciprocal", "sin", "cos", "tan", "tanh",
                                  "sigmoid", "erf"])
def test_math_of_an_integer_tensor_is_float32_as_in_pytorch(name):
    """Regression: exp2 of a negative int raised and stayed int64; reciprocal and rsqrt gave
    float64. PyTorch gives its default float dtype, float32."""
    ints = np.array([-2, 0, 1, 3])
    with np.errstate(divide="ignore", invalid="ignore"):
        out = getattr(minigrad.tensor(ints), name)()
        expected = getattr(Tensor(ints.astype(np.float32)), name)()
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.data, expected.data)


def test_detach_as_a_function_shares_the_data_outside_the_graph():
    x = Tensor(np.ones(3), requires_grad=True)
    out = minigrad.detach(x * 2)
    assert not out.requires_grad and out.grad_fn is None and out.tolist() == [2.0, 2.0, 2.0]
    assert np.shares_memory(minigrad.detach(x).data, x.data)


def test_asarray_shares_copies_or_refuses_as_torch(torch):
    data = np.arange(3.0)
    for kwargs in [{}, {"copy": True}, {"dtype": "float32"}, {"dtype": "float64", "copy": False}]:
        ours = minigrad.asarray(data, **{k: getattr(minigrad, v) if k == "dtype" else v
                                         for k, v in kwargs.items()})
        theirs = torch.asarray(data, **{k: getattr(torch, v) if k == "dtype" else v
                                        for k, v in kwargs.items()})
        assert str(theirs.dtype) == f"torch.{ours.dtype}"
        assert np.shares_memory(ours.data, data) == np.shares_memory(theirs.numpy(), data)
    for obj in ([1, 2], 3.5, [1.0, 2.0], True):
        assert str(torch.asarray(obj).dtype) == f"torch.{minigrad.asarray(obj).dtype}"
    x = Tensor(np.ones(2), requires_grad=True)
    assert minigrad.asarray(x) is x
    copied = minigrad.asarray(x, copy=True)
    assert copied is not x and copied.requires_grad and not np.shares_memory(copied.data, x.data)
    assert minigrad.asarray([1.0, 2.0], requires_grad=True).requires_grad
    for misuse in [lambda lib, F: lib.asarray(data, dtype=lib.float32, copy=False),
                   lambda lib, F: lib.asarray([1, 2], copy=False)]:
        assert_raises_like_torch(misuse)


def test_from_numpy_and_as_tensor_share_memory_as_torch(torch):
    for data in (np.arange(3.0), np.arange(4, dtype=np.int32), np.ones((2, 2), dtype=np.float64)):
        array = data.copy()
        ours, theirs = minigrad.from_numpy(array), torch.from_numpy(data)
        assert ours.dtype == data.dtype and str(theirs.dtype) == f"torch.{data.dtype}"
        array.flat[0] = 9  # changing the array changes the tensor
        assert ours.reshape(-1)[0].item() == 9 and ours.shape == data.shape
    array = np.arange(3.0)
    assert minigrad.as_tensor(array).data is array  # no copy
    assert minigrad.as_tensor(array, dtype=np.float32).data is not array
    for data in ([1, 2], [1.5], np.arange(2.0), 3):
        assert minigrad.as_tensor(data).dtype == np.dtype(str(torch.as_tensor(data).dtype)[6:])
    t = Tensor(np.ones(2))
    assert minigrad.as_tensor(t) is t and minigrad.is_tensor(t) and not minigrad.is_tensor([1])
    with pytest.raises(TypeError):
        minigrad.from_numpy([1.0, 2.0])


def test_allclose_and_equal_as_torch(torch):
    a = np.array([1.0, 2.0, np.nan])
    pairs = [(a, a), (a, a + 1e-9), (a, a + 1e-3), (a[:2], a[:2]), (a[:2], a[:2] + 1e-6)]
    for x, y in pairs:
        for equal_nan in (False, True):
            assert minigrad.allclose(Tensor(x), Tensor(y), equal_nan=equal_nan) == \
                torch.allclose(torch.tensor(x), torch.tensor(y), equal_nan=equal_nan)
        assert minigrad.equal(Tensor(x), Tensor(y)) == torch.equal(torch.tensor(x),
                                                                   torch.tensor(y))
    assert not minigrad.equal(Tensor(np.ones(2)), Tensor(np.ones((1, 2))))
    assert not torch.equal(torch.ones(2), torch.ones(1, 2))


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning",  # logit(1), logit(2)
                            "ignore:invalid value:RuntimeWarning")
def test_new_pointwise_functions_take_dtypes_as_torch(torch):
    """Integers give float32 (deg2rad, rad2deg, logit, xlogy) or stay as they are (nan_to_num);
    hypot and logaddexp2 refuse them, as PyTorch has no integer kernel for them."""
    ints = np.array([1, 2, 3])
    for name in ("deg2rad", "rad2deg", "logit", "nan_to_num"):
        out = getattr(minigrad, name)(Tensor(ints))
        expected = getattr(torch, name)(torch.from_numpy(ints))
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)
    out = minigrad.xlogy(Tensor(ints), Tensor(ints))
    expected = torch.xlogy(torch.from_numpy(ints), torch.from_numpy(ints))
    assert out.dtype == np.float32 and str(expected.dtype) == "torch.float32"
    np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)
    assert Tensor(np.float32([np.inf])).nan_to_num().item() == np.finfo(np.float32).max
    for misuse in (lambda m, F: m.hypot(m.tensor([3]), m.tensor([4])),
                   lambda m, F: m.logaddexp2(m.tensor([3]), m.tensor([4]))):
        assert_raises_like_torch(misuse)


def test_nextafter_of_an_infinity_and_of_integers():
    """Values as PyTorch's also where self is infinite (the largest float, or other's NaN);
    the gradient there is 0 (PyTorch's 1: docs/api.md lists it). Two integer tensors are
    refused, as by PyTorch; an integer and a float one promote."""
    torch = pytest.importorskip("torch")
    a, b = np.array([np.inf, -np.inf, np.inf, np.inf]), np.array([0.0, 1.0, np.nan, np.inf])
    x = Tensor(a, requires_grad=True)
    out = minigrad.nextafter(x, Tensor(b))
    expected = torch.nextafter(torch.tensor(a), torch.tensor(b))
    np.testing.assert_array_equal(out.data, expected.numpy())
    out.sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0, 0.0])
    assert_raises_like_torch(lambda m, F: m.nextafter(m.tensor([1]), m.tensor([2])))
    out = minigrad.nextafter(Tensor(np.array([1, 2])), Tensor(np.array([0.0, 3.0])))
    expected = torch.nextafter(torch.tensor([1, 2]), torch.tensor([0.0, 3.0], dtype=torch.float64))
    assert out.dtype == np.float64 and str(expected.dtype) == "torch.float64"
    np.testing.assert_array_equal(out.data, expected.numpy())


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # (-8) ** (1/3): NaN
def test_float_power_computes_in_float64_as_torch(torch):
    """Whatever the dtypes (integers, float32, a Python number), as torch.float_power; the
    gradient keeps the input's dtype."""
    for fn in (lambda lib: lib.float_power(lib.tensor([2, -2]), 2),
               lambda lib: lib.tensor([2.0, 3.0]).float_power(lib.tensor([0.5, 2.0])),
               lambda lib: lib.float_power(lib.tensor([-8.0, 8.0]), 1 / 3)):
        out, expected = fn(minigrad), fn(torch)
        assert out.dtype == np.float64 and str(expected.dtype) == "torch.float64"
        np.testing.assert_array_equal(out.data, expected.numpy())
    x = Tensor(np.array([2.0, 3.0], np.float32), requires_grad=True)
    x.float_power(2).sum().backward()
    assert x.grad.dtype == np.float32 and x.grad.tolist() == [4.0, 6.0]
    # the gradients of both, against PyTorch's (not a CASES entry: float32 becomes float64)
    base, exponent = uniform(3, 4, low=0.5, high=2.0), uniform(4)
    leaves = [Tensor(base, requires_grad=True), Tensor(exponent, requires_grad=True)]
    with minigrad.fused(False):
        assert gradcheck(lambda a, b: a.float_power(b), leaves)
    theirs = [torch.tensor(base, requires_grad=True), torch.tensor(exponent, requires_grad=True)]
    upstream = rng.standard_normal((3, 4))
    leaves[0].float_power(leaves[1]).backward(upstream)
    torch.float_power(*theirs).backward(torch.tensor(upstream))
    for mine, their in zip(leaves, theirs):
        np.testing.assert_allclose(mine.grad, their.grad.numpy(), rtol=1e-12)


def test_hypot_promotes_an_integer_tensor_with_a_float_one_as_torch(torch):
    for a, b in [(np.array([3, 5], np.int32), np.array([4.0, 12.0], np.float32)),
                 (np.array([3.0, 5.0]), np.array([4, 12])), (np.array([True]), np.array([1.0]))]:
        out = minigrad.hypot(Tensor(a), Tensor(b))
        expected = torch.hypot(torch.from_numpy(a), torch.from_numpy(b))
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())


def test_xlogy_where_self_is_0_and_other_0_or_inf():
    """Values as PyTorch's (0); gradients the documented choice: 0 for other at (0, 0), where
    PyTorch's self / other is NaN, and 0 for self at (0, inf), where PyTorch's is log(inf)."""
    x = Tensor(np.array([0.0, 0.0]), requires_grad=True)
    y = Tensor(np.array([0.0, np.inf]), requires_grad=True)
    out = x.xlogy(y)
    np.testing.assert_array_equal(out.data, [0.0, 0.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])
    np.testing.assert_array_equal(y.grad, [0.0, 0.0])


def test_hypot_is_inf_where_either_is_infinite_even_beside_a_nan(torch):
    """C's hypot(inf, NaN) is inf, and so is PyTorch's; the gradient is NaN there in both."""
    a = np.array([np.inf, -np.inf, np.nan, np.nan, 1.0, 3.0])
    b = np.array([np.nan, np.nan, np.inf, 1.0, -np.inf, 4.0])
    x = Tensor(a, requires_grad=True)
    out = x.hypot(Tensor(b))
    out.sum().backward()
    expected = torch.tensor(a, requires_grad=True)
    torch_out = expected.hypot(torch.tensor(b))
    torch_out.sum().backward()
    np.testing.assert_array_equal(out.data, torch_out.detach().numpy())
    np.testing.assert_allclose(x.grad, expected.grad.numpy(), rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sinc_gradient_near_0_is_the_series_one(dtype, torch):
    """Near 0, d/dx sin(pi x) / (pi x) = -pi**2 x / 3 (to a relative a**2 / 10): the quotient's
    gradient, two terms of size 1 / x, cancelled to -inf at 1e-300; the values are PyTorch's."""
    data = np.array([1e-300, 1e-155, 1e-20, 1e-5, 1e-3, 0.0], dtype)
    x = Tensor(data, requires_grad=True)
    out = x.sinc()
    out.sum().backward()
    np.testing.assert_allclose(x.grad, -np.pi ** 2 * data.astype(np.float64) / 3, rtol=1e-5)
    np.testing.assert_allclose(out.data, torch.from_numpy(data).sinc().numpy(), rtol=1e-7)
    assert out.dtype == dtype


@pytest.mark.parametrize("args", [(3, 4), (3, 3, 1), (3, 3, -1), (0, 3), (4, 2, 5), (2, 5, -3)])
def test_tril_and_triu_indices_match_torch(args, torch):
    for name in ("tril_indices", "triu_indices"):
        got, expected = getattr(minigrad, name)(*args), getattr(torch, name)(*args)
        assert got.dtype == np.int64 and got.shape == tuple(expected.shape)
        np.testing.assert_array_equal(got.data, expected.numpy())
    rows, cols = minigrad.tril_indices(3, 4, dtype=np.int32).data
    assert rows.dtype == np.int32 and (rows >= cols).all()  # the triangle, as numpy's tril


def test_tril_and_triu_indices_refuse_negative_sizes():
    assert_raises_like_torch(lambda m, F: m.tril_indices(-1, 3))


def test_shrinking_activations_keep_nan_and_take_dtypes_as_torch(torch):
    nan_row = np.array([np.nan, -1.0, 0.2, 3.0])
    for name, args in [("hardshrink", ()), ("softshrink", (0.5,)), ("tanhshrink", ()),
                       ("threshold", (0.3, -7.0))]:
        got = getattr(F, name)(Tensor(nan_row), *args)
        expected = getattr(torch.nn.functional, name)(torch.tensor(nan_row), *args)
        np.testing.assert_allclose(got.data, expected.numpy(), rtol=1e-12)  # NaN kept
    ints = np.array([1, 2, 0])
    got = F.threshold(Tensor(ints), 1, 0)
    expected = torch.nn.functional.threshold(torch.from_numpy(ints), 1, 0)
    assert got.dtype == np.int64 and str(expected.dtype) == "torch.int64"
    np.testing.assert_array_equal(got.data, expected.numpy())
    for misuse in (lambda m, F: F.softshrink(m.ones(3), -1.0),
                   lambda m, F: F.hardshrink(m.tensor([1, 2])),
                   lambda m, F: F.softshrink(m.tensor([1, 2]))):
        assert_raises_like_torch(misuse)


# PyTorch's second names: (alias, the function it names, arguments after the tensor)
ALIASES = [("absolute", "abs", ()), ("negative", "neg", ()), ("sgn", "sign", ()),
           ("multiply", "mul", (2.5,)), ("subtract", "sub", (0.5,)), ("divide", "div", (4.0,)),
           ("true_divide", "div", (4.0,)), ("greater", "gt", (0.1,)),
           ("greater_equal", "ge", (0.1,)), ("less", "lt", (0.1,)), ("less_equal", "le", (0.1,)),
           ("not_equal", "ne", (0.1,)), ("arcsin", "asin", ()), ("arccos", "acos", ()),
           ("arctan", "atan", ()), ("arctan2", "atan2", (np.array(0.3),)), ("arcsinh", "asinh", ()),
           ("arccosh", "acosh", ()), ("arctanh", "atanh", ())]


def _torch_arguments(torch, args):
    return [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("alias,original,args", ALIASES, ids=[a[0] for a in ALIASES])
def test_aliases_compute_what_they_name_as_torch(alias, original, args, torch):
    data = np.array([-0.75, -0.25, 0.1, 0.5, 0.9]) if alias != "arccosh" else \
        np.array([1.5, 2.0, 3.0])
    for ours in (lambda: getattr(Tensor(data), alias)(*args),
                 lambda: getattr(minigrad, alias)(Tensor(data), *args)):
        got, named = ours(), getattr(Tensor(data), original)(*args)
        expected = getattr(torch, alias)(torch.tensor(data), *_torch_arguments(torch, args))
        assert got.dtype == named.dtype and str(expected.dtype) == f"torch.{got.dtype}"
        np.testing.assert_array_equal(got.data, named.data)
        np.testing.assert_allclose(got.data, expected.numpy(), rtol=1e-12)
    x = Tensor(data, requires_grad=True)
    if getattr(x, alias)(*args).requires_grad:  # comparisons are outside the graph
        getattr(x, alias)(*args).sum().backward()
        tx = torch.tensor(data, requires_grad=True)
        getattr(tx, alias)(*_torch_arguments(torch, args)).sum().backward()
        # force: sgn's gradient is one of PyTorch's ZeroTensors
        np.testing.assert_allclose(x.grad, tx.grad.numpy(force=True), rtol=1e-12)


def test_allclose_and_equal_are_tensor_methods_too(torch):
    x, y = np.array([1.0, np.nan]), np.array([1.0 + 1e-9, np.nan])
    assert Tensor(x).allclose(Tensor(y), equal_nan=True) == torch.tensor(x).allclose(
        torch.tensor(y), equal_nan=True) is True
    assert Tensor(x).equal(Tensor(x)) == torch.tensor(x).equal(torch.tensor(x)) is False  # NaN


def test_sign_bits_and_infinities_are_flags_as_torch(torch):
    data = np.array([-0.0, 0.0, -2.0, np.inf, -np.inf, np.nan])
    for name in ("signbit", "isposinf", "isneginf"):
        got = getattr(minigrad, name)(Tensor(data))
        assert got.dtype == np.bool_ and not got.requires_grad
        np.testing.assert_array_equal(got.data, getattr(torch, name)(torch.tensor(data)).numpy())
    assert minigrad.sinc(Tensor(np.array([0, 1]))).dtype == np.float32


def test_top_level_cosine_similarity_and_pairwise_distance_are_Fs():
    a, b = Tensor(rng.standard_normal((3, 4))), Tensor(rng.standard_normal((3, 4)))
    np.testing.assert_array_equal(minigrad.cosine_similarity(a, b).data,
                                  F.cosine_similarity(a, b).data)
    np.testing.assert_array_equal(minigrad.pairwise_distance(a, b, 1.0).data,
                                  F.pairwise_distance(a, b, 1.0).data)


def test_randperm_is_a_permutation_from_its_generator():
    first = minigrad.randperm(10, generator=minigrad.Generator().manual_seed(3))
    again = minigrad.randperm(10, generator=minigrad.Generator().manual_seed(3))
    assert first.dtype == np.int64 and sorted(first.tolist()) == list(range(10))
    assert first.tolist() == again.tolist()
    assert minigrad.randperm(0).shape == (0,) and minigrad.randperm(3, dtype=np.int32).dtype == \
        np.int32
    assert minigrad.is_floating_point(Tensor([1.0])) and not minigrad.is_floating_point(
        Tensor(np.array([1])))
    assert_raises_like_torch(lambda m, F: m.randperm(-1))


@pytest.mark.parametrize("args, kwargs", [((0, 2, 3), {}), ((-1, 3, 5), {"base": 2.0}),
                                          ((1, 0, 4), {"dtype": np.float64}), ((0, 1, 0), {})])
def test_logspace_matches_torch(args, kwargs, torch):
    got = minigrad.logspace(*args, **kwargs)
    expected = torch.logspace(*args, **{k: torch.float64 if k == "dtype" else v
                                        for k, v in kwargs.items()})
    assert str(expected.dtype) == f"torch.{got.dtype}"
    np.testing.assert_allclose(got.data, expected.numpy(), rtol=1e-6)


def test_logspace_with_an_integer_dtype_truncates_the_float_values():
    """10 ** 0.5, 10 ** 1.75, 10 ** 3, truncated (PyTorch truncates start first: docs/api.md
    lists the difference); with integer ends the two agree."""
    assert minigrad.logspace(0.5, 3, 3, dtype=np.int64).tolist() == [3, 56, 1000]
    assert minigrad.logspace(0, 1, 3, dtype=np.int64).tolist() == [1, 3, 10]


# --------------------------------------------------------------------------------------------
# devices: PyTorch code names one; minigrad computes on the CPU, so only the CPU is taken
# --------------------------------------------------------------------------------------------
MAKERS = {  # a factory call, given PyTorch's device keyword
    "tensor": lambda lib, device: lib.tensor([1.0, 2.0], device=device),
    "zeros": lambda lib, device: lib.zeros(2, 3, device=device),
    "ones": lambda lib, device: lib.ones((2,), device=device),
    "empty": lambda lib, device: lib.empty(2, device=device),
    "full": lambda lib, device: lib.full((2,), 1.5, device=device),
    "eye": lambda lib, device: lib.eye(3, device=device),
    "arange": lambda lib, device: lib.arange(4, device=device),
    "linspace": lambda lib, device: lib.linspace(0, 1, 5, device=device),
    "logspace": lambda lib, device: lib.logspace(0, 1, 5, device=device),
    "rand": lambda lib, device: lib.rand(2, device=device),
    "randn": lambda lib, device: lib.randn(2, device=device),
    "randint": lambda lib, device: lib.randint(0, 5, (3,), device=device),
    "randperm": lambda lib, device: lib.randperm(4, device=device),
    "tril_indices": lambda lib, device: lib.tril_indices(3, 3, device=device),
    "zeros_like": lambda lib, device: lib.zeros_like(lib.ones(2), device=device),
    "full_like": lambda lib, device: lib.full_like(lib.ones(2), 3.0, device=device),
    "randn_like": lambda lib, device: lib.randn_like(lib.ones(2), device=device),
}


@pytest.mark.parametrize("name", MAKERS)
def test_factories_take_the_cpu_device_and_refuse_others_as_cpu_torch(torch, name):
    for device in ("cpu", minigrad.device("cpu"), None):
        made = MAKERS[name](minigrad, device)
        expected = MAKERS[name](torch, None if device is None else "cpu")
        assert made.shape == tuple(expected.shape) and str(made.device) == str(expected.device)
    assert_raises_like_torch(lambda lib, F: MAKERS[name](lib, "cuda"))


def test_to_and_cpu_take_pytorchs_forms_as_torch(torch):
    forms = [lambda x, lib: x.to("cpu"), lambda x, lib: x.to("cpu", lib.float64),
             lambda x, lib: x.to(device="cpu", dtype=lib.float64),
             lambda x, lib: x.to(lib.float64), lambda x, lib: x.to(lib.ones(1, dtype=lib.int64)),
             lambda x, lib: x.to("cpu", copy=True), lambda x, lib: x.to(lib.float32, False, True),
             lambda x, lib: x.to(lib.device("cpu")), lambda x, lib: x.cpu()]
    for form in forms:
        ours, theirs = Tensor(np.ones(3, dtype=np.float32)), torch.ones(3)
        moved, their_moved = form(ours, minigrad), form(theirs, torch)
        assert (moved is ours) == (their_moved is theirs)
        assert str(moved.dtype) == str(their_moved.dtype).removeprefix("torch.")
        assert str(moved.device) == str(their_moved.device) and moved.is_cpu
    assert_raises_like_torch(lambda lib, F: lib.ones(2).to("cuda"))
    assert_raises_like_torch(lambda lib, F: lib.ones(2).cuda())
    assert_raises_like_torch(lambda lib, F: lib.nn.Linear(2, 2).cuda())
    layer = minigrad.nn.Linear(2, 2)
    assert layer.to("cpu") is layer and layer.cpu() is layer
    assert layer.to("cpu", minigrad.float64).weight.dtype == np.float64
    assert layer.to(Tensor(np.ones(1, dtype=np.float32))).weight.dtype == np.float32


def test_devices_read_and_print_as_torchs(torch):
    for args in [("cpu",), ("cuda:1",), ("cpu", 0), ("cuda",)]:
        ours, theirs = minigrad.device(*args), torch.device(*args)
        assert (repr(ours), str(ours), ours.type, ours.index) == (
            repr(theirs), str(theirs), theirs.type, theirs.index)
    assert minigrad.device("cpu") == minigrad.device(minigrad.device("cpu"))
    assert not minigrad.cuda.is_available() and minigrad.cuda.device_count() == 0
    assert_raises_like_torch(lambda lib, F: lib.device("gpu"))


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.ones(2).to(lib.float32, lib.float64),
    lambda lib, F: lib.ones(2).to(lib.ones(1), lib.float64),
    lambda lib, F: lib.ones(2).to("cpu", lib.float64, 3),
    lambda lib, F: lib.nn.Linear(2, 2).to(lib.float32, lib.float64),
    lambda lib, F: lib.nn.Linear(2, 2).to(lib.ones(1, dtype=lib.float64), lib.float32),
])
def test_to_refuses_what_is_not_non_blocking_after_the_dtype_device_or_tensor_as_torch(misuse):
    """PyTorch raises a TypeError; before, minigrad ignored the second dtype (or, in
    Module.to, took it over the tensor's)."""
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", None])
def test_finfo_gives_torchs_limits(torch, name):
    ours = minigrad.finfo(None if name is None else getattr(minigrad, name))
    theirs = torch.finfo(None if name is None else getattr(torch, name)) if name else \
        torch.finfo()
    for attribute in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                      "dtype"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_gives_torchs_limits(torch, name):
    ours, theirs = minigrad.iinfo(getattr(minigrad, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.max, ours.min, ours.dtype) == (theirs.bits, theirs.max, theirs.min,
                                                           theirs.dtype)


@pytest.mark.parametrize("query, name", [("finfo", "int32"), ("finfo", "bool"),
                                         ("iinfo", "float32"), ("iinfo", "bool")])
def test_finfo_and_iinfo_of_the_other_kind_of_dtype_raise_as_torch(query, name):
    """PyTorch raises a TypeError; before, numpy's ValueError came through."""
    assert_raises_like_torch(lambda lib, F: getattr(lib, query)(getattr(lib, name)))


def test_rng_states_put_the_generators_back_where_they_were():
    state = minigrad.get_rng_state()
    assert state.dtype == np.uint8 and state.ndim == 1
    drawn = minigrad.randn(4).tolist()
    minigrad.set_rng_state(state)
    assert minigrad.randn(4).tolist() == drawn
    generator = minigrad.Generator().manual_seed(11)
    kept = generator.get_state()
    drawn = minigrad.rand(3, generator=generator).tolist()
    assert generator.set_state(kept) is generator
    assert minigrad.rand(3, generator=generator).tolist() == drawn
    fresh = minigrad.seed()
    assert minigrad.initial_seed() == fresh
    minigrad.manual_seed(5)
    assert minigrad.initial_seed() == 5
    with pytest.raises(TypeError):
        minigrad.set_rng_state(Tensor(np.zeros(3)))


RANDOM_FILLS = {  # in-place random fill, its arguments, and the mean and variance it draws with
    "bernoulli_": ((0.3,), 0.3, 0.21),
    "random_": ((2, 8), 4.5, 35 / 12),
    "exponential_": ((2.0,), 0.5, 0.25),
    "geometric_": ((0.25,), 4.0, 12.0),
    "log_normal_": ((0.0, 0.5), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
}


@pytest.mark.parametrize("name", RANDOM_FILLS)
def test_random_fills_draw_their_distribution_in_place_as_torch(torch, name):
    args, mean, variance = RANDOM_FILLS[name]
    x = Tensor(np.zeros(200_000, dtype=np.float32))
    assert getattr(x, name)(*args, generator=minigrad.Generator().manual_seed(0)) is x
    assert x.dtype == np.float32
    assert abs(x.data.mean() - mean) < 5 * math.sqrt(variance / x.numel())
    assert abs(x.data.var() / variance - 1) < 0.05
    again = Tensor(np.zeros(200_000, dtype=np.float32))
    getattr(again, name)(*args, generator=minigrad.Generator().manual_seed(0))
    np.testing.assert_array_equal(again.data, x.data)
    for dtype in ("int64", "bool"):  # filled where PyTorch fills them, refused elsewhere
        if _fills(torch, name, dtype, args):
            filled = getattr(Tensor(np.zeros(3, dtype=dtype)), name)(*args)
            assert filled.dtype == dtype
        else:
            assert_raises_like_torch(lambda lib, F: getattr(
                lib.zeros(3, dtype=getattr(lib, dtype)), name)(*args))


def _fills(torch, name, dtype, args):
    """Whether PyTorch's random fill `name` takes a tensor of `dtype`."""
    try:
        getattr(torch.zeros(3, dtype=getattr(torch, dtype)), name)(*args)
    except (RuntimeError, NotImplementedError):
        return False
    return True


def test_random_fills_of_a_tensor_in_a_graph_keep_it_there_as_torch(torch):
    """As fill_: the tensor still requires grad, and the entries it had get gradient 0."""
    for lib in (minigrad, torch):
        leaf = lib.ones(3, requires_grad=True)
        x = leaf * 2
        x.exponential_()
        assert x.requires_grad
        (x * leaf).sum().backward()
        assert leaf.grad.numpy().tolist() == x.detach().numpy().tolist()
    assert_raises_like_torch(lambda lib, F: lib.zeros(3).geometric_(0))
    assert_raises_like_torch(lambda lib, F: lib.zeros(3).bernoulli_(1.5))
    assert_raises_like_torch(lambda lib, F: lib.zeros(3).random_(5, 2))
    assert_raises_like_torch(lambda lib, F: lib.zeros(3).exponential_(-1))
