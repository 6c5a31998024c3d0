"""Neural-network ops, each one Function with its own analytic backward (cheaper and more stable
than composing them from primitives; the composed versions are tested equal)."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..engine import Function, unbroadcast


def _stable_exp(x: np.ndarray, axis: int):
    """exp(x - max) and its sum along `axis`. A row that is entirely -inf (fully masked) has
    max -inf; shifting by 0 instead keeps it at exp(-inf) = 0 rather than NaN."""
    m = x.max(axis=axis, keepdims=True)
    m[~np.isfinite(m)] = 0
    e = np.exp(x - m)
    return m, e, e.sum(axis=axis, keepdims=True)


class Softmax(Function):
    """out = exp(x - max) / sum(exp(x - max)) along `axis`.
    dx = out * (G - sum(G * out, axis))   (a fully masked row gives out = 0 and dx = 0)"""

    def forward(self, x, axis=-1):
        self.axis = axis
        _, e, s = _stable_exp(x, axis)
        s[s == 0] = 1  # fully masked row: 0 / 1 = 0 instead of 0 / 0
        self.out = e / s
        return self.out

    def backward(self, g):
        out = self.out
        return out * (g - (g * out).sum(axis=self.axis, keepdims=True))


class LogSoftmax(Function):
    """out = x - logsumexp(x) along `axis`.
    dx = G - softmax(x) * sum(G, axis)"""

    def forward(self, x, axis=-1):
        self.axis = axis
        m, e, s = _stable_exp(x, axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.out = x - (m + np.log(s))
        # a fully masked row (sum 0) gives -inf - -inf = NaN: its log-probabilities are -inf;
        # any other NaN is a real one (NaN inputs) and is kept, so divergence stays visible
        self.out[np.broadcast_to(s == 0, self.out.shape)] = -np.inf
        return self.out

    def backward(self, g):
        return g - np.exp(self.out) * g.sum(axis=self.axis, keepdims=True)


class CrossEntropy(Function):
    """Mean negative log-likelihood of integer `targets` (N,) under `logits` (N, C), fused with
    log-softmax:  loss = mean_i (logsumexp(x_i) - x_i[t_i]).
    dx = G * (softmax(x) - onehot(t)) / N"""

    def forward(self, logits, targets):
        targets = np.asarray(targets)
        if logits.ndim != 2 or targets.shape != logits.shape[:1]:
            raise ValueError(f"CrossEntropy: expected logits (N, C) and targets (N,), got "
                             f"logits {logits.shape} and targets {targets.shape}; flatten "
                             f"batch and time first, e.g. logits.reshape(-1, C)")
        if targets.dtype.kind not in "iu":
            raise TypeError(f"CrossEntropy: targets must be integer class indices, got dtype "
                            f"{targets.dtype}")
        n, c = logits.shape
        if n and (targets.min() < 0 or targets.max() >= c):
            raise ValueError(f"CrossEntropy: targets must lie in [0, {c}), got values from "
                             f"{targets.min()} to {targets.max()}")
        m, e, s = _stable_exp(logits, axis=1)
        self.probs = e / s
        self.targets = targets
        rows = np.arange(n)
        return (m[:, 0] + np.log(s[:, 0]) - logits[rows, targets]).mean(dtype=logits.dtype)

    def backward(self, g):
        n = len(self.targets)
        dx = self.probs.copy()
        dx[np.arange(n), self.targets] -= 1
        dx *= g / n
        return dx


@functools.lru_cache(maxsize=64)
def _constant_vector(n: int, value: float, dtype: np.dtype) -> np.ndarray:
    vector = np.full(n, value, dtype=dtype)
    vector.flags.writeable = False  # shared between calls
    return vector


def _row_means(rows: np.ndarray) -> np.ndarray:
    """Mean of each row of a 2-D array, as a matrix-vector product: BLAS does it several times
    faster than np.mean over a short last axis."""
    return rows @ _constant_vector(rows.shape[1], 1 / rows.shape[1], rows.dtype)


def _last_axis_sums(x: np.ndarray) -> np.ndarray:
    """x.sum(axis=-1, keepdims=True) as a matrix-vector product (same reason as above)."""
    return (x @ _constant_vector(x.shape[-1], 1.0, x.dtype))[..., None]


def _column_sums(rows: np.ndarray) -> np.ndarray:
    """Sum over the rows of a 2-D array (a vector-matrix product, for the same reason)."""
    return _constant_vector(rows.shape[0], 1.0, rows.dtype) @ rows


class Affine(Function):
    """A Linear layer as one op: out = x @ W + b, x (..., in), W (in, out), b (out,).
    dx = G @ W.T,  dW = x.T @ G,  db = sum(G)   (x and G flattened to rows: one GEMM each)"""

    def forward(self, x, weight, bias):
        if x.ndim == 0 or x.shape[-1] != weight.shape[0] or bias.shape != weight.shape[1:]:
            raise ValueError(f"Affine: x {x.shape} @ weight {weight.shape} + bias {bias.shape} "
                             f"does not fit: need x (..., in), weight (in, out), bias (out,)")
        rows = x.reshape(-1, x.shape[-1])
        out = rows @ weight
        out += bias
        self.rows, self.weight, self.shape = rows, weight, x.shape
        return out.reshape(*x.shape[:-1], weight.shape[1])

    def backward(self, g):
        g = g.reshape(-1, g.shape[-1])
        dx = (g @ self.weight.T).reshape(self.shape) if self.needs_input_grad[0] else None
        dw = self.rows.T @ g if self.needs_input_grad[1] else None
        db = _column_sums(g) if self.needs_input_grad[2] else None
        return dx, dw, db


class LayerNorm(Function):
    """Normalise over the last axis, then scale and shift:
    xhat = (x - mean) / sqrt(var + eps),  out = xhat * w + b.
    dw = sum(G * xhat),  db = sum(G)   (over all leading axes)
    dx = (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) / sqrt(var + eps),  dxhat = G * w"""

    def forward(self, x, weight, bias, eps=1e-5):
        if weight.shape != x.shape[-1:] or bias.shape != x.shape[-1:]:
            raise ValueError(f"LayerNorm: weight and bias must have shape {x.shape[-1:]} (the "
                             f"last dim of x {x.shape}), got {weight.shape} and {bias.shape}")
        rows = x.reshape(-1, x.shape[-1])  # every leading axis is a row to normalise
        xhat = rows - _row_means(rows)[:, None]
        var = _row_means(xhat * xhat)
        self.rstd = (1 / np.sqrt(var + x.dtype.type(eps)))[:, None]
        xhat *= self.rstd
        self.xhat, self.weight, self.shape = xhat, weight, x.shape
        out = xhat * weight
        out += bias
        return out.reshape(x.shape)

    def backward(self, g):
        xhat = self.xhat
        g = g.reshape(xhat.shape)
        dw = _column_sums(g * xhat) if self.needs_input_grad[1] else None
        db = _column_sums(g) if self.needs_input_grad[2] else None
        dx = None
        if self.needs_input_grad[0]:
            dxhat = g * self.weight
            dx = xhat * _row_means(dxhat * xhat)[:, None]
            np.subtract(dxhat, dx, out=dx)
            dx -= _row_means(dxhat)[:, None]
            dx *= self.rstd
            dx = dx.reshape(self.shape)
        return dx, dw, db


class Embedding(Function):
    """out = weight[indices]  (rows of the table, indices of any shape).
    dweight = zeros, with each row of G added at its index (repeated indices accumulate)"""

    def forward(self, weight, indices):
        indices = np.asarray(indices)
        if indices.dtype.kind not in "iu":
            raise TypeError(f"Embedding: indices must be integers, got dtype {indices.dtype}")
        if indices.size and (indices.min() < 0 or indices.max() >= len(weight)):
            raise IndexError(f"Embedding: indices must lie in [0, {len(weight)}), got values "
                             f"from {indices.min()} to {indices.max()}")
        self.indices, self.shape = indices, weight.shape
        return weight[indices]

    def backward(self, g):
        dw = np.zeros(self.shape, dtype=g.dtype)
        np.add.at(dw, self.indices.reshape(-1), g.reshape(-1, *self.shape[1:]))
        return dw


class Dropout(Function):
    """Inverted dropout: out = x * mask / (1 - p), mask ~ Bernoulli(1 - p).
    dx = G * mask / (1 - p)"""

    def forward(self, x, p, rng):
        self.scaled_mask = (rng.random(x.shape) >= p).astype(x.dtype) / x.dtype.type(1 - p)
        return x * self.scaled_mask

    def backward(self, g):
        return g * self.scaled_mask


class Attention(Function):
    """Scaled dot-product attention as one op (models/attention.py composes the same from
    MatMul, Mul, MaskedFill and Softmax, for reading):
    S = Q K^T / sqrt(d), S = -inf where mask is False, P = softmax(S) over keys, out = P V.
    dV = P^T G,  dP = G V^T,  dS = P * (dP - sum(dP * P, keys)) / sqrt(d),  dQ = dS K,
    dK = dS^T Q   (masked entries have P = 0, so dS = 0 there; a fully masked row gives 0)"""

    def forward(self, q, k, v, mask=None, weights_out=None):
        if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
            raise ValueError(f"Attention: query {q.shape}, key {k.shape} and value {v.shape} "
                             f"must share the head size (last dim of q and k) and the key "
                             f"count (second-to-last dim of k and v)")
        self.scale = q.dtype.type(1 / math.sqrt(q.shape[-1]))
        scores = q @ np.swapaxes(k, -1, -2)
        scores *= self.scale
        if mask is not None:
            np.copyto(scores, -np.inf, where=~np.asarray(mask, dtype=bool))
        # softmax in place over the keys (last axis)
        m = scores.max(axis=-1, keepdims=True)
        if mask is not None:
            m[np.isneginf(m)] = 0  # a fully masked row: exp(-inf - 0) = 0, not NaN
        scores -= m
        np.exp(scores, out=scores)
        total = _last_axis_sums(scores)
        if mask is not None:
            total[total == 0] = 1  # a fully masked row's weights stay 0
        scores /= total
        self.p, self.q, self.k, self.v = scores, q, k, v
        if weights_out is not None:
            weights_out.append(scores)
        return scores @ v

    def backward(self, g):
        p, q, k, v = self.p, self.q, self.k, self.v
        dv = np.swapaxes(p, -1, -2) @ g if self.needs_input_grad[2] else None
        ds = g @ np.swapaxes(v, -1, -2)  # dP, turned into dS in place
        ds -= _last_axis_sums(ds * p)
        ds *= p
        ds *= self.scale
        dq = unbroadcast(ds @ k, q.shape) if self.needs_input_grad[0] else None
        dk = unbroadcast(np.swapaxes(ds, -1, -2) @ q, k.shape) if self.needs_input_grad[1] \
            else None
        return dq, dk, None if dv is None else unbroadcast(dv, v.shape)
