"""Functional forms of the ops (`import minigrad.functional as F`), thin wrappers over `apply`."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import ops
from .engine import ArrayLike, Tensor, _as_array


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weight + bias as one op (weight (in, out)); x @ weight without a bias."""
    return x @ weight if bias is None else ops.Affine.apply(x, weight, bias)


def relu(x: Tensor) -> Tensor:
    return ops.Relu.apply(x)


def sigmoid(x: Tensor) -> Tensor:
    return ops.Sigmoid.apply(x)


def tanh(x: Tensor) -> Tensor:
    return ops.Tanh.apply(x)


def gelu(x: Tensor) -> Tensor:
    """GELU with the tanh approximation used by GPT-2."""
    return ops.Gelu.apply(x)


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """Numerically stable softmax; a row that is entirely -inf gives zeros."""
    return ops.Softmax.apply(x, axis=axis)


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    return ops.LogSoftmax.apply(x, axis=axis)


def cross_entropy(logits: Tensor, targets: ArrayLike) -> Tensor:
    """Mean cross-entropy of integer `targets` (N,) under `logits` (N, C)."""
    return ops.CrossEntropy.apply(logits, targets=_as_array(targets))


def layer_norm(x: Tensor, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last axis, then `* weight + bias` (ones and zeros when omitted)."""
    dim = x.shape[-1:]
    weight = Tensor(np.ones(dim, dtype=x.dtype)) if weight is None else weight
    bias = Tensor(np.zeros(dim, dtype=x.dtype)) if bias is None else bias
    return ops.LayerNorm.apply(x, weight, bias, eps=eps)


def embedding(weight: Tensor, indices: ArrayLike) -> Tensor:
    """Rows of `weight` picked by integer `indices` of any shape."""
    return ops.Embedding.apply(weight, indices=_as_array(indices))


def dropout(x: Tensor, p: float, training: bool = True,
            rng: np.random.Generator | None = None) -> Tensor:
    """Zero each entry with probability `p` and scale the rest by 1/(1-p); identity when not
    training or p == 0. Pass a seeded `rng` for reproducible masks."""
    if not 0 <= p < 1:
        raise ValueError(f"dropout: p must be in [0, 1), got {p}")
    if not training or p == 0:
        return x
    return ops.Dropout.apply(x, p=p, rng=rng if rng is not None else np.random.default_rng())


def attention(query: Tensor, key: Tensor, value: Tensor,
              mask: ArrayLike | None = None) -> tuple[Tensor, Tensor]:
    """softmax(Q K^T / sqrt(d)) V as one fused op, for inputs (..., seq, d); `mask` (True = may
    attend) broadcasts against the scores. Returns (output, attention weights); the weights are
    for looking at (not differentiable): gradients flow through the output."""
    weights: list[np.ndarray] = []
    mask = None if mask is None else np.asarray(_as_array(mask), dtype=bool)
    out = ops.Attention.apply(query, key, value, mask=mask, weights_out=weights)
    return out, Tensor(weights[0])


def where(cond: ArrayLike, a: ArrayLike, b: ArrayLike) -> Tensor:
    """`a` where `cond` is True, else `b` (a and b broadcast; scalars take the other's dtype)."""
    if isinstance(a, Tensor):
        b = a._lift(b)
    elif isinstance(b, Tensor):
        a = b._lift(a)
    return ops.Where.apply(a, b, cond=_as_array(cond))


def concat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    return ops.Concat.apply(*tensors, axis=axis)


def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    return ops.Stack.apply(*tensors, axis=axis)


def masked_fill(x: Tensor, mask: ArrayLike, value: float) -> Tensor:
    return x.masked_fill(mask, value)
