"""Tier 2, compositions: `minigrad.linalg`, PyTorch's `torch.linalg` (a subset), on batches of
matrices in the last two dims.

Six primitives (`minigrad/ops/linalg.py`: Solve, LU, Cholesky, QR, Eigh, Svd) carry the
derivatives that cannot be composed; everything here is built from them and the other ops
(inv is a solve, det and slogdet come from QR, pinv and the spectral norms from the SVD,
lu_solve is two triangular solves, ...).
Input checks are made here, with PyTorch's error classes: a matrix the factorization cannot
take (singular, not positive-definite) raises `LinAlgError`, a RuntimeError as PyTorch's.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from . import ops
from .errors import InvalidArgumentError, InvalidTypeError, LinAlgError
from .tensor import Tensor, _dim_list
from .tensor_functions import cat, where

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
           "eigvalsh", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd",
           "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]


class SlogdetResult(NamedTuple):
    """What slogdet returns, as torch.return_types.linalg_slogdet."""

    sign: Tensor
    logabsdet: Tensor


class CholeskyExResult(NamedTuple):
    L: Tensor
    info: Tensor


class InvExResult(NamedTuple):
    inverse: Tensor
    info: Tensor


class SolveExResult(NamedTuple):
    result: Tensor
    info: Tensor


class LUFactorExResult(NamedTuple):
    LU: Tensor
    pivots: Tensor
    info: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class LUFactorResult(NamedTuple):
    LU: Tensor
    pivots: Tensor


class LUResult(NamedTuple):
    P: Tensor
    L: Tensor
    U: Tensor


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


class SVDVectors(NamedTuple):
    """What torch.svd (and Tensor.svd) returns: V, not Vh."""

    U: Tensor
    S: Tensor
    V: Tensor


class LstsqResult(NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


class TriangularSolveResult(NamedTuple):
    solution: Tensor
    cloned_coefficient: Tensor


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------
def _matrices(op: str, A: Tensor, name: str = "A", *, floating: bool = True) -> None:
    """A floating tensor (any dtype but bool with floating=False) of at least 2 dims, as
    PyTorch's linalg functions demand."""
    if not A.is_floating_point() and (floating or A.dtype == np.bool_):
        raise InvalidTypeError(f"{op}: Expected a floating point tensor as input. Got {A.dtype}")
    if A.ndim < 2:
        raise InvalidArgumentError(f"{op}: The input tensor {name} must have at least 2 "
                                   f"dimensions, got shape {A.shape}")


def _square(op: str, A: Tensor, *, floating: bool = True) -> int:
    """The size n of a batch of square n x n matrices."""
    _matrices(op, A, floating=floating)
    if A.shape[-1] != A.shape[-2]:
        raise InvalidArgumentError(f"{op}: A must be batches of square matrices, but they are "
                                   f"{A.shape[-2]} by {A.shape[-1]} matrices")
    return A.shape[-1]


@contextmanager
def _lapack(op: str, failure: str) -> Iterator[None]:
    """numpy's LinAlgError (a singular or indefinite matrix, no convergence) as PyTorch's."""
    try:
        yield
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{op}: {failure}") from None


def _eye(n: int, like: Tensor) -> Tensor:
    return Tensor._make(np.eye(n, dtype=like.dtype))


# --------------------------------------------------------------------------------------------
# Solving
# --------------------------------------------------------------------------------------------
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A X = B (X A = B when left=False), A square and invertible. B is a batch of
    vectors when it is 1-D or has A's shape without its last dim, else a batch of matrices; the
    batch dims broadcast."""
    n = _square("linalg.solve", A)
    if B.ndim == 0:
        raise InvalidArgumentError("linalg.solve: B must be a vector or a matrix, got a 0-d "
                                   "tensor")
    vector = _is_vector(A, B)
    if not left:  # X A = B is A.T X.T = B.T
        if vector:
            raise InvalidArgumentError("linalg.solve: left=False needs B to be a matrix, got "
                                       f"shape {B.shape}")
        return solve(A.mT, B.mT).mT
    rhs = B.unsqueeze(-1) if vector else B
    if rhs.shape[-2] != n:
        raise InvalidArgumentError(f"linalg.solve: Incompatible shapes of A and B for the "
                                   f"equation AX = B ({n}x{n} and {rhs.shape[-2]}x"
                                   f"{rhs.shape[-1]})")
    try:
        np.broadcast_shapes(A.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise InvalidArgumentError(f"linalg.solve: the batch dims of A {A.shape} and B "
                                   f"{B.shape} do not broadcast") from None
    with _lapack("linalg.solve", "The solver failed because the input matrix is singular."):
        X = ops.Solve.apply(A, rhs)
    return X.squeeze(-1) if vector else X


def _is_vector(A: Tensor, B: Tensor) -> bool:
    """Whether B is a (batch of) vector(s) rather than matrices, by PyTorch's rule."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix: solve(A, I)."""
    n = _square("linalg.inv", A)
    with _lapack("linalg.inv", "the input matrix is singular, it has no inverse."):
        return ops.Solve.apply(A, _eye(n, A))


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """X with A X = B (X A = B when left=False), reading only A's upper or lower triangle (and
    taking its diagonal as ones when unitriangular). A zero on the diagonal raises LinAlgError."""
    n = _square("linalg.solve_triangular", A)
    _matrices("linalg.solve_triangular", B, "B")
    if unitriangular:
        triangle = (A.triu(1) if upper else A.tril(-1)) + _eye(n, A)
    else:
        triangle = A.triu() if upper else A.tril()
    rows = B.shape[-2] if left else B.shape[-1]
    if rows != n:
        raise InvalidArgumentError(f"linalg.solve_triangular: Incompatible shapes of A and B "
                                   f"for the equation {'AX' if left else 'XA'} = B ({n}x{n} and "
                                   f"{B.shape[-2]}x{B.shape[-1]})")
    return solve(triangle, B, left=left)


