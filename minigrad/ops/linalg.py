"""Linear-algebra primitives: the solve and the five factorizations whose derivatives cannot be
composed from other ops. Everything else in `minigrad.linalg` (inv, det, pinv, norms, ...) is
composed from these. All work on batches of matrices in the last two axes, with numpy's
LAPACK-backed routines (LU, which numpy lacks, by Gaussian elimination written here), and keep
float32 as float32.

A factorization with several factors returns them packed in one array (a Function has one
output); `minigrad.linalg` slices them apart, so the gradients of all factors reach one
backward. The formulas are the standard ones (M. Giles, "An extended collection of matrix
derivative results", 2008; J. Townsend, "Differentiating the singular value decomposition",
2016; H.-J. Liao et al., "Differentiable programming tensor networks", 2019, for QR).
Notation: X.T swaps the last two axes, X^-1 is a solve, sym(X) = (X + X.T) / 2,
skew(X) = (X - X.T) / 2, and F[i, j] = 1 / (x_j - x_i) off the diagonal, 0 on it.
"""
from __future__ import annotations

import math

import numpy as np

from ..engine import Function


def _mT(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def _reciprocal_gaps(x: np.ndarray) -> np.ndarray:
    """F[..., i, j] = 1 / (x_j - x_i) for i != j and 0 on the diagonal; inf where two values
    coincide (the derivative of the factors there does not exist)."""
    gaps = x[..., None, :] - x[..., :, None]
    eye = np.eye(x.shape[-1], dtype=bool)
    with np.errstate(divide="ignore"):
        return np.where(eye, x.dtype.type(0), 1 / np.where(eye, x.dtype.type(1), gaps))


class Solve(Function):
    """out = a^-1 b (a square, b a stack of matrices; batch dims broadcast).
    da = -(a.T^-1 G) out.T,  db = a.T^-1 G"""

    saves_output = True

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a = a
        self.out = np.linalg.solve(a, b)
        return self.out

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        db = np.linalg.solve(_mT(self.a), g)
        da = -(db @ _mT(self.out)) if self.needs_input_grad[0] else None
        return da, db


def row_order(swaps: np.ndarray, m: int) -> np.ndarray:
    """The rows of an m-row matrix after swapping, at each step i, row i with row swaps[..., i]
    (LAPACK's pivots, 0-based): row i of the result is row order[..., i] of the matrix."""
    order = np.array(np.broadcast_to(np.arange(m), (*swaps.shape[:-1], m)))
    batch = math.prod(swaps.shape[:-1])
    flat, flat_swaps = order.reshape(batch, m), swaps.reshape(batch, swaps.shape[-1])
    every = np.arange(flat.shape[0])
    for i, row in enumerate(flat_swaps.T):
        flat[every, i], flat[every, row] = flat[every, row], flat[every, i]
    return order


class LU(Function):
    """out = [LU, swaps]: a = P L U by Gaussian elimination with partial pivoting, a m x n,
    k = min(m, n), L m x k unit lower triangular and U k x n upper triangular packed in one
    m x n matrix (L's diagonal of ones not stored), then one more column: at step i, row i was
    swapped with row swaps[i] (0-based; i itself from row k on). The swaps get no gradient.
    dA = P L^-T [M U1^-T, G_U2], M = tril(L^T G_L - G_U2 U2^T, -1) + triu(G_U1 U1^T)
    (m <= n, U = [U1, U2]);  dA = P [L1^-T M; G_L2] U^-T,
    M = tril(L1^T G_L1, -1) + triu(G_U U^T - L2^T G_L2) (m > n, L = [L1; L2]); G_L and G_U
    the strictly lower and the upper part of G's LU block; where U's diagonal holds a 0 (no
    derivative), NaN in the columns that need U1^-1 (all of them for m > n), as PyTorch's

    Derived from dA = P (dL U + L dU), where L^-1 dL is strictly lower triangular and dU U^-1
    upper (the square case is the known result: dA = P L^-T (tril(L^T G_L, -1)
    + triu(G_U U^T)) U^-T)."""

    saves_inputs = False

    def forward(self, a: np.ndarray) -> np.ndarray:
        m, n = a.shape[-2:]
        lu = a.reshape(math.prod(a.shape[:-2]), m, n).astype(a.dtype, copy=True)
        swaps = np.tile(np.arange(m), (lu.shape[0], 1))
        every = np.arange(lu.shape[0])
        for i in range(min(m, n)):
            pivot_row = i + np.argmax(np.abs(lu[:, i:, i]), axis=1)  # the first largest
            swaps[:, i] = pivot_row
            lu[every, i], lu[every, pivot_row] = lu[every, pivot_row], lu[every, i]
            pivot = lu[:, i, i][:, None]
            # a pivot of 0 has zeros below it: they stay 0, as in LAPACK, not 0 / 0
            column = np.divide(lu[:, i + 1:, i], pivot, out=np.zeros_like(lu[:, i + 1:, i]),
                               where=pivot != 0)
            lu[:, i + 1:, i] = column
            lu[:, i + 1:, i + 1:] -= column[:, :, None] * lu[:, i, None, i + 1:]
        lu, swaps = lu.reshape(a.shape), swaps.reshape(*a.shape[:-1])
        k = min(m, n)
        self.L = np.tril(lu[..., :k], -1) + np.eye(m, k, dtype=a.dtype)
        self.U, self.order = np.triu(lu[..., :k, :]), row_order(swaps[..., :k], m)
        return np.concatenate([lu, swaps[..., None].astype(a.dtype)], axis=-1)

    def backward(self, g: np.ndarray) -> np.ndarray:
        L, U = self.L, self.U
        m, n = L.shape[-2], U.shape[-1]
        k = min(m, n)
        g_L, g_U = np.tril(g[..., :k], -1), np.triu(g[..., :k, :n])
        U1 = U[..., :k]
        singular = (np.diagonal(U1, axis1=-2, axis2=-1) == 0).any(axis=-1)
        # solved with I instead; the columns that need U1^-1 are NaN, as PyTorch's
        solvable = np.where(singular[..., None, None], np.eye(k, dtype=U.dtype), U1)
        if m <= n:
            U2, g_U1, g_U2 = U[..., k:], g_U[..., :k], g_U[..., k:]
            M = np.tril(_mT(L) @ g_L - g_U2 @ _mT(U2), -1) + np.triu(g_U1 @ _mT(U1))
            first = _mT(np.linalg.solve(solvable, _mT(M)))
            first[singular] = np.nan
            permuted = np.linalg.solve(_mT(L), np.concatenate([first, g_U2], axis=-1))
        else:
            L1, L2, g_L1, g_L2 = L[..., :k, :], L[..., k:, :], g_L[..., :k, :], g_L[..., k:, :]
            M = np.tril(_mT(L1) @ g_L1, -1) + np.triu(g_U @ _mT(U) - _mT(L2) @ g_L2)
            stacked = np.concatenate([np.linalg.solve(_mT(L1), M), g_L2], axis=-2)
            permuted = _mT(np.linalg.solve(solvable, _mT(stacked)))
            permuted[singular] = np.nan
        da = np.empty_like(permuted)  # row order[i] of dA is row i of the permuted one
        np.put_along_axis(da, self.order[..., None], permuted, axis=-2)
        return da


class Cholesky(Function):
    """out = L, lower triangular with L L.T = a (a symmetric positive-definite; only its lower
    triangle is read).   da = L.T^-1 sym(Phi(L.T G)) L^-1, Phi(X) = the lower triangle of X
    with its diagonal halved"""

    saves_inputs = False
    saves_output = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.L = np.linalg.cholesky(a)
        return self.L

    def backward(self, g: np.ndarray) -> np.ndarray:
        Lt = _mT(self.L)
        phi = np.tril(Lt @ g)
        phi = phi - 0.5 * np.tril(np.triu(phi))  # the diagonal halved
        middle = 0.5 * (phi + _mT(phi))
        return _mT(np.linalg.solve(Lt, _mT(np.linalg.solve(Lt, middle))))


class QR(Function):
    """out = [Q.T | R] (concatenated along the last axis) with a = Q R, Q orthonormal columns,
    R upper triangular; mode 'reduced' (k = min(m, n) columns of Q) or 'complete' (m).
    da = (G_Q + Q copyltu(M)) R.T^-1, M = R G_R.T - G_Q.T Q, copyltu(M) = M's lower triangle
    mirrored to the upper (a of m >= n rows; a wide a = [X | Y]: dX by the same formula with
    G_Q + Y G_Y.T for G_Q, dY = Q G_Y). Not differentiable for mode 'r' or 'complete' with
    m > n (Q's extra columns are not determined by a), as in PyTorch"""

    saves_inputs = False  # backward reads its own Q and R, not the packed output

    def forward(self, a: np.ndarray, mode: str = "reduced") -> np.ndarray:
        self.mode = mode
        self.Q, self.R = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
        return np.concatenate([_mT(self.Q), self.R], axis=-1)

    def backward(self, g: np.ndarray) -> np.ndarray:
        Q, R = self.Q, self.R
        m, n = Q.shape[-2], R.shape[-1]
        if self.mode == "r" or (self.mode == "complete" and m > n):
            raise RuntimeError(f"linalg.qr: not differentiable with mode={self.mode!r} and an "
                               f"input of {m} rows and {n} columns; use mode='reduced'")
        g_Q, g_R = _mT(g[..., :m]), g[..., m:]
        if m >= n:
            return self._square_or_tall(Q, R, g_Q, g_R)
        Y = Q @ R[..., m:]  # the columns of a past the first m
        g_X = self._square_or_tall(Q, R[..., :m], g_Q + Y @ _mT(g_R[..., m:]), g_R[..., :m])
        return np.concatenate([g_X, Q @ g_R[..., m:]], axis=-1)

    @staticmethod
    def _square_or_tall(Q: np.ndarray, R: np.ndarray, g_Q: np.ndarray,
                        g_R: np.ndarray) -> np.ndarray:
        M = R @ _mT(g_R) - _mT(g_Q) @ Q
        copyltu = np.tril(M) + _mT(np.tril(M, -1))
        return _mT(np.linalg.solve(R, _mT(g_Q + Q @ copyltu)))


class Eigh(Function):
    """out = w, the eigenvalues (ascending) of the symmetric a, whose `UPLO` triangle ('L' or
    'U') is read; with eigenvectors, out = [w; V] (w as the first row above the eigenvector
    columns V), a = V diag(w) V.T.   da = V (diag(G_w) + F o skew(V.T G_V)) V.T, F from w
    (symmetric; infinite where eigenvalues repeat and G_V is not 0)"""

    saves_inputs = False

    def forward(self, a: np.ndarray, UPLO: str = "L", eigenvectors: bool = True) -> np.ndarray:
        self.eigenvectors = eigenvectors
        self.w, self.V = np.linalg.eigh(a, UPLO=UPLO)
        return np.concatenate([self.w[..., None, :], self.V], axis=-2) if eigenvectors \
            else self.w

    def backward(self, g: np.ndarray) -> np.ndarray:
        V = self.V
        if not self.eigenvectors:
            return (V * g[..., None, :]) @ _mT(V)
        g_w, g_V = g[..., 0, :], g[..., 1:, :]
        projected = _mT(V) @ g_V
        inner = _reciprocal_gaps(self.w) * 0.5 * (projected - _mT(projected))
        inner = inner + g_w[..., None, :] * np.eye(V.shape[-1], dtype=V.dtype)
        return V @ inner @ _mT(V)


class Svd(Function):
    """out = s, the k = min(m, n) singular values (descending) of a; with the vectors,
    out = [U; s; V] (rows: U's m, then s, then V's n; k columns), a = U diag(s) V.T.
    da = U (F o (U.T G_U - G_U.T U) S + diag(G_s) + S F o (V.T G_V - G_V.T V)) V.T
    + (I - U U.T) G_U S^-1 V.T + U S^-1 G_V.T (I - V V.T), S = diag(s), F from s**2"""

    saves_inputs = False

    def forward(self, a: np.ndarray, compute_uv: bool = True) -> np.ndarray:
        self.compute_uv = compute_uv
        self.U, self.s, Vh = np.linalg.svd(a, full_matrices=False)
        self.V = _mT(Vh)
        return np.concatenate([self.U, self.s[..., None, :], self.V], axis=-2) if compute_uv \
            else self.s

    def backward(self, g: np.ndarray) -> np.ndarray:
        U, s, V = self.U, self.s, self.V
        if not self.compute_uv:
            return (U * g[..., None, :]) @ _mT(V)
        m = U.shape[-2]
        g_U, g_s, g_V = g[..., :m, :], g[..., m, :], g[..., m + 1:, :]
        F = _reciprocal_gaps(s * s)
        Ut_gU, Vt_gV = _mT(U) @ g_U, _mT(V) @ g_V
        inner = (F * (Ut_gU - _mT(Ut_gU))) * s[..., None, :] \
            + s[..., :, None] * (F * (Vt_gV - _mT(Vt_gV))) \
            + g_s[..., None, :] * np.eye(s.shape[-1], dtype=s.dtype)
        da = U @ inner @ _mT(V)
        # the parts of G_U and G_V outside the spans of U and V (zero for a square a)
        da = da + ((g_U - U @ Ut_gU) / s[..., None, :]) @ _mT(V)
        return da + U @ _mT((g_V - V @ Vt_gV) / s[..., None, :])
