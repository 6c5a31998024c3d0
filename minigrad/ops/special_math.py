"""numpy evaluations of the special functions behind the primitives of elementwise.py (Erf,
Erfc, Erfcx, Erfinv, Ndtri, Lgamma, Polygamma, I0, I0e, I1e, Zeta), and of those that
minigrad.special gives without gradient, as PyTorch (the orthogonal polynomials, J_0, J_1,
K_0, K_1, spherical_bessel_j0): float64 in, float64 out, entry by entry, NaN in gives NaN out.
Each names the published method it follows."""
from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

_EPS = np.finfo(np.float64).eps / 2  # float64's unit roundoff


def _entrywise(function: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """Run `function(*settings, x)` on x as a float64 array of at least one dim, giving back
    x's shape (numpy's arithmetic on a 0-d array gives a scalar, which the masked writes here
    cannot write into), and without numpy's floating-point warnings: the infinities, NaNs and
    poles they would be about are each handled on purpose."""

    @functools.wraps(function)
    def entrywise(*args: object) -> np.ndarray:
        *settings, x = args
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(all="ignore"):
            return function(*settings, np.atleast_1d(x)).reshape(x.shape)

    return entrywise


def _entrywise_pair(function: Callable[[np.ndarray, np.ndarray], np.ndarray]
                    ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """As `_entrywise`, for a function of two arrays, which are broadcast together first."""

    @functools.wraps(function)
    def entrywise(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64),
                                   np.asarray(y, dtype=np.float64))
        with np.errstate(all="ignore"):
            return function(np.atleast_1d(x), np.atleast_1d(y)).reshape(x.shape)

    return entrywise


# --------------------------------------------------------------------------------------------
# erf: W. J. Cody, "Rational Chebyshev approximations for the error function", Mathematics of
# Computation 23 (1969) 631-637, with the coefficients of his CALERF routine (netlib specfun).
# --------------------------------------------------------------------------------------------
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
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
_ERFC_IS_ZERO = 27.25  # erfc(27.25) is below the smallest subnormal
_SMALL = 0.46875  # below it Cody's erf approximation, above it his erfc ones


def _rational(x: np.ndarray, numerator: tuple[float, ...],
              denominator: tuple[float, ...]) -> np.ndarray:
    """N(x) / D(x) in Cody's nesting: N = ((n[-1] x + n[0]) x + n[1]) x ... + n[len(d)-1],
    D = ((x + d[0]) x + d[1]) x ... + d[-1]."""
    num, den = numerator[-1] * x, x
    for n, d in zip(numerator[:len(denominator) - 1], denominator[:-1]):
        num = (num + n) * x
        den = (den + d) * x
    return (num + numerator[len(denominator) - 1]) / (den + denominator[-1])


def _exp_square(y: np.ndarray, sign: int) -> np.ndarray:
    """exp(sign * y^2), with y^2 split as (y rounded down to 1/16)^2 + rest, so that the
    rounding of y*y in float64 does not cost the relative accuracy of the result."""
    head = np.trunc(y * 16) / 16
    return np.exp(sign * head * head) * np.exp(sign * (y - head) * (y + head))


def _erf_small(x: np.ndarray) -> np.ndarray:
    """erf(x) for |x| <= _SMALL."""
    return x * _rational(x * x, _ERF_A, _ERF_B)


def _erfcx_nonnegative(y: np.ndarray) -> np.ndarray:
    """exp(y^2) * erfc(y) for y >= 0 (inf too): Cody's three regions."""
    out = np.full_like(y, np.nan)
    small = y <= _SMALL
    out[small] = np.exp(y[small] ** 2) * (1 - _erf_small(y[small]))
    middle = (y > _SMALL) & (y <= 4)
    out[middle] = _rational(y[middle], _ERFC_C, _ERFC_D)
    tail = y > 4
    z = 1 / (y[tail] * y[tail])  # 0 at inf, and the result 0 too
    out[tail] = (_ONE_OVER_SQRT_PI - z * _rational(z, _ERFC_P, _ERFC_Q)) / y[tail]
    return out


def _erfc_above_small(y: np.ndarray) -> np.ndarray:
    """erfc(y) for y > _SMALL (inf too): exp(-y^2) * erfcx(y), 0 where it underflows."""
    out = np.zeros_like(y)
    finite = y < _ERFC_IS_ZERO
    out[finite] = _exp_square(y[finite], -1) * _erfcx_nonnegative(y[finite])
    return out


@_entrywise
def erf(x: np.ndarray) -> np.ndarray:
    """erf(x), accurate to a few units in the last place on the whole real line (tested against
    math.erf): Cody's erf approximation up to |x| = 0.46875, then 1 - erfc(|x|)."""
    out = x.copy()  # NaN entries fall in no region below and stay NaN
    small = np.abs(x) <= _SMALL
    out[small] = _erf_small(x[small])
    large = np.abs(x) > _SMALL
    out[large] = np.copysign(1 - _erfc_above_small(np.abs(x[large])), x[large])
    return out


@_entrywise
def erfc(x: np.ndarray) -> np.ndarray:
    """1 - erf(x) without the cancellation: Cody's erfc approximations above |x| = 0.46875
    (2 - erfc(-x) below -0.46875), 1 - erf(x) inside."""
    out = x.copy()
    small = np.abs(x) <= _SMALL
    out[small] = 1 - _erf_small(x[small])
    large = np.abs(x) > _SMALL
    tail = _erfc_above_small(np.abs(x[large]))
    out[large] = np.where(x[large] > 0, tail, 2 - tail)
    return out


@_entrywise
def erfcx(x: np.ndarray) -> np.ndarray:
    """exp(x^2) * erfc(x), the scaled complementary error function: Cody's approximations for
    x >= 0, 2 exp(x^2) - erfcx(-x) below 0 (inf from about -26.6, where exp(x^2) overflows)."""
    out = x.copy()
    nonnegative = x >= 0
    out[nonnegative] = _erfcx_nonnegative(x[nonnegative])
    # erfcx(-27) is already inf; the bound keeps -inf out of _exp_square (inf - inf)
    negative = np.maximum(x[x < 0], -27.0)
    out[x < 0] = 2 * _exp_square(negative, 1) - _erfcx_nonnegative(-negative)
    return out


# --------------------------------------------------------------------------------------------
# erfinv and ndtri: S. Winitzki's approximation ("A handy approximation for the error function
# and its inverse", 2008; relative error below 2e-3), then Halley's method on erf or erfc.
# --------------------------------------------------------------------------------------------
_WINITZKI_A = 0.147
_HALLEY_STEPS = 3  # each step cubes the relative error: 2e-3, 1e-8, 1e-24


def _erfinv_magnitude(t: np.ndarray, complement: np.ndarray) -> np.ndarray:
    """x >= 0 with erf(x) = t, for t in [0, 1) given with complement = 1 - t, exact where
    t >= 0.5: there the steps solve erfc(x) = complement, whose digits erf(x) = t no longer
    holds near 1 (erfinv(1 - 1e-300) is 26.4), and below 0.5 they solve erf(x) = t."""
    near = t < 0.5
    log_term = np.where(near, np.log1p(-t * t), np.log(complement * (2 - complement)))
    b = 2 / (np.pi * _WINITZKI_A) + log_term / 2
    x = np.sqrt(np.sqrt(b * b - log_term / _WINITZKI_A) - b)
    for _ in range(_HALLEY_STEPS):
        residual = np.where(near, erf(x) - t, complement - erfc(x))
        step = residual / (_TWO_OVER_SQRT_PI * _exp_square(x, -1))  # f / f'
        x = x - step / (1 + x * step)  # Halley's correction: f'' / f' = -2x for erf
    return x


def _inverse_erf(y: np.ndarray, complement: np.ndarray) -> np.ndarray:
    """x with erf(x) = y for y in [-1, 1] (+-inf at +-1, NaN outside), given
    complement = 1 - |y|."""
    out = np.where(complement == 0, np.inf, np.nan)
    inside = complement > 0
    out[inside] = _erfinv_magnitude(np.abs(y[inside]), complement[inside])
    return np.copysign(out, y)


@_entrywise
def erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse of erf on [-1, 1]."""
    return _inverse_erf(y, 1 - np.abs(y))


@_entrywise
def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal CDF, sqrt(2) erfinv(2p - 1), with 1 - |2p - 1| passed
    as 2 min(p, 1 - p), which is exact: ndtri(1e-300) keeps its digits (-37.047...)."""
    return np.sqrt(2) * _inverse_erf(2 * p - 1, 2 * np.minimum(p, 1 - p))


# --------------------------------------------------------------------------------------------
# lgamma, digamma, polygamma, zeta: the recurrences psi(x) = psi(x + 1) - 1/x and
# zeta(s, q) = q^-s + zeta(s, q + 1) until the argument is large, then the asymptotic
# (Stirling, Euler-Maclaurin) series in the Bernoulli numbers B_2, B_4, ... (Abramowitz and
# Stegun 6.1.41, 6.3.18 and 23.2.3).
# --------------------------------------------------------------------------------------------
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330)
_DIGAMMA_SERIES = tuple(b / (2 * j) for j, b in enumerate(_BERNOULLI, 1))  # B_2j / 2j
_ZETA_SERIES = tuple(b / math.factorial(2 * j) for j, b in enumerate(_BERNOULLI, 1))
_EULER_GAMMA = 0.57721566490153286
_DIGAMMA_ASYMPTOTIC_FROM = 10.0  # the 8th term B_16 / (16 x^16) is below 1e-16 from there