# --------------------------------------------------------------------------------------------
# Determinants
# --------------------------------------------------------------------------------------------
def slogdet(A: Tensor) -> SlogdetResult:
    """(sign, log |det A|): the log from R's diagonal in A = QR, differentiable; the sign (-1,
    0 or 1) outside the graph. A singular matrix (an exact zero in LU, as PyTorch's test) has
    sign 0 and logabsdet -inf, with gradient 0; one whose LU holds a NaN (a NaN entry, or
    infinities that meet) sign 0 and logabsdet NaN, as PyTorch's."""
    sign, logabsdet = _slogdet("linalg.slogdet", A)
    singular = (sign.data == 0) & ~np.isnan(logabsdet.data)
    return SlogdetResult(sign, where(singular, -math.inf, logabsdet))


def _det_signs(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The signs of the determinants (-1, 0 or 1) from numpy's LU, and where the matrices are
    singular (an exact 0 in it). The sign is 0 also where the LU holds a NaN, as PyTorch's
    (numpy's is +-1): the determinant is NaN there; numpy's warning about it is silenced."""
    with np.errstate(invalid="ignore"):
        sign, logabsdet = np.linalg.slogdet(a)
    undefined = np.isnan(logabsdet)
    return np.where(undefined, 0, sign), (sign == 0) & ~undefined


def _slogdet(op: str, A: Tensor) -> tuple[Tensor, Tensor]:
    """sign outside the graph, and log |det| of A with its singular matrices replaced by I
    (finite, with finite gradients, for the callers to mask); NaN where the LU is NaN, whose
    QR may be finite (infinite entries)."""
    n = _square(op, A)
    sign, singular = _det_signs(A.data)
    undefined = (sign == 0) & ~singular
    R = qr(where(singular[..., None, None], _eye(n, A), A)).R  # |det A| = |det R|, Q orthogonal
    logabsdet = R.diagonal(dim1=-2, dim2=-1).abs().log().sum(-1)
    # + NaN, not a masked NaN: the gradient is NaN there too, as PyTorch's
    logabsdet = logabsdet + np.where(undefined, math.nan, 0).astype(A.dtype)
    return Tensor._make(sign.astype(A.dtype)), logabsdet


def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix: sign * exp(log |det|). At a singular matrix it is
    0, with gradient 0, as PyTorch's."""
    sign, logabsdet = _slogdet("linalg.det", A)
    return sign * logabsdet.exp()


# --------------------------------------------------------------------------------------------
# Factorizations
# --------------------------------------------------------------------------------------------
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """L, lower triangular with L L.T = A, for A symmetric positive-definite, read from its
    lower triangle; with upper=True, U = L.T, upper triangular, read from A's upper triangle
    (as PyTorch's: the same for a symmetric A)."""
    _square("linalg.cholesky", A)
    with _lapack("linalg.cholesky", "The factorization could not be completed because the "
                 "input is not positive-definite."):
        return ops.Cholesky.apply(A.mT).mT if upper else ops.Cholesky.apply(A)


def qr(A: Tensor, mode: str = "reduced") -> QRResult:
    """(Q, R) with A = Q R, Q with orthonormal columns (k = min(m, n) of them, or m with mode
    'complete'), R upper triangular; mode 'r' gives R alone (Q empty) and no gradient."""
    _matrices("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise InvalidArgumentError(f"qr received unrecognized mode {mode!r} but expected one of "
                                   "'reduced' (default), 'r', or 'complete'")
    packed = ops.QR.apply(A, mode=mode)
    m = A.shape[-2]
    Q = Tensor._make(np.zeros(0, A.dtype)) if mode == "r" else packed[..., :m].mT
    return QRResult(Q, packed[..., m:])


def lu_factor(A: Tensor, *, pivot: bool = True) -> LUFactorResult:
    """A = P L U by Gaussian elimination with partial pivoting (each m x n matrix), packed as
    PyTorch's (and LAPACK's getrf): LU holds U and L's part below the diagonal; pivots (int32,
    min(m, n) per matrix, 1-based) say that at step i row i was swapped with row pivots[i]. A
    zero on U's diagonal raises LinAlgError, a RuntimeError as PyTorch's error there (a solve
    with it would divide by zero); linalg.lu takes such matrices."""
    LU, pivots = _lu("linalg.lu_factor", A, pivot)
    zero = np.diagonal(LU.data, axis1=-2, axis2=-1) == 0
    if zero.any():
        i = int(np.argmax(zero.reshape(-1, zero.shape[-1]).any(axis=0))) + 1
        raise LinAlgError(f"linalg.lu_factor: U[{i},{i}] is zero and using it on lu_solve would "
                          "result in a division by zero. If you still want to perform the "
                          "factorization, consider calling linalg.lu(A, pivot)")
    return LUFactorResult(LU, pivots)


def lu(A: Tensor, *, pivot: bool = True) -> LUResult:
    """A = P L U, each m x n matrix factored by partial pivoting: P an m x m permutation
    (outside the graph), L m x k unit lower triangular, U k x n upper triangular,
    k = min(m, n); singular matrices too (a zero on U's diagonal)."""
    return lu_unpack(*_lu("linalg.lu", A, pivot))


def _lu(op: str, A: Tensor, pivot: bool) -> tuple[Tensor, Tensor]:
    """lu_factor's (LU, pivots), from the primitive LU's packed output."""
    _matrices(op, A)
    if not pivot:
        raise InvalidArgumentError(f"{op}: LU without pivoting is not implemented (PyTorch "
                                   "has it on CUDA only)")
    m, n = A.shape[-2:]
    packed = ops.LU.apply(A)  # [LU, the row swaps as one more column of floats]
    pivots = packed.data[..., :min(m, n), n].astype(np.int32) + 1
    return packed[..., :n], Tensor._make(pivots)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True) -> LUResult:
    """(P, L, U) from lu_factor's (LU, pivots), as torch.lu_unpack: L the part of LU below its
    diagonal with ones on it (m x k), U its upper part (k x n), P the permutation the pivots'
    swaps make (m x m, in LU's dtype, outside the graph), so that A = P L U. With
    unpack_data=False L and U are empty, with unpack_pivots=False P is."""
    _matrices("torch.lu_unpack", LU_data, "LU_data")
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = Tensor._make(np.zeros(0, dtype=LU_data.dtype))
    P = Tensor._make(_permutation("torch.lu_unpack", LU_pivots, m, k, LU_data.dtype)) \
        if unpack_pivots else empty
    if not unpack_data:
        return LUResult(P, empty, empty)
    L = LU_data[..., :k].tril(-1) + Tensor._make(np.eye(m, k, dtype=LU_data.dtype))
    return LUResult(P, L, LU_data[..., :k, :].triu())


def _permutation(op: str, pivots: Tensor, m: int, k: int, dtype: np.dtype) -> np.ndarray:
    """The m x m matrix P for which P.T A is A with its rows swapped as `pivots` say."""
    swaps = pivots.data if isinstance(pivots, Tensor) else np.asarray(pivots)
    if swaps.dtype != np.int32:
        raise InvalidTypeError(f"{op}: the pivots are expected to be a tensor of int32 dtype, "
                               f"got {swaps.dtype}")
    if swaps.shape[-1:] != (k,) or ((swaps < 1) | (swaps > m)).any():
        raise InvalidArgumentError(f"{op}: the pivots must be {k} per matrix, between 1 and "
                                   f"LU.size(-2) ({m}) inclusive, as lu_factor gives them")
    order = ops.linalg.row_order(swaps - 1, m)  # row i of P.T A is row order[i] of A
    P = np.zeros((*swaps.shape[:-1], m, m), dtype=dtype)
    np.put_along_axis(P, order[..., None, :], 1, axis=-2)  # P[order[i], i] = 1
    return P


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
             adjoint: bool = False) -> Tensor:
    """X with A X = B for A = P L U given as lu_factor's (LU, pivots): X = U^-1 L^-1 P.T B, two
    triangular solves reading LU's two triangles; adjoint=True solves A.T X = B, left=False
    X A = B. LU and B get gradients; their batch dims broadcast."""
    n = _square("linalg.lu_solve", LU)
    _matrices("linalg.lu_solve", B, "B")
    if not left:  # X A = B is A.T X.T = B.T, and X A.T = B is A X.T = B.T
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    if B.shape[-2] != n:
        raise InvalidArgumentError(f"linalg.lu_solve: Incompatible shapes of A and B for the "
                                   f"equation {'A.T' if adjoint else 'A'}X = B ({n}x{n} and "
                                   f"{B.shape[-2]}x{B.shape[-1]})")
    P = Tensor._make(_permutation("linalg.lu_solve", pivots, n, n, LU.dtype))
    if adjoint:  # A.T = U.T L.T P.T
        Y = solve_triangular(LU.mT, B, upper=False)
        return P @ solve_triangular(LU.mT, Y, upper=True, unitriangular=True)
    Y = solve_triangular(LU, P.mT @ B, upper=False, unitriangular=True)
    return solve_triangular(LU, Y, upper=True)


