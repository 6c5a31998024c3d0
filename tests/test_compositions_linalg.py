"""Linear algebra (`minigrad.linalg` and the torch.* spellings: det, inverse, qr, svd, ...):
each against a numpy reference, gradient-checked in float64 on primitives alone, float32 kept,
and against PyTorch (values and gradients) when it is installed; then the edges PyTorch
defines: singular and indefinite matrices, repeated eigenvalues, empty batches and 0 x 0
matrices, and the error classes of misuse.

Inputs are random, made invertible (+ 4 I), symmetric (x + x.T) or positive-definite
(x x.T + 3 I) inside each case, so gradcheck perturbs the raw entries. Eigenvectors and
singular vectors are defined up to sign (PyTorch's documentation warns that they differ between
implementations), so they are compared through products that do not depend on the signs:
V diag(c) V.T, U diag(c) Vh.
"""
import importlib
import math
import re
import warnings

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, linalg

from tests.helpers import assert_raises_like_torch, torch_or_skip
from tests.op_checks import (Case, check_against_torch, check_float32, check_forward,
                             check_gradcheck)

TOL = dict(rtol=1e-10, atol=1e-10)
# the torch.* spellings (torch.qr, torch.cholesky, torch.frobenius_norm, ...) are compared
# with, though deprecated
pytestmark = [
    pytest.mark.filterwarnings(r"ignore:torch\.\w+ is deprecated:UserWarning"),
    pytest.mark.filterwarnings(r"ignore:.*_norm is deprecated and it is just left:UserWarning"),
]


def case(make, reference, shapes, **settings):
    """A Case whose fn is make(minigrad, *tensors) and whose PyTorch twin is
    make(torch, *tensors): the same lines, each library's linalg."""
    return Case(lambda *xs: make(minigrad, *xs), reference, shapes,
                torch_fn=lambda *xs: make(importlib.import_module("torch"), *xs),
                tolerance=TOL, **settings)


def _mT(x):
    return np.swapaxes(x, -1, -2)


# the same conditioning in both libraries and in numpy
def invertible(lib, x):
    return x + 4 * lib.eye(x.shape[-1], dtype=x.dtype)


def symmetric(x):
    return x + x.mT if not isinstance(x, np.ndarray) else x + _mT(x)


def positive_definite(lib, x):
    return x @ x.mT + 3 * lib.eye(x.shape[-1], dtype=x.dtype)


def _invertible(x):
    return x + 4 * np.eye(x.shape[-1])


def _positive_definite(x):
    return x @ _mT(x) + 3 * np.eye(x.shape[-1])


def weights(n):
    """Distinct weights for the gauge-free products."""
    return np.linspace(-1.0, 2.0, n)


def eigh_gauge_free(lib, x, UPLO="L"):
    w, V = lib.linalg.eigh(symmetric(x), UPLO=UPLO)
    return w, (V * lib.tensor(weights(w.shape[-1]), dtype=x.dtype)) @ V.mT


def _eigh_gauge_free(x):
    w, V = np.linalg.eigh(symmetric(x))
    return w, (V * weights(w.shape[-1])) @ _mT(V)


def svd_gauge_free(lib, x):
    U, S, Vh = lib.linalg.svd(x, full_matrices=False)
    c = lib.tensor(weights(S.shape[-1]), dtype=x.dtype)
    return S, (U * c) @ Vh, (U * c) @ U.mT, (Vh.mT * c) @ Vh


def _svd_gauge_free(x):
    U, S, Vh = np.linalg.svd(x, full_matrices=False)
    c = weights(S.shape[-1])
    return S, (U * c) @ Vh, (U * c) @ _mT(U), (_mT(Vh) * c) @ Vh


def torch_svd_gauge_free(lib, x):
    """The same products from torch.svd's older form (U, S, V) and Tensor.svd."""
    U, S, V = x.svd()
    c = lib.tensor(weights(S.shape[-1]), dtype=x.dtype)
    return S, (U * c) @ V.mT, (V * c) @ V.mT


def _pinv(x, rtol=None):
    """V diag(1/s) U.T from numpy's SVD, the singular values below rtol * the largest (rtol
    eps * max(m, n) by default) dropped."""
    U, s, Vh = np.linalg.svd(x, full_matrices=False)
    rtol = np.finfo(x.dtype).eps * max(x.shape[-2:]) if rtol is None else rtol
    keep = s > rtol * s.max(axis=-1, keepdims=True)
    return (_mT(Vh) * np.where(keep, 1 / np.where(keep, s, 1), 0)[..., None, :]) @ _mT(U)


def _matrix_norm(x, ord):
    """By the definitions: sums of |x| over columns (1) or rows (inf), singular values."""
    if ord == "fro":
        return np.sqrt((x * x).sum(axis=(-2, -1)))
    s = np.linalg.svd(x, compute_uv=False)
    if ord == "nuc":
        return s.sum(-1)
    if abs(ord) == 2:
        return s.max(-1) if ord > 0 else s.min(-1)
    sums = np.abs(x).sum(axis=-2 if abs(ord) == 1 else -1)
    return sums.max(-1) if ord > 0 else sums.min(-1)


def _power(x, n):
    """x multiplied by itself n times, one product after another."""
    out = np.broadcast_to(np.eye(x.shape[-1]), x.shape)
    for _ in range(abs(n)):
        out = out @ (x if n > 0 else np.linalg.inv(x))
    return out


def _torch_cond_by_definition(a, p):
    torch = importlib.import_module("torch")
    a = invertible(torch, a)
    return torch.linalg.matrix_norm(a, p) * torch.linalg.matrix_norm(torch.linalg.inv(a), p)


def _exp_by_taylor(x):
    """exp of each matrix by its Taylor series (40 terms) of x / 2**8, squared 8 times."""
    term = total = np.broadcast_to(np.eye(x.shape[-1]), x.shape)
    for k in range(1, 40):
        term = term @ (x / 2 ** 8) / k
        total = total + term
    for _ in range(8):
        total = total @ total
    return total


def _lstsq(a, b):
    """The least-norm least-squares solution, from pinv (full rank here)."""
    return _pinv(a) @ b


