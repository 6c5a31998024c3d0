"""Tier 2: `minigrad.special`, PyTorch's `torch.special` namespace: the special functions under
its names (`special.expit`, `special.gammaln`, `special.ndtr`, ...).

Most are the Tensor methods or the functions of minigrad.functional under another name; the
rest are compositions written here (xlog1py, entr, ndtr, log_ndtr, i1, ...) of the primitives
of minigrad/ops/elementwise.py (Erfc, Erfcx, Ndtri, I0e, I1e, Zeta, ...). The orthogonal
polynomials and the Bessel functions named as torch.special's (bessel_j0, modified_bessel_k0,
spherical_bessel_j0, ...) have no gradient in PyTorch, and none here: their values
come from minigrad/ops/special_math.py outside the graph.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import functional, ops
from .dtypes import get_default_dtype
from .engine import ArrayLike
from .ops import special_math
from .pointwise import (_tensor, digamma, erf, erfc, erfinv, exp2, expm1, i0, igamma, igammac,
                        lgamma, log1p, logit, mvlgamma, polygamma, round, sinc, xlogy)
from .tensor import Tensor
from .tensor_functions import broadcast_shapes

__all__ = [
    "bessel_j0", "bessel_j1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc",
    "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
    "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta",
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


# --------------------------------------------------------------------------------------------
# Without gradient, as in PyTorch
# --------------------------------------------------------------------------------------------
def _polynomial(values: Callable[[np.ndarray, np.ndarray], np.ndarray], input: ArrayLike,
                n: ArrayLike) -> Tensor:
    """values(x, n) in float64 for input and n broadcast together, rounded to their promoted
    dtype (the default float dtype for integers and bools), outside the graph. A float n is
    truncated to an integer, as PyTorch casts it; n < 0 gives 0."""
    x = _tensor(input, n)
    x_values, degrees = x._promoted_arrays(n)
    broadcast_shapes(x_values.shape, degrees.shape)
    dtype = x_values.dtype if x_values.dtype.kind == "f" else np.dtype(get_default_dtype())
    with np.errstate(over="ignore"):  # inf beyond float32's range, as PyTorch's
        return Tensor._make(values(x_values, degrees).astype(dtype))


def chebyshev_polynomial_t(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The Chebyshev polynomial of the first kind, T_n(x) = cos(n acos x) on [-1, 1]."""
    return _polynomial(special_math.chebyshev_polynomial_t, input, n)


def chebyshev_polynomial_u(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The Chebyshev polynomial of the second kind, U_n(cos t) = sin((n + 1) t) / sin t."""
    return _polynomial(special_math.chebyshev_polynomial_u, input, n)


def chebyshev_polynomial_v(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The Chebyshev polynomial of the third kind, V_n(cos t) = cos((n + 1/2) t) / cos(t/2)."""
    return _polynomial(special_math.chebyshev_polynomial_v, input, n)


def chebyshev_polynomial_w(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The Chebyshev polynomial of the fourth kind, W_n(cos t) = sin((n + 1/2) t) / sin(t/2)."""
    return _polynomial(special_math.chebyshev_polynomial_w, input, n)


def shifted_chebyshev_polynomial_t(input: ArrayLike, n: ArrayLike) -> Tensor:
    """T*_n(x) = T_n(2x - 1), the first kind on [0, 1]."""
    return _polynomial(special_math.shifted_chebyshev_polynomial_t, input, n)


def shifted_chebyshev_polynomial_u(input: ArrayLike, n: ArrayLike) -> Tensor:
    """U*_n(x) = U_n(2x - 1), the second kind on [0, 1]."""
    return _polynomial(special_math.shifted_chebyshev_polynomial_u, input, n)


def shifted_chebyshev_polynomial_v(input: ArrayLike, n: ArrayLike) -> Tensor:
    """V*_n(x) = V_n(2x - 1), the third kind on [0, 1]."""
    return _polynomial(special_math.shifted_chebyshev_polynomial_v, input, n)


def shifted_chebyshev_polynomial_w(input: ArrayLike, n: ArrayLike) -> Tensor:
    """W*_n(x) = W_n(2x - 1), the fourth kind on [0, 1]."""
    return _polynomial(special_math.shifted_chebyshev_polynomial_w, input, n)


def hermite_polynomial_h(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The physicists' Hermite polynomial H_n(x) (H_2 = 4x^2 - 2)."""
    return _polynomial(special_math.hermite_polynomial_h, input, n)


def hermite_polynomial_he(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The probabilists' Hermite polynomial He_n(x) (He_2 = x^2 - 1)."""
    return _polynomial(special_math.hermite_polynomial_he, input, n)


def laguerre_polynomial_l(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The Laguerre polynomial L_n(x) (L_1 = 1 - x)."""
    return _polynomial(special_math.laguerre_polynomial_l, input, n)


def legendre_polynomial_p(input: ArrayLike, n: ArrayLike) -> Tensor:
    """The Legendre polynomial P_n(x) (P_2 = (3x^2 - 1) / 2)."""
    return _polynomial(special_math.legendre_polynomial_p, input, n)


def _unary(values: Callable[[np.ndarray], np.ndarray], input: ArrayLike) -> Tensor:
    """values(x) in float64, rounded to x's float dtype (the default float dtype for integers
    and bools), outside the graph."""
    x = _tensor(input)._floating()
    with np.errstate(over="ignore"):  # inf beyond float32's range, as PyTorch's
        return Tensor._make(values(x.data).astype(x.dtype))


def spherical_bessel_j0(input: ArrayLike) -> Tensor:
    """The spherical Bessel function of the first kind of order 0, sin(x) / x: 1 at 0."""
    return _unary(special_math.spherical_bessel_j0, input)


def bessel_j0(input: ArrayLike) -> Tensor:
    """The Bessel function of the first kind of order 0, J_0 (NaN at +-inf, as PyTorch's)."""
    return _unary(special_math.bessel_j0, input)


def bessel_j1(input: ArrayLike) -> Tensor:
    """The Bessel function of the first kind of order 1, J_1 (NaN at +-inf, as PyTorch's)."""
    return _unary(special_math.bessel_j1, input)


def modified_bessel_i0(input: ArrayLike) -> Tensor:
    """I_0, as i0, but without gradient, as PyTorch's."""
    return _unary(special_math.i0, input)


def modified_bessel_i1(input: ArrayLike) -> Tensor:
    """I_1, as i1, but without gradient, as PyTorch's."""
    return _unary(special_math.i1, input)


def modified_bessel_k0(input: ArrayLike) -> Tensor:
    """The modified Bessel function of the second kind of order 0, K_0: inf at 0, NaN below."""
    return _unary(special_math.modified_bessel_k0, input)


def modified_bessel_k1(input: ArrayLike) -> Tensor:
    """The modified Bessel function of the second kind of order 1, K_1: inf at 0, NaN below."""
    return _unary(special_math.modified_bessel_k1, input)


def scaled_modified_bessel_k0(input: ArrayLike) -> Tensor:
    """exp(x) K_0(x), finite where K_0 underflows."""
    return _unary(special_math.scaled_modified_bessel_k0, input)


def scaled_modified_bessel_k1(input: ArrayLike) -> Tensor:
    """exp(x) K_1(x), finite where K_1 underflows."""
    return _unary(special_math.scaled_modified_bessel_k1, input)