# --------------------------------------------------------------------------------------------
# The _ex variants: a result and LAPACK's info per matrix instead of an error
# --------------------------------------------------------------------------------------------
def _lu_infos(LU: np.ndarray) -> np.ndarray:
    """LAPACK getrf's info of each packed LU, int32: 0, or the 1-based place of the first zero
    on U's diagonal."""
    zero = np.diagonal(LU, axis1=-2, axis2=-1) == 0
    return np.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32)


def _cholesky_infos(a: np.ndarray) -> np.ndarray:
    """LAPACK potrf's info of each matrix, reading its lower triangle, int32: 0, or the order of
    the first leading minor that is not positive-definite, where the column-by-column
    factorization meets a pivot that is not > 0 (NaN included, as LAPACK's test)."""
    n = a.shape[-1]
    L = np.zeros_like(a)
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):
            pivot = a[..., j, j] - (L[..., j, :j] ** 2).sum(-1)
            positive = pivot > 0
            info[~positive & (info == 0)] = j + 1
            # a failed matrix goes on with pivot 1, its info already set
            root = np.sqrt(np.where(positive, pivot, 1.0))
            below = a[..., j + 1:, j] - np.einsum("...ik,...k->...i", L[..., j + 1:, :j],
                                                  L[..., j, :j])
            L[..., j, j] = root
            L[..., j + 1:, j] = below / root[..., None]
    return info