def _lu_factor(a):
    """Gaussian elimination with partial pivoting, row by row (Golub and Van Loan's Algorithm
    3.4.1): LU packed as LAPACK's getrf, and its 1-based int32 pivots."""
    m, n = a.shape[-2:]
    k = min(m, n)
    packed, pivots = a.reshape(-1, m, n).copy(), np.zeros((a.size // (m * n), k), np.int32)
    for M, swaps in zip(packed, pivots):
        for i in range(k):
            p = i + int(np.argmax(np.abs(M[i:, i])))
            swaps[i] = p + 1
            M[[i, p]] = M[[p, i]]
            for row in range(i + 1, m):
                M[row, i] /= M[i, i]
                M[row, i + 1:] -= M[row, i] * M[i, i + 1:]
    return packed.reshape(a.shape), pivots.reshape(*a.shape[:-2], k)


def _lu(a):
    """(P, L, U) with a = P L U, from _lu_factor."""
    packed, pivots = _lu_factor(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    P = np.zeros((*a.shape[:-2], m, m))
    for index in np.ndindex(a.shape[:-2]):
        rows = list(range(m))
        for i, p in enumerate(pivots[index] - 1):
            rows[i], rows[p] = rows[p], rows[i]
        P[index][rows, range(m)] = 1  # row i of P.T a is row rows[i] of a
    return P, np.tril(packed[..., :k], -1) + np.eye(m, k), np.triu(packed[..., :k, :])


MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]

CASES = {
    "solve_batched_broadcast": case(lambda lib, a, b: lib.linalg.solve(invertible(lib, a), b),
                                    lambda a, b: np.linalg.solve(_invertible(a), b),
                                    [(2, 3, 3), (3, 2)]),
    "solve_vectors": case(lambda lib, a, b: lib.linalg.solve(invertible(lib, a), b),
                          lambda a, b: np.linalg.solve(_invertible(a), b[..., None])[..., 0],
                          [(2, 3, 3), (2, 3)]),
    "solve_left_false": case(lambda lib, a, b: lib.linalg.solve(invertible(lib, a), b,
                                                                left=False),
                             lambda a, b: _mT(np.linalg.solve(_mT(_invertible(a)), _mT(b))),
                             [(3, 3), (2, 3)]),
    "inv": case(lambda lib, a: lib.linalg.inv(invertible(lib, a)),
                lambda a: np.linalg.inv(_invertible(a)), [(2, 3, 3)]),
    "inv_1x1": case(lambda lib, a: lib.linalg.inv(a), lambda a: 1 / a, [(1, 1)]),
    "det": case(lambda lib, a: lib.linalg.det(a), np.linalg.det, [(2, 3, 3)]),
    "det_1x1": case(lambda lib, a: lib.linalg.det(a), lambda a: a[..., 0, 0], [(4, 1, 1)]),
    "slogdet": case(lambda lib, a: tuple(lib.linalg.slogdet(a)), np.linalg.slogdet,
                    [(2, 4, 4)]),
    "solve_triangular_upper": case(
        lambda lib, a, b: lib.linalg.solve_triangular(invertible(lib, a), b, upper=True),
        lambda a, b: np.linalg.solve(np.triu(_invertible(a)), b), [(2, 3, 3), (3, 4)]),
    "solve_triangular_lower_unit_right": case(
        lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=False, left=False,
                                                      unitriangular=True),
        lambda a, b: _mT(np.linalg.solve(_mT(np.tril(a, -1) + np.eye(3)), _mT(b))),
        [(3, 3), (2, 2, 3)]),
    "lu_factor_square": case(lambda lib, a: tuple(lib.linalg.lu_factor(a)), _lu_factor,
                             [(2, 4, 4)]),
    "lu_factor_wide": case(lambda lib, a: tuple(lib.linalg.lu_factor(a)), _lu_factor, [(3, 5)]),
    "lu_factor_tall": case(lambda lib, a: tuple(lib.linalg.lu_factor(a)), _lu_factor,
                           [(2, 5, 3)]),
    "lu_square": case(lambda lib, a: tuple(lib.linalg.lu(a)), _lu, [(2, 3, 3)]),
    "lu_wide": case(lambda lib, a: tuple(lib.linalg.lu(a)), _lu, [(2, 3, 4)]),
    "lu_tall": case(lambda lib, a: tuple(lib.linalg.lu(a)), _lu, [(4, 2)]),
    "lu_unpack": case(lambda lib, a: tuple(lib.lu_unpack(*lib.linalg.lu_factor(a))), _lu,
                      [(2, 4, 3)]),
    # the gradient of A reaches through lu_factor's LU too: that of solve(A, B)
    "lu_solve": case(lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b),
                     np.linalg.solve, [(2, 3, 3), (3, 2)]),
    "lu_solve_adjoint": case(
        lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b, adjoint=True),
        lambda a, b: np.linalg.solve(_mT(a), b), [(3, 3), (2, 3, 2)]),
    "lu_solve_left_false": case(
        lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b, left=False),
        lambda a, b: _mT(np.linalg.solve(_mT(a), _mT(b))), [(2, 3, 3), (2, 4, 3)]),
    "lu_solve_left_false_adjoint": case(
        lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b, left=False,
                                              adjoint=True),
        lambda a, b: _mT(np.linalg.solve(a, _mT(b))), [(3, 3), (1, 3)]),
    "cholesky": case(lambda lib, a: lib.linalg.cholesky(positive_definite(lib, a)),
                     lambda a: np.linalg.cholesky(_positive_definite(a)), [(2, 4, 4)]),
    "cholesky_upper": case(lambda lib, a: lib.linalg.cholesky(positive_definite(lib, a),
                                                              upper=True),
                           lambda a: _mT(np.linalg.cholesky(_positive_definite(a))), [(3, 3)]),
    # torch.cholesky_solve and cholesky_inverse take the factor; A's gradient reaches through it
    "cholesky_solve": case(
        lambda lib, a, b: lib.cholesky_solve(b, lib.linalg.cholesky(positive_definite(lib, a))),
        lambda a, b: np.linalg.solve(_positive_definite(a), b), [(2, 3, 3), (3, 2)]),
    "cholesky_solve_upper": case(
        lambda lib, a, b: b.cholesky_solve(lib.linalg.cholesky(positive_definite(lib, a)).mT,
                                           True),
        lambda a, b: np.linalg.solve(_positive_definite(a), b), [(3, 3), (2, 3, 1)]),
    "cholesky_inverse": case(
        lambda lib, a: lib.cholesky_inverse(lib.linalg.cholesky(positive_definite(lib, a))),
        lambda a: np.linalg.inv(_positive_definite(a)), [(2, 3, 3)]),
    "cholesky_inverse_upper": case(
        lambda lib, a: lib.linalg.cholesky(positive_definite(lib, a)).mT.cholesky_inverse(True),
        lambda a: np.linalg.inv(_positive_definite(a)), [(4, 4)]),
    "torch_lu_solve": case(lambda lib, a, b: lib.lu_solve(b, *lib.linalg.lu_factor(a)),
                           np.linalg.solve, [(2, 3, 3), (2, 3, 2)]),
    "torch_lu": case(lambda lib, a: tuple(lib.lu_unpack(*lib.lu(a))), _lu, [(2, 4, 3)]),
    "frobenius_norm": case(lambda lib, a: lib.frobenius_norm(a, (0, 2)),
                           lambda a: np.sqrt((a ** 2).sum((0, 2))), [(2, 3, 4)]),
    "frobenius_norm_keepdim": case(lambda lib, a: lib.frobenius_norm(a, 1, True),
                                   lambda a: np.sqrt((a ** 2).sum(1, keepdims=True)), [(2, 3)]),
    "nuclear_norm": case(lambda lib, a: lib.nuclear_norm(a),
                         lambda a: np.linalg.norm(a, "nuc", (-2, -1)), [(2, 3, 4)]),
    "nuclear_norm_dim": case(lambda lib, a: lib.nuclear_norm(a, (0, 2), True),
                             lambda a: np.linalg.norm(a, "nuc", (0, 2), True), [(3, 2, 4)]),
    "qr_tall": case(lambda lib, a: tuple(lib.linalg.qr(a)), np.linalg.qr, [(2, 5, 3)]),
    "qr_wide": case(lambda lib, a: tuple(lib.linalg.qr(a)), np.linalg.qr, [(3, 5)]),
    "qr_complete_wide": case(lambda lib, a: tuple(lib.linalg.qr(a, mode="complete")),
                             lambda a: np.linalg.qr(a, mode="complete"), [(2, 3, 4)]),
    "eigh": case(eigh_gauge_free, _eigh_gauge_free, [(2, 4, 4)]),
    "eigh_upper": case(lambda lib, a: eigh_gauge_free(lib, a, "U"), _eigh_gauge_free, [(3, 3)]),
    "eigvalsh": case(lambda lib, a: lib.linalg.eigvalsh(symmetric(a)),
                     lambda a: np.linalg.eigvalsh(symmetric(a)), [(2, 4, 4)]),
    "svd_tall": case(svd_gauge_free, _svd_gauge_free, [(2, 5, 3)]),
    "svd_wide": case(svd_gauge_free, _svd_gauge_free, [(3, 5)]),
    "svd_square": case(svd_gauge_free, _svd_gauge_free, [(2, 4, 4)]),
    "svdvals": case(lambda lib, a: lib.linalg.svdvals(a),
                    lambda a: np.linalg.svd(a, compute_uv=False), [(2, 3, 5)]),
    "pinv_tall": case(lambda lib, a: lib.linalg.pinv(a), _pinv, [(2, 5, 3)]),
    "pinv_wide": case(lambda lib, a: lib.linalg.pinv(a), _pinv, [(3, 4)]),
    "pinv_atol_rtol": case(lambda lib, a, b: lib.linalg.pinv(a @ b, atol=1e-8, rtol=0.05),
                           lambda a, b: _pinv(a @ b, 0.05), [(4, 2), (2, 5)]),
    "pinv_hermitian": case(lambda lib, a: lib.linalg.pinv(symmetric(a), hermitian=True),
                           lambda a: _pinv(symmetric(a)), [(2, 4, 4)]),
    # the singular values that lstsq returns have no gradient, as PyTorch's
    "lstsq_tall": case(lambda lib, a, b: tuple(lib.linalg.lstsq(a, b, driver="gelsd")[:3]),
                       lambda a, b: (_lstsq(a, b), ((a @ _lstsq(a, b) - b) ** 2).sum(-2),
                                     np.array([3, 3])), [(2, 5, 3), (2, 5, 2)]),
    "lstsq_singular_values": case(
        lambda lib, a, b: lib.linalg.lstsq(a, b, driver="gelss").singular_values,
        lambda a, b: np.linalg.svd(a, compute_uv=False), [(2, 5, 3), (2, 5, 2)],
        differentiable=False),
    "lstsq_wide_vector": case(lambda lib, a, b: lib.linalg.lstsq(a, b).solution,
                              lambda a, b: _lstsq(a, b[:, None])[:, 0], [(3, 5), (3,)]),
    "matrix_power_3": case(lambda lib, a: lib.linalg.matrix_power(a, 3),
                           lambda a: _power(a, 3), [(2, 3, 3)]),
    "matrix_power_minus_2": case(lambda lib, a: lib.linalg.matrix_power(invertible(lib, a), -2),
                                 lambda a: _power(_invertible(a), -2), [(3, 3)]),
    "matrix_power_0": case(lambda lib, a: lib.linalg.matrix_power(a, 0),
                           lambda a: _power(a, 0), [(2, 3, 3)]),
    "matrix_exp_small": case(lambda lib, a: lib.linalg.matrix_exp(0.1 * a),
                             lambda a: _exp_by_taylor(0.1 * a), [(2, 3, 3)]),
    "matrix_exp_scaled_and_squared": case(lambda lib, a: lib.linalg.matrix_exp(4 * a),
                                          lambda a: _exp_by_taylor(4 * a), [(2, 4, 4)]),
    "x.matrix_exp": case(lambda lib, a: a.matrix_exp(), _exp_by_taylor, [(1, 1)]),
    "multi_dot_vector_ends": case(lambda lib, *xs: lib.linalg.multi_dot(xs),
                                  lambda a, b, c, d: a @ b @ c @ d,
                                  [(3,), (3, 4), (4, 2), (2,)]),
    "multi_dot_matrices": case(lambda lib, *xs: lib.linalg.multi_dot(xs),
                               lambda a, b, c: a @ b @ c, [(2, 3), (3, 4), (4, 2)]),
    "cross": case(lambda lib, a, b: lib.linalg.cross(a, b), lambda a, b: np.cross(a, b),
                  [(2, 4, 3), (1, 4, 3)]),
    "matmul": case(lambda lib, a, b: lib.linalg.matmul(a, b), lambda a, b: a @ b,
                   [(2, 3, 4), (4, 2)]),
    "diagonal": case(lambda lib, a: lib.linalg.diagonal(a, offset=1),
                     lambda a: np.diagonal(a, 1, -2, -1), [(2, 3, 4)]),
    "vecdot_broadcast": case(lambda lib, a, b: lib.linalg.vecdot(a, b, dim=0),
                             lambda a, b: (a * b).sum(0), [(3,), (2, 3)]),
    "vector_norm": case(lambda lib, a: lib.linalg.vector_norm(a),
                        lambda a: np.sqrt((a * a).sum()), [(2, 3, 4)]),
    "vector_norm_3_dims_keepdim": case(
        lambda lib, a: lib.linalg.vector_norm(a, 3, dim=(0, 2), keepdim=True),
        lambda a: (np.abs(a) ** 3).sum(axis=(0, 2), keepdims=True) ** (1 / 3), [(2, 3, 4)]),
    "vector_norm_inf": case(lambda lib, a: lib.linalg.vector_norm(a, np.inf, dim=-1),
                            lambda a: np.abs(a).max(-1), [(2, 3, 4)], data="distinct"),
    **{f"matrix_norm_{ord}": case(lambda lib, a, ord=ord: lib.linalg.matrix_norm(a, ord),
                                  lambda a, ord=ord: _matrix_norm(a, ord), [(2, 3, 4)],
                                  data="distinct")
       for ord in MATRIX_ORDS},
    "matrix_norm_dims_keepdim": case(
        lambda lib, a: lib.linalg.matrix_norm(a, 1, dim=(2, 0), keepdim=True),
        lambda a: np.abs(a).sum(axis=2, keepdims=True).max(axis=0, keepdims=True),
        [(2, 3, 4)], data="distinct"),
    "norm_default": case(lambda lib, a: lib.linalg.norm(a), lambda a: np.sqrt((a * a).sum()),
                         [(2, 3, 4)]),
    "norm_2d_ord_2": case(lambda lib, a: lib.linalg.norm(a, 2), lambda a: _matrix_norm(a, 2),
                          [(3, 4)]),
    "norm_dim_int": case(lambda lib, a: lib.linalg.norm(a, 1, dim=1),
                         lambda a: np.abs(a).sum(1), [(2, 3, 4)]),
    "cond": case(lambda lib, a: lib.linalg.cond(a),
                 lambda a: (lambda s: s[..., 0] / s[..., -1])(np.linalg.svd(a, compute_uv=False)),
                 [(2, 3, 5)]),
    "cond_minus_2": case(lambda lib, a: lib.linalg.cond(a, -2),
                         lambda a: (lambda s: s[..., -1] / s[..., 0])(
                             np.linalg.svd(a, compute_uv=False)), [(4, 3)]),
    # PyTorch 2.13's own cond fails in backward for these orders (an in-place change of inv's
    # output), so the gradients are compared with its definition in torch; the values of
    # torch.linalg.cond itself in test_cond_of_a_singular_matrix_is_inf_in_a_batch_as_torch
    **{f"cond_{p}": Case(lambda a, p=p: linalg.cond(invertible(minigrad, a), p),
                         lambda a, p=p: _matrix_norm(_invertible(a), p) * _matrix_norm(
                             np.linalg.inv(_invertible(a)), p), [(2, 3, 3)], data="distinct",
                         torch_fn=lambda a, p=p: _torch_cond_by_definition(a, p), tolerance=TOL)
       for p in ["fro", "nuc", 1, -np.inf]},
    "matrix_rank_atol_negative": case(lambda lib, a: lib.linalg.matrix_rank(a, atol=-1.0),
                                      lambda a: np.array(3), [(3, 4)], differentiable=False),
    "matrix_rank_hermitian_rtol": case(
        lambda lib, a: lib.linalg.matrix_rank(a @ a.mT, hermitian=True, rtol=0.2),
        lambda a: (np.abs(np.linalg.eigvalsh(a @ _mT(a))) > 0.2 * np.abs(
            np.linalg.eigvalsh(a @ _mT(a))).max()).sum(), [(4, 2)], differentiable=False),
    "matrix_rank": case(lambda lib, a, b: lib.linalg.matrix_rank(a @ b),
                        lambda a, b: np.linalg.matrix_rank(a @ b), [(2, 4, 2), (2, 2, 4)],
                        differentiable=False),
    "vander": case(lambda lib, x: lib.linalg.vander(x), lambda x: x[..., None] ** np.arange(3),
                   [(2, 3)]),
    "vander_N": case(lambda lib, x: lib.linalg.vander(x, N=5),
                     lambda x: x[..., None] ** np.arange(5), [(3,)]),
    "tensorinv": case(lambda lib, a: lib.linalg.tensorinv(invertible(lib, a).reshape(2, 3, 2, 3),
                                                          ind=2),
                      lambda a: np.linalg.tensorinv(_invertible(a).reshape(2, 3, 2, 3), ind=2),
                      [(6, 6)]),
    "tensorinv_ind_1": case(lambda lib, a: lib.linalg.tensorinv(
        invertible(lib, a).reshape(6, 2, 3), ind=1),
        lambda a: np.linalg.tensorinv(_invertible(a).reshape(6, 2, 3), ind=1), [(6, 6)]),
    "tensorsolve": case(lambda lib, a, b: lib.linalg.tensorsolve(
        invertible(lib, a).reshape(2, 3, 6), b),
        lambda a, b: np.linalg.tensorsolve(_invertible(a).reshape(2, 3, 6), b), [(6, 6), (2, 3)]),
    "tensorsolve_dims": case(lambda lib, a, b: lib.linalg.tensorsolve(
        invertible(lib, a).reshape(3, 2, 2, 3), b, dims=(0, 2)),
        lambda a, b: np.linalg.tensorsolve(_invertible(a).reshape(3, 2, 2, 3), b, axes=(0, 2)),
        [(6, 6), (2, 3)]),
    "cholesky_ex": case(lambda lib, a: tuple(lib.linalg.cholesky_ex(positive_definite(lib, a))),
                        lambda a: (np.linalg.cholesky(_positive_definite(a)),
                                   np.zeros(2, np.int32)), [(2, 3, 3)]),
    "cholesky_ex_upper": case(
        lambda lib, a: tuple(lib.linalg.cholesky_ex(positive_definite(lib, a), upper=True)),
        lambda a: (_mT(np.linalg.cholesky(_positive_definite(a))), np.zeros((), np.int32)),
        [(3, 3)]),
    "inv_ex": case(lambda lib, a: tuple(lib.linalg.inv_ex(invertible(lib, a))),
                   lambda a: (np.linalg.inv(_invertible(a)), np.zeros(2, np.int32)),
                   [(2, 3, 3)]),
    "solve_ex": case(lambda lib, a, b: tuple(lib.linalg.solve_ex(invertible(lib, a), b)),
                     lambda a, b: (np.linalg.solve(_invertible(a), b), np.zeros(2, np.int32)),
                     [(2, 3, 3), (3, 2)]),
    "solve_ex_vector_left_false": case(
        lambda lib, a, b: tuple(lib.linalg.solve_ex(invertible(lib, a), b, left=False)),
        lambda a, b: (_mT(np.linalg.solve(_mT(_invertible(a)), _mT(b))),
                      np.zeros((), np.int32)), [(3, 3), (2, 3)]),
    "lu_factor_ex": case(lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)),
                         lambda a: (*_lu_factor(a), np.zeros(2, np.int32)), [(2, 4, 4)]),
    # the torch.* spellings, as Tensor methods
    "x.det": case(lambda lib, a: a.det(), np.linalg.det, [(2, 3, 3)]),
    "x.logdet": case(lambda lib, a: positive_definite(lib, a).logdet(),
                     lambda a: np.linalg.slogdet(_positive_definite(a))[1], [(2, 3, 3)]),
    "x.slogdet": case(lambda lib, a: tuple(a.slogdet()), np.linalg.slogdet, [(3, 3)]),
    "x.inverse": case(lambda lib, a: invertible(lib, a).inverse(),
                      lambda a: np.linalg.inv(_invertible(a)), [(3, 3)]),
    "x.cholesky": case(lambda lib, a: positive_definite(lib, a).cholesky(upper=True),
                       lambda a: _mT(np.linalg.cholesky(_positive_definite(a))), [(3, 3)]),
    "x.qr_complete": case(lambda lib, a: tuple(a.qr(some=False)),
                          lambda a: np.linalg.qr(a, mode="complete"), [(3, 3)]),
    "x.svd": case(torch_svd_gauge_free,
                  lambda a: (lambda S, USV, UU, VV: (S, USV, VV))(*_svd_gauge_free(a)),
                  [(2, 5, 3)]),
    "x.pinverse": case(lambda lib, a: a.pinverse(), lambda a: _pinv(a, 1e-15), [(4, 3)]),
    "x.matrix_power": case(lambda lib, a: a.matrix_power(2), lambda a: a @ a, [(2, 3, 3)]),
    "x.triangular_solve_transpose": case(
        lambda lib, b, a: b.triangular_solve(invertible(lib, a), transpose=True)[0],
        lambda b, a: np.linalg.solve(_mT(np.triu(_invertible(a))), b), [(2, 3, 2), (3, 3)]),
}
DIFFERENTIABLE = [name for name, c in CASES.items() if c.differentiable]