@functools.cache
def _lgamma_series() -> np.ndarray:
    """The coefficients (-1)**k zeta(k) / k of z**k, k = 2 .. 59, in lgamma(1 + z)."""
    k = np.arange(2, 60)
    zeta = np.array([_hurwitz_zeta(int(s), np.ones(1))[0] for s in k])
    return (-1.0) ** k * zeta / k


def _lgamma_one_plus(z: np.ndarray) -> np.ndarray:
    """lgamma(1 + z) for |z| <= 1/2: -gamma z + sum over k >= 2 of (-1)**k zeta(k) z**k / k
    (Abramowitz and Stegun 6.1.33), whose terms fall below 1e-19 by k = 59."""
    series = np.zeros_like(z)
    for coefficient in reversed(_lgamma_series()):
        series += coefficient  # in place: 58 terms, no temporaries
        series *= z
    return (series - _EULER_GAMMA) * z + 0.0  # + 0.0: lgamma(1) is +0, not -0, as in PyTorch


_LOG_SQRT_TWO_PI = 0.5 * math.log(2 * math.pi)
_LOG_PI = math.log(math.pi)
# B_2j / (2j (2j - 1)), the coefficients of x**(1 - 2j) in Stirling's series
_STIRLING_SERIES = tuple(c / (2 * j - 1) for j, c in enumerate(_DIGAMMA_SERIES[:8], 1))


def _stirling_correction(y: np.ndarray) -> np.ndarray:
    """lgamma(y) - ((y - 0.5) log(y) - y + log(sqrt(2 pi))), for y >= 10: Stirling's series,
    the sum over j of B_2j / (2j (2j - 1) y^(2j - 1))."""
    inverse, inverse_square = 1 / y, 1 / (y * y)
    series = np.zeros_like(y)
    for coefficient in reversed(_STIRLING_SERIES):
        series = series * inverse_square + coefficient
    return series * inverse


