"""Neural-network ops, each one Function with its own analytic backward (cheaper and more stable
than composing them from primitives; the composed versions are tested equal)."""
from __future__ import annotations

import numpy as np

from ..engine import Function


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
        with np.errstate(divide="ignore"):  # a fully masked row: log 0 = -inf, its outputs -inf
            self.out = x - (m + np.log(s))
        self.out[np.isnan(self.out)] = -np.inf
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


class LayerNorm(Function):
    """Normalise over the last axis, then scale and shift:
    xhat = (x - mean) / sqrt(var + eps),  out = xhat * w + b.
    dw = sum(G * xhat),  db = sum(G)   (over all leading axes)
    dx = (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) / sqrt(var + eps),  dxhat = G * w"""

    def forward(self, x, weight, bias, eps=1e-5):
        if weight.shape != x.shape[-1:] or bias.shape != x.shape[-1:]:
            raise ValueError(f"LayerNorm: weight and bias must have shape {x.shape[-1:]} (the "
                             f"last dim of x {x.shape}), got {weight.shape} and {bias.shape}")
        mean = x.mean(axis=-1, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=-1, keepdims=True)
        self.rstd = 1 / np.sqrt(var + x.dtype.type(eps))
        self.xhat = centered * self.rstd
        self.weight = weight
        return self.xhat * weight + bias

    def backward(self, g):
        xhat = self.xhat
        lead = tuple(range(g.ndim - 1))
        dw = (g * xhat).sum(axis=lead) if self.needs_input_grad[1] else None
        db = g.sum(axis=lead) if self.needs_input_grad[2] else None
        dx = None
        if self.needs_input_grad[0]:
            dxhat = g * self.weight
            dx = self.rstd * (dxhat - dxhat.mean(axis=-1, keepdims=True)
                              - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True))
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
        np.add.at(dw, self.indices.reshape(-1), g.reshape(-1, self.shape[-1]))
        return dw


class Dropout(Function):
    """Inverted dropout: out = x * mask / (1 - p), mask ~ Bernoulli(1 - p).
    dx = G * mask / (1 - p)"""

    def forward(self, x, p, rng):
        self.scaled_mask = (rng.random(x.shape) >= p).astype(x.dtype) / x.dtype.type(1 - p)
        return x * self.scaled_mask

    def backward(self, g):
        return g * self.scaled_mask