@pytest.mark.parametrize("name", list(CASES))
def test_matches_numpy(name):
    check_forward(CASES[name], fused=True)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradcheck_on_primitives_alone(name):
    check_gradcheck(CASES[name])


# matrix_exp computes float32 in float64 (its gradient, as its result, rounds once to float32)
@pytest.mark.parametrize("name", [name for name in DIFFERENTIABLE if "matrix_exp" not in name])
def test_keeps_float32(name):
    check_float32(CASES[name])


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    check_against_torch(CASES[name])


# --------------------------------------------------------------------------------------------
# Singular, indefinite and degenerate matrices
# --------------------------------------------------------------------------------------------
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


def test_lu_factor_of_a_singular_matrix_raises_and_lu_takes_it_as_torch():
    """PyTorch's lu_factor raises a RuntimeError naming U's first zero pivot (1-based; not its
    LinAlgError), linalg.lu returns the factors; a zero column's pivot is its first row, and
    the multipliers below a zero pivot stay 0, as LAPACK's."""
    torch = torch_or_skip()
    for matrices, zero in [(np.stack([np.eye(2), SINGULAR]), "U[2,2]"), (np.zeros((2, 2)),
                                                                           "U[1,1]")]:
        with pytest.raises(RuntimeError, match=re.escape(zero)):
            torch.linalg.lu_factor(torch.tensor(matrices))
        with pytest.raises(linalg.LinAlgError, match=re.escape(zero)):
            linalg.lu_factor(Tensor(matrices))
    a = np.array([[[0.0, 1.0, 2.0], [0.0, 3.0, 1.0], [0.0, 0.0, 5.0]], [SINGULAR[0].tolist()
                  + [1.0], SINGULAR[1].tolist() + [2.0], [0.0, 0.0, 0.0]]])
    for got, want in zip(linalg.lu(Tensor(a)), torch.linalg.lu(torch.tensor(a))):
        np.testing.assert_array_equal(got.data, want.numpy())