def _lgamma_positive(x: np.ndarray) -> np.ndarray:
    """lgamma(x) for x > 0 (inf too): from 10 on Stirling's series (A&S 6.1.41, its 8th term
    below 1e-16 there); on (0.5, 2.5] the Taylor series at 1 and 2 (exact near the roots 1
    and 2); between, the recurrence lgamma(x) = lgamma(x - 1) + log(x - 1) down to (1.5, 2.5],
    with the logs summed as the log of one product; below 0.5, lgamma(1 + x) - log(x)."""
    out = np.empty_like(x)
    large = x >= _DIGAMMA_ASYMPTOTIC_FROM
    y = x[large]
    # (y - 0.5) log(y) - y is inf from about 2.6e305 on, as lgamma, and never inf - inf
    out[large] = (y - 0.5) * np.log(y) - y + _LOG_SQRT_TWO_PI + _stirling_correction(y)
    small = x <= 0.5
    out[small] = _lgamma_one_plus(x[small]) - np.log(x[small])
    middle = ~large & ~small
    y = x[middle]
    steps = np.maximum(np.ceil(y - 2.5), 0)  # at most 8, for y below 10
    product = np.ones_like(y)
    for k in range(1, 9):
        product *= np.where(k <= steps, y - k, 1.0)
    y = y - steps  # exact, in (0.5, 2.5]
    near_one = y <= 1.5
    z = np.where(near_one, y - 1, y - 2)
    out[middle] = (_lgamma_one_plus(z) + np.where(near_one, 0.0, np.log1p(z))
                   + np.log(product))
    return out


@_entrywise
def lgamma(x: np.ndarray) -> np.ndarray:
    """log |Gamma(x)|. At and below 0 the reflection lgamma(x) = log(pi / |sin(pi x)|)
    - lgamma(1 - x), as -log |f| - log(sin(pi f) / (pi f)) - lgamma(1 - x) with f = x minus
    its nearest integer (exact): pi x would lose its digits for large |x|, and pi f for a
    subnormal f. +inf at the poles 0, -1, -2, ... (f = 0; every float from -2**52 down is one)
    and at +-inf, as in PyTorch; NaN gives NaN."""
    out = np.empty_like(x)
    positive = x > 0
    out[positive] = _lgamma_positive(x[positive])
    negative = ~positive  # NaN too: NaN out
    y = x[negative]
    f = np.abs(y - np.round(y))
    # sin(pi f) / (pi f) is 1 - (pi f)**2 / 6 + ...: 1 to every digit below 1e-8
    sine_over_angle = np.where(f < 1e-8, 1.0, np.sin(np.pi * f) / (np.pi * f))
    out[negative] = -np.log(f) - np.log(sine_over_angle) - _lgamma_positive(1 - y)
    out[np.isinf(x)] = np.inf
    return out


def _digamma_positive(x: np.ndarray) -> np.ndarray:
    """digamma(x) for x > 0 (inf and NaN too)."""
    x, total = x.copy(), np.zeros_like(x)
    below = x < _DIGAMMA_ASYMPTOTIC_FROM
    while below.any():
        total[below] -= 1 / x[below]
        x[below] += 1
        below = x < _DIGAMMA_ASYMPTOTIC_FROM
    inverse_square = 1 / (x * x)
    series = np.zeros_like(x)
    for coefficient in reversed(_DIGAMMA_SERIES[:8]):
        series = (series + coefficient) * inverse_square
    return total + np.log(x) - 0.5 / x - series


@_entrywise
def digamma(x: np.ndarray) -> np.ndarray:
    """d/dx lgamma(x). Below 0 the reflection psi(x) = psi(1 - x) - pi / tan(pi x), with tan's
    argument reduced to the fractional part of x (pi x itself would lose its digits for large
    |x|). PyTorch's values at the poles: -inf at +0, +inf at -0, NaN at the negative integers
    and -inf."""
    reflected = x < 0
    out = _digamma_positive(np.where(reflected, 1 - x, np.where(x == 0, 1.0, x)))
    fraction = x[reflected] - np.trunc(x[reflected])
    out[reflected] -= np.pi / np.tan(np.pi * fraction)  # the poles' values are set below
    out[x == 0] = np.copysign(np.inf, -x[x == 0])
    out[reflected & (x == np.trunc(x))] = np.nan
    return out


def _hurwitz_zeta(s: np.ndarray | int, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) = sum over k >= 0 of (q + k)^-s, for s > 1 (inf too) and q > 0, or any q but
    the poles 0, -1, -2, ... where s is an integer (inf and NaN too). The terms are added until
    q + k reaches s + 10, where the Euler-Maclaurin tail's terms fall by a factor of about
    ((s + 2j) / (2 pi (s + 10)))^2 < 0.1 each; or, once q + k > 0, until the terms left, whose
    sum is below the last one's times 1 + (q + k) / (s - 1), add less than a rounding error
    (for a large s, which would otherwise take s terms)."""
    s, q = np.broadcast_arrays(np.asarray(s, dtype=np.float64), q)
    q, total = q.copy(), np.zeros(q.shape)
    start_of_tail = s + 10
    summing = q < start_of_tail
    converged = np.zeros(q.shape, dtype=bool)
    while summing.any():
        term = q[summing] ** -s[summing]
        total[summing] += term
        q[summing] += 1
        left = np.abs(term) * (1 + q[summing] / (s[summing] - 1))
        done = (q[summing] > 1) & (left <= _EPS * np.abs(total[summing]))
        converged[summing] = done
        summing[summing] = ~done & (q[summing] < start_of_tail[summing])
    tail = ~converged
    s, q = s[tail], q[tail]
    tail_sum = q ** (1 - s) / (s - 1) + q ** -s / 2
    term = s * q ** (-s - 1)  # s (s + 1) ... (s + 2j - 2) q^(-s - 2j + 1), for j = 1
    for j, coefficient in enumerate(_ZETA_SERIES, 1):
        tail_sum += coefficient * term
        term = term * ((s + 2 * j - 1) * (s + 2 * j)) / (q * q)
    total[tail] += tail_sum
    return total


@_entrywise_pair
def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function zeta(x, q) = sum over k >= 0 of (q + k)^-x (zeta(x, 1) is
    Riemann's), with PyTorch's (Cephes') values outside its domain: inf at x = 1 and at the
    poles q = 0, -1, -2, ... (and -inf); NaN for x < 1, and for q < 0 where x is not an integer
    ((q + k)^-x is not real). At q = +inf, and at x = +inf with q > 1, the limit 0 (PyTorch's
    NaN)."""
    out = np.where(x == 1, np.inf, np.nan)
    above = x > 1
    pole = above & (q <= 0) & (q == np.floor(q))
    out[pole] = np.inf
    defined = above & ~pole & ((q > 0) | (x == np.floor(x)))
    out[defined] = _hurwitz_zeta(x[defined], q[defined])
    out[above & (q == np.inf)] = 0.0  # the limit; the sum's terms give inf**-inf at x = inf
    return out


