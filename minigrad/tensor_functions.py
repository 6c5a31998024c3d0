"""Tier 2, compositions: the functions PyTorch has at the top level (`torch.cat`, `torch.where`,
`torch.zeros`, ...), exported as `minigrad.cat`, `minigrad.where`, `minigrad.zeros`, ...

Each is a primitive applied to its inputs or a few readable lines of Tensor methods; none has a
backward of its own.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import math
from typing import Any, Callable, Sequence

import numpy as np

from . import ops
from .engine import ArrayLike
from .errors import InvalidArgumentError, InvalidIndexError, InvalidTypeError
from .creation import _rng, ones_like, tensor
from .dtypes import get_default_dtype
from .tensor import (Dim, Tensor, _accumulating, _as_array, _bool_mask, _dim, _dim_list, _dims,
                     _index_array, _older_unbiased_form, _operand, _promote_types, _result_dtype,
                     _sliced)

__all__ = ["as_tensor", "asarray", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag",
           "broadcast_shapes", "broadcast_tensors", "bucketize", "can_cast", "cartesian_prod",
           "cat", "cdist", "chain_matmul", "column_stack", "combinations", "concat", "concatenate",
           "corrcoef", "cosine_similarity", "cov", "cumulative_trapezoid", "dstack",
           "frobenius_norm", "from_numpy", "gradient", "hstack", "is_tensor", "isin", "meshgrid",
           "nuclear_norm", "pairwise_distance", "promote_types", "repeat_interleave",
           "result_type", "row_stack", "scalar_tensor", "searchsorted", "stack", "std_mean",
           "tensordot", "trapezoid", "trapz", "unravel_index", "unsafe_chunk", "unsafe_split",
           "unsafe_split_with_sizes", "vander", "var_mean", "vstack", "where"]


# --------------------------------------------------------------------------------------------
# Tensors from arrays
# --------------------------------------------------------------------------------------------
def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing `ndarray`'s memory and dtype: changing one changes the other."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy ndarray, got {type(ndarray).__name__}")
    return Tensor(ndarray, dtype=ndarray.dtype)


def as_tensor(data: ArrayLike, dtype: Any = None) -> Tensor:
    """`data` as a tensor without a copy where it can be: a tensor (in `dtype`) or a numpy array
    of that dtype shares its memory; anything else is copied as `minigrad.tensor` would."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or np.dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def asarray(obj: Any, *, dtype: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:
    """obj as a tensor, as torch.asarray: a tensor, or a numpy array already of `dtype`, is
    shared (the tensor itself) unless copy=True; anything else is converted as
    minigrad.tensor would, which copy=False refuses (a ValueError, as PyTorch's). A tensor's
    copy or conversion stays in its graph; requires_grad marks the result."""
    shared = isinstance(obj, Tensor) or isinstance(obj, np.ndarray)
    kept = dtype is None or np.dtype(dtype) == np.asarray(_as_array(obj)).dtype
    if copy is False and not (shared and kept):
        raise InvalidArgumentError("asarray: copy=False, but obj cannot be shared without a "
                                   "copy (another dtype, or not a tensor or numpy array)")
    if isinstance(obj, Tensor):
        out = obj if kept else obj.to(dtype)
        out = out.clone() if copy and out is obj else out
    elif shared and kept and not copy:
        out = from_numpy(obj)
    else:
        out = tensor(obj, dtype=dtype)
    return out.requires_grad_() if requires_grad else out


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


# --------------------------------------------------------------------------------------------
# Dtypes: PyTorch's promotion rules
# --------------------------------------------------------------------------------------------
def promote_types(type1: Any, type2: Any) -> np.dtype:
    """The smallest dtype both convert to, as torch.promote_types: numpy's rule, except that an
    integer or bool meeting a float gives that float (numpy: int32 and float32 give float64)."""
    return _promote_types(np.dtype(type1), np.dtype(type2))


def result_type(tensor1: Tensor | float, tensor2: Tensor | float) -> np.dtype:
    """The dtype an arithmetic op of these two gives, as torch.result_type: tensors with dims
    decide before 0-d ones and those before Python numbers, unless the later ones bring a
    higher kind (so an int64 tensor with 2.5 is float32, a float32 one with a float64 0-d
    tensor float32)."""
    return _result_dtype(_operand(tensor1), _operand(tensor2))


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's type promotion may cast `from_` to `to`, as torch.can_cast: never to a
    lower kind (float to an integer, a number to bool); any size within a kind (int64 to
    uint8, float64 to float16)."""
    kinds = {"b": 0, "u": 1, "i": 1, "f": 2}
    return kinds[np.dtype(from_).kind] <= kinds[np.dtype(to).kind]


def scalar_tensor(s: float, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding `s`, in the default float dtype unless given (an int too, as
    torch.scalar_tensor)."""
    return tensor(_as_array(s).item(), dtype=get_default_dtype() if dtype is None else dtype,
                  requires_grad=requires_grad)