def _first_failure(op: str, info: np.ndarray, failure: str) -> LinAlgError:
    """PyTorch's error for check_errors=True: the first failed matrix of a batch named."""
    infos = info.reshape(-1)
    first = int(np.argmax(infos != 0))
    batch = f"(Batch element {first}): " if info.ndim else ""
    return LinAlgError(f"{op}: {batch}{failure.format(infos[first])}")


def _nan_where(failed: np.ndarray, result: Tensor, trailing: int) -> Tensor:
    """result with NaN in the matrices (`trailing` dims each) that failed."""
    return where(failed.reshape(failed.shape + (1,) * trailing), math.nan, result)


def _replaced_by_eye(failed: np.ndarray, A: Tensor) -> Tensor:
    """A with its failed matrices replaced by I, so that the routine takes the batch."""
    return where(failed[..., None, None], _eye(A.shape[-1], A), A)


def cholesky_ex(A: Tensor, *, upper: bool = False,
                check_errors: bool = False) -> CholeskyExResult:
    """(L, info): cholesky's factor of each matrix, and LAPACK's info per matrix (int32): 0,
    or the order of the first leading minor that is not positive-definite, where L is NaN.
    check_errors=True raises LinAlgError for such a matrix, as cholesky does."""
    _square("linalg.cholesky_ex", A)
    info = _cholesky_infos(np.swapaxes(A.data, -1, -2) if upper else A.data)
    failed = info != 0
    if check_errors and failed.any():
        raise _first_failure("linalg.cholesky_ex", info, "The factorization could not be "
                             "completed because the input is not positive-definite (the "
                             "leading minor of order {} is not positive-definite).")
    L = cholesky(_replaced_by_eye(failed, A), upper=upper)
    return CholeskyExResult(_nan_where(failed, L, 2), Tensor._make(info))