@_entrywise
def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma, (-1)^(n+1) n! zeta(n + 1, x) for n >= 1 (digamma for
    n = 0). Below 0, with f = x - floor(x), zeta(s, x) = zeta(s, f) + (-1)^s (zeta(s, 1 - f)
    - zeta(s, 1 - x)) (the recurrence's terms between x and f, summed as two zetas of positive
    arguments); the poles, the integers <= 0 and -inf, give (-1)^(n+1) inf."""
    if n == 0:
        return digamma(x)
    s = n + 1
    negative = x < 0
    fraction = np.where(negative, x - np.floor(x), x)
    zeta = _hurwitz_zeta(s, np.where(fraction == 0, 1.0, fraction))  # poles: below
    # 1 - f as ceil(x) - x, exact: 1 - f would round away a tiny x's digits
    reflected = (-1) ** s * (_hurwitz_zeta(s, np.ceil(x[negative]) - x[negative])
                             - _hurwitz_zeta(s, 1 - x[negative]))
    zeta[negative] += reflected
    zeta[(x <= 0) & (x == np.floor(x))] = np.inf
    factorial = math.prod(range(1, n + 1), start=1.0)  # a float: inf from n = 171 on
    return (-1) ** (n + 1) * factorial * zeta


# --------------------------------------------------------------------------------------------
# i0e, i1e: the modified Bessel functions of the first kind, scaled by exp(-|x|): their power
# series up to |x| = 30, the asymptotic series beyond (Abramowitz and Stegun 9.6.10, 9.7.1).
# --------------------------------------------------------------------------------------------
_BESSEL_ASYMPTOTIC_FROM = 30.0  # its terms fall below 1e-17 before they grow again


def _bessel_ie(order: int, x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I_order(x), for order 0 or 1."""
    x = np.asarray(x, dtype=np.float64)
    t = np.abs(x)
    out = np.full_like(t, np.nan)
    series = t <= _BESSEL_ASYMPTOTIC_FROM
    ts = t[series]
    # I_v(t) = sum over k of (t/2)^(2k + v) / (k! (k + v)!)
    term = (ts / 2) ** order
    total, quarter_square, k = term.copy(), ts * ts / 4, 0
    while (term > _EPS * total).any():
        k += 1
        term = term * quarter_square / (k * (k + order))
        total += term
    out[series] = total * np.exp(-ts)
    large = t > _BESSEL_ASYMPTOTIC_FROM
    tl = t[large]
    # I_v(t) e^-t sqrt(2 pi t)
    #   = sum over k of (-1)^k prod_{j <= k} (4v^2 - (2j - 1)^2) / (k! (8t)^k)
    term, total, k = np.ones_like(tl), np.ones_like(tl), 0
    while (np.abs(term) > _EPS * total).any():
        k += 1
        term = term * -(4 * order * order - (2 * k - 1) ** 2) / (8 * k * tl)
        total += term
    out[large] = total / np.sqrt(2 * np.pi * tl)
    # I_1 is odd, I_0 even; -0.0 gives +0.0, as in PyTorch
    return np.where(x < 0, -out, out) if order == 1 else out


@_entrywise
def i0e(x: np.ndarray) -> np.ndarray:
    return _bessel_ie(0, x)


@_entrywise
def i0(x: np.ndarray) -> np.ndarray:
    """I_0(x), inf from |x| = 709.8 on, where exp(|x|) overflows."""
    return _bessel_ie(0, x) * np.exp(np.abs(x))


@_entrywise
def i1(x: np.ndarray) -> np.ndarray:
    """I_1(x), +-inf from |x| = 709.8 on."""
    return _bessel_ie(1, x) * np.exp(np.abs(x))


@_entrywise
def i1e(x: np.ndarray) -> np.ndarray:
    return _bessel_ie(1, x)


# --------------------------------------------------------------------------------------------
# The regularized incomplete gamma functions P(a, x) = gamma(a, x) / Gamma(a) and
# Q(a, x) = 1 - P(a, x) (Numerical Recipes 6.2; A&S 6.5.29 and 6.5.31): below x = a + 1 the
# series P = x^a e^-x / Gamma(a + 1) * sum over k >= 0 of x^k / ((a + 1) ... (a + k)), above it
# Legendre's continued fraction for Q, each where it converges fast; the other is 1 minus it.
# For large a, where both would be slow near x = a, Temme's uniform expansion (below).
# --------------------------------------------------------------------------------------------
_INCOMPLETE_GAMMA_TOLERANCE = 1e-16
_TINY = 1e-300  # Lentz's method: a zero denominator replaced by this


