"""Tier 2, compositions: `import minigrad.functional as F`, PyTorch's `torch.nn.functional`.

Every function here is written from primitives (Tensor methods and `minigrad/ops/`) in a few
readable lines and has no backward of its own. Where a fused kernel (`minigrad/kernels.py`)
computes the same thing faster, the function uses it unless `minigrad.fused(False)` is in force;
the lines below the `if` are then what runs, and what `draw_graph` shows.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import kernels
from .engine import ArrayLike, is_fused_enabled
from .tensor import Tensor, _as_array


# --------------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, with weight (out_features, in_features) as in PyTorch."""
    if input.ndim == 0 or weight.ndim != 2 or input.shape[-1] != weight.shape[1] or (
            bias is not None and bias.shape != weight.shape[:1]):
        raise ValueError(f"linear: input {input.shape}, weight {weight.shape} and bias "
                         f"{None if bias is None else bias.shape} do not fit: need input "
                         f"(..., in), weight (out, in), bias (out,)")
    if is_fused_enabled():
        return kernels.Affine.apply(input, weight, *([] if bias is None else [bias]))
    out = input @ weight.T
    return out if bias is None else out + bias


def embedding(input: ArrayLike, weight: Tensor) -> Tensor:
    """Rows of `weight` picked by the integer ids in `input` (any shape)."""
    ids = np.asarray(_as_array(input))
    if ids.dtype.kind not in "iu":
        raise TypeError(f"embedding: ids must be integers, got dtype {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= len(weight)):
        raise IndexError(f"embedding: ids must lie in [0, {len(weight)}), got values "
                         f"from {ids.min()} to {ids.max()}")
    if is_fused_enabled():
        return kernels.Embedding.apply(weight, ids=ids)
    return weight[ids]


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int],
               weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing `normalized_shape` dims to mean 0 and variance 1 (biased),
    then `* weight + bias` when given."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if input.shape[input.ndim - len(shape):] != shape or len(shape) > input.ndim or not shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} must be the trailing dims of "
                         f"the input {input.shape}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and p.shape != shape:
            raise ValueError(f"layer_norm: {name} must have shape {shape}, got {p.shape}")
    if is_fused_enabled() and len(shape) == 1 and min(input.shape) > 0:
        return kernels.LayerNorm.apply(
            input, np.ones(shape, input.dtype) if weight is None else weight,
            np.zeros(shape, input.dtype) if bias is None else bias, eps=eps)
    dims = tuple(range(-len(shape), 0))
    centered = input - input.mean(dims, keepdim=True)
    variance = (centered * centered).mean(dims, keepdim=True)
    out = centered / (variance + eps).sqrt()
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            rng: np.random.Generator | None = None) -> Tensor:
    """Zero each entry with probability `p` and scale the rest by 1/(1-p); identity when not
    training or p == 0. Pass a seeded `rng` for reproducible masks."""
    if not 0 <= p < 1:
        raise ValueError(f"dropout: p must be in [0, 1), got {p}")
    if not training or p == 0:
        return input
    rng = rng if rng is not None else np.random.default_rng()
    keep = rng.random(input.shape) >= p
    return input * (keep / input.dtype.type(1 - p)).astype(input.dtype)


# --------------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------------
def relu(input: Tensor) -> Tensor:
    return input.relu()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def gelu(input: Tensor, approximate: str = "tanh") -> Tensor:
    """GELU with the tanh approximation used by GPT-2:
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    if approximate != "tanh":
        raise ValueError(f"gelu: approximate must be 'tanh', got {approximate!r}")
    if is_fused_enabled():
        return kernels.Gelu.apply(input)
    inner = (input + 0.044715 * input * input * input) * math.sqrt(2 / math.pi)
    return 0.5 * input * (1 + inner.tanh())


# --------------------------------------------------------------------------------------------
# Softmax and losses
# --------------------------------------------------------------------------------------------
def _row_max(input: Tensor, dim: int) -> np.ndarray:
    """The max along `dim`, as a constant. Subtracting it keeps exp from overflowing and changes
    nothing else (softmax(x - c) = softmax(x)), so it carries no gradient. A row that is all -inf
    (fully masked) is shifted by 0 instead, so it does not become NaN."""
    m = input.data.max(axis=dim, keepdims=True)
    return np.where(np.isfinite(m), m, 0).astype(input.dtype)


def softmax(input: Tensor, dim: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim`, computed stably; a row that is entirely -inf (fully
    masked) gives zeros."""
    if is_fused_enabled():
        return kernels.Softmax.apply(input, dim=dim)
    e = (input - _row_max(input, dim)).exp()
    total = e.sum(dim, keepdim=True)
    return e / total.masked_fill(total.data == 0, 1.0)


def log_softmax(input: Tensor, dim: int = -1) -> Tensor:
    """x - log(sum(exp(x))) along `dim`, computed stably."""
    if is_fused_enabled():
        return kernels.LogSoftmax.apply(input, dim=dim)
    shifted = input - _row_max(input, dim)
    return shifted - shifted.exp().sum(dim, keepdim=True).log()


def cross_entropy(input: Tensor, target: ArrayLike) -> Tensor:
    """Mean cross-entropy of integer class indices `target` (N,) under logits `input` (N, C)."""
    target = np.asarray(_as_array(target))
    if input.ndim != 2 or target.shape != input.shape[:1]:
        raise ValueError(f"cross_entropy: expected input (N, C) and target (N,), got input "
                         f"{input.shape} and target {target.shape}; flatten batch and time "
                         f"first, e.g. logits.reshape(-1, C)")
    if target.dtype.kind not in "iu":
        raise TypeError(f"cross_entropy: target must be integer class indices, got dtype "
                        f"{target.dtype}")
    n, c = input.shape
    if n and (target.min() < 0 or target.max() >= c):
        raise ValueError(f"cross_entropy: target must lie in [0, {c}), got values from "
                         f"{target.min()} to {target.max()}")
    if is_fused_enabled():
        return kernels.CrossEntropy.apply(input, targets=target)
    return -log_softmax(input, dim=1)[np.arange(n), target].mean()


# --------------------------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------------------------
def attention(query: Tensor, key: Tensor, value: Tensor,
              mask: ArrayLike | None = None) -> tuple[Tensor, Tensor]:
    """softmax(Q K^T / sqrt(d)) V for inputs (..., seq, d); `mask` (True = may attend)
    broadcasts against the scores (..., seq_q, seq_k). Returns (output, attention weights).

    With kernels on, the weights are for looking at only (gradients flow through the output)."""
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ValueError(f"attention: query {query.shape}, key {key.shape} and value "
                         f"{value.shape} must share the head size (last dim of query and key) "
                         f"and the key count (second-to-last dim of key and value)")
    mask = None if mask is None else np.asarray(_as_array(mask), dtype=bool)
    if is_fused_enabled():
        weights: list[np.ndarray] = []
        out = kernels.Attention.apply(query, key, value, mask=mask, weights_out=weights)
        return out, Tensor(weights[0])
    scores = (query @ key.mT) * (1 / math.sqrt(query.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, -np.inf)
    weights = softmax(scores, dim=-1)
    return weights @ value, weights