@pytest.mark.parametrize("a", [
    SINGULAR, np.stack([SINGULAR, [[1.0, 2.0], [3.0, 4.0]]]),  # one singular in a batch
    np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 1.0]]), np.array([[1.0, 2.0], [2.0, 4.0], [1.0, 2.0]])])
def test_lu_gradient_at_a_singular_matrix_is_nan_where_torchs_is(a):
    """The derivative does not exist there: backward gives NaN (it does not raise, as a solve
    with U's zero pivot would) in the columns that need U1^-1 (a wide matrix's other columns
    keep theirs), as PyTorch's, and leaves the other matrices of a batch alone."""
    torch = torch_or_skip()
    leaf, theirs = Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    m, n = a.shape[-2:]
    w = np.random.default_rng(4).standard_normal((*a.shape[:-2], m, min(m, n)))
    losses = []
    for lib, x in ((minigrad, leaf), (torch, theirs)):
        _, L, U = lib.linalg.lu(x)
        losses.append((L * lib.tensor(w)).sum() + U.sum())
    grads = minigrad.grad(losses[0], [leaf])[0], torch.autograd.grad(losses[1], theirs)[0].numpy()
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_lu_unpack_flags_and_pivot_checks_as_torch():
    """unpack_data=False gives empty L and U, unpack_pivots=False an empty P, in LU's dtype;
    pivots must be int32 (PyTorch's), between 1 and the number of rows."""
    torch = torch_or_skip()
    a = np.random.default_rng(3).standard_normal((2, 4, 3)).astype(np.float32)
    ours, theirs = linalg.lu_factor(Tensor(a)), torch.linalg.lu_factor(torch.tensor(a))
    assert ours.pivots.dtype == np.int32 and ours.pivots.shape == (2, 3)
    for flags in [dict(unpack_data=False), dict(unpack_pivots=False),
                  dict(unpack_data=False, unpack_pivots=False)]:
        for got, want in zip(minigrad.lu_unpack(*ours, **flags), torch.lu_unpack(*theirs, **flags)):
            assert got.shape == tuple(want.shape) and str(want.dtype) == f"torch.{got.dtype}"
            np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-6, atol=1e-6)
    for pivots in (theirs.pivots.long(), theirs.pivots * 0, theirs.pivots + 4):
        with pytest.raises(RuntimeError):
            torch.lu_unpack(theirs.LU, pivots)
        with pytest.raises(RuntimeError):
            minigrad.lu_unpack(ours.LU, Tensor(pivots.numpy()))


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.inv(lib.tensor(SINGULAR)),
    lambda lib: lib.linalg.solve(lib.tensor(SINGULAR), lib.tensor(SINGULAR[0])),
    lambda lib: lib.linalg.cholesky(lib.tensor(-np.eye(2))),
    lambda lib: lib.linalg.cholesky(lib.tensor(SINGULAR)),  # semi-definite is not enough
    lambda lib: lib.linalg.matrix_power(lib.tensor(SINGULAR), -1),
    lambda lib: lib.tensor(SINGULAR).inverse(),
])
def test_singular_and_indefinite_matrices_raise_linalg_error_as_torch(call):
    torch = torch_or_skip()
    with pytest.raises(torch.linalg.LinAlgError):
        call(torch)
    with pytest.raises(linalg.LinAlgError) as info:
        call(minigrad)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ValueError)