def _t_minus_log1p(t: np.ndarray) -> np.ndarray:
    """t - log(1 + t), by its series t^2/2 - t^3/3 + ... below |t| = 0.01, where the two terms
    would cancel to a few digits."""
    out = t - np.log1p(t)
    small = np.abs(t) < 0.01
    u = t[small]
    series = np.zeros_like(u)
    for k in range(9, 1, -1):  # t^10 / 10 is below 1e-16 of t^2 / 2
        series = series * -u + 1 / k
    out[small] = series * u * u
    return out


def _log_gamma_density_times_x(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """log(x^a e^-x / Gamma(a)). From a = 10 on, with Stirling's lgamma and t = x / a - 1, as
    -a (t - log(1 + t)) + log(a) / 2 - log(sqrt(2 pi)) - correction: written plainly, its terms
    grow like a log(a) and cancel, which cost P(1e6, 1e6) nine of its digits (and t - log(1 + t)
    by its series near t = 0, where a times its cancellation cost 1e-6 at a = 1e20)."""
    out = a * np.log(x) - x - lgamma(a)
    large = a >= _DIGAMMA_ASYMPTOTIC_FROM
    b, t = a[large], (x[large] - a[large]) / a[large]
    out[large] = (-b * _t_minus_log1p(t) + 0.5 * np.log(b) - _LOG_SQRT_TWO_PI
                  - _stirling_correction(b))
    return out


def _lower_gamma_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) by its series, for 0 < x < a + 1 (the ratio of two terms, x / (a + k), is
    below 1 from the first; for large a it needs about sqrt(a) terms)."""
    term = 1 / a
    total = term.copy()
    k = np.zeros_like(a)
    going = np.ones(a.shape, dtype=bool)
    while going.any():
        k[going] += 1
        term[going] *= x[going] / (a[going] + k[going])
        total[going] += term[going]
        going &= np.abs(term) > np.abs(total) * _INCOMPLETE_GAMMA_TOLERANCE
    return total * np.exp(_log_gamma_density_times_x(a, x))


def _upper_gamma_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) by its continued fraction 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a)
    / (x + 5 - a - ...))), evaluated by Lentz's method, for x >= a + 1."""
    b = x + 1 - a
    c = np.full_like(a, 1 / _TINY)
    d = 1 / b
    fraction = d.copy()
    i = np.zeros_like(a)
    going = np.ones(a.shape, dtype=bool)
    while going.any():
        i[going] += 1
        step = -i * (i - a)
        b = b + 2
        d = step * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + step / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1 / d
        change = d * c
        fraction[going] *= change[going]
        going &= np.abs(change - 1) > _INCOMPLETE_GAMMA_TOLERANCE
    return fraction * np.exp(_log_gamma_density_times_x(a, x))


# Temme's uniform expansion (DLMF 8.12.8-8.12.10), for a from _UNIFORM_FROM on, where the series
# and the fraction would take about 9 sqrt(a) terms with x near a: with lambda = x / a and
# eta = sign(lambda - 1) sqrt(2 (lambda - 1 - log(lambda))),
# Q = erfc(eta sqrt(a / 2)) / 2 + S and P = erfc(-eta sqrt(a / 2)) / 2 - S,
# S = exp(-a eta^2 / 2) / sqrt(2 pi a) (c0(eta) + c1(eta) / a); the next term, c2 / a^2, is
# about 1e-14 of S at a = 1e6 (c2(0) = 0.0041, c0(0) = -1/3), less above.
_UNIFORM_FROM = 1e6
_UNIFORM_NEAR = 0.03  # below this |eta|, c0 and c1 by their Taylor series (else cancellation)
# the Taylor coefficients of c0 and c1 in eta (Temme's d[0][k] and d[1][k]), lowest first;
# at |eta| = 0.03 the first term left out changes c0 + c1 / a by about 1e-13 of it
_TEMME_C0 = (-1 / 3, 1 / 12, -2 / 135, 1 / 864, 1 / 2835, -139 / 777600)
_TEMME_C1 = (-1 / 540, -1 / 288, 1 / 378, -77 / 77760)


def _uniform_incomplete_gammas(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(a, x), Q(a, x)) by Temme's uniform expansion, for a >= _UNIFORM_FROM and x > 0."""
    t = (x - a) / a  # lambda - 1; x - a is exact where x is near a, x / a - 1 is not
    half_eta_squared = _t_minus_log1p(t)
    eta = np.copysign(np.sqrt(2 * half_eta_squared), t)
    near = np.abs(eta) < _UNIFORM_NEAR
    c0 = np.where(near, np.polynomial.polynomial.polyval(eta, _TEMME_C0), 1 / t - 1 / eta)
    c1 = np.where(near, np.polynomial.polynomial.polyval(eta, _TEMME_C1),
                  1 / eta ** 3 - 1 / t ** 3 - 1 / t ** 2 - 1 / (12 * t))
    s = np.exp(-a * half_eta_squared) / np.sqrt(2 * np.pi * a) * (c0 + c1 / a)
    z = eta * np.sqrt(a / 2)
    return erfc(-z) / 2 - s, erfc(z) / 2 + s


def _incomplete_gammas(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(a, x), Q(a, x)) with PyTorch's (Cephes') values at the edges: NaN for a or x negative
    or NaN, and for a = x = 0 or a = x = inf; P = 1 at a = 0 (x > 0) and at x = inf, P = 0 at
    x = 0 and at a = inf. Each computed directly where its own expansion is used, so that a
    small P or Q keeps its digits instead of being 1 minus the other."""
    p = np.full_like(a, np.nan)
    inside = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    uniform = inside & (a >= _UNIFORM_FROM)
    p_uniform, q_uniform = _uniform_incomplete_gammas(a[uniform], x[uniform])
    p[uniform] = p_uniform
    inside &= ~uniform
    series = inside & (x < a + 1)
    p[series] = _lower_gamma_series(a[series], x[series])
    fraction = inside & ~series
    q_fraction = _upper_gamma_fraction(a[fraction], x[fraction])
    p[fraction] = 1 - q_fraction
    p[(a == 0) & (x > 0)] = 1.0
    p[(x == np.inf) & (a >= 0) & (a < np.inf)] = 1.0
    p[(x == 0) & (a > 0)] = 0.0
    p[(a == np.inf) & (x >= 0) & (x < np.inf)] = 0.0
    q = 1 - p
    q[fraction] = q_fraction
    q[uniform] = q_uniform
    return p, q


@_entrywise_pair
def gammainc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized lower incomplete gamma function P(a, x)."""
    return _incomplete_gammas(a, x)[0]