def _getrf_infos(op: str, A: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The LU infos of square A, outside the graph, and which matrices get a NaN result: the
    singular ones, and those holding a NaN, whose info is 0 but whose inverse is all NaN in
    LAPACK (numpy's solve may call them singular instead)."""
    _square(op, A)
    info = _lu_infos(_lu(op, A.detach(), True)[0].data)
    return info, (info != 0) | np.isnan(A.data).any(axis=(-2, -1))


def inv_ex(A: Tensor, *, check_errors: bool = False) -> InvExResult:
    """(inverse, info): inv of each matrix, and the info of its LU (int32): 0, or the 1-based
    place of the first zero on U's diagonal, where the matrix is singular and its inverse NaN.
    check_errors=True raises LinAlgError for a singular matrix."""
    info, failed = _getrf_infos("linalg.inv_ex", A)
    if check_errors and info.any():
        raise _first_failure("linalg.inv_ex", info, "The diagonal element {} is zero, the "
                             "inversion could not be completed because the input matrix is "
                             "singular.")
    return InvExResult(_nan_where(failed, inv(_replaced_by_eye(failed, A)), 2),
                       Tensor._make(info))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True,
             check_errors: bool = False) -> SolveExResult:
    """(result, info): solve(A, B, left=left), and the info of A's LU (int32, one per matrix of
    A): 0, or the 1-based place of the first zero on U's diagonal, where A is singular and the
    result NaN. check_errors=True raises LinAlgError for a singular A."""
    info, failed = _getrf_infos("linalg.solve_ex", A)
    if check_errors and info.any():
        raise _first_failure("torch.linalg.solve_ex", info, "The solver failed because the "
                             "input matrix is singular.")
    X = solve(_replaced_by_eye(failed, A), B, left=left)
    return SolveExResult(_nan_where(failed, X, 1 if _is_vector(A, B) else 2),
                         Tensor._make(info))


def lu_factor_ex(A: Tensor, *, pivot: bool = True,
                 check_errors: bool = False) -> LUFactorExResult:
    """(LU, pivots, info): lu_factor's, singular matrices factored too, with the info of each
    (int32): 0, or the 1-based place of the first zero on U's diagonal. check_errors=True
    raises LinAlgError for such a matrix, as lu_factor does."""
    LU, pivots = _lu("linalg.lu_factor_ex", A, pivot)
    info = _lu_infos(LU.data)
    if check_errors and info.any():
        raise _first_failure("torch.linalg.lu_factor_ex", info, "U[{0},{0}] is zero and using "
                             "it on lu_solve would result in a division by zero. If you still "
                             "want to perform the factorization, consider calling "
                             "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LUFactorExResult(LU, pivots, Tensor._make(info))


def eigh(A: Tensor, UPLO: str = "L") -> EighResult:
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix, read from
    its lower (UPLO='L') or upper ('U') triangle. Each eigenvector is defined up to its sign,
    and its gradient exists only where the eigenvalues are distinct."""
    _eigh_checks("linalg.eigh", A, UPLO)
    with _lapack("linalg.eigh", "The algorithm failed to converge."):
        packed = ops.Eigh.apply(A, UPLO=UPLO)
    return EighResult(packed[..., 0, :], packed[..., 1:, :])


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of each symmetric matrix, ascending (differentiable also where they
    repeat)."""
    _eigh_checks("linalg.eigvalsh", A, UPLO)
    with _lapack("linalg.eigvalsh", "The algorithm failed to converge."):
        return ops.Eigh.apply(A, UPLO=UPLO, eigenvectors=False)


def _eigh_checks(op: str, A: Tensor, UPLO: str) -> None:
    _square(op, A)
    if UPLO not in ("L", "U"):
        raise InvalidArgumentError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got "
                                   f"{UPLO!r}")


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> SVDResult:
    """(U, S, Vh) with A = U diag(S) Vh, S descending. With full_matrices (the default) U is
    m x m and Vh n x n: the columns past min(m, n) complete an orthonormal basis and get no
    gradient, as in PyTorch. Singular vectors are defined up to sign, and their gradients exist
    only where the singular values are distinct and nonzero. driver must be None: PyTorch
    takes one on CUDA only."""
    _matrices("linalg.svd", A)
    _no_driver("linalg.svd", driver)
    with _lapack("linalg.svd", "The algorithm failed to converge."):
        packed = ops.Svd.apply(A)
    m = A.shape[-2]
    U, S, V = packed[..., :m, :], packed[..., m, :], packed[..., m + 1:, :]
    if full_matrices:
        U, V = _completed(U), _completed(V)
    return SVDResult(U, S, V.mT)


def _completed(U: Tensor) -> Tensor:
    """U's orthonormal columns followed by columns, outside the graph, that make it square
    and orthogonal (the last columns of the complete QR of U)."""
    m, k = U.shape[-2:]
    if m == k:
        return U
    rest = np.linalg.qr(U.data, mode="complete")[0][..., k:]
    return cat([U, Tensor._make(rest)], dim=-1)


def _no_driver(op: str, driver: str | None) -> None:
    if driver is not None:
        raise InvalidArgumentError(f"torch.{op}: keyword argument `driver=` is only supported "
                                   "on CUDA inputs with cuSOLVER backend.")


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values of each matrix, descending (differentiable also where they
    repeat); driver as svd's."""
    _matrices("linalg.svdvals", A)
    _no_driver("linalg.svdvals", driver)
    with _lapack("linalg.svdvals", "The algorithm failed to converge."):
        return ops.Svd.apply(A, compute_uv=False)


# --------------------------------------------------------------------------------------------
# From the factorizations
# --------------------------------------------------------------------------------------------
def _tolerance(largest: np.ndarray, size: int, atol: float | None,
               rtol: float | None, dtype: np.dtype) -> np.ndarray:
    """PyTorch's cut-off max(atol, rtol * largest singular value): rtol defaults to eps *
    max(m, n) when neither is given, and to 0 when only atol (> 0) is."""
    if rtol is None:
        rtol = np.finfo(dtype).eps * size if atol is None or atol <= 0 else 0.0
    return np.maximum(atol or 0.0, rtol * largest)


def pinv(A: Tensor, *, atol: float | None = None, rtol: float | None = None,
         hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse, V diag(1/s) U.T over the singular values above
    max(atol, rtol * the largest) (the others count as 0); hermitian=True uses eigh of the
    symmetric A (its lower triangle) instead."""
    _matrices("linalg.pinv", A)
    if hermitian:
        _square("linalg.pinv", A)
        values, U = eigh(A)
        V, magnitude = U, np.abs(values.data)
    else:
        U, values, Vh = svd(A, full_matrices=False)
        V, magnitude = Vh.mT, values.data
    largest = magnitude.max(axis=-1, initial=0.0, keepdims=True)
    kept = magnitude > _tolerance(largest, max(A.shape[-2:]), atol, rtol, A.dtype)
    reciprocal = where(kept, 1.0 / where(kept, values, 1.0), 0.0)  # no 1/0 in the graph
    return (V * reciprocal.unsqueeze(-2)) @ U.mT


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *,
          driver: str | None = None) -> LstsqResult:
    """The least-squares solution X of A X = B of least norm, pinv(A, rtol=rcond) @ B, with
    rcond = eps * max(m, n) by default; B a batch of vectors or matrices, as in solve. Like
    PyTorch's drivers, residuals (the squared error of each column) are given when m > n, A has
    full rank and driver is not 'gelsy' (the default); rank for all but 'gels'; singular
    values for 'gelsd' and 'gelss'. Every driver computes the same solution here, its rank
    decided by the singular values, as gelsd decides it."""
    _matrices("linalg.lstsq", A)
    if driver not in (None, *_LSTSQ_DRIVERS):
        raise InvalidArgumentError("torch.linalg.lstsq: parameter `driver` should be one of "
                                   f"{_LSTSQ_DRIVERS}, got {driver!r}")
    driver = driver or "gelsy"
    vector = _is_vector(A, B)
    rhs = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2:]
    if rhs.ndim < 2 or rhs.shape[-2] != m:
        raise InvalidArgumentError(f"torch.linalg.lstsq: input.size(-2) should match "
                                   f"other.size(-2), got shapes {A.shape} and {B.shape}")
    # LAPACK reads a negative rcond as the default, as PyTorch passes it on
    rtol = np.finfo(A.dtype).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    X = pinv(A, rtol=rtol) @ rhs
    values = svdvals(A).detach()  # without gradient, as PyTorch's
    rank = matrix_rank(A, rtol=rtol).data
    empty = Tensor._make(np.zeros(0, A.dtype))
    residuals = empty
    if driver != "gelsy" and m > n and (rank == n).all():
        residuals = ((A @ X - rhs) ** 2).sum(-2)  # (*, 1) for vectors too, as PyTorch's
    ranks = Tensor._make(np.zeros(0, np.int64)) if driver == "gels" else Tensor._make(rank)
    return LstsqResult(X.squeeze(-1) if vector else X, residuals, ranks,
                       values if driver in ("gelsd", "gelss") else empty)


def matrix_rank(A: Tensor, *, atol: float | None = None, rtol: float | None = None,
                hermitian: bool = False) -> Tensor:
    """The number of singular values (eigenvalue magnitudes when hermitian) above max(atol,
    rtol * the largest), as int64, outside the graph."""
    _matrices("linalg.matrix_rank", A)
    values = np.abs(eigvalsh(A).data) if hermitian else svdvals(A).data
    largest = values.max(axis=-1, initial=0.0, keepdims=True)
    cut = _tolerance(largest, max(A.shape[-2:]), atol, rtol, A.dtype)
    return Tensor._make(np.asarray((values > cut).sum(axis=-1), dtype=np.int64))


def matrix_power(A: Tensor, n: int) -> Tensor:
    """A multiplied by itself n times (by repeated squaring); I for n = 0 and inv(A) ** -n for
    n < 0. Integer matrices too for n >= 0, as PyTorch's (inv needs floats)."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power: n must be an int, got {n!r}")
    size = _square("linalg.matrix_power", A, floating=n < 0)
    if n == 0:  # I, in the graph with gradient 0, as PyTorch's
        return where(np.ones(A.shape, dtype=bool), _eye(size, A), A)
    base, remaining, result = (inv(A) if n < 0 else A), abs(n), None
    while True:  # result collects base ** (each set bit of |n|), base squared for the next bit
        if remaining & 1:
            result = base if result is None else result @ base
        remaining >>= 1
        if not remaining:
            return result
        base = base @ base


# Higham's degree-13 Pade approximant of exp ("The scaling and squaring method for the matrix
# exponential revisited", 2005): its numerator's coefficients, and the 1-norm up to which it is
# accurate to float64 rounding
_PADE_13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
            129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
            40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_PADE_13_NORM = 5.371920351148152


def matrix_exp(A: Tensor) -> Tensor:
    """The exponential of each square matrix, by scaling and squaring: the Pade approximant of
    exp(A / 2**s), s chosen from the largest finite 1-norm in the batch, squared s times. Its
    gradient is the derivative of that computation (of solve and matmul). Below float64 it
    computes in float64 and rounds once, as the special functions do."""
    n = _square("linalg.matrix_exp", A)
    if A.dtype != np.float64:
        # in float32 the rounding grows through the squarings: a relative error of 3e-7 at a
        # norm of 10 against PyTorch's 6e-8 (Pade degree 7 with float32's threshold: 5e-7)
        return matrix_exp(A.to(np.float64)).to(A.dtype)
    norms = np.abs(A.data).sum(axis=-2).max(axis=-1, initial=0.0)
    # a matrix with an inf or NaN has an all-NaN exponential whatever s is: it must not set s
    norm = norms[np.isfinite(norms)].max(initial=0.0)
    squarings = max(0, math.ceil(math.log2(norm / _PADE_13_NORM))) if norm > 0 else 0
    with np.errstate(invalid="ignore"):  # inf - inf for a matrix with an inf: NaN, as PyTorch's
        return _pade_13_squared(A / 2.0 ** squarings, squarings, _eye(n, A))


def _pade_13_squared(X: Tensor, squarings: int, I: Tensor) -> Tensor:
    """The degree-13 Pade approximant of exp(X), squared `squarings` times."""
    b = _PADE_13
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    odd = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2
               + b[1] * I)
    even = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 \
        + b[0] * I
    result = solve(even - odd, even + odd)  # the approximant q(X)^-1 p(X), p(X) = even + odd
    for _ in range(squarings):
        result = result @ result
    return result


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of a chain of matrices, the first and last of which may be vectors (a row and
    a column), as torch.linalg.multi_dot; computed left to right."""
    if len(tensors) < 2:
        raise InvalidArgumentError(f"multi_dot(): expected at least 2 tensors but got "
                                   f"{len(tensors)}")
    for i, t in enumerate(tensors):
        ends = i in (0, len(tensors) - 1)
        if t.ndim != 2 and not (ends and t.ndim == 1):
            raise InvalidArgumentError(f"multi_dot(): tensor {i} must be 2-D (the first and last "
                                       f"may be 1-D), got shape {t.shape}")
    result = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if result.shape[-1] != t.shape[0]:
            raise InvalidArgumentError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                                       f"{tensors[i - 1].shape} and {t.shape} cannot be "
                                       f"multiplied")
        result = result @ t
    return result


def vander(x: Tensor, N: int | None = None) -> Tensor:
    """The Vandermonde matrices of the vectors in x's last dim, in increasing powers:
    out[..., i, j] = x[..., i] ** j for j < N (N = x.shape[-1] by default), computed as running
    products, so that the gradient is exact at 0. Integers widen to int64, as cumprod's."""
    if x.dtype == np.bool_:
        raise InvalidTypeError("linalg.vander supports floating point, complex, and integer "
                               "tensors, but got Bool")
    if x.ndim == 0:
        raise InvalidArgumentError("linalg.vander: x must have at least one dimension")
    N = x.shape[-1] if N is None else N
    if N <= 1:
        raise InvalidArgumentError("N must be greater than 1.")
    powers = cat([x.new_ones(*x.shape, 1), x.unsqueeze(-1).expand(*x.shape, N - 1)], dim=-1)
    return powers.cumprod(-1)


def _as_square(op: str, A: Tensor, rows: int) -> tuple[Tensor, tuple[int, ...]]:
    """A's first `rows` dims flattened into the rows of a matrix, the rest into its columns,
    which must be as many; and the shape of the columns' dims."""
    if math.prod(A.shape[:rows]) != math.prod(A.shape[rows:]):
        raise InvalidArgumentError(f"{op}: Expected self to satisfy the requirement "
                                   f"prod(self.shape[{rows}:]) == prod(self.shape[:{rows}]), "
                                   f"but got {math.prod(A.shape[rows:])} != "
                                   f"{math.prod(A.shape[:rows])}")
    size = math.prod(A.shape[rows:])
    return A.reshape(size, size), A.shape[rows:]


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of A read as a linear map from its dims from `ind` on to its first `ind`
    dims (the products of their sizes equal): tensordot(tensorinv(A), A, ind) is the identity
    on those; shape A.shape[ind:] + A.shape[:ind]."""
    if not isinstance(ind, (int, np.integer)) or ind <= 0:
        raise InvalidArgumentError(f"linalg.tensorinv: Expected a strictly positive integer for "
                                   f"'ind', but got {ind}")
    matrix, columns = _as_square("linalg.tensorinv", A, ind)
    return inv(matrix).reshape(*columns, *A.shape[:ind])


def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B: A's first B.ndim dims flattened are the rows of a
    square system, its other dims (X's shape) the columns; `dims` of A are moved to the end
    first, in that order."""
    if dims is not None:
        moved = _dim_list("linalg.tensorsolve", dims, A.ndim)
        A = A.movedim(moved, list(range(A.ndim - len(moved), A.ndim)))
    matrix, columns = _as_square("linalg.tensorsolve", A, B.ndim)
    return solve(matrix, B.reshape(-1)).reshape(columns)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Tensor.matmul, which torch.linalg has too."""
    return input.matmul(other)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Tensor.diagonal of the matrices in the last two dims by default."""
    return A.diagonal(offset, dim1, dim2)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot products of the vectors along `dim` of x and y broadcast together: (x * y).sum(dim),
    for floating-point tensors."""
    if not (x.is_floating_point() and y.is_floating_point()):
        raise InvalidTypeError(f"linalg.vecdot: Expected a floating point tensor as input. Got "
                               f"{x.dtype} and {y.dtype}")
    return (x * y).sum(dim)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """Tensor.cross along `dim`, the last by default (torch.cross's default is the first dim of
    size 3); the other dims broadcast."""
    return input.cross(other, dim=dim)


# --------------------------------------------------------------------------------------------
# Norms
# --------------------------------------------------------------------------------------------
def vector_norm(x: Tensor, ord: float = 2, dim: int | Sequence[int] | None = None,
                keepdim: bool = False, *, dtype: object = None) -> Tensor:
    """The ord-norm of the entries over `dim` (all of them when None), as Tensor.norm; ord a
    number (inf and -inf included)."""
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(f"linalg.vector_norm: ord must be a number, not {type(ord).__name__}")
    if not x.is_floating_point():
        raise InvalidTypeError("linalg.vector_norm: Expected a floating point tensor as input. "
                               f"Got {x.dtype}")
    _check_widening("linalg.vector_norm", x, dtype)
    return x.norm(ord, dim, keepdim, dtype=dtype)


def _check_widening(name: str, x: Tensor, dtype: object) -> None:
    """Refuse a norm's dtype that would lose precision of x's entries, as PyTorch does: the
    dtype may only keep or widen x's."""
    if dtype is not None and not np.can_cast(x.dtype, dtype, "safe"):
        raise InvalidTypeError(f"{name}: the dtype of the input ({x.dtype}) should be convertible "
                               f"without narrowing to the specified dtype ({np.dtype(dtype)})")


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(A: Tensor, ord: float | str = "fro", dim: tuple[int, int] = (-2, -1),
                keepdim: bool = False, *, dtype: object = None) -> Tensor:
    """The matrix norm over the two dims `dim`: 'fro' (the entries' 2-norm), 'nuc' (the sum of
    the singular values), 2 and -2 (the largest and smallest singular value), 1 and -1 (the
    largest and smallest column sum of |A|), inf and -inf (the same over rows)."""
    _matrices("linalg.matrix_norm", A)
    if dtype is not None:
        _check_widening("linalg.matrix_norm", A, dtype)
        A = A.to(dtype)
    if ord not in _MATRIX_ORDS:
        raise InvalidArgumentError(f"linalg.matrix_norm: Order {ord} not supported.")
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    rows, cols = _dim_list("linalg.matrix_norm", dims, A.ndim) if len(dims) == 2 else (0, 0)
    if len(dims) != 2 or rows == cols:
        raise InvalidArgumentError(f"linalg.matrix_norm: dim must be a 2-tuple of different "
                                   f"dims, got {dim}")
    if ord == "fro":
        return A.norm("fro", (rows, cols), keepdim)
    planes = A.movedim((rows, cols), (-2, -1))
    if ord in ("nuc", 2, -2):
        values = svdvals(planes)
        result = values.sum(-1) if ord == "nuc" else (_largest(values) if ord == 2
                                                      else values.amin(-1))
    else:  # sums over the other dim of the pair: columns for 1, rows for inf
        sums = planes.abs().sum(-2 if abs(ord) == 1 else -1)
        result = _largest(sums) if ord > 0 else sums.amin(-1)
    if keepdim:
        for d in sorted((rows, cols)):
            result = result.unsqueeze(d)
    return result


def _largest(values: Tensor) -> Tensor:
    """The largest of nonnegative values along the last dim; 0 where it is empty, as PyTorch's
    matrix norms of an empty matrix (the smallest of none raises, as in PyTorch)."""
    return values.amax(-1) if values.shape[-1] else values.sum(-1)


def cond(A: Tensor, p: float | str | None = None) -> Tensor:
    """The condition number of each matrix in the matrix norm p: the largest singular value over
    the smallest for p None or 2 (any shape), the reverse for -2; matrix_norm(A, p) *
    matrix_norm(inv(A), p) for the other orders (square A; inf where A is singular)."""
    _matrices("linalg.cond", A)
    spectral = p in (None, 2, -2)
    if not spectral:
        if p not in _MATRIX_ORDS:
            raise InvalidArgumentError(f"linalg.cond got an invalid norm type: {p}")
        _square(f"linalg.cond(ord={p})", A)
    if 0 in A.shape[-2:]:  # PyTorch's condition number of an empty matrix: 0
        return A.sum((-2, -1))
    if spectral:
        values = svdvals(A)
        largest, smallest = values[..., 0], values[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    n = A.shape[-1]
    _, singular = _det_signs(A.data)
    invertible = where(singular[..., None, None], _eye(n, A), A)  # inv of I where A has none
    ratio = matrix_norm(A, p) * matrix_norm(inv(invertible), p)
    return where(singular, math.inf, ratio)


def norm(A: Tensor, ord: float | str | None = None, dim: int | Sequence[int] | None = None,
         keepdim: bool = False, *, dtype: object = None) -> Tensor:
    """A vector norm (dim an int, or ord None and no dim: of all the entries) or a matrix norm
    (dim a pair, or a 2-D A with ord given), as torch.linalg.norm."""
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    if dim is None and ord is not None:
        if A.ndim not in (1, 2):
            raise InvalidArgumentError("linalg.norm: If dim is not specified but ord is, the "
                                       f"input must be 1D or 2D. Got {A.ndim}D.")
        dim = tuple(range(A.ndim))
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, tuple(dim), keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise InvalidArgumentError(f"linalg.norm: order {ord!r} needs a matrix (two dims)")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
