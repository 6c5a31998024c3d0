"""Tier 2, compositions: `import minigrad.functional as F`, PyTorch's `torch.nn.functional`.

Every function here is written from primitives (Tensor methods and `minigrad/ops/`) in a few
readable lines and has no backward of its own. Where a fused kernel (`minigrad/kernels.py`)
computes the same thing faster, the function uses it unless `minigrad.fused(False)` is in force;
the lines below the `if` are then what runs, and what `draw_graph` shows.
"""
from __future__ import annotations

import functools
import itertools
import math
from typing import Callable, Sequence

import numpy as np

from . import kernels, ops
from .engine import ArrayLike, _broadcasts_to, is_fused_enabled, no_grad
from .errors import InvalidArgumentError, InvalidIndexError, InvalidTypeError
from .tensor import Tensor, _as_array, _dim, _dim_list, _existing_dim, _promote_types
from .tensor_functions import cat, einsum, stack, where


# --------------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, with weight (out_features, in_features) and a bias that
    broadcasts to the output: (out,) for a Linear layer, (1,) or one per row as PyTorch also
    takes (minigrad takes any shape that broadcasts); or weight (in_features,): one output,
    whose dim is dropped."""
    out_shape = input.shape[:-1] + weight.shape[:-1]
    if input.ndim == 0 or weight.ndim not in (1, 2) or input.shape[-1] != weight.shape[-1] or (
            bias is not None and not _broadcasts_to(bias.shape, out_shape)):
        raise InvalidArgumentError(f"linear: input {input.shape}, weight {weight.shape} and bias "
                                   f"{None if bias is None else bias.shape} do not fit: need input "
                                   f"(..., in), weight (out, in) or (in,), and a bias that "
                                   f"broadcasts to the output's shape {out_shape}")
    if is_fused_enabled() and weight.ndim == 2 and (bias is None or bias.shape == weight.shape[:1]):
        return kernels.Affine.apply(input, weight, *([] if bias is None else [bias]))
    out = input @ (weight.T if weight.ndim == 2 else weight)
    return out if bias is None else out + bias


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None
             ) -> Tensor:
    """out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o], as
    F.bilinear: an einsum, so the gradient is its matmuls'."""
    if (weight.ndim != 3 or input1.shape[-1:] != weight.shape[1:2]
            or input2.shape[-1:] != weight.shape[2:] or input1.shape[:-1] != input2.shape[:-1]
            or (bias is not None and bias.shape != weight.shape[:1])):
        raise InvalidArgumentError(f"bilinear: input1 {input1.shape}, input2 {input2.shape}, "
                                   f"weight {weight.shape} and bias "
                                   f"{None if bias is None else bias.shape} do not fit: need "
                                   f"(..., in1), (..., in2), (out, in1, in2) and (out,)")
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


def embedding(input: ArrayLike, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0) -> Tensor:
    """Rows of `weight` picked by the integer ids in `input` (any shape). The row
    `padding_idx` (if given) gets no gradient, as in PyTorch. With `max_norm`, the rows
    picked whose `norm_type`-norm exceeds it are first scaled down to it in `weight` itself,
    outside the graph, as PyTorch's embedding_renorm_ does."""
    ids = np.array(_as_array(input))  # a copy: backward reads it, the caller may change theirs
    if ids.dtype.kind not in "iu":
        raise InvalidTypeError(f"embedding: ids must be integers, got dtype {ids.dtype}")
    if weight.ndim != 2:
        raise InvalidArgumentError(f"embedding: weight must be 2-D (num_embeddings, "
                                   f"embedding_dim), got shape {weight.shape}")
    if ids.size and (ids.min() < 0 or ids.max() >= len(weight)):
        # an IndexError, as PyTorch's embedding raises; a RuntimeError, as its embedding_bag
        raise InvalidIndexError(f"embedding: ids must lie in [0, {len(weight)}), got values "
                                f"from {ids.min()} to {ids.max()}")
    if max_norm is not None:
        _renormalize_rows(weight, np.unique(ids), max_norm, norm_type)
    if padding_idx is not None:
        if not -len(weight) <= padding_idx < len(weight):
            raise AssertionError(f"embedding: padding_idx must be within num_embeddings "
                                 f"({len(weight)}), got {padding_idx}")
        rows = embedding(ids, weight)
        padding = (ids == padding_idx % len(weight))[..., None]
        return ops.Where.apply(rows.detach(), rows, cond=padding)
    if is_fused_enabled():
        return kernels.Embedding.apply(weight, ids=ids)
    return weight[ids]


def _renormalize_rows(weight: Tensor, rows: np.ndarray, max_norm: float, norm_type: float
                      ) -> None:
    """embedding's max_norm: the `rows` of `weight` whose norm exceeds max_norm scaled by
    max_norm / (norm + 1e-7), in place (PyTorch's formula); a change of weight's version, so
    a graph whose backward reads weight (a matmul with it, ...) refuses its backward, as in
    PyTorch; embedding's own backward reads only the ids, so one Embedding may look up twice."""
    used = weight.data[rows]
    norms = np.linalg.norm(used, ord=norm_type, axis=1, keepdims=True)
    with no_grad():
        weight[rows] = np.where(norms > max_norm, used * (max_norm / (norms + 1e-7)), used)


def embedding_bag(input: ArrayLike, weight: Tensor, offsets: ArrayLike | None = None,
                  max_norm: float | None = None, norm_type: float = 2.0, *,
                  mode: str = "mean", per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> Tensor:
    """PyTorch's F.embedding_bag: the rows of `weight` picked by the ids of each bag, summed,
    averaged or maxed (mode 'sum', 'mean', 'max'), one row (B, embedding_dim) per bag. The
    bags are the rows of a 2-D `input` (B, N), or of a 1-D `input` the runs starting at
    `offsets` (B,) (offsets[0] = 0), each ending where the next starts and the last at the end
    of the input; with include_last_offset, offsets (B + 1,) also gives the last bag's end.
    Entries equal to `padding_idx` count for nothing (not in a mean's count either); an empty
    bag gives zeros. `per_sample_weights` (input's shape; mode 'sum' only) scales each entry,
    and gets a gradient. max_norm as F.embedding's."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights is only supported for "
                                  f"mode='sum' (got mode={mode!r})")
    ids = np.asarray(_as_array(input))
    flat, slots, in_bag = _bags(ids, offsets, include_last_offset)
    if padding_idx is not None:
        if not -len(weight) <= padding_idx < len(weight):
            raise InvalidArgumentError(f"embedding_bag: padding_idx must be within the number "
                                       f"of embeddings ({len(weight)}), got {padding_idx}")
        in_bag = in_bag & (flat[slots] != padding_idx % len(weight))
    # (bags, longest bag, dim): each bag's rows, the places past its end (or at padding) masked
    rows = embedding(flat, weight, max_norm=max_norm, norm_type=norm_type)[slots]
    if per_sample_weights is not None:
        if per_sample_weights.shape != ids.shape:
            raise ValueError(f"embedding_bag: per_sample_weights must have the input's shape "
                             f"{ids.shape}, got {per_sample_weights.shape}")
        if per_sample_weights.dtype != weight.dtype:
            raise InvalidTypeError(f"embedding_bag: per_sample_weights "
                                   f"({per_sample_weights.dtype}) must have weight's dtype "
                                   f"({weight.dtype})")
        rows = rows * per_sample_weights.reshape(-1)[slots].unsqueeze(-1)
    outside = ~in_bag[..., None]
    counts = in_bag.sum(1, keepdims=True)
    if mode == "max" and rows.shape[1]:  # (a dim of length 0 has no max: every bag is empty)
        return rows.masked_fill(outside, -np.inf).max(1).values.masked_fill(counts == 0, 0.0)
    total = rows.masked_fill(outside, 0.0).sum(1)
    return total / np.maximum(counts, 1).astype(total.dtype) if mode == "mean" else total


def _bags(ids: np.ndarray, offsets: ArrayLike | None, include_last_offset: bool
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """embedding_bag's bags as (the ids flattened, slots (B, L): each bag's places in them,
    padded to the longest bag L, in_bag (B, L): False at the padding)."""
    if ids.ndim not in (1, 2):
        raise ValueError(f"embedding_bag: input has to be 1D or 2D, got {ids.ndim} dims")
    if ids.ndim == 2:
        if offsets is not None:
            raise ValueError("embedding_bag: if input is 2D, offsets has to be None (each row "
                             "is a bag)")
        return ids.reshape(-1), np.arange(ids.size).reshape(ids.shape), \
            np.ones(ids.shape, bool)
    if offsets is None:
        raise ValueError("embedding_bag: a 1D input needs offsets, a 1D tensor of where each "
                         "bag starts")
    offsets = np.asarray(_as_array(offsets))
    if offsets.ndim != 1:
        raise ValueError(f"embedding_bag: offsets has to be a 1D tensor, got {offsets.ndim} "
                         f"dims")
    if offsets.dtype.kind not in "iu":
        raise InvalidTypeError(f"embedding_bag: offsets must be integers, got {offsets.dtype}")
    if include_last_offset and not len(offsets):
        raise InvalidArgumentError("embedding_bag: with include_last_offset, offsets holds "
                                   "every bag's start and the last bag's end: at least 1 entry")
    bounds = offsets if include_last_offset else np.append(offsets, len(ids))
    if len(offsets) and (offsets[0] != 0 or bounds[-1] > len(ids)
                         or np.any(np.diff(bounds) < 0)):
        raise InvalidArgumentError(f"embedding_bag: offsets must start at 0, never decrease "
                                   f"and not pass the input's length {len(ids)}, got "
                                   f"{offsets.tolist()}")
    starts, lengths = bounds[:-1], np.diff(bounds)
    places = np.arange(lengths.max(initial=0))
    in_bag = places < lengths[:, None]
    return ids, np.where(in_bag, starts[:, None] + places, 0), in_bag


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int],
               weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing `normalized_shape` dims to mean 0 and variance 1 (biased),
    then `* weight + bias` when given."""
    shape = _trailing_shape("layer_norm", input, normalized_shape, weight=weight, bias=bias)
    if is_fused_enabled() and len(shape) == 1 and min(input.shape) > 0:
        return kernels.LayerNorm.apply(
            input, np.ones(shape, input.dtype) if weight is None else weight,
            np.zeros(shape, input.dtype) if bias is None else bias, eps=eps)
    out = _standardize(input, tuple(range(-len(shape), 0)), eps)
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def rms_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x**2) + eps) over the trailing `normalized_shape` dims, then `* weight`
    when given; eps defaults to the machine epsilon of the input's dtype, as in PyTorch."""
    shape = _trailing_shape("rms_norm", input, normalized_shape, weight=weight)
    eps = np.finfo(input.dtype).eps if eps is None else eps
    out = input * ((input * input).mean(tuple(range(-len(shape), 0)), keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def _trailing_shape(name: str, input: Tensor, normalized_shape: int | Sequence[int],
                    **parameters: Tensor | None) -> tuple[int, ...]:
    """layer_norm's and rms_norm's normalized_shape as a tuple, checked to be the trailing
    dims of a floating-point input, and the shape of each parameter given (weight, bias)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if input.shape[input.ndim - len(shape):] != shape or len(shape) > input.ndim or not shape:
        raise InvalidArgumentError(f"{name}: normalized_shape {shape} must be the trailing "
                                   f"dims of the input {input.shape}")
    for parameter, value in parameters.items():
        if value is not None and value.shape != shape:
            raise InvalidArgumentError(f"{name}: {parameter} must have shape {shape}, got "
                                       f"{value.shape}")
    input._require_floating(name)
    return shape


def _standardize(input: Tensor, dims: tuple[int, ...], eps: float) -> Tensor:
    """(x - mean) / sqrt(var + eps) over `dims`, with the biased variance: the normalisation
    shared by layer_norm, batch_norm and group_norm."""
    centered = input - input.mean(dims, keepdim=True)
    variance = (centered * centered).mean(dims, keepdim=True)
    return centered / (variance + eps).sqrt()


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1 of (N, C, ...)) to mean 0 and variance 1, then
    `* weight + bias` per channel. Training uses the batch's statistics (biased variance) and
    moves the running ones towards them in place, `running = (1 - momentum) * running +
    momentum * batch`, with the unbiased variance as PyTorch; otherwise the running statistics
    are used."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected input (N, C, ...), got shape {input.shape}")
    input._require_floating("batch_norm")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.shape != (channels,):
            raise RuntimeError(f"batch_norm: {name} should have shape ({channels},), got "
                               f"{t.shape}")
    along = (1, channels) + (1,) * (input.ndim - 2)  # broadcasts a (C,) vector over dim 1
    dims = (0, *range(2, input.ndim))
    if training:
        count = math.prod(input.shape[d] for d in dims)
        if count <= 1:
            raise ValueError(f"batch_norm: expected more than 1 value per channel when "
                             f"training, got input of shape {input.shape}")
        if (running_mean is None) != (running_var is None):  # PyTorch's check and class
            raise ValueError("batch_norm: running_mean and running_var must either both be None "
                             "or neither be None")
        out = _standardize(input, dims, eps)
        if running_mean is not None:
            mean = input.data.mean(axis=dims)
            unbiased = input.data.var(axis=dims) * (count / (count - 1))
            running_mean.data[...] = (1 - momentum) * running_mean.data + momentum * mean
            running_var.data[...] = (1 - momentum) * running_var.data + momentum * unbiased
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be given when "
                               "not training")
        mean = running_mean.detach().to(input.dtype).reshape(along)
        variance = running_var.detach().to(input.dtype).reshape(along)
        out = (input - mean) / (variance + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(along)
    return out if bias is None else out + bias.reshape(along)


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample of (N, C, ...) over its spatial dims to mean 0 and
    variance 1 (biased), then `* weight + bias` per channel. The running statistics, when
    given, move towards the samples' average statistics as in batch_norm; with
    use_input_stats=False they are used instead, as batch_norm's eval."""
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    if input.ndim < 3:
        raise InvalidArgumentError(f"instance_norm: expected input (N, C, ...) with spatial "
                                   f"dims, got shape {input.shape}")
    n, channels = input.shape[:2]
    if math.prod(input.shape[2:]) <= 1:  # checked here: batch_norm's message would name itself
        raise ValueError(f"instance_norm: expected more than 1 spatial element when training, "
                         f"got input of shape {input.shape}")
    # as PyTorch: batch_norm of one sample whose channels are every (sample, channel) pair
    per_instance = [None if t is None else Tensor(np.tile(t.data, n))
                    for t in (running_mean, running_var)]
    out = batch_norm(input.reshape(1, n * channels, *input.shape[2:]), *per_instance,
                     training=True, momentum=momentum, eps=eps).reshape(input.shape)
    for running, moved in zip((running_mean, running_var), per_instance):
        if running is not None:
            running.data[...] = moved.data.reshape(n, channels).mean(0)
    along = (1, channels) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(along)
    return out if bias is None else out + bias.reshape(along)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Split the channels (dim 1 of (N, C, ...)) into `num_groups` groups and normalise each
    group of each sample to mean 0 and variance 1 (biased), then `* weight + bias` per
    channel."""
    if input.ndim < 2 or num_groups < 1 or input.shape[1] % num_groups:
        raise RuntimeError(f"group_norm: expected input (N, C, ...) with C divisible by "
                           f"num_groups ({num_groups}), got shape {input.shape}")
    input._require_floating("group_norm")
    n, channels = input.shape[:2]
    # the group size spelled out: -1 is ambiguous when N is 0 (PyTorch returns an empty batch)
    grouped = input.reshape(n, num_groups, channels // num_groups * math.prod(input.shape[2:]))
    out = _standardize(grouped, (2,), eps).reshape(input.shape)
    along = (1, channels) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(along)
    return out if bias is None else out + bias.reshape(along)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Krizhevsky et al.'s normalisation across channels, as PyTorch's: x / (k + alpha * m) **
    beta along dim 1 of (N, C, *), m the mean of x**2 over the `size` channels from size // 2
    before to (size - 1) // 2 after (zeros past the edges, still counted)."""
    if input.ndim < 3:
        raise InvalidArgumentError(f"local_response_norm: expected 3D or higher "
                                   f"dimensionality input (got {input.ndim} dimensions)")
    channels = input.shape[1]
    # the channels are dim 1: (before, after) for it, none for the dims after it
    squares = pad(input * input, [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2])
    window = sum(squares.narrow(1, offset, channels) for offset in range(size))
    return input / (window * (alpha / size) + k) ** beta


def normalize(input: Tensor, p: float = 2.0, dim: int | Sequence[int] = 1,
              eps: float = 1e-12) -> Tensor:
    """input / max(||input||_p, eps) along `dim` (an int or a tuple of them): unit p-norm
    vectors; `eps` keeps an all-zero vector finite (it stays 0). p is a positive float or
    math.inf."""
    input._require_floating("normalize")
    if not p > 0:
        raise ValueError(f"normalize: p must be positive (or math.inf), got {p}")
    _dim_list("normalize", dim, input.ndim)  # an int or a tuple of ints, as PyTorch's
    if p == math.inf:
        norm = input.abs().amax(dim, keepdim=True)
        small = norm.data < eps
    else:
        total = (input.abs() ** p).sum(dim, keepdim=True)
        # below eps the norm is replaced by eps, so it must not be differentiated there either:
        # the gradient of total ** (1/p) at total = 0 is 0 * inf = NaN
        small = total.data ** (1 / p) < eps
        norm = total.masked_fill(small, 1.0) ** (1 / p)
    return input / norm.masked_fill(small, eps)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """x1 . x2 / (max(||x1||, eps) max(||x2||, eps)) along `dim`, after broadcasting x1 and x2
    against each other; their common dtype must be floating point. As in PyTorch, which clamps
    the norms in place under no_grad, the clamp changes the value only: the gradient flows
    through each norm as if it were not clamped."""
    dtype = _promote_types(x1.dtype, x2.dtype)
    if dtype.kind != "f":
        raise InvalidTypeError(f"cosine_similarity: expected a floating point common dtype, "
                               f"got {dtype}")
    try:
        shape = np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise InvalidArgumentError(f"cosine_similarity: shapes {x1.shape} and {x2.shape} do not "
                                   f"broadcast together") from None

    def unit(x: Tensor) -> Tensor:
        norm = x.norm(2, dim, keepdim=True)
        return x / (norm + (norm.clamp(min=eps) - norm).detach())

    return (unit(x1.to(dtype).broadcast_to(shape)) * unit(x2.to(dtype).broadcast_to(shape))
            ).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p along the last dim, after broadcasting x1 and x2 against each other;
    eps keeps the gradient finite where x1 = x2."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between the rows of (N, M) `input`, each pair i < j once, in the
    order (0, 1), (0, 2), ..., (1, 2), ...: (N (N - 1) / 2,), as torch.pdist."""
    if input.ndim != 2:
        raise InvalidArgumentError(f"pdist: expected a 2-D input (N, M), got shape "
                                   f"{input.shape}")
    first, second = np.triu_indices(input.shape[0], k=1)
    return (input[first] - input[second]).norm(p, -1)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with its channels read as (groups, C / groups) and written out transposed:
    channel g * (C / groups) + k goes to k * groups + g, as ShuffleNet's (Zhang et al.)."""
    if input.ndim < 3 or groups < 1 or input.shape[1] % groups:
        raise InvalidArgumentError(f"channel_shuffle: expected (N, C, *) with C divisible by "
                                   f"groups ({groups}), got shape {input.shape}")
    n, channels, *rest = input.shape
    return input.reshape(n, groups, channels // groups, *rest).transpose(1, 2).reshape(
        input.shape)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r**2, H, W) to (*, C, H r, W r), r = upscale_factor: each group of r**2 channels
    becomes an r x r block of pixels, as torch.nn.functional.pixel_shuffle."""
    r = _shuffle_factor("pixel_shuffle", input, upscale_factor)
    *batch, channels, height, width = input.shape
    if channels % (r * r):
        raise InvalidArgumentError(f"pixel_shuffle: the channels ({channels}) must be divisible "
                                   f"by upscale_factor**2 = {r * r}")
    n = len(batch)
    blocks = input.reshape(*batch, channels // (r * r), r, r, height, width)
    # (..., C, r, r, H, W) -> (..., C, H, r, W, r)
    blocks = blocks.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return blocks.reshape(*batch, channels // (r * r), height * r, width * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) to (*, C r**2, H, W), the inverse of pixel_shuffle."""
    r = _shuffle_factor("pixel_unshuffle", input, downscale_factor)
    *batch, channels, height, width = input.shape
    if height % r or width % r:
        raise InvalidArgumentError(f"pixel_unshuffle: height and width ({height}, {width}) must "
                                   f"be divisible by downscale_factor {r}")
    n = len(batch)
    blocks = input.reshape(*batch, channels, height // r, r, width // r, r)
    # (..., C, H, r, W, r) -> (..., C, r, r, H, W)
    blocks = blocks.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return blocks.reshape(*batch, channels * r * r, height // r, width // r)


def _shuffle_factor(name: str, input: Tensor, factor: int) -> int:
    if input.ndim < 3:
        raise InvalidArgumentError(f"{name}: needs an input of at least 3 dims (*, C, H, W), got "
                                   f"shape {input.shape}")
    if not isinstance(factor, (int, np.integer)) or factor <= 0:
        raise InvalidArgumentError(f"{name}: the factor must be a positive int, got {factor!r}")
    return int(factor)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
            *, rng: np.random.Generator | None = None) -> Tensor:
    """Zero each entry with probability `p` and scale the rest by 1/(1-p); identity when not
    training or p == 0, all zeros when p == 1. `inplace` as the activations' (`_result`). Pass a
    seeded `rng` (keyword-only, after PyTorch's arguments) for reproducible masks."""
    return _dropout("dropout", input, p, training, inplace, rng, input.shape)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
              *, rng: np.random.Generator | None = None) -> Tensor:
    """dropout of whole channels: each (sample, channel) of an (N, C, L) or (C, L) input is
    zeroed with probability `p`, the others scaled by 1/(1-p)."""
    return _dropout("dropout1d", input, p, training, inplace, rng,
                    _channel_mask("dropout1d", input, 1))


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
              *, rng: np.random.Generator | None = None) -> Tensor:
    """dropout of whole channels of an (N, C, H, W) input; a 3-D input is read as (N, C, L),
    as PyTorch reads it (with a warning there)."""
    spatial = 1 if input.ndim == 3 else 2
    return _dropout("dropout2d", input, p, training, inplace, rng,
                    _channel_mask("dropout2d", input, spatial, batched_only=True))


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
              *, rng: np.random.Generator | None = None) -> Tensor:
    """dropout of whole channels of an (N, C, D, H, W) or (C, D, H, W) input."""
    return _dropout("dropout3d", input, p, training, inplace, rng,
                    _channel_mask("dropout3d", input, 3))