@_entrywise_pair
def gammaincc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _incomplete_gammas(a, x)[1]


@_entrywise_pair
def gammainc_density(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dP(a, x)/dx = x^(a - 1) e^-x / Gamma(a). At x = 0, where the density over x would be
    0 / 0, x^(a - 1) / Gamma(a) as PyTorch computes it: inf for a < 1, 0 for a > 1, NaN at
    a = 1 (0 * log(0))."""
    return np.where(x == 0, np.exp((a - 1) * np.log(x) - lgamma(a)),
                    np.exp(_log_gamma_density_times_x(a, x)) / x)


# --------------------------------------------------------------------------------------------
# Orthogonal polynomials P_n(x) (A&S 22.7: the three-term recurrences; 22.3.15-16 and Mason &
# Handscomb, "Chebyshev Polynomials" 1.2: the trigonometric forms of the Chebyshev kinds), by
# PyTorch's rules: n truncated to an integer (a NaN, infinite or out-of-range n counts as
# negative), 0 for n < 0, PyTorch's exact values at the ends of [-1, 1] (of [0, 1] for the
# shifted kinds), and for |x| < 1 past n = 6 (the first kind) or 8 (the others) the
# trigonometric form, as PyTorch switches to it.
# --------------------------------------------------------------------------------------------
def _degrees(n: np.ndarray) -> np.ndarray:
    """n as PyTorch's cast to int64 leaves it, as floats: truncated; -1 where the cast is
    undefined (NaN, infinite, out of range), which x86 makes the most negative int64."""
    return np.where(np.isfinite(n) & (np.abs(n) < 2.0 ** 63), np.trunc(n), -1.0)


def _by_recurrence(n: np.ndarray, first: np.ndarray, second: np.ndarray,
                   step: Callable[[int, np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Term n (>= 0) of the sequence P_0 = first, P_1 = second, P_(k+1) = step(k, P_(k-1),
    P_k), each entry's own n; the loop runs to the largest n of the entries."""
    out = np.where(n == 0, first, second)
    previous, current = np.broadcast_arrays(first, second)
    for k in range(1, int(n.max(initial=0))):
        previous, current = current, step(k, previous, current)
        out = np.where(n == k + 1, current, out)
    return out


def _polynomial(x: np.ndarray, n: np.ndarray, cases: list[tuple[np.ndarray, np.ndarray]],
                first: np.ndarray, second: np.ndarray,
                step: Callable[[int, np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """0 where n < 0, then the first of `cases` (where, value) that holds, else the
    recurrence; the recurrence runs only as far as the entries left for it need."""
    taken = n < 0
    for where, _ in cases:
        taken = taken | where
    recurrence = _by_recurrence(np.where(taken, 0.0, n), first, second, step)
    conditions = [n < 0] + [where for where, _ in cases]
    return np.select(conditions, [0.0] + [value for _, value in cases], recurrence)


def _odd_sign(n: np.ndarray) -> np.ndarray:
    """(-1) ** n."""
    return np.where(n % 2 == 0, 1.0, -1.0)


def _chebyshev_t(x: np.ndarray, n: np.ndarray, trigonometric_past: int) -> np.ndarray:
    """T_n(x) = cos(n acos x): T_(k+1) = 2x T_k - T_(k-1)."""
    n = _degrees(n)
    inside = (n > trigonometric_past) & (np.abs(x) < 1)
    return _polynomial(x, n, [(np.abs(x) == 1, np.where(x > 0, 1.0, _odd_sign(n))),
                              (inside, np.cos(n * np.arccos(x)))],
                       np.ones_like(x), x, lambda k, p, q: (x + x) * q - p)


def _chebyshev_u(x: np.ndarray, n: np.ndarray, trigonometric_past: int) -> np.ndarray:
    """U_n(x) = sin((n + 1) t) / sin t, x = cos t: U_(k+1) = 2x U_k - U_(k-1)."""
    n = _degrees(n)
    t = np.arccos(x)
    inside = (n > trigonometric_past) & (np.abs(x) < 1)
    trigonometric = np.where(np.sin(t) != 0, np.sin((n + 1) * t) / np.sin(t),
                             (n + 1) * np.cos((n + 1) * t))
    return _polynomial(x, n, [(np.abs(x) == 1, np.where(x > 0, 1.0, _odd_sign(n)) * (n + 1)),
                              (inside, trigonometric)],
                       np.ones_like(x), x + x, lambda k, p, q: (x + x) * q - p)


def _chebyshev_v(x: np.ndarray, n: np.ndarray, trigonometric_past: int) -> np.ndarray:
    """V_n(x) = cos((n + 1/2) t) / cos(t / 2), x = cos t: V_(k+1) = 2x V_k - V_(k-1)."""
    n = _degrees(n)
    t = np.arccos(x)
    inside = (n > trigonometric_past) & (np.abs(x) < 1)
    at_minus_1 = _odd_sign(n) * (n + n + 1)
    trigonometric = np.where(np.sin(t / 2) != 1, np.cos((n + 0.5) * t) / np.cos(t / 2),
                             at_minus_1)
    return _polynomial(x, n, [(np.abs(x) == 1, np.where(x > 0, 1.0, at_minus_1)),
                              (inside, trigonometric)],
                       np.ones_like(x), x + x - 1, lambda k, p, q: (x + x) * q - p)


def _chebyshev_w(x: np.ndarray, n: np.ndarray, trigonometric_past: int) -> np.ndarray:
    """W_n(x) = sin((n + 1/2) t) / sin(t / 2), x = cos t: W_(k+1) = 2x W_k - W_(k-1)."""
    n = _degrees(n)
    t = np.arccos(x)
    inside = (n > trigonometric_past) & (np.abs(x) < 1)
    at_ends = np.where(x > 0, n + n + 1, _odd_sign(n))
    trigonometric = np.where(np.cos(t / 2) != 1, np.sin((n + 0.5) * t) / np.sin(t / 2),
                             at_ends)
    return _polynomial(x, n, [(np.abs(x) == 1, at_ends), (inside, trigonometric)],
                       np.ones_like(x), x + x + 1, lambda k, p, q: (x + x) * q - p)


@_entrywise_pair
def chebyshev_polynomial_t(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_t(x, n, 6)


@_entrywise_pair
def chebyshev_polynomial_u(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_u(x, n, 8)


@_entrywise_pair
def chebyshev_polynomial_v(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_v(x, n, 8)


@_entrywise_pair
def chebyshev_polynomial_w(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_w(x, n, 8)


# the shifted kinds, P*_n(x) = P_n(2x - 1) on [0, 1]: PyTorch takes their trigonometric forms
# past n = 6, and their values at x = 0 and 1 exactly, as at 2x - 1 = -1 and 1
@_entrywise_pair
def shifted_chebyshev_polynomial_t(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_t(x + x - 1, n, 6)


@_entrywise_pair
def shifted_chebyshev_polynomial_u(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_u(x + x - 1, n, 6)


@_entrywise_pair
def shifted_chebyshev_polynomial_v(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_v(x + x - 1, n, 6)


@_entrywise_pair
def shifted_chebyshev_polynomial_w(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _chebyshev_w(x + x - 1, n, 6)


@_entrywise_pair
def hermite_polynomial_h(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The physicists' Hermite polynomial: H_(k+1) = 2x H_k - 2k H_(k-1)."""
    return _polynomial(x, _degrees(n), [], np.ones_like(x), x + x,
                       lambda k, p, q: (x + x) * q - (k + k) * p)


@_entrywise_pair
def hermite_polynomial_he(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The probabilists' Hermite polynomial: He_(k+1) = x He_k - k He_(k-1)."""
    return _polynomial(x, _degrees(n), [], np.ones_like(x), x,
                       lambda k, p, q: x * q - k * p)


@_entrywise_pair
def laguerre_polynomial_l(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """L_(k+1) = ((2k + 1 - x) L_k - k L_(k-1)) / (k + 1); 1 at x = 0."""
    return _polynomial(x, _degrees(n), [(x == 0, 1.0)], np.ones_like(x), 1 - x,
                       lambda k, p, q: ((k + k + 1 - x) * q - k * p) / (k + 1))


@_entrywise_pair
def legendre_polynomial_p(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """P_(k+1) = ((2k + 1) x P_k - k P_(k-1)) / (k + 1); +-1 at x = +-1."""
    n = _degrees(n)
    return _polynomial(x, n, [(np.abs(x) == 1, np.where(x > 0, 1.0, _odd_sign(n)))],
                       np.ones_like(x), x, lambda k, p, q: ((k + k + 1) * x * q - k * p) / (k + 1))


_SINC_SERIES_BELOW = 0.5  # below it sin(x) / x loses digits to the cancellation in sin's


@_entrywise
def spherical_bessel_j0(x: np.ndarray) -> np.ndarray:
    """j_0(x) = sin(x) / x (A&S 10.1.11): 1 at 0, 0 at +-inf; near 0 its Taylor series, the
    sum over k of (-x^2)^k / (2k + 1)!, to k = 8 (the next term is below 1e-17 there)."""
    square = x * x
    series = np.zeros_like(x)
    for k in range(8, -1, -1):  # Horner's scheme in x^2
        series = series * square + (-1) ** k / math.factorial(2 * k + 1)
    return np.where(np.abs(x) < _SINC_SERIES_BELOW, series,
                    np.where(np.isinf(x), 0.0, np.sin(x) / x))


# --------------------------------------------------------------------------------------------
# Bessel functions of the first kind J_0, J_1 and the modified ones of the second kind K_0,
# K_1, each from the representation that is accurate where it is used: the power series
# (A&S 9.1.10, 9.6.13) near 0; the trapezoidal rule on Bessel's integral, exact up to terms of
# order N (J: A&S 9.1.21, its integrand periodic) or to the rounding (K: A&S 9.6.24, its
# integrand analytic and falling double-exponentially) in between; Hankel's asymptotic
# expansion (A&S 9.2.5, 9.2.9-10) for J far out, whose smallest term (near k = x) is below
# e^-2x.
# --------------------------------------------------------------------------------------------
_J_SERIES_BELOW = 2.0  # below it the series' terms are below 1 and barely cancel
_J_ASYMPTOTIC_FROM = 25.0  # e^-50: the expansion is exact to float64 rounding from here
_J_NODES = 64  # the rule's error, of order J_64(25), is below 1e-19
_K_SERIES_UP_TO = 1.0
_K_NODES = 48
_K_EXPONENT_CUT = 45.0  # the integrand is cut where it is below e^-45
_EULER_GAMMA = 0.57721566490153286061


def _bessel_j_series(order: int, x: np.ndarray) -> np.ndarray:
    """J_order(x) = the sum over k of (-1)^k (x/2)^(2k + order) / (k! (k + order)!)."""
    term = (x / 2) ** order
    total, minus_quarter_square = term.copy(), -x * x / 4
    for k in range(1, 18):  # at |x| < 2 the 18th term is below 1e-30 of the first
        term = term * minus_quarter_square / (k * (k + order))
        total = total + term
    return total


def _bessel_j_integral(order: int, x: np.ndarray) -> np.ndarray:
    """J_order(x) = (1 / 2pi) times the integral over a period of cos(order t - x sin t), by
    the trapezoidal rule on _J_NODES points."""
    total = np.zeros_like(x)
    for t in np.arange(_J_NODES) * (2 * np.pi / _J_NODES):  # node by node: memory as x's
        total += np.cos(order * t - x * np.sin(t))
    return total / _J_NODES


def _bessel_j_asymptotic(order: int, x: np.ndarray) -> np.ndarray:
    """sqrt(2 / (pi x)) (P cos chi - Q sin chi), chi = x - (order / 2 + 1/4) pi, P and Q the
    even and odd terms of the sum over k of a_k / x^k with alternating signs in pairs,
    a_k = (4 order^2 - 1^2)(4 order^2 - 3^2)...(4 order^2 - (2k - 1)^2) / (k! 8^k)."""
    mu = 4 * order * order
    P, Q, term = np.ones_like(x), np.zeros_like(x), np.ones_like(x)
    for k in range(1, 60):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        if k % 2:
            Q = Q + (-1) ** (k // 2) * term
        else:
            P = P + (-1) ** (k // 2) * term
    chi = x - (order / 2 + 0.25) * np.pi
    return np.sqrt(2 / (np.pi * x)) * (P * np.cos(chi) - Q * np.sin(chi))


def _bessel_j(order: int, x: np.ndarray) -> np.ndarray:
    """J_order(x) for order 0 (even) or 1 (odd); NaN at +-inf, as PyTorch's."""
    t = np.abs(x)
    out = np.full_like(t, np.nan)
    small, large = t < _J_SERIES_BELOW, t >= _J_ASYMPTOTIC_FROM
    middle = ~small & ~large & ~np.isnan(t)
    out[small] = _bessel_j_series(order, t[small])
    out[middle] = _bessel_j_integral(order, t[middle])
    out[large] = _bessel_j_asymptotic(order, t[large])  # cos(inf) is NaN
    return np.where(np.signbit(x), -out, out) if order == 1 else out  # J_1(-0) = -0


@_entrywise
def bessel_j0(x: np.ndarray) -> np.ndarray:
    return _bessel_j(0, x)


@_entrywise
def bessel_j1(x: np.ndarray) -> np.ndarray:
    return _bessel_j(1, x)


def _bessel_k_series(order: int, x: np.ndarray) -> np.ndarray:
    """K_0(x) = -(ln(x/2) + gamma) I_0(x) + the sum over k >= 1 of H_k (x^2/4)^k / k!^2;
    K_1(x) = 1/x + ln(x/2) I_1(x) - x/4 times the sum over k >= 0 of
    (psi(k + 1) + psi(k + 2)) (x^2/4)^k / (k! (k + 1)!), psi(k + 1) = H_k - gamma."""
    quarter_square = x * x / 4
    term, total, harmonic = np.ones_like(x), np.zeros_like(x), 0.0  # harmonic: H_k
    for k in range(14):  # at x <= 1 the 14th term is below 1e-25
        if k:
            term = term * quarter_square / (k * (k + order))
            harmonic += 1 / k
        weight = harmonic if order == 0 else 2 * harmonic + 1 / (k + 1) - 2 * _EULER_GAMMA
        total = total + weight * term
    if order == 0:
        return -(np.log(x / 2) + _EULER_GAMMA) * i0(x) + total
    return 1 / x + np.log(x / 2) * i1(x) - x / 4 * total


def _bessel_k_scaled_integral(order: int, x: np.ndarray) -> np.ndarray:
    """e^x K_order(x) = the integral over t >= 0 of exp(-2x sinh(t/2)^2) cosh(order t) (as
    cosh t - 1 = 2 sinh(t/2)^2, without the cancellation), by the trapezoidal rule up to
    where the exponent reaches _K_EXPONENT_CUT."""
    step = 2 * np.arcsinh(np.sqrt(_K_EXPONENT_CUT / (2 * x))) / _K_NODES
    total = np.full_like(x, 0.5)  # the node at t = 0, weighed 1/2
    for node in range(1, _K_NODES + 1):  # node by node: memory as x's
        t = node * step
        total += np.exp(-2 * x * np.sinh(t / 2) ** 2) * np.cosh(order * t)
    return step * total


def _bessel_k_scaled(order: int, x: np.ndarray) -> np.ndarray:
    """e^x K_order(x): inf at 0, NaN below 0 (and at NaN), 0 at inf."""
    out = np.where(x == 0, np.inf, np.where(x == np.inf, 0.0, np.nan))
    small = (x > 0) & (x <= _K_SERIES_UP_TO)
    rest = (x > _K_SERIES_UP_TO) & (x < np.inf)
    out[small] = _bessel_k_series(order, x[small]) * np.exp(x[small])
    out[rest] = _bessel_k_scaled_integral(order, x[rest])
    return out


@_entrywise
def modified_bessel_k0(x: np.ndarray) -> np.ndarray:
    return _bessel_k_scaled(0, x) * np.exp(-x)


@_entrywise
def modified_bessel_k1(x: np.ndarray) -> np.ndarray:
    return _bessel_k_scaled(1, x) * np.exp(-x)


@_entrywise
def scaled_modified_bessel_k0(x: np.ndarray) -> np.ndarray:
    return _bessel_k_scaled(0, x)


@_entrywise
def scaled_modified_bessel_k1(x: np.ndarray) -> np.ndarray:
    return _bessel_k_scaled(1, x)
