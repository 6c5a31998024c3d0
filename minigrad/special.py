"""Tier 2: `minigrad.special`, PyTorch's `torch.special` namespace: the special functions under
its names (`special.expit`, `special.gammaln`, `special.ndtr`, ...).

Most are the Tensor methods or the functions of minigrad.functional under another name; the
rest are compositions written here (xlog1py, entr, ndtr, log_ndtr, i1, ...) of the primitives
of minigrad/ops/elementwise.py (Erfc, Erfcx, Ndtri, I0e, I1e, Zeta, ...).
"""
from __future__ import annotations

import math

import numpy as np

from . import functional, ops
from .engine import ArrayLike
from .pointwise import (_tensor, digamma, erf, erfc, erfinv, exp2, expm1, i0, igamma, igammac,
                        lgamma, log1p, logit, mvlgamma, polygamma, round, sinc, xlogy)
from .tensor import Tensor

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
    "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
    "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax",
    "xlog1py", "xlogy", "zeta",
]

_SQRT_HALF = math.sqrt(0.5)

# torch.special's other names for lgamma, digamma, mvlgamma, igamma and igammac
gammaln, psi, multigammaln, gammainc, gammaincc = lgamma, digamma, mvlgamma, igamma, igammac


def expit(input: Tensor) -> Tensor:
    """The logistic sigmoid, 1 / (1 + exp(-x))."""
    return _tensor(input).sigmoid()


def erfcx(input: Tensor) -> Tensor:
    """exp(x**2) * erfc(x), finite where the two factors overflow and underflow."""
    return ops.Erfcx.apply(_tensor(input)._floating())


def xlog1py(input: Tensor | float, other: ArrayLike) -> Tensor:
    """input * log1p(other), and 0 where input is 0 unless other is NaN (as xlogy)."""
    return _tensor(input)._times_log_of(other, Tensor.log1p, pole=-1.0)


def entr(input: Tensor) -> Tensor:
    """The entropy term -x * log(x): 0 at 0, -inf below 0, as in PyTorch. The entries below 0
    are replaced by 1 before the log, so that its NaN sends no NaN back."""
    x = _tensor(input)._floating()
    negative = x.data < 0
    inside = x.masked_fill(negative, 1.0)
    with np.errstate(over="ignore"):  # -inf for the largest floats, as in PyTorch
        return (-inside.xlogy(inside)).masked_fill(negative, -math.inf)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, erfc(-x / sqrt(2)) / 2, which keeps its digits far below 0
    (where (1 + erf(x / sqrt(2))) / 2 is 0)."""
    return (_tensor(input)._floating() * -_SQRT_HALF).erfc() * 0.5


def ndtri(input: Tensor) -> Tensor:
    """The inverse of ndtr, the standard normal quantile: -inf at 0, inf at 1, NaN outside."""
    return ops.Ndtri.apply(_tensor(input)._floating())


def log_ndtr(input: Tensor) -> Tensor:
    """log(ndtr(x)), PyTorch's way: below -1 as log(erfcx(-x / sqrt(2)) / 2) - x**2 / 2,
    which stays finite where ndtr underflows (log_ndtr(-40) is -804.6), and elsewhere as
    log1p(-erfc(x / sqrt(2)) / 2), which keeps the digits of a result near 0. Each branch sees
    a harmless value where the other is taken, so that neither sends NaN back."""
    x = _tensor(input)._floating()
    low = x.data < -1
    far_left = x.masked_fill(~low, -1.0)
    rest = x.masked_fill(low, 0.0)
    # x**2 is inf from -1.3e154 on, and erfcx(inf) = 0 has log -inf: log_ndtr is -inf there
    with np.errstate(over="ignore", divide="ignore"):
        left = (erfcx(far_left * -_SQRT_HALF) * 0.5).log() - far_left.square() * 0.5
    right = (-erfc(rest * _SQRT_HALF) * 0.5).log1p()
    return ops.Where.apply(left, right, cond=low)


def i0e(input: Tensor) -> Tensor:
    """exp(-|x|) * i0(x), finite where i0 overflows."""
    return ops.I0e.apply(_tensor(input)._floating())


def i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1, i1e(x) * exp(|x|)."""
    x = _tensor(input)._floating()
    with np.errstate(over="ignore"):  # exp(|x|) is inf beyond its range, and so is i1
        return ops.I1e.apply(x) * x.abs().exp()


def i1e(input: Tensor) -> Tensor:
    """exp(-|x|) * i1(x), finite where i1 overflows."""
    return ops.I1e.apply(_tensor(input)._floating())


def zeta(input: Tensor | float, other: ArrayLike) -> Tensor:
    """The Hurwitz zeta function, the sum over k >= 0 of (other + k)**-input (other = 1:
    Riemann's): inf at input = 1 and at other = 0, -1, -2, ...; NaN for input < 1. As in
    PyTorch, other may require grad but input may not: backward then raises
    NotImplementedError."""
    x, q = _tensor(input)._operands(other)
    return ops.Zeta.apply(x._floating(), q._floating())


def logsumexp(input: Tensor, dim: int | tuple[int, ...], keepdim: bool = False) -> Tensor:
    return _tensor(input).logsumexp(dim, keepdim)


def softmax(input: Tensor, dim: int, *, dtype: np.dtype | type | None = None) -> Tensor:
    return functional.softmax(_tensor(input), dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: np.dtype | type | None = None) -> Tensor:
    return functional.log_softmax(_tensor(input), dim, dtype=dtype)
