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

from . import kernels, ops
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
        ones, zeros = np.ones(shape, input.dtype), np.zeros(shape, input.dtype)
        return kernels.LayerNorm.apply(input, ones if weight is None else weight,
                                       zeros if bias is None else bias, eps=eps)
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


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU, x * Phi(x) with Phi the standard normal CDF, as in PyTorch: exactly
    0.5 x (1 + erf(x / sqrt(2))) by default, or with approximate="tanh" GPT-2's
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    if approximate == "none":
        return 0.5 * input * (1 + (input * (1 / math.sqrt(2))).erf())
    if approximate != "tanh":
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    if is_fused_enabled():
        return kernels.Gelu.apply(input)
    inner = (input + 0.044715 * input * input * input) * math.sqrt(2 / math.pi)
    return 0.5 * input * (1 + inner.tanh())


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    return ops.Where.apply(input, input * negative_slope, cond=input.data > 0)


def _exponential_linear(input: Tensor, alpha: float, input_scale: float = 1.0) -> Tensor:
    """x where x > 0, else alpha * (exp(input_scale * x) - 1): elu, celu and selu. The negative
    branch sees min(x, 0), so that exp of a large positive x (not taken) cannot overflow and
    turn its zero gradient into inf * 0 = NaN."""
    positive = input.data > 0
    negative = (input.masked_fill(positive, 0.0) * input_scale).expm1() * alpha
    return ops.Where.apply(input, negative, cond=positive)


def elu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    return _exponential_linear(input, alpha)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    if alpha == 0:
        raise ValueError("celu: alpha must be nonzero")
    return _exponential_linear(input, alpha, 1 / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants of Klambauer et al. (2017)."""
    return _exponential_linear(input, _SELU_ALPHA) * _SELU_SCALE


def silu(input: Tensor) -> Tensor:
    """x * sigmoid(x) (also called swish)."""
    return input * input.sigmoid()


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (as in PyTorch). The
    soft branch sees 0 where the linear one is taken, so that exp cannot overflow there and
    spoil the gradient with inf * 0."""
    scaled = input * beta
    linear = scaled.data > threshold
    soft = scaled.masked_fill(linear, 0.0).exp().log1p() / beta
    return ops.Where.apply(input, soft, cond=linear)


def mish(input: Tensor) -> Tensor:
    """x * tanh(softplus(x))."""
    return input * softplus(input).tanh()


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed as min(x, 0) - log(1 + exp(-|x|)), which neither overflows nor
    rounds to log(0) for large |x|."""
    return input.minimum(0) - (-input.abs()).exp().log1p()


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (1 + input.abs())


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """x limited to [min_val, max_val]. Unlike clamp, the gradient is 0 at the bounds too, as
    in PyTorch."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    return (input.masked_fill(input.data <= min_val, min_val)
            .masked_fill(input.data >= max_val, max_val))


def relu6(input: Tensor) -> Tensor:
    """min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0)


def hardsigmoid(input: Tensor) -> Tensor:
    """relu6(x + 3) / 6: 0 below -3, 1 above 3, linear between."""
    return relu6(input + 3) / 6


def hardswish(input: Tensor) -> Tensor:
    """x * hardsigmoid(x)."""
    return input * hardsigmoid(input)


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
    if input.ndim == 0:  # one entry, as a row of one (PyTorch allows dim 0 or -1)
        return softmax(input.reshape(1), dim).reshape(())
    if is_fused_enabled():
        return kernels.Softmax.apply(input, dim=dim)
    e = (input - _row_max(input, dim)).exp()
    total = e.sum(dim, keepdim=True)
    return e / total.masked_fill(total.data == 0, 1.0)


def log_softmax(input: Tensor, dim: int = -1) -> Tensor:
    """x - log(sum(exp(x))) along `dim`, computed stably."""
    if input.ndim == 0:  # one entry, as a row of one (PyTorch allows dim 0 or -1)
        return log_softmax(input.reshape(1), dim).reshape(())
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