def test_det_of_a_singular_matrix_is_0_with_gradient_0_as_torch_in_a_batch():
    torch = torch_or_skip()
    batch = np.stack([SINGULAR, np.array([[2.0, 0.5], [0.0, 1.0]]), np.zeros((2, 2))])
    ours, theirs = Tensor(batch, requires_grad=True), torch.tensor(batch, requires_grad=True)
    out, expected = linalg.det(ours), torch.linalg.det(theirs)
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_slogdet_and_logdet_of_singular_and_negative_determinants():
    torch = torch_or_skip()
    batch = np.stack([SINGULAR, np.array([[0.0, 1.0], [1.0, 0.0]]), 2 * np.eye(2)])
    sign, logabsdet = linalg.slogdet(Tensor(batch, requires_grad=True))
    their_sign, their_log = torch.linalg.slogdet(torch.tensor(batch))
    np.testing.assert_array_equal(sign.data, their_sign.numpy())
    np.testing.assert_allclose(logabsdet.data, their_log.numpy(), rtol=1e-14)
    np.testing.assert_allclose(minigrad.logdet(Tensor(batch)).data,
                               torch.logdet(torch.tensor(batch)).numpy(), rtol=1e-14)  # -inf, NaN
    # minigrad's deliberate difference: gradient 0 at the singular matrix (PyTorch's is inf)
    x = Tensor(batch, requires_grad=True)
    linalg.slogdet(x).logabsdet.sum().backward()
    np.testing.assert_array_equal(x.grad[0], np.zeros((2, 2)))
    np.testing.assert_allclose(x.grad[1:], np.linalg.inv(batch[1:]).swapaxes(-1, -2))


@pytest.mark.parametrize("values", ["eigvalsh", "svdvals"])
def test_eigenvalue_and_singular_value_gradients_are_finite_where_they_repeat(values):
    """The values alone have a gradient at repeated values (the vectors do not): the identity
    plus a small perturbation's, as PyTorch's."""
    torch = torch_or_skip()
    x = np.diag([2.0, 2.0, 2.0, 1.0])
    ours, theirs = Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    weights_ = np.array([0.3, -1.0, 2.0, 0.5])
    (getattr(linalg, values)(ours) * weights_).sum().backward()
    (getattr(torch.linalg, values)(theirs) * torch.tensor(weights_)).sum().backward()
    assert np.isfinite(ours.grad).all()
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_reads_the_lower_triangle_or_with_upper_the_upper_as_torch(upper):
    """Regression: upper=True transposed the factor of the lower triangle, so a matrix whose
    triangles disagree gave another U than PyTorch's, which reads the upper one."""
    torch = torch_or_skip()
    rng = np.random.default_rng(8)
    spd = _positive_definite(rng.standard_normal((2, 3, 3)))
    unread = np.tril(np.full((3, 3), 7.0), -1)  # garbage in the triangle that is not read
    a = spd + (_mT(unread) if not upper else unread)
    ours, theirs = Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    out, expected = linalg.cholesky(ours, upper=upper), torch.linalg.cholesky(theirs, upper=upper)
    L = np.linalg.cholesky(spd)
    np.testing.assert_allclose(out.data, _mT(L) if upper else L, rtol=1e-12)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12)
    g = rng.standard_normal(a.shape)
    (out * g).sum().backward()
    (expected * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_cond_of_a_singular_matrix_is_inf_in_a_batch_as_torch():
    torch = torch_or_skip()
    batch = np.stack([SINGULAR, np.array([[2.0, 0.5], [0.0, 1.0]])])
    for p in ["fro", 1, np.inf]:
        np.testing.assert_allclose(linalg.cond(Tensor(batch), p).data,
                                   torch.linalg.cond(torch.tensor(batch), p).numpy(), rtol=1e-12)


def test_matrix_power_0_is_the_identity_with_gradient_0_as_torch():
    x = Tensor(np.arange(8.0).reshape(2, 2, 2), requires_grad=True)
    out = linalg.matrix_power(x, 0)
    np.testing.assert_array_equal(out.data, np.broadcast_to(np.eye(2), (2, 2, 2)))
    assert out.requires_grad
    out.sum().backward()
    np.testing.assert_array_equal(x.grad, np.zeros((2, 2, 2)))



@pytest.mark.parametrize("n", [0, 1, 3])
def test_matrix_power_of_integer_matrices_stays_integer_as_torch(n):
    a = np.array([[[1, 2], [3, 4]], [[0, -1], [5, 2]]])
    got = linalg.matrix_power(Tensor(a), n)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.data, [np.linalg.matrix_power(m, n) for m in a])
    torch = torch_or_skip()
    np.testing.assert_array_equal(got.data, torch.linalg.matrix_power(torch.tensor(a), n))

def test_qr_mode_r_gives_r_alone_and_refuses_backward_as_torch():
    torch = torch_or_skip()
    a = np.random.default_rng(3).standard_normal((4, 3))
    Q, R = linalg.qr(Tensor(a, requires_grad=True), mode="r")
    their_Q, their_R = torch.linalg.qr(torch.tensor(a), mode="r")
    assert Q.shape == tuple(their_Q.shape) == (0,)
    np.testing.assert_allclose(R.data, their_R.numpy(), rtol=1e-12, atol=1e-14)
    with pytest.raises(RuntimeError):
        R.sum().backward()


@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 5), (4, 4)])
def test_svd_full_matrices_completes_an_orthogonal_basis_with_the_reduced_gradient(shape):
    """U (m x m) and Vh (n x n) are orthogonal and reproduce A; the columns past min(m, n)
    are arbitrary (PyTorch's differ) and carry no gradient, so the gradient through the first
    ones is the reduced factorization's, as PyTorch's."""
    torch = torch_or_skip()
    a = np.random.default_rng(4).standard_normal(shape)
    m, n = shape[-2:]
    k = min(m, n)
    ours = Tensor(a, requires_grad=True)
    U, S, Vh = linalg.svd(ours)
    assert U.shape == shape[:-2] + (m, m) and Vh.shape == shape[:-2] + (n, n)
    np.testing.assert_allclose(U.data @ _mT(U.data), np.broadcast_to(np.eye(m), U.shape),
                               atol=1e-12)
    np.testing.assert_allclose(_mT(Vh.data) @ Vh.data, np.broadcast_to(np.eye(n), Vh.shape),
                               atol=1e-12)
    np.testing.assert_allclose((U.data[..., :k] * S.data[..., None, :]) @ Vh.data[..., :k, :],
                               a, atol=1e-12)
    theirs = torch.tensor(a, requires_grad=True)
    their_U, their_S, their_Vh = torch.linalg.svd(theirs)
    c = weights(k)
    ((U[..., :k] * c) @ Vh[..., :k, :]).sum().backward()
    ((their_U[..., :k] * torch.tensor(c)) @ their_Vh[..., :k, :]).sum().backward()
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), atol=1e-10)


def test_svd_and_svdvals_take_driver_none_as_torch():
    a = Tensor(np.array([[3.0, 0.0], [4.0, 5.0]]))
    np.testing.assert_allclose(linalg.svd(a, driver=None).S.data, linalg.svdvals(a).data)
    np.testing.assert_allclose(linalg.svdvals(a, driver=None).data, [3 * 5 ** 0.5, 5 ** 0.5],
                               rtol=1e-15)

def test_svd_without_vectors_gives_zero_u_and_v_as_torch_svd():
    torch = torch_or_skip()
    a = np.random.default_rng(5).standard_normal((2, 4, 3))
    U, S, V = minigrad.svd(Tensor(a), compute_uv=False)
    their_U, their_S, their_V = torch.svd(torch.tensor(a), compute_uv=False)
    for got, want in [(U, their_U), (S, their_S), (V, their_V)]:
        assert got.shape == tuple(want.shape)
        np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12)