# --------------------------------------------------------------------------------------------
# Joining and selecting
# --------------------------------------------------------------------------------------------
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dim `dim` (their other dims must agree). As in PyTorch, a
    1-D empty tensor, shape (0,), joins tensors of any shape: it adds no entries."""
    shapes = [t.shape for t in tensors]
    if not shapes or min(len(s) for s in shapes) == 0:
        raise InvalidArgumentError("cat: needs one or more tensors of at least 1 dim, got shapes "
                                   f"{shapes}")
    first = next((s for s in shapes if s != (0,)), shapes[0])  # the shape the others match
    d = _dim("cat", dim, len(first))
    if any(s != (0,) and (len(s) != len(first) or s[:d] + s[d + 1:] != first[:d] + first[d + 1:])
           for s in shapes):
        raise InvalidArgumentError(f"cat: shapes {shapes} must agree in every dim but dim {dim}")
    empty = first[:d] + (0,) + first[d + 1:]
    dtype = _result_dtype(*tensors)  # PyTorch's promotion: int64 with float32 is float32
    return ops.Concat.apply(*((t.reshape(empty) if t.shape == (0,) else t).to(dtype)
                              for t in tensors), axis=d)


def broadcast_shapes(*shapes: int | Sequence[int]) -> tuple[int, ...]:
    """The shape tensors of these shapes broadcast to together (an int is a 1-D shape)."""
    try:
        return tuple(np.broadcast_shapes(*((s,) if isinstance(s, int) else tuple(s)
                                           for s in shapes)))
    except ValueError:
        raise InvalidArgumentError(f"broadcast_shapes: {shapes} do not broadcast together"
                                   ) from None


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape."""
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def isin(elements: Tensor | float, test_elements: Tensor | float, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each entry of `elements` is among `test_elements` (or not, with invert): bool,
    in elements' shape, without grad. assume_unique changes nothing."""
    found = np.isin(_as_array(elements), _as_array(test_elements), invert=invert)
    return Tensor._make(np.asarray(found))


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """F.cosine_similarity, which PyTorch has at the top level too."""
    return functional.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """F.pairwise_distance, which PyTorch has at the top level too."""
    return functional.pairwise_distance(x1, x2, p, eps, keepdim)


def concat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Alias of cat."""
    return cat(tensors, dim)


def concatenate(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Alias of cat, with numpy's argument name."""
    return cat(tensors, axis)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dim `dim`."""
    shapes = {t.shape for t in tensors}
    if len(shapes) != 1:
        raise InvalidArgumentError(f"stack: tensors must all have the same shape, got "
                                   f"{[t.shape for t in tensors]}")
    dim = _dim("stack", dim, len(shapes.pop()) + 1)  # a dim of the result: IndexError if not
    return cat([t.reshape(*t.shape[:dim], 1, *t.shape[dim:]) for t in tensors], dim)


def atleast_1d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 1 dim (a 0-d one reshaped to (1,)): one tensor for one, a
    tuple for several or for a list, as torch.atleast_1d."""
    return _at_least(tensors, lambda t: t.reshape(1) if t.ndim == 0 else t)


def atleast_2d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 2 dims (0-d: (1, 1); 1-D (n,): (1, n)), as torch.atleast_2d."""
    return _at_least(tensors, lambda t: t.reshape(1, -1) if t.ndim < 2 else t)


def atleast_3d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 3 dims (0-d: (1, 1, 1); 1-D (n,): (1, n, 1); 2-D (m, n):
    (m, n, 1)), as torch.atleast_3d."""
    shapes = {0: lambda s: (1, 1, 1), 1: lambda s: (1, *s, 1), 2: lambda s: (*s, 1)}
    return _at_least(tensors, lambda t: t.reshape(shapes[t.ndim](t.shape)) if t.ndim < 3 else t)


def _at_least(tensors: tuple, reshaped: Callable[[Tensor], Tensor]
              ) -> Tensor | tuple[Tensor, ...]:
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return reshaped(tensors[0])
    if len(tensors) == 1:  # one list or tuple of tensors
        tensors = tuple(tensors[0])
    return tuple(reshaped(t) for t in tensors)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors joined along dim 1, or along dim 0 when they are 1-D (0-d ones count as
    1-D), as torch.hstack."""
    tensors = atleast_1d(tuple(tensors))
    return cat(tensors, 0 if tensors and tensors[0].ndim == 1 else 1)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors joined along dim 2, after atleast_3d, as torch.dstack."""
    return cat(atleast_3d(tuple(tensors)), 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors side by side as columns: 0-d and 1-D ones made (n, 1) columns, then
    hstack, as torch.column_stack."""
    return hstack([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors])


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors joined along dim 0, 0-d and 1-D ones first made rows (atleast_2d), as
    torch.vstack."""
    return cat(atleast_2d(tuple(tensors)), 0)


row_stack = vstack  # PyTorch's alias


def meshgrid(*tensors: Tensor | Sequence[Tensor], indexing: str = "ij") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D (or 0-d) tensors, as torch.meshgrid: the k-th output holds
    tensors[k]'s entries along dim k and repeats them along the others. indexing="xy" swaps
    the first two dims (Cartesian, as numpy's default)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise InvalidArgumentError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    if any(t.ndim > 1 for t in tensors):
        raise InvalidArgumentError(f"meshgrid: needs 0-d or 1-D tensors, got shapes "
                                   f"{[t.shape for t in tensors]}")
    if not tensors or len({t.dtype for t in tensors}) > 1:  # PyTorch promotes nothing here
        raise InvalidArgumentError(f"meshgrid: needs one or more tensors of one dtype, got "
                                   f"{[str(t.dtype) for t in tensors]}")
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(axes) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(tensors)
    for axis, t in zip(axes, tensors):
        shape[axis] = t.numel()
    grids = []
    for axis, t in zip(axes, tensors):
        along = [1] * len(tensors)
        along[axis] = t.numel()
        grids.append(t.reshape(along).expand(shape))
    return tuple(grids)


def where(condition: ArrayLike, input: ArrayLike | None = None, other: ArrayLike | None = None
          ) -> Tensor | tuple[Tensor, ...]:
    """`input` where `condition` (a bool tensor) is True, else `other` (they broadcast), in
    their promoted dtype (PyTorch's: a Python number takes a tensor's dtype, int and float
    tensors meet in the float's). With the condition alone, nonzero(condition, as_tuple=True),
    as PyTorch's."""
    if input is None and other is None:
        return Tensor._make(np.asarray(_as_array(condition))).nonzero(as_tuple=True)
    if input is None or other is None:
        raise TypeError("where: give both input and other, or the condition alone")
    cond = _bool_mask("where", condition)
    input, other = _operand(input), _operand(other)
    dtype = _result_dtype(input, other)
    input, other = (x.to(dtype) if isinstance(x, Tensor) else Tensor._make(np.asarray(x, dtype))
                    for x in (input, other))
    return ops.Where.apply(input, other, cond=cond)


# --------------------------------------------------------------------------------------------
# Sorted places
# --------------------------------------------------------------------------------------------
def searchsorted(sorted_sequence: Tensor, input: Tensor | float, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: ArrayLike | None = None
                 ) -> Tensor:
    """Where each entry of `input` would go in the last dim of `sorted_sequence` to keep it
    sorted: before the entries equal to it, or after them with right=True or side='right', as
    torch.searchsorted. `sorted_sequence` is 1-D, or has the leading dims of `input`; `sorter`
    holds the indices that sort it, if it is not sorted itself. int64 (int32 with out_int32),
    without grad."""
    if side not in (None, "left", "right"):
        raise InvalidArgumentError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if right and side == "left":
        raise InvalidArgumentError("searchsorted: side='left' and right=True contradict each other")
    side = side or ("right" if right else "left")
    boundaries, values = _as_array(sorted_sequence), np.asarray(_as_array(input))
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, _index_array("searchsorted", sorter), -1)
    dtype = np.int32 if out_int32 else np.int64
    if boundaries.ndim > 1 and boundaries.shape[:-1] != values.shape[:-1]:
        raise InvalidArgumentError(f"searchsorted: a sorted_sequence of shape {boundaries.shape} "
                                   f"must be 1-D or share the leading dims of the input's shape "
                                   f"{values.shape}")
    rows = boundaries.reshape(math.prod(boundaries.shape[:-1]), boundaries.shape[-1])
    per_row = values.shape[-1] if boundaries.ndim > 1 else values.size
    places = _binary_search(rows, values.reshape(len(rows), per_row), side == "right")
    return Tensor._make(places.reshape(values.shape).astype(dtype))


def _binary_search(rows: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """PyTorch's binary search of each row of `values` in the same row of `rows`, for all of
    them at once: the search moves past a boundary that is not >= the value (right: not >).
    A comparison with NaN is false, so a NaN value goes past every boundary and the search
    moves past a NaN boundary, wherever it is, as in PyTorch; numpy's searchsorted instead
    orders NaN after every number."""
    size = rows.shape[-1]
    start = np.zeros(values.shape, dtype=np.int64)
    end = np.full(values.shape, size, dtype=np.int64)
    searching = start < end
    while searching.any():
        middle = (start + end) // 2
        boundary = np.take_along_axis(rows, np.minimum(middle, size - 1), -1)
        go_past = ~(boundary > values) if right else ~(boundary >= values)
        start = np.where(searching & go_past, middle + 1, start)
        end = np.where(searching & ~go_past, middle, end)
        searching = start < end
    return start


def bucketize(input: Tensor | float, boundaries: Tensor, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each entry among the sorted 1-D `boundaries`, as torch.bucketize: i with
    boundaries[i - 1] < x <= boundaries[i] (right=True: boundaries[i - 1] <= x < boundaries[i]),
    which is searchsorted(boundaries, input)."""
    if np.ndim(_as_array(boundaries)) != 1:
        raise InvalidArgumentError(f"bucketize: boundaries must be 1-D, got shape "
                                   f"{np.shape(_as_array(boundaries))}")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# --------------------------------------------------------------------------------------------
# Statistics in pairs
# --------------------------------------------------------------------------------------------
def std_mean(input: Tensor, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False,
             *, correction: float | None = None, axis: Dim = None) -> tuple[Tensor, Tensor]:
    """(std, mean) over `dim`, as torch.std_mean; the arguments are std's."""
    dim, unbiased = _older_unbiased_form(_dims(dim, axis), unbiased)
    return input.std(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)


def var_mean(input: Tensor, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False,
             *, correction: float | None = None, axis: Dim = None) -> tuple[Tensor, Tensor]:
    """(var, mean) over `dim`, as torch.var_mean; the arguments are var's."""
    dim, unbiased = _older_unbiased_form(_dims(dim, axis), unbiased)
    return input.var(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)


# --------------------------------------------------------------------------------------------
# Products and distances
# --------------------------------------------------------------------------------------------
def tensordot(a: Tensor, b: Tensor, dims: int | Sequence[int | Sequence[int]] = 2) -> Tensor:
    """Sums of products over the dims dims[0] of `a` paired with dims[1] of `b` (an int k: a's
    last k with b's first k), as torch.tensordot: a's other dims, then b's. One matmul of the
    two reshaped to matrices, so the gradient is MatMul's."""
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise InvalidArgumentError(f"tensordot: dims must be >= 0, got {dims}")
        a_dims, b_dims = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        a_dims, b_dims = ([d] if isinstance(d, (int, np.integer)) else list(d) for d in dims)
    a_dims, b_dims = _dim_list("tensordot", a_dims, a.ndim), _dim_list("tensordot", b_dims, b.ndim)
    if [a.shape[d] for d in a_dims] != [b.shape[d] for d in b_dims]:
        raise InvalidArgumentError(f"tensordot: the contracted dims of shapes {a.shape} and "
                                   f"{b.shape} differ in size ({a_dims} and {b_dims})")
    a_free = [d for d in range(a.ndim) if d not in a_dims]
    b_free = [d for d in range(b.ndim) if d not in b_dims]
    a_kept, b_kept = [a.shape[d] for d in a_free], [b.shape[d] for d in b_free]
    summed = math.prod(a.shape[d] for d in a_dims)
    a_matrix = a.permute(a_free + a_dims).reshape(math.prod(a_kept), summed)
    b_matrix = b.permute(b_dims + b_free).reshape(summed, math.prod(b_kept))
    return (a_matrix @ b_matrix).reshape(a_kept + b_kept)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between every row of x1 (..., P, M) and every row of x2
    (..., R, M), as torch.cdist: shape (..., P, R), the batch dims broadcast. Computed as the
    norm of the differences (`compute_mode`, which picks one of PyTorch's algorithms, changes
    nothing); where two rows coincide the gradient is 0, as norm's."""
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise InvalidArgumentError(f"cdist: {compute_mode!r} is not a valid compute_mode")
    if x1.ndim < 2 or x2.ndim < 2:
        raise InvalidArgumentError(f"cdist: needs tensors of at least 2 dims, got shapes "
                                   f"{x1.shape} and {x2.shape}")
    for x in (x1, x2):
        x._require_floating("cdist")
    if x1.shape[-1] != x2.shape[-1]:
        raise InvalidArgumentError(f"cdist: x1 and x2 must have as many columns, got shapes "
                                   f"{x1.shape} and {x2.shape}")
    if p < 0:
        raise InvalidArgumentError(f"cdist: p must be non-negative, got {p}")
    differences = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    # rows of no columns are 0 apart for every p (norm's inf and -inf refuse an empty dim)
    return differences.norm(p, dim=-1) if x1.shape[-1] else differences.sum(-1)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors, read as matrices (0-d: 1 x 1, 1-D (n,): 1 x n), along the diagonal of one
    matrix, zeros elsewhere, in their promoted dtype, as torch.block_diag."""
    if any(t.ndim > 2 for t in tensors):
        raise InvalidArgumentError(f"block_diag: the tensors must have at most 2 dims, got "
                                   f"shapes {[t.shape for t in tensors]}")
    if not tensors:  # PyTorch's empty matrix
        return Tensor._make(np.zeros((1, 0), dtype=get_default_dtype()))
    dtype = _result_dtype(*tensors)
    blocks = [t.to(dtype).reshape(1, -1) if t.ndim < 2 else t.to(dtype) for t in tensors]
    width = sum(block.shape[1] for block in blocks)
    rows, start = [], 0
    for block in blocks:
        height, cols = block.shape
        left = Tensor._make(np.zeros((height, start), dtype))
        right = Tensor._make(np.zeros((height, width - start - cols), dtype))
        rows.append(cat([left, block, right], 1))
        start += cols
    return cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one entry from each 1-D tensor, the last varying fastest: a tensor
    of shape (N1 * N2 * ..., len(tensors)), as torch.cartesian_prod (of one tensor, itself)."""
    if any(t.ndim != 1 for t in tensors):
        raise InvalidArgumentError(f"cartesian_prod: needs 1-D tensors, got shapes "
                                   f"{[t.shape for t in tensors]}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([grid.reshape(-1) for grid in meshgrid(*tensors, indexing="ij")], dim=1)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """chunk: PyTorch's unsafe_ form skips a check on in-place writes minigrad never needs."""
    return input.chunk(chunks, dim)


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """split: PyTorch's unsafe_ form skips a check on in-place writes minigrad never needs."""
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0
                            ) -> tuple[Tensor, ...]:
    """split_with_sizes: PyTorch's unsafe_ form skips a check minigrad never needs."""
    return input.split_with_sizes(split_sizes, dim)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Every choice of `r` entries of the 1-D `input`, in order of position, one per row (shape
    (count, r)), as torch.combinations: itertools.combinations of its entries, or
    combinations_with_replacement; r = 0 gives an empty 1-D tensor, as PyTorch's."""
    if input.ndim != 1:
        raise InvalidArgumentError(f"combinations: needs a 1-D tensor, got shape {input.shape}")
    if r < 0:
        raise InvalidArgumentError(f"combinations: r must be non-negative, got {r}")
    if r == 0:
        return input[:0]
    choose = itertools.combinations_with_replacement if with_replacement \
        else itertools.combinations
    places = np.array(list(choose(range(len(input)), r)), dtype=np.int64).reshape(-1, r)
    return input[places]


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the 1-D `x`: column j is x ** (N - 1 - j), or x ** j with
    `increasing`; N columns (default len(x)), as torch.vander. The powers are running products
    of x, so the gradient is exact at x = 0 too (k x ** (k - 1) at 0 would meet 0 * inf)."""
    if x.ndim != 1:
        raise InvalidArgumentError(f"vander: x must be 1-D, got shape {x.shape}")
    columns = len(x) if N is None else N
    if columns < 0:
        raise InvalidArgumentError(f"vander: N must be non-negative, got {N}")
    x = _accumulating(x)  # integers and bools as int64, as PyTorch's
    if columns == 0:
        return x.unsqueeze(1)[:, :0]
    repeated = cat([ones_like(x).unsqueeze(1), x.unsqueeze(1).expand(len(x), columns - 1)], 1)
    powers = repeated.cumprod(1)
    return powers if increasing else powers.flip(1)


def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of `shape` of each flat (row-major) index, one int64 tensor
    per dim, as torch.unravel_index; negative indices count from the end."""
    flat = np.asarray(_as_array(indices))
    if flat.dtype.kind not in "iu":
        raise TypeError(f"unravel_index: indices must be integers, got dtype {flat.dtype}")
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(n < 0 for n in dims):
        raise InvalidArgumentError(f"unravel_index: shape {dims} has a negative size")
    size = math.prod(dims)
    if flat.size and not (-size <= flat.min() and flat.max() < size):
        raise InvalidIndexError(f"unravel_index: indices must be in [{-size}, {size}) for shape "
                                f"{dims}, got {flat.tolist()}")
    return tuple(Tensor._make(np.asarray(coordinate, dtype=np.int64))
                 for coordinate in np.unravel_index(flat % max(size, 1), dims))


def cov(input: Tensor, *, correction: int = 1, fweights: ArrayLike | None = None,
        aweights: ArrayLike | None = None) -> Tensor:
    """The covariance matrix of the variables in input's rows, observed in its columns (a 1-D
    input is one variable: a 0-d result), as torch.cov: (x - mean) (x - mean)^T over
    sum(w) - correction (times sum(w a) / sum(w) with aweights a), w = fweights * aweights
    weighing the observations (constants)."""
    if input.ndim > 2:
        raise InvalidArgumentError(f"cov: needs a tensor of at most 2 dims, got shape "
                                   f"{input.shape}")
    x = input._floating().reshape(1, -1) if input.ndim < 2 else input._floating()
    observations = x.shape[1]
    weights = [None if w is None else np.asarray(_as_array(w)) for w in (fweights, aweights)]
    for name, w in zip(("fweights", "aweights"), weights):
        if w is not None and (w.shape != (observations,) or (w < 0).any()):
            raise InvalidArgumentError(f"cov: {name} must be 1-D, non-negative, one per "
                                       f"observation ({observations}), got {w.tolist()}")
    if weights[0] is not None and weights[0].dtype.kind not in "iu":
        raise InvalidTypeError(f"cov: fweights must be integers, got {weights[0].dtype}")
    given = [w for w in weights if w is not None]
    w = np.prod(given, axis=0).astype(x.dtype) if given else np.ones(observations, x.dtype)
    total = w.sum()
    if given and total == 0:  # PyTorch's refusal (its NaNs would follow from 0 / 0)
        raise InvalidArgumentError("cov: the weights sum to zero, so they cannot be normalized")
    centered = x - (x * w).sum(1, keepdim=True) / total
    spread = 1 if weights[1] is None else (w * weights[1]).sum() / total
    # no degrees of freedom left: inf or NaN, as PyTorch's (which warns)
    covariance = (centered * w) @ centered.mT / max(total - correction * spread, 0)
    return covariance.reshape(()) if x.shape[0] == 1 else covariance


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1
              ) -> Tensor:
    """The trapezoidal rule along `dim`: sum of (y[i] + y[i+1]) / 2 times the spacing, dx
    (default 1) or the differences of the sample points x (1-D, or y's shape), as
    torch.trapezoid."""
    areas, d = _trapezoids("trapezoid", y, x, dx, dim)
    return areas.sum(d)


trapz = trapezoid  # PyTorch's older name


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
                         dim: int = -1) -> Tensor:
    """The running trapezoidal rule along `dim`: entry i is trapezoid of y[0 .. i + 1], so the
    dim is one shorter, as torch.cumulative_trapezoid."""
    areas, d = _trapezoids("cumulative_trapezoid", y, x, dx, dim)
    return areas.cumsum(d)


def _trapezoids(op: str, y: Tensor, x: Tensor | None, dx: float | None, dim: int
                ) -> tuple[Tensor, int]:
    """The area of each trapezoid between neighbours along `dim`, and that dim wrapped."""
    if x is not None and dx is not None:
        raise TypeError(f"{op}: give the sample points x or the spacing dx, not both")
    if y.ndim == 0:  # IndexError, as PyTorch's
        raise IndexError(f"{op}: dim {dim} given, but a 0-d tensor has no dims")
    y = y._floating()
    d = _dim(op, dim, y.ndim)
    size = y.shape[d]
    # an empty dim has no intervals: y itself, empty along d (its sum is 0)
    heights = (y.narrow(d, 1, size - 1) + y.narrow(d, 0, size - 1)) / 2 if size else y
    if x is None:
        return heights * (1.0 if dx is None else dx), d
    spacing = x.diff(dim=-1 if x.ndim == 1 else d)
    if x.ndim == 1:  # spread along dim
        spacing = spacing.reshape((-1,) + (1,) * (y.ndim - d - 1))
    return heights * spacing, d


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product of the 2-D `matrices`, left to right, as torch.chain_matmul (PyTorch's
    older linalg.multi_dot); of one matrix, a copy of it."""
    if not matrices or any(m.ndim != 2 for m in matrices):
        raise InvalidArgumentError(f"chain_matmul: needs one or more 2-D tensors, got shapes "
                                   f"{[m.shape for m in matrices]}")
    return matrices[0].clone() if len(matrices) == 1 else linalg.multi_dot(matrices)


def gradient(input: Tensor, *, spacing: float | Sequence[float | Tensor] = 1,
             dim: int | Sequence[int] | None = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative of the sampled function `input` along each dim in `dim` (default all), by
    central differences inside and one-sided ones of `edge_order` (1 or 2) at the two ends, as
    torch.gradient (and numpy.gradient). `spacing` is one step for every dim, one step per
    dim, or per dim the 1-D tensor of sample coordinates (steps may then vary); integers give
    float32. Differentiable in input and in coordinate tensors."""
    dims = list(range(input.ndim)) if dim is None else _dim_list("gradient", dim, input.ndim)
    spacings = [spacing] * len(dims) if isinstance(spacing, (int, float)) else list(spacing)
    if len(spacings) != len(dims):
        raise InvalidArgumentError(f"gradient: spacing must be a number or hold one entry per "
                                   f"dim ({len(dims)}), got {len(spacings)}")
    if edge_order not in (1, 2):
        raise InvalidArgumentError(f"gradient: edge_order must be 1 or 2, got {edge_order}")
    f = input._floating()
    return tuple(_derivative(f, d, step, edge_order) for d, step in zip(dims, spacings))


def _derivative(f: Tensor, d: int, spacing: float | Tensor, edge_order: int) -> Tensor:
    """gradient along one dim: the second-order formulas for uneven steps (Fornberg's, as
    numpy.gradient's), which for even steps h reduce to (f[i+1] - f[i-1]) / 2h inside."""
    size = f.shape[d]
    if size < edge_order + 1:
        raise InvalidArgumentError(f"gradient: dim {d} has size {size}; edge_order "
                                   f"{edge_order} needs at least {edge_order + 1} samples")
    if isinstance(spacing, Tensor):
        if spacing.shape != (size,):
            raise InvalidArgumentError(f"gradient: the coordinates along dim {d} must be 1-D "
                                       f"of size {size}, got shape {spacing.shape}")
        steps = spacing.diff()
    else:
        steps = Tensor._make(np.full(size - 1, spacing, dtype=f.dtype))
    steps = steps.reshape((-1,) + (1,) * (f.ndim - d - 1))  # one step per place along d

    def at(start: int, length: int = 1) -> Tensor:
        return f.narrow(d, start % size, length)

    def step(i: int) -> Tensor:
        return steps.narrow(0, i % (size - 1), 1)

    before, after = steps.narrow(0, 0, size - 2), steps.narrow(0, 1, size - 2)
    inside = (before ** 2 * at(2, size - 2) + (after ** 2 - before ** 2) * at(1, size - 2)
              - after ** 2 * at(0, size - 2)) / (before * after * (before + after))
    if edge_order == 1:
        first = (at(1) - at(0)) / step(0)
        last = (at(-1) - at(-2)) / step(-1)
    else:
        h1, h2 = step(0), step(1)
        first = (-(2 * h1 + h2) / (h1 * (h1 + h2)) * at(0) + (h1 + h2) / (h1 * h2) * at(1)
                 - h1 / (h2 * (h1 + h2)) * at(2))
        h1, h2 = step(-2), step(-1)
        last = (h2 / (h1 * (h1 + h2)) * at(-3) - (h1 + h2) / (h1 * h2) * at(-2)
                + (2 * h2 + h1) / (h2 * (h1 + h2)) * at(-1))
    return cat([first, inside, last], d)


def frobenius_norm(input: Tensor, dim: int | Sequence[int], keepdim: bool = False) -> Tensor:
    """torch.frobenius_norm: the square root of the sum of squares over one or two dims
    (linalg.vector_norm's 2-norm over them)."""
    dims = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
    if len(dims) > 2:
        raise InvalidArgumentError(f"frobenius_norm: takes at most 2 dims, got {dims}")
    return linalg.vector_norm(input, 2, dims, keepdim)


def nuclear_norm(input: Tensor, dim: Sequence[int] | bool | None = None,
                 keepdim: bool = False) -> Tensor:
    """torch.nuclear_norm: the sum of the singular values of the matrices spanned by `dim`
    (default the last two), linalg.matrix_norm's 'nuc'; `nuclear_norm(x, True)` is keepdim,
    as PyTorch's overload without dim reads it."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in input's rows: cov divided by
    the two standard deviations, clamped to [-1, 1], as torch.corrcoef."""
    covariance = cov(input)
    if covariance.ndim == 0:
        return covariance / covariance
    deviations = covariance.diagonal().sqrt()
    return (covariance / deviations[:, None] / deviations[None, :]).clamp(-1, 1)


# --------------------------------------------------------------------------------------------
# Einstein summation
# --------------------------------------------------------------------------------------------
def einsum(equation: str, *operands: Tensor | Sequence[Tensor]) -> Tensor:
    """Einstein summation, as torch.einsum: one letter per dim of each operand, "ij,jk->ik"
    (a matrix product), "bij,bjk->bik", "ii->i" (a diagonal), "ii" (a trace), "...ij->...ji";
    without "->" the output is the letters used once, in alphabetical order, after the "..."
    dims. Dims of size 1 broadcast. The operands come as arguments or as one list.

    Composed, not a primitive: each repeated letter within an operand takes a diagonal, then
    the operands are contracted left to right, each pair as one batched matmul (shared letters
    kept for the output are the batch, shared letters summed are the inner dim; a broadcast
    multiply when none is summed), so the work runs in BLAS and the gradient comes from
    Transpose, Reshape, MatMul, Mul and Sum."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, output = _einsum_labels(equation, [t.ndim for t in operands])
    sizes = _einsum_sizes(equation, inputs, operands)
    terms = []
    for t, labels in zip(operands, inputs):
        while len(set(labels)) < len(labels):  # a repeated letter: its diagonal
            first = next(i for i, label in enumerate(labels) if labels.count(label) > 1)
            second = labels.index(labels[first], first + 1)
            t = t.diagonal(0, first, second)
            kept = [x for i, x in enumerate(labels) if i not in (first, second)]
            labels = kept + [labels[first]]  # diagonal puts the diagonal last
        if any(n != sizes[label] for n, label in zip(t.shape, labels)):
            t = t.expand([sizes[label] for label in labels])  # dims of size 1 broadcast
        terms.append((t, labels))
    result, labels = terms[0]
    for k, (t, t_labels) in enumerate(terms[1:], start=2):
        needed = set(output).union(*(later for _, later in terms[k:]))
        result, labels = _contract(result, labels, t, t_labels, needed)
    result, labels = _sum_out(result, labels, set(output))
    return result if labels == output else result.permute([labels.index(x) for x in output])


def _einsum_labels(equation: str, ndims: list[int]) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels and the output's, one per dim: the equation's letters, with "..."
    standing for labels "...0", "...1", ... numbered from the right, so that ellipses covering
    different numbers of dims line up (and broadcast) as numpy aligns shapes."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise InvalidArgumentError(f"einsum: equation {equation!r} has {len(terms)} operand(s), "
                                   f"but {len(ndims)} were given")
    inputs = []
    for k, (term, ndim) in enumerate(zip(terms, ndims)):
        letters = _einsum_letters(equation, term)
        if "..." not in term and len(letters) != ndim or len(letters) > ndim:
            raise InvalidArgumentError(f"einsum: operand {k} has {ndim} dims, but its subscripts "
                                       f"{term!r} in {equation!r} name {len(letters)}")
        inputs.append(_expand_ellipsis(term, ndim - len(letters)))
    ellipsis = max(([x for x in labels if x.startswith("...")] for labels in inputs), key=len,
                   default=[])
    if not arrow:
        used = [x for labels in inputs for x in labels if not x.startswith("...")]
        return inputs, ellipsis + sorted(x for x in set(used) if used.count(x) == 1)
    output = _expand_ellipsis(rhs, len(ellipsis))
    for x in _einsum_letters(equation, rhs):
        if output.count(x) > 1 or not any(x in labels for labels in inputs):
            raise InvalidArgumentError(f"einsum: output subscript {x!r} in {equation!r} must "
                                       "appear once in the output and in some operand")
    return inputs, output


def _einsum_letters(equation: str, term: str) -> str:
    """The letters of one term (checked: ASCII letters and at most one "...")."""
    letters = term.replace("...", "", 1)
    if not all(c.isascii() and c.isalpha() for c in letters):
        raise InvalidArgumentError("einsum: subscripts must be letters (and one '...' per term), "
                                   f"got {term!r} in {equation!r}")
    return letters


def _expand_ellipsis(term: str, count: int) -> list[str]:
    before, dots, after = term.partition("...")
    return [*before, *(f"...{i}" for i in reversed(range(count if dots else 0))), *after]


def _einsum_sizes(equation: str, inputs: list[list[str]], operands: Sequence[Tensor]
                  ) -> dict[str, int]:
    """Each label's size; a dim of size 1 broadcasts to the label's other size, and a letter
    repeated within one operand must have one size there."""
    sizes: dict[str, int] = {}
    for k, (labels, t) in enumerate(zip(inputs, operands)):
        own: dict[str, int] = {}
        for label, n in zip(labels, t.shape):
            if own.setdefault(label, n) != n:
                raise InvalidArgumentError(f"einsum: subscript {label!r} is repeated in operand "
                                           f"{k} of {equation!r} with different sizes "
                                           f"{own[label]} and {n}")
            if sizes.get(label, 1) not in (1, n) and n != 1:
                raise InvalidArgumentError(f"einsum: subscript {label!r} in {equation!r} has size "
                                           f"{n} in operand {k} but size {sizes[label]} before")
            sizes[label] = n if n != 1 else sizes.get(label, 1)
    return sizes


def _sum_out(t: Tensor, labels: list[str], keep: set[str]) -> tuple[Tensor, list[str]]:
    """t summed over the dims whose labels are not in `keep`."""
    summed = [i for i, label in enumerate(labels) if label not in keep]
    if not summed:
        return t, labels
    return t.sum(summed), [label for label in labels if label in keep]


def _contract(a: Tensor, a_labels: list[str], b: Tensor, b_labels: list[str], keep: set[str]
              ) -> tuple[Tensor, list[str]]:
    """a times b, summed over the labels they share that `keep` lacks, as one batched matmul:
    (batch, a's own, summed) @ (batch, summed, b's own), where batch are the shared labels
    kept."""
    a, a_labels = _sum_out(a, a_labels, keep | set(b_labels))
    b, b_labels = _sum_out(b, b_labels, keep | set(a_labels))
    batch = [x for x in a_labels if x in b_labels and x in keep]
    summed = [x for x in a_labels if x in b_labels and x not in keep]
    a_own = [x for x in a_labels if x not in b_labels]
    b_own = [x for x in b_labels if x not in a_labels]
    size = dict(zip(a_labels, a.shape)) | dict(zip(b_labels, b.shape))

    def grouped(t: Tensor, labels: list[str], groups: list[list[str]]) -> Tensor:
        """t with its dims ordered as `groups` and each group merged into one dim."""
        order = [labels.index(x) for group in groups for x in group]
        return t.permute(order).reshape([math.prod(size[x] for x in g) for g in groups])

    a3 = grouped(a, a_labels, [batch, a_own, summed])
    b3 = grouped(b, b_labels, [batch, summed, b_own])
    # nothing to sum: the inner dim has size 1, and broadcasting multiplies faster than a
    # matmul of 1 x 1 matrices
    product = a3 @ b3 if summed else a3 * b3
    labels = batch + a_own + b_own
    return product.reshape([size[x] for x in labels]), labels


def repeat_interleave(input: Tensor, repeats: int | ArrayLike | None = None,
                      dim: int | None = None) -> Tensor:
    """input.repeat_interleave(repeats, dim); given alone, `input` holds the counts (1-D,
    integers) and the result repeats each index that many times, as torch.repeat_interleave:
    [1, 0, 3] -> [0, 2, 2, 2], in the counts' dtype."""
    if repeats is not None:
        return input.repeat_interleave(repeats, dim)
    counts = np.asarray(_as_array(input))
    if counts.ndim != 1:
        raise InvalidArgumentError(f"repeat_interleave: the counts must be 1-D, got shape "
                                   f"{counts.shape}")
    indices = Tensor._make(np.arange(len(counts), dtype=counts.dtype))
    return indices.repeat_interleave(counts, 0)


# --------------------------------------------------------------------------------------------
# torch.view_copy and its kin: a view op's result copied into memory of its own
# --------------------------------------------------------------------------------------------
def _copy_of(name: str, view: Callable[..., Any]) -> Callable[..., Any]:
    """torch.`name`: `view` (a Tensor method, or a function of the tensor), its result (each
    part of a tuple) cloned, so that writing to it leaves the input alone; differentiable as
    the view is."""
    def copy(input: Tensor, *args: Any, **kwargs: Any) -> Tensor | tuple[Tensor, ...]:
        out = view(input, *args, **kwargs)
        return tuple(t.clone() for t in out) if isinstance(out, tuple) else out.clone()

    copy.__name__ = copy.__qualname__ = name
    copy.__doc__ = f"{view.__name__.lstrip('_')}, its result copied, as torch.{name}."
    return copy


def _alias(input: Tensor) -> Tensor:
    """torch.alias: the tensor itself, seen through a new view."""
    return input


def _slice(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
           step: int = 1) -> Tensor:
    """torch.slice: input[start:end:step] along `dim`."""
    return _sliced("slice_copy", input, dim, start, end, step)


alias_copy = _copy_of("alias_copy", _alias)
detach_copy = _copy_of("detach_copy", Tensor.detach)
diagonal_copy = _copy_of("diagonal_copy", Tensor.diagonal)
expand_copy = _copy_of("expand_copy", Tensor.expand)
permute_copy = _copy_of("permute_copy", Tensor.permute)
select_copy = _copy_of("select_copy", Tensor.select)
slice_copy = _copy_of("slice_copy", _slice)
split_copy = _copy_of("split_copy", Tensor.split)
split_with_sizes_copy = _copy_of("split_with_sizes_copy", Tensor.split_with_sizes)
squeeze_copy = _copy_of("squeeze_copy", Tensor.squeeze)
t_copy = _copy_of("t_copy", Tensor.t)
transpose_copy = _copy_of("transpose_copy", Tensor.transpose)
unbind_copy = _copy_of("unbind_copy", Tensor.unbind)
unfold_copy = _copy_of("unfold_copy", Tensor.unfold)
unsqueeze_copy = _copy_of("unsqueeze_copy", Tensor.unsqueeze)
view_copy = _copy_of("view_copy", Tensor.view)
__all__ += ["alias_copy", "detach_copy", "diagonal_copy", "expand_copy", "permute_copy",
            "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy",
            "t_copy", "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy",
            "view_copy"]


# --------------------------------------------------------------------------------------------
# torch.celu, torch.conv2d, ...: the top-level spellings PyTorch has of nn.functional's ops,
# with the top-level signatures (no inplace; dropout's train without a default; the norms'
# arguments in ATen's order; losses' reduction as the number 0 (none), 1 (mean) or 2 (sum),
# by default 0: PyTorch 2.13's top-level losses reduce nothing unless told)
# --------------------------------------------------------------------------------------------
_REDUCTIONS = ("none", "mean", "sum")  # ATen's reduction numbers


def _reduction(reduction: int) -> str:
    if not isinstance(reduction, (int, np.integer)) or isinstance(reduction, bool):
        raise TypeError(f"reduction must be a number, 0 (none), 1 (mean) or 2 (sum), got "
                        f"{reduction!r}")
    if reduction not in (0, 1, 2):
        raise InvalidArgumentError(f"reduction must be 0 (none), 1 (mean) or 2 (sum), got "
                                   f"{reduction}")
    return _REDUCTIONS[reduction]


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return functional.celu(input, alpha)


def selu(input: Tensor) -> Tensor:
    return functional.selu(input)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return functional.threshold(input, threshold, value)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    return functional.prelu(input, weight)


def rrelu(input: Tensor, lower: float = 0.125, upper: float = 1 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    return functional.rrelu(input, lower, upper, training, rng=_rng("rrelu", generator))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return functional.hardshrink(input, lambd)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return functional.dropout(input, p, train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return functional.alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return functional.feature_alpha_dropout(input, p, train)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels of (N, C, *), as torch.feature_dropout (dropout2d's draws for
    any number of trailing dims)."""
    return functional._feature_dropout("feature_dropout", input, p, train, False, None)


# torch.dropout_(x, p, train) and the like: the same, written into x
def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return functional.dropout(input, p, train, inplace=True)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return functional.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return functional.feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return functional._feature_dropout("feature_dropout_", input, p, train, True, None)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    return functional.pdist(input, p)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    return functional.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    return functional.pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return functional.channel_shuffle(input, groups)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None
             ) -> Tensor:
    return functional.bilinear(input1, input2, weight, bias)


Size = int | Sequence[int]


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size = 1,
           padding: Size | str = 0, dilation: Size = 1, groups: int = 1) -> Tensor:
    return functional.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size = 1,
           padding: Size | str = 0, dilation: Size = 1, groups: int = 1) -> Tensor:
    return functional.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Size = 1,
           padding: Size | str = 0, dilation: Size = 1, groups: int = 1) -> Tensor:
    return functional.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Size = 1, padding: Size = 0, output_padding: Size = 0,
                     groups: int = 1, dilation: Size = 1) -> Tensor:
    return functional.conv_transpose1d(input, weight, bias, stride, padding, output_padding,
                                       groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Size = 1, padding: Size = 0, output_padding: Size = 0,
                     groups: int = 1, dilation: Size = 1) -> Tensor:
    return functional.conv_transpose2d(input, weight, bias, stride, padding, output_padding,
                                       groups, dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Size = 1, padding: Size = 0, output_padding: Size = 0,
                     groups: int = 1, dilation: Size = 1) -> Tensor:
    return functional.conv_transpose3d(input, weight, bias, stride, padding, output_padding,
                                       groups, dilation)


def avg_pool1d(input: Tensor, kernel_size: Size, stride: Size | None = None, padding: Size = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    return functional.avg_pool1d(input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad)


def max_pool1d(input: Tensor, kernel_size: Size, stride: Size | None = None, padding: Size = 0,
               dilation: Size = 1, ceil_mode: bool = False) -> Tensor:
    return functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Size, stride: Size | None = None, padding: Size = 0,
               dilation: Size = 1, ceil_mode: bool = False) -> Tensor:
    return functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Size, stride: Size | None = None, padding: Size = 0,
               dilation: Size = 1, ceil_mode: bool = False) -> Tensor:
    return functional.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Size, stride: Size | None = None,
                            padding: Size = 0, dilation: Size = 1, ceil_mode: bool = False
                            ) -> tuple[Tensor, Tensor]:
    """max_pool1d's (values, indices)."""
    return functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                                 return_indices=True)


def adaptive_avg_pool1d(input: Tensor, output_size: Size) -> Tensor:
    return functional.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Size) -> tuple[Tensor, Tensor]:
    """(values, indices), always: torch.adaptive_max_pool1d has no return_indices."""
    return functional.adaptive_max_pool1d(input, output_size, return_indices=True)


def embedding(weight: Tensor, indices: ArrayLike, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """F.embedding with the table first, as ATen's; a negative padding_idx means none
    (PyTorch's top-level function counts no index from the end: -1 is its default)."""
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse are not supported")
    return functional.embedding(indices, weight, None if padding_idx < 0 else padding_idx)


def layer_norm(input: Tensor, normalized_shape: Size, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enable: bool = True
               ) -> Tensor:
    """F.layer_norm (cudnn_enable, a GPU switch, changes nothing)."""
    return functional.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enabled: bool = True
               ) -> Tensor:
    """F.group_norm (cudnn_enabled, a GPU switch, changes nothing)."""
    return functional.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape: Size, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    return functional.rms_norm(input, normalized_shape, weight, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """F.batch_norm with ATen's argument order (cudnn_enabled changes nothing)."""
    return functional.batch_norm(input, running_mean, running_var, weight, bias, training,
                                 momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float, cudnn_enabled: bool
                  ) -> Tensor:
    """F.instance_norm with ATen's argument order (cudnn_enabled changes nothing)."""
    return functional.instance_norm(input, running_mean, running_var, weight, bias,
                                    use_input_stats, momentum, eps)


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:
    return functional.pad(input, pad, "constant", value)


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False
           ) -> Tensor:
    return functional.kl_div(input, target, reduction=_reduction(reduction),
                             log_target=log_target)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 0) -> Tensor:
    return functional.hinge_embedding_loss(input, target, margin,
                                           reduction=_reduction(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    return functional.margin_ranking_loss(input1, input2, target, margin,
                                          reduction=_reduction(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    return functional.cosine_embedding_loss(input1, input2, target, margin,
                                            reduction=_reduction(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, reduction: int = 0) -> Tensor:
    return functional.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                          reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    return functional.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                       reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 0) -> Tensor:
    return functional.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight)


__all__ += ["adaptive_avg_pool1d", "adaptive_max_pool1d", "alpha_dropout", "alpha_dropout_",
            "avg_pool1d", "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "celu",
            "channel_shuffle", "constant_pad_nd", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
            "conv_transpose2d", "conv_transpose3d", "cosine_embedding_loss", "dropout", "dropout_",
            "embedding", "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout",
            "feature_dropout_", "group_norm", "hardshrink", "hinge_embedding_loss",
            "instance_norm", "kl_div", "layer_norm", "margin_ranking_loss", "max_pool1d",
            "max_pool1d_with_indices", "max_pool2d", "max_pool3d", "pdist", "pixel_shuffle",
            "pixel_unshuffle", "poisson_nll_loss", "prelu", "rms_norm", "rrelu", "selu",
            "threshold", "triplet_margin_loss"]


# --------------------------------------------------------------------------------------------
# The Tensor methods PyTorch also has as functions: torch.sum(x, 1) is x.sum(1)
# --------------------------------------------------------------------------------------------
_METHODS = (
    "allclose", "equal",
    "sum", "mean", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "prod", "var",
    "std", "nanmean", "msort",
    "any", "all", "logsumexp", "cumsum", "cumprod", "norm", "logcumsumexp", "cummax", "cummin",
    "sort", "argsort", "topk", "unique", "bincount", "histc", "kthvalue", "median", "nanmedian",
    "mode", "quantile", "nanquantile",
    "reshape", "permute", "transpose", "flatten", "unflatten", "squeeze", "unsqueeze", "movedim",
    "moveaxis", "ravel", "broadcast_to", "tile", "flip", "fliplr", "flipud", "rot90", "diff",
    "take_along_dim", "roll", "narrow", "split", "tensor_split", "hsplit", "vsplit",
    "dsplit", "chunk", "unbind", "gather",
    "argwhere", "index_add", "index_copy", "index_fill", "index_put", "index_reduce", "put",
    "float_power", "narrow_copy", "dist", "renorm",
    "is_floating_point", "nonzero", "nonzero_static", "index_select", "take", "scatter_add",
    "scatter", "scatter_reduce", "diag", "diagflat", "split_with_sizes",
    "masked_select", "masked_scatter", "tril", "triu", "diagonal", "diag_embed",
    "unique_consecutive", "matmul", "histogram",
    "dot", "outer", "inner", "kron", "cross", "vdot", "ger", "addmv", "addr", "addbmm", "baddbmm",
    "masked_fill", "clone", "detach", "numel", "mm", "bmm", "mv", "addmm", "t", "trace", "select",
    "select_scatter", "slice_scatter", "diagonal_scatter",
    "det", "logdet", "slogdet", "inverse", "cholesky", "qr", "svd", "pinverse", "matrix_power",
    "matrix_exp", "triangular_solve", "cholesky_solve", "cholesky_inverse", "lu_solve", "lu",
    "swapaxes", "swapdims", "adjoint",
    "count_nonzero", "nansum", "softmax", "log_softmax", "addcmul",
    "addcdiv", "frac", "clamp_min", "clamp_max",
)
__all__ += ["einsum", *_METHODS]


def __getattr__(name: str):
    """minigrad.sum and the like call the Tensor methods (one definition, two spellings). They are
    looked up here (PEP 562) rather than assigned, so that `sum`, `max`, `min`, `any` and `all`
    in this module keep meaning Python's builtins."""
    if name in _METHODS:
        return _as_function(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _as_function(name: str) -> Callable[..., Any]:
    """Tensor.`name` as PyTorch's top-level function: the tensor is the parameter `input` (so
    `minigrad.sum(input=x, dim=1)` works), and must be a Tensor."""
    method = getattr(Tensor, name)

    @functools.wraps(method)
    def function(*args: Any, **kwargs: Any) -> Any:
        if not args and "input" in kwargs:
            args = (kwargs.pop("input"),)
        if not args or not isinstance(args[0], Tensor):
            got = type(args[0]).__name__ if args else "nothing"
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {got}")
        return method(*args, **kwargs)

    signature = inspect.signature(method)
    self, *rest = signature.parameters.values()
    function.__signature__ = signature.replace(
        parameters=[self.replace(name="input", annotation=Tensor), *rest])
    return function


# functional and linalg import this module, so cosine_similarity and chain_matmul find them
# here only when called
from . import functional, linalg  # noqa: E402