def _channel_mask(name: str, input: Tensor, spatial: int, batched_only: bool = False
                  ) -> tuple[int, ...]:
    """The shape of a mask with one entry per channel (and sample): the input's, with the
    `spatial` trailing dims 1."""
    allowed = (spatial + 2,) if batched_only else (spatial + 1, spatial + 2)
    if input.ndim not in allowed:
        raise InvalidArgumentError(f"{name}: needs an input of {' or '.join(map(str, allowed))} "
                                   f"dims, got shape {input.shape}")
    return input.shape[:input.ndim - spatial] + (1,) * spatial


def _dropout(name: str, input: Tensor, p: float, training: bool, inplace: bool,
             rng: np.random.Generator | None, mask_shape: tuple[int, ...],
             alpha: bool = False) -> Tensor:
    """input times a mask of `mask_shape` (broadcast to the input): 0 with probability p, else
    1/(1-p); with `alpha`, alpha dropout's instead (`_alpha_dropped`). With `inplace`, written
    into the input as the activations' are (`_result`)."""
    if not 0 <= p <= 1:
        raise ValueError(f"{name}: p must be in [0, 1], got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return _result(name, input, input * 0, inplace)
    # the kept entries are scaled: PyTorch refuses integers here, and only here
    input._require_floating(name)
    rng = rng if rng is not None else np.random.default_rng()
    keep = rng.random(mask_shape) >= p
    if alpha:
        return _result(name, input, _alpha_dropped(input, keep, p), inplace)
    return _result(name, input, input * (keep / input.dtype.type(1 - p)).astype(input.dtype),
                   inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False, *, rng: np.random.Generator | None = None) -> Tensor:
    """Dropout for SELU networks (Klambauer et al.): each entry is set, with probability p, to
    SELU's saturation value -alpha' (alpha' = scale * alpha), then all are scaled and shifted
    by PyTorch's a and b so that inputs of mean 0 and variance 1 keep them. Identity when not
    training (PyTorch's default here) or p == 0, zeros when p == 1."""
    return _dropout("alpha_dropout", input, p, training, inplace, rng, input.shape, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False, *,
                          rng: np.random.Generator | None = None) -> Tensor:
    """alpha_dropout of whole channels: one draw per (sample, channel) of (N, C, *)."""
    return _feature_dropout("feature_alpha_dropout", input, p, training, inplace, rng,
                            alpha=True)


def _feature_dropout(name: str, input: Tensor, p: float, training: bool, inplace: bool,
                     rng: np.random.Generator | None, alpha: bool = False) -> Tensor:
    """Dropout of whole channels, one draw per (sample, channel) of (N, C, *): torch's
    feature_dropout, and with `alpha` feature_alpha_dropout."""
    if input.ndim < 2:
        raise InvalidArgumentError(f"{name}: feature dropout requires at least 2 dimensions in "
                                   f"the input (N, C, *), got shape {input.shape}")
    return _dropout(name, input, p, training, inplace, rng,
                    input.shape[:2] + (1,) * (input.ndim - 2), alpha=alpha)


def _alpha_dropped(input: Tensor, keep: np.ndarray, p: float) -> Tensor:
    """input * (keep * a) + (keep - 1) alpha' a + alpha' a p, a = 1 / sqrt((alpha'**2 p + 1)
    (1 - p)): PyTorch's formulas."""
    keep = keep.astype(input.dtype)
    saturation = _SELU_ALPHA * _SELU_SCALE
    a = 1 / math.sqrt((saturation ** 2 * p + 1) * (1 - p))
    shift = ((keep - 1) * (saturation * a) + saturation * a * p).astype(input.dtype)
    return input * (keep * a).astype(input.dtype) + shift


# --------------------------------------------------------------------------------------------
# Convolution and pooling: compositions over the sliding-window primitive `ops.Unfold`
# --------------------------------------------------------------------------------------------
def unfold(input: Tensor, kernel_size: int | Sequence[int], dilation: int | Sequence[int] = 1,
           padding: int | Sequence[int] = 0, stride: int | Sequence[int] = 1) -> Tensor:
    """The (kH, kW) windows of (N, C, H, W) as columns: (N, C * kH * kW, L), L = the number of
    window positions (im2col); an unbatched (C, H, W) gives (C * kH * kW, L). Zero padding."""
    x, batched = _batched("unfold", input, 2, "(N, C, H, W) or (C, H, W)")
    kernel = _ints("unfold", "kernel_size", kernel_size, 2, minimum=1)
    padding = tuple((p, p) for p in _ints("unfold", "padding", padding, 2, minimum=0))
    geometry = _window_geometry("unfold", x.shape[2:], kernel, dilation, padding, stride)
    windows = ops.Unfold.apply(x, **geometry)
    n, c, kh, kw, out_h, out_w = windows.shape
    out = windows.reshape(n, c * kh * kw, out_h * out_w)
    return out if batched else out.reshape(out.shape[1:])


def fold(input: Tensor, output_size: int | Sequence[int], kernel_size: int | Sequence[int],
         dilation: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
         stride: int | Sequence[int] = 1) -> Tensor:
    """unfold's adjoint (col2im): the columns of (N, C * kH * kW, L), or (C * kH * kW, L), put
    back as (kH, kW) blocks of an (N, C, *output_size) image, entries that overlap added up.
    Composed: each column entry is added at its place in the padded image (index_add), and
    the padding is cut off; so the gradient is unfold's of the upstream one."""
    name = "fold"
    if input.ndim not in (2, 3):
        raise InvalidArgumentError(f"{name}: expected input (N, C * kH * kW, L) or "
                                   f"(C * kH * kW, L), got shape {input.shape}")
    x = input if input.ndim == 3 else input.reshape(1, *input.shape)
    height, width = _ints(name, "output_size", output_size, 2, minimum=1)
    (kh, kw) = _ints(name, "kernel_size", kernel_size, 2, minimum=1)
    (dh, dw) = _ints(name, "dilation", dilation, 2, minimum=1)
    (ph, pw) = _ints(name, "padding", padding, 2, minimum=0)
    (sh, sw) = _ints(name, "stride", stride, 2, minimum=1)
    n, column_size, length = x.shape
    blocks_h = (height + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    blocks_w = (width + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if column_size % (kh * kw) or blocks_h < 1 or blocks_w < 1 or blocks_h * blocks_w != length:
        raise InvalidArgumentError(
            f"{name}: input {input.shape} does not fit: dim -2 must be a multiple of "
            f"kH * kW = {kh * kw}, and dim -1 the number of blocks in output_size "
            f"{(height, width)} ({max(blocks_h, 0)} * {max(blocks_w, 0)})")
    channels, padded_width = column_size // (kh * kw), width + 2 * pw
    # the place in the padded image of kernel entry (i, j) of block (bh, bw), in the order
    # of the input's (kH * kW, L) entries
    rows = (np.arange(kh) * dh)[:, None, None, None] + (np.arange(blocks_h) * sh)[:, None]
    cols = (np.arange(kw) * dw)[None, :, None, None] + np.arange(blocks_w) * sw
    places = (rows * padded_width + cols).reshape(-1)
    image = x.new_zeros(n, channels, (height + 2 * ph) * padded_width)
    image = image.index_add(2, places, x.reshape(n, channels, -1))
    image = image.reshape(n, channels, height + 2 * ph, padded_width)[
        :, :, ph:ph + height, pw:pw + width]
    return image if input.ndim == 3 else image.reshape(image.shape[1:])


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
           stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation (what deep learning calls convolution) of (N, C_in, H, W), or an
    unbatched (C_in, H, W), with `weight` (C_out, C_in / groups, kH, kW), plus `bias` (C_out,).
    `padding` is zeros: an int, (pad_h, pad_w), 'valid' (none) or 'same' (output size = input
    size; stride 1 only). With `groups` > 1 the channels split into groups convolved
    separately."""
    return _convolution("conv2d", input, weight, bias, stride, padding, dilation, groups, 2)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
           stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of (N, C_in, L), or an unbatched (C_in, L), with `weight`
    (C_out, C_in / groups, k), plus `bias` (C_out,); arguments as in conv2d."""
    return _convolution("conv1d", input, weight, bias, stride, padding, dilation, groups, 1)


def max_pool2d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The max of each (kH, kW) window of (N, C, H, W) or (C, H, W); `stride` defaults to the
    kernel size, padding counts as -inf. As in PyTorch the gradient goes to one entry per window,
    its first maximum (its last NaN if it has any; never the padding, even where the entries
    are -inf); `return_indices=True` also returns where that is, as the flat index h * W + w in
    its input plane (int64)."""
    x, batched = _batched("max_pool2d", input, 2, "(N, C, H, W) or (C, H, W)", floating=False)
    geometry = _pool_geometry("max_pool2d", x.shape[2:], kernel_size, stride, padding, dilation,
                              ceil_mode)
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min  # integers pool too
    windows = ops.Unfold.apply(x, **geometry, pad_value=lowest)
    n, c, kh, kw, out_h, out_w = windows.shape
    windows = windows.reshape(n, c, kh * kw, out_h, out_w)
    values = windows.data
    winner = values.argmax(axis=2)  # the first maximum, or the first NaN
    if x.dtype.kind == "f":  # PyTorch's scan lets a later NaN replace a NaN: the last one wins
        nans = np.isnan(values)
        winner = np.where(nans.any(axis=2), kh * kw - 1 - nans[:, :, ::-1].argmax(axis=2), winner)
    (top, _), (left, _) = geometry["padding"]
    (sh, sw), (dh, dw) = geometry["stride"], geometry["dilation"]
    first_row, first_col = np.arange(out_h)[:, None] * sh - top, np.arange(out_w) * sw - left
    i, j = np.divmod(winner, kw)  # the winner's offset in its window
    # where the window's entries all equal the padding value the padding ties with them, but
    # PyTorch's scan starts at the window's first entry inside the input: that one wins
    padding_won = (first_row + i * dh < 0) | (first_col + j * dw < 0)
    i = np.where(padding_won, np.maximum(0, -(first_row // dh)), i)
    j = np.where(padding_won, np.maximum(0, -(first_col // dw)), j)
    losers = np.arange(kh * kw)[:, None, None] != (i * kw + j)[:, :, None]
    out = windows.masked_fill(losers, 0).sum(2, dtype=x.dtype)
    out = out if batched else out.reshape(out.shape[1:])
    if not return_indices:
        return out
    indices = ((first_row + i * dh) * x.shape[3] + first_col + j * dw).astype(np.int64)
    return out, Tensor(indices if batched else indices[0])


def avg_pool2d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each (kH, kW) window of (N, C, H, W) or (C, H, W); `stride` defaults to the
    kernel size. The zero padding counts towards the mean unless `count_include_pad=False`;
    `divisor_override` replaces the window size as the divisor."""
    x, batched = _batched("avg_pool2d", input, 2, "(N, C, H, W) or (C, H, W)")
    geometry = _pool_geometry("avg_pool2d", x.shape[2:], kernel_size, stride, padding, 1,
                              ceil_mode)
    sums = ops.Unfold.apply(x, **geometry).sum((2, 3))
    out = _average("avg_pool2d", sums, x.shape[2:], geometry, count_include_pad,
                   divisor_override)
    return out if batched else out.reshape(out.shape[1:])


def max_pool1d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The max of each window of `kernel_size` entries along the last dim of (N, C, L) or
    (C, L): max_pool2d over a height of 1 (its gradient and indices)."""
    _batched("max_pool1d", input, 1, "(N, C, L) or (C, L)", floating=False)
    out = max_pool2d(input.unsqueeze(-2), *_as_width("max_pool1d", kernel_size, stride, padding,
                                                     dilation), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """The mean of each window of `kernel_size` entries along the last dim of (N, C, L) or
    (C, L): avg_pool2d over a height of 1."""
    _batched("avg_pool1d", input, 1, "(N, C, L) or (C, L)")
    kernel, step, pad, _ = _as_width("avg_pool1d", kernel_size, stride, padding, 1)
    return avg_pool2d(input.unsqueeze(-2), kernel, step, pad, ceil_mode,
                      count_include_pad).squeeze(-2)


def _as_width(name: str, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None,
              padding: int | Sequence[int], dilation: int | Sequence[int]) -> tuple:
    """A 1-D pool's kernel_size, stride, padding and dilation as a 2-D pool's over a height of
    1 (stride None: the kernel size, as in PyTorch)."""
    kernel = _ints(name, "kernel_size", kernel_size, 1, 1)[0]
    step = kernel if stride is None else _ints(name, "stride", stride, 1, 1)[0]
    return ((1, kernel), (1, step), (0, _ints(name, "padding", padding, 1, 0)[0]),
            (1, _ints(name, "dilation", dilation, 1, 1)[0]))


def avg_pool3d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each (kD, kH, kW) window of (N, C, D, H, W) or (C, D, H, W); arguments as
    in avg_pool2d. Composed: each depth offset of the window sums its planes' (kH, kW)
    windows, as in avg_pool2d, and the kD sums are added."""
    name = "avg_pool3d"
    x, batched = _batched(name, input, 3, "(N, C, D, H, W) or (C, D, H, W)")
    geometry = _pool_geometry(name, x.shape[2:], kernel_size, stride, padding, 1, ceil_mode)
    (depth_kernel, *kernel), (depth_stride, *strides) = geometry["kernel_size"], geometry["stride"]
    (front, back), *plane_padding = geometry["padding"]
    planes_of = dict(kernel_size=tuple(kernel), dilation=(1, 1), padding=tuple(plane_padding),
                     stride=tuple(strides))
    padded = pad(x, (0, 0, 0, 0, front, back))
    n, c, depth, h, w = padded.shape
    out_depth = (depth - depth_kernel) // depth_stride + 1
    sums = None
    for k in range(depth_kernel):
        planes = padded[:, :, k:k + (out_depth - 1) * depth_stride + 1:depth_stride]
        planes = planes.movedim(2, 1).reshape(n * out_depth, c, h, w)
        part = ops.Unfold.apply(planes, **planes_of).sum((2, 3))
        sums = part if sums is None else sums + part
    sums = sums.reshape(n, out_depth, c, *sums.shape[2:]).movedim(1, 2)
    out = _average(name, sums, x.shape[2:], geometry, count_include_pad, divisor_override)
    return out if batched else out.reshape(out.shape[1:])


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int | Sequence[int],
              stride: int | Sequence[int] | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm (p = norm_type) of each window along the last dim of (N, C, L) or (C, L):
    (sum of x**p) ** (1/p), the sum being avg_pool1d's mean times the kernel size, as
    PyTorch's (so a window that ceil_mode cuts short is scaled up alike)."""
    kernel = _ints("lp_pool1d", "kernel_size", kernel_size, 1, minimum=1)
    return _lp_pool(avg_pool1d(input ** norm_type, kernel, stride, 0, ceil_mode), norm_type,
                    kernel)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: int | Sequence[int],
              stride: int | Sequence[int] | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of each (kH, kW) window of (N, C, H, W) or (C, H, W), as lp_pool1d's."""
    kernel = _ints("lp_pool2d", "kernel_size", kernel_size, 2, minimum=1)
    return _lp_pool(avg_pool2d(input ** norm_type, kernel, stride, 0, ceil_mode), norm_type,
                    kernel)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: int | Sequence[int],
              stride: int | Sequence[int] | None = None, ceil_mode: bool = False) -> Tensor:
    """The p-norm of each (kD, kH, kW) window of (N, C, D, H, W) or (C, D, H, W), as
    lp_pool1d's."""
    kernel = _ints("lp_pool3d", "kernel_size", kernel_size, 3, minimum=1)
    return _lp_pool(avg_pool3d(input ** norm_type, kernel, stride, 0, ceil_mode), norm_type,
                    kernel)


def _lp_pool(means: Tensor, norm_type: float, kernel: tuple[int, ...]) -> Tensor:
    return (means * math.prod(kernel)) ** (1 / norm_type)


def adaptive_avg_pool2d(input: Tensor, output_size: int | None | Sequence[int | None]) -> Tensor:
    """Average (N, C, H, W) or (C, H, W) down to `output_size` (None keeps that dim): output
    row i is the mean of input rows floor(i H / out_h) to ceil((i + 1) H / out_h), as in
    PyTorch, and likewise for the columns."""
    return _adaptive_avg_pool("adaptive_avg_pool2d", input, output_size, 2)


def adaptive_avg_pool3d(input: Tensor, output_size: int | None | Sequence[int | None]) -> Tensor:
    """Average (N, C, D, H, W) or (C, D, H, W) down to `output_size` (None keeps that dim),
    binned in each dim as adaptive_avg_pool2d's."""
    return _adaptive_avg_pool("adaptive_avg_pool3d", input, output_size, 3)


def _adaptive_avg_pool(name: str, input: Tensor, output_size: int | None |
                       Sequence[int | None], spatial_dims: int) -> Tensor:
    """The adaptive average pools. The bins of the dims are independent, so it averages the
    bins of one dim after another."""
    x, batched, sizes = _adaptive_pool_input(name, input, output_size, spatial_dims)
    for dim, out_size in enumerate(sizes, start=2):
        bins = [x.narrow(dim, start, stop - start).mean(dim, keepdim=True)
                for start, stop in _adaptive_bins(x.shape[dim], out_size)]
        x = cat(bins, dim) if bins else x.narrow(dim, 0, 0)
    return x if batched else x.reshape(x.shape[1:])


def _adaptive_pool_input(name: str, input: Tensor, output_size: int | None |
                         Sequence[int | None], spatial_dims: int
                         ) -> tuple[Tensor, bool, tuple[int, ...]]:
    """The adaptive pools' input as (N, C, *spatial), whether it was batched, and the output's
    spatial sizes, None there meaning the input's."""
    shape = "(N, C, H, W) or (C, H, W)" if spatial_dims == 2 else \
        "(N, C, D, H, W) or (C, D, H, W)"
    x, batched = _batched(name, input, spatial_dims, shape)
    sizes = (output_size,) * spatial_dims if output_size is None or isinstance(
        output_size, (int, np.integer)) else tuple(output_size)
    if len(sizes) != spatial_dims or not all(
            s is None or (isinstance(s, (int, np.integer)) and s >= 0) for s in sizes):
        raise InvalidArgumentError(f"{name}: output_size must be an int, None or "
                                   f"{spatial_dims} of them, each >= 0, got {output_size!r}")
    if 0 in x.shape[2:]:  # a bin of an empty dim would have no mean or maximum
        raise InvalidArgumentError(f"{name}: expected input to have non-zero size for "
                                   f"non-batch dimensions, got shape {input.shape}")
    return x, batched, tuple(size if out is None else out for size, out in zip(x.shape[2:],
                                                                                sizes))


def _adaptive_bins(size: int, out_size: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive bins of a dim of `size`: bin i is [floor(i size / out_size),
    ceil((i + 1) size / out_size))."""
    return [(i * size // out_size, -(-(i + 1) * size // out_size)) for i in range(out_size)]


def adaptive_avg_pool1d(input: Tensor, output_size: int | Sequence[int]) -> Tensor:
    """Average (N, C, L) or (C, L) down to `output_size` entries along L, binned as in
    adaptive_avg_pool2d: adaptive_avg_pool2d over a height of 1."""
    _batched("adaptive_avg_pool1d", input, 1, "(N, C, L) or (C, L)")
    size = _ints("adaptive_avg_pool1d", "output_size", output_size, 1, minimum=0)[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def _first_max_or_last_nan(values: np.ndarray) -> np.ndarray:
    """Where along the last axis PyTorch's max pooling scan ends: the first maximum, or the last
    NaN where there is one (its scan takes a value that is larger, or NaN)."""
    winner = values.argmax(axis=-1)
    if values.dtype.kind == "f":
        nans = np.isnan(values)
        last_nan = values.shape[-1] - 1 - nans[..., ::-1].argmax(axis=-1)
        winner = np.where(nans.any(axis=-1), last_nan, winner)
    return winner


def _picked_in_planes(x: Tensor, places: np.ndarray, batched: bool, return_indices: bool
                      ) -> Tensor | tuple[Tensor, Tensor]:
    """The entries of (N, C, *spatial) x at the flat `places` (N, C, *out) of their input
    planes: gather, so the gradient goes to those entries alone; with their indices (int64)."""
    n, c = x.shape[:2]
    out = x.reshape(n, c, -1).gather(2, places.reshape(n, c, -1)).reshape(places.shape)
    indices = places.astype(np.int64)
    if not batched:
        out, indices = out.reshape(out.shape[1:]), indices[0]
    return (out, Tensor(indices)) if return_indices else out


def max_pool3d(input: Tensor, kernel_size: int | Sequence[int],
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The max of each (kD, kH, kW) window of (N, C, D, H, W) or (C, D, H, W); arguments,
    gradient (to the first maximum of each window, or its last NaN; never the padding) and
    indices (flat, d * H * W + h * W + w) as max_pool2d's. The winners are found in numpy and
    gathered, so the gradient is gather's."""
    name = "max_pool3d"
    x, batched = _batched(name, input, 3, "(N, C, D, H, W) or (C, D, H, W)", floating=False)
    geometry = _pool_geometry(name, x.shape[2:], kernel_size, stride, padding, dilation,
                              ceil_mode)
    spatial_axes = (2, 3, 4)
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min  # integers pool too
    padded = np.pad(x.data, ((0, 0), (0, 0), *geometry["padding"]), constant_values=lowest)
    inside = np.pad(np.ones(x.shape[2:], bool), geometry["padding"])

    def windows(a: np.ndarray) -> np.ndarray:
        """(..., *out, kD * kH * kW): each window's entries, dilation applied."""
        spans = [d * (k - 1) + 1 for k, d in zip(geometry["kernel_size"], geometry["dilation"])]
        view = np.lib.stride_tricks.sliding_window_view(a, spans, axis=tuple(range(-3, 0)))
        (sd, sh, sw), (dd, dh, dw) = geometry["stride"], geometry["dilation"]
        view = view[..., ::sd, ::sh, ::sw, ::dd, ::dh, ::dw]
        return view.reshape(*view.shape[:-3], -1)

    entries = windows(padded)
    entries_inside = np.broadcast_to(windows(inside), entries.shape)
    winner = _first_max_or_last_nan(entries)
    # where every entry inside the window is the lowest value the padding ties with them, but
    # PyTorch's scan starts at the window's first entry inside the input: that one wins. Its
    # start skips the padding before the input dim by dim (start += dilation while < 0), so a
    # window of padding alone (dilated across a small dim) gets the lowest value, no gradient,
    # and the index of that start, which may lie outside the plane, as PyTorch's
    won_by_padding = ~np.take_along_axis(entries_inside, winner[..., None], -1)[..., 0]
    offsets = np.unravel_index(winner, geometry["kernel_size"])  # the winner in its window
    coordinates = []
    for axis, size, step, (before, _), offset, dilate in zip(
            spatial_axes, winner.shape[2:], geometry["stride"], geometry["padding"], offsets,
            geometry["dilation"]):
        first = np.arange(size).reshape([-1 if k == axis else 1 for k in spatial_axes]
                                        ) * step - before
        offset = np.where(won_by_padding, np.maximum(0, -(first // dilate)), offset)
        coordinates.append(first + offset * dilate)
    d, h, w = np.broadcast_arrays(*coordinates)
    places = (d * x.shape[3] + h) * x.shape[4] + w
    empty = ~entries_inside.any(-1)
    if not empty.any():
        return _picked_in_planes(x, places, batched, return_indices)
    out = _picked_in_planes(x, np.minimum(places, math.prod(x.shape[2:]) - 1), batched, False)
    out = out.masked_fill(empty if batched else empty[0], lowest)
    return (out, Tensor(places.astype(np.int64) if batched else places[0].astype(np.int64))
            ) if return_indices else out


def adaptive_max_pool2d(input: Tensor, output_size: int | None | Sequence[int | None],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The max of each bin of (N, C, H, W) or (C, H, W), binned as adaptive_avg_pool2d's (None
    keeps that dim); the gradient goes to one entry per bin, its first maximum (its last NaN if
    it has any), as in PyTorch, and `return_indices=True` also returns where that is (flat,
    h * W + w, int64)."""
    return _adaptive_max_pool("adaptive_max_pool2d", input, output_size, 2, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: int | None | Sequence[int | None],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The max of each bin of (N, C, D, H, W) or (C, D, H, W), as adaptive_max_pool2d's (flat
    indices d * H * W + h * W + w)."""
    return _adaptive_max_pool("adaptive_max_pool3d", input, output_size, 3, return_indices)


def _adaptive_max_pool(name: str, input: Tensor, output_size: int | None |
                       Sequence[int | None], spatial_dims: int, return_indices: bool
                       ) -> Tensor | tuple[Tensor, Tensor]:
    """The adaptive max pools: each bin's winner found in numpy, then gathered."""
    x, batched, out_sizes = _adaptive_pool_input(name, input, output_size, spatial_dims)
    (n, c), in_sizes = x.shape[:2], x.shape[2:]
    bins = [_adaptive_bins(size, out) for size, out in zip(in_sizes, out_sizes)]
    places = np.zeros((n, c, *out_sizes), np.int64)
    for out_place in np.ndindex(*out_sizes):
        box = [bins[dim][i] for dim, i in enumerate(out_place)]
        block = x.data[(slice(None), slice(None), *(slice(start, stop) for start, stop in box))]
        winner = _first_max_or_last_nan(block.reshape(n, c, -1))
        offsets = np.unravel_index(winner, [stop - start for start, stop in box])
        places[(slice(None), slice(None), *out_place)] = np.ravel_multi_index(
            [start + offset for (start, _), offset in zip(box, offsets)], in_sizes)
    return _picked_in_planes(x, places, batched, return_indices)


def adaptive_max_pool1d(input: Tensor, output_size: int | Sequence[int],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The max of each bin of (N, C, L) or (C, L), binned as adaptive_avg_pool1d's:
    adaptive_max_pool2d over a height of 1 (its gradient; indices along L)."""
    _batched("adaptive_max_pool1d", input, 1, "(N, C, L) or (C, L)")
    size = _ints("adaptive_max_pool1d", "output_size", output_size, 1, minimum=0)[0]
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def fractional_max_pool2d(input: Tensor, kernel_size: int | Sequence[int],
                          output_size: int | Sequence[int] | None = None,
                          output_ratio: float | Sequence[float] | None = None,
                          return_indices: bool = False, _random_samples: ArrayLike | None = None,
                          *, rng: np.random.Generator | None = None
                          ) -> Tensor | tuple[Tensor, Tensor]:
    """Fractional max pooling (Graham 2014) of (N, C, H, W) or (C, H, W): the max of a
    (kH, kW) window at each of the `output_size` places (or floor(size * output_ratio)) per
    dim, the places pseudo-random: with alpha = (size - k) / (out - 1) and u uniform in
    [0, 1), place i starts at floor((i + u) * alpha) - floor(u * alpha), the last at size - k.
    u is drawn per sample, channel and dim, rng.random((N, C, 2)) of `rng` (keyword-only), or
    read from `_random_samples` (N, C, 2): its [..., 0] for W and [..., 1] for H, as
    PyTorch's, which computes the places in the input's dtype, as here. Gradient and indices (flat h * W + w)
    as max_pool2d's: the first maximum of each window, or its last NaN."""
    return _fractional_max_pool("fractional_max_pool2d", input, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples, rng, 2)


def fractional_max_pool3d(input: Tensor, kernel_size: int | Sequence[int],
                          output_size: int | Sequence[int] | None = None,
                          output_ratio: float | Sequence[float] | None = None,
                          return_indices: bool = False, _random_samples: ArrayLike | None = None,
                          *, rng: np.random.Generator | None = None
                          ) -> Tensor | tuple[Tensor, Tensor]:
    """fractional_max_pool2d of (N, C, T, H, W) or (C, T, H, W), `_random_samples` (N, C, 3)
    in the order T, H, W (PyTorch's); indices t * H * W + h * W + w."""
    return _fractional_max_pool("fractional_max_pool3d", input, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples, rng, 3)


def fractional_max_pool2d_with_indices(
        input: Tensor, kernel_size: int | Sequence[int],
        output_size: int | Sequence[int] | None = None,
        output_ratio: float | Sequence[float] | None = None, return_indices: bool = False,
        _random_samples: ArrayLike | None = None, *, rng: np.random.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool2d's (output, indices), whatever `return_indices` says."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples, rng=rng)


def fractional_max_pool3d_with_indices(
        input: Tensor, kernel_size: int | Sequence[int],
        output_size: int | Sequence[int] | None = None,
        output_ratio: float | Sequence[float] | None = None, return_indices: bool = False,
        _random_samples: ArrayLike | None = None, *, rng: np.random.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool3d's (output, indices), whatever `return_indices` says."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples, rng=rng)


def _fractional_max_pool(name: str, input: Tensor, kernel_size: int | Sequence[int],
                         output_size: int | Sequence[int] | None,
                         output_ratio: float | Sequence[float] | None, return_indices: bool,
                         random_samples: ArrayLike | None, rng: np.random.Generator | None,
                         spatial_dims: int) -> Tensor | tuple[Tensor, Tensor]:
    """The fractional max pools: each window's winner found in numpy, then gathered."""
    x, batched = _batched(name, input, spatial_dims,
                          "(N, C, H, W) or (C, H, W)" if spatial_dims == 2 else
                          "(N, C, T, H, W) or (C, T, H, W)")
    (n, c), sizes = x.shape[:2], x.shape[2:]
    kernel = _ints(name, "kernel_size", kernel_size, spatial_dims, minimum=1)
    if output_size is None:
        if output_ratio is None:
            raise InvalidArgumentError(f"{name} requires specifying either an output_size or "
                                       f"an output_ratio")
        ratios = tuple(output_ratio) if np.iterable(output_ratio) else \
            (output_ratio,) * spatial_dims
        output_size = [int(size * ratio) for size, ratio in zip(sizes, ratios)]
    out_sizes = _ints(name, "output_size", output_size, spatial_dims, minimum=1)
    for size, out, k in zip(sizes, out_sizes, kernel):
        if out + k - 1 > size:
            raise InvalidArgumentError(f"{name}: pool size {k} with output size {out} is too "
                                       f"large for an input of size {size}")
    if random_samples is None:
        rng = rng if rng is not None else np.random.default_rng()
        samples = rng.random((n, c, spatial_dims)).astype(x.dtype)
    else:
        samples = _as_array(random_samples).astype(x.dtype)
        if samples.shape != (n, c, spatial_dims):
            raise InvalidArgumentError(f"{name}: _random_samples must have shape "
                                       f"{(n, c, spatial_dims)}, got {samples.shape}")
    columns = (1, 0) if spatial_dims == 2 else (0, 1, 2)  # PyTorch's: 2-D reads W's first
    # each window's entries as coordinates (N, C, *out, *kernel), one array per dim
    coordinates = []
    for axis, (size, out, k, column) in enumerate(zip(sizes, out_sizes, kernel, columns)):
        u = samples[..., column]
        starts = np.full((n, c, out), size - k, np.int64)
        if out > 1:
            alpha = x.dtype.type(size - k) / x.dtype.type(out - 1)
            steps = np.arange(out - 1, dtype=x.dtype)
            starts[..., :-1] = ((steps + u[..., None]) * alpha).astype(np.int64) \
                - (u * alpha).astype(np.int64)[..., None]
        in_out = [out if a == axis else 1 for a in range(spatial_dims)]
        in_kernel = [k if a == axis else 1 for a in range(spatial_dims)]
        coordinates.append(starts.reshape(n, c, *in_out, *[1] * spatial_dims)
                           + np.arange(k).reshape(in_kernel))
    entries = np.ravel_multi_index(np.broadcast_arrays(*coordinates), sizes).reshape(
        n, c, *out_sizes, -1)
    values = np.take_along_axis(x.data.reshape(n, c, 1, -1), entries.reshape(n, c, 1, -1),
                                -1).reshape(entries.shape)
    winner = _first_max_or_last_nan(values)
    places = np.take_along_axis(entries, winner[..., None], -1)[..., 0]
    return _picked_in_planes(x, places, batched, return_indices)


def max_pool1d_with_indices(input: Tensor, kernel_size: int | Sequence[int],
                            stride: int | Sequence[int] | None = None,
                            padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                            ceil_mode: bool = False, return_indices: bool = False
                            ) -> tuple[Tensor, Tensor]:
    """max_pool1d's (output, indices), whatever `return_indices` says, as PyTorch's."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: int | Sequence[int],
                            stride: int | Sequence[int] | None = None,
                            padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                            ceil_mode: bool = False, return_indices: bool = False
                            ) -> tuple[Tensor, Tensor]:
    """max_pool2d's (output, indices), whatever `return_indices` says, as PyTorch's."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: int | Sequence[int],
                            stride: int | Sequence[int] | None = None,
                            padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                            ceil_mode: bool = False, return_indices: bool = False
                            ) -> tuple[Tensor, Tensor]:
    """max_pool3d's (output, indices), whatever `return_indices` says, as PyTorch's."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: int | Sequence[int],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool1d's (output, indices), whatever `return_indices` says."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor,
                                     output_size: int | None | Sequence[int | None],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool2d's (output, indices), whatever `return_indices` says."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor,
                                     output_size: int | None | Sequence[int | None],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool3d's (output, indices), whatever `return_indices` says."""
    return adaptive_max_pool3d(input, output_size, True)


def _average(name: str, sums: Tensor, size: tuple[int, ...], geometry: dict,
             count_include_pad: bool, divisor_override: int | None) -> Tensor:
    """The windows' sums (N, C, *out) divided by their sizes as PyTorch counts them, or by
    `divisor_override`."""
    if divisor_override is not None:
        if not isinstance(divisor_override, (int, np.integer)) or divisor_override < 1:
            raise InvalidArgumentError(f"{name}: divisor_override must be a positive int, got "
                                       f"{divisor_override!r}")
        return sums / np.asarray(divisor_override, dtype=sums.dtype)
    counts = _pool_window_sizes(size, sums.shape[2:], geometry, count_include_pad)
    return sums / counts.astype(sums.dtype)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1) -> Tensor:
    """The transposed convolution (conv2d's gradient with respect to its input, also called
    deconvolution) of (N, C_in, H, W), or an unbatched (C_in, H, W), with `weight`
    (C_in, C_out / groups, kH, kW), plus `bias` (C_out,): each input entry adds its weighted
    kernel into the output, `stride` apart. Output height (H - 1) stride - 2 padding
    + dilation (kH - 1) + output_padding + 1, and likewise the width.

    Composed: stride - 1 zeros between neighbouring inputs, dilation (k - 1) - padding more
    around them (cropping where that is negative; output_padding more at the end), then conv2d
    with each kernel flipped and its in and out channels swapped."""
    return _transposed_convolution("conv_transpose2d", input, weight, bias, stride, padding,
                                   output_padding, groups, dilation, 2)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1) -> Tensor:
    """conv_transpose2d for (N, C_in, L) or (C_in, L), with weight (C_in, C_out / groups, k)."""
    return _transposed_convolution("conv_transpose1d", input, weight, bias, stride, padding,
                                   output_padding, groups, dilation, 1)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1) -> Tensor:
    """conv_transpose2d for (N, C_in, D, H, W) or (C_in, D, H, W), with weight
    (C_in, C_out / groups, kD, kH, kW)."""
    return _transposed_convolution("conv_transpose3d", input, weight, bias, stride, padding,
                                   output_padding, groups, dilation, 3)


def _transposed_convolution(name: str, input: Tensor, weight: Tensor, bias: Tensor | None,
                            stride, padding, output_padding, groups: int, dilation,
                            dims: int) -> Tensor:
    x, batched = _batched(name, input, dims, f"(N, C_in, *{dims} dims) or (C_in, *{dims} dims)")
    if weight.ndim != dims + 2:
        raise InvalidArgumentError(f"{name}: weight must be (C_in, C_out / groups, *kernel) with "
                                   f"{dims} kernel dims, got shape {weight.shape}")
    in_channels, group_out, *kernel = weight.shape
    if not isinstance(groups, (int, np.integer)) or groups < 1 or in_channels % groups or \
            x.shape[1] != in_channels:
        raise InvalidArgumentError(f"{name}: input {input.shape} and weight {weight.shape} do not "
                                   f"fit with groups={groups}: need input channels = "
                                   "weight.shape[0], divisible by groups")
    if bias is not None and bias.shape != (group_out * groups,):
        raise InvalidArgumentError(f"{name}: bias must have shape ({group_out * groups},), got "
                                   f"{bias.shape}")
    stride = _ints(name, "stride", stride, dims, minimum=1)
    padding = _ints(name, "padding", padding, dims, minimum=0)
    output_padding = _ints(name, "output_padding", output_padding, dims, minimum=0)
    dilation = _ints(name, "dilation", dilation, dims, minimum=1)
    if any(extra >= max(s, d) for extra, s, d in zip(output_padding, stride, dilation)):
        raise InvalidArgumentError(f"{name}: output_padding {output_padding} must be smaller than "
                                   f"the stride {stride} or the dilation {dilation}")
    n, sizes = x.shape[0], x.shape[2:]
    # stride - 1 zeros after each entry (a new dim of size 1 after each spatial dim, padded
    # to the stride; pad lists the last dim first), the trailing ones dropped
    spread = x.reshape(n, in_channels, *[v for m in sizes for v in (m, 1)])
    spread = pad(spread, [v for s in reversed(stride) for v in (0, s - 1, 0, 0)])
    spread = spread.reshape(n, in_channels, *[m * s for m, s in zip(sizes, stride)])
    spread = spread[(slice(None),) * 2 + tuple(slice((m - 1) * s + 1)
                                               for m, s in zip(sizes, stride))]
    edges = [d * (k - 1) - p for k, d, p in zip(kernel, dilation, padding)]
    spread = pad(spread, [v for edge, extra in zip(reversed(edges), reversed(output_padding))
                          for v in (edge, edge + extra)])
    kernels = weight.reshape(groups, in_channels // groups, group_out, *kernel).transpose(1, 2)
    kernels = kernels.reshape(groups * group_out, in_channels // groups, *kernel)
    convolve = {1: conv1d, 2: conv2d, 3: conv3d}[dims]
    out = convolve(spread, kernels.flip(*range(2, dims + 2)), bias, dilation=dilation,
                   groups=groups)
    return out if batched else out.reshape(out.shape[1:])


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
           stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """3-D cross-correlation of (N, C_in, D, H, W), or an unbatched (C_in, D, H, W), with
    `weight` (C_out, C_in / groups, kD, kH, kW), plus `bias` (C_out,); arguments as in conv2d.
    Composed: for each depth offset of the kernel, the input planes it reads are convolved in
    2-D with that slice of the kernel (the planes as a batch), and the kD results added."""
    name = "conv3d"
    x, batched = _batched(name, input, 3, "(N, C_in, D, H, W) or (C_in, D, H, W)")
    if weight.ndim != 5:
        raise InvalidArgumentError(f"{name}: weight must be (C_out, C_in / groups, kD, kH, kW), "
                                   f"got shape {weight.shape}")
    if bias is not None and bias.shape != weight.shape[:1]:
        raise InvalidArgumentError(f"{name}: bias must have shape ({weight.shape[0]},), got "
                                   f"{bias.shape}")
    kernel = weight.shape[2:]
    stride = _ints(name, "stride", stride, 3, minimum=1)
    dilation = _ints(name, "dilation", dilation, 3, minimum=1)
    pads = _conv_padding(name, padding, kernel, stride, dilation)
    x = pad(x, [amount for pair in reversed(pads) for amount in pair])
    n, c, depth, h, w = x.shape
    if any(d * (k - 1) + 1 > size for size, k, d in zip(x.shape[2:], kernel, dilation)):
        raise InvalidArgumentError(f"{name}: the kernel {kernel} (dilation {dilation}) is larger "
                                   f"than the padded input {x.shape[2:]}")
    out_depth = (depth - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    total = None
    for k in range(kernel[0]):
        first = k * dilation[0]
        planes = x[:, :, first:first + (out_depth - 1) * stride[0] + 1:stride[0]]
        planes = planes.movedim(2, 1).reshape(n * out_depth, c, h, w)
        part = conv2d(planes, weight[:, :, k], None, stride[1:], 0, dilation[1:], groups)
        total = part if total is None else total + part
    out = total.reshape(n, out_depth, *total.shape[1:]).movedim(1, 2)
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1, 1)
    return out if batched else out.reshape(out.shape[1:])


def max_unpool1d(input: Tensor, indices: ArrayLike, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """max_pool1d's partial inverse, of (N, C, L) or (C, L), as max_unpool2d's."""
    return _max_unpool("max_unpool1d", input, indices, kernel_size, stride, padding,
                       output_size, 1)


def max_unpool2d(input: Tensor, indices: ArrayLike, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """max_pool2d's partial inverse: each entry of (N, C, H, W) (or (C, H, W)) put back at the
    flat position `indices` names (h * W_out + w, as max_pool2d's return_indices gives them) in
    zeros of (H - 1) stride - 2 padding + kernel_size per spatial dim, or of `output_size`'s
    last two entries (each less than a stride away from that). Where a position is named twice
    the last entry wins."""
    return _max_unpool("max_unpool2d", input, indices, kernel_size, stride, padding,
                       output_size, 2)


def max_unpool3d(input: Tensor, indices: ArrayLike, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """max_pool3d's partial inverse, of (N, C, D, H, W) or (C, D, H, W), as max_unpool2d's."""
    return _max_unpool("max_unpool3d", input, indices, kernel_size, stride, padding,
                       output_size, 3)


def _max_unpool(name: str, input: Tensor, indices: ArrayLike, kernel_size: int | Sequence[int],
                stride: int | Sequence[int] | None, padding: int | Sequence[int],
                output_size: Sequence[int] | None, spatial_dims: int) -> Tensor:
    x, batched = _batched(name, input, spatial_dims, f"(N, C, *{spatial_dims} dims) or "
                                                     f"(C, *{spatial_dims} dims)")
    index = np.asarray(_as_array(indices))
    if index.shape != input.shape or index.dtype.kind not in "iu":
        raise InvalidArgumentError(f"{name}: indices must be integers of the input's shape "
                                   f"{input.shape}, got {index.dtype} of shape {index.shape}")
    kernel = _ints(name, "kernel_size", kernel_size, spatial_dims, minimum=1)
    stride = kernel if stride is None else \
        _ints(name, "stride", stride, spatial_dims, minimum=1)
    padding = _ints(name, "padding", padding, spatial_dims, minimum=0)
    size = [(n - 1) * s - 2 * p + k for n, s, p, k in zip(x.shape[2:], stride, padding, kernel)]
    if output_size is not None:
        # PyTorch's rule: within a stride of the default, the sizes a max pool's input of that
        # output could have had
        given = list(output_size)[-spatial_dims:]
        if len(output_size) not in (spatial_dims, spatial_dims + 2) or not all(
                d - s < o < d + s for o, d, s in zip(given, size, stride)):
            raise InvalidArgumentError(
                f"{name}: output_size must be {spatial_dims} (or {spatial_dims + 2}, with N and "
                f"C) sizes, each within the stride {stride} of {tuple(size)} (exclusive), got "
                f"{tuple(output_size)}")
        size = given
    n, c = x.shape[:2]
    positions = index.reshape(n, c, -1)
    if positions.size and (positions.min() < 0 or positions.max() >= math.prod(size)):
        raise InvalidIndexError(f"{name}: indices must lie in [0, {math.prod(size)}) for an "
                                f"output of size {tuple(size)}, got {positions.min()} to "
                                f"{positions.max()}")
    zeros = Tensor._make(np.zeros((n, c, math.prod(size)), dtype=x.dtype))
    out = zeros.scatter(2, positions, x.reshape(n, c, -1)).reshape(n, c, *size)
    return out if batched else out.reshape(out.shape[1:])


# the interpolating modes, with the number of spatial dims each takes
_LINEAR_MODES = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_CUBIC_A = -0.75  # the cubic convolution's parameter, PyTorch's (Keys' a; OpenCV's too)


def interpolate(input: Tensor, size: int | Sequence[int] | None = None,
                scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                align_corners: bool | None = None) -> Tensor:
    """Resize the spatial dims of (N, C, *spatial) to `size` (or to floor(spatial *
    scale_factor)), as torch.nn.functional.interpolate. mode "nearest" reads the entry at
    floor(i * scale) (scale = in / out, or 1 / scale_factor; in float32, as PyTorch does),
    "nearest-exact" at floor((i + 0.5) * scale); "linear", "bilinear" and "trilinear" (1, 2
    or 3 spatial dims) weigh the two neighbours of the source point (i + 0.5) * scale - 0.5
    in each dim, or i * (in - 1) / (out - 1) with align_corners=True, and leave a dim whose
    size does not change as it is (PyTorch's kernels copy it, whatever the scale_factor);
    "bicubic" (2 spatial dims) weighs the four neighbours of that point by Keys' cubic
    convolution (a = -0.75), reading the edge entry for those outside; "area" averages
    adaptive_avg_pool's bins. Composed from index gathers, so each source entry's gradient
    adds up its weights."""
    name = "interpolate"
    spatial = input.ndim - 2
    if mode not in ("nearest", "nearest-exact", "area", *_LINEAR_MODES):
        # NotImplementedError, as in PyTorch: a mode (or a mode and rank) it has no kernel for
        raise NotImplementedError(f"{name}: mode must be 'nearest', 'nearest-exact', 'linear', "
                                  f"'bilinear', 'bicubic', 'trilinear' or 'area', got {mode!r}")
    if not 1 <= spatial <= 3 or _LINEAR_MODES.get(mode, spatial) != spatial:
        raise NotImplementedError(f"{name}: mode {mode!r} does not fit an input of shape "
                                  f"{input.shape} (N, C and {spatial} spatial dims)")
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{name}: give size or scale_factor, not both or neither")
    if align_corners is not None and mode not in _LINEAR_MODES:
        raise ValueError(f"{name}: align_corners is for the interpolating modes, not {mode!r}")
    if input.dtype.kind != "f" and mode not in ("nearest", "nearest-exact"):
        raise TypeError(f"{name}: mode {mode!r} needs a floating-point input, got {input.dtype}")
    in_sizes = input.shape[2:]
    if size is not None:
        sizes = _ints(name, "size", size, spatial, minimum=1)
        scales = [None] * spatial
    else:
        factors = (scale_factor,) * spatial if np.isscalar(scale_factor) else tuple(scale_factor)
        if len(factors) != spatial or min(factors) <= 0:
            raise InvalidArgumentError(f"{name}: scale_factor must be positive, one or {spatial} "
                                       f"of them, got {scale_factor!r}")
        sizes = [math.floor(n * f) for n, f in zip(in_sizes, factors)]
        if min(sizes) < 1:
            raise InvalidArgumentError(f"{name}: scale_factor {scale_factor!r} leaves no entry "
                                       f"of the input's spatial size {in_sizes}")
        scales = [1 / f for f in factors]
    if mode == "area":  # the bins depend on the sizes alone, as PyTorch's
        return _adaptive_avg_pool(name, input, tuple(sizes), spatial)
    out = input
    for dim, n_in, n_out, scale in zip(range(2, input.ndim), in_sizes, sizes, scales):
        before = (slice(None),) * dim
        if mode in ("nearest", "nearest-exact"):
            step = np.float32(n_in / n_out if scale is None else scale)
            offset = np.float32(0.5 if mode == "nearest-exact" else 0.0)
            source = np.floor((np.arange(n_out, dtype=np.float32) + offset) * step)
            out = out[before + (np.minimum(source.astype(np.int64), n_in - 1),)]
            continue
        if n_in == n_out and mode != "bicubic":
            continue
        dtype = input.dtype.type
        positions = np.arange(n_out, dtype=input.dtype)
        if align_corners:
            source = positions * dtype((n_in - 1) / (n_out - 1) if n_out > 1 else 0)
        else:
            step = dtype(n_in / n_out if scale is None else scale)
            source = (positions + dtype(0.5)) * step - dtype(0.5)
        if mode != "bicubic":  # before the first entry is at it
            source = np.maximum(source, 0)
        low = np.floor(source).astype(np.int64)
        weights = _interpolation_weights(mode, (source - low).astype(input.dtype))
        first = low - (len(weights) // 2 - 1)  # bicubic reads low - 1 to low + 2
        shape = (n_out,) + (1,) * (input.ndim - 1 - dim)
        out = sum(out[before + (np.clip(first + k, 0, n_in - 1),)] * w.reshape(shape)
                  for k, w in enumerate(weights))
    return out


def upsample(input: Tensor, size: int | Sequence[int] | None = None,
             scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """interpolate, under the name PyTorch deprecates for it."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: int | Sequence[int] | None = None,
                     scale_factor: float | Sequence[float] | None = None) -> Tensor:
    """interpolate with mode 'nearest' (PyTorch's deprecated name)."""
    return interpolate(input, size, scale_factor, "nearest")


def upsample_bilinear(input: Tensor, size: int | Sequence[int] | None = None,
                      scale_factor: float | Sequence[float] | None = None) -> Tensor:
    """interpolate with mode 'bilinear' and align_corners=True, as PyTorch's deprecated
    upsample_bilinear (and nn.UpsamplingBilinear2d)."""
    return interpolate(input, size, scale_factor, "bilinear", align_corners=True)


def _interpolation_weights(mode: str, t: np.ndarray) -> list[np.ndarray]:
    """The weights of the neighbours of source points lying t past an entry: the two around
    it (linear), or the four from one before (bicubic, Keys' cubic convolution)."""
    if mode != "bicubic":
        return [1 - t, t]
    a = _CUBIC_A

    def near(x: np.ndarray) -> np.ndarray:  # for |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:  # for 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    # t's dtype throughout (Python floats are weak); t may be a Tensor (grid_sample's grid)
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None
                ) -> Tensor:
    """The sampling grid of an affine map, for grid_sample: theta (N, 2, 3) and size (N, C, H,
    W) give (N, H, W, 2), each output place's (x, y) in [-1, 1] times theta; theta (N, 3, 4)
    and size (N, C, D, H, W) give (N, D, H, W, 3). The places are the pixel centres, or the
    corner pixels' centres at -1 and 1 with align_corners=True (default False)."""
    size = tuple(size)
    spatial = len(size) - 2
    if spatial not in (2, 3):
        raise NotImplementedError(f"affine_grid: size must be (N, C, H, W) or (N, C, D, H, W), "
                                  f"got {size}")  # PyTorch's class here
    if theta.dtype.kind != "f":
        raise InvalidTypeError(f"affine_grid: theta must be floating point, got {theta.dtype}")
    if theta.shape != (size[0], spatial, spatial + 1):
        raise InvalidArgumentError(f"affine_grid: for size {size}, theta must have shape "
                                   f"{(size[0], spatial, spatial + 1)}, got {theta.shape}")
    if min(size[2:]) < 1:
        raise InvalidArgumentError(f"affine_grid: size must be positive, got {size}")

    def places(n: int) -> np.ndarray:
        steps = np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
        return steps if align_corners else steps * (n - 1) / n

    # (x, y[, z], 1) at each output place, x along the last dim
    axes = np.meshgrid(*(places(n) for n in size[:1:-1]), indexing="ij")
    base = np.stack([a.transpose() for a in axes] + [np.ones(size[2:])], -1)
    # each sample's map, broadcast over the output dims but the last
    maps = theta.mT.reshape(size[0], *(1,) * (spatial - 1), spatial + 1, spatial)
    return Tensor(base.astype(theta.dtype)) @ maps


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """The entries of (N, C, H, W) `input` at the places (x, y) of `grid` (N, H', W', 2), or of
    (N, C, D, H, W) `input` at the places (x, y, z) of `grid` (N, D', H', W', 3), in [-1, 1]
    from the left (top, front) edge to the right (bottom, back) one (their pixels' centres
    with align_corners=True), as PyTorch's: mode 'bilinear' (trilinear in 3-D) weighs the 4
    (8) neighbours, 'nearest' takes the closest (ties to even); places outside read zeros, or
    with padding_mode 'border' the nearest edge place, with 'reflection' the place mirrored at
    the edges. Composed from index gathers: gradients reach the input and, through the
    weights, the grid."""
    name = "grid_sample"
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"{name}: mode must be 'bilinear', 'nearest' or 'bicubic', got "
                         f"{mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"{name}: padding_mode must be 'zeros', 'border' or 'reflection', got "
                         f"{padding_mode!r}")
    spatial = input.ndim - 2
    if spatial not in (2, 3) or grid.shape != (input.shape[0], *grid.shape[1:-1], spatial):
        raise InvalidArgumentError(f"{name}: expected input (N, C, H, W) and grid (N, H', W', "
                                   f"2), or input (N, C, D, H, W) and grid (N, D', H', W', 3); "
                                   f"got {input.shape} and {grid.shape}")
    if mode == "bicubic" and spatial != 2:
        raise NotImplementedError(f"{name}: mode 'bicubic' takes 4-D inputs only, got "
                                  f"{input.shape}")  # PyTorch's class here
    input._require_floating(name)
    if grid.dtype != input.dtype:  # as PyTorch's kernel, which reads both in one dtype
        raise InvalidTypeError(f"{name}: expected a grid of the input's dtype {input.dtype}, "
                               f"got {grid.dtype}")
    n, c, *sizes = input.shape
    # the place along each input dim; the grid's first coordinate (x) runs along the last dim
    coordinates = [grid[..., spatial - 1 - dim] for dim in range(spatial)]
    sources = [_grid_source(coordinate, size, "zeros" if mode == "bicubic" else padding_mode,
                            bool(align_corners)) for coordinate, size in zip(coordinates, sizes)]
    ones = (1,) * spatial
    batch, channel = np.arange(n).reshape(n, 1, *ones), np.arange(c).reshape(1, c, *ones)

    def read(places: list[np.ndarray]) -> Tensor:
        """input at integer `places` (one (N, *out) array per input dim), (N, C, *out), with
        zeros where a place lies outside."""
        inside = np.logical_and.reduce([(p >= 0) & (p < size) for p, size in zip(places, sizes)])
        values = input[(batch, channel, *(np.clip(p, 0, size - 1)[:, None]
                                          for p, size in zip(places, sizes)))]
        return values.masked_fill(~inside[:, None], 0.0)

    if mode == "nearest":
        out = read([np.rint(source.data).astype(np.int64) for source in sources])
        # the grid stays in the graph, with gradient 0 (PyTorch's is zeros, not none)
        return ops.Where.apply(out, sources[0].unsqueeze(1), cond=np.True_) \
            if sources[0].requires_grad else out
    if mode == "bicubic":  # Keys' cubic convolution of the 4 x 4 entries around each place,
        # each of them moved inside by the padding mode on its own, as PyTorch's
        lows = [np.floor(source.data) for source in sources]
        weights = [_interpolation_weights(mode, (source - low).unsqueeze(1))
                   for source, low in zip(sources, lows)]
        taps = [[np.rint(_padded_source(Tensor(low + step - 1), size, padding_mode,
                                        bool(align_corners)).data).astype(np.int64)
                 for step in range(4)] for low, size in zip(lows, sizes)]
        return sum(read([rows, cols]) * row_weight * col_weight
                   for rows, row_weight in zip(taps[0], weights[0])
                   for cols, col_weight in zip(taps[1], weights[1]))
    lows = [np.floor(source.data) for source in sources]
    highs_weights = [(source - low).unsqueeze(1) for source, low in zip(sources, lows)]
    out = None
    for corner in itertools.product((0, 1), repeat=spatial):  # 0: the lower neighbour
        term = read([(low + step).astype(np.int64) for low, step in zip(lows, corner)])
        for step, weight in zip(corner, highs_weights):
            term = term * (weight if step else 1 - weight)
        out = term if out is None else out + term
    return out


def _grid_source(coordinate: Tensor, size: int, padding_mode: str, align_corners: bool
                 ) -> Tensor:
    """grid_sample's place along one input dim of `size` for grid coordinates in [-1, 1],
    with PyTorch's padding: 'border' clips it to [0, size - 1], 'reflection' mirrors it at
    the edges (the corner pixels' centres with align_corners, else the outer edges) first. A
    clipped place has gradient 0, also at the limit itself, as PyTorch's."""
    source = (coordinate + 1) * ((size - 1) / 2) if align_corners else \
        ((coordinate + 1) * size - 1) / 2
    return _padded_source(source, size, padding_mode, align_corners)


def _padded_source(source: Tensor, size: int, padding_mode: str, align_corners: bool
                   ) -> Tensor:
    """A place along an input dim of `size` moved inside by grid_sample's padding mode."""
    if padding_mode == "zeros":
        return source
    if padding_mode == "reflection":
        low, high = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
        span = high - low
        if span == 0:
            return source * 0
        distance = (source - low).abs()
        flips = np.floor(distance.data / span)
        extra = distance - flips * span
        source = where(flips % 2 == 0, extra + low, span - extra + low)
    inside = (source.data > 0) & (source.data < size - 1)
    return where(inside, source, np.clip(source.data, 0, size - 1))


def _batched(name: str, input: Tensor, spatial_dims: int, expected: str,
             floating: bool = True) -> tuple[Tensor, bool]:
    """`input` with a batch dim (PyTorch takes (C, *spatial) as one unbatched sample), and
    whether it had one."""
    if input.ndim not in (spatial_dims + 1, spatial_dims + 2):
        raise InvalidArgumentError(f"{name}: expected input {expected}, got shape {input.shape}")
    if floating and input.dtype.kind != "f":
        raise InvalidTypeError(f"{name}: expected a floating-point input, got dtype "
                               f"{input.dtype}")
    batched = input.ndim == spatial_dims + 2
    return (input if batched else input.reshape(1, *input.shape)), batched


def _ints(name: str, arg: str, value: int | Sequence[int], n: int,
          minimum: int) -> tuple[int, ...]:
    """An argument given as one int or as n ints (`kernel_size=3` or `(3, 5)`), as n ints."""
    if isinstance(value, (int, np.integer)):
        values = (value,) * n
    elif np.iterable(value) and not isinstance(value, str):
        values = tuple(value)
    else:
        values = (value,)  # refused just below
    if not all(isinstance(v, (int, np.integer)) for v in values):  # PyTorch's class: TypeError
        raise InvalidTypeError(f"{name}: {arg} must be an int or {n} ints, got {value!r}")
    if len(values) != n or any(v < minimum for v in values):
        raise InvalidArgumentError(f"{name}: {arg} must be an int or {n} ints, each >= {minimum}, "
                                   f"got {value!r}")
    return tuple(int(v) for v in values)


def _window_geometry(name: str, size: tuple[int, ...], kernel: tuple[int, ...],
                     dilation: int | Sequence[int], padding: tuple[tuple[int, int], ...],
                     stride: int | Sequence[int]) -> dict:
    """The settings of `ops.Unfold`, checked: at least one window must fit the padded input."""
    dilation = _ints(name, "dilation", dilation, len(kernel), minimum=1)
    stride = _ints(name, "stride", stride, len(kernel), minimum=1)
    for n, k, d, (before, after) in zip(size, kernel, dilation, padding):
        if d * (k - 1) + 1 > n + before + after:
            raise InvalidArgumentError(f"{name}: the kernel {kernel} (dilation {dilation}) is "
                                       f"larger than the padded input {tuple(size)} (padding "
                                       f"{padding})")
    return dict(kernel_size=kernel, dilation=dilation, padding=padding, stride=stride)


def _convolution(name: str, input: Tensor, weight: Tensor, bias: Tensor | None, stride,
                 padding, dilation, groups: int, spatial_dims: int) -> Tensor:
    """conv1d and conv2d: check, then convolve; a 1-D convolution is a 2-D one of height 1."""
    x, batched = _batched(name, input, spatial_dims, f"(N, C_in, *{spatial_dims} dims) or "
                                                     f"(C_in, *{spatial_dims} dims)")
    if weight.ndim != spatial_dims + 2:
        raise InvalidArgumentError(f"{name}: weight must be (C_out, C_in / groups, *kernel) with "
                                   f"{spatial_dims} kernel dims, got shape {weight.shape}")
    out_channels, group_channels, *kernel = weight.shape
    if not isinstance(groups, (int, np.integer)) or groups < 1 or out_channels % groups or \
            x.shape[1] != group_channels * groups:
        raise InvalidArgumentError(f"{name}: input {input.shape} and weight {weight.shape} do not "
                                   f"fit with groups={groups}: need input channels = "
                                   "weight.shape[1] * groups and out channels (weight.shape[0]) "
                                   "divisible by groups")
    if bias is not None and bias.shape != (out_channels,):
        raise InvalidArgumentError(f"{name}: bias must have shape ({out_channels},), got "
                                   f"{bias.shape}")
    stride = _ints(name, "stride", stride, spatial_dims, minimum=1)
    dilation = _ints(name, "dilation", dilation, spatial_dims, minimum=1)
    padding = _conv_padding(name, padding, tuple(kernel), stride, dilation)
    if spatial_dims == 1:  # (N, C, L) -> (N, C, 1, L)
        x, weight = x.unsqueeze(2), weight.unsqueeze(2)
        kernel, stride, dilation = [1, *kernel], (1, *stride), (1, *dilation)
        padding = ((0, 0), *padding)
    geometry = _window_geometry(name, x.shape[2:], tuple(kernel), dilation, padding, stride)
    out = _conv2d(x, weight, bias, groups, geometry)
    if spatial_dims == 1:
        out = out.squeeze(2)
    return out if batched else out.reshape(out.shape[1:])


def _conv2d(input: Tensor, weight: Tensor, bias: Tensor | None, groups: int,
            geometry: dict) -> Tensor:
    """im2col: every window of the input becomes a column; each group's kernels, one row per
    output channel, multiply its columns in one matrix product."""
    n = input.shape[0]
    out_channels, group_channels, kh, kw = weight.shape
    windows = ops.Unfold.apply(input, **geometry)  # (N, C_in, kH, kW, out_h, out_w)
    out_h, out_w = windows.shape[-2:]
    columns = windows.reshape(n, groups, group_channels * kh * kw, out_h * out_w)
    rows = weight.reshape(groups, out_channels // groups, group_channels * kh * kw)
    out = (rows @ columns).reshape(n, out_channels, out_h, out_w)
    return out if bias is None else out + bias.reshape(out_channels, 1, 1)


def _conv_padding(name: str, padding: int | Sequence[int] | str, kernel: tuple[int, ...],
                  stride: tuple[int, ...], dilation: tuple[int, ...]
                  ) -> tuple[tuple[int, int], ...]:
    """(before, after) zero padding per spatial dim for conv's `padding` argument."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * len(kernel)
        if padding != "same":
            raise InvalidArgumentError(f"{name}: padding must be an int, a tuple of ints, 'valid' "
                                       f"or 'same', got {padding!r}")
        if any(s != 1 for s in stride):
            raise InvalidArgumentError(f"{name}: padding='same' needs stride 1, got stride "
                                       f"{stride}")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)  # an odd total: the extra one after
    return tuple((p, p) for p in _ints(name, "padding", padding, len(kernel), minimum=0))


def _pool_geometry(name: str, size: tuple[int, ...], kernel_size, stride, padding, dilation,
                   ceil_mode: bool) -> dict:
    """The settings of `ops.Unfold` for a pooling layer, with PyTorch's output size:
    floor((size + 2 pad - dilated kernel) / stride) + 1, or with ceil in ceil mode, where a last
    window that would start in the right padding is dropped. The right/bottom padding grows to
    hold the extra window of ceil mode."""
    dims = len(size)
    kernel = _ints(name, "kernel_size", kernel_size, dims, minimum=1)
    stride = kernel if stride is None else _ints(name, "stride", stride, dims, minimum=1)
    pads = _ints(name, "padding", padding, dims, minimum=0)
    dilation = _ints(name, "dilation", dilation, dims, minimum=1)
    if any(p > k // 2 for p, k in zip(pads, kernel)):
        raise InvalidArgumentError(f"{name}: padding {pads} must be at most half the kernel size "
                                   f"{kernel}")
    padding = []
    for n, k, s, p, d in zip(size, kernel, stride, pads, dilation):
        span = d * (k - 1) + 1
        room = n + 2 * p - span
        count = (-(-room // s) if ceil_mode else room // s) + 1
        if ceil_mode and (count - 1) * s >= n + p:
            count -= 1
        if count < 1:
            raise InvalidArgumentError(f"{name}: the input {tuple(size)} is too small for the "
                                       f"kernel {kernel} (padding {pads}, dilation {dilation})")
        padding.append((p, max(p, (count - 1) * s + span - n - p)))
    return _window_geometry(name, size, kernel, dilation, tuple(padding), stride)


def _pool_window_sizes(size: tuple[int, ...], out_size: tuple[int, ...], geometry: dict,
                       count_include_pad: bool) -> np.ndarray:
    """How many entries avg_pool2d (or 3d) averages at each output position, as PyTorch counts
    them: the window clipped to the padded input, or to the input alone without
    count_include_pad (a box: the product of the counts along each dim)."""
    counts = []
    for n, out, k, s, (p, _) in zip(size, out_size, geometry["kernel_size"], geometry["stride"],
                                    geometry["padding"]):
        start = np.arange(out) * s - p
        end = np.minimum(start + k, n + p)
        counts.append(end - start if count_include_pad
                      else np.minimum(end, n) - np.maximum(start, 0))
    return functools.reduce(np.multiply.outer, counts)


# --------------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------------
def _result(name: str, input: Tensor, result: Tensor, inplace: bool) -> Tensor:
    """An activation's `inplace=True`: `input` changed to the result and returned, as
    PyTorch's, recorded while grad mode is on (`Tensor._modified`, which refuses a leaf that
    requires grad, as PyTorch). A view of another tensor, whose graph would not see the
    change, gets the result as a new tensor instead and stays as it was."""
    if not inplace or result.requires_grad and input._is_a_view():
        return result
    return input._modified(name, result)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _result("relu", input, input.relu(), inplace)


def relu_(input: Tensor) -> Tensor:
    """relu into `input` itself, as Tensor.relu_ (recorded while grad mode is on)."""
    return input.relu_()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU, x * Phi(x) with Phi the standard normal CDF, as in PyTorch: exactly
    0.5 x (1 + erf(x / sqrt(2))) by default, or with approximate="tanh" GPT-2's
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    input._require_floating("gelu")
    if approximate == "none":
        return 0.5 * input * (1 + (input * (1 / math.sqrt(2))).erf())
    if approximate != "tanh":
        raise InvalidArgumentError("gelu: approximate must be 'none' or 'tanh', got "
                                   f"{approximate!r}")
    if is_fused_enabled():
        return kernels.Gelu.apply(input)
    inner = (input + 0.044715 * input * input * input) * math.sqrt(2 / math.pi)
    return 0.5 * input * (1 + inner.tanh())


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    input._require_floating("leaky_relu")
    return _result("leaky_relu", input,
                   ops.Where.apply(input, input * negative_slope, cond=input.data > 0), inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """leaky_relu into `input` itself (recorded while grad mode is on, as Tensor.add_)."""
    return input._modified("leaky_relu_", leaky_relu(input, negative_slope))


def rrelu(input: Tensor, lower: float = 1 / 8, upper: float = 1 / 3, training: bool = False,
          inplace: bool = False, *, rng: np.random.Generator | None = None) -> Tensor:
    """The randomized leaky ReLU (Xu et al.): x where x >= 0, else a * x, a drawn uniformly
    from [lower, upper] for each entry while training (from `rng`), (lower + upper) / 2
    otherwise."""
    input._require_floating("rrelu")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    rng = rng if rng is not None else np.random.default_rng()
    slopes = rng.uniform(lower, upper, input.shape).astype(input.dtype)
    return _result("rrelu", input,
                   ops.Where.apply(input, input * slopes, cond=input.data >= 0), inplace)


def rrelu_(input: Tensor, lower: float = 1 / 8, upper: float = 1 / 3, training: bool = False,
           *, rng: np.random.Generator | None = None) -> Tensor:
    """rrelu into `input` itself (recorded while grad mode is on, as Tensor.add_)."""
    return input._modified("rrelu_", rrelu(input, lower, upper, training, rng=rng))


def _exponential_linear(input: Tensor, alpha: float, input_scale: float = 1.0) -> Tensor:
    """x where x > 0, else alpha * (exp(input_scale * x) - 1): elu, celu and selu. The negative
    branch sees min(x, 0), so that exp of a large positive x (not taken) cannot overflow and
    turn its zero gradient into inf * 0 = NaN."""
    positive = input.data > 0
    negative = (input.masked_fill(positive, 0.0) * input_scale).expm1() * alpha
    return ops.Where.apply(input, negative, cond=positive)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    input._require_floating("elu")
    return _result("elu", input, _exponential_linear(input, alpha), inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """elu into `input` itself (recorded while grad mode is on, as Tensor.add_)."""
    return input._modified("elu_", elu(input, alpha))


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    input._require_floating("celu")
    if alpha == 0:
        raise InvalidArgumentError("celu: alpha must be nonzero")
    return _result("celu", input, _exponential_linear(input, alpha, 1 / alpha), inplace)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """celu into `input` itself (recorded while grad mode is on, as Tensor.add_)."""
    return input._modified("celu_", celu(input, alpha))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants of Klambauer et al. (2017)."""
    input._require_floating("selu")
    return _result("selu", input, _exponential_linear(input, _SELU_ALPHA) * _SELU_SCALE, inplace)


def selu_(input: Tensor) -> Tensor:
    """selu into `input` itself (recorded while grad mode is on, as Tensor.add_)."""
    return input._modified("selu_", selu(input))


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (also called swish)."""
    input._require_floating("silu")
    return _result("silu", input, input * input.sigmoid(), inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (as in PyTorch). The
    soft branch sees 0 where the linear one is taken, so that exp cannot overflow there and
    spoil the gradient with inf * 0."""
    input._require_floating("softplus")
    scaled = input * beta
    linear = scaled.data > threshold
    soft = scaled.masked_fill(linear, 0.0).exp().log1p() / beta
    return ops.Where.apply(input, soft, cond=linear)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    input._require_floating("mish")
    return _result("mish", input, input * softplus(input).tanh(), inplace)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed as min(x, 0) - log(1 + exp(-|x|)), which neither overflows nor
    rounds to log(0) for large |x|."""
    input._require_floating("logsigmoid")
    return input.minimum(0) - (-input.abs()).exp().log1p()


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (1 + input.abs())


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """x limited to [min_val, max_val]. Unlike clamp, the gradient is 0 at the bounds too, as
    in PyTorch."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    input._refuse_bool("hardtanh")
    limited = (input.masked_fill(input.data <= min_val, min_val)
               .masked_fill(input.data >= max_val, max_val))
    return _result("hardtanh", input, limited, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """hardtanh into `input` itself (recorded while grad mode is on, as Tensor.add_)."""
    return input._modified("hardtanh_", hardtanh(input, min_val, max_val))


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else `value` (gradient 1 where x is kept, 0 elsewhere); NaN is
    kept, as in PyTorch."""
    return _result("threshold", input, input.masked_fill(input.data <= threshold, value),
                   inplace)


_threshold = threshold  # for threshold_, whose argument `threshold` hides the function


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """threshold into `input` itself (recorded while grad mode is on, as Tensor.add_)."""
    return input._modified("threshold_", _threshold(input, threshold, value))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    input._require_floating("hardshrink")
    return input.masked_fill(np.abs(input.data) <= lambd, 0.0)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, 0 between (lambd >= 0)."""
    input._require_floating("softshrink")
    if lambd < 0:
        raise InvalidArgumentError(f"softshrink: lambd must be >= 0, got {lambd}")
    toward_zero = input - input.sign() * lambd  # sign is a step function: gradient 1 here
    return toward_zero.masked_fill(np.abs(input.data) <= lambd, 0.0)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, else weight * x, with one learned slope per channel (dim 1; inputs of
    fewer than 2 dims have one channel) or one `weight` entry for all."""
    if weight.ndim > 1:
        raise InvalidArgumentError(f"prelu: weight must be 0-d or 1-D, got shape {weight.shape}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() not in (1, channels):
        raise InvalidArgumentError(f"prelu: weight has {weight.numel()} entries; it needs 1 or "
                                   f"one per channel ({channels}, for the input {input.shape})")
    if weight.numel() > 1:  # along dim 1 of the input
        weight = weight.reshape(channels, *(1,) * (input.ndim - 2))
    else:
        weight = weight.reshape(())
    return ops.Where.apply(*Tensor._operands(input, weight * input), cond=input.data > 0)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6: 0 below -3, 1 above 3, linear between."""
    input._require_floating("hardsigmoid")
    return _result("hardsigmoid", input, relu6(input + 3) / 6, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * hardsigmoid(x)."""
    input._require_floating("hardswish")
    return _result("hardswish", input, input * hardsigmoid(input), inplace)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: a * sigmoid(b), for a and b the first and second half of `input`
    along `dim`, whose size must be even."""
    input._require_floating("glu")
    size = input.shape[_existing_dim("glu", dim, input.ndim)]
    if size % 2:
        raise InvalidArgumentError(f"glu: the dim to halve must have an even size, dim {dim} of "
                                   f"shape {input.shape} has {size}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


# --------------------------------------------------------------------------------------------
# Softmax and losses
# --------------------------------------------------------------------------------------------
def _row_max(input: Tensor, dim: int) -> np.ndarray:
    """The max along `dim`, as a constant. Subtracting it keeps exp from overflowing and changes
    nothing else (softmax(x - c) = softmax(x)), so it carries no gradient. A row that is all -inf
    (fully masked) is shifted by 0 instead, so it does not become NaN; so is an empty one."""
    m = input.data.max(axis=dim, keepdims=True, initial=-np.inf)
    return np.where(np.isneginf(m), 0, m).astype(input.dtype)


def _shifted(input: Tensor, dim: int) -> Tensor:
    """x minus its row's max (`_row_max`): a row holding +inf is NaN, as in PyTorch, without
    numpy's warning about inf - inf."""
    with np.errstate(invalid="ignore"):
        return input - _row_max(input, dim)


def softmax(input: Tensor, dim: int = -1, *, dtype: np.dtype | type | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim`, computed stably; a row that is entirely -inf (fully
    masked) gives zeros. `dtype` converts the input first (PyTorch's meaning)."""
    if dtype is not None:
        input = input.to(dtype)
    input._require_floating("softmax")
    dim = _dim("softmax", dim, input.ndim)
    if input.ndim == 0:  # one entry, as a row of one (PyTorch allows dim 0 or -1)
        return softmax(input.reshape(1), dim).reshape(())
    if is_fused_enabled():
        return kernels.Softmax.apply(input, dim=dim)
    e = _shifted(input, dim).exp()
    total = e.sum(dim, keepdim=True)
    return e / total.masked_fill(total.data == 0, 1.0)


def log_softmax(input: Tensor, dim: int = -1, *,
                dtype: np.dtype | type | None = None) -> Tensor:
    """x - log(sum(exp(x))) along `dim`, computed stably; `dtype` converts the input first."""
    if dtype is not None:
        input = input.to(dtype)
    input._require_floating("log_softmax")
    dim = _dim("log_softmax", dim, input.ndim)
    if input.ndim == 0:  # one entry, as a row of one (PyTorch allows dim 0 or -1)
        return log_softmax(input.reshape(1), dim).reshape(())
    if is_fused_enabled():
        return kernels.LogSoftmax.apply(input, dim=dim)
    shifted = _shifted(input, dim)
    with np.errstate(invalid="ignore"):  # -inf - -inf: a row of -inf only is NaN, as in PyTorch
        return shifted - shifted.exp().sum(dim, keepdim=True).log()


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1, *, rng: np.random.Generator | None = None) -> Tensor:
    """A sample of the Gumbel-softmax (concrete) distribution (Jang et al. 2016, Maddison et
    al. 2016): softmax((logits + g) / tau) along `dim`, g standard Gumbel noise, -log of
    Exp(1) draws from `rng`. With hard=True the one-hot of its argmax, whose gradient is the
    soft sample's (the straight-through estimator): soft + (one_hot - soft) with the
    parenthesis outside the graph, as PyTorch's. `eps` is unused, as in PyTorch."""
    logits._require_floating("gumbel_softmax")
    dim = _dim("gumbel_softmax", dim, logits.ndim)
    rng = rng if rng is not None else np.random.default_rng()
    gumbels = -np.log(rng.standard_exponential(logits.shape)).astype(logits.dtype)
    soft = softmax((logits + Tensor(gumbels)) / tau, dim)
    if not hard:
        return soft
    one_hot = np.zeros_like(soft.data)
    np.put_along_axis(one_hot, soft.data.argmax(dim, keepdims=True), 1, axis=dim)
    return soft + Tensor(one_hot - soft.data)


def softmin(input: Tensor, dim: int = -1, *, dtype: np.dtype | type | None = None) -> Tensor:
    """softmax(-x) along `dim`: the smallest entries get the most weight."""
    return softmax(-(input if dtype is None else input.to(dtype)), dim=dim)


def cross_entropy(input: Tensor, target: ArrayLike, weight: ArrayLike | None = None, *,
                  ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of logits `input` (N, C), (N, C, d1, ...) or (C,) against `target`: class
    indices (N,), (N, d1, ...) or () (integers), or class probabilities of the input's shape
    (floats). As PyTorch: `weight` (C,) rescales each class, targets equal to `ignore_index`
    count for nothing (and 'mean' averages over the others, weighted), and `label_smoothing` = e
    mixes the target with the uniform distribution: (1 - e) target + e / C."""
    input._require_floating("cross_entropy")  # before the kernel, which assumes floats
    _check_reduction("cross_entropy", reduction)
    if not 0 <= label_smoothing <= 1:
        raise InvalidArgumentError(f"cross_entropy: label_smoothing must be in [0, 1], got "
                                   f"{label_smoothing}")
    class_dim = _class_dim("cross_entropy", input)
    classes = input.shape[class_dim]
    weight = _class_weights("cross_entropy", weight, classes, input.dtype)
    if _is_float(target):
        if ignore_index >= 0:  # PyTorch's check: a class to ignore means nothing for probabilities
            raise InvalidArgumentError("cross_entropy: ignore_index is not supported for class "
                                       "probabilities (a float target)")
        return _soft_cross_entropy(input, target, weight, reduction, label_smoothing)
    target = _class_targets("cross_entropy", input, target, ignore_index)
    if (is_fused_enabled() and input.ndim == 2 and reduction == "mean" and weight is None
            and label_smoothing == 0 and not np.any(target == ignore_index)):
        return kernels.CrossEntropy.apply(input, targets=target)
    return _negative_log_likelihood(log_softmax(input, dim=class_dim), target, weight,
                                    ignore_index, reduction, label_smoothing)


def nll_loss(input: Tensor, target: ArrayLike, weight: ArrayLike | None = None, *,
             ignore_index: int = -100, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood: -input[n, target[n]] for log-probabilities `input` (N, C),
    (N, C, d1, ...) or (C,) and integer class indices `target` (N,), (N, d1, ...) or ();
    `weight`, `ignore_index` and `reduction` as in cross_entropy."""
    input._require_floating("nll_loss")
    _check_reduction("nll_loss", reduction)
    classes = input.shape[_class_dim("nll_loss", input)]
    weight = _class_weights("nll_loss", weight, classes, input.dtype)
    if _is_float(target):
        raise InvalidTypeError("nll_loss: target must be integer class indices, got floats")
    target = _class_targets("nll_loss", input, target, ignore_index)
    return _negative_log_likelihood(input, target, weight, ignore_index, reduction)


def binary_cross_entropy(input: Tensor, target: ArrayLike, weight: ArrayLike | None = None, *,
                         reduction: str = "mean") -> Tensor:
    """-(t log p + (1 - t) log(1 - p)) for probabilities `input` p and `target` t of one shape,
    times `weight` (broadcast) when given. Each log is floored at -100, as in PyTorch, so p = 0
    or 1 gives a finite loss."""
    input._require_floating("binary_cross_entropy")
    _check_reduction("binary_cross_entropy", reduction)
    target = _loss_target("binary_cross_entropy", input, _float_target(
        "binary_cross_entropy", target), same_shape=True)
    if np.any((input.data < 0) | (input.data > 1)):
        raise InvalidArgumentError("binary_cross_entropy: input must be probabilities in [0, 1]; "
                                   "for logits use binary_cross_entropy_with_logits")
    losses = -(target * _log_at_least_minus_100(input)
               + (1 - target) * _log_at_least_minus_100(1 - input))
    if weight is not None:
        losses = losses * _loss_target("binary_cross_entropy", input, weight)
    return _reduce(losses, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: ArrayLike,
                                     weight: ArrayLike | None = None, *, reduction: str = "mean",
                                     pos_weight: ArrayLike | None = None) -> Tensor:
    """binary_cross_entropy(sigmoid(input), target) computed from the logits without overflow:
    (1 - t) x + (1 + (pos_weight - 1) t) log(1 + exp(-x)). `pos_weight` (broadcast over the last
    dim, one per class) weighs the positive term; `weight` each entry."""
    name = "binary_cross_entropy_with_logits"
    input._require_floating(name)
    _check_reduction(name, reduction)
    target = _loss_target(name, input, _float_target(name, target), same_shape=True)
    softplus_neg = _softplus(-input)  # log(1 + exp(-x))
    if pos_weight is not None:
        softplus_neg = softplus_neg * (1 + (_loss_target(name, input, pos_weight) - 1) * target)
    losses = (1 - target) * input + softplus_neg
    if weight is not None:
        losses = losses * _loss_target(name, input, weight)
    return _reduce(losses, reduction)


def mse_loss(input: Tensor, target: ArrayLike, *, reduction: str = "mean") -> Tensor:
    """(input - target)**2, reduced."""
    input._require_floating("mse_loss")
    _check_reduction("mse_loss", reduction)
    difference = input - _loss_target("mse_loss", input, target)
    return _reduce(difference * difference, reduction)


def l1_loss(input: Tensor, target: ArrayLike, *, reduction: str = "mean") -> Tensor:
    """|input - target|, reduced."""
    _check_reduction("l1_loss", reduction)
    return _reduce((input - _loss_target("l1_loss", input, target)).abs(), reduction)


def smooth_l1_loss(input: Tensor, target: ArrayLike, *, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta, for d = input - target, reduced;
    beta = 0 gives l1_loss. It is huber_loss divided by beta."""
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss: beta must not be negative, got {beta}")
    input._require_floating("smooth_l1_loss")
    _check_reduction("smooth_l1_loss", reduction)
    difference = input - _loss_target("smooth_l1_loss", input, target)
    if beta == 0:
        return _reduce(difference.abs(), reduction)
    return _reduce(_huber(difference, beta) / beta, reduction)


def huber_loss(input: Tensor, target: ArrayLike, reduction: str = "mean",
               delta: float = 1.0) -> Tensor:
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta), for d = input - target,
    reduced."""
    if not delta > 0:
        raise RuntimeError(f"huber_loss: delta must be positive, got {delta}")
    input._require_floating("huber_loss")
    _check_reduction("huber_loss", reduction)
    return _reduce(_huber(input - _loss_target("huber_loss", input, target), delta), reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: ArrayLike, margin: float = 0.0,
                        *, reduction: str = "mean") -> Tensor:
    """max(0, margin - target (input1 - input2)) for targets of 1 (input1 should rank higher)
    or -1, reduced."""
    _check_reduction("margin_ranking_loss", reduction)
    difference = input1 - input2
    target = _loss_target("margin_ranking_loss", difference, target)
    # clamp_min, not relu: at 0 the gradient passes, as in PyTorch
    return _reduce((margin - target * difference).clamp_min(0), reduction)


def hinge_embedding_loss(input: Tensor, target: ArrayLike, margin: float = 1.0, *,
                         reduction: str = "mean") -> Tensor:
    """input where the target is 1, max(0, margin - input) where it is -1 (PyTorch's sum of
    both where it is neither), reduced."""
    _check_reduction("hinge_embedding_loss", reduction)
    target = _loss_target("hinge_embedding_loss", input, target).data
    zero = Tensor._make(np.zeros((), input.dtype))
    below_margin = ops.Where.apply((margin - input).clamp_min(0), zero, cond=target != 1)
    return _reduce(below_margin + ops.Where.apply(input, zero, cond=target != -1), reduction)


def soft_margin_loss(input: Tensor, target: ArrayLike, *, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target input)) for targets of 1 or -1, reduced."""
    input._require_floating("soft_margin_loss")
    _check_reduction("soft_margin_loss", reduction)
    return _reduce(_softplus(-_loss_target("soft_margin_loss", input, target) * input),
                   reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: ArrayLike,
                          margin: float = 0.0, *, reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where the target is 1, max(0, cos - margin) where it is -1, the
    cosine taken over the last dim as PyTorch takes it: (x1 . x2) / sqrt((|x1|**2 + 1e-12)
    (|x2|**2 + 1e-12)), reduced."""
    _check_reduction("cosine_embedding_loss", reduction)
    if input1.ndim not in (1, 2) or input1.shape != input2.shape:
        raise InvalidArgumentError(f"cosine_embedding_loss: inputs must be of one shape, (N, D) "
                                   f"or (D,), got {input1.shape} and {input2.shape}")
    squares = [((x * x).sum(-1) + 1e-12) for x in (input1, input2)]
    cosine = (input1 * input2).sum(-1) / (squares[0] * squares[1]).sqrt()
    target = _loss_target("cosine_embedding_loss", cosine, target).data
    zero = Tensor._make(np.zeros((), cosine.dtype))
    losses = (ops.Where.apply(1 - cosine, zero, cond=target == 1)
              + ops.Where.apply((cosine - margin).clamp_min(0), zero, cond=target == -1))
    return _reduce(losses, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-6, swap: bool = False, *,
                        reduction: str = "mean") -> Tensor:
    """max(0, d(anchor, positive) - d(anchor, negative) + margin), d the pairwise_distance
    with `p` and `eps`; with swap, d(anchor, negative) is the smaller of it and
    d(positive, negative). Reduced."""
    return _triplet_margin("triplet_margin_loss", anchor, positive, negative,
                           lambda x1, x2: pairwise_distance(x1, x2, p, eps), margin, swap,
                           reduction)


def triplet_margin_with_distance_loss(
        anchor: Tensor, positive: Tensor, negative: Tensor, *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """triplet_margin_loss with the distance `distance_function(x1, x2)` (default
    pairwise_distance), as PyTorch's."""
    return _triplet_margin("triplet_margin_with_distance_loss", anchor, positive, negative,
                           distance_function or pairwise_distance, margin, swap, reduction)


def _triplet_margin(name: str, anchor: Tensor, positive: Tensor, negative: Tensor,
                    distance: Callable[[Tensor, Tensor], Tensor], margin: float, swap: bool,
                    reduction: str) -> Tensor:
    _check_reduction(name, reduction)
    if margin <= 0:
        raise InvalidArgumentError(f"{name}: margin must be positive, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise InvalidArgumentError(f"{name}: anchor, positive and negative must have as many "
                                   f"dims, got {anchor.shape}, {positive.shape} and "
                                   f"{negative.shape}")
    to_positive, to_negative = distance(anchor, positive), distance(anchor, negative)
    if swap:
        to_negative = to_negative.minimum(distance(positive, negative))
    return _reduce((to_positive - to_negative + margin).clamp_min(0), reduction)


def gaussian_nll_loss(input: Tensor, target: ArrayLike, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """(log(var) + (input - target)**2 / var) / 2, plus log(2 pi) / 2 if `full`, reduced; var
    (the input's shape, or it without the last dim, or with one dim of size 1, or a number) is
    taken at least eps in value, its gradient passing as if it were not (PyTorch's clamp
    under no_grad)."""
    _check_reduction("gaussian_nll_loss", reduction)
    input._require_floating("gaussian_nll_loss")
    var = var if isinstance(var, Tensor) else Tensor(np.asarray(var, dtype=input.dtype))
    if var.ndim and var.shape != input.shape:
        if var.shape == input.shape[:-1]:
            var = var.unsqueeze(-1)  # one variance per sample
        elif var.ndim != input.ndim or [v for v, n in zip(var.shape, input.shape)
                                        if v != n] != [1]:  # one dim of 1, any of them
            raise InvalidArgumentError(f"gaussian_nll_loss: var of shape {var.shape} does not "
                                       f"fit the input's shape {input.shape}")
    if (var.data < 0).any():
        raise InvalidArgumentError("gaussian_nll_loss: var has negative entries")
    var = var + (np.maximum(var.data, eps) - var.data)  # a constant raises it to eps
    difference = input - _loss_target("gaussian_nll_loss", input, target)
    losses = (var.log() + difference * difference / var) * 0.5
    return _reduce(losses + 0.5 * math.log(2 * math.pi) if full else losses, reduction)


def poisson_nll_loss(input: Tensor, target: ArrayLike, log_input: bool = True,
                     full: bool = False, *, eps: float = 1e-8, reduction: str = "mean") -> Tensor:
    """The Poisson negative log likelihood, reduced: exp(input) - target input for a log rate
    (log_input), else input - target log(input + eps); with `full`, plus Stirling's
    target log(target) - target + log(2 pi target) / 2 where the target exceeds 1."""
    _check_reduction("poisson_nll_loss", reduction)
    target = _loss_target("poisson_nll_loss", input, target)
    losses = (input.exp() - target * input if log_input
              else input - target * (input + eps).log())
    if full:
        above_1 = target.data > 1
        stirling = target.masked_fill(~above_1, 1.0)  # its terms for targets above 1
        losses = losses + (stirling * stirling.log() - stirling
                           + (2 * math.pi * stirling).log() * 0.5).masked_fill(~above_1, 0.0)
    return _reduce(losses, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: ArrayLike,
                                weight: ArrayLike | None = None, *, reduction: str = "mean"
                                ) -> Tensor:
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times the class weights if given,
    averaged over the classes (the last dim), then reduced over the samples."""
    input._require_floating("multilabel_soft_margin_loss")
    _check_reduction("multilabel_soft_margin_loss", reduction)
    target = _loss_target("multilabel_soft_margin_loss", input, target)
    losses = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        losses = losses * _loss_target("multilabel_soft_margin_loss", input, weight)
    return _reduce(losses.mean(-1), reduction)


def multi_margin_loss(input: Tensor, target: ArrayLike, p: int = 1, margin: float = 1.0,
                      weight: ArrayLike | None = None, *, reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss of (N, C) scores (or (C,)) and class targets: the sum over the
    classes i other than the target y of max(0, margin - x[y] + x[i])**p (times weight[y]),
    over C; reduced. p is 1 or 2."""
    if p not in (1, 2):
        raise InvalidArgumentError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    _check_reduction("multi_margin_loss", reduction)
    scores = input.reshape(1, -1) if input.ndim == 1 else input
    if scores.ndim != 2:
        raise InvalidArgumentError(f"multi_margin_loss: input must be (N, C) or (C,), got "
                                   f"{input.shape}")
    classes = scores.shape[1]
    target = np.reshape(_as_array(target), -1)
    if target.size and (target.min() < 0 or target.max() >= classes):
        # PyTorch's RuntimeError here (nll_loss's IndexError is _class_targets' own)
        raise InvalidIndexError(f"multi_margin_loss: target must lie in [0, {classes}), got "
                                f"{target.tolist()}")
    target = _class_targets("multi_margin_loss", scores, target, ignore_index=-1)  # its types
    chosen = scores.gather(1, target[:, None])
    hinge = (margin - chosen + scores).clamp_min(0)
    hinge = hinge if p == 1 else hinge * hinge
    if weight is not None:
        weights = _class_weights("multi_margin_loss", weight, classes, scores.dtype)
        hinge = hinge * weights[target][:, None]
    others = np.arange(classes) != target[:, None]  # the target's own term is left out
    losses = hinge.masked_fill(~others, 0.0).sum(1) / classes
    return _reduce(losses.reshape(()) if input.ndim == 1 else losses, reduction)


def multilabel_margin_loss(input: Tensor, target: ArrayLike, *, reduction: str = "mean"
                           ) -> Tensor:
    """The multi-label hinge loss of (N, C) scores (or (C,)): each sample's target row lists
    its classes up to the first -1 (the rest unread); the loss is the sum over those entries j
    (a class listed twice counting twice, as in PyTorch) and the classes i not listed of
    max(0, 1 - (x[j] - x[i])), over C; reduced."""
    _check_reduction("multilabel_margin_loss", reduction)
    input._require_floating("multilabel_margin_loss")
    target = np.asarray(_as_array(target))
    if input.ndim not in (1, 2) or target.shape != input.shape or target.dtype.kind not in "iu":
        raise InvalidArgumentError(f"multilabel_margin_loss: expected input (N, C) or (C,) and "
                                   f"integer targets of its shape, got {input.shape} and "
                                   f"{target.dtype} of shape {target.shape}")
    scores = input.reshape(1, -1) if input.ndim == 1 else input
    labels = target.reshape(scores.shape)
    classes = scores.shape[1]
    listed = np.cumprod(labels >= 0, axis=1).astype(bool)  # the entries before the first -1
    if np.any(labels[listed] >= classes):
        raise InvalidIndexError(f"multilabel_margin_loss: targets must lie in [-1, {classes})")
    times_listed = np.zeros(scores.shape, scores.dtype)
    np.add.at(times_listed, (np.nonzero(listed)[0], labels[listed]), 1)
    # (N, target j, other i): max(0, 1 - x[j] + x[i]), as often as j is listed, i not at all
    hinge = (1 - scores.unsqueeze(2) + scores.unsqueeze(1)).clamp_min(0)
    pairs = times_listed[:, :, None] * (times_listed == 0)[:, None, :]
    losses = (hinge * pairs).sum((1, 2)) / classes
    return _reduce(losses.reshape(()) if input.ndim == 1 else losses, reduction)


def _huber(difference: Tensor, delta: float) -> Tensor:
    """Quadratic within delta of 0, linear outside, chosen by a constant mask."""
    magnitude = difference.abs()
    return ops.Where.apply(0.5 * difference * difference, delta * (magnitude - 0.5 * delta),
                           cond=magnitude.data < delta)


def kl_div(input: Tensor, target: ArrayLike, *, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """The pointwise KL divergence of `target` from the log-probabilities `input`:
    target (log(target) - input), 0 where target is 0; with log_target=True the target is
    given as log-probabilities, exp(target) (target - input). reduction 'batchmean' divides the
    sum by the batch size (the true KL divergence); 'mean' (PyTorch's default) by the number of
    entries. reduction is keyword-only: PyTorch's third parameter is the deprecated
    size_average."""
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"kl_div: reduction must be one of {_REDUCTIONS + ('batchmean',)}, "
                         f"got {reduction!r}")
    input._require_floating("kl_div")
    target = _loss_target("kl_div", input, _float_target("kl_div", target))
    if log_target:
        losses = target.exp() * (target - input)
    else:
        # target * log(target) is 0 at target = 0 (its limit); log is never taken there
        zero = target.data == 0
        losses = target * target.masked_fill(zero, 1.0).log() - target * input
    if reduction == "batchmean":
        return losses.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(losses, reduction)


def ctc_loss(log_probs: Tensor, targets: ArrayLike, input_lengths: ArrayLike,
             target_lengths: ArrayLike, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification (Graves et al., 2006), as PyTorch's F.ctc_loss:
    -log of the probability that `log_probs` (T, N, C) (log-softmax outputs; unbatched (T, C))
    emit the target sequence, summed over every alignment (the target with `blank`s between
    and around its labels, each label and blank held for one or more steps). Sample n reads
    its first input_lengths[n] steps and the first target_lengths[n] labels of its row of
    `targets` (N, S), or its run of `targets` concatenated (sum(target_lengths),). 'mean'
    divides each loss by its target length (at least 1) and averages over the batch; with
    `zero_infinity`, an impossible alignment costs 0 (and gives gradient 0) instead of inf.

    Composed of the forward (alpha) recursion in log space: alpha[s] is the log-probability of
    the alignments that reach place s of the extended target by step t; each step adds the
    log-sums over the places a path may come from (s, s - 1, and s - 2 past a blank between
    two different labels) to the emission log_probs[t, n, extended[s]]."""
    log_probs._require_floating("ctc_loss")
    _check_reduction("ctc_loss", reduction)
    if log_probs.ndim == 2:  # unbatched (T, C): a batch of one, its targets (S,) as they are
        losses = ctc_loss(log_probs.unsqueeze(1), targets,
                          np.reshape(_as_array(input_lengths), 1),
                          np.reshape(_as_array(target_lengths), 1), blank, reduction,
                          zero_infinity)
        return losses.squeeze(0) if reduction == "none" else losses
    if log_probs.ndim != 3:
        raise InvalidArgumentError(f"ctc_loss: log_probs must be (T, N, C) or (T, C), got shape "
                                   f"{log_probs.shape}")
    steps, batch, classes = log_probs.shape
    labels, input_lengths, target_lengths = _ctc_arguments(
        targets, input_lengths, target_lengths, blank, steps, batch, classes)
    # the extended target: blank, label 1, blank, label 2, ..., blank (padded rows: blanks)
    extended = np.full((batch, 2 * labels.shape[1] + 1), blank)
    extended[:, 1::2] = labels
    places = np.arange(extended.shape[1])
    # a path may skip the blank before a label unless that label repeats the one before it
    may_skip = (places >= 2) & (extended != blank) & (extended != np.roll(extended, 2, axis=1))
    emissions = log_probs[:, np.arange(batch)[:, None], extended]  # (T, N, places)
    dtype = log_probs.dtype
    nowhere = Tensor(np.full((batch, 2), -np.inf, dtype))
    # before any step, every sample is at place 0 with no emission yet (log 1); an input of
    # no steps stays there, which only an empty target may end at
    alpha = Tensor(np.tile(np.where(places == 0, 0.0, -np.inf).astype(dtype), (batch, 1)))
    for t in range(steps):
        came_from = [alpha, cat([nowhere[:, :1], alpha[:, :-1]], 1)]
        if t > 0:  # (the first step goes from place 0 to the first blank or the first label)
            came_from.append(cat([nowhere, alpha[:, :-2]], 1).masked_fill(~may_skip, -np.inf))
        reached = _log_sum_exp_of_reachable(stack(came_from, 0), 0) + emissions[t]
        alpha = where((t < input_lengths)[:, None], reached, alpha)
    ends = np.stack([2 * target_lengths, np.maximum(2 * target_lengths - 1, 0)], 1)
    last = alpha[np.arange(batch)[:, None], ends].masked_fill(
        np.stack([np.zeros(batch, bool), target_lengths == 0], 1), -np.inf)
    losses = -_log_sum_exp_of_reachable(last, 1)
    if zero_infinity:
        losses = losses.masked_fill(np.isinf(losses.data), 0.0)
    if reduction == "mean":
        return (losses / np.maximum(target_lengths, 1).astype(dtype)).mean()
    return _reduce(losses, reduction)


def _log_sum_exp_of_reachable(x: Tensor, dim: int) -> Tensor:
    """x.logsumexp(dim), except where every term is -inf (a place no path reaches): -inf
    there too, but with gradient 0 rather than logsumexp's NaN (0/0 in its backward), which
    would reach every other place through the recursion."""
    unreachable = np.isneginf(x.data).all(axis=dim, keepdims=True)
    lse = x.masked_fill(unreachable, 0.0).logsumexp(dim)
    return lse.masked_fill(unreachable.squeeze(dim), -np.inf)


def _ctc_arguments(targets: ArrayLike, input_lengths: ArrayLike, target_lengths: ArrayLike,
                   blank: int, steps: int, batch: int, classes: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ctc_loss's targets as labels (N, S) padded, and its lengths, checked."""
    targets = np.asarray(_as_array(targets))
    lengths = []
    for name, value, most in (("input_lengths", input_lengths, steps),
                              ("target_lengths", target_lengths, None)):
        value = np.asarray(_as_array(value))
        if value.dtype.kind not in "iu":
            raise InvalidTypeError(f"ctc_loss: {name} must be integers, got {value.dtype}")
        if value.shape != (batch,):
            raise InvalidArgumentError(f"ctc_loss: {name} must be of size batch_size "
                                       f"({batch}), got shape {value.shape}")
        if np.any(value < 0) or (most is not None and np.any(value > most)):
            bound = "" if most is None else f" and at most {most}"
            raise InvalidArgumentError(f"ctc_loss: {name} must be at least 0{bound}, got "
                                       f"{value.tolist()}")
        lengths.append(value.astype(np.int64))
    input_lengths, target_lengths = lengths
    if targets.dtype.kind not in "iu":
        raise InvalidTypeError(f"ctc_loss: targets must be integer labels, got dtype "
                               f"{targets.dtype}")
    if not 0 <= blank < classes:
        raise InvalidArgumentError(f"ctc_loss: blank must be in label range [0, {classes}), "
                                   f"got {blank}")
    if targets.ndim == 1:  # concatenated: each sample's labels follow the previous one's
        if len(targets) != target_lengths.sum():
            raise InvalidArgumentError(f"ctc_loss: concatenated targets must hold "
                                       f"sum(target_lengths) = {target_lengths.sum()} labels, "
                                       f"got {len(targets)}")
        labels = np.zeros((batch, target_lengths.max(initial=0)), targets.dtype)
        for n, run in enumerate(np.split(targets, np.cumsum(target_lengths)[:-1])):
            labels[n, :len(run)] = run
    elif targets.ndim == 2 and len(targets) == batch and \
            np.all(target_lengths <= targets.shape[1]):
        labels = targets
    else:
        raise InvalidArgumentError(f"ctc_loss: targets must be (N, S) with S >= every target "
                                   f"length, or 1-D, concatenated; got shape {targets.shape} "
                                   f"for target_lengths {target_lengths.tolist()}")
    used = np.arange(labels.shape[1]) < target_lengths[:, None]
    if np.any(used & ((labels < 0) | (labels >= classes) | (labels == blank))):
        raise InvalidArgumentError(f"ctc_loss: target labels must lie in [0, {classes}) and "
                                   f"not be the blank ({blank})")
    return np.where(used, labels, blank), input_lengths, target_lengths


_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(name: str, reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def _is_float(target: ArrayLike) -> bool:
    return np.asarray(_as_array(target)).dtype.kind == "f"


def _class_dim(name: str, input: Tensor) -> int:
    """The classes are dim 1 of (N, C, ...) and dim 0 of an unbatched (C,)."""
    if input.ndim == 0:
        raise InvalidArgumentError(f"{name}: input must be (N, C, ...) or (C,), got a 0-d tensor")
    return 0 if input.ndim == 1 else 1


def _class_weights(name: str, weight: ArrayLike | None, classes: int,
                   dtype: np.dtype) -> np.ndarray | None:
    """The per-class weights as a constant array (PyTorch has no gradient for them either)."""
    if weight is None:
        return None
    weight = np.asarray(_as_array(weight), dtype=dtype)
    if weight.shape != (classes,):
        raise InvalidArgumentError(f"{name}: weight must have one entry per class, shape "
                                   f"({classes},), got {weight.shape}")
    return weight


def _class_targets(name: str, input: Tensor, target: ArrayLike, ignore_index: int) -> np.ndarray:
    """Integer class indices of the shape of `input` without its class dim, each in [0, C) or
    equal to `ignore_index`."""
    target = np.array(_as_array(target))  # a copy: backward reads it, the caller may change theirs
    if target.dtype.kind not in "iu":
        raise InvalidTypeError(f"{name}: target must be integer class indices (or, for "
                               f"cross_entropy, float probabilities), got dtype {target.dtype}")
    expected = input.shape[:1] + input.shape[2:] if input.ndim > 1 else ()
    if target.shape != expected:
        raise InvalidArgumentError(f"{name}: input {input.shape} needs target of shape "
                                   f"{expected}, got {target.shape}")
    classes = input.shape[_class_dim(name, input)]
    wrong = (target != ignore_index) & ((target < 0) | (target >= classes))
    if np.any(wrong):
        raise IndexError(f"{name}: target must lie in [0, {classes}) or equal ignore_index "
                         f"({ignore_index}), got {target[wrong].ravel()[0]}")
    return target


def _negative_log_likelihood(log_probs: Tensor, target: np.ndarray, weight: np.ndarray | None,
                             ignore_index: int, reduction: str,
                             label_smoothing: float = 0.0) -> Tensor:
    """nll_loss, plus cross_entropy's label smoothing; PyTorch's formulas:
    loss_n = (1 - e) w[t_n] (-log_probs[n, t_n]) + (e / C) sum_c w[c] (-log_probs[n, c]), 0 where
    t_n is ignored; 'mean' divides the sum by sum_n w[t_n] over the targets not ignored."""
    if log_probs.ndim == 1:  # unbatched: a batch of one ('mean' divides by its class weight)
        loss = _negative_log_likelihood(log_probs.reshape(1, -1), target.reshape(1), weight,
                                        ignore_index, reduction, label_smoothing)
        return loss.reshape(())
    classes = log_probs.shape[1]
    ignored = target == ignore_index
    safe_target = np.where(ignored, 0, target)  # any valid class: its loss is masked to 0
    batch, *positions = np.indices(target.shape)
    losses = -log_probs[(batch, safe_target, *positions)]
    if ignored.any():
        losses = losses.masked_fill(ignored, 0.0)
    class_weights = np.ones(classes, log_probs.dtype) if weight is None else weight
    target_weights = np.where(ignored, 0, class_weights[safe_target]).astype(log_probs.dtype)
    if weight is not None:
        losses = losses * target_weights
    if label_smoothing:
        weighted = log_probs if weight is None else \
            log_probs * weight.reshape(classes, *[1] * len(positions))
        uniform = -weighted.sum(1).masked_fill(ignored, 0.0)
        losses = (1 - label_smoothing) * losses + (label_smoothing / classes) * uniform
    if reduction != "mean":
        return _reduce(losses, reduction)
    total = target_weights.sum()  # of any sign: PyTorch takes negative class weights too
    # every target ignored: the mean of nothing is NaN, as in PyTorch (without a 0/0 warning)
    return losses.sum() / (total if total != 0 else np.nan)


def _soft_cross_entropy(input: Tensor, target: ArrayLike, weight: np.ndarray | None,
                        reduction: str, label_smoothing: float) -> Tensor:
    """cross_entropy with class probabilities: loss = -sum_c w[c] t[c] log_softmax(x)[c], with
    t smoothed to (1 - e) t + e / C; 'mean' averages over the samples (not the weights)."""
    class_dim = _class_dim("cross_entropy", input)
    target = _loss_target("cross_entropy", input, target, same_shape=True)
    classes = input.shape[class_dim]
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    per_class = log_softmax(input, dim=class_dim) * target
    if weight is not None:
        per_class = per_class * weight.reshape(classes, *[1] * (input.ndim - class_dim - 1))
    return _reduce(-per_class.sum(class_dim), reduction)


def _loss_target(name: str, input: Tensor, target: ArrayLike, same_shape: bool = False) -> Tensor:
    """A loss's target (or weight) as a Tensor: arrays and numbers take the input's dtype. It
    must broadcast to the input's shape (PyTorch would also broadcast the input to a larger
    target, with a warning: almost always a bug, so minigrad refuses), or equal it."""
    if not isinstance(target, Tensor):
        target = Tensor(np.asarray(target, dtype=input.dtype))
    if target.shape != input.shape:
        if same_shape:
            raise InvalidArgumentError(f"{name}: target must have the input's shape "
                                       f"{input.shape}, got {target.shape}")
        if not _broadcasts_to(target.shape, input.shape):
            raise InvalidArgumentError(f"{name}: shape {target.shape} does not broadcast to the "
                                       f"input's shape {input.shape}")
    return target


def _float_target(name: str, target: ArrayLike) -> ArrayLike:
    """`target`, refused unless floating point, as PyTorch refuses integer and bool targets
    (0/1 labels as int64, say) for the losses whose target is a probability."""
    if not _is_float(target):
        raise InvalidTypeError(f"{name}: target must be floating point (probabilities), got "
                               f"dtype {np.asarray(_as_array(target)).dtype}; convert it with "
                               f".float()")
    return target


def _log_at_least_minus_100(x: Tensor) -> Tensor:
    """log(x) floored at -100 (PyTorch's binary_cross_entropy); where the floor holds, the log
    is never taken, so neither -inf nor a NaN gradient appears at x = 0."""
    floored = x.data < math.exp(-100)
    return x.masked_fill(floored, 1.0).log().masked_fill(floored, -100.0)


def _softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)) without overflow: x + log(1 + exp(-x)) for x > 0. Split by a constant
    mask rather than with abs or relu, so the gradient at x = 0 is sigmoid(0) = 0.5."""
    positive = x.data > 0
    return where(positive, x, 0.0) + (1 + where(positive, -x, x).exp()).log()


# --------------------------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------------------------
def attention(query: Tensor, key: Tensor, value: Tensor, mask: ArrayLike | None = None,
              scale: float | None = None) -> tuple[Tensor, Tensor]:
    """softmax(Q K^T * scale) V for inputs (..., seq, d), scale = 1/sqrt(d) by default; `mask`
    (True = may attend) broadcasts against the scores (..., seq_q, seq_k). Returns (output,
    attention weights); a query whose every key is masked gets weights 0 (not NaN).

    With kernels on, the weights are for looking at only (gradients flow through the output)."""
    _check_attention_inputs("attention", query, key, value)
    mask = None if mask is None else np.asarray(_as_array(mask), dtype=bool)
    scale = _attention_scale(query, scale)
    if is_fused_enabled():
        weights: list[np.ndarray] = []
        out = kernels.Attention.apply(query, key, value, mask=mask, scale=scale,
                                      weights_out=weights)
        weights[0].flags.writeable = False  # the kernel's own array: backward reads it
        return out, Tensor(weights[0])
    weights = _attention_weights(query, key, mask, scale)
    return weights @ value, weights


def self_attention(input: Tensor, w_q: Tensor, b_q: Tensor | None, w_k: Tensor,
                   b_k: Tensor | None, w_v: Tensor, b_v: Tensor | None, num_heads: int,
                   mask: ArrayLike | None = None) -> tuple[Tensor, Tensor]:
    """Multi-head self-attention up to the output projection, for input (B, T, C): queries, keys
    and values are linear projections of the same input (weights (C, C)), each split into
    `num_heads` heads of size C / num_heads; `attention` runs in every head (`mask` as there,
    against (T, T)), and the heads are merged back to (B, T, C). Returns (output, attention
    weights (B, heads, T, T)).

    With kernels on, one fused op (kernels.SelfAttention) computes it with the three
    projections in one matrix product and the heads as strided views; the weights are then for
    looking at only (gradients flow through the output), as in `attention`."""
    width = input.shape[-1] if input.ndim else 0
    if input.ndim != 3 or num_heads <= 0 or width % num_heads or any(
            w.shape != (width, width) for w in (w_q, w_k, w_v)):
        raise InvalidArgumentError(f"self_attention: expected an input (batch, seq, width) "
                                   f"whose width {num_heads} heads divide, and weights (width, "
                                   f"width); got input {input.shape}, weights {w_q.shape}, "
                                   f"{w_k.shape}, {w_v.shape}")
    batch, seq, _ = input.shape
    mask = None if mask is None else np.asarray(_as_array(mask), dtype=bool)
    biases = (b_q, b_k, b_v)
    # the kernel takes biases (C,) and one float dtype; linear's other cases (a bias that
    # broadcasts, or none; mixed dtypes, promoted; its errors) go to the composition
    if is_fused_enabled() and all(b is not None and b.shape == (width,) for b in biases) and \
            input.dtype.kind == "f" and all(t.dtype == input.dtype for t in (
                w_q, w_k, w_v, *biases)):
        weights: list[np.ndarray] = []
        out = kernels.SelfAttention.apply(input, w_q, b_q, w_k, b_k, w_v, b_v, mask=mask,
                                          num_heads=num_heads, weights_out=weights)
        weights[0].flags.writeable = False  # the kernel's own array: backward reads it
        return out, Tensor(weights[0])
    q, k, v = (linear(input, w, b).reshape(batch, seq, num_heads, width // num_heads)
               .permute(0, 2, 1, 3) for w, b in zip((w_q, w_k, w_v), biases))
    out, weights = attention(q, k, v, mask)
    return out.permute(0, 2, 1, 3).reshape(batch, seq, width), weights


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: ArrayLike | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False, *,
                                 rng: np.random.Generator | None = None) -> Tensor:
    """PyTorch's attention: softmax(Q K^T * scale + mask) V for query (..., L, E), key
    (..., S, E), value (..., S, Ev); returns the output (..., L, Ev) only.

    `attn_mask` broadcasts against the scores (..., L, S): bool (True = takes part in attention)
    or float (added to the scores). `is_causal` lets query i see keys j <= i (aligned top-left
    when L != S). `dropout_p` drops attention weights (whenever > 0: pass 0 in eval), with masks
    drawn from `rng`. `enable_gqa` shares each key/value head among query heads (dim -3). A query
    that may see no key gets output 0, as in PyTorch."""
    name = "scaled_dot_product_attention"
    if not 0 <= dropout_p <= 1:
        raise InvalidArgumentError(f"{name}: dropout_p must be in [0, 1], got {dropout_p}")
    if enable_gqa:
        key, value = _share_kv_heads(name, query, key, value)
    scores_shape = _check_attention_inputs(name, query, key, value)
    if is_causal:
        if attn_mask is not None:
            raise InvalidArgumentError(f"{name}: give attn_mask or is_causal=True, not both")
        attn_mask = np.tril(np.ones((query.shape[-2], key.shape[-2]), dtype=bool))
    if attn_mask is not None:
        attn_mask = _attention_mask(name, attn_mask, query.dtype, scores_shape)
    if dropout_p == 0 and not isinstance(attn_mask, Tensor):
        return attention(query, key, value, attn_mask, scale)[0]
    weights = _attention_weights(query, key, attn_mask, _attention_scale(query, scale))
    return dropout(weights, dropout_p, rng=rng) @ value


def _attention_scale(query: Tensor, scale: float | None) -> float:
    """The scores' scale: 1/sqrt(head size) unless given."""
    return 1 / math.sqrt(query.shape[-1]) if scale is None else scale


def _attention_weights(query: Tensor, key: Tensor, mask: np.ndarray | Tensor | None,
                       scale: float) -> Tensor:
    """softmax(Q K^T * scale) over the keys, after the mask: a bool mask puts -inf where it is
    False, a float mask is added."""
    scores = (query @ key.mT) * scale
    if isinstance(mask, Tensor):
        scores = scores + mask
    elif mask is not None:
        scores = scores.masked_fill(~mask, -np.inf)
    return softmax(scores, dim=-1)


def _check_attention_inputs(name: str, query: Tensor, key: Tensor,
                            value: Tensor) -> tuple[int, ...]:
    """Check that query, key and value are floats (softmax's rule) and fit; return the shape
    of the scores (..., L, S)."""
    for tensor in (query, key, value):
        tensor._require_floating(name)
    try:
        batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except ValueError:
        batch = None
    if batch is None or min(query.ndim, key.ndim, value.ndim) < 2 or \
            query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise InvalidArgumentError(f"{name}: query {query.shape}, key {key.shape} and value "
                                   f"{value.shape} must share the head size (last dim of query "
                                   "and key) and the key count (second-to-last dim of key and "
                                   "value), and their batch dims must broadcast")
    return batch + (query.shape[-2], key.shape[-2])


def _attention_mask(name: str, mask: ArrayLike, dtype: np.dtype,
                    scores_shape: tuple[int, ...]) -> np.ndarray | Tensor:
    """sdpa's attn_mask checked: bool as a numpy array, float as a Tensor (it may carry a
    gradient); either must broadcast to the scores (..., L, S)."""
    if _is_float(mask):
        mask = mask if isinstance(mask, Tensor) else Tensor(np.asarray(mask, dtype=dtype))
    else:
        mask = np.asarray(_as_array(mask))
        if mask.dtype != bool:
            raise InvalidTypeError(f"{name}: attn_mask must be bool or floating-point, got dtype "
                                   f"{mask.dtype}")
    if not _broadcasts_to(mask.shape, scores_shape):
        raise InvalidArgumentError(f"{name}: attn_mask of shape {mask.shape} does not broadcast "
                                   f"to the attention scores (..., L, S) = {scores_shape}")
    return mask


def _share_kv_heads(name: str, query: Tensor, key: Tensor, value: Tensor
                    ) -> tuple[Tensor, Tensor]:
    """Grouped-query attention: repeat each key and value head (dim -3) for the query heads
    that share it."""
    if min(query.ndim, key.ndim, value.ndim) < 3 or key.shape[-3] != value.shape[-3] or \
            query.shape[-3] % key.shape[-3]:
        raise InvalidArgumentError(f"{name}: enable_gqa needs (..., heads, seq, dim) inputs with "
                                   "the query heads a multiple of the key/value heads, got query "
                                   f"{query.shape}, key {key.shape}, value {value.shape}")
    heads = np.repeat(np.arange(key.shape[-3]), query.shape[-3] // key.shape[-3])
    return key[..., heads, :, :], value[..., heads, :, :]


# --------------------------------------------------------------------------------------------
# Padding and encoding
# --------------------------------------------------------------------------------------------
def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """Pad the trailing dims: `pad` lists (before, after) amounts for the last dim, then the one
    before it, and so on, as in PyTorch; a negative amount crops instead. mode "constant" fills
    with `value` (default 0); "reflect" mirrors the entries next to each edge (the edge itself
    not repeated, so each amount must be smaller than its dim), "replicate" repeats the edge
    entry, "circular" wraps around (at most once: amounts up to the dim's size, and none
    negative). The other modes index the input, so their gradient adds up over the copies."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError("pad: mode must be 'constant', 'reflect', 'replicate' or "
                                  f"'circular', got {mode!r}")  # PyTorch's class here
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise InvalidArgumentError(f"pad: needs (before, after) pairs for at most {input.ndim} "
                                   f"dims, got {tuple(pad)}")
    if mode != "constant":
        if value:
            raise InvalidArgumentError(f"pad: mode {mode!r} takes no value (got {value})")
        return _pad_by_index(input, pad, mode)
    fill = 0 if value is None else value
    out = input
    for i, (before, after) in enumerate(zip(pad[::2], pad[1::2])):
        dim = input.ndim - 1 - i
        crop_before, crop_after = max(-before, 0), max(-after, 0)
        if crop_before + crop_after > out.shape[dim]:
            raise InvalidArgumentError(f"pad: {tuple(pad)} crops more than the {out.shape[dim]} "
                                       f"entries of dim {dim} of shape {input.shape}")
        if crop_before or crop_after:
            out = out.narrow(dim, crop_before, out.shape[dim] - crop_before - crop_after)
        if before > 0 or after > 0:
            first, last = (Tensor(np.full(out.shape[:dim] + (max(n, 0),) + out.shape[dim + 1:],
                                          fill, out.dtype)) for n in (before, after))
            out = cat([first, out, last], dim)
    return out


def _pad_by_index(input: Tensor, pad: Sequence[int], mode: str) -> Tensor:
    """pad's reflect, replicate and circular modes: along each padded dim the output position p
    (from -before to size + after) reads the input entry its mode maps p to."""
    out = input
    for i, (before, after) in enumerate(zip(pad[::2], pad[1::2])):
        dim = input.ndim - 1 - i
        n = input.shape[dim]
        if mode == "circular" and min(before, after) < 0:
            raise NotImplementedError(f"pad: circular padding does not crop (got {tuple(pad)}); "
                                      f"PyTorch's result there reads uninitialised memory")
        # replicate has no limit, but an empty dim has no entry to repeat
        limit = {"reflect": n - 1, "circular": n}.get(mode, math.inf if n else 0)
        if max(before, after) > limit or n + before + after < 0:
            raise InvalidArgumentError(f"pad: {mode} padding of {(before, after)} does not fit "
                                       f"dim {dim} of size {n} (at most {limit} on each side)")
        positions = np.arange(-before, n + after)
        if mode == "reflect":
            index = (n - 1) - np.abs((n - 1) - np.abs(positions))
        elif mode == "replicate":
            index = np.clip(positions, 0, n - 1)
        else:
            index = positions % n
        out = out[(slice(None),) * dim + (index,)]
    return out


def one_hot(tensor: ArrayLike, num_classes: int = -1) -> Tensor:
    """out[..., c] = 1 where tensor == c, else 0: an int64 tensor with a new last dim of
    num_classes entries (-1: one more than the largest class), without grad."""
    classes = np.asarray(_as_array(tensor))
    if classes.dtype.kind not in "iu":
        raise InvalidTypeError(f"one_hot: classes must be integers, got dtype {classes.dtype}")
    if classes.size and classes.min() < 0:
        raise InvalidArgumentError(f"one_hot: classes must be non-negative, got {classes.min()}")
    if num_classes == -1:
        if not classes.size:
            raise InvalidArgumentError("one_hot: cannot infer num_classes from an empty tensor; "
                                       "pass it")
        num_classes = int(classes.max()) + 1
    elif classes.size and classes.max() >= num_classes:
        raise InvalidArgumentError("one_hot: classes must be smaller than "
                                   f"num_classes={num_classes}, got {classes.max()}")
    return Tensor(classes[..., None] == np.arange(num_classes), dtype=np.int64)