def test_triangular_solve_returns_the_solution_and_a_copy_of_a_as_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(6)
    a, b = np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3), rng.standard_normal((3, 2))
    solution, coefficient = Tensor(b).triangular_solve(Tensor(a), unitriangular=True)
    their_solution, their_coefficient = torch.triangular_solve(torch.tensor(b), torch.tensor(a),
                                                               unitriangular=True)
    np.testing.assert_allclose(solution.data, their_solution.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(coefficient.data, their_coefficient.numpy())


def test_lstsq_outputs_follow_torch_for_each_driver():
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    for driver in [None, "gels", "gelsy", "gelsd", "gelss"]:
        ours = linalg.lstsq(Tensor(a), Tensor(b), driver=driver)
        theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        for got, want in zip(ours, theirs):
            assert got.shape == tuple(want.shape) and got.dtype.name == str(want.dtype)[6:]
            np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-10, atol=1e-12)
    # a vector B: residuals keep their dim of 1, as PyTorch's
    ours = linalg.lstsq(Tensor(a), Tensor(b[..., 0]), driver="gelsd")
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b[..., 0]), driver="gelsd")
    assert ours.residuals.shape == tuple(theirs.residuals.shape) == (2, 1)
    np.testing.assert_allclose(ours.residuals.data, theirs.residuals.numpy(), rtol=1e-10)
    # rank deficient: the least-norm solution and the rank, as gelsd
    ones = torch.ones(3, 2, dtype=torch.float64)
    theirs = torch.linalg.lstsq(ones, ones[:, :1], driver="gelsd")
    ours = linalg.lstsq(Tensor(ones.numpy()), Tensor(ones.numpy()[:, :1]), driver="gelsd")
    np.testing.assert_allclose(ours.solution.data, theirs.solution.numpy(), rtol=1e-12)
    assert ours.rank.item() == theirs.rank.item() == 1


def test_torch_lu_factors_singular_matrices_and_reports_them_in_infos_as_torch():
    torch = torch_or_skip()
    for data in [np.zeros((2, 2)), np.array([[0.0, 1.0], [0.0, 1.0]]),
                 np.array([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]])]:
        out = minigrad.lu(Tensor(data), get_infos=True)
        expected = torch.lu(torch.tensor(data), get_infos=True)
        for got, want in zip(out, expected):
            assert got.shape == tuple(want.shape) and str(want.dtype) == f"torch.{got.dtype}"
            np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12)


# PD, its 2nd leading minor singular, indefinite at order 2 and 3, NaN: potrf's infos 0, 2, 2,
# 3, 1
NOT_POSITIVE_DEFINITE = np.array([
    [[4.0, 2.0, 0.0], [2.0, 5.0, 0.0], [0.0, 0.0, 1.0]],
    [[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]],
    [[1.0, 2.0, 3.0], [2.0, 5.0, 1.0], [3.0, 1.0, -40.0]],
    [[math.nan, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
])
# invertible, singular at U[2,2], zero, singular at U[1,1] after no swap: getrf's infos 0, 2, 1, 1
SINGULAR_BATCH = np.array([[[2.0, 1.0], [1.0, 3.0]], SINGULAR, np.zeros((2, 2)),
                           [[0.0, 1.0], [0.0, 1.0]]])
# and with a NaN: info 0, an all-NaN inverse or solution (numpy's solve calls the first singular)
WITH_NAN = np.concatenate([SINGULAR_BATCH, [[[math.nan, 1.0], [1.0, 1.0]],
                                            [[1.0, math.nan], [1.0, 1.0]]]])
EX_CALLS = {
    "cholesky_ex": (lambda lib, a, **kw: lib.linalg.cholesky_ex(a, **kw), NOT_POSITIVE_DEFINITE),
    "cholesky_ex_upper": (lambda lib, a, **kw: lib.linalg.cholesky_ex(a.mT, upper=True, **kw),
                          NOT_POSITIVE_DEFINITE),
    "inv_ex": (lambda lib, a, **kw: lib.linalg.inv_ex(a, **kw), WITH_NAN),
    "solve_ex": (lambda lib, a, **kw: lib.linalg.solve_ex(a, lib.ones(3, 1, 2, 1, dtype=a.dtype),
                                                          **kw), WITH_NAN),
    "solve_ex_vector": (lambda lib, a, **kw: lib.linalg.solve_ex(a, lib.ones(2, dtype=a.dtype),
                                                                 **kw), WITH_NAN),
    "lu_factor_ex": (lambda lib, a, **kw: lib.linalg.lu_factor_ex(a, **kw), SINGULAR_BATCH),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(EX_CALLS))
def test_ex_variants_give_lapacks_infos_and_raise_with_check_errors_as_torch(name, dtype):
    """The infos of singular and indefinite matrices are torch's (LAPACK's) to the entry; where
    the info is 0 the result is torch's, where it is not, torch's is LAPACK's partial work and
    ours NaN (the factor, inverse or solution does not exist there); the LU that lu_factor_ex
    gives is defined for every matrix, and is torch's."""
    torch = torch_or_skip()
    call, data = EX_CALLS[name]
    ours = call(minigrad, Tensor(data.astype(dtype)))
    theirs = call(torch, torch.tensor(data.astype(dtype)))
    assert len(ours) == len(theirs) and all(hasattr(theirs, field) for field in ours._fields)
    info = ours.info.numpy()
    assert ours.info.dtype == np.int32 and theirs.info.dtype == torch.int32
    np.testing.assert_array_equal(info, theirs.info.numpy())
    assert info.any() and not info.all()
    for got, want in zip(ours[:-1], theirs[:-1]):
        assert str(want.dtype) == f"torch.{got.dtype}" and got.shape == tuple(want.shape)
    result, expected = ours[0].numpy(), theirs[0].numpy()
    if name == "lu_factor_ex":
        np.testing.assert_allclose(result, expected, rtol=1e-6)
        np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    else:  # each failed matrix (solve_ex_vector: vector) NaN, the others torch's
        entry_dims = 1 if name == "solve_ex_vector" else 2
        failed = np.broadcast_to((info != 0).reshape(info.shape + (1,) * entry_dims),
                                 result.shape)
        assert np.isnan(result[failed]).all()
        np.testing.assert_allclose(result[~failed], expected[~failed], rtol=1e-6)
    with pytest.raises(torch.linalg.LinAlgError if name != "lu_factor_ex" else RuntimeError) \
            as torch_error:
        call(torch, torch.tensor(data.astype(dtype)), check_errors=True)
    with pytest.raises(linalg.LinAlgError) as error:
        call(minigrad, Tensor(data.astype(dtype)), check_errors=True)
    assert str(error.value) == str(torch_error.value)


def test_ex_variants_gradients_are_torchs_and_0_in_the_failed_matrices():
    torch = torch_or_skip()
    for name in ["cholesky_ex", "inv_ex", "solve_ex"]:
        call, data = EX_CALLS[name]
        data = np.nan_to_num(data, nan=1.0)
        ours, theirs = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        result, info = call(minigrad, ours)
        failed = info.numpy() != 0
        mask = np.broadcast_to(failed[..., None, None], result.shape)
        minigrad.where(mask, 0.0, result).sum().backward()
        torch.where(torch.tensor(mask), 0.0, call(torch, theirs)[0]).sum().backward()
        np.testing.assert_array_equal(ours.grad.numpy()[failed], 0)
        np.testing.assert_allclose(ours.grad.numpy()[~failed], theirs.grad.numpy()[~failed],
                                   rtol=1e-10, atol=1e-12)


def test_vander_gradient_at_0_is_exact_as_torch():
    torch = torch_or_skip()
    data = np.array([[0.0, 2.0, -1.5], [0.0, 0.0, 3.0]])
    ours, theirs = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    linalg.vander(ours, N=4).sum().backward()
    torch.linalg.vander(theirs, N=4).sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
    for dtype in ["int32", "uint8", "float32"]:
        got = linalg.vander(Tensor(np.array([1, 2, 3], dtype=dtype)))
        want = torch.linalg.vander(torch.tensor(np.array([1, 2, 3], dtype=dtype)))
        assert str(want.dtype) == f"torch.{got.dtype}"
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.frobenius_norm(lib.ones(2, 2, 2), (0, 1, 2)),
    lambda lib, F: lib.frobenius_norm(lib.ones(2, 3, dtype=lib.int64), (0, 1)),
    lambda lib, F: lib.nuclear_norm(lib.ones(3)),
    lambda lib, F: lib.cholesky_solve(lib.ones(3, 2), lib.eye(2)),
    lambda lib, F: lib.cholesky_inverse(lib.ones(3)),
    lambda lib, F: lib.lu_solve(lib.ones(3, 1), *lib.linalg.lu_factor(lib.eye(2))),
])
def test_cholesky_solve_lu_and_the_norms_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# Empty batches and 0 x 0 matrices
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0, 3, 3), (0, 0), (2, 0, 0)])
@pytest.mark.parametrize("name", ["det", "inv", "slogdet", "cholesky", "qr", "eigh", "eigvalsh",
                                  "svd", "svdvals", "pinv", "matrix_rank", "matrix_norm",
                                  "matrix_exp", "lu_factor", "lu"])
def test_empty_batches_and_empty_matrices_as_torch(name, shape):
    torch = torch_or_skip()
    a = np.zeros(shape)
    ours = getattr(linalg, name)(Tensor(a))
    theirs = getattr(torch.linalg, name)(torch.tensor(a))
    ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
    for got, want in zip(ours, theirs):
        assert got.shape == tuple(want.shape)
        np.testing.assert_array_equal(got.data, want.numpy())  # det of 0 x 0: 1


@pytest.mark.parametrize("shape", [(2, 0, 3), (2, 3, 0), (0, 0)])
@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_matrix_norm_of_empty_matrices_as_torch(ord, shape):
    """The largest of no singular values, column sums or row sums is 0, as in PyTorch (the
    smallest of none raises IndexError in both)."""
    torch = torch_or_skip()

    def call(lib, F):
        return lib.linalg.matrix_norm(lib.zeros(*shape, dtype=lib.float64), ord)

    try:
        theirs = call(torch, None)
    except IndexError:
        assert_raises_like_torch(call)
        return
    np.testing.assert_array_equal(call(minigrad, None).data, theirs.numpy())


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (2, 0, 3)])
@pytest.mark.parametrize("p", [None, "fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_cond_of_empty_matrices_is_0_as_torch(p, shape):
    if p not in (None, 2, -2) and shape[-1] != shape[-2]:
        return  # the other orders need a square matrix (test_misuse_raises_like_torch)
    got = linalg.cond(Tensor(np.zeros(shape)), p)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.data, np.zeros(shape[:-2]))
    torch = torch_or_skip()
    want = torch.linalg.cond(torch.zeros(*shape, dtype=torch.float64), p)
    np.testing.assert_array_equal(got.data, want.numpy())


def test_matrix_exp_of_float32_is_as_accurate_as_torchs():
    """It used float64's Pade threshold for float32 too, and came out 5 times less accurate than
    PyTorch at a norm of 10 (a relative error of 2.9e-7 against 5.6e-8); the reference is the
    float64 exponential of the same float32 entries."""
    torch = torch_or_skip()
    a = (np.random.default_rng(0).standard_normal((8, 4, 4)) * 2.5).astype(np.float32)
    want = torch.linalg.matrix_exp(torch.tensor(a, dtype=torch.float64)).numpy()
    got = linalg.matrix_exp(Tensor(a)).data
    torchs = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    assert got.dtype == np.float32
    leaf = Tensor(a, requires_grad=True)
    linalg.matrix_exp(leaf).sum().backward()
    assert leaf.grad.dtype == np.float32
    error = np.abs(got - want).max() / np.abs(want).max()
    assert error <= max(np.abs(torchs - want).max() / np.abs(want).max(),
                        np.finfo(np.float32).eps / 2)


def test_matrix_exp_of_a_matrix_with_inf_or_nan_is_nan_and_leaves_the_batch_alone():
    """Such a matrix's exponential is all NaN, as PyTorch's; its norm chose the number of
    squarings for the whole batch (inf: OverflowError; NaN: none, so exp(diag(30, -20)) beside
    it came out as -9.6e4), and now counts for nothing."""
    a = np.zeros((4, 2, 2))
    a[0] = [[np.nan, 0.0], [0.0, 1.0]]
    a[1] = np.diag([30.0, -20.0])
    a[2] = [[np.inf, 0.0], [0.0, 1.0]]
    a[3] = [[1.0, -np.inf], [0.0, 1.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's inf - inf is no news to the user
        got = linalg.matrix_exp(Tensor(a)).data
    np.testing.assert_allclose(got[1], np.diag(np.exp([30.0, -20.0])), rtol=1e-13)
    assert np.isnan(got[[0, 2, 3]]).all()
    torch = torch_or_skip()
    np.testing.assert_allclose(got, torch.linalg.matrix_exp(torch.tensor(a)).numpy(),
                               rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, op", [
    ("det", lambda lib, a: lib.linalg.det(a)),
    ("logabsdet", lambda lib, a: lib.linalg.slogdet(a).logabsdet),
    ("sign", lambda lib, a: lib.linalg.slogdet(a).sign),
    ("logdet", lambda lib, a: lib.logdet(a))])
def test_determinants_of_a_matrix_whose_lu_holds_nan_match_torch(name, op, dtype):
    """Regression: where numpy's LU holds a NaN (a NaN entry, or infinities that meet), the sign
    was numpy's +-1 where PyTorch's is 0 (and then -inf for the logabsdet of a NaN matrix with
    infinities, PyTorch's NaN); the determinants are NaN with NaN gradients, as PyTorch's, and
    numpy's slogdet, which gives the sign, warned of the NaN it returns. A regular matrix
    beside them keeps its values."""
    torch = torch_or_skip()
    nan, inf = np.nan, np.inf
    a = np.array([[[nan, 1.0], [0.0, 1.0]], [[nan, nan], [nan, nan]], [[inf, inf], [1.0, 1.0]],
                  [[1.0, nan], [2.0, 3.0]], [[2.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]],
                 dtype=dtype)
    leaf = Tensor(a, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = op(minigrad, leaf)
    with np.errstate(invalid="ignore"):  # QR's backward of the infinities: inf * 0
        grad = None if name == "sign" else minigrad.grad(got, [leaf], np.ones(6, dtype))[0]
    theirs = torch.tensor(a, requires_grad=name != "sign")
    want = op(torch, theirs)
    np.testing.assert_array_equal(got.data, want.detach().numpy())
    if grad is not None:
        (want_grad,) = torch.autograd.grad(want.sum(), theirs)
        np.testing.assert_array_equal(np.isnan(grad), np.isnan(want_grad.numpy()))
        assert np.isnan(grad[:4]).all()


SQUARE_OPS = {
    "det": linalg.det, "slogdet": lambda a: linalg.slogdet(a).logabsdet, "inv": linalg.inv,
    "matrix_exp": linalg.matrix_exp, "matrix_power": lambda a: linalg.matrix_power(a, 3),
    "cond": linalg.cond, "cond_1": lambda a: linalg.cond(a, 1), "qr": lambda a: linalg.qr(a).R,
    "svdvals": linalg.svdvals, "pinv": linalg.pinv, "eigvalsh": linalg.eigvalsh,
    "matrix_norm_nuc": lambda a: linalg.matrix_norm(a, "nuc"), "vector_norm": linalg.vector_norm,
    "matrix_norm_inf": lambda a: linalg.matrix_norm(a, np.inf),
}


# the SVD raises LinAlgError at a NaN entry, as PyTorch's
SVD_BASED = ("cond", "svdvals", "pinv", "matrix_norm_nuc")


@pytest.mark.parametrize("name, entry", [(name, entry) for name in SQUARE_OPS
                                         for entry in (np.nan, 0.0, 5e-324, 1e-300)
                                         if not (name in SVD_BASED and np.isnan(entry))])
def test_square_matrix_ops_warn_nothing_at_a_nan_zero_or_tiny_entry(name, entry):
    """Results (NaN for a NaN entry) and gradients come without numpy's warnings: det, slogdet
    and cond warned at a NaN, from numpy's slogdet."""
    a = Tensor(np.array([[entry, 0.5], [0.5, 2.0]]), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = SQUARE_OPS[name](a)
        minigrad.grad(out, [a], np.ones(out.shape))


# --------------------------------------------------------------------------------------------
# Misuse: PyTorch's error classes
# --------------------------------------------------------------------------------------------
MISUSE = {
    "not_square": lambda lib, F: lib.linalg.inv(lib.ones(2, 3)),
    "det_not_square": lambda lib, F: lib.linalg.det(lib.ones(2, 3)),
    "eigh_not_square": lambda lib, F: lib.linalg.eigh(lib.ones(2, 3)),
    "one_dim": lambda lib, F: lib.linalg.inv(lib.ones(3)),
    "svd_one_dim": lambda lib, F: lib.linalg.svd(lib.ones(3)),
    "integer": lambda lib, F: lib.linalg.inv(lib.ones(2, 2, dtype=lib.int64)),
    "solve_shapes": lambda lib, F: lib.linalg.solve(lib.eye(2), lib.ones(3)),
    "solve_batches": lambda lib, F: lib.linalg.solve(lib.ones(2, 3, 3), lib.ones(4, 3, 1)),
    "qr_mode": lambda lib, F: lib.linalg.qr(lib.ones(3, 3), mode="x"),
    "eigh_uplo": lambda lib, F: lib.linalg.eigh(lib.eye(3), UPLO="X"),
    "matrix_power_not_square": lambda lib, F: lib.linalg.matrix_power(lib.ones(2, 3), 2),
    "matrix_power_float_n": lambda lib, F: lib.linalg.matrix_power(lib.eye(2), 1.5),
    "matrix_power_integer_inverse": lambda lib, F: lib.linalg.matrix_power(
        lib.ones(2, 2, dtype=lib.int64), -1),
    "matrix_power_bool": lambda lib, F: lib.linalg.matrix_power(lib.ones(2, 2, dtype=lib.bool),
                                                                 2),
    "vector_norm_integer": lambda lib, F: lib.linalg.vector_norm(lib.ones(3, dtype=lib.int64)),
    "vector_norm_string_ord": lambda lib, F: lib.linalg.vector_norm(lib.ones(3), ord="fro"),
    "matrix_norm_one_dim": lambda lib, F: lib.linalg.matrix_norm(lib.ones(3)),
    "vector_norm_narrowing_dtype": lambda lib, F: lib.linalg.vector_norm(
        lib.ones(3, dtype=lib.float64), dtype=lib.float32),
    "matrix_norm_narrowing_dtype": lambda lib, F: lib.linalg.matrix_norm(
        lib.ones(2, 2, dtype=lib.float32), dtype=lib.float16),
    "norm_narrowing_dtype": lambda lib, F: lib.linalg.norm(
        lib.ones(2, 2, dtype=lib.float64), dtype=lib.float32),
    "tensor_norm_narrowing_dtype": lambda lib, F: lib.ones(3, dtype=lib.float64).norm(
        dtype=lib.float32),
    "tensor_norm_p_narrowing_dtype": lambda lib, F: lib.norm(
        lib.ones(2, 2, dtype=lib.float64), 2, dtype=lib.float32),
    "matrix_norm_ord": lambda lib, F: lib.linalg.matrix_norm(lib.ones(3, 3), ord=3),
    "norm_3d_with_ord": lambda lib, F: lib.linalg.norm(lib.ones(2, 3, 4), ord=2),
    "matrix_exp_not_square": lambda lib, F: lib.linalg.matrix_exp(lib.ones(2, 3)),
    "matrix_exp_integer": lambda lib, F: lib.linalg.matrix_exp(lib.ones(2, 2, dtype=lib.int64)),
    "cond_order": lambda lib, F: lib.linalg.cond(lib.eye(3), 3),
    "cond_not_square": lambda lib, F: lib.linalg.cond(lib.ones(2, 3), "fro"),
    "cond_one_dim": lambda lib, F: lib.linalg.cond(lib.ones(3)),
    "multi_dot_one": lambda lib, F: lib.linalg.multi_dot([lib.ones(3, 3)]),
    "multi_dot_shapes": lambda lib, F: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 3)]),
    "multi_dot_3d": lambda lib, F: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 3, 3)]),
    "solve_triangular_vector": lambda lib, F: lib.linalg.solve_triangular(
        lib.eye(2), lib.ones(2), upper=True),
    "solve_triangular_shapes": lambda lib, F: lib.linalg.solve_triangular(
        lib.eye(2), lib.ones(3, 1), upper=True),
    "lstsq_driver": lambda lib, F: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 1),
                                                    driver="gelsq"),
    "lstsq_rows": lambda lib, F: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(4, 1)),
    "vecdot_shapes": lambda lib, F: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(2, 4)),
    "vecdot_integer": lambda lib, F: lib.linalg.vecdot(lib.ones(3, dtype=lib.int64),
                                                      lib.ones(3, dtype=lib.int64)),
    "diagonal_one_dim": lambda lib, F: lib.linalg.diagonal(lib.ones(3)),
    "cross_size": lambda lib, F: lib.linalg.cross(lib.ones(2, 4), lib.ones(2, 4)),
    "lu_factor_pivot_false": lambda lib, F: lib.linalg.lu_factor(lib.eye(2), pivot=False),
    "lu_pivot_false": lambda lib, F: lib.linalg.lu(lib.eye(2), pivot=False),
    "lu_factor_one_dim": lambda lib, F: lib.linalg.lu_factor(lib.ones(3)),
    "lu_factor_integer": lambda lib, F: lib.linalg.lu_factor(lib.ones(2, 2, dtype=lib.int64)),
    "lu_solve_vector": lambda lib, F: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3)),
                                                          lib.ones(3)),
    "lu_solve_shapes": lambda lib, F: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3)),
                                                          lib.ones(4, 1)),
    "lu_solve_not_square": lambda lib, F: lib.linalg.lu_solve(
        lib.ones(3, 4), lib.ones(3, dtype=lib.int32), lib.ones(3, 1)),
    "vander_N_1": lambda lib, F: lib.linalg.vander(lib.ones(3), N=1),
    "vander_empty": lambda lib, F: lib.linalg.vander(lib.ones(0)),
    "vander_bool": lambda lib, F: lib.linalg.vander(lib.ones(3, dtype=lib.bool)),
    "tensorinv_ind_0": lambda lib, F: lib.linalg.tensorinv(lib.ones(2, 2), ind=0),
    "tensorinv_sizes": lambda lib, F: lib.linalg.tensorinv(lib.ones(4, 6, 8, 2)),
    "tensorinv_integer": lambda lib, F: lib.linalg.tensorinv(lib.ones(2, 2, dtype=lib.int64),
                                                             ind=1),
    "tensorsolve_sizes": lambda lib, F: lib.linalg.tensorsolve(lib.ones(2, 3, 5),
                                                               lib.ones(2, 3)),
    "tensorsolve_dims_sizes": lambda lib, F: lib.linalg.tensorsolve(lib.ones(6, 4, 3, 2),
                                                                    lib.ones(6, 4), dims=(0, 2)),
    "cholesky_ex_not_square": lambda lib, F: lib.linalg.cholesky_ex(lib.ones(2, 3)),
    "inv_ex_integer": lambda lib, F: lib.linalg.inv_ex(lib.ones(2, 2, dtype=lib.int64)),
    "solve_ex_left_false_vector": lambda lib, F: lib.linalg.solve_ex(lib.eye(2), lib.ones(2),
                                                                     left=False),
    "lu_factor_ex_pivot_false": lambda lib, F: lib.linalg.lu_factor_ex(lib.eye(2), pivot=False),
    "svd_driver": lambda lib, F: lib.linalg.svd(lib.eye(2), driver="gesvd"),
    "svdvals_driver": lambda lib, F: lib.linalg.svdvals(lib.eye(2), driver="gesvdj"),
}


@pytest.mark.parametrize("source, target", [("float32", "float32"), ("float32", "float64"),
                                            ("float16", "float32")])
@pytest.mark.parametrize("norm", ["vector_norm", "matrix_norm"])
def test_norm_dtype_that_keeps_or_widens_is_taken_as_torch(norm, source, target):
    torch = torch_or_skip()
    results = [getattr(lib.linalg, norm)(lib.full((2, 2), 3.0, dtype=getattr(lib, source)),
                                         dtype=getattr(lib, target))
               for lib in (minigrad, torch)]
    assert str(results[0].dtype) == str(results[1].dtype).removeprefix("torch.")
    np.testing.assert_allclose(results[0].numpy(), results[1].numpy())


@pytest.mark.parametrize("name", list(MISUSE))
def test_misuse_raises_like_torch(name):
    assert_raises_like_torch(MISUSE[name])
