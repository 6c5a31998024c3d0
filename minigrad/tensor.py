"""`Tensor`: a numpy array that remembers how it was computed, and the Tensor API.

Tier 2 (compositions) lives here and in `functional.py`: every method below is either one
primitive op (`minigrad/ops/`) applied to this tensor, or a few readable lines of other methods.
None has a backward of its own; their gradients come from the primitives they are made of.
Names and meaning follow PyTorch (`dim=`, `keepdim=`); numpy's `axis=`/`keepdims=` work too.
"""
from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, Union

import numpy as np

from . import devices, engine
from .dtypes import get_default_dtype
from .engine import ArrayLike
from .errors import InvalidArgumentError, InvalidIndexError, InvalidTypeError

Dim = Union[int, Sequence[int], None]


def _as_array(value: ArrayLike) -> np.ndarray:
    """Masks, conditions and indices may come as Tensors or anything numpy accepts."""
    return value.data if isinstance(value, Tensor) else np.asarray(value)


def _dims(dim: Dim, axis: Dim) -> Dim:
    """PyTorch's `dim=` or numpy's `axis=` (one of them)."""
    if axis is not None:
        if dim is not None:
            raise TypeError("give dim= or axis=, not both")
        return axis
    return dim


def _dim(op: str, dim: int, ndim: int) -> int:
    """`dim` wrapped into [0, ndim), checked as PyTorch checks it (an IndexError naming `op`).
    A 0-d tensor counts as having one dim here, so it takes dim 0 or -1."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{op}: dim must be an int, got {dim!r}")
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"{op}: dim {dim} is out of range for a tensor with {ndim} dims "
                         f"(expected a dim in [{-size}, {size - 1}])")
    return int(dim) % size


def _existing_dim(op: str, dim: int, ndim: int) -> int:
    """`dim` as `_dim` wraps it, for ops that need the tensor to have that dim (not 0-d)."""
    if ndim == 0:
        raise InvalidArgumentError(f"{op}: a 0-d tensor has no dim to work along; reshape it to "
                                   "1-D first")
    return _dim(op, dim, ndim)


def _older_unbiased_form(dim: Any, unbiased: bool | None) -> tuple[Any, bool | None]:
    """(dim, unbiased), read from PyTorch's older var(unbiased) form too: a bool where the dim
    goes is `unbiased`, over every dim."""
    return (None, dim) if isinstance(dim, bool) else (dim, unbiased)


def _check_broadcast(op: str, *tensors: Tensor) -> None:
    """Shapes that do not broadcast raise as a primitive's would (PyTorch's RuntimeError),
    before a composition's numpy work on the arrays raises numpy's ValueError."""
    shapes = [t.shape for t in tensors]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise InvalidArgumentError(f"{op}: shapes {' and '.join(map(str, shapes))} do not "
                                   "broadcast together") from None


def _integer_divisor(op: str, divisor: Tensor) -> Tensor:
    """`divisor`, checked: PyTorch raises for an integer division by zero, where numpy
    returns 0 with a warning, and has no integer division of two bools."""
    divisor._refuse_bool(op)
    if divisor.dtype.kind in "iu" and not divisor.data.all():
        raise InvalidArgumentError(f"{op}: ZeroDivisionError (an integer divided by zero)")
    return divisor


def _dim_list(op: str, dim: int | Sequence[int], ndim: int) -> list[int]:
    """`dim` (an int or a sequence of ints) as a list of dims in [0, ndim), in the order given,
    each named once."""
    dims = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
    wrapped = [_dim(op, d, ndim) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        raise InvalidArgumentError(f"{op}: dims {tuple(dims)} name the same dim more than once")
    return wrapped


def _dim_tuple(op: str, dim: Dim, ndim: int) -> tuple[int, ...]:
    """`dim` (an int, a sequence of ints, or None for every dim) as a sorted tuple of dims in
    [0, ndim). A 0-d tensor takes dim 0 or -1 and has no dim to act on: ()."""
    if dim is None:
        return tuple(range(ndim))
    dims = _dim_list(op, dim, ndim)
    return tuple(sorted(dims)) if ndim else ()


def _reduced_dims(op: str, dim: Dim, axis: Dim, ndim: int) -> tuple[int, ...]:
    """The dims a reduction runs over, from `dim=` or `axis=`; None or () means every dim, as
    in PyTorch's sum and mean."""
    dim = _dims(dim, axis)
    return _dim_tuple(op, None if isinstance(dim, Sequence) and not dim else dim, ndim)


def _ints(args: tuple, keyword: Sequence[int] | None = None, op: str = "",
          name: str = "") -> tuple[int, ...]:
    """Sizes or dims given any of PyTorch's three ways: as arguments, f(2, 3), as one sequence,
    f((2, 3)), or by the keyword `name` of its function form, f(name=(2, 3))."""
    if keyword is not None:
        if args:
            raise TypeError(f"{op}: give {name} as arguments or as {name}=, not both")
        return tuple(keyword)
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return tuple(args[0])
    return tuple(args)


def _index_array(op: str, index: ArrayLike) -> np.ndarray:
    """An integer index given as a Tensor, a numpy array or a list, checked to hold integers."""
    index = np.asarray(_as_array(index))
    if index.dtype.kind not in "iu":
        raise InvalidTypeError(f"{op}: index must hold integers, got dtype {index.dtype}")
    return index


def _to_arguments(name: str, args: tuple, dtype: Any, device: Any, flags: int
                  ) -> tuple[Any, tuple]:
    """PyTorch's positional forms of `to` (Tensor's and Module's): (tensor, ...), (device,
    [dtype], ...) or (dtype, ...), then up to `flags` bools (non_blocking, copy). Returns the
    dtype (a given tensor's) and those bools, once the device is found to be the CPU."""
    args = list(args)
    if args and isinstance(args[0], Tensor):
        dtype = args.pop(0).dtype
    elif args and devices.is_device(args[0]):
        device = args.pop(0)
        if args and not isinstance(args[0], bool):
            dtype = args.pop(0)
    elif args:
        dtype = args.pop(0)
    if len(args) > flags or not all(isinstance(flag, bool) for flag in args):
        raise TypeError(f"{name}: after the dtype, device or tensor come at most {flags} bools "
                        f"(non_blocking{', copy' if flags == 2 else ''}), got {tuple(args)}")
    devices.on_cpu(name, device)
    return dtype, tuple(args)


def _sign(data: np.ndarray) -> np.ndarray:
    """np.sign, but 0 for NaN, as PyTorch's sign: (x > 0) - (x < 0)."""
    if data.dtype.kind != "f":
        return np.sign(data)
    return np.subtract(data > 0, data < 0, dtype=data.dtype)


def _nan(data: np.ndarray) -> np.ndarray:
    """Where `data` is NaN (nowhere for integers and bools, which numpy's isnan refuses)."""
    return np.isnan(data) if data.dtype.kind == "f" else np.zeros(data.shape, bool)


def _bool_mask(op: str, mask: ArrayLike) -> np.ndarray:
    """A copy of `mask` (backward may read it), checked to be bool as PyTorch requires: an
    integer or float mask is more often a mistake than a mask."""
    mask = np.array(_as_array(mask))
    if mask.dtype != np.bool_:
        raise InvalidTypeError(f"{op}: the mask or condition must be a bool tensor, got dtype "
                               f"{mask.dtype}; compare first, e.g. x != 0")
    return mask


def _check_index(op: str, index: np.ndarray, shape: tuple[int, ...], dim: int) -> None:
    """gather's and scatter_add's rules for `index`: as many dims as the tensor, no larger than
    it along the other dims, and entries in [0, size) along `dim`."""
    if index.ndim != len(shape) or any(i > n for k, (i, n) in enumerate(zip(index.shape, shape))
                                       if k != dim):
        raise InvalidArgumentError(f"{op}: index of shape {index.shape} does not fit a tensor of "
                                   f"shape {shape}: it needs {len(shape)} dims, none larger than "
                                   f"the tensor's except dim {dim}")
    _check_index_range(op, index, shape, dim)


def _check_index_range(op: str, index: np.ndarray, shape: tuple[int, ...], dim: int) -> None:
    """Entries of `index` in [0, size) along `dim`."""
    size = shape[dim] if shape else 1
    if index.size and (index.min() < 0 or index.max() >= size):
        raise InvalidIndexError(f"{op}: index entries must lie in [0, {size}) for dim {dim} of a "
                                f"tensor of shape {shape}, got entries from {index.min()} to "
                                f"{index.max()}")


def _along_dim(index: np.ndarray, dim: int) -> tuple[np.ndarray, ...]:
    """The numpy index that reaches, for each position p of `index`, the entry at index[p]
    along `dim` and at p along every other dim: what gather reads and scatter_add writes."""
    grid = list(np.ogrid[tuple(slice(n) for n in index.shape)])  # each position's coordinates
    grid[dim] = index
    return tuple(grid)


def _scatter_places(index: np.ndarray, dim: int, shape: tuple[int, ...]) -> np.ndarray:
    """The flat position in a tensor of `shape` that each entry of `index` names along `dim`
    (row-major, in index's order)."""
    return np.ravel_multi_index(np.broadcast_arrays(*_along_dim(index, dim)), shape).reshape(-1)


def _last_writes(places: np.ndarray) -> np.ndarray:
    """The positions in `places` (flat places written in turn) of the last write to each
    distinct place: where a place is named more than once the last write wins, as in PyTorch."""
    return len(places) - 1 - np.unique(places[::-1], return_index=True)[1]


def _mask_broadcast_shape(op: str, mask: np.ndarray, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape a mask and a tensor of `shape` broadcast to (out-of-place masked ops broadcast
    both, as in PyTorch)."""
    try:
        return np.broadcast_shapes(shape, mask.shape)
    except ValueError:
        raise InvalidArgumentError(f"{op}: mask of shape {mask.shape} does not broadcast with "
                                   f"the tensor's shape {shape}") from None


def _accumulating(t: Tensor) -> Tensor:
    """Integer and bool tensors sum and multiply in int64, as in PyTorch (in numpy bool + bool
    is `or`, and small integer types overflow)."""
    return t if t.dtype.kind == "f" else Tensor._make(t.data.astype(np.int64, copy=False))


def _negative_integer_power(base: Tensor, exponent: Tensor) -> bool:
    """Whether base ** exponent raises integers to negative powers, which numpy refuses."""
    return base.dtype.kind in "iu" and exponent.dtype.kind in "iu" and bool(
        (exponent.data < 0).any())


def _integer_power(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """base ** exponent in integers as PyTorch computes it for a tensor exponent: a negative
    power is 1 / base**|exponent| truncated to an integer, so 0 unless base is 1 or -1 (0 for
    base 0 too)."""
    negative = exponent < 0
    magnitude = np.where(negative, -exponent, exponent)
    return np.where(negative & (np.abs(base) != 1), 0, base ** magnitude).astype(
        np.result_type(base, exponent))


def _zero_at_zero(x: Tensor, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """fn(x), except 0 with gradient 0 where x == 0: for sqrt and powers, whose derivative is
    infinite at 0, where PyTorch's norm and std take the subgradient 0. fn never sees those
    zeros (they are replaced by 1 first), so no inf * 0 = NaN reaches the gradient."""
    at_zero = x.data == 0
    return fn(x.masked_fill(at_zero, 1.0)).masked_fill(at_zero, 0.0)


# --------------------------------------------------------------------------------------------
# Type promotion: the dtype a binary op computes in, by PyTorch's rules (not numpy's)
# --------------------------------------------------------------------------------------------
def _promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types: numpy's promotion, except that an integer or bool meeting a float
    gives that float (numpy widens int32 with float32 to float64)."""
    if (a.kind == "f") != (b.kind == "f"):
        return a if a.kind == "f" else b
    return np.promote_types(a, b)


def _number_dtype(number: Any) -> np.dtype:
    """The dtype PyTorch gives a Python (or numpy) number in an op with tensors: bool, int64,
    or the default float dtype."""
    if isinstance(number, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(number, (int, np.integer)):
        return np.dtype(np.int64)
    return np.dtype(get_default_dtype())


def _operand(x: Any) -> Any:
    """An operand for `_result_dtype`: tensors, numbers and None as they are, other data
    (lists, numpy arrays) as a Tensor."""
    return x if x is None or isinstance(x, (Tensor, int, float, np.number, np.bool_)) \
        else Tensor(x)


def _result_dtype(*operands: Any) -> np.dtype:
    """torch.result_type of tensors and Python numbers (None entries are skipped). Tensors with
    dims decide first, then 0-d tensors, then numbers; a later group changes the dtype only when
    it brings a higher category (bool < integer < float). So int32 * 2.5 is the default float
    dtype, int32 * 2 stays int32, and a float32 tensor meeting a float64 0-d tensor stays
    float32."""
    groups: list[np.dtype | None] = [None, None, None]  # with dims, 0-d, numbers
    for x in operands:
        if x is None:
            continue
        rank, dtype = ((0 if x.ndim else 1), x.dtype) if isinstance(x, Tensor) \
            else (2, _number_dtype(x))
        groups[rank] = dtype if groups[rank] is None else _promote_types(groups[rank], dtype)

    def combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
        if higher is None or lower is None:
            return lower if higher is None else higher
        if higher.kind == "f":
            return higher
        if higher.kind == "b" or lower.kind == "f":
            return _promote_types(higher, lower)
        return higher

    return combine(groups[0], combine(groups[1], groups[2]))


def _cathetus(x: Tensor) -> Tensor:
    """sqrt(1 - x**2) as sqrt(1 - x) * sqrt(1 + x): no cancellation near |x| = 1, and there
    the gradient is inf (a product under one sqrt would give inf * 0 = NaN)."""
    return (1 - x).sqrt() * (1 + x).sqrt()


def _odd(x: Tensor, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """The odd function that is fn on t >= 0 (fn(0) = 0): fn(max(x, 0)) - fn(max(-x, 0)). Each
    side sees 0 where the other one applies, so fn only ever meets t >= 0, and the gradient at
    x = 0 is fn's at 0 (abs would give 0 there)."""
    positive = x.masked_fill(x.data < 0, 0.0)
    negative = (-x).masked_fill(x.data >= 0, 0.0)
    return fn(positive) - fn(negative)


def _ordinary_or_huge(x: Tensor, ordinary: Callable[[Tensor], Tensor],
                      huge: Callable[[Tensor], Tensor], start: float = 2.0 ** 28) -> Tensor:
    """ordinary(x) below `start`, huge(x) from there on; each sees only its own entries (the
    others are replaced by a harmless value), so neither overflows nor spoils the gradient."""
    is_huge = x.data >= start
    return ops.Where.apply(huge(x.masked_fill(~is_huge, start)),
                           ordinary(x.masked_fill(is_huge, 2.0)), cond=is_huge)


def _scan(x: Tensor, dim: int, combine: Callable[[Tensor, Tensor], Tensor],
          identity: float) -> Tensor:
    """Inclusive prefix combination along `dim` (cumsum, cumprod) by doubling: after the step
    with shift s every entry holds the combination of the 2s entries ending at it. That is
    log2(n) steps of one `combine` each, whose own gradients make the scan's exact (also
    through zeros in a product)."""
    if x.ndim == 0:
        return x.reshape(())
    x = x.movedim(dim, -1)
    n = x.shape[-1]
    shift = 1
    while shift < n:
        filler = Tensor._make(np.full(x.shape[:-1] + (shift,), identity, dtype=x.dtype))
        x = combine(x, ops.Concat.apply(filler, x[..., : n - shift], axis=-1))
        shift *= 2
    return x.movedim(-1, dim)


def _stable_order(data: np.ndarray, dim: int, descending: bool = False) -> np.ndarray:
    """The int64 indices that sort `data` along `dim` (0 or -1 for 0-d data), NaN as the
    largest, equal entries in their order (descending too)."""
    flat = data.reshape(data.shape or (1,))
    if descending:  # a stable ascending sort of the reversed entries, reversed back
        flipped = np.argsort(np.flip(flat, dim), axis=dim, kind="stable")
        order = flat.shape[dim] - 1 - np.flip(flipped, dim)
    else:
        order = np.argsort(flat, axis=dim, kind="stable")
    return order.reshape(data.shape).astype(np.int64)


def _sliced(op: str, t: Tensor, dim: int, start: int | None, end: int | None, step: int
            ) -> Tensor:
    """t[start:end:step] along `dim` (torch.slice, for slice_scatter and slice_copy): bounds
    outside the dim are clamped, as in Python and PyTorch; the step must be positive."""
    if step <= 0:
        raise InvalidArgumentError(f"{op}: the step must be positive, got {step}")
    return t[(slice(None),) * _dim(op, dim, t.ndim) + (slice(start, end, step),)]


class ValuesIndices(NamedTuple):
    """What max(dim) and min(dim) return, like PyTorch's torch.return_types.max: a pair that
    unpacks as (values, indices) and has `.values` and `.indices`."""

    values: Tensor
    indices: Tensor


class Frexp(NamedTuple):
    """What frexp returns, like PyTorch's torch.return_types.frexp: (mantissa, exponent)."""

    mantissa: Tensor
    exponent: Tensor


class Histogram(NamedTuple):
    """What histogram returns, like PyTorch's torch.return_types.histogram."""

    hist: Tensor
    bin_edges: Tensor


class MinMax(NamedTuple):
    """What aminmax returns, like PyTorch's torch.return_types.aminmax: (min, max), with
    `.min` and `.max`."""

    min: Tensor
    max: Tensor


# `array <op> tensor` as the tensor's reflected operator; comparisons turn around
_REFLECTED_OPERATORS = {
    np.add: "__radd__", np.subtract: "__rsub__", np.multiply: "__rmul__",
    np.true_divide: "__rtruediv__", np.floor_divide: "__rfloordiv__", np.remainder: "__rmod__",
    np.power: "__rpow__", np.matmul: "__rmatmul__", np.bitwise_and: "__rand__",
    np.bitwise_or: "__ror__", np.bitwise_xor: "__rxor__", np.equal: "__eq__",
    np.not_equal: "__ne__", np.less: "__gt__", np.less_equal: "__ge__", np.greater: "__lt__",
    np.greater_equal: "__le__",
}


def _as_arrays(value: Any) -> Any:
    """`value` with every tensor in it, also in lists, tuples and dicts, as its numpy array."""
    if isinstance(value, Tensor):
        return np.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_as_arrays(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_arrays(v) for k, v in value.items()}
    return value


class Tensor:
    """An n-dimensional array that remembers how it was computed, so gradients can flow back.

    Python scalars and lists become the default float dtype (float32 unless
    `minigrad.set_default_dtype` changed it); numpy float arrays keep float32 or float64; integer
    and bool arrays stay as they are (indices, targets, masks) and cannot require grad. Numpy
    arrays are wrapped without a copy.
    """

    __slots__ = ("data", "_grad", "_requires_grad", "grad_fn", "name", "_retains_grad", "_hooks",
                 "_post_accumulate_grad_hooks", "_versions", "_rewrites", "__weakref__")

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's functions of tensors: `ndarray * tensor` and the other operators with a
        tensor on the right are the tensor's (recorded for backward); any other ufunc (np.exp,
        np.isfinite, `array -= tensor`, ...) runs on the arrays, as on `np.asarray(tensor)`,
        and gives an array."""
        reflected = _REFLECTED_OPERATORS.get(ufunc)
        if (reflected and method == "__call__" and not kwargs and len(inputs) == 2
                and inputs[1] is self and not isinstance(inputs[0], Tensor)):
            return getattr(self, reflected)(inputs[0])
        return getattr(ufunc, method)(*_as_arrays(inputs), **_as_arrays(kwargs))

    def __array_function__(self, func: Callable, types: Any, args: tuple, kwargs: dict) -> Any:
        """numpy's other functions (np.all, np.sum, np.stack, ...) of tensors run on their
        arrays, as on `np.asarray(tensor)`, and give arrays; without this, np.sum(tensor) would
        call Tensor.sum with numpy's arguments."""
        return func(*_as_arrays(args), **_as_arrays(kwargs))

    def __init__(self, data: ArrayLike, requires_grad: bool = False, dtype: Any = None,
                 name: str | None = None) -> None:
        if isinstance(data, Tensor):
            data = data.data
        if dtype is not None:
            array = np.asarray(data, dtype=dtype)
        elif isinstance(data, (np.ndarray, np.generic)):
            array = np.asarray(data)
            if array.dtype.kind == "f" and array.dtype not in (np.float32, np.float64):
                array = array.astype(np.float32)  # float16 etc.: compute in float32
        else:
            array = np.asarray(data)
            if array.dtype.kind in "iuf":
                array = array.astype(get_default_dtype())
            elif array.dtype.kind != "b":
                raise TypeError(f"Tensor: cannot make a tensor from {type(data).__name__} "
                                f"(numpy dtype {array.dtype}); give numbers or a numpy array")
        self.data: np.ndarray = array
        self._grad: Tensor | None = None
        self.grad_fn: engine.Function | None = None
        self.requires_grad = engine.require_bool("Tensor: requires_grad", requires_grad)
        self.name: str | None = name
        self._retains_grad = False
        self._hooks: dict[int, Callable[[Tensor], Tensor | None]] | None = None
        self._post_accumulate_grad_hooks: dict[int, Callable[[Tensor], None]] | None = None
        self._versions = [0]  # see _version
        self._rewrites: list[tuple[int, Tensor]] | None = None  # see _rebound_recorded

    @staticmethod
    def _make(data: np.ndarray) -> Tensor:
        """Wrap an op's output without the checks of __init__ (the hot path of every op)."""
        t = object.__new__(Tensor)
        t.data = data
        t._grad = None
        t._requires_grad = False
        t.grad_fn = None
        t.name = None
        t._retains_grad = False
        t._hooks = None
        t._post_accumulate_grad_hooks = None
        t._versions = [0]
        t._rewrites = None
        return t

    @property
    def grad(self) -> Tensor | None:
        """The gradient backward accumulated here: a tensor of this one's shape and dtype, that
        requires no grad (None before any backward)."""
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        # PyTorch's checks: a gradient of another shape or dtype would fail at the next step
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size {list(value.shape)} "
                                   f"to a tensor of size {list(self.shape)}; they must match")
            if value.dtype != self.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype {value.dtype} to "
                                   f"a tensor with dtype {self.dtype}; they must match")
        self._grad = value

    @property
    def _version(self) -> int:
        """How many times an in-place op changed this tensor's memory (backward checks it has
        not moved since an op saved the tensor). Tensors that share memory (detach, views such
        as x[1:], reshape, transpose) share one counter, as in PyTorch."""
        return self._versions[0]

    @_version.setter
    def _version(self, version: int) -> None:
        self._versions[0] = version

    # ---- array-like attributes ----
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    # devices (PyTorch's; minigrad computes on the CPU only: minigrad/devices.py)
    @property
    def device(self) -> devices.device:
        return devices.CPU

    @property
    def is_cpu(self) -> bool:
        return True

    @property
    def is_cuda(self) -> bool:
        return False

    def cpu(self) -> Tensor:
        """This tensor, which is on the CPU already."""
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False) -> Tensor:
        devices.on_cpu("cuda", "cuda" if device is None else device)
        return self

    def size(self, dim: int | None = None) -> tuple[int, ...] | int:
        """The shape, or with `dim` the length of that dim (PyTorch's meaning; numpy's `.size`,
        the number of entries, is `numel()`)."""
        if dim is None:
            return self.shape
        try:
            return self.shape[dim]
        except IndexError:
            raise IndexError(f"size: dim {dim} is out of range for a tensor with {self.ndim} "
                             f"dims") from None

    def numel(self) -> int:
        """The number of entries."""
        return self.data.size

    def dim(self) -> int:
        """The number of dims (`ndim`)."""
        return self.data.ndim

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        """Whether ops on this tensor record a graph for backward."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, requires_grad: bool) -> None:
        # PyTorch's rules: an op's result takes the flag from its inputs, and integer or bool
        # tensors have no gradient to hold
        engine.require_bool("requires_grad", requires_grad, RuntimeError)  # PyTorch's class here
        if self.grad_fn is not None:
            raise RuntimeError("requires_grad: you can only change requires_grad flags of leaf "
                               "tensors; use detach() to cut a computed tensor off the graph")
        if requires_grad and self.dtype.kind != "f":
            raise InvalidTypeError(f"requires_grad: only floating-point tensors can require "
                                   f"grad, got dtype {self.dtype}; convert with .float() first")
        self._requires_grad = requires_grad

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set `requires_grad` on this leaf and return it; on a computed tensor only True,
        which it already is, is accepted (PyTorch's meaning)."""
        engine.require_bool("requires_grad_: requires_grad", requires_grad)
        if self.grad_fn is None or not requires_grad:
            self.requires_grad = requires_grad
        return self

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.data)

    def __iter__(self) -> Iterator[Tensor]:
        """The slices along dim 0, each in the graph (PyTorch's unbind(0)); a 0-d tensor has
        none, and raises instead of ending at once."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The numpy array (no copy). Like PyTorch, refuses a tensor that requires grad while
        grad mode is on (its array, once edited, would silently disagree with the graph);
        under no_grad, with `force=True` or as `.detach().numpy()` it is given."""
        if self.requires_grad and engine.is_grad_enabled() and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self.data

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """np.asarray(x): the values, as `numpy()` gives them (refused for a tensor that
        requires grad, as in PyTorch); a copy only when a dtype asks for one or copy=True."""
        return np.array(self.numpy(), dtype=dtype, copy=copy)  # numpy's rules for both

    def item(self) -> float:
        if self.data.size != 1:
            raise InvalidArgumentError(f"item: a Tensor with {self.data.size} elements cannot be "
                                       "converted to Scalar")
        return self.data.item()

    def tolist(self) -> Any:
        """The entries as (nested) Python lists of Python numbers; a 0-d tensor gives a number."""
        return self.data.tolist()

    def detach(self) -> Tensor:
        """The same data, cut off from the graph."""
        detached = Tensor._make(self.data)
        detached._versions = self._versions  # one memory, one version counter
        return detached

    def detach_(self) -> Tensor:
        """Cut this tensor off from the graph in place and return it: a leaf that requires no
        grad. Backward from results computed from it earlier stops here too (PyTorch's goes on
        through: the graph links tensors, not separate nodes)."""
        self.grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self) -> Tensor:
        """Keep `.grad` on this non-leaf tensor after backward (leaves always keep theirs)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retains_grad = True
        return self

    @property
    def retains_grad(self) -> bool:
        """Whether backward keeps `.grad` on this non-leaf tensor (`retain_grad()` was called);
        False for a leaf, which keeps its `.grad` anyway."""
        return self._retains_grad and self.grad_fn is not None

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> engine.HookHandle:
        """Call `hook(grad)` each time backward computes this tensor's gradient (a tensor, not
        to be changed in place), before it reaches `.grad` or the op that made this tensor; a
        returned tensor replaces the gradient. `.remove()` on the handle returned unregisters
        it."""
        if not self.requires_grad:
            raise InvalidArgumentError("register_hook: cannot register a hook on a tensor that "
                                       "doesn't require gradient")
        if self._hooks is None:
            self._hooks = {}
        return engine.HookHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]
                                           ) -> engine.HookHandle:
        """Call `hook(x)` each time `backward()` has added into this leaf's `.grad` (an
        optimizer can step the parameter there, during backward); `minigrad.grad`, which adds
        into no `.grad`, calls none. `.remove()` on the handle returned unregisters it."""
        name = "register_post_accumulate_grad_hook"
        if not self.requires_grad:
            raise InvalidArgumentError(f"{name}: cannot register a hook on a tensor that "
                                       f"doesn't require gradient")
        if self.grad_fn is not None:
            raise InvalidArgumentError(f"{name}: post accumulate grad hooks cannot be "
                                       f"registered on non-leaf tensors")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = {}
        return engine.HookHandle(self._post_accumulate_grad_hooks, hook)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop `.grad` (set_to_none=True) or fill it with zeros in place, as PyTorch's
        Module.zero_grad and Optimizer.zero_grad do for each parameter."""
        if set_to_none:
            self._grad = None
        elif self._grad is not None:
            self._grad.data.fill(0)

    def __repr__(self) -> str:
        """As PyTorch prints a tensor: its values, then the size of an empty one with more than
        one dim, a dtype other than the default float dtype, int64 and bool, and where its
        gradient goes."""
        values = np.array2string(self.data, separator=", ", prefix="tensor(")
        extra = [f"size={self.shape}"] if self.data.size == 0 and self.ndim > 1 else []
        if self.dtype not in (get_default_dtype(), np.int64, np.bool_):
            extra.append(f"dtype={self.dtype}")
        if self.grad_fn is not None:
            extra.append(f"grad_fn={self.grad_fn!r}")
        elif self.requires_grad:
            extra.append("requires_grad=True")
        return f"tensor({', '.join([values, *extra])})"

    __str__ = __repr__

    # ---- arithmetic: one primitive each ----
    def _lift(self, other: ArrayLike) -> Tensor:
        """A Python or numpy scalar as a 0-d tensor of the dtype PyTorch gives it next to this
        tensor: a float tensor's own dtype (float64 math stays exact, float32 math never
        up-casts); next to an integer or bool tensor, that dtype for an int and the default
        float for a float (`_result_dtype`). Tensors are returned as they are."""
        if isinstance(other, Tensor):
            return other
        if isinstance(other, (int, float, np.number, np.bool_)):
            dtype = self.data.dtype if self.data.dtype.kind == "f" else _result_dtype(self, other)
            # astype wraps an int out of the dtype's range (uint8 - 3), as PyTorch's cast does
            return Tensor._make(np.asarray(other).astype(dtype))
        if isinstance(other, np.ndarray) and other.dtype.kind in "biuf":
            return Tensor._make(other)  # its own dtype: Tensor() would make float16 float32
        return Tensor(other)

    def _operands(self, other: ArrayLike) -> tuple[Tensor, Tensor]:
        """self and other converted to the dtype PyTorch computes a binary op on them in
        (`_result_dtype`): int32 + float32 is float32, not numpy's float64. Equal dtypes (the
        common case) pass through untouched; float conversions stay differentiable."""
        other = self._lift(other)
        if other.dtype == self.dtype:
            return self, other
        dtype = _result_dtype(self, other)
        return self.to(dtype), other.to(dtype)

    def _promoted_arrays(self, other: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """The arrays of `_operands`, for ops outside the graph (comparisons, bitwise ops): a
        float32 tensor meets a 0-d float64 one in float32, an int8 one a 0-d int64 in int8.
        Lists keep numpy's dtype (Tensor would make Python floats the default float dtype)."""
        other = self._lift(np.asarray(other) if isinstance(other, (list, tuple)) else other)
        dtype = _result_dtype(self, other)
        return self.data.astype(dtype, copy=False), other.data.astype(dtype, copy=False)

    def _floating(self) -> Tensor:
        """This tensor, or an integer or bool one in the default float dtype: functions with
        float values (exp, sqrt, /, ...) give the default float dtype for integers, as in
        PyTorch."""
        return self if self.data.dtype.kind == "f" else self.to(get_default_dtype())

    def __add__(self, other: ArrayLike) -> Tensor:
        return ops.Add.apply(*self._operands(other))

    def __radd__(self, other: ArrayLike) -> Tensor:
        a, b = self._operands(other)
        return ops.Add.apply(b, a)

    def __sub__(self, other: ArrayLike) -> Tensor:
        return ops.Sub.apply(*self._subtraction_operands(other))

    def __rsub__(self, other: ArrayLike) -> Tensor:
        a, b = self._subtraction_operands(other)
        return ops.Sub.apply(b, a)

    def _subtraction_operands(self, other: ArrayLike) -> tuple[Tensor, Tensor]:
        """`_operands`, refusing bools as PyTorch does: in numpy True - True fails, and a
        mask minus something is usually a mistaken `~mask`."""
        self._refuse_bool_subtraction(other)
        return self._operands(other)

    def _refuse_bool_subtraction(self, other: ArrayLike) -> None:
        if np.bool_ in (self.dtype, _as_array(other).dtype):
            raise InvalidTypeError("sub: subtraction with a bool tensor or a bool is not "
                                   "supported; to invert a mask use ~ or logical_not()")

    def __mul__(self, other: ArrayLike) -> Tensor:
        return ops.Mul.apply(*self._operands(other))

    def __rmul__(self, other: ArrayLike) -> Tensor:
        a, b = self._operands(other)
        return ops.Mul.apply(b, a)

    def __truediv__(self, other: ArrayLike) -> Tensor:
        return ops.Div.apply(*self._float_operands(other))

    def __rtruediv__(self, other: ArrayLike) -> Tensor:
        a, b = self._float_operands(other)
        return ops.Div.apply(b, a)

    def _float_operands(self, other: ArrayLike) -> tuple[Tensor, Tensor]:
        """Both operands converted straight to the dtype of an op with a float result (/,
        atan2, copysign, xlogy): `_result_dtype`'s, or the default float for integers and bools
        (int / int is float, as in PyTorch). Never through the integer dtype `_operands` would
        give: uint8 / -3, atan2(uint8, tensor(-3)) and uint8 / tensor(300) keep their other
        operand's value, as in PyTorch."""
        if not isinstance(other, (int, float, np.number, np.bool_)):
            other = self._lift(other)
        dtype = _result_dtype(self, other)
        if dtype.kind != "f":
            dtype = np.dtype(get_default_dtype())
        other = other.to(dtype) if isinstance(other, Tensor) else \
            Tensor._make(np.asarray(other, dtype))
        return self.to(dtype), other

    # x += y and the like: in place, as PyTorch's, unless the result must be recorded
    def __iadd__(self, other: ArrayLike) -> Tensor:
        return self._in_place("+=", Tensor.__add__, other)

    def __isub__(self, other: ArrayLike) -> Tensor:
        return self._in_place("-=", Tensor.__sub__, other)

    def __imul__(self, other: ArrayLike) -> Tensor:
        return self._in_place("*=", Tensor.__mul__, other)

    def __itruediv__(self, other: ArrayLike) -> Tensor:
        return self._in_place("/=", Tensor.__truediv__, other)

    def __ifloordiv__(self, other: ArrayLike) -> Tensor:
        return self._in_place("//=", Tensor.__floordiv__, other)

    def __imod__(self, other: ArrayLike) -> Tensor:
        return self._in_place("%=", Tensor.__mod__, other)

    def __ipow__(self, other: ArrayLike) -> Tensor:
        return self._in_place("**=", Tensor.__pow__, other)

    def __iand__(self, other: ArrayLike) -> Tensor:
        return self._in_place("&=", Tensor.__and__, other)

    def __ior__(self, other: ArrayLike) -> Tensor:
        return self._in_place("|=", Tensor.__or__, other)

    def __ixor__(self, other: ArrayLike) -> Tensor:
        return self._in_place("^=", Tensor.__xor__, other)

    def __ilshift__(self, other: ArrayLike) -> Tensor:
        return self._in_place("<<=", Tensor.__lshift__, other)

    def __irshift__(self, other: ArrayLike) -> Tensor:
        return self._in_place(">>=", Tensor.__rshift__, other)

    def _in_place(self, symbol: str, op: Callable[[Tensor, ArrayLike], Tensor],
                  other: ArrayLike) -> Tensor:
        """`self symbol other` changes this tensor, as PyTorch's in-place ops do: an optimizer
        step `p -= lr * p.grad` under no_grad writes into the parameter's array (a graph whose
        op had saved it before is then refused by backward: the version check), and where the
        result requires grad the change is recorded as the in-place methods' (`_modified`).
        A leaf that requires grad is refused, as in PyTorch. A view of another tensor, whose
        graph would not see the change, gets the result as a new tensor instead: `x[i] += y`,
        where Python then writes that back with `x[i] = ...`, is recorded on x."""
        name = f"x {symbol} y"
        if engine.is_grad_enabled() and self.requires_grad and self.is_leaf:
            raise InvalidArgumentError(
                f"{name}: x is a leaf tensor that requires grad, which cannot be changed in "
                f"place; do it under minigrad.no_grad() (as an optimizer step does), or write "
                f"x = x {symbol[:-1]} y for a new tensor")
        result = op(self, other)
        if result.requires_grad and self._is_a_view():
            self._check_replacement(name, result.data, "same_kind")
            return result
        return self._modified(name, result)

    def _check_replacement(self, name: str, values: np.ndarray, casting: str) -> None:
        if values.shape != self.shape and not engine._broadcasts_to(values.shape, self.shape):
            raise InvalidArgumentError(f"{name}: the result's shape {values.shape} does not "
                                       f"match the tensor's {self.shape}; in place, the other "
                                       f"operand must broadcast to the tensor's shape")
        if not np.can_cast(values.dtype, self.dtype, casting):
            raise InvalidTypeError(f"{name}: the result's dtype {values.dtype} can't be cast to "
                                   f"the tensor's {self.dtype}; convert the tensor first")

    def _overwrite(self, name: str, values: np.ndarray, casting: str = "same_kind") -> Tensor:
        """Write `values` (broadcast to this tensor's shape) into its array; returns self."""
        self._check_replacement(name, values, casting)
        self._check_not_read_only(name)
        np.copyto(self.data, values, casting="unsafe")
        self._version += 1
        return self

    # PyTorch's in-place methods: they change this tensor itself and return it. With grad mode
    # on and this tensor or the result requiring grad, the change is recorded
    # (`_rebound_recorded`); initialisation and update code runs them under no_grad. A graph
    # whose op saved the tensor before an unrecorded change is refused by backward (the version
    # check). `replaces`: the result is computed without this tensor (copy_).
    def _modified(self, name: str, result: Tensor, casting: str = "same_kind",
                  replaces: bool = False) -> Tensor:
        if engine.is_grad_enabled() and (self.requires_grad or result.requires_grad):
            self._refuse_unrecordable(name, f"use the out-of-place {name.rstrip('_')}")
            self._check_replacement(name, result.data, casting)
            value = result.to(self.dtype)
            if self.requires_grad and (replaces or not value.requires_grad):
                # copy_, fill_, uniform_, ...: the graph goes on through self too, whose old
                # entries get gradient 0, as PyTorch's (x.fill_(1) then backward)
                value = ops.Where.apply(self, value, cond=np.False_)
            # expanded only where the other operand was smaller: grad_fn stays the op's own
            return self._rebound_recorded(value if value.shape == self.shape else
                                          value.expand(self.shape))
        return self._overwrite(name, result.data, casting)

    def _reshaped(self, name: str, result: Tensor) -> Tensor:
        """squeeze_, t_ and the like: this tensor takes the shape of `result`, a view of it.
        PyTorch changes only the tensor's metadata, so it keeps sharing memory with its other
        views: its array becomes result's view of the same memory, with the same version
        counter (counted up, as PyTorch's). Recorded while grad mode is on and the tensor
        requires grad, as the other in-place methods (`_modified`)."""
        if engine.is_grad_enabled() and self.requires_grad:
            self._refuse_unrecordable(name, f"use the out-of-place {name.rstrip('_')}")
            return self._rebound_recorded(result)
        self.data = result.data
        self._version += 1
        return self

    def _refuse_unrecordable(self, name: str, way_out: str) -> None:
        """The in-place changes not recorded while grad mode is on: of a leaf that requires
        grad (as PyTorch), and of a view of another tensor, whose graph would not see them."""
        if self.requires_grad and self.is_leaf:
            raise InvalidArgumentError(f"{name}: a leaf tensor that requires grad cannot be "
                                       f"changed in place while recording; do it under "
                                       f"minigrad.no_grad() (as initialisation and optimizer "
                                       f"code does)")
        if self._is_a_view():
            raise InvalidArgumentError(f"{name}: this tensor is a view of another tensor's "
                                       f"memory, whose graph would not see the change; "
                                       f"{way_out}")

    def _rebound_recorded(self, value: Tensor) -> Tensor:
        """This tensor made `value` (computed from it), recorded, for the in-place methods and
        `x[index] = value` (IndexPut) while grad mode is on: it takes value's graph and a copy
        of its entries, in an array of its own. Its old array stays as it was, for the ops that
        saved it, with the version counter they checked. Ops that used this tensor before hold
        it as their input, but saw the old entries: `_rewrites` keeps, with the version the
        change makes, the tensor that stands for them, and backward sends those ops' gradients
        there (PyTorch's graph links ops, not tensors, and gets the same). Views made of the
        old array keep showing it."""
        old = Tensor._make(self.data)
        old.grad_fn, old._requires_grad, old._versions = (self.grad_fn, self._requires_grad,
                                                          self._versions)
        version = self._version + 1
        self.data, self._versions = np.array(value.data), [version]
        self.grad_fn, self._requires_grad = value.grad_fn, value.requires_grad
        if self._rewrites is None:
            self._rewrites = []
        self._rewrites.append((version, old))  # in version order: the engine bisects
        return self

    def _check_not_read_only(self, name: str) -> None:
        if not self.data.flags.writeable:
            raise InvalidArgumentError(f"{name}: the tensor is a read-only view (expand, "
                                       f"broadcast_to) whose entries may share memory; make a "
                                       f"copy first (x = x.clone())")

    def add_(self, other: ArrayLike, *, alpha: float = 1) -> Tensor:
        return self._modified("add_", self.add(other, alpha=alpha))

    def sub_(self, other: ArrayLike, *, alpha: float = 1) -> Tensor:
        return self._modified("sub_", self.sub(other, alpha=alpha))

    def mul_(self, other: ArrayLike) -> Tensor:
        return self._modified("mul_", self.mul(other))

    def div_(self, other: ArrayLike, *, rounding_mode: str | None = None) -> Tensor:
        return self._modified("div_", self.div(other, rounding_mode=rounding_mode))

    def clamp_(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
        return self._modified("clamp_", self.clamp(min, max))

    def clip_(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
        return self._modified("clip_", self.clamp(min, max))

    def relu_(self) -> Tensor:
        return self._modified("relu_", self.relu())

    def sigmoid_(self) -> Tensor:
        return self._modified("sigmoid_", self.sigmoid())

    def tanh_(self) -> Tensor:
        return self._modified("tanh_", self.tanh())

    def masked_fill_(self, mask: ArrayLike, value: float | Tensor) -> Tensor:
        return self._modified("masked_fill_", self.masked_fill(mask, value))

    def index_put_(self, indices: Sequence[ArrayLike], values: ArrayLike,
                   accumulate: bool = False) -> Tensor:
        return self._modified("index_put_", self.index_put(indices, values, accumulate))

    def index_add_(self, dim: int, index: ArrayLike, source: Tensor, *, alpha: float = 1
                   ) -> Tensor:
        return self._modified("index_add_", self.index_add(dim, index, source, alpha=alpha))

    def index_copy_(self, dim: int, index: ArrayLike, source: Tensor) -> Tensor:
        return self._modified("index_copy_", self.index_copy(dim, index, source))

    def index_fill_(self, dim: int, index: ArrayLike, value: float | Tensor) -> Tensor:
        return self._modified("index_fill_", self.index_fill(dim, index, value))

    def masked_scatter_(self, mask: ArrayLike, source: Tensor) -> Tensor:
        return self._modified("masked_scatter_", self.masked_scatter(mask, source))

    def scatter_(self, dim: int, index: ArrayLike, src: Tensor | float | None = None, *,
                 value: float | None = None, reduce: str | None = None) -> Tensor:
        return self._modified("scatter_", self.scatter(dim, index, src, value=value,
                                                       reduce=reduce))

    def scatter_add_(self, dim: int, index: ArrayLike, src: Tensor) -> Tensor:
        return self._modified("scatter_add_", self.scatter_add(dim, index, src))

    def scatter_reduce_(self, dim: int, index: ArrayLike, src: Tensor, reduce: str, *,
                        include_self: bool = True) -> Tensor:
        return self._modified("scatter_reduce_", self.scatter_reduce(
            dim, index, src, reduce, include_self=include_self))

    def copy_(self, src: ArrayLike) -> Tensor:
        """Copy `src`'s values (broadcast to this tensor's shape) into this tensor, converted to
        its dtype whatever theirs (as PyTorch does)."""
        return self._modified("copy_", self._lift(src), casting="unsafe", replaces=True)

    def fill_(self, value: ArrayLike) -> Tensor:
        """Set every entry to `value` (a number or a one-element tensor)."""
        value = self._lift(value)
        if value.numel() != 1:
            raise InvalidArgumentError(f"fill_: expects a number or a one-element tensor, got "
                                       f"shape {value.shape}")
        return self._modified("fill_", value.reshape(()), casting="unsafe")

    def zero_(self) -> Tensor:
        return self.fill_(0)

    def apply_(self, callable: Callable[[Any], Any]) -> Tensor:  # noqa: A002  (torch's name)
        """Replace each entry x by callable(x), a Python function of one number, as
        torch.Tensor.apply_: a Python call per entry, so slow (as PyTorch's). A tensor that
        requires grad is refused, as PyTorch: apply it to `x.detach()`."""
        self._refuse_python_function("apply_")
        values = [callable(x) for x in self.data.reshape(-1).tolist()]
        return self._overwrite("apply_", np.array(values).reshape(self.shape), "unsafe")

    def map_(self, tensor: ArrayLike, callable: Callable[[Any, Any], Any]) -> Tensor:  # noqa: A002
        """Replace each entry x by callable(x, y), y the entry of `tensor` (broadcast to this
        tensor's shape) at its place, as torch.Tensor.map_; refused for a tensor that requires
        grad, as apply_."""
        self._refuse_python_function("map_")
        others = np.broadcast_to(self._lift(tensor).data, self.shape).reshape(-1).tolist()
        values = [callable(x, y) for x, y in zip(self.data.reshape(-1).tolist(), others)]
        return self._overwrite("map_", np.array(values).reshape(self.shape), "unsafe")

    def _refuse_python_function(self, name: str) -> None:
        if self.requires_grad:
            raise InvalidArgumentError(f"{name}: cannot be called on a tensor that requires "
                                       f"grad (its gradient would be unknown); use "
                                       f"x.detach().{name}(...)")

    def resize_(self, *sizes: int | Sequence[int]) -> Tensor:
        """Give this tensor the shape `sizes`, as torch.Tensor.resize_: its entries in row-major
        order fill the new shape, and entries beyond them are 0 (PyTorch leaves them
        uninitialised). Refused for a tensor that requires grad, as PyTorch."""
        shape = _ints(sizes)
        if any(n < 0 for n in shape):
            raise InvalidArgumentError(f"resize_: sizes must be non-negative, got {shape}")
        if self.requires_grad:
            raise InvalidArgumentError("resize_: cannot resize tensors that require grad")
        flat = np.zeros(math.prod(shape), dtype=self.dtype)
        kept = min(flat.size, self.data.size)
        flat[:kept] = self.data.reshape(-1)[:kept]
        self.data = flat.reshape(shape)
        self._version += 1
        return self

    def resize_as_(self, other: Tensor) -> Tensor:
        """resize_ to `other`'s shape."""
        return self.resize_(other.shape)

    def fill_diagonal_(self, fill_value: float, wrap: bool = False) -> Tensor:
        """Set the main diagonal (entries whose indices are all equal) to `fill_value`, as
        torch.Tensor.fill_diagonal_: 2 or more dims, all of one length beyond 2; with `wrap`, a
        tall matrix's diagonal starts again below each square block (numpy's fill_diagonal's
        positions). Its other entries keep their gradient."""
        if self.ndim < 2:
            raise InvalidArgumentError("fill_diagonal_: dimensions must larger than 1 (a "
                                       "matrix or more)")
        if self.ndim > 2 and len(set(self.shape)) > 1:
            raise InvalidArgumentError(f"fill_diagonal_: all dimensions of input must be of "
                                       f"equal length, got shape {self.shape}")
        diagonal = np.zeros(self.shape, dtype=bool)
        np.fill_diagonal(diagonal, True, wrap=wrap)
        return self.masked_fill_(diagonal, fill_value)

    def uniform_(self, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill with numbers drawn uniformly from [a, b)."""
        rng = self._random_fill("uniform_", generator)
        if not a <= b:
            raise InvalidArgumentError(f"uniform_: expects a <= b, got a={a}, b={b}")
        return self._filled("uniform_", rng.uniform(a, b, self.shape))

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill with numbers drawn from the normal distribution N(mean, std**2)."""
        rng = self._random_fill("normal_", generator)
        if not std >= 0:
            raise InvalidArgumentError(f"normal_: expects std >= 0, got {std}")
        return self._filled("normal_", rng.normal(mean, std, self.shape))

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator: Any = None
                    ) -> Tensor:
        """Fill with exp of numbers drawn from N(mean, std**2)."""
        rng = self._random_fill("log_normal_", generator)
        if not std > 0:
            raise InvalidArgumentError(f"log_normal_: expects std > 0.0, got {std}")
        return self._filled("log_normal_", rng.lognormal(mean, std, self.shape))

    def exponential_(self, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
        """Fill with numbers drawn from the exponential distribution of rate `lambd`."""
        rng = self._random_fill("exponential_", generator)
        if not lambd > 0:
            raise InvalidArgumentError(f"exponential_: expects lambda > 0.0, got {lambd}")
        return self._filled("exponential_", rng.exponential(1 / lambd, self.shape))

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None
                ) -> Tensor:
        """Fill with numbers drawn from the Cauchy distribution around `median`."""
        rng = self._random_fill("cauchy_", generator)
        return self._filled("cauchy_", median + sigma * rng.standard_cauchy(self.shape))

    def geometric_(self, p: float, *, generator: Any = None) -> Tensor:
        """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
        rng = self._random_fill("geometric_", generator, kinds="fiu")
        if not 0 < p < 1:
            raise InvalidArgumentError(f"geometric_: expects p to be in (0, 1), got p={p}")
        return self._filled("geometric_", rng.geometric(p, self.shape))

    def bernoulli_(self, p: float | Tensor = 0.5, *, generator: Any = None) -> Tensor:
        """Fill with 1 where a Bernoulli(p) draw succeeds, else 0 (`p` a number, or a tensor
        of probabilities that broadcasts to this one's shape)."""
        rng = self._random_fill("bernoulli_", generator, kinds="fiub")
        probabilities = p.data if isinstance(p, Tensor) else np.asarray(p)
        if not ((probabilities >= 0) & (probabilities <= 1)).all():
            raise InvalidArgumentError(f"bernoulli_: expects p to be in [0, 1], got p={p}")
        return self._filled("bernoulli_", rng.random(self.shape) < probabilities)

    def random_(self, start: int | None = None, end: int | None = None, *,
                generator: Any = None) -> Tensor:
        """Fill with integers drawn uniformly from [start, end): random_(end) from [0, end);
        random_() from [0, 2**mantissa] for floats (every integer the dtype holds exactly),
        [0, max] for integers, as PyTorch's `from` and `to`."""
        rng = self._random_fill("random_", generator, kinds="fiu")
        if end is None:
            start, end = (0, start) if start is not None else (0, None)
        if end is None:
            end = 2 ** (np.finfo(self.dtype).nmant + 1) + 1 if self.dtype.kind == "f" else \
                int(np.iinfo(self.dtype).max) + 1
        if not start < end:
            raise InvalidArgumentError(f"random_ expects 'from' to be less than 'to', but got "
                                       f"from={start} >= to={end}")
        return self._filled("random_", rng.integers(start, end, self.shape))

    def _random_fill(self, name: str, generator: Any, kinds: str = "f") -> np.random.Generator:
        """The generator a random fill draws from, once this tensor's dtype is one of `kinds`
        (PyTorch has no kernel for the others: floats only for the continuous ones)."""
        if self.dtype.kind not in kinds:
            raise InvalidTypeError(f"{name}: can't fill a tensor of dtype {self.dtype}")
        return creation._rng(name, generator)

    def _filled(self, name: str, values: np.ndarray) -> Tensor:
        """This tensor holding `values`, drawn for it, in its own dtype."""
        return self._modified(name, Tensor._make(values.astype(self.dtype)), casting="unsafe")

    def __setitem__(self, index: Any, value: Any) -> None:
        """x[index] = value, in place, as PyTorch's: value broadcast to the entries indexed and
        converted to x's dtype. With grad mode on and x or value requiring grad, the write is
        recorded (`_rebound_recorded`), as PyTorch's, except into a leaf that requires grad
        (refused, as PyTorch) or into a view of another tensor's memory (refused: that tensor's
        graph would not know). `x[index] += y` ends here too: Python stores the updated
        x[index] back."""
        value = self._lift(value)
        name = "x[index] = value"
        # into an integer tensor a value's gradient ends, as in PyTorch: nothing to record
        recording = (engine.is_grad_enabled() and (self.requires_grad or value.requires_grad)
                     and self.data.dtype.kind == "f")
        if recording:
            self._refuse_unrecordable(name, "index that tensor at once (x[i, j] = v, not "
                                            "x[i][j] = v)")
        self._check_not_read_only(name)
        array, numpy_index = self._indexed_for_writing(index)
        target_shape = np.shape(array[numpy_index])
        data = value.data
        while data.ndim > len(target_shape) and data.shape[0] == 1:
            data = data[0]  # PyTorch drops a value's extra leading dims of size 1 (numpy not all)
        if not engine._broadcasts_to(data.shape, target_shape):
            raise InvalidArgumentError(f"x[index] = value: a value of shape {value.shape} does "
                                       f"not broadcast to the entries indexed, shape "
                                       f"{target_shape}")
        if recording:
            written_at = numpy_index
            if array is not self.data:  # selected in two steps: the entries as one index
                positions, rest = self._indexed_for_writing(index, np.arange(self.data.size))
                written_at = np.unravel_index(positions[rest], self.shape)
            value = value.reshape(data.shape).to(self.dtype)
            self._rebound_recorded(ops.IndexPut.apply(self, value, index=written_at))
            return
        array[numpy_index] = data
        self._version += 1

    def _is_a_view(self) -> bool:
        """Whether this tensor shows memory of another live tensor: a view made by an op shares
        the version counter of the tensor it views (so the counter is referenced from more
        than here and getrefcount)."""
        return self.data.base is not None and sys.getrefcount(self._versions) > 2

    def _indexed_for_writing(self, index: Any, entries: np.ndarray | None = None
                             ) -> tuple[np.ndarray, Any]:
        """(array, numpy index) addressing the entries x[index] reads, in PyTorch's order when
        ints meet index arrays (as __getitem__): the ints select a view first. The array is
        the tensor's, or `entries` (its flat positions, say) in the tensor's shape."""
        array = self.data if entries is None else entries.reshape(self.shape)
        if not isinstance(index, tuple):
            part = _index_part(index)
            _check_masks((part,), self.shape)
            return array, part
        parts = _index_parts(index, self.ndim)
        _check_masks(parts, self.shape)
        if any(map(_is_int, parts)) and any(map(_is_array, parts)):
            return array[tuple(_select_ints(parts))], tuple(_drop_ints(parts))
        return array, parts

    def __pow__(self, exponent: ArrayLike) -> Tensor:
        if self.data.dtype.kind in "biu" and isinstance(exponent, (int, np.integer)) \
                and exponent < 0:  # numpy's error would be a ValueError; PyTorch's is this
            raise InvalidArgumentError("pow: an integer tensor to a negative integer power "
                                       f"({exponent}) is not allowed; convert it to a float "
                                       "dtype first")
        a, b = self._operands(exponent)
        a._refuse_bool("pow")  # both bool: PyTorch has no kernel (numpy's int8 would be a guess)
        if _negative_integer_power(a, b):  # integer tensors: PyTorch's 0, or +-1 for a base +-1
            return Tensor._make(_integer_power(a.data, b.data))
        return ops.Pow.apply(a, b)

    def float_power(self, exponent: ArrayLike) -> Tensor:
        """self ** exponent computed in float64 whatever the dtypes, as torch.float_power."""
        exponent = exponent.to(np.float64) if isinstance(exponent, Tensor) else \
            Tensor._make(np.asarray(exponent, np.float64))
        return self.to(np.float64) ** exponent

    def __rpow__(self, base: ArrayLike) -> Tensor:
        a, b = self._operands(base)
        a._refuse_bool("pow")
        if _negative_integer_power(b, a):
            return Tensor._make(_integer_power(b.data, a.data))
        return ops.Pow.apply(b, a)

    def __matmul__(self, other: ArrayLike) -> Tensor:
        return ops.MatMul.apply(self, self._lift(other))

    def __rmatmul__(self, other: ArrayLike) -> Tensor:
        return ops.MatMul.apply(self._lift(other), self)

    def __neg__(self) -> Tensor:
        self._refuse_bool("neg")  # PyTorch points to ~ or logical_not
        return ops.Neg.apply(self)

    def __mod__(self, other: ArrayLike) -> Tensor:
        a, b = self._operands(other)
        return ops.Remainder.apply(a, _integer_divisor("remainder", b))

    def __rmod__(self, other: ArrayLike) -> Tensor:
        a, b = self._operands(other)
        return ops.Remainder.apply(b, _integer_divisor("remainder", a))

    def __floordiv__(self, other: ArrayLike) -> Tensor:
        return self.floor_divide(other)

    def __rfloordiv__(self, other: ArrayLike) -> Tensor:
        return self._lift(other).floor_divide(self)

    # PyTorch's method names for the operators
    def add(self, other: ArrayLike, *, alpha: float = 1) -> Tensor:
        """self + alpha * other."""
        return self + self._scaled("add", other, alpha)

    def sub(self, other: ArrayLike, *, alpha: float = 1) -> Tensor:
        """self - alpha * other."""
        self._refuse_bool_subtraction(other)  # alpha * a bool would no longer be one
        return self - self._scaled("sub", other, alpha)

    def _scaled(self, op: str, other: ArrayLike, alpha: float) -> ArrayLike:
        """alpha * other, for add and sub; a float alpha with integer operands raises, as in
        PyTorch, rather than turn the result into a float. For bools it stays bool (alpha * True
        is True for any alpha but 0), as PyTorch's sum of bools; integers keep the result's
        dtype (an int32 tensor plus 2 * a bool one stays int32, as in PyTorch)."""
        dtype = _result_dtype(self, _operand(other))
        if isinstance(alpha, float) and dtype.kind != "f":
            raise InvalidTypeError(f"{op}: alpha must not be a float for integer or bool tensors, "
                                   f"got {alpha}")
        if alpha == 1:
            return other
        scaled = self._lift(other) * alpha
        return scaled if dtype.kind == "f" else scaled.to(dtype)

    def mul(self, other: ArrayLike) -> Tensor:
        return self * other

    def div(self, other: ArrayLike, *, rounding_mode: str | None = None) -> Tensor:
        """self / other; rounding_mode "trunc" rounds the quotient toward 0, "floor" down."""
        if rounding_mode is None:
            return self / other
        if rounding_mode == "trunc":
            a, b = self._operands(other)
            if a.dtype.kind == "f":  # a step function: gradient 0, also where b is 0 or inf
                return a._step_function(np.trunc(a.data / b.data), b)
            # integers stay integers (as in PyTorch): floor division, then one up where the
            # quotient is negative and inexact, which floor rounded down and trunc rounds up
            quotient = np.floor_divide(a.data, _integer_divisor("div", b).data)
            inexact = (quotient * b.data != a.data) & ((a.data < 0) != (b.data < 0))
            return Tensor._make(np.asarray(quotient + inexact))
        if rounding_mode == "floor":
            return self.floor_divide(other)
        raise InvalidArgumentError(f"div: rounding_mode must be None, 'trunc' or 'floor', got "
                                   f"{rounding_mode!r}")

    def pow(self, exponent: ArrayLike) -> Tensor:
        return self ** exponent

    def neg(self) -> Tensor:
        return -self

    def negative(self) -> Tensor:
        """Alias of neg."""
        return -self

    def remainder(self, other: ArrayLike) -> Tensor:
        """self % other, with the sign of `other` (Python's and PyTorch's %)."""
        return self % other

    def fmod(self, other: ArrayLike) -> Tensor:
        """C's remainder, self - trunc(self / other) * other: the sign of self (torch.fmod).
        Gradients 1 and -trunc(self / other), as in PyTorch. Floats compose it exactly as
        sign(self) * (|self| % |other|), where % of two non-negative numbers is already C's;
        subtracting other from Python's % instead would round (1e-20 % 3 is 3.0)."""
        a, b = self._operands(other)
        if a.dtype.kind != "f":  # integers have no gradient: numpy's exact fmod
            return Tensor._make(np.fmod(a.data, _integer_divisor("fmod", b).data))
        sign_a = np.where(np.signbit(a.data), -1, 1).astype(a.dtype)  # -0.0 stays -0.0
        sign_b = np.where(np.signbit(b.data), -1, 1).astype(b.dtype)
        return ops.Remainder.apply(a * sign_a, b * sign_b) * sign_a

    def floor_divide(self, other: ArrayLike) -> Tensor:
        """floor(self / other) as Python's // computes it. A step function: its gradient is 0
        (PyTorch raises in backward instead)."""
        a, b = self._operands(other)
        return a._step_function(np.floor_divide(a.data, _integer_divisor("floor_divide", b).data),
                                b)

    # ---- comparisons and logic: bool tensors outside the graph, as in PyTorch ----
    def _compare(self, other: Any, compare: np.ufunc) -> Tensor:
        if not isinstance(other, (Tensor, int, float, np.ndarray, np.generic, list, tuple)):
            return NotImplemented  # e.g. x == None: Python falls back to identity (False)
        try:
            return Tensor._make(np.asarray(compare(*self._promoted_arrays(other))))
        except ValueError:
            raise InvalidArgumentError(f"{compare.__name__}: shapes {self.shape} and "
                                       f"{np.shape(other)} do not broadcast together") from None

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare(other, np.equal)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare(other, np.not_equal)

    def __lt__(self, other: Any) -> Tensor:
        return self._compare(other, np.less)

    def __le__(self, other: Any) -> Tensor:
        return self._compare(other, np.less_equal)

    def __gt__(self, other: Any) -> Tensor:
        return self._compare(other, np.greater)

    def __ge__(self, other: Any) -> Tensor:
        return self._compare(other, np.greater_equal)

    # == compares entries, so hashing cannot follow it: a tensor hashes by identity (as in
    # PyTorch) and stays usable as a dict key and in sets
    __hash__ = object.__hash__

    def eq(self, other: ArrayLike) -> Tensor:
        return self == other

    def ne(self, other: ArrayLike) -> Tensor:
        return self != other

    def lt(self, other: ArrayLike) -> Tensor:
        return self < other

    def le(self, other: ArrayLike) -> Tensor:
        return self <= other

    def gt(self, other: ArrayLike) -> Tensor:
        return self > other

    def ge(self, other: ArrayLike) -> Tensor:
        return self >= other

    # PyTorch's longer names for the comparisons and arithmetic above
    def greater(self, other: ArrayLike) -> Tensor:
        """Alias of gt."""
        return self > other

    def greater_equal(self, other: ArrayLike) -> Tensor:
        """Alias of ge."""
        return self >= other

    def less(self, other: ArrayLike) -> Tensor:
        """Alias of lt."""
        return self < other

    def less_equal(self, other: ArrayLike) -> Tensor:
        """Alias of le."""
        return self <= other

    def not_equal(self, other: ArrayLike) -> Tensor:
        """Alias of ne."""
        return self != other

    def multiply(self, other: ArrayLike) -> Tensor:
        """Alias of mul."""
        return self * other

    def subtract(self, other: ArrayLike, *, alpha: float = 1) -> Tensor:
        """Alias of sub."""
        return self.sub(other, alpha=alpha)

    def divide(self, other: ArrayLike, *, rounding_mode: str | None = None) -> Tensor:
        """Alias of div."""
        return self.div(other, rounding_mode=rounding_mode)

    def true_divide(self, other: ArrayLike) -> Tensor:
        """Alias of div without a rounding mode."""
        return self / other

    def allclose(self, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
                 equal_nan: bool = False) -> bool:
        """Whether |self - other| <= atol + rtol |other| everywhere (the shapes broadcast)."""
        return bool(self.isclose(other, rtol, atol, equal_nan).all())

    def equal(self, other: Tensor) -> bool:
        """Whether the two tensors have one shape and equal entries."""
        return self.shape == other.shape and bool((self == other).all())

    def __bool__(self) -> bool:
        """The truth of a one-element tensor. Others raise, as in PyTorch: with elementwise ==,
        `if x == y` must say `.all()` or `.any()`."""
        if self.data.size != 1:
            amount = "no values" if self.data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self.data.item())

    def __contains__(self, element: Any) -> bool:
        """`element in x`: whether some entry equals `element` (PyTorch's meaning)."""
        if not isinstance(element, (Tensor, int, float, np.generic)):
            raise InvalidTypeError(f"Tensor.__contains__ supports a tensor or a number, got "
                                   f"{type(element).__name__}")
        return bool(np.any(self.data == _as_array(element)))

    def _bitwise(self, other: Any, op: np.ufunc, kinds: str = "biu",
                 reflected: bool = False) -> Tensor:
        """`op` on bool tensors (logical) or integer ones (bitwise), as PyTorch's & | ^ ~, in
        their promoted dtype; `kinds` the dtype kinds the op takes (shifts: integers only, as
        PyTorch has no bool shift); `reflected` for `other op self`."""
        a, b = self._promoted_arrays(other)
        if a.dtype.kind not in kinds:
            taken, way_out = (("integer", "convert them first, e.g. x.long()") if kinds == "iu"
                              else ("bool or integer", "compare first, e.g. (x > 0) & (y > 0)"))
            raise InvalidTypeError(f"{op.__name__}: needs {taken} tensors, got dtypes "
                                   f"{self.dtype} and {self._lift(other).dtype}; {way_out}")
        return Tensor._make(np.asarray(op(b, a) if reflected else op(a, b)))

    def __and__(self, other: ArrayLike) -> Tensor:
        return self._bitwise(other, np.bitwise_and)

    __rand__ = __and__

    def __or__(self, other: ArrayLike) -> Tensor:
        return self._bitwise(other, np.bitwise_or)

    __ror__ = __or__

    def __xor__(self, other: ArrayLike) -> Tensor:
        return self._bitwise(other, np.bitwise_xor)

    __rxor__ = __xor__

    def __invert__(self) -> Tensor:
        if self.data.dtype.kind not in "biu":
            raise InvalidTypeError("invert (~): needs a bool or integer tensor, got dtype "
                                   f"{self.dtype}")
        return Tensor._make(np.invert(self.data))

    def __lshift__(self, other: ArrayLike) -> Tensor:
        return self._bitwise(other, np.left_shift, "iu")

    def __rlshift__(self, other: ArrayLike) -> Tensor:
        return self._bitwise(other, np.left_shift, "iu", reflected=True)

    def __rshift__(self, other: ArrayLike) -> Tensor:
        return self._bitwise(other, np.right_shift, "iu")

    def __rrshift__(self, other: ArrayLike) -> Tensor:
        return self._bitwise(other, np.right_shift, "iu", reflected=True)

    def bitwise_and(self, other: ArrayLike) -> Tensor:
        """self & other (bool or integer tensors)."""
        return self & other

    def bitwise_or(self, other: ArrayLike) -> Tensor:
        return self | other

    def bitwise_xor(self, other: ArrayLike) -> Tensor:
        return self ^ other

    def bitwise_not(self) -> Tensor:
        return ~self

    def bitwise_left_shift(self, other: ArrayLike) -> Tensor:
        """self << other (integer tensors)."""
        return self << other

    def bitwise_right_shift(self, other: ArrayLike) -> Tensor:
        """self >> other (integer tensors; arithmetic shift, keeping the sign)."""
        return self >> other

    def gcd(self, other: ArrayLike) -> Tensor:
        """The greatest common divisor of each pair of entries, not negative (integer tensors;
        gcd(0, 0) is 0), as torch.gcd."""
        return self._bitwise(other, np.gcd, "iu")

    def lcm(self, other: ArrayLike) -> Tensor:
        """The least common multiple of each pair of entries, not negative (integer tensors;
        0 where either is 0), as torch.lcm."""
        return self._bitwise(other, np.lcm, "iu")

    def heaviside(self, values: Tensor) -> Tensor:
        """The step function: 0 where self < 0 (and where it is NaN), 1 where self > 0, and
        `values` (broadcast) where self is 0, as torch.heaviside; self and values of one dtype.
        Outside the graph, as PyTorch has no derivative for it."""
        values = self._lift(values)
        if values.dtype != self.dtype:
            raise InvalidTypeError(f"heaviside: self ({self.dtype}) and values "
                                   f"({values.dtype}) must have one dtype")
        _check_broadcast("heaviside", self, values)
        step = np.where(self.data == 0, values.data, self.data > 0).astype(self.dtype)
        return Tensor._make(step)

    def logical_and(self, other: ArrayLike) -> Tensor:
        """Entries that are nonzero in both (any dtypes), as a bool tensor."""
        return Tensor._make(np.asarray(np.logical_and(self.data, _as_array(other))))

    def logical_or(self, other: ArrayLike) -> Tensor:
        return Tensor._make(np.asarray(np.logical_or(self.data, _as_array(other))))

    def logical_xor(self, other: ArrayLike) -> Tensor:
        return Tensor._make(np.asarray(np.logical_xor(self.data, _as_array(other))))

    def logical_not(self) -> Tensor:
        return Tensor._make(np.asarray(np.logical_not(self.data)))

    def isnan(self) -> Tensor:
        return Tensor._make(np.asarray(np.isnan(self.data)))

    def isinf(self) -> Tensor:
        return Tensor._make(np.asarray(np.isinf(self.data)))

    def isfinite(self) -> Tensor:
        return Tensor._make(np.asarray(np.isfinite(self.data)))

    # ---- elementwise ----
    def exp(self) -> Tensor:
        return ops.Exp.apply(self._floating())

    def log(self) -> Tensor:
        return ops.Log.apply(self._floating())

    def sqrt(self) -> Tensor:
        return ops.Sqrt.apply(self._floating())

    def tanh(self) -> Tensor:
        return ops.Tanh.apply(self._floating())

    def sigmoid(self) -> Tensor:
        return ops.Sigmoid.apply(self._floating())

    def abs(self) -> Tensor:
        """|x| = x * sign(x); sign is a constant, so the gradient is sign(x) (0 at x = 0). For
        floats the sign of a zero keeps x's sign bit, so that |-0.0| = -0.0 * -0.0 is +0.0, as
        in PyTorch (1 / |x| is then inf, not -inf)."""
        self._refuse_bool("abs")
        sign = _sign(self.data)
        if sign.dtype.kind == "f":
            sign = np.copysign(sign, self.data)
        return self * sign

    def positive(self) -> Tensor:
        """self itself, as torch.positive (which refuses bools)."""
        if self.dtype == np.bool_:
            raise InvalidTypeError("positive: does not take a bool tensor")
        return self

    def absolute(self) -> Tensor:
        """Alias of abs."""
        return self.abs()

    def __abs__(self) -> Tensor:
        return self.abs()

    def relu(self) -> Tensor:
        self._refuse_bool("relu")
        return self.masked_fill(self.data <= 0, 0.0)  # NaN <= 0 is False: NaN stays NaN

    def masked_fill(self, mask: ArrayLike, value: float | Tensor) -> Tensor:
        """Replace the entries where `mask` is True by `value`, a number or a 0-d tensor (the
        entries' gradient is 0; a tensor value gets theirs). The mask and this tensor broadcast
        together, as in PyTorch (masked_fill_ keeps this tensor's shape)."""
        mask = _bool_mask("masked_fill", mask)
        _mask_broadcast_shape("masked_fill", mask, self.shape)
        if np.ndim(_as_array(value)) != 0:
            raise InvalidArgumentError(f"masked_fill: value must be a number or a 0-d tensor, "
                                       f"got shape {np.shape(_as_array(value))}")
        # the result keeps this tensor's dtype, as in PyTorch: an integer tensor filled with 0.0
        # stays integer
        return ops.Where.apply(self._lift(value).to(self.dtype), self, cond=mask)

    def erf(self) -> Tensor:
        """The error function, 2/sqrt(pi) * integral of exp(-t**2) from 0 to x."""
        return ops.Erf.apply(self._floating())

    def erfc(self) -> Tensor:
        """1 - erf(x), with its digits where it is small (erfc(10) is 2e-45)."""
        return ops.Erfc.apply(self._floating())

    def erfinv(self) -> Tensor:
        """The inverse of erf: the y with erf(y) = x, for x in [-1, 1] (+-inf at +-1, NaN
        outside)."""
        return ops.Erfinv.apply(self._floating())

    def lgamma(self) -> Tensor:
        """log |Gamma(x)|: +inf at the poles 0, -1, -2, ... and at +-inf."""
        return ops.Lgamma.apply(self._floating())

    def digamma(self) -> Tensor:
        """d/dx lgamma(x): -inf at +0, +inf at -0, NaN at the negative integers, as in PyTorch."""
        return ops.Polygamma.apply(self._floating(), n=0)

    def polygamma(self, n: int) -> Tensor:
        """The n-th derivative of digamma (n = 0: digamma itself); at the poles 0, -1, -2, ...
        (-1)**(n + 1) * inf for n >= 1."""
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"polygamma: n must be an int, got {n!r}")
        if n < 0:
            raise InvalidArgumentError(f"polygamma: n must be >= 0, got {n}")
        return ops.Polygamma.apply(self._floating(), n=int(n))

    def mvlgamma(self, p: int) -> Tensor:
        """The log of the multivariate gamma function of dimension p,
        p (p - 1) / 4 * log(pi) + sum over j < p of lgamma(x - j / 2). It is defined for
        x > (p - 1) / 2; below, that sum is returned as it is (inf at lgamma's poles), as
        PyTorch 2.13 does."""
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
            raise TypeError(f"mvlgamma: p must be an int, got {p!r}")
        if p < 1:
            raise InvalidArgumentError(f"mvlgamma: p must be >= 1, got {p}")
        x = self._floating()
        halves = np.arange(p, dtype=x.dtype) / 2
        return (x.unsqueeze(-1) - halves).lgamma().sum(-1) + p * (p - 1) / 4 * math.log(math.pi)

    def i0(self) -> Tensor:
        """The modified Bessel function of the first kind of order 0 (inf from |x| = 709.8 on,
        where exp(|x|) overflows, and NaN at +-inf, as in PyTorch)."""
        return ops.I0.apply(self._floating())

    def sin(self) -> Tensor:
        return ops.Sin.apply(self._floating())

    def cos(self) -> Tensor:
        return ops.Cos.apply(self._floating())

    def tan(self) -> Tensor:
        return self.sin() / self.cos()

    def log1p(self) -> Tensor:
        """log(1 + x), accurate for small x."""
        return ops.Log1p.apply(self._floating())

    def expm1(self) -> Tensor:
        """exp(x) - 1, accurate for small x."""
        return ops.Expm1.apply(self._floating())

    def log2(self) -> Tensor:
        return self.log() / math.log(2)

    def log10(self) -> Tensor:
        return self.log() / math.log(10)

    def exp2(self) -> Tensor:
        """2 ** x (numpy's power, exact for integer x, rather than exp(x * log 2))."""
        x = self._floating()
        return x._lift(2) ** x

    def rsqrt(self) -> Tensor:
        """1 / sqrt(x)."""
        return self.sqrt().reciprocal()

    def reciprocal(self) -> Tensor:
        """1 / x, as x ** -1: inf at 0 without numpy's warning (Pow is quiet, Div is not)."""
        return self._floating() ** -1.0

    def square(self) -> Tensor:
        """self * self; a bool tensor gives int64, as in PyTorch."""
        x = self.long() if self.dtype == np.bool_ else self
        return x * x

    def _step_function(self, values: np.ndarray, *others: Tensor) -> Tensor:
        """`values`, a step function of this tensor (and of `others`): its floor, sign, ... As
        in PyTorch it stays connected to them with gradient 0, so that backward through it works
        and gives zeros: Where(cond=True) passes the values on and routes no gradient back."""
        out = Tensor._make(values)
        for tensor in (self, *others):
            out = ops.Where.apply(out, tensor, cond=np.True_)
        return out

    def _rounded(self, op: str, rounding: Any) -> Tensor:
        """`rounding(data)` with gradient 0; integers are already whole and are copied (bools
        raise, as in PyTorch)."""
        self._refuse_bool(op)
        if self.data.dtype.kind != "f":
            return Tensor._make(self.data.copy())
        return self._step_function(rounding(self.data))

    def floor(self) -> Tensor:
        """Round down. Gradient 0, as in PyTorch."""
        return self._rounded("floor", np.floor)

    def ceil(self) -> Tensor:
        """Round up. Gradient 0."""
        return self._rounded("ceil", np.ceil)

    def trunc(self) -> Tensor:
        """Round toward 0. Gradient 0."""
        return self._rounded("trunc", np.trunc)

    def fix(self) -> Tensor:
        """Alias of trunc."""
        return self.trunc()

    def frexp(self) -> Frexp:
        """(mantissa, exponent) with self = mantissa * 2 ** exponent, |mantissa| in [0.5, 1)
        (0, inf and NaN are their own mantissa, with exponent 0), as torch.frexp: floats only,
        the exponent int32. The mantissa is self times constant powers of 2, so its gradient is
        2 ** -exponent, PyTorch's."""
        self._require_floating("frexp")
        exponent = np.frexp(self.data)[1]
        # scaled in two halves: 2 ** -exponent alone overflows float32 for subnormal entries
        half = exponent // 2
        mantissa = self * np.exp2(-half).astype(self.dtype) \
            * np.exp2(half - exponent).astype(self.dtype)
        return Frexp(mantissa, Tensor._make(exponent.astype(np.int32)))

    def ldexp(self, other: Tensor) -> Tensor:
        """self * 2 ** other, in a float dtype (integers give the default float), as
        torch.ldexp; differentiable in both."""
        if not isinstance(other, Tensor):
            raise TypeError(f"ldexp(): argument 'other' must be Tensor, not "
                            f"{type(other).__name__}")
        a, b = self._float_operands(other)  # float16 * 2**int8 stays float16, as in PyTorch
        return a * b.exp2()

    def round(self, decimals: int = 0) -> Tensor:
        """Round to `decimals` decimal places, halves to even (as PyTorch). Gradient 0."""
        return self._rounded("round", lambda data: np.round(data, decimals))

    def sign(self) -> Tensor:
        """-1, 0 or 1 by the sign of each entry (0 for NaN, as PyTorch's). Gradient 0."""
        if self.data.dtype.kind == "b":  # False and True are their own signs, as in PyTorch
            return Tensor._make(self.data.copy())
        if self.data.dtype.kind != "f":
            return Tensor._make(np.sign(self.data))
        return self._step_function(_sign(self.data))

    def sgn(self) -> Tensor:
        """sign, which it is for real tensors (PyTorch's sgn differs for complex ones only)."""
        return self.sign()

    def igamma(self, other: ArrayLike) -> Tensor:
        """P(self, other) = gamma(self, other) / Gamma(self), the regularized lower incomplete
        gamma function (torch.igamma, special.gammainc). Integer and bool operands raise
        NotImplementedError, as PyTorch's; `other` may require grad, self may not."""
        return self._incomplete_gamma(other, upper=False)

    def igammac(self, other: ArrayLike) -> Tensor:
        """Q(self, other) = 1 - P(self, other), the regularized upper incomplete gamma function
        (torch.igammac, special.gammaincc), computed directly: its small values keep their
        digits."""
        return self._incomplete_gamma(other, upper=True)

    def _incomplete_gamma(self, other: ArrayLike, upper: bool) -> Tensor:
        a, x = self._operands(other)
        if a.dtype.kind != "f":
            raise NotImplementedError(f"{'igammac' if upper else 'igamma'}: not implemented for "
                                      f"{a.dtype} operands, as in PyTorch; convert them to a "
                                      f"float dtype")
        return ops.Igamma.apply(a, x, upper=upper)

    def angle(self) -> Tensor:
        """Each entry's argument as a complex number, as torch.angle: pi where it is negative,
        0 elsewhere (-0.0 included), NaN for NaN; integers give the default float. Gradient 0."""
        x = self._floating()
        values = np.where(x.data < 0, np.pi, np.where(np.isnan(x.data), np.nan, 0))
        return x._step_function(values.astype(x.dtype))

    def maximum(self, other: ArrayLike) -> Tensor:
        """The larger of self and other, entry by entry, in their promoted dtype (PyTorch's);
        NaN where either is NaN. At a tie each side gets half the gradient, as in PyTorch (at a
        tie of infinities other gets it all)."""
        return self._larger_or_smaller("maximum", other, np.greater)

    def minimum(self, other: ArrayLike) -> Tensor:
        """The smaller of self and other, entry by entry: as maximum."""
        return self._larger_or_smaller("minimum", other, np.less)

    def _larger_or_smaller(self, op: str, other: ArrayLike, wins: np.ufunc) -> Tensor:
        a, b = self._operands(other)
        _check_broadcast(op, a, b)
        x, y = a.data, b.data
        chosen = ops.Where.apply(a, b, cond=wins(x, y) | _nan(x))  # a tie picks b
        if chosen.dtype.kind != "f":
            return chosen  # integers and bools: exact, and no gradient to share
        # at a tie add (a - b) / 2: it is 0, so the value stays exact, and it moves half of b's
        # gradient to a (not at infinite ties, where inf - inf would be NaN)
        tie, zero = (x == y) & np.isfinite(x), a._lift(0)
        at_ties = ops.Where.apply(a, zero, cond=tie) - ops.Where.apply(b, zero, cond=tie)
        return chosen + at_ties * 0.5

    def clamp(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
        """Entries limited to [min, max] (tensors or numbers; either may be None), in the
        promoted dtype of all three (an integer tensor clamped to 0.5 is float, as in PyTorch).
        The gradient passes where min <= x <= max, and goes to min or max where they were
        taken. Where min > max the result is max, as in PyTorch."""
        if min is None and max is None:
            raise InvalidArgumentError("clamp: give min, max or both")
        dtype = _result_dtype(*map(_operand, (self, min, max)))
        x = out = self.to(dtype)
        nan = _nan(x.data)
        if min is not None:
            low = x._lift(min).to(dtype)
            _check_broadcast("clamp", x, low)
            out = ops.Where.apply(low, out, cond=x.data < low.data)
            nan = nan | _nan(low.data)
        if max is not None:
            high = x._lift(max).to(dtype)
            _check_broadcast("clamp", out, high)
            out = ops.Where.apply(high, out, cond=out.data > high.data)
            nan = nan | _nan(high.data)
        if nan.any():  # a NaN entry or bound gives NaN, with gradient 0 to all three, as in
            # PyTorch (its comparisons with NaN are False, so NaN is in no range)
            out = ops.Where.apply(x._lift(math.nan), out, cond=nan)
        return out

    def clip(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
        """Alias of clamp."""
        return self.clamp(min, max)

    def clamp_min(self, min: ArrayLike) -> Tensor:
        return self.clamp(min=min)

    def clamp_max(self, max: ArrayLike) -> Tensor:
        return self.clamp(max=max)

    def lerp(self, end: ArrayLike, weight: ArrayLike) -> Tensor:
        """self + weight * (end - self). As PyTorch, weights from 0.5 up compute
        end - (end - self) * (1 - weight), so that weight 1 gives `end` exactly. Floats only,
        as in PyTorch."""
        self._require_floating("lerp")
        end, weight = self._lift(end), self._lift(weight)
        difference = end - self
        from_start = self + weight * difference
        from_end = end - difference * (1 - weight)
        return ops.Where.apply(from_start, from_end, cond=np.abs(weight.data) < 0.5)

    def addcmul(self, tensor1: ArrayLike, tensor2: ArrayLike, *, value: float = 1) -> Tensor:
        """self + value * tensor1 * tensor2."""
        return self + self._lift(tensor1) * tensor2 * value

    def addcdiv(self, tensor1: ArrayLike, tensor2: ArrayLike, *, value: float = 1) -> Tensor:
        """self + value * tensor1 / tensor2; two integer (or bool) tensors are refused, as
        PyTorch refuses integer division in addcdiv."""
        tensor1, tensor2 = self._lift(tensor1), self._lift(tensor2)
        if not (tensor1.is_floating_point() or tensor2.is_floating_point()):
            raise InvalidTypeError(f"addcdiv: tensor1 and tensor2 are both of integer dtypes "
                                   f"({tensor1.dtype}, {tensor2.dtype}), whose division "
                                   f"PyTorch no longer supports; convert one to float first")
        return self + tensor1 / tensor2 * value

    def frac(self) -> Tensor:
        """The fractional part, x - trunc(x), with the sign of x (gradient 1); floats only, as
        in PyTorch."""
        self._require_floating("frac")
        return self - self.trunc()

    def _require_floating(self, op: str) -> None:
        """PyTorch's refusal of integer and bool tensors for ops defined on floats only (frac,
        var, softmax, ...), rather than numpy's silent conversion."""
        if not self.is_floating_point():
            raise InvalidTypeError(f"{op}: expects a floating-point tensor, got {self.dtype}; "
                                   "convert it with .float() first")

    def where(self, condition: ArrayLike, other: ArrayLike) -> Tensor:
        """This tensor where `condition` is True, else `other`: minigrad.where(condition, self,
        other)."""
        return where(condition, self, other)

    # ---- inverse trigonometric and hyperbolic functions: compositions of Atan2, Exp, Log1p ----
    def atan2(self, other: ArrayLike) -> Tensor:
        """The angle of the point (other, self), in (-pi, pi]: atan(self / other) with the
        quadrant taken from both signs."""
        return ops.Atan2.apply(*self._float_operands(other))

    def atan(self) -> Tensor:
        x = self._floating()
        return x.atan2(x._lift(1))

    def asin(self) -> Tensor:
        """atan2(x, sqrt(1 - x**2)), with sqrt(1 - x**2) as sqrt(1 - x) sqrt(1 + x): exact near
        |x| = 1, and the gradient there is +inf (as in PyTorch), not inf * 0. NaN outside
        [-1, 1]."""
        x = self._floating()
        return x.atan2(_cathetus(x))

    def acos(self) -> Tensor:
        """atan2(sqrt(1 - x**2), x): accurate also where the result is near 0 or pi."""
        x = self._floating()
        return _cathetus(x).atan2(x)

    def sinh(self) -> Tensor:
        """(exp(x) - exp(-x)) / 2, as (expm1(x) - expm1(-x)) / 2, which does not cancel near 0."""
        x = self._floating()
        return (x.expm1() - (-x).expm1()) * 0.5

    def cosh(self) -> Tensor:
        x = self._floating()
        return (x.exp() + (-x).exp()) * 0.5

    def asinh(self) -> Tensor:
        """log(x + sqrt(x**2 + 1)), odd; for t = |x| computed as
        log1p(t + t**2 / (1 + sqrt(1 + t**2))), which keeps small t's digits, and as
        log(2t) from 2**28 on, where t**2 + 1 is t**2 to the precision and t**2 could overflow."""
        return _odd(self._floating(), lambda t: _ordinary_or_huge(
            t, lambda t: (t + t * t / (1 + (1 + t * t).sqrt())).log1p(),
            lambda t: t.log() + math.log(2)))

    def acosh(self) -> Tensor:
        """log(x + sqrt(x**2 - 1)) for x >= 1: log1p(y + sqrt(y) sqrt(y + 2)) with y = x - 1,
        exact near 1 (where the gradient is inf); log(2x) from 2**28 on, as in asinh. NaN below
        1, with PyTorch's gradient there, the formula's 1/sqrt(x**2 - 1): finite below -1,
        where it is computed as the slope of -acosh(-x) (no cancellation)."""
        x = self._floating()

        def from_one(x: Tensor) -> Tensor:  # acosh on x >= 0 (NaN on [0, 1))
            return _ordinary_or_huge(
                x, lambda x: ((x - 1) + (x - 1).sqrt() * (x + 1).sqrt()).log1p(),
                lambda x: x.log() + math.log(2))

        negative = x.data < 0
        mirrored = -from_one(-x.masked_fill(~negative, -2.0))
        outside = Tensor._make(np.where(x.data < 1, np.nan, 0).astype(x.dtype))
        return ops.Where.apply(mirrored, from_one(x.masked_fill(negative, 2.0)),
                               cond=negative) + outside

    def atanh(self) -> Tensor:
        """log((1 + x) / (1 - x)) / 2, as (log1p(x) - log1p(-x)) / 2: exact near 0 and near
        +-1 (where it is +-inf, with gradient inf), NaN outside [-1, 1], as in PyTorch."""
        x = self._floating()
        return (x.log1p() - (-x).log1p()) * 0.5

    # ---- more of PyTorch's pointwise functions of two tensors ----
    # numpy's names, which PyTorch has too
    def arcsin(self) -> Tensor:
        """Alias of asin."""
        return self.asin()

    def arccos(self) -> Tensor:
        """Alias of acos."""
        return self.acos()

    def arctan(self) -> Tensor:
        """Alias of atan."""
        return self.atan()

    def arctan2(self, other: ArrayLike) -> Tensor:
        """Alias of atan2."""
        return self.atan2(other)

    def arcsinh(self) -> Tensor:
        """Alias of asinh."""
        return self.asinh()

    def arccosh(self) -> Tensor:
        """Alias of acosh."""
        return self.acosh()

    def arctanh(self) -> Tensor:
        """Alias of atanh."""
        return self.atanh()

    def copysign(self, other: ArrayLike) -> Tensor:
        """|self| with the sign of other (its sign bit: -0.0 counts as negative). As in
        PyTorch the gradient is +-1 for self (0 where self is 0) and 0 for other."""
        a, b = self._float_operands(other)
        _check_broadcast("copysign", a, b)
        flip = np.signbit(a.data) != np.signbit(b.data)
        moved = a * np.where(flip, -1, 1).astype(a.dtype)  # exact: a times +-1
        exact = Tensor._make(np.copysign(a.data, b.data))  # zeros with the right sign
        out = ops.Where.apply(exact, moved, cond=a.data == 0)
        return ops.Where.apply(out, b, cond=np.True_)  # other in the graph, with gradient 0

    def nextafter(self, other: ArrayLike) -> Tensor:
        """The next float after self towards other (other itself where they are equal), as
        torch.nextafter; floats only. The gradient is PyTorch's, 1 for self where it differs
        from other and 0 elsewhere (0 for other): there self plus the step to the result, a
        constant (the sum is exact: the step is one ulp); elsewhere, and where the sum does not
        land on the result (self infinite; see docs/api.md), the result as a constant."""
        a, b = self._operands(other)
        _check_broadcast("nextafter", a, b)
        a._require_floating("nextafter")
        values = np.nextafter(a.data, b.data)
        finite = np.isfinite(a.data)
        step = np.subtract(values, a.data, out=np.zeros_like(values), where=finite)
        out = a + step
        landed = ((out.data == values) & (np.signbit(out.data) == np.signbit(values))
                  | np.isnan(out.data) & np.isnan(values))
        out = ops.Where.apply(out, Tensor._make(values), cond=landed & (a.data != b.data))
        return ops.Where.apply(out, b, cond=np.True_)  # other in the graph, with gradient 0

    def logaddexp(self, other: ArrayLike) -> Tensor:
        """log(exp(self) + exp(other)), computed stably as max + log1p(exp(-|self - other|)),
        whose gradients are PyTorch's, sigmoid(self - other) and sigmoid(other - self), also
        where one of the two is infinite."""
        return self._log_of_sum(other, Tensor.exp, Tensor.log1p)

    def logaddexp2(self, other: ArrayLike) -> Tensor:
        """log2(2**self + 2**other), computed stably as logaddexp is; floats only, as in
        PyTorch."""
        self._require_floating("logaddexp2")
        return self._log_of_sum(other, Tensor.exp2, lambda x: x.log1p() / math.log(2))

    def _log_of_sum(self, other: ArrayLike, power: Callable[[Tensor], Tensor],
                    log1p: Callable[[Tensor], Tensor]) -> Tensor:
        a, b = self._operands(other)
        _check_broadcast("logaddexp", a, b)
        a, b = a._floating(), b._floating()
        rest = log1p(power(-(a - b).abs()))
        # where both are the same infinity a - b is NaN: the sum's log is the max alone, and
        # the gradient stays NaN there, as in PyTorch
        same_infinity = (a.data == b.data) & np.isinf(a.data)
        return a.maximum(b) + rest.masked_fill(same_infinity, 0.0)

    def hypot(self, other: ArrayLike) -> Tensor:
        """sqrt(self**2 + other**2), without overflow or underflow: both are divided by the
        larger magnitude m (a constant) first, m * sqrt((self/m)**2 + (other/m)**2). Floats
        (an integer tensor with a float one is promoted, as in PyTorch; two integer tensors
        are refused); at (0, 0) the gradient is NaN, as in PyTorch; inf where either is
        infinite, even if the other is NaN (C's hypot, and PyTorch's)."""
        a, b = self._operands(other)
        a._require_floating("hypot")
        larger = np.maximum(np.abs(a.data), np.abs(b.data))
        scale = np.where(np.isfinite(larger) & (larger > 0), larger, 1).astype(a.dtype)
        out = ((a / scale).square() + (b / scale).square()).sqrt() * scale
        return out.masked_fill(np.isinf(a.data) | np.isinf(b.data), math.inf)

    def xlogy(self, other: ArrayLike) -> Tensor:
        """self * log(other), and 0 where self is 0 unless other is NaN, as torch.xlogy. There
        the gradient of self is log(other) where other > 0 and 0 elsewhere, and that of other
        is 0 (PyTorch's self / other, which is NaN at other = 0)."""
        return self._times_log_of(other, Tensor.log, pole=0.0)

    def _times_log_of(self, other: ArrayLike, log: Callable[[Tensor], Tensor],
                      pole: float) -> Tensor:
        """self * log(other) for xlogy (log, whose argument's pole is 0) and xlog1py (log1p,
        pole -1): where self is 0 and log(other) is -inf, inf or NaN outside its domain (other
        at or below the pole, or +inf), other is replaced by pole + 1, whose log is 0."""
        x, y = self._float_operands(other)
        zero_times_undefined = (x.data == 0) & ((y.data <= pole) | (y.data == math.inf))
        return x * log(where(zero_times_undefined, pole + 1, y))

    def logit(self, eps: float | None = None) -> Tensor:
        """log(p / (1 - p)), as log(p) - log1p(-p); with `eps`, p below eps is replaced by eps
        and above 1 - eps by 1 - eps first (gradient 0 there; eps wins where both hold). -inf
        at 0, inf at 1, NaN outside [0, 1], with gradient NaN there and at NaN, as in PyTorch."""
        p = self._floating()
        if eps is not None:
            # not clamp, whose gradient at NaN is 0: PyTorch's logit keeps NaN's NaN
            below, above = p.data < eps, p.data > 1 - eps
            p = p.masked_fill(above, 1 - eps).masked_fill(below, eps)
        else:
            # the formula's slope outside [0, 1] is finite, PyTorch's NaN: a factor NaN there
            # (1 inside) makes the gradient NaN and leaves the values as they are
            outside = (p.data < 0) | (p.data > 1)
            if outside.any():
                p = p * Tensor._make(np.where(outside, np.nan, 1).astype(p.dtype))
        return p.log() - (-p).log1p()

    def nan_to_num(self, nan: float = 0.0, posinf: float | None = None,
                   neginf: float | None = None) -> Tensor:
        """NaN, +inf and -inf replaced by `nan`, `posinf` and `neginf` (by default 0, and the
        largest and the lowest finite value of the dtype); those entries get gradient 0.
        Integers and bools are returned as a copy, as in PyTorch."""
        if self.dtype.kind != "f":
            return self.clone()
        finfo = np.finfo(self.dtype)
        posinf = finfo.max if posinf is None else posinf
        neginf = finfo.min if neginf is None else neginf
        data = self.data
        return (self.masked_fill(np.isnan(data), nan).masked_fill(data == math.inf, posinf)
                .masked_fill(data == -math.inf, neginf))

    def deg2rad(self) -> Tensor:
        """Degrees to radians, x * pi / 180 (integers give the default float dtype, as in
        PyTorch)."""
        return self._floating() * (math.pi / 180)

    def rad2deg(self) -> Tensor:
        """Radians to degrees, x * 180 / pi (integers give the default float dtype, as in
        PyTorch)."""
        return self._floating() * (180 / math.pi)

    def fmax(self, other: ArrayLike) -> Tensor:
        """The larger of the two, where a NaN loses to a number (NaN only where both are), as
        torch.fmax; at a tie the gradient goes to self, as PyTorch's."""
        return self._nan_ignoring(other, np.greater_equal)

    def fmin(self, other: ArrayLike) -> Tensor:
        """The smaller of the two, where a NaN loses to a number: as fmax."""
        return self._nan_ignoring(other, np.less_equal)

    def _nan_ignoring(self, other: ArrayLike, keeps_self: np.ufunc) -> Tensor:
        a, b = self._operands(other)
        return ops.Where.apply(a, b, cond=keeps_self(a.data, b.data) | _nan(b.data))

    def sinc(self) -> Tensor:
        """sin(a) / a for a = pi x; near 0 its series 1 - a**2 / 6 (1 at 0, with gradient 0
        there, as in PyTorch), whose gradient keeps its digits where sin(a) / a's, a difference
        of two terms of size 1 / a, cancels them (-inf at x = 1e-300)."""
        with np.errstate(over="ignore"):  # pi x is inf for the largest x: NaN, as in PyTorch
            angle = self._floating() * math.pi
        small = np.abs(angle.data) < np.finfo(angle.dtype).eps ** 0.25  # a**4 / 120 is lost
        safe = angle.masked_fill(small, 1.0)
        near_zero = angle.masked_fill(~small, 0.0)  # a**2 of the others may overflow
        return where(small, 1 - near_zero.square() / 6, safe.sin() / safe)

    def signbit(self) -> Tensor:
        """Whether the sign bit is set (True for -0.0 and negative NaNs too): bool, without
        grad."""
        return Tensor._make(np.signbit(self.data))

    def isposinf(self) -> Tensor:
        """Where the entries are +inf: bool, without grad."""
        return Tensor._make(np.isposinf(self.data))

    def isneginf(self) -> Tensor:
        """Where the entries are -inf: bool, without grad."""
        return Tensor._make(np.isneginf(self.data))

    def dist(self, other: ArrayLike, p: float = 2) -> Tensor:
        """The p-norm of self - other (they broadcast), as torch.dist."""
        return (self - other).norm(p)

    def renorm(self, p: float, dim: int, maxnorm: float) -> Tensor:
        """Each slice along `dim` whose p-norm exceeds maxnorm scaled down to it (by
        maxnorm / (norm + 1e-7), as torch.renorm); the others as they are."""
        if self.ndim < 2:  # PyTorch's refusal: each slice would be a single entry
            raise InvalidArgumentError(f"renorm: needs at least 2 dims, got shape {self.shape}")
        d = _dim("renorm", dim, self.ndim)
        if p <= 0:
            raise InvalidArgumentError(f"renorm: p must be positive, got {p}")
        if maxnorm < 0:
            raise InvalidArgumentError(f"renorm: maxnorm must be non-negative, got {maxnorm}")
        norms = self.norm(p, [i for i in range(self.ndim) if i != d], keepdim=True)
        factor = maxnorm / (norms + 1e-7)
        return self * factor.masked_fill(norms.data <= maxnorm, 1.0)

    def isclose(self, other: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08,
                equal_nan: bool = False) -> Tensor:
        """|self - other| <= atol + rtol * |other|, entry by entry, as a bool tensor without
        grad; equal entries (infinities too) are close, NaN is close to NaN only with
        equal_nan."""
        a, b = self._operands(other)
        _check_broadcast("isclose", a, b)
        x, y = a.data, b.data
        if x.dtype == np.bool_:  # equal or not: numpy has no bool subtraction
            return Tensor._make(np.asarray(x == y))
        with np.errstate(invalid="ignore"):  # inf - inf: those are settled by x == y
            error = np.abs(x - y)
            close = (x == y) | (np.isfinite(error) & (error <= atol + np.abs(rtol * y)))
        if equal_nan and x.dtype.kind == "f":
            close |= np.isnan(x) & np.isnan(y)
        return Tensor._make(np.asarray(close))

    # ---- reductions ----
    # `dim` is an int or a tuple of ints (None: every dim; a 0-d tensor takes 0 or -1), as in
    # PyTorch; numpy's `axis=`/`keepdims=` work too.
    # `dtype=`, as in PyTorch, converts the tensor to that dtype before reducing.
    def sum(self, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None,
            axis: Dim = None, keepdims: bool | None = None) -> Tensor:
        dims = _reduced_dims("sum", dim, axis, self.ndim)
        if dtype is not None:  # numpy sums small integers in int64; PyTorch keeps dtype
            return ops.Sum.apply(self.to(dtype), axis=dims, keepdims=keepdims or keepdim
                                 ).to(dtype)
        # in int64, as in PyTorch: numpy sums unsigned integers in uint64
        return ops.Sum.apply(_accumulating(self), axis=dims, keepdims=keepdims or keepdim)

    def mean(self, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None,
             axis: Dim = None, keepdims: bool | None = None) -> Tensor:
        if dtype is not None and np.dtype(dtype).kind != "f":  # a mean is not an integer
            raise InvalidTypeError(f"mean: dtype must be a floating-point dtype, got "
                                   f"{np.dtype(dtype)}")
        dims = _reduced_dims("mean", dim, axis, self.ndim)
        count = math.prod(self.shape[d] for d in dims)  # entries averaged into each output
        return self.sum(dims, keepdims or keepdim, dtype=dtype) / count

    def max(self, dim: int | Tensor | None = None, keepdim: bool = False, *,
            axis: int | None = None, keepdims: bool | None = None) -> Tensor | ValuesIndices:
        """The largest entry, a 0-d tensor (tied maxima share its gradient equally); or, given
        an int `dim`, the largest entries along it and their indices, (values, indices), with
        the gradient going to those indices, as in PyTorch. amax reduces several dims. Given a
        tensor instead of a dim, maximum(self, it), as PyTorch's torch.max(input, other)."""
        if isinstance(dim, Tensor):
            self._check_no_keepdim("max", keepdim, axis, keepdims)
            return self.maximum(dim)
        return self._extreme("max", ops.Max, np.argmax, _dims(dim, axis), keepdims or keepdim)

    def min(self, dim: int | Tensor | None = None, keepdim: bool = False, *,
            axis: int | None = None, keepdims: bool | None = None) -> Tensor | ValuesIndices:
        """The smallest entry, or (values, indices) along an int `dim`, or minimum(self, a
        tensor): as max."""
        if isinstance(dim, Tensor):
            self._check_no_keepdim("min", keepdim, axis, keepdims)
            return self.minimum(dim)
        return self._extreme("min", ops.Min, np.argmin, _dims(dim, axis), keepdims or keepdim)

    @staticmethod
    def _check_no_keepdim(op: str, *reduction_arguments: Any) -> None:
        """max(other) and min(other) compare two tensors: a reduction's arguments mean
        nothing there (PyTorch raises TypeError rather than ignore them)."""
        if any(reduction_arguments):
            raise TypeError(f"{op}(other): compares two tensors, and takes no keepdim or axis")

    def _extreme(self, op: str, primitive: type[engine.Function], arg: Callable, dim: Any,
                 keepdim: bool) -> Tensor | ValuesIndices:
        if dim is None:
            self._check_extreme_exists(op, tuple(range(self.ndim)), dim)
            return primitive.apply(self, keepdims=keepdim)
        if not isinstance(dim, (int, np.integer)):
            raise TypeError(f"{op}: dim must be an int or a tensor to compare with, got "
                            f"{type(dim).__name__} {dim!r} (amax and amin reduce several dims "
                            f"at once)")
        indices = self._arg_extreme(op, arg, dim, keepdim=True)
        return self._picked(dim, indices.data, keepdim)

    def _picked(self, dim: int, indices: np.ndarray, keepdim: bool) -> ValuesIndices:
        """The entries at `indices` (one per slice, dim kept with size 1) along `dim`, and those
        indices, as max(dim) returns them; the gradient goes to the entries picked."""
        values, indices = self.gather(dim, indices), Tensor._make(indices)
        if keepdim:
            return ValuesIndices(values, indices)
        return ValuesIndices(values.squeeze(dim), indices.squeeze(dim))

    def amax(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
             keepdims: bool | None = None) -> Tensor:
        """The largest entries over `dim` (tied maxima share the gradient equally)."""
        dims = _reduced_dims("amax", dim, axis, self.ndim)
        self._check_extreme_exists("amax", dims, _dims(dim, axis))
        return ops.Max.apply(self, axis=dims, keepdims=keepdims or keepdim)

    def amin(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
             keepdims: bool | None = None) -> Tensor:
        """The smallest entries over `dim` (tied minima share the gradient equally)."""
        dims = _reduced_dims("amin", dim, axis, self.ndim)
        self._check_extreme_exists("amin", dims, _dims(dim, axis))
        return ops.Min.apply(self, axis=dims, keepdims=keepdims or keepdim)

    def _check_extreme_exists(self, op: str, dims: tuple[int, ...], dim: Dim) -> None:
        """The max or min over an empty dim does not exist (other dims may be empty, as in
        PyTorch, which raises IndexError when the dim is named, else RuntimeError: `dim` is
        the argument given, None or () for every dim)."""
        if any(self.shape[d] == 0 for d in dims):
            every_dim = dim is None or (isinstance(dim, (tuple, list)) and not dim)
            error = InvalidArgumentError if every_dim else IndexError
            raise error(f"{op}: cannot take the {op[-3:]} over an empty dim of a tensor of "
                        f"shape {self.shape}")

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Where the largest entry is along `dim` (the first one among ties), or in the
        flattened tensor when dim is None: an int64 tensor, without grad. Bools count as 0 and
        1 (PyTorch has no bool kernel for it)."""
        return self._arg_extreme("argmax", np.argmax, dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Where the smallest entry is: as argmax."""
        return self._arg_extreme("argmin", np.argmin, dim, keepdim)

    def _refuse_bool(self, op: str) -> None:
        """PyTorch's refusal of bool tensors where rounding or arithmetic means little (relu,
        floor, a bool to a bool power, ...)."""
        if self.dtype == np.bool_:
            raise InvalidTypeError(f"{op}: does not take a bool tensor; convert it with .long()")

    def _arg_extreme(self, op: str, arg: Callable, dim: int | None, keepdim: bool) -> Tensor:
        if dim is None:
            data, axis = self.data.reshape(-1), 0
            shape = (1,) * self.ndim if keepdim else ()
        else:
            data, axis = self.data.reshape(self.shape or (1,)), _dim(op, dim, self.ndim)
            shape = tuple(1 if d == axis else n for d, n in enumerate(self.shape)
                          if keepdim or d != axis)
        if data.shape[axis] == 0:
            raise IndexError(f"{op}: the dim searched is empty (tensor of shape {self.shape})")
        return Tensor._make(arg(data, axis=axis).astype(np.int64).reshape(shape))

    def prod(self, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None,
             axis: Dim = None, keepdims: bool | None = None) -> Tensor:
        """The product of the entries over `dim`, as a tree of multiplications: the first half
        times the second, until one entry is left (log2(n) Mul ops). Each entry's gradient,
        the product of all the others, is then exact also where entries are 0 (dividing the
        product by the entry would give NaN there)."""
        if dtype is not None:  # integers multiply in int64 (`_accumulating`), then dtype
            return self.to(dtype).prod(dim, keepdim, axis=axis, keepdims=keepdims).to(dtype)
        dims = _reduced_dims("prod", dim, axis, self.ndim)
        kept = [d for d in range(self.ndim) if d not in dims]
        kept_shape = [self.shape[d] for d in kept]
        count = math.prod(self.shape[d] for d in dims)
        x = _accumulating(self).permute(kept + list(dims)).reshape(*kept_shape, count)
        one = Tensor._make(np.ones((*kept_shape, 1), dtype=x.dtype))
        if count == 0:  # the product of nothing, 1, kept in x's graph (as PyTorch's)
            x = ops.Concat.apply(x, one, axis=-1)
        while x.shape[-1] > 1:
            if x.shape[-1] % 2 == 1:  # a factor 1 to pair the last entry with
                x = ops.Concat.apply(x, one, axis=-1)
            half = x.shape[-1] // 2
            x = x[..., :half] * x[..., half:]
        if keepdims or keepdim:
            return x.reshape([1 if d in dims else n for d, n in enumerate(self.shape)])
        return x.reshape(kept_shape)

    def var(self, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False, *,
            correction: float | None = None, axis: Dim = None,
            keepdims: bool | None = None) -> Tensor:
        """The variance over `dim`, sum((x - mean)**2) / (N - correction): correction=1
        (Bessel's, the default, as in PyTorch) or 0 (the population variance); unbiased=True
        or False is PyTorch's older spelling of 1 or 0."""
        mean_square, scale = self._scaled_variance("var", dim, unbiased, keepdims or keepdim,
                                                   correction, axis)
        return mean_square * scale * scale

    def std(self, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False, *,
            correction: float | None = None, axis: Dim = None,
            keepdims: bool | None = None) -> Tensor:
        """sqrt(var), with var's arguments; where the variance is 0 the gradient is 0, as in
        PyTorch."""
        mean_square, scale = self._scaled_variance("std", dim, unbiased, keepdims or keepdim,
                                                   correction, axis)
        return _zero_at_zero(mean_square, Tensor.sqrt) * scale

    def _scaled_variance(self, op: str, dim: Any, unbiased: bool | None, keepdim: bool,
                         correction: float | None, axis: Dim) -> tuple[Tensor, np.ndarray]:
        """(var / scale**2, scale), for `scale` a power of two near sqrt(m), m the largest
        |x - mean| over `dim` (a constant). Squared unscaled, x - mean overflows float32 from
        about 1.8e19 (and underflows below 1e-19) where the variance and the std need not
        (PyTorch accumulates in float64). With scale ~ sqrt(m) the squares stay below 4m and
        the gradients on the way back below about m**1.5; scale ~ m would send back
        scale**2 ~ m**2 to var / scale**2. A power of two keeps the scaling exact: the values
        and gradients are those of the plain formula wherever it does not overflow."""
        self._require_floating(op)
        dim, unbiased = _older_unbiased_form(dim, unbiased)
        if unbiased is not None and correction is not None:
            raise TypeError(f"{op}: give correction= or unbiased=, not both")
        if correction is None:
            correction = 0 if unbiased is False else 1
        dims = _reduced_dims(op, dim, axis, self.ndim)
        count = math.prod(self.shape[d] for d in dims)
        centered = self - self.mean(dims, keepdim=True)
        largest = np.abs(centered.data).max(axis=dims, keepdims=True, initial=0)
        # 2**(e // 2) for largest = m 2**e, 0.5 <= m < 1; 1 where largest is 0, inf or NaN
        scale = np.ldexp(np.ones_like(largest), np.frexp(largest)[1] // 2)
        scaled = centered / scale
        # no degrees of freedom left gives inf or NaN, with numpy's warning, as in PyTorch
        mean_square = (scaled * scaled).sum(dims, keepdim) / max(count - correction, 0)
        return mean_square, scale if keepdim else scale.squeeze(dims)

    def any(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
            keepdims: bool | None = None) -> Tensor:
        """True where some entry over `dim` is nonzero: a bool tensor (uint8 for a uint8 one, as
        in PyTorch), without grad."""
        dims = _reduced_dims("any", dim, axis, self.ndim)
        return self._truth(self.data.any(axis=dims, keepdims=keepdims or keepdim))

    def all(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
            keepdims: bool | None = None) -> Tensor:
        """True where every entry over `dim` is nonzero: as any."""
        dims = _reduced_dims("all", dim, axis, self.ndim)
        return self._truth(self.data.all(axis=dims, keepdims=keepdims or keepdim))

    def _truth(self, flags: np.ndarray | np.bool_) -> Tensor:
        """any's and all's result: bool, or uint8 for a uint8 tensor (PyTorch's older masks)."""
        return Tensor._make(np.asarray(flags, dtype=np.uint8 if self.dtype == np.uint8 else bool))

    def count_nonzero(self, dim: Dim = None) -> Tensor:
        """How many entries over `dim` (every dim by default) are nonzero: int64, without grad."""
        dims = _reduced_dims("count_nonzero", dim, None, self.ndim)
        return Tensor._make(np.asarray(np.count_nonzero(self.data, axis=dims), dtype=np.int64))

    def bincount(self, weights: ArrayLike | None = None, minlength: int = 0) -> Tensor:
        """How often each of 0, 1, ..., max occurs in this 1-D tensor of non-negative integers
        (at least `minlength` counts), as torch.bincount: int64; with `weights` (one per entry),
        the sum of the weights at each value instead (in their float dtype, float64 for
        integer weights). Without grad."""
        if self.dtype.kind not in "iu":
            raise InvalidTypeError(f"bincount: needs an integer tensor, got {self.dtype}")
        if self.ndim != 1 or (self.data < 0).any():
            raise InvalidArgumentError(f"bincount: needs a 1-D tensor of non-negative integers, "
                                       f"got shape {self.shape}")
        if minlength < 0:
            raise InvalidArgumentError(f"bincount: minlength must be >= 0, got {minlength}")
        if weights is None:
            return Tensor._make(np.bincount(self.data, minlength=minlength).astype(np.int64))
        weights = np.asarray(_as_array(weights))
        if weights.shape != self.shape:
            raise InvalidArgumentError(f"bincount: weights of shape {weights.shape} must be 1-D, "
                                       f"one per entry of the input of shape {self.shape}")
        dtype = weights.dtype if weights.dtype.kind == "f" else np.float64
        return Tensor._make(np.bincount(self.data, weights, minlength).astype(dtype))

    def histc(self, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
        """Counts of the entries in `bins` equal bins between min and max (when both are 0, the
        entries' own min and max, widened by 1 either way if equal), as torch.histc: entries
        outside are ignored, max falls in the last bin; floats only, counts in the tensor's
        dtype, without grad."""
        self._require_floating("histc")
        if bins <= 0:
            raise InvalidArgumentError(f"histc: bins must be > 0, got {bins}")
        if min == max and self.numel():
            min, max = self.data.min(), self.data.max()
        if min == max:
            min, max = min - 1, max + 1
        if not (np.isfinite(min) and np.isfinite(max)):
            raise InvalidArgumentError(f"histc: the range [{min}, {max}] is not finite")
        if min > max:
            raise InvalidArgumentError(f"histc: max must be larger than min, got [{min}, {max}]")
        low, high = self.dtype.type(min), self.dtype.type(max)
        inside = self.data[(self.data >= low) & (self.data <= high)]
        # PyTorch's bin: (x - min) * bins / (max - min), truncated; max itself in the last one
        place = ((inside - low) * bins / (high - low)).astype(np.int64)
        counts = np.bincount(np.minimum(place, bins - 1), minlength=bins)
        return Tensor._make(counts.astype(self.dtype))

    def bernoulli(self, p: float | None = None, *, generator: Any = None) -> Tensor:
        """minigrad.bernoulli(self, p): 1 with probability self (or p), else 0."""
        return creation.bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples: int, replacement: bool = False, *,
                    generator: Any = None) -> Tensor:
        """minigrad.multinomial: category indices drawn with the weights in self's last dim."""
        return creation.multinomial(self, num_samples, replacement, generator=generator)

    def histogram(self, bins: int | Tensor = 100, *, range: tuple[float, float] | None = None,
                  weight: Tensor | None = None, density: bool = False) -> Histogram:
        """(hist, bin_edges), as torch.histogram and numpy.histogram: `bins` equal bins (by
        default 100) over `range` (default the entries' min and max, widened by 0.5 either way
        if equal) or the edges in a 1-D tensor; the last bin holds its right edge. Counts, or
        sums of `weight`; with `density`, divided by the total and the bin widths. Floats only,
        in this tensor's dtype, without grad."""
        self._require_floating("histogram")
        if not isinstance(bins, Tensor) and bins <= 0:
            raise InvalidArgumentError(f"histogram: bins must be > 0, got {bins}")
        if range is not None and range[0] > range[1]:
            raise InvalidArgumentError(f"histogram: the range {range} has min > max")
        with np.errstate(invalid="ignore"):  # the density of no entries is NaN, as PyTorch's
            hist, edges = np.histogram(self.data, _as_array(bins), range,
                                       weights=None if weight is None else _as_array(weight),
                                       density=density)
        return Histogram(Tensor._make(hist.astype(self.dtype)),
                         Tensor._make(edges.astype(self.dtype)))

    def argwhere(self) -> Tensor:
        """nonzero(): the indices of the nonzero entries, one row each."""
        return self.nonzero()

    def _unique_axis(self, op: str, dim: int | None) -> int | None:
        """unique's and unique_consecutive's `dim` wrapped (None stays None); a 0-d tensor has
        none, PyTorch's IndexError (not _existing_dim's error)."""
        if dim is not None and self.ndim == 0:
            raise IndexError(f"{op}: dim {dim} given, but a 0-d tensor has no dims")
        return None if dim is None else _dim(op, dim, self.ndim)

    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False,
                           dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
        """Each run of equal consecutive entries (slices along `dim`) kept once, then, if
        asked, the run each entry belongs to and the runs' lengths, as torch.unique_consecutive;
        without grad."""
        axis = self._unique_axis("unique_consecutive", dim)
        data, axis = (self.data.reshape(-1), 0) if axis is None else (self.data, axis)
        slices = np.moveaxis(data, axis, 0)
        slices = slices.reshape(len(slices), math.prod(slices.shape[1:]))
        starts = np.ones(len(slices), bool)
        starts[1:] = (slices[1:] != slices[:-1]).any(axis=1)
        run = np.cumsum(starts) - 1
        values = np.compress(starts, data, axis=axis)
        inverse = run.reshape(self.shape if dim is None else -1)
        counts = np.diff(np.append(np.flatnonzero(starts), len(slices)))
        found = [values, inverse.astype(np.int64), counts.astype(np.int64)]
        out = tuple(Tensor._make(a) for a, wanted in zip(found, (True, return_inverse,
                                                                 return_counts)) if wanted)
        return out if len(out) > 1 else out[0]

    def nonzero(self, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:
        """The indices of the nonzero entries, in row-major order: an int64 tensor with one row
        per entry and one column per dim, or with as_tuple=True one 1-D tensor per dim (a 0-d
        tensor counts as 1-D there), as PyTorch's; without grad."""
        if as_tuple:
            return tuple(Tensor._make(i) for i in np.nonzero(np.atleast_1d(self.data)))
        return Tensor._make(np.argwhere(self.data))

    def nonzero_static(self, *, size: int, fill_value: int = -1) -> Tensor:
        """nonzero() with exactly `size` rows, as torch.nonzero_static: the first `size` of
        them, or all of them followed by rows of `fill_value`."""
        if not isinstance(size, (int, np.integer)) or size < 0:
            raise InvalidArgumentError(f"nonzero_static: size must be a non-negative integer, "
                                       f"got {size!r}")
        found = np.argwhere(self.data)[:size]
        padding = np.full((size - len(found), self.ndim), fill_value, dtype=np.int64)
        return Tensor._make(np.concatenate([found, padding]))

    def unique(self, sorted: bool = True, return_inverse: bool = False,
               return_counts: bool = False, dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
        """The distinct entries in ascending order (with `dim`, the distinct slices along it),
        then, if asked, where each entry (slice) went (int64, in the input's shape; along `dim`,
        one per slice) and how often each distinct one occurs, as torch.unique; NaNs are kept
        apart, as in PyTorch. Always sorted (`sorted=False` allows any order); without grad."""
        axis = self._unique_axis("unique", dim)
        if axis is not None and 0 in self.shape[:axis] + self.shape[axis + 1:]:
            # PyTorch's refusal: empty slices would all be equal (numpy keeps one of them)
            raise InvalidArgumentError(f"unique: there are 0-sized dims other than dim {dim} "
                                       f"(shape {self.shape}), so unique cannot be applied")
        values, inverse, counts = np.unique(self.data, return_inverse=True, return_counts=True,
                                            axis=axis, equal_nan=False)
        inverse = inverse.reshape(self.shape if axis is None else -1)
        found = [values, inverse.astype(np.int64), counts.astype(np.int64)]
        out = tuple(Tensor._make(a) for a, wanted in zip(found, (True, return_inverse,
                                                                 return_counts)) if wanted)
        return out if len(out) > 1 else out[0]

    def nansum(self, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """The sum with NaN entries counted as 0 (their gradient is 0)."""
        return self.masked_fill(self.isnan(), 0).sum(dim, keepdim, dtype=dtype)

    def nanmean(self, dim: Dim = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """The mean of the entries that are not NaN (NaN where all are), as torch.nanmean: their
        sum over their count, so each gets gradient 1 / count and the NaNs 0. Floats only."""
        x = self if dtype is None else self.to(dtype)
        x._require_floating("nanmean")
        dims = _reduced_dims("nanmean", dim, None, x.ndim)
        count = (~np.isnan(x.data)).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
        with np.errstate(invalid="ignore"):  # 0 / 0: a slice of NaNs only
            return x.nansum(dims, keepdim) / count

    def aminmax(self, *, dim: int | None = None, keepdim: bool = False) -> MinMax:
        """(amin, amax) over `dim` (every dim when None), as torch.aminmax, a pair with `.min`
        and `.max`."""
        if dim is not None and not isinstance(dim, (int, np.integer)):
            raise TypeError(f"aminmax: dim must be an int or None, got {dim!r}")
        return MinMax(self.amin(dim, keepdim), self.amax(dim, keepdim))

    def logsumexp(self, dim: Dim, keepdim: bool = False) -> Tensor:
        """log(sum(exp(x))) over `dim`, computed stably: the max m is taken out first,
        m + log(sum(exp(x - m))). m is a constant (the gradient, softmax(x), does not depend on
        it); where it is infinite it is 0 instead, so all -inf gives -inf and +inf gives +inf,
        not NaN."""
        dims = _reduced_dims("logsumexp", dim, None, self.ndim)
        x = self._floating()  # integers and bools give the default float dtype, as in PyTorch
        shift = x.data.max(axis=dims, keepdims=True, initial=-np.inf)
        shift = np.where(np.isfinite(shift), shift, 0).astype(x.dtype)
        out = (x - shift).exp().sum(dims, keepdim=True).log() + shift
        return out if keepdim else out.squeeze(dims)

    def prelu(self, weight: Tensor) -> Tensor:
        """F.prelu."""
        return functional.prelu(self, weight)

    def hardshrink(self, lambd: float = 0.5) -> Tensor:
        """F.hardshrink."""
        return functional.hardshrink(self, lambd)

    def cov(self, *, correction: int = 1, fweights: ArrayLike | None = None,
            aweights: ArrayLike | None = None) -> Tensor:
        """minigrad.cov of this tensor's rows (variables) and columns (observations)."""
        return cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self) -> Tensor:
        """minigrad.corrcoef of this tensor's rows (variables) and columns (observations)."""
        return corrcoef(self)

    def softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """F.softmax along `dim`."""
        return functional.softmax(self, dim, dtype=dtype)

    def log_softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """F.log_softmax along `dim`."""
        return functional.log_softmax(self, dim, dtype=dtype)

    def cumsum(self, dim: int, *, dtype: Any = None) -> Tensor:
        """Running sums along `dim`: out[i] = x[0] + ... + x[i] (integers and bools in int64)."""
        x = _accumulating(self) if dtype is None else self.to(dtype)
        return _scan(x, _dim("cumsum", dim, self.ndim), Tensor.__add__, 0)

    def cumprod(self, dim: int, *, dtype: Any = None) -> Tensor:
        """Running products along `dim`: out[i] = x[0] * ... * x[i]; the gradient is exact
        also through zeros (no division)."""
        x = _accumulating(self) if dtype is None else self.to(dtype)
        return _scan(x, _dim("cumprod", dim, self.ndim), Tensor.__mul__, 1)

    def logcumsumexp(self, dim: int) -> Tensor:
        """Running log(sum(exp(x))) along `dim`: a scan whose step is logaddexp, so every
        partial sum is computed stably, however far apart its terms are."""
        self._require_floating("logcumsumexp")
        return _scan(self, _dim("logcumsumexp", dim, self.ndim), Tensor.logaddexp, -math.inf)

    def cummax(self, dim: int) -> ValuesIndices:
        """The running maximum along `dim` and where it was reached, (values, indices), as
        torch.cummax: among equal entries the latest one, and a NaN stays the maximum. The
        gradient of each value goes to the entry at its index."""
        return self._running_extreme("cummax", dim, np.maximum)

    def cummin(self, dim: int) -> ValuesIndices:
        """The running minimum along `dim` and where it was reached: as cummax."""
        return self._running_extreme("cummin", dim, np.minimum)

    def _running_extreme(self, op: str, dim: int, extreme: np.ufunc) -> ValuesIndices:
        d = _dim(op, dim, self.ndim)
        x = np.moveaxis(self.data.reshape(self.shape or (1,)), d, -1)
        running = extreme.accumulate(x, axis=-1)  # np.maximum and np.minimum propagate NaN
        reached = (x == running) | (np.isnan(x) if x.dtype.kind == "f" else False)
        latest = np.maximum.accumulate(np.where(reached, np.arange(x.shape[-1]), 0), axis=-1)
        indices = np.moveaxis(latest, -1, d).reshape(self.shape).astype(np.int64)
        return ValuesIndices(self.gather(d, indices), Tensor._make(indices))

    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False
             ) -> ValuesIndices:
        """The entries sorted along `dim` and where each came from, (values, indices), as
        torch.sort. NaN sorts as the largest; equal entries keep their order (minigrad's sort
        is always stable, so `stable` changes nothing). Each value's gradient goes back to its
        entry."""
        d = _dim("sort", dim, self.ndim)
        indices = _stable_order(self.data, d, descending)
        return ValuesIndices(self.gather(d, indices), Tensor._make(indices))

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
        """The indices that sort the entries along `dim` (sort's second part)."""
        return self.sort(dim, descending, stable).indices

    def msort(self) -> Tensor:
        """The entries sorted along dim 0: sort(0).values."""
        return self.sort(0).values

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
             ) -> ValuesIndices:
        """The k largest (or smallest) entries along `dim` and their indices, as torch.topk,
        largest first (always sorted; among equal entries the first ones). Not of bools, as
        in PyTorch."""
        self._refuse_bool("topk")
        d = _dim("topk", dim, self.ndim)
        size = self.shape[d] if self.ndim else 1
        if not isinstance(k, (int, np.integer)) or not 0 <= k <= size:
            raise InvalidArgumentError(f"topk: k must be an int in [0, {size}] (the size of dim "
                                       f"{dim}), got {k!r}")
        ordered = self.reshape(self.shape or (1,)).sort(d, descending=largest)
        top = [part.narrow(d, 0, k) for part in ordered]
        if self.ndim == 0:  # a 0-d tensor's top 1 is itself
            top = [part.reshape(()) for part in top]
        return ValuesIndices(*top)

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False) -> ValuesIndices:
        """The k-th smallest entry along `dim` (k counts from 1) and its index, (values,
        indices), as torch.kthvalue; NaN counts as the largest. Among equal entries the index
        is the one a stable sort puts k-th (PyTorch leaves it unspecified). The gradient goes
        to the entry at the index. Not of bools, as in PyTorch."""
        self._refuse_bool("kthvalue")
        d = _dim("kthvalue", dim, self.ndim)
        size = self.shape[d] if self.ndim else 1
        if not size:  # IndexError, as PyTorch's (and median's)
            raise IndexError(f"kthvalue: dim {dim} is empty (tensor of shape {self.shape})")
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 1 <= k <= size:
            raise InvalidArgumentError(f"kthvalue: k must be an int in [1, {size}] (the size of "
                                       f"dim {dim}), got {k!r}")
        return self._picked(d, self._sorted_position(d, lambda nans: np.int64(k - 1)), keepdim)

    def median(self, dim: int | None = None, keepdim: bool = False) -> Tensor | ValuesIndices:
        """The median, as torch.median: the lower of the two middle entries for an even count.
        Over every entry it is a 0-d tensor, whose gradient the entries equal to it share
        equally (as PyTorch's); given `dim`, the medians along it and their indices, (values,
        indices), the gradient going to those indices (among equal entries, the one a stable
        sort puts in the middle). A NaN makes the median NaN (at the first NaN's index);
        nanmedian skips NaNs instead."""
        return self._median("median", dim, keepdim, skip_nan=False)

    def nanmedian(self, dim: int | None = None, keepdim: bool = False
                  ) -> Tensor | ValuesIndices:
        """The median of the entries that are not NaN, as torch.nanmedian (NaN where all are);
        otherwise as median."""
        return self._median("nanmedian", dim, keepdim, skip_nan=True)

    def _median(self, op: str, dim: int | None, keepdim: bool, skip_nan: bool
                ) -> Tensor | ValuesIndices:
        self._refuse_bool(op)

        def middle(count: int) -> Callable[[np.ndarray], np.ndarray]:
            """The median's place among `count` sorted entries, `nans` of them NaN (last)."""
            if skip_nan:  # the lower middle of the others; all NaN: the first NaN (PyTorch's
                # index there depends on its selection algorithm)
                return lambda nans: np.maximum(count - nans - 1, 0) // 2
            return lambda nans: np.where(nans > 0, count - nans, (count - 1) // 2)

        if dim is not None:
            d = _dim(op, dim, self.ndim)
            count = self.shape[d] if self.ndim else 1
            if count == 0:
                raise IndexError(f"{op}: dim {dim} is empty (tensor of shape {self.shape}): no "
                                 "entry to take the median of")
            return self._picked(d, self._sorted_position(d, middle(count)), keepdim)
        entries = self.reshape(-1)
        if entries.numel() == 0:  # PyTorch's NaN, still in the graph
            self._require_floating(f"{op} of an empty tensor")
            median = entries.sum() * math.nan
        else:
            median_value = entries.data[entries._sorted_position(0, middle(entries.numel()))]
            # the entries equal to the median (its NaNs, if NaN) share its gradient: it is
            # their max, and Max splits the gradient among ties
            ties = (entries.data == median_value) | (_nan(entries.data) & _nan(median_value))
            median = entries.masked_select(ties).amax()
        return median.reshape((1,) * self.ndim) if keepdim else median

    def mode(self, dim: int = -1, keepdim: bool = False) -> ValuesIndices:
        """The most frequent entry along `dim` and its index, (values, indices), as torch.mode:
        among equally frequent entries the smallest, at the last place it occurs; NaNs count
        as one value, the largest. The gradient goes to the entry at the index."""
        d = _dim("mode", dim, self.ndim)
        if self.ndim and self.shape[d] == 0:
            raise IndexError(f"mode: dim {dim} is empty (tensor of shape {self.shape})")
        data = np.moveaxis(self.data.reshape(self.shape or (1,)), d, -1)
        order = _stable_order(data, -1)
        ordered = np.take_along_axis(data, order, -1)
        # runs of equal entries, NaNs one run (they sort last): how far into its run each is
        nans = _nan(ordered)
        starts = np.ones(ordered.shape, bool)
        starts[..., 1:] = (ordered[..., 1:] != ordered[..., :-1]) & ~(nans[..., 1:]
                                                                      & nans[..., :-1])
        place = np.arange(ordered.shape[-1])
        run_length = place - np.maximum.accumulate(np.where(starts, place, 0), axis=-1)
        # the first longest run ends where its length first peaks: its last occurrence
        last = np.argmax(run_length, axis=-1)[..., None]
        indices = np.moveaxis(np.take_along_axis(order, last, -1), -1, d)
        return self._picked(d, indices.reshape([1 if i == d else n
                                                for i, n in enumerate(self.shape)]), keepdim)

    def quantile(self, q: float | ArrayLike, dim: int | None = None, keepdim: bool = False, *,
                 interpolation: str = "linear") -> Tensor:
        """The q-th quantiles over `dim` (every entry when None), as torch.quantile: the value
        at position q * (n - 1) among the n entries sorted, between two entries by
        `interpolation`: 'linear', 'lower', 'higher', 'midpoint' or 'nearest' (to the even
        position at a half). `q` in [0, 1] is a number or a 1-D tensor, whose dim then comes
        first. A NaN makes its quantiles NaN; nanquantile skips NaNs. The gradient goes to the
        one or two entries interpolated."""
        return self._quantile("quantile", q, dim, keepdim, interpolation, skip_nan=False)

    def nanquantile(self, q: float | ArrayLike, dim: int | None = None, keepdim: bool = False,
                    *, interpolation: str = "linear") -> Tensor:
        """The quantiles of the entries that are not NaN, as torch.nanquantile (NaN where all
        are); otherwise as quantile."""
        return self._quantile("nanquantile", q, dim, keepdim, interpolation, skip_nan=True)

    def _quantile(self, op: str, q: float | ArrayLike, dim: int | None, keepdim: bool,
                  interpolation: str, skip_nan: bool) -> Tensor:
        self._require_floating(op)
        if isinstance(q, Tensor) and q.dtype != self.dtype:
            raise InvalidTypeError(f"{op}: q tensor must have the input's dtype {self.dtype}, "
                                   f"got {q.dtype}")
        qs = np.asarray(_as_array(q), dtype=self.dtype)
        if qs.ndim > 1:
            raise InvalidArgumentError(f"{op}: q must be a number or a 1-D tensor, got shape "
                                       f"{qs.shape}")
        if not ((qs >= 0) & (qs <= 1)).all():
            raise InvalidArgumentError(f"{op}: q must lie in [0, 1], got {qs.tolist()}")
        if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
            raise InvalidArgumentError(f"{op}: interpolation must be one of linear, lower, "
                                       f"higher, midpoint or nearest, got {interpolation!r}")
        d = None if dim is None else _dim(op, dim, self.ndim)
        if self.numel() == 0:
            raise InvalidArgumentError(f"{op}: the input tensor must be non-empty")
        # the slices to take quantiles of, along the last dim; positions get one entry per q
        rows = self.reshape(-1) if d is None else self.reshape(self.shape or (1,)).movedim(d, -1)
        count = rows.shape[-1]
        nans = _nan(rows.data).sum(axis=-1, keepdims=True)
        if skip_nan:  # among the others; all NaN: at 0, a NaN
            position = np.maximum(qs.reshape(-1) * (count - 1 - nans).astype(self.dtype), 0)
        else:  # a NaN sorts last, and is the quantile
            position = np.where(nans > 0, count - 1, qs.reshape(-1) * (count - 1))
        if interpolation in ("lower", "higher", "nearest"):  # a position of an entry
            position = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}[
                interpolation](position)
        position = position.astype(self.dtype)  # in the tensor's dtype, as PyTorch's
        order = _stable_order(rows.data, -1)

        def sorted_at(places: np.ndarray) -> Tensor:
            return rows.gather(-1, np.take_along_axis(order, places.astype(np.int64), -1))

        below = np.floor(position)
        values = sorted_at(below)
        if interpolation in ("linear", "midpoint"):
            weight = np.full_like(position, 0.5) if interpolation == "midpoint" \
                else position - below
            values = values.lerp(sorted_at(np.ceil(position)), Tensor._make(weight))
        values = values.squeeze(-1) if qs.ndim == 0 else values.movedim(-1, 0)
        if not keepdim:
            return values
        if d is None:
            return values.reshape(qs.shape + (1,) * self.ndim)
        return values.unsqueeze(qs.ndim + d) if self.ndim else values

    def _sorted_position(self, dim: int, position: Callable[[np.ndarray], np.ndarray]
                         ) -> np.ndarray:
        """The index along `dim` of the entry a stable sort (NaN last) puts at
        `position(nans)` in each slice, where `nans` counts the slice's NaNs: int64, with `dim`
        kept with size 1."""
        data = self.data.reshape(self.shape or (1,))
        nans = _nan(data).sum(axis=dim, keepdims=True)
        places = np.broadcast_to(position(nans), nans.shape).astype(np.int64)
        indices = np.take_along_axis(_stable_order(data, dim), places, dim)
        return indices.reshape([1 if i == dim else n for i, n in enumerate(self.shape)])

    def norm(self, p: float | str | None = "fro", dim: Dim = None, keepdim: bool = False, *,
             dtype: Any = None) -> Tensor:
        """The p-norm over `dim` (every entry when None): (sum |x|**p)**(1/p) for p != 0,
        max |x| for inf, min |x| for -inf, the number of nonzero entries for 0 (without grad);
        'fro', the default, and None are the 2-norm; 'nuc' is linalg.matrix_norm's, over two
        dims. Where the norm or an entry is 0, its gradient is 0, as in PyTorch (the
        subgradient where the derivative does not exist). `dtype` converts the tensor first,
        as in PyTorch: it may keep or widen the tensor's, not narrow it."""
        self._require_floating("norm")
        if dtype is not None:
            linalg._check_widening("norm", self, dtype)
            return self.to(dtype).norm(p, dim, keepdim)
        if p == "nuc":  # the sum of the singular values, over two dims
            return linalg.matrix_norm(self, "nuc", tuple(range(self.ndim)) if dim is None
                                      else dim, keepdim)
        if p is None or isinstance(p, str):
            if p not in (None, "fro"):
                raise InvalidArgumentError(f"norm: p must be a number, 'fro' or 'nuc' (or None), "
                                           f"got {p!r}")
            p = 2
        dims = _reduced_dims("norm", dim, None, self.ndim)
        magnitude = self.abs()
        if p == math.inf:
            return magnitude.amax(dims, keepdim)
        if p == -math.inf:
            return magnitude.amin(dims, keepdim)
        if p == 0:
            count = (self.data != 0).sum(axis=dims, keepdims=keepdim)
            return Tensor._make(np.asarray(count, dtype=self.dtype))
        if p > 0:
            total = _zero_at_zero(magnitude, lambda a: a ** p).sum(dims, keepdim)
            return _zero_at_zero(total, lambda t: t ** (1 / p))
        # p < 0: a zero entry makes |x|**p infinite and the norm 0, with gradient 0 (PyTorch's)
        zero = self.data == 0
        total = (magnitude.masked_fill(zero, 1.0) ** p).sum(dims, keepdim)
        return (total ** (1 / p)).masked_fill(zero.any(axis=dims, keepdims=keepdim), 0.0)

    # ---- shape ----
    def reshape(self, *sizes: int | Sequence[int], shape: Sequence[int] | None = None
                ) -> Tensor:
        new_shape = _ints(sizes, shape, "reshape", "shape")
        if any(n < -1 for n in new_shape):  # numpy would read any negative size as -1
            raise InvalidArgumentError(f"reshape: sizes must be non-negative or -1 (inferred), "
                                       f"got {tuple(new_shape)}")
        return ops.Reshape.apply(self, shape=new_shape)

    def permute(self, *order: int | Sequence[int], dims: Sequence[int] | None = None
                ) -> Tensor:
        """Reorder the dims: out.shape[i] = self.shape[dims[i]]."""
        order = _ints(order, dims, "permute", "dims")
        if len(order) != self.ndim:  # checked before the range of each, as PyTorch does
            raise InvalidArgumentError(f"permute: {len(order)} dims {tuple(order)} given for a "
                                       f"tensor of {self.ndim} dims, shape {self.shape}")
        axes = [_dim("permute", d, self.ndim) for d in order]
        return ops.Transpose.apply(self, axes=tuple(axes))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dims (PyTorch's meaning, not numpy's axes permutation)."""
        dims = list(range(self.ndim))
        dim0, dim1 = _dim("transpose", dim0, self.ndim), _dim("transpose", dim1, self.ndim)
        if self.ndim == 0:  # PyTorch: transposing a 0-d tensor (dims 0 or -1) is the identity
            return self.reshape(())
        dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
        return self.permute(dims)

    @property
    def T(self) -> Tensor:
        """All dims reversed (the matrix transpose of a 2-D tensor)."""
        return self.permute(tuple(range(self.ndim))[::-1])

    def t(self) -> Tensor:
        """The transpose of a tensor of at most 2 dims (0-D and 1-D: itself)."""
        if self.ndim > 2:
            raise InvalidArgumentError(f"t: expects a tensor of at most 2 dims, got shape "
                                       f"{self.shape}; use transpose(dim0, dim1) or mT")
        return self.T

    def swapaxes(self, axis0: int, axis1: int) -> Tensor:
        """Alias of transpose."""
        return self.transpose(axis0, axis1)

    def swapdims(self, dim0: int, dim1: int) -> Tensor:
        """Alias of transpose."""
        return self.transpose(dim0, dim1)

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped: a batch of transposed matrices."""
        if self.ndim < 2:  # a RuntimeError, as PyTorch's (transpose's would be an IndexError)
            raise InvalidArgumentError(f"mT: needs a matrix or a batch of them, got shape "
                                       f"{self.shape}")
        return self.transpose(-2, -1)

    @property
    def H(self) -> Tensor:
        """The conjugate transpose of a matrix: minigrad's tensors are real, so its transpose
        (a 0-D tensor: itself)."""
        if self.ndim not in (0, 2):
            raise InvalidArgumentError(f"H: only supported on matrices (2-D tensors), got shape "
                                       f"{self.shape}; for batches of matrices, use mH")
        return self.T

    @property
    def mH(self) -> Tensor:
        """The conjugate transpose of a batch of matrices: for real tensors, mT."""
        return self.adjoint()

    def adjoint(self) -> Tensor:
        """The conjugate transpose of the last two dims: for real tensors, mT."""
        if self.ndim < 2:
            raise InvalidArgumentError(f"adjoint: only supported on matrices or batches of "
                                       f"matrices, got shape {self.shape}")
        return self.mT

    def __getitem__(self, index: Any) -> Tensor:
        """numpy's indexing with PyTorch's one difference: when ints and index arrays meet in one
        index, the ints select first (each removes its dim) and the arrays index what is left.
        So a (2, 3, 4) tensor's x[0, :, idx] has shape (3, len(idx)), as in PyTorch, where numpy
        treats 0 as an index array too and gives (len(idx), 3)."""
        if not isinstance(index, tuple):
            part = _index_part(index)
            _check_masks((part,), self.shape)
            return ops.GetItem.apply(self, index=part)
        parts = _index_parts(index, self.ndim)
        _check_masks(parts, self.shape)
        if any(map(_is_int, parts)) and any(map(_is_array, parts)):
            selected = ops.GetItem.apply(self, index=tuple(_select_ints(parts)))
            return ops.GetItem.apply(selected, index=tuple(_drop_ints(parts)))
        return ops.GetItem.apply(self, index=parts)

    # ---- shape: more of PyTorch's (compositions of the shape primitives) ----
    def view(self, *shape: int | Sequence[int] | np.dtype | type) -> Tensor:
        """reshape: it never fails, copying where the layout asks for it (PyTorch's view
        raises for a tensor that is not contiguous enough). Given a dtype, PyTorch's
        x.view(dtype): the same bytes read as that dtype, sharing memory, with no gradient; the
        last dim scales by the ratio of the element sizes."""
        if len(shape) == 1 and (isinstance(shape[0], np.dtype) or isinstance(shape[0], type)
                                and issubclass(shape[0], np.generic)):
            return self._bytes_as(np.dtype(shape[0]))
        return self.reshape(*shape)

    def _bytes_as(self, dtype: np.dtype) -> Tensor:
        if dtype.itemsize != self.data.itemsize:
            name = f"view: viewing {self.dtype} as {dtype} (different element sizes)"
            if self.ndim == 0:
                raise RuntimeError(f"{name} needs at least one dim; got a 0-d tensor")
            if self.data.strides[-1] != self.data.itemsize:
                raise RuntimeError(f"{name} needs the last dim's entries next to each other; "
                                   f"make the tensor contiguous first (x.clone())")
            if self.shape[-1] * self.data.itemsize % dtype.itemsize:
                raise RuntimeError(f"{name} needs a last dim whose bytes make whole {dtype} "
                                   f"entries; got size {self.shape[-1]}")
        viewed = Tensor._make(self.data.view(dtype))
        viewed._versions = self._versions  # one memory, one version counter
        return viewed

    def view_as(self, other: Tensor) -> Tensor:
        """This tensor in `other`'s shape."""
        return self.view(other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        """This tensor reshaped to other's shape."""
        return self.reshape(other.shape)

    def ravel(self) -> Tensor:
        """The entries as a 1-D tensor, in row-major order."""
        return self.reshape(-1)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge the dims start_dim..end_dim into one (a 0-d tensor becomes 1-D)."""
        start, end = _dim("flatten", start_dim, self.ndim), _dim("flatten", end_dim, self.ndim)
        if self.ndim == 0:  # its dims 0 and -1, checked above, are the entry itself
            return self.reshape(1)
        if start > end:
            raise InvalidArgumentError(f"flatten: start_dim {start_dim} comes after end_dim "
                                       f"{end_dim} for a tensor of shape {self.shape}")
        merged = math.prod(self.shape[start:end + 1])
        return self.reshape(*self.shape[:start], merged, *self.shape[end + 1:])

    def unflatten(self, dim: int, sizes: Sequence[int]) -> Tensor:
        """Split dim `dim` into dims of `sizes` (one of them may be -1: inferred)."""
        d = _existing_dim("unflatten", dim, self.ndim)
        new = list(sizes)
        known = math.prod(n for n in new if n != -1)
        if new.count(-1) == 1 and known > 0:
            new[new.index(-1)] = self.shape[d] // known
        if not new or min(new) < 0 or math.prod(new) != self.shape[d]:
            raise InvalidArgumentError(f"unflatten: sizes {tuple(sizes)} do not multiply to the "
                                       f"size {self.shape[d]} of dim {dim} (tensor of shape "
                                       f"{self.shape})")
        return self.reshape(*self.shape[:d], *new, *self.shape[d + 1:])

    def squeeze(self, dim: Dim = None) -> Tensor:
        """Remove the dims of size 1: all of them, or those among `dim` (a dim named there of
        another size is left as it is, as in PyTorch)."""
        dims = _dim_tuple("squeeze", dim, self.ndim)
        return self.reshape([n for d, n in enumerate(self.shape) if n != 1 or d not in dims])

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dim of size 1 at `dim` (in [-ndim - 1, ndim])."""
        d = _dim("unsqueeze", dim, self.ndim + 1)
        return self.reshape(*self.shape[:d], 1, *self.shape[d:])

    def movedim(self, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
        """Move the dims `source` to the positions `destination`, the others keeping their
        order."""
        sources = _dim_list("movedim", source, self.ndim)
        destinations = _dim_list("movedim", destination, self.ndim)
        if len(sources) != len(destinations):
            raise InvalidArgumentError(f"movedim: source {source} and destination {destination} "
                                       "name different numbers of dims")
        if self.ndim == 0:
            return self.reshape(())
        order = [d for d in range(self.ndim) if d not in sources]
        for to, moved in sorted(zip(destinations, sources)):
            order.insert(to, moved)
        return self.permute(order)

    def moveaxis(self, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
        """Alias of movedim."""
        return self.movedim(source, destination)

    def expand(self, *sizes: int | Sequence[int]) -> Tensor:
        """This tensor repeated along new leading dims and along its dims of size 1, to shape
        `sizes` (-1 keeps a dim's size), without copying; the gradient sums the copies."""
        sizes = _ints(sizes)
        lead = len(sizes) - self.ndim
        target = tuple(self.shape[i - lead] if i >= lead and n == -1 else n
                       for i, n in enumerate(sizes))
        if lead < 0 or min(target, default=0) < 0 or not engine._broadcasts_to(self.shape, target):
            raise InvalidArgumentError(f"expand: cannot expand shape {self.shape} to {sizes}: "
                                       "each dim must keep its size (or -1) or be 1, and new "
                                       "dims (not -1) go first")
        return ops.BroadcastTo.apply(self, shape=target)

    def sum_to_size(self, *size: int | Sequence[int]) -> Tensor:
        """This tensor summed down to `size`, a shape it broadcasts from (the reverse of
        expand): leading dims summed away, dims of size 1 in `size` summed with keepdim."""
        shape = _ints(size)
        if not engine._broadcasts_to(shape, self.shape):
            raise InvalidArgumentError(f"sum_to_size: {shape} does not expand to this tensor's "
                                       f"shape {self.shape}")
        lead = self.ndim - len(shape)
        kept = [lead + d for d, n in enumerate(shape) if n == 1 and self.shape[lead + d] != 1]
        out = self.sum(kept, keepdim=True) if kept else self
        return out.sum(tuple(range(lead))) if lead else out

    def expand_as(self, other: Tensor) -> Tensor:
        """expand to other's shape."""
        return self.expand(other.shape)

    def broadcast_to(self, size: Sequence[int]) -> Tensor:
        """expand to `size`."""
        return self.expand(size)

    def repeat(self, *sizes: int | Sequence[int]) -> Tensor:
        """This tensor tiled sizes[i] times along dim i (the tensor gets new leading dims when
        `sizes` is longer than its shape), like numpy's tile."""
        sizes = _ints(sizes)
        if len(sizes) < self.ndim or min(sizes, default=0) < 0:
            raise InvalidArgumentError(f"repeat: sizes {sizes} must be non-negative and at least "
                                       f"as many as the dims of the tensor's shape {self.shape}")
        shape = (1,) * (len(sizes) - self.ndim) + self.shape
        # a dim of size r in front of each dim n: broadcasting makes r copies, and merging
        # (r, n) into r * n lays them one after another
        spread = self.reshape([m for n in shape for m in (1, n)])
        tiled = spread.expand([m for r, n in zip(sizes, shape) for m in (r, n)])
        return tiled.reshape([r * n for r, n in zip(sizes, shape)])._own_memory(self)

    def _own_memory(self, source: Tensor) -> Tensor:
        """This result of `source`, or a copy of it where it is a view of source's array:
        PyTorch's flip, roll and repeat return new tensors, which in-place ops must not
        write through to their source."""
        return self.clone() if np.may_share_memory(self.data, source.data) else self

    def tile(self, *counts: int | Sequence[int], dims: Sequence[int] | None = None
             ) -> Tensor:
        """repeat, except that `dims` may be shorter than the shape: it is then padded with
        1s at the front (PyTorch's tile). Given as arguments or as one sequence, as repeat."""
        dims = _ints(counts, dims, "tile", "dims")
        return self.repeat((1,) * (self.ndim - len(dims)) + dims)

    def flip(self, *flipped: int | Sequence[int], dims: Sequence[int] | None = None
             ) -> Tensor:
        """The entries in reverse order along `dims`."""
        flipped = _dim_tuple("flip", _ints(flipped, dims, "flip", "dims"), self.ndim)
        return self[tuple(slice(None, None, -1) if d in flipped else slice(None)
                          for d in range(self.ndim))]._own_memory(self)

    def roll(self, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None
             ) -> Tensor:
        """The entries shifted `shifts` places along `dims`, those pushed past the end coming
        back at the start; with no dims, along the flattened tensor."""
        if dims is None:
            return self.flatten().roll(shifts, 0).reshape(self.shape)
        shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
        dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
        if len(shifts) != len(dims):
            raise InvalidArgumentError(f"roll: shifts {shifts} and dims {dims} differ in length")
        if self.ndim == 0 and dims:  # PyTorch's roll gives a 0-d tensor no dim 0 or -1
            raise IndexError(f"roll: dims {dims} are out of range for a 0-d tensor")
        out = self
        for shift, dim in zip(shifts, dims):
            d = _dim("roll", dim, self.ndim)
            n = self.shape[d]
            k = shift % n if n else 0
            if k:
                out = ops.Concat.apply(out.narrow(d, n - k, k), out.narrow(d, 0, n - k), axis=d)
        return out._own_memory(self)

    def fliplr(self) -> Tensor:
        """flip(1): the columns in reverse order (a tensor of at least 2 dims)."""
        if self.ndim < 2:
            raise InvalidArgumentError(f"fliplr: needs at least 2 dims, got shape {self.shape}")
        return self.flip(1)

    def flipud(self) -> Tensor:
        """flip(0): the rows in reverse order (a tensor of at least 1 dim)."""
        if self.ndim < 1:
            raise InvalidArgumentError("flipud: needs at least 1 dim, got a 0-d tensor")
        return self.flip(0)

    def rot90(self, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
        """Rotated k times by 90 degrees in the plane of `dims`, from the first dim towards the
        second, as torch.rot90 (a negative k turns the other way)."""
        if len(dims) != 2:
            raise InvalidArgumentError(f"rot90: needs two dims to rotate in, got {tuple(dims)}")
        if self.ndim < 2:
            raise InvalidArgumentError(f"rot90: needs at least 2 dims, got shape {self.shape}")
        first, second = _dim_list("rot90", dims, self.ndim)
        turns = k % 4
        if turns == 1:
            return self.flip(second).transpose(first, second)
        if turns == 2:
            return self.flip(first, second)
        if turns == 3:
            return self.flip(first).transpose(first, second)
        return self.clone()

    def diff(self, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
             append: Tensor | None = None) -> Tensor:
        """The n-th forward difference along `dim`, out[i] = x[i + 1] - x[i] taken n times, of
        the tensor with `prepend` and `append` joined to it along `dim` (tensors of as many
        dims); as torch.diff, bools give logical_xor (outside the graph)."""
        if self.ndim == 0:
            raise InvalidArgumentError("diff: needs a tensor of at least 1 dim")
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise InvalidArgumentError(f"diff: the order n must be a non-negative int, got {n!r}")
        d = _dim("diff", dim, self.ndim)
        if any(t is not None and t.ndim != self.ndim for t in (prepend, append)):
            raise InvalidArgumentError("diff: prepend and append must have as many dims as the "
                                       f"input ({self.ndim})")
        if n == 0:  # the input as it is, without prepend and append, as PyTorch (and numpy)
            return self
        x = cat([t for t in (prepend, self, append) if t is not None], d)
        for _ in range(min(n, x.shape[d])):  # each step is one shorter; past 0 it stays empty
            later, earlier = x.narrow(d, 1, x.shape[d] - 1), x.narrow(d, 0, x.shape[d] - 1)
            x = later.logical_xor(earlier) if x.dtype == np.bool_ else later - earlier
        return x

    def take_along_dim(self, indices: ArrayLike, dim: int | None = None) -> Tensor:
        """The entries at `indices` along `dim`, as torch.take_along_dim: gather, with the
        tensor's and the indices' other dims broadcast against each other; with no dim, of
        the tensor and the indices read as 1-D. The gradient adds up at repeated indices."""
        index = _index_array("take_along_dim", indices)
        if dim is None:
            return self.reshape(-1).gather(0, index.reshape(-1))
        d = _dim("take_along_dim", dim, self.ndim)
        if index.ndim != self.ndim:
            raise InvalidArgumentError(f"take_along_dim: indices of shape {index.shape} need as "
                                       f"many dims as the tensor of shape {self.shape}")

        def along(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
            return shape[:d] + (size,) + shape[d + 1:]

        try:
            others = np.broadcast_shapes(along(self.shape, 1), along(index.shape, 1))
        except ValueError:
            raise InvalidArgumentError(f"take_along_dim: indices of shape {index.shape} do not "
                                       f"broadcast with the tensor's shape {self.shape} outside "
                                       f"dim {dim}") from None
        return self.expand(along(others, self.shape[d])).gather(
            d, np.broadcast_to(index, along(others, index.shape[d])))

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """The `length` entries from `start` on along `dim` (a negative start counts from the
        end)."""
        d = _existing_dim("narrow", dim, self.ndim)
        n = self.shape[d]
        first = start + n if start < 0 else start
        if not 0 <= first <= n or not 0 <= length <= n - first:
            raise InvalidIndexError(f"narrow: start {start} and length {length} do not fit in dim "
                                    f"{dim} of size {n}")
        return self[(slice(None),) * d + (slice(first, first + length),)]

    def select(self, dim: int, index: int) -> Tensor:
        """The slice at `index` along `dim`, that dim removed: x.select(1, i) is x[:, i]."""
        if self.ndim == 0:  # IndexError, as PyTorch's (narrow, split and chunk: RuntimeError)
            raise IndexError("select: a 0-d tensor has no dim to select from")
        dim = _dim("select", dim, self.ndim)
        if not -self.shape[dim] <= index < self.shape[dim]:
            raise IndexError(f"select: index {index} is out of range for dim {dim} of size "
                             f"{self.shape[dim]}")
        return self[(slice(None),) * dim + (index,)]

    def split(self, split_size_or_sections: int | Sequence[int], dim: int = 0
              ) -> tuple[Tensor, ...]:
        """Pieces along `dim`: of split_size entries each (the last one smaller when they do
        not divide the dim), or of the sizes listed, which must add up to the dim's size."""
        d = _existing_dim("split", dim, self.ndim)
        n = self.shape[d]
        if isinstance(split_size_or_sections, (int, np.integer)):
            size = int(split_size_or_sections)
            if size <= 0 and n:
                raise InvalidArgumentError(f"split: split_size must be positive, got {size}")
            sections = ([size] * (n // size) + [n % size] * (n % size > 0)) if n else [0]
        else:
            sections = [int(s) for s in split_size_or_sections]
            if sum(sections) != n or min(sections, default=0) < 0:
                raise InvalidArgumentError(f"split: sections {sections} must be non-negative and "
                                           f"add up to the size {n} of dim {dim}")
        starts = np.cumsum([0] + sections[:-1])
        return tuple(self.narrow(d, int(start), size) for start, size in zip(starts, sections))

    unsafe_split = split

    def narrow_copy(self, dim: int, start: int | Tensor, length: int) -> Tensor:
        """narrow, as a copy of its own."""
        return self.narrow(dim, start, length).clone()

    def split_with_sizes(self, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """split into pieces of the sizes listed (a list only, as in PyTorch)."""
        if isinstance(split_sizes, (int, np.integer, Tensor)):
            raise TypeError(f"split_with_sizes: split_sizes must be a sequence of ints, got "
                            f"{type(split_sizes).__name__}")
        return self.split(split_sizes, dim)

    unsafe_split_with_sizes = split_with_sizes

    def tensor_split(self, indices_or_sections: int | Sequence[int], dim: int = 0
                     ) -> tuple[Tensor, ...]:
        """Pieces along `dim`, as torch.tensor_split: n pieces as equal as can be (the first
        ones one longer), or the pieces between the listed indices, read as slice bounds are
        (a negative one counts from the end; cut at the dim's ends); a 0-d tensor is a number
        of sections, a 1-D one indices."""
        d = _existing_dim("tensor_split", dim, self.ndim)
        size = self.shape[d]
        if isinstance(indices_or_sections, Tensor) and indices_or_sections.ndim == 0:
            indices_or_sections = indices_or_sections.item()
        if isinstance(indices_or_sections, (int, np.integer)):
            pieces = int(indices_or_sections)
            if pieces <= 0:
                raise InvalidArgumentError(f"tensor_split: the number of sections must be "
                                           f"positive, got {pieces}")
            lengths = [size // pieces + (i < size % pieces) for i in range(pieces)]
            cuts = list(np.cumsum(lengths[:-1]))
        else:
            cuts = [int(i) for i in indices_or_sections]
        # each bound as a slice reads it: a negative one from the end, then clipped to [0, size]
        bounds = [min(max(b + size if b < 0 else b, 0), size) for b in [0, *cuts, size]]
        return tuple(self.narrow(d, start, max(end - start, 0))
                     for start, end in zip(bounds, bounds[1:]))

    def hsplit(self, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
        """tensor_split along dim 1 (dim 0 of a 1-D tensor), as torch.hsplit: a number of
        sections must divide the dim."""
        return self._numpy_style_split("hsplit", indices_or_sections, 1, 1 if self.ndim > 1 else 0)

    def vsplit(self, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
        """tensor_split along dim 0 of a tensor of at least 2 dims, as torch.vsplit."""
        return self._numpy_style_split("vsplit", indices_or_sections, 2, 0)

    def dsplit(self, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
        """tensor_split along dim 2 of a tensor of at least 3 dims, as torch.dsplit."""
        return self._numpy_style_split("dsplit", indices_or_sections, 3, 2)

    def _numpy_style_split(self, op: str, indices_or_sections: int | Sequence[int],
                           min_ndim: int, dim: int) -> tuple[Tensor, ...]:
        """numpy's hsplit, vsplit and dsplit: unlike tensor_split, sections must be equal."""
        if self.ndim < min_ndim:
            raise InvalidArgumentError(f"{op}: needs a tensor of at least {min_ndim} dims, got "
                                       f"shape {self.shape}")
        if isinstance(indices_or_sections, (int, np.integer)):
            sections = int(indices_or_sections)
            if sections <= 0 or self.shape[dim] % sections:
                raise InvalidArgumentError(f"{op}: the size {self.shape[dim]} of dim {dim} is "
                                           f"not divisible into {sections} sections")
        return self.tensor_split(indices_or_sections, dim)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """The slices along `dim`, each without that dim: x[0], x[1], ... for dim 0."""
        if self.ndim == 0:  # IndexError, as PyTorch's (chunk, split and narrow: RuntimeError)
            raise IndexError(f"unbind: dim {dim} is out of range: a 0-d tensor has no dims")
        d = _dim("unbind", dim, self.ndim)
        return tuple(self[(slice(None),) * d + (i,)] for i in range(self.shape[d]))

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """At most `chunks` pieces along `dim`, of ceil(n / chunks) entries each (the last may
        be smaller, and there may be fewer pieces), as PyTorch's chunk."""
        if chunks <= 0:
            raise InvalidArgumentError(f"chunk: chunks must be positive, got {chunks}")
        n = self.shape[_existing_dim("chunk", dim, self.ndim)]
        return self.split(max(-(-n // chunks), 1), dim)

    # PyTorch's unsafe_ forms skip a check on in-place writes that minigrad never needs
    unsafe_chunk = chunk

    def gather(self, dim: int, index: ArrayLike) -> Tensor:
        """Entries picked along `dim` by `index`: out[i][j] = self[index[i][j]][j] for dim 0,
        self[i][index[i][j]] for dim 1, and so on. `index` has as many dims as this tensor and
        is no larger in the others; the gradient adds up at repeated indices."""
        index = _index_array("gather", index)
        d = _dim("gather", dim, self.ndim)
        _check_index("gather", index, self.shape, d)
        if self.ndim == 0:
            return self.reshape(1).gather(0, index.reshape(1)).reshape(())
        return ops.GetItem.apply(self, index=_along_dim(index, d))

    def index_select(self, dim: int, index: ArrayLike) -> Tensor:
        """The slices at `index` (0-d or 1-D integers in [0, size)) along `dim`, in index's
        order: x.index_select(1, idx) is x[:, idx]. The gradient adds up at repeated indices."""
        index = _index_array("index_select", index)
        if index.ndim > 1:
            raise InvalidIndexError(f"index_select: index must be 0-d or 1-D, got shape "
                                    f"{index.shape}")
        d = _dim("index_select", dim, self.ndim)
        if self.ndim == 0:  # its one entry, as PyTorch returns it
            return self.reshape(1).index_select(0, index).reshape(())
        _check_index_range("index_select", index, self.shape, d)
        return ops.GetItem.apply(self, index=(slice(None),) * d + (index.reshape(-1),))

    def take(self, index: ArrayLike) -> Tensor:
        """Entries of the tensor read as 1-D (row-major), at `index` (integers of any shape,
        negative ones counting from the end), in index's shape. The gradient adds up at
        repeated indices."""
        index = _index_array("take", index)
        n = self.numel()
        if index.size and (index.min() < -n or index.max() >= n):
            raise InvalidIndexError(f"take: index entries must lie in [{-n}, {n}) for a tensor of "
                                    f"{n} entries, got entries from {index.min()} to "
                                    f"{index.max()}")
        return self.reshape(-1)[index]

    def scatter_add(self, dim: int, index: ArrayLike, src: Tensor) -> Tensor:
        """A copy of this tensor with src's entries added at the places `index` names along
        `dim`: out[index[i][j]][j] += src[i][j] for dim 0, and so on (repeated places add
        up). Only src's entries within index's shape are used, as in PyTorch. Differentiable
        in this tensor and in src."""
        d, index, src = self._scatter_arguments("scatter_add", dim, index, src)
        if self.ndim == 0:
            return self.reshape(1).scatter_add(0, index.reshape(1), src.reshape(1)).reshape(())
        return ops.ScatterAdd.apply(self, src, index=_along_dim(index, d))

    def scatter(self, dim: int, index: ArrayLike, src: Tensor | float | None = None, *,
                value: float | None = None, reduce: str | None = None) -> Tensor:
        """A copy of this tensor with src's entries (or the number `value`) written at the
        places `index` names along `dim`: out[index[i][j]][j] = src[i][j] for dim 0, and so
        on; where a place is named more than once the last write wins, as in PyTorch.
        reduce="add" or "multiply" combines with what is there instead (scatter_reduce's
        "sum" and "prod")."""
        fill = value if value is not None else None if isinstance(src, Tensor) else src
        if fill is not None:
            src = Tensor._make(np.full(np.shape(_as_array(index)), fill, dtype=self.dtype))
        elif src is None:
            raise TypeError("scatter: give src (a tensor) or value (a number)")
        if reduce is not None:
            if reduce not in ("add", "multiply"):
                raise InvalidArgumentError("scatter: reduce must be None, 'add' or 'multiply', "
                                           f"got {reduce!r}")
            return self.scatter_reduce(dim, index, src, "sum" if reduce == "add" else "prod")
        d, index, src = self._scatter_arguments("scatter", dim, index, src)
        if self.ndim == 0:
            return self.reshape(1).scatter(0, index.reshape(1), src.reshape(1)).reshape(())
        places = _scatter_places(index, d, self.shape)
        last = _last_writes(places)
        return self._write_at(places[last], src.reshape(-1)[last])

    def index_add(self, dim: int, index: ArrayLike, source: Tensor, *, alpha: float = 1
                  ) -> Tensor:
        """A copy with alpha * source's slices along `dim` added at the places `index` (1-D)
        names, as torch.index_add (repeated places add up): scatter_add along `dim`."""
        d, places = self._index_along("index_add", dim, index, source)
        return self.scatter_add(d, places, source * alpha if alpha != 1 else source)

    def index_copy(self, dim: int, index: ArrayLike, source: Tensor) -> Tensor:
        """A copy with source's slices along `dim` written at the places `index` (1-D) names,
        as torch.index_copy (at a repeated place, the last one written): scatter along `dim`."""
        d, places = self._index_along("index_copy", dim, index, source)
        return self.scatter(d, places, source)

    def index_fill(self, dim: int, index: ArrayLike, value: float | Tensor) -> Tensor:
        """A copy with the slices along `dim` at `index` (1-D) set to `value`, a number or a 0-d
        tensor, as torch.index_fill: masked_fill of those slices."""
        index = _index_array("index_fill", index)
        d = _dim("index_fill", dim, self.ndim)
        size = self.shape[d] if self.ndim else 1
        if index.ndim > 1 or (index.size and not (-size <= index.min() and index.max() < size)):
            raise InvalidIndexError(f"index_fill: index must be 1-D with entries in [{-size}, "
                                    f"{size}), got {index.tolist()}")
        chosen = np.zeros(size, bool)
        chosen[index] = True
        # laid along d (for a 0-d tensor, its one entry)
        return self.masked_fill(chosen.reshape(self.shape[d:d + 1] + (1,) * (self.ndim - d - 1)),
                                value)

    def index_put(self, indices: Sequence[ArrayLike], values: ArrayLike,
                  accumulate: bool = False) -> Tensor:
        """A copy with `values` (broadcast to the entries indexed) written at x[indices], as
        torch.index_put: `indices` is a tuple of integer or bool tensors, one per leading dim,
        read as x[indices] reads them. With accumulate=True the values are added there and
        repeated places add up; without, at a repeated place the last write wins (scatter's
        rule). Differentiable in this tensor and in values."""
        if not isinstance(indices, (tuple, list)):
            raise TypeError(f"index_put: indices must be a tuple of tensors, got "
                            f"{type(indices).__name__}")
        arrays = []
        for index in indices:
            array = np.asarray(_as_array(index))
            if array.dtype.kind not in "ib":  # PyTorch reads uint8 as a (deprecated) mask
                raise InvalidIndexError(f"index_put: indices must be int64, int32 or bool "
                                        f"tensors, got dtype {array.dtype}")
            arrays.append(array)
        try:  # the flat position of each entry x[indices] reads
            places = np.arange(self.numel()).reshape(self.shape)[tuple(arrays)]
        except IndexError as error:  # out of range, too many, a mask of the wrong shape
            raise InvalidIndexError(f"index_put: {error} (tensor of shape {self.shape})"
                                    ) from None
        values = self._lift(values)
        if values.dtype != self.dtype:
            raise InvalidTypeError(f"index_put: values have dtype {values.dtype} but the tensor "
                                   f"{self.dtype}")
        if not engine._broadcasts_to(values.shape, places.shape):
            raise InvalidArgumentError(f"index_put: values of shape {values.shape} do not "
                                       f"broadcast to the entries indexed, shape {places.shape}")
        values = values.expand(places.shape).reshape(-1)
        places = places.reshape(-1)
        if accumulate:
            return ops.ScatterAdd.apply(self.reshape(-1), values, index=places).reshape(self.shape)
        return ops.IndexPut.apply(self.reshape(-1), values, index=places).reshape(self.shape)

    def select_scatter(self, src: Tensor, dim: int, index: int) -> Tensor:
        """A copy with `src` written where select(dim, index) reads, as torch.select_scatter;
        differentiable in both."""
        return self._written_at("select_scatter", src, lambda t: t.select(dim, index))

    def slice_scatter(self, src: Tensor, dim: int = 0, start: int | None = None,
                      end: int | None = None, step: int = 1) -> Tensor:
        """A copy with `src` written at the slice start:end:step along `dim`, as
        torch.slice_scatter; differentiable in both."""
        return self._written_at("slice_scatter", src,
                                lambda t: _sliced("slice_scatter", t, dim, start, end, step))

    def diagonal_scatter(self, src: Tensor, offset: int = 0, dim1: int = 0,
                         dim2: int = 1) -> Tensor:
        """A copy with `src` written where diagonal(offset, dim1, dim2) reads, as
        torch.diagonal_scatter; differentiable in both."""
        return self._written_at("diagonal_scatter", src,
                                lambda t: t.diagonal(offset, dim1, dim2))

    def _written_at(self, op: str, src: Tensor, view: Callable[[Tensor], Tensor]) -> Tensor:
        """A copy with src (cast to this dtype, as PyTorch) written at the entries view(self)
        reads: the view of the tensor of flat positions names them (and checks its arguments),
        and index_put writes there."""
        places = view(Tensor._make(np.arange(self.numel()).reshape(self.shape))).data
        src = self._lift(src)
        if src.shape != places.shape:
            raise InvalidArgumentError(f"{op}: src of shape {src.shape} must have the shape of "
                                       f"the entries it replaces, {places.shape}")
        flat = self.reshape(-1).index_put((places.reshape(-1),), src.to(self.dtype).reshape(-1))
        return flat.reshape(self.shape)

    def put(self, index: ArrayLike, source: Tensor, accumulate: bool = False) -> Tensor:
        """A copy with source's entries written (with accumulate=True, added) at `index` of the
        tensor read as 1-D (row-major; negative entries count from the end), as torch.put:
        index_put of the flattened tensor, one source entry per index entry."""
        index = _index_array("put", index)
        source = self._lift(source)
        if index.size != source.numel():
            raise InvalidIndexError(f"put: index has {index.size} entries and source "
                                    f"{source.numel()}; they must be as many")
        flat = self.reshape(-1).index_put((index.reshape(-1),), source.reshape(-1), accumulate)
        return flat.reshape(self.shape)

    def masked_scatter(self, mask: ArrayLike, source: Tensor) -> Tensor:
        """A copy whose entries where the bool `mask` (broadcast with this tensor) is True are
        source's first entries (source read as 1-D), in row-major order, as
        torch.masked_scatter. Differentiable in this tensor (where mask is False) and in
        source (the entries used)."""
        mask = _bool_mask("masked_scatter", mask)
        shape = _mask_broadcast_shape("masked_scatter", mask, self.shape)
        source = self._lift(source)
        if source.dtype != self.dtype:
            raise InvalidTypeError(f"masked_scatter: source has dtype {source.dtype} but the "
                                   f"tensor {self.dtype}")
        places = np.flatnonzero(np.broadcast_to(mask, shape))
        if places.size > source.numel():
            raise InvalidArgumentError(f"masked_scatter: the mask has {places.size} True "
                                       f"entries but source only {source.numel()} entries")
        return self.expand(shape)._write_at(places, source.reshape(-1)[:places.size])

    def index_reduce(self, dim: int, index: ArrayLike, source: Tensor, reduce: str, *,
                     include_self: bool = True) -> Tensor:
        """A copy where the slices along `dim` at the places `index` (1-D) names hold the
        reduction ("prod", "mean", "amax" or "amin") of the source slices sent there (and of
        their own, unless include_self=False), as torch.index_reduce: scatter_reduce along
        `dim`."""
        if reduce not in ("prod", "mean", "amax", "amin"):
            raise InvalidArgumentError("index_reduce: reduce must be 'prod', 'mean', 'amax' or "
                                       f"'amin', got {reduce!r}")
        d, places = self._index_along("index_reduce", dim, index, source)
        return self.scatter_reduce(d, places, source, reduce, include_self=include_self)

    def _index_along(self, op: str, dim: int, index: ArrayLike, source: Tensor
                     ) -> tuple[int, np.ndarray]:
        """index_add's and index_copy's 1-D `index`, one entry per slice of `source` along
        `dim`, laid along that dim and broadcast to source's shape (scatter's index)."""
        index = _index_array(op, index)
        d = _dim(op, dim, self.ndim)
        size = self.shape[d] if self.ndim else 1
        if index.ndim > 1 or (index.size and (index.min() < 0 or index.max() >= size)):
            raise InvalidIndexError(f"{op}: index must be 0-d or 1-D with entries in [0, {size}), "
                                    f"got {index.tolist()}")
        if source.ndim != self.ndim or (self.ndim and (
                source.shape[d] != index.size
                or source.shape[:d] + source.shape[d + 1:] != self.shape[:d] + self.shape[d + 1:])):
            raise InvalidArgumentError(f"{op}: source of shape {source.shape} must have the "
                                       f"tensor's shape {self.shape} but {index.size} slices "
                                       f"along dim {dim}, one per index entry")
        if not self.ndim:
            return d, index.reshape(())
        laid = index.reshape((1,) * d + (-1,) + (1,) * (self.ndim - d - 1))
        return d, np.broadcast_to(laid, source.shape)

    def scatter_reduce(self, dim: int, index: ArrayLike, src: Tensor, reduce: str, *,
                       include_self: bool = True) -> Tensor:
        """A copy of this tensor where each place `index` names along `dim` (as in scatter)
        holds the reduction ("sum", "prod", "mean", "amax" or "amin") of the src entries sent
        there, and of its own entry unless include_self=False; other places keep theirs.
        Composed: the entries sent to each place are gathered into the row of a table (padded
        with the reduction's identity) and reduced along it, so the gradient is that of sum,
        prod (exact with zeros), mean, amax or amin (ties share it equally, as in PyTorch)."""
        if reduce not in ("sum", "prod", "mean", "amax", "amin"):
            raise InvalidArgumentError("scatter_reduce: reduce must be 'sum', 'prod', 'mean', "
                                       f"'amax' or 'amin', got {reduce!r}")
        d, index, src = self._scatter_arguments("scatter_reduce", dim, index, src)
        if self.ndim == 0:
            return self.reshape(1).scatter_reduce(0, index.reshape(1), src.reshape(1), reduce,
                                                  include_self=include_self).reshape(())
        targets = _scatter_places(index, d, self.shape)
        if not targets.size:
            return self.clone()  # nothing sent anywhere
        order = np.argsort(targets, kind="stable")  # src entries grouped by place
        places, starts, counts = np.unique(targets[order], return_index=True,
                                           return_counts=True)
        flat = self.reshape(-1)
        kind = self.dtype.kind
        low, high = ((-np.inf, np.inf) if kind == "f" else (False, True) if kind == "b"
                     else (np.iinfo(self.dtype).min, np.iinfo(self.dtype).max))
        identity = {"sum": 0, "mean": 0, "prod": 1, "amax": low, "amin": high}[reduce]
        pool = ops.Concat.apply(src.reshape(-1), flat,
                                Tensor._make(np.array([identity], dtype=self.dtype)), axis=0)
        table = np.full((len(places), counts.max(initial=0) + include_self), pool.shape[0] - 1)
        table[np.repeat(np.arange(len(places)), counts),
              np.arange(len(order)) - np.repeat(starts, counts)] = order
        if include_self:
            table[:, -1] = src.numel() + places
        rows = pool[table]
        if reduce == "mean":
            count = Tensor._make(np.asarray(counts + include_self, dtype=self.dtype))
            reduced = rows.sum(1, dtype=self.dtype)
            reduced = reduced / count if kind == "f" else reduced // count
        elif reduce in ("sum", "prod"):
            reduced = getattr(rows, reduce)(1, dtype=self.dtype)
        else:
            reduced = getattr(rows, reduce)(1)
        return self._write_at(places, reduced)

    def _scatter_arguments(self, op: str, dim: int, index: ArrayLike, src: Tensor
                           ) -> tuple[int, np.ndarray, Tensor]:
        """The scatter family's checks: `index` as gather's, src at least as large as index and
        of this tensor's dtype. Returns the dim wrapped, the index array, and src cut to
        index's shape (only those entries are used, as in PyTorch)."""
        index = _index_array(op, index)
        src = self._lift(src)
        d = _dim(op, dim, self.ndim)
        _check_index(op, index, self.shape, d)
        if src.ndim != index.ndim or any(i > n for i, n in zip(index.shape, src.shape)):
            raise InvalidArgumentError(f"{op}: src of shape {src.shape} is smaller than index of "
                                       f"shape {index.shape}")
        if src.dtype != self.dtype:
            raise InvalidTypeError(f"{op}: src has dtype {src.dtype} but the tensor {self.dtype}")
        if src.shape != index.shape:
            src = src[tuple(slice(n) for n in index.shape)]
        return d, index, src

    def _write_at(self, places: np.ndarray, values: Tensor) -> Tensor:
        """This tensor with the entries at the distinct flat positions `places` replaced by
        `values` (their gradient goes to values, not to the entries replaced)."""
        replaced = np.zeros(self.numel(), dtype=bool)
        replaced[places] = True
        cleared = self.reshape(-1).masked_fill(replaced, 0)
        return ops.ScatterAdd.apply(cleared, values, index=places).reshape(self.shape)

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        """Every window of `size` entries along `dimension`, `step` apart, as PyTorch's
        Tensor.unfold: that dim becomes the number of windows, and a new last dim of `size`
        holds each window. (F.unfold is im2col, a different op.)"""
        d = _dim("unfold", dimension, self.ndim)
        n = self.shape[d] if self.ndim else 1
        if not 0 <= size <= n or step <= 0:
            raise InvalidArgumentError(f"unfold: size {size} must be in [0, {n}] (dim "
                                       f"{dimension}'s size) and step {step} positive")
        if self.ndim == 0:
            return self.reshape(1).unfold(0, size, step).reshape(size)
        starts = np.arange((n - size) // step + 1) * step
        windows = self[(slice(None),) * d + (starts[:, None] + np.arange(size),)]
        return windows.movedim(d + 1, -1)

    def repeat_interleave(self, repeats: int | ArrayLike, dim: int | None = None) -> Tensor:
        """Each entry repeated `repeats` times along `dim` (one count for all, or one per
        entry), next to each other: [a, b] -> [a, a, b, b]; with no dim, of the flattened
        tensor."""
        if dim is None:
            return self.flatten().repeat_interleave(repeats, 0)
        d = _dim("repeat_interleave", dim, self.ndim)
        n = self.shape[d] if self.ndim else 1
        counts = np.asarray(_as_array(repeats))
        if counts.dtype.kind not in "iu" or counts.ndim > 1 or counts.size not in (1, n) or \
                (counts < 0).any():
            raise InvalidArgumentError("repeat_interleave: repeats must be a non-negative int or "
                                       f"{n} of them (one per entry of dim {dim}), got {repeats!r}")
        index = np.repeat(np.arange(n), np.broadcast_to(counts.reshape(-1), (n,)))
        return self.reshape(self.shape or (1,))[(slice(None),) * d + (index,)]

    def diag(self, diagonal: int = 0) -> Tensor:
        """A 1-D tensor as the `diagonal`-th diagonal of a square matrix of zeros (0 the main
        one, > 0 above, < 0 below); of a 2-D tensor, that diagonal as a 1-D tensor."""
        if self.ndim == 2:
            return self.diagonal(diagonal)
        if self.ndim != 1:
            raise InvalidArgumentError(f"diag: needs a 1-D or 2-D tensor, got shape {self.shape}")
        n = self.shape[0]
        rows, cols = np.arange(n) + max(-diagonal, 0), np.arange(n) + max(diagonal, 0)
        zeros = Tensor._make(np.zeros((n + abs(diagonal),) * 2, dtype=self.dtype))
        return ops.ScatterAdd.apply(zeros, self, index=(rows, cols))

    def diagflat(self, offset: int = 0) -> Tensor:
        """The entries, flattened, as the `offset`-th diagonal of a square matrix of zeros."""
        return self.flatten().diag(offset)

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
        """Each 1-D slice along the last dim as the `offset`-th diagonal of a square matrix of
        zeros, in the result's dims dim1 and dim2, as torch.diag_embed (diag, batched)."""
        first, second = _dim_list("diag_embed", (dim1, dim2), self.ndim + 1)
        n = self.shape[-1] if self.ndim else 1
        rows, cols = np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)
        zeros = Tensor._make(np.zeros(self.shape[:-1] + (n + abs(offset),) * 2, self.dtype))
        square = ops.ScatterAdd.apply(zeros, self.reshape(self.shape or (1,)),
                                      index=(Ellipsis, rows, cols))
        return square.movedim((-2, -1), (first, second))

    def masked_select(self, mask: ArrayLike) -> Tensor:
        """The entries where the bool `mask` (which broadcasts with this tensor) is True, as a
        1-D tensor, in row-major order."""
        mask = _bool_mask("masked_select", mask)
        shape = _mask_broadcast_shape("masked_select", mask, self.shape)
        return ops.GetItem.apply(self.expand(shape), index=np.broadcast_to(mask, shape))

    def tril(self, diagonal: int = 0) -> Tensor:
        """The lower triangle of the last two dims: entries on and below the `diagonal`-th
        diagonal (0 the main one, > 0 above it, < 0 below it), zeros elsewhere."""
        return self._triangle("tril", lambda rows, cols: np.tri(rows, cols, diagonal, dtype=bool))

    def triu(self, diagonal: int = 0) -> Tensor:
        """The upper triangle of the last two dims: entries on and above the `diagonal`-th
        diagonal, zeros elsewhere."""
        return self._triangle("triu",
                              lambda rows, cols: ~np.tri(rows, cols, diagonal - 1, dtype=bool))

    def _triangle(self, op: str, keep: Callable[[int, int], np.ndarray]) -> Tensor:
        if self.ndim < 2:
            raise InvalidArgumentError(f"{op}: needs a tensor with at least 2 dims, got shape "
                                       f"{self.shape}")
        zero = Tensor._make(np.zeros((), dtype=self.dtype))
        return ops.Where.apply(self, zero, cond=keep(*self.shape[-2:]))

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """The entries x[i, i + offset] of the planes spanned by dim1 and dim2 (offset > 0:
        above the main diagonal, < 0: below), in a new last dim that replaces those two."""
        if self.ndim < 2:
            raise IndexError(f"diagonal: needs a tensor with at least 2 dims, got shape "
                             f"{self.shape}")
        planes = self.movedim(_dim_list("diagonal", (dim1, dim2), self.ndim), (-2, -1))
        rows, cols = planes.shape[-2:]
        row0, col0 = max(-offset, 0), max(offset, 0)
        steps = np.arange(max(min(rows - row0, cols - col0), 0))
        return ops.GetItem.apply(planes, index=(Ellipsis, steps + row0, steps + col0))

    # ---- linear algebra ----
    def matmul(self, other: ArrayLike) -> Tensor:
        """The matrix product self @ other, by PyTorch's (and numpy's) rules: a 1-D operand is
        a vector, and the dims before the last two are batch dims, which broadcast."""
        other = self._lift(other)
        if self.ndim == 0 or other.ndim == 0:
            raise InvalidArgumentError(f"matmul: both operands need at least 1 dim, got shapes "
                                       f"{self.shape} and {other.shape}")
        return ops.MatMul.apply(self, other)

    def dot(self, other: Tensor) -> Tensor:
        """The inner product of two 1-D tensors of one length (0-d); matmul for the rest."""
        other = self._lift(other)
        if self.ndim != 1 or other.shape != self.shape:
            raise InvalidArgumentError(f"dot: needs two 1-D tensors of one length, got shapes "
                                       f"{self.shape} and {other.shape}")
        return ops.MatMul.apply(self, other)

    def outer(self, vec2: Tensor) -> Tensor:
        """The outer product of two 1-D tensors: out[i, j] = self[i] * vec2[j]."""
        vec2 = self._lift(vec2)
        if self.ndim != 1 or vec2.ndim != 1:
            raise InvalidArgumentError(f"outer: needs two 1-D tensors, got shapes {self.shape} and "
                                       f"{vec2.shape}")
        return self.unsqueeze(1) * vec2

    def ger(self, vec2: Tensor) -> Tensor:
        """Alias of outer (PyTorch's older name)."""
        return self.outer(vec2)

    def vdot(self, other: Tensor) -> Tensor:
        """dot of the conjugate of self with other: dot itself, as minigrad's tensors are
        real."""
        return self.dot(other)

    def inner(self, other: Tensor) -> Tensor:
        """Sums of products over the last dims, out[i..., j...] = sum_k self[i..., k] *
        other[j..., k], as torch.inner (a plain product when either is 0-d)."""
        if self.ndim == 0 or other.ndim == 0:
            return self * other
        if self.shape[-1] != other.shape[-1]:
            raise InvalidArgumentError(f"inner: the last dims must match, got shapes "
                                       f"{self.shape} and {other.shape}")
        return tensordot(self, other, ([-1], [-1]))

    def kron(self, other: Tensor) -> Tensor:
        """The Kronecker product, as torch.kron: every entry of self times the whole of other,
        out[i * m + k] = self[i] * other[k] in each dim (the one with fewer dims gets leading
        dims of size 1)."""
        ndim = max(self.ndim, other.ndim)
        a_shape = (1,) * (ndim - self.ndim) + self.shape
        b_shape = (1,) * (ndim - other.ndim) + other.shape
        # a's dims at the even places, b's at the odd ones: the product holds every pair
        a = self.reshape([n for size in a_shape for n in (size, 1)])
        b = other.reshape([n for size in b_shape for n in (1, size)])
        return (a * b).reshape([m * n for m, n in zip(a_shape, b_shape)])

    def cross(self, other: Tensor, dim: int | None = None) -> Tensor:
        """The cross product of the 3-vectors along `dim`, as torch.cross: by default the first
        dim of size 3 (torch.linalg.cross's default is -1); the other dims broadcast."""
        if self.ndim != other.ndim:
            raise InvalidArgumentError(f"cross: the tensors must have as many dims, got shapes "
                                       f"{self.shape} and {other.shape}")
        a, b = self._operands(other)
        if dim is None:
            d = next((i for i, n in enumerate(self.shape) if n == 3), None)
            if d is None:
                raise InvalidArgumentError(f"cross: no dim of size 3 in shape {self.shape}")
        else:
            d = _dim("cross", dim, self.ndim)
        if a.shape[d] != 3 or b.shape[d] != 3:
            raise InvalidArgumentError(f"cross: dim {d} must have size 3, got shapes {a.shape} "
                                       f"and {b.shape}")

        def taken(t: Tensor, order: list[int]) -> Tensor:
            return t.index_select(d, np.array(order))

        next_, after_next = [1, 2, 0], [2, 0, 1]  # (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)
        return taken(a, next_) * taken(b, after_next) - taken(a, after_next) * taken(b, next_)

    def mm(self, mat2: Tensor) -> Tensor:
        """The product of two matrices (2-D tensors only; matmul broadcasts)."""
        mat2 = self._lift(mat2)
        if self.ndim != 2 or mat2.ndim != 2:
            raise InvalidArgumentError(f"mm: needs two 2-D tensors, got shapes {self.shape} and "
                                       f"{mat2.shape}")
        return self.matmul(mat2)

    def bmm(self, mat2: Tensor) -> Tensor:
        """Batched matrix product of (b, n, m) and (b, m, p) tensors: no broadcasting."""
        mat2 = self._lift(mat2)
        if self.ndim != 3 or mat2.ndim != 3 or self.shape[0] != mat2.shape[0]:
            raise InvalidArgumentError(f"bmm: needs two 3-D tensors with the same batch size, "
                                       f"got shapes {self.shape} and {mat2.shape}")
        return self.matmul(mat2)

    def mv(self, vec: Tensor) -> Tensor:
        """The product of a matrix (n, m) and a vector (m,)."""
        vec = self._lift(vec)
        if self.ndim != 2 or vec.ndim != 1:
            raise InvalidArgumentError(f"mv: needs a 2-D and a 1-D tensor, got shapes "
                                       f"{self.shape} and {vec.shape}")
        return self.matmul(vec)

    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        """beta * self + alpha * (mat1 @ mat2), self broadcasting to the product's shape."""
        return self._add_scaled("addmm", self._lift(mat1).mm(mat2), beta, alpha)

    def addmv(self, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        """beta * self + alpha * (mat @ vec), self broadcasting to the product's shape."""
        return self._add_scaled("addmv", self._lift(mat).mv(vec), beta, alpha)

    def addr(self, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        """beta * self + alpha * outer(vec1, vec2), self broadcasting to the outer product's
        shape."""
        return self._add_scaled("addr", self._lift(vec1).outer(vec2), beta, alpha)

    def baddbmm(self, batch1: Tensor, batch2: Tensor, *, beta: float = 1,
                alpha: float = 1) -> Tensor:
        """beta * self + alpha * bmm(batch1, batch2), self broadcasting to the products' shape."""
        return self._add_scaled("baddbmm", self._lift(batch1).bmm(batch2), beta, alpha)

    def addbmm(self, batch1: Tensor, batch2: Tensor, *, beta: float = 1,
               alpha: float = 1) -> Tensor:
        """beta * self + alpha * (the sum over the batch of batch1[b] @ batch2[b]), self
        broadcasting to one product's shape."""
        return self._add_scaled("addbmm", self._lift(batch1).bmm(batch2).sum(0), beta, alpha)

    def _add_scaled(self, name: str, product: Tensor, beta: float, alpha: float) -> Tensor:
        """beta * self + alpha * product, the sum behind addmm and its kin; self must broadcast
        to the product's shape (the result has the product's shape, as in PyTorch)."""
        if not engine._broadcasts_to(self.shape, product.shape):
            raise InvalidArgumentError(f"{name}: self of shape {self.shape} does not broadcast "
                                       f"to the product's shape {product.shape}")
        scaled = product if alpha == 1 else product * alpha
        if beta == 0:
            return scaled  # self is ignored, NaN and inf included, as in PyTorch
        return scaled + (self if beta == 1 else self * beta)

    def trace(self) -> Tensor:
        """The sum of the main diagonal of a 2-D tensor."""
        if self.ndim != 2:
            raise InvalidArgumentError(f"trace: needs a 2-D tensor, got shape {self.shape}")
        return self.diagonal().sum()

    # the torch.* spellings of torch.linalg's functions (minigrad.linalg holds the rest)
    def det(self) -> Tensor:
        """linalg.det: the determinant of each square matrix."""
        return linalg.det(self)

    def logdet(self) -> Tensor:
        """log det of each square matrix, from slogdet: NaN where det < 0, -inf where it is
        0."""
        sign, logabsdet = linalg.slogdet(self)
        return where(sign.data < 0, math.nan, logabsdet)

    def slogdet(self) -> linalg.SlogdetResult:
        """linalg.slogdet: (sign, log |det|) of each square matrix."""
        return linalg.slogdet(self)

    def inverse(self) -> Tensor:
        """linalg.inv: the inverse of each square matrix."""
        return linalg.inv(self)

    def cholesky(self, upper: bool = False) -> Tensor:
        """linalg.cholesky, with `upper` positional as torch.cholesky's."""
        return linalg.cholesky(self, upper=upper)

    def qr(self, some: bool = True) -> linalg.QRResult:
        """torch.qr: linalg.qr with mode 'reduced' (some=True) or 'complete'."""
        return linalg.qr(self, "reduced" if some else "complete")

    def svd(self, some: bool = True, compute_uv: bool = True) -> linalg.SVDVectors:
        """torch.svd's older form: (U, S, V), not Vh; the reduced factors unless some=False.
        With compute_uv=False, U and V are zero matrices (m x m and n x n), as torch.svd's, and
        S is linalg.svdvals."""
        if not compute_uv:
            S = linalg.svdvals(self)  # first: it checks the shape

            def zeros(size: int) -> Tensor:
                return Tensor._make(np.zeros(self.shape[:-2] + (size, size), dtype=self.dtype))

            return linalg.SVDVectors(zeros(self.shape[-2]), S, zeros(self.shape[-1]))
        U, S, Vh = linalg.svd(self, full_matrices=not some)
        return linalg.SVDVectors(U, S, Vh.mT)

    def pinverse(self, rcond: float = 1e-15) -> Tensor:
        """linalg.pinv with rtol=rcond."""
        return linalg.pinv(self, rtol=rcond)

    def matrix_exp(self) -> Tensor:
        """linalg.matrix_exp: the exponential of each square matrix."""
        return linalg.matrix_exp(self)

    def matrix_power(self, n: int) -> Tensor:
        """linalg.matrix_power: the square matrices to the integer power n."""
        return linalg.matrix_power(self, n)

    def triangular_solve(self, A: Tensor, upper: bool = True, transpose: bool = False,
                         unitriangular: bool = False) -> linalg.TriangularSolveResult:
        """torch.triangular_solve: X with A X = self (A.T X = self with transpose), A
        triangular, as (solution, cloned_coefficient), the latter a copy of A."""
        if transpose:  # the lower triangle of A.T is the upper one of A
            A_used, upper = A.mT, not upper
        else:
            A_used = A
        X = linalg.solve_triangular(A_used, self, upper=upper, unitriangular=unitriangular)
        return linalg.TriangularSolveResult(X, A.clone())

    def cholesky_solve(self, input2: Tensor, upper: bool = False) -> Tensor:
        """torch.cholesky_solve: X with A X = self, A given by its Cholesky factor input2
        (A = L L.T, or with `upper` A = U.T U): two triangular solves; batch dims broadcast."""
        lower = input2.mT if upper else input2
        Y = linalg.solve_triangular(lower, self, upper=False)
        return linalg.solve_triangular(lower.mT, Y, upper=True)

    def cholesky_inverse(self, upper: bool = False) -> Tensor:
        """torch.cholesky_inverse: the inverse of A = L L.T (or with `upper` U.T U) from its
        Cholesky factor, this tensor: cholesky_solve of the identity."""
        if self.ndim < 2:
            raise InvalidArgumentError(f"cholesky_inverse: needs square matrices, got shape "
                                       f"{self.shape}")
        return linalg._eye(self.shape[-1], self).cholesky_solve(self, upper)

    def lu_solve(self, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
        """torch.lu_solve: X with A X = self, A given by linalg.lu_factor's (LU, pivots)."""
        return linalg.lu_solve(LU_data, LU_pivots, self)

    def lu(self, pivot: bool = True, get_infos: bool = False
           ) -> linalg.LUFactorResult | tuple[Tensor, Tensor, Tensor]:
        """torch.lu (PyTorch's older linalg.lu_factor): (LU, pivots), and with get_infos the
        int32 infos, per matrix 0 or the 1-based place of the first zero on U's diagonal; a
        singular matrix is factored rather than refused, as PyTorch's."""
        LU, pivots = linalg._lu("lu", self, pivot)
        if not get_infos:
            return linalg.LUFactorResult(LU, pivots)
        return LU, pivots, Tensor._make(linalg._lu_infos(LU.data))

    # ---- autograd ----
    def backward(self, gradient: ArrayLike | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False,
                 inputs: Tensor | Sequence[Tensor] | None = None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's `.grad` (`+=`, so zero them between steps).

        `gradient` is the gradient of some final scalar with respect to this tensor; it defaults
        to 1 for a one-element tensor. The graph's saved arrays are released afterwards unless
        `retain_graph=True`. With `inputs` (tensors requiring grad), only those get `.grad` (and
        the tensors on the way to them that retain grad), and only the ops on a path to them
        run, as in PyTorch. `create_graph=True` (gradients of gradients) is not supported.
        """
        engine.refuse_create_graph("backward", create_graph)
        if inputs is not None:
            inputs = engine.differentiated_tensors("backward", inputs)
        seed = engine.seed_gradient(self, gradient)
        for tensor, g in engine.backpropagate(self, seed, bool(retain_graph), wanted=inputs):
            engine.accumulate_grad(tensor, g)
            if tensor._post_accumulate_grad_hooks:
                for hook in list(tensor._post_accumulate_grad_hooks.values()):
                    hook(tensor)

    # ---- conversions and copies (last in the class: `float`, `int` and `bool` name methods) ----
    def __float__(self) -> float:
        return float(self.item())  # one entry only (item() raises otherwise)

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """The int a one-element integer tensor holds, so that it serves where Python wants an
        index: `lst[i]`, `range(n)`, `x.narrow(1, start, 2)`, a slice's bounds; a bool is 0 or
        1, as in PyTorch. Floats are refused (TypeError). Indexing a Tensor with a Tensor never
        comes here: `__getitem__` reads an index tensor as an index array."""
        if self.dtype.kind not in "iub" or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            f"index, got dtype {self.dtype} and shape {self.shape}")
        return int(self.data.reshape(()))

    def to(self, *args: Any, dtype: Any = None, device: Any = None,
           non_blocking: bool = False, copy: bool = False) -> Tensor:
        """PyTorch's forms: to(dtype), to(device, dtype), to(other tensor), each with
        non_blocking and copy after. This tensor in that dtype (another tensor's, with a
        tensor); itself when that changes nothing, unless copy=True. Float to float is
        differentiable; to integers or bool it is not (as in PyTorch). The device must be the
        CPU, where every tensor is (minigrad/devices.py)."""
        dtype, flags = _to_arguments("to", args, dtype, device, 2)
        if len(flags) == 2:  # non_blocking (nothing to wait for here) and copy, by position
            copy = flags[1]
        if dtype is None:
            return self.clone() if copy else self
        try:
            target = np.dtype(dtype)
        except TypeError:
            raise InvalidTypeError(f"to: expected a dtype (e.g. minigrad.float64), a device or "
                                   f"a tensor, got {dtype!r}") from None
        if target == self.dtype:
            return self.clone() if copy else self
        if target.kind == "f" and self.dtype.kind == "f":
            return ops.Cast.apply(self, dtype=target)
        return Tensor._make(self.data.astype(target))

    def type(self, dtype: Any = None, non_blocking: bool = False) -> str | Tensor:
        """With no dtype, the name of PyTorch's legacy tensor type under minigrad's module,
        'minigrad.FloatTensor' for float32; with one, this tensor in that dtype, as `to`.
        `dtype` may be a dtype or such a name, 'minigrad.DoubleTensor' or PyTorch's
        'torch.DoubleTensor'. `non_blocking` changes nothing (there is no device to copy to)."""
        if dtype is None:
            return f"minigrad.{_LEGACY_TYPE_NAMES.get(self.dtype, self.dtype.name)}Tensor"
        if isinstance(dtype, str):
            module, _, name = dtype.rpartition(".")
            named = {f"{legacy}Tensor": numpy_dtype
                     for numpy_dtype, legacy in _LEGACY_TYPE_NAMES.items()}
            if module not in ("minigrad", "torch") or name not in named:
                raise ValueError(f"type: invalid type: {dtype!r}; expected a dtype or a name "
                                 f"such as 'minigrad.FloatTensor'")
            dtype = named[name]
        return self.to(dtype)

    def type_as(self, other: Tensor) -> Tensor:
        """This tensor in `other`'s dtype."""
        return self.to(other.dtype)

    def float(self) -> Tensor:
        """As float32."""
        return self.to(np.float32)

    def double(self) -> Tensor:
        """As float64."""
        return self.to(np.float64)

    def half(self) -> Tensor:
        """As float16."""
        return self.to(np.float16)

    def long(self) -> Tensor:
        """As int64 (not differentiable)."""
        return self.to(np.int64)

    def int(self) -> Tensor:
        """As int32 (not differentiable)."""
        return self.to(np.int32)

    def bool(self) -> Tensor:
        """As bool: True where nonzero (not differentiable)."""
        return self.to(np.bool_)

    def byte(self) -> Tensor:
        """As uint8 (not differentiable)."""
        return self.to(np.uint8)

    def char(self) -> Tensor:
        """As int8 (not differentiable)."""
        return self.to(np.int8)

    def short(self) -> Tensor:
        """As int16 (not differentiable)."""
        return self.to(np.int16)

    # new tensors in this tensor's dtype unless `dtype` is given
    def new_tensor(self, data: ArrayLike, *, dtype: Any = None,
                   requires_grad: bool = False) -> Tensor:
        """A new tensor holding a copy of `data`."""
        return creation.tensor(data.data if isinstance(data, Tensor) else data,
                               dtype=self.dtype if dtype is None else dtype,
                               requires_grad=requires_grad)

    def new_full(self, size: Sequence[int], fill_value: float, *, dtype: Any = None,
                 requires_grad: bool = False) -> Tensor:
        return creation.full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                             requires_grad=requires_grad)

    def new_zeros(self, *sizes: int | Sequence[int], size: Sequence[int] | None = None,
                  dtype: Any = None, requires_grad: bool = False) -> Tensor:
        return self._new_sized(creation.zeros, "new_zeros", sizes, size, dtype, requires_grad)

    def new_ones(self, *sizes: int | Sequence[int], size: Sequence[int] | None = None,
                 dtype: Any = None, requires_grad: bool = False) -> Tensor:
        return self._new_sized(creation.ones, "new_ones", sizes, size, dtype, requires_grad)

    def new_empty(self, *sizes: int | Sequence[int], size: Sequence[int] | None = None,
                  dtype: Any = None, requires_grad: bool = False) -> Tensor:
        return self._new_sized(creation.empty, "new_empty", sizes, size, dtype, requires_grad)

    def _new_sized(self, make: Callable, name: str, sizes: tuple, size: Sequence[int] | None,
                   dtype: Any, requires_grad: bool) -> Tensor:
        return make(_ints(sizes, size, name, "size"), dtype=self.dtype if dtype is None else dtype,
                    requires_grad=requires_grad)

    def is_floating_point(self) -> bool:
        return self.dtype.kind == "f"

    def nelement(self) -> int:
        """Alias of numel."""
        return self.numel()

    def element_size(self) -> int:
        """Bytes per entry."""
        return self.dtype.itemsize

    # ---- PyTorch's queries of the layout, the dtype and the gradient ----
    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        """The steps, in entries, between neighbours along each dim of the numpy array (or
        along `dim`): (4, 1) for a (3, 4) tensor, (1, 4) for its transpose, 0 along an expanded
        dim, as PyTorch's."""
        steps = tuple(step // self.dtype.itemsize for step in self.data.strides)
        return steps if dim is None else steps[_existing_dim("stride", dim, self.ndim)]

    def storage_offset(self) -> int:
        """Where the first entry lies in the memory of the array that owns it, in entries:
        1 for x[1:] of a 1-D x, as PyTorch's."""
        owner = self.data
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        first, start = (a.__array_interface__["data"][0] for a in (self.data, owner))
        return (first - start) // self.dtype.itemsize

    def is_contiguous(self) -> bool:
        """Whether the entries lie one after another in row-major order (dims of size 1
        aside), as numpy's C_CONTIGUOUS: False for a transpose, a strided slice or an
        expanded tensor."""
        return self.data.flags.c_contiguous

    def ndimension(self) -> int:
        """Alias of dim."""
        return self.dim()

    @property
    def nbytes(self) -> int:
        """The bytes of its entries, numel() * itemsize (an expanded tensor's shared entries
        counted each time, as PyTorch's)."""
        return self.data.nbytes

    @property
    def itemsize(self) -> int:
        """Bytes per entry, as element_size()."""
        return self.element_size()

    def is_signed(self) -> bool:
        """Whether the dtype holds negative numbers: floats and signed integers, not unsigned
        integers or bool."""
        return self.dtype.kind in "fic"

    def is_complex(self) -> bool:
        return self.dtype.kind == "c"

    def is_same_size(self, other: Tensor) -> bool:
        """Whether the two shapes are equal."""
        return self.shape == other.shape

    def is_nonzero(self) -> bool:
        """The truth of the one entry; none or several raise, as bool(x)."""
        return bool(self)

    def isreal(self) -> Tensor:
        """True where an entry has no imaginary part: everywhere in a real tensor (outside
        the graph)."""
        return Tensor._make(np.isreal(self.data))

    def conj(self) -> Tensor:
        """The complex conjugate (outside the graph); a real tensor itself, as PyTorch's."""
        return Tensor._make(np.conj(self.data)) if self.is_complex() else self

    def resolve_conj(self) -> Tensor:
        """The tensor itself: minigrad has no lazily conjugated tensors to materialize."""
        return self

    def resolve_neg(self) -> Tensor:
        """The tensor itself: minigrad has no lazily negated tensors to materialize."""
        return self

    def clone(self) -> Tensor:
        """A copy in its own memory; the gradient passes through it unchanged."""
        if self.data.dtype.kind != "f":
            return Tensor._make(self.data.copy())
        return self * self._lift(1)  # x * 1 is exactly x, -0.0, inf and NaN included

    def contiguous(self) -> Tensor:
        """Itself when its entries lie in row-major order (is_contiguous), else a copy whose
        entries do, in the graph (the gradient passes unchanged)."""
        if self.is_contiguous():
            return self
        copy = self.clone()  # in this tensor's layout, as numpy's arithmetic and PyTorch's clone
        copy.data = np.ascontiguousarray(copy.data)
        return copy



# --------------------------------------------------------------------------------------------
# PyTorch's in-place variants of methods (`x.exp_()` of `x.exp()`): each computes the method's
# result and writes it into the tensor (Tensor._modified), or for the shape methods gives the
# tensor the result's shape (Tensor._reshaped)
# --------------------------------------------------------------------------------------------
_IN_PLACE_OF = (
    "abs", "absolute", "acos", "acosh", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr",
    "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh",
    "atan", "atan2", "atanh", "baddbmm", "bitwise_and", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil", "clamp_max", "clamp_min",
    "copysign", "cos", "cosh", "cumprod", "cumsum", "deg2rad", "digamma", "divide", "eq", "erf",
    "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "float_power", "floor", "floor_divide",
    "fmod", "frac", "gcd", "ge", "greater", "greater_equal", "gt", "heaviside", "hypot", "i0",
    "igamma", "igammac", "index_reduce", "lcm", "ldexp", "le", "lerp", "less", "less_equal",
    "lgamma", "log", "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or",
    "logical_xor", "logit", "lt", "multiply", "mvlgamma", "nan_to_num", "ne", "neg", "negative",
    "nextafter", "not_equal", "polygamma", "pow", "put", "rad2deg", "reciprocal", "remainder",
    "renorm", "round", "rsqrt", "sgn", "sign", "sin", "sinc", "sinh", "sqrt", "square", "subtract",
    "tan", "tril", "triu", "true_divide", "trunc", "xlogy",
)
_SHAPE_IN_PLACE_OF = ("squeeze", "unsqueeze", "t", "transpose", "swapaxes", "swapdims")


def _in_place_variant(name: str) -> Callable[..., Tensor]:
    """The method `name + "_"`: `x.name(*args, **kwargs)` written into x, which it returns."""
    out_of_place = getattr(Tensor, name)
    # float_power_ writes float64 only, as PyTorch's: its result may not be narrowed
    casting = "safe" if name == "float_power" else "same_kind"

    def in_place(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        dtype = kwargs.get("dtype")  # cumsum_'s and cumprod_'s: the result's is x's own
        if dtype is not None and np.dtype(dtype) != self.dtype:
            raise InvalidTypeError(f"{name}_: dtype {np.dtype(dtype)} is not the tensor's "
                                   f"{self.dtype}, into which the result is written")
        result = out_of_place(self, *args, **kwargs)
        if name in _SHAPE_IN_PLACE_OF:
            return self._reshaped(f"{name}_", result)
        operands = [self, *(a for a in (*args, *kwargs.values()) if isinstance(a, Tensor))]
        if (engine.is_grad_enabled() and not result.requires_grad and self.dtype.kind == "f"
                and any(t.requires_grad for t in operands)):
            # a comparison's 1s and 0s, outside the graph out of place: PyTorch's in-place
            # comparisons keep the tensor in the graph with gradient 0, a step function's
            result = self._step_function(result.data.astype(self.dtype), *operands[1:])
        return self._modified(f"{name}_", result, casting)

    in_place.__name__ = f"{name}_"
    in_place.__qualname__ = f"Tensor.{name}_"
    in_place.__signature__ = inspect.signature(out_of_place)  # type: ignore[attr-defined]
    if name in _SHAPE_IN_PLACE_OF:
        in_place.__doc__ = (f"In place: x takes the shape of `x.{name}(...)` and is returned "
                            f"(PyTorch's Tensor.{name}_); outside a graph it keeps its memory, "
                            f"shared with its views. The arguments are `Tensor.{name}`'s.")
    else:
        in_place.__doc__ = (f"In place: `x.{name}(...)` written into x, which is returned "
                            f"(PyTorch's Tensor.{name}_); the result must fit x's shape and "
                            f"dtype (an integer x's sqrt_() raises). The arguments are "
                            f"`Tensor.{name}`'s.")
    return in_place


for _name in _IN_PLACE_OF + _SHAPE_IN_PLACE_OF:
    setattr(Tensor, f"{_name}_", _in_place_variant(_name))
del _name


# PyTorch's legacy tensor type names (Tensor.type): 'torch.FloatTensor' is a float32 tensor
_LEGACY_TYPE_NAMES = {
    np.dtype(numpy_dtype): name for numpy_dtype, name in [
        (np.float16, "Half"), (np.float32, "Float"), (np.float64, "Double"),
        (np.uint8, "Byte"), (np.int8, "Char"), (np.int16, "Short"), (np.int32, "Int"),
        (np.int64, "Long"), (np.bool_, "Bool"), (np.uint16, "UInt16"), (np.uint32, "UInt32"),
        (np.uint64, "UInt64"), (np.complex64, "ComplexFloat"), (np.complex128, "ComplexDouble")]
}


# --------------------------------------------------------------------------------------------
# Indexing helpers: PyTorch's rule for ints next to index arrays (Tensor.__getitem__)
# --------------------------------------------------------------------------------------------
def _index_part(part: Any) -> Any:
    """One entry of an index as numpy takes it: a tensor as a copy of its array (GetItem's
    backward reads the index, which the caller may change meanwhile), and a 0-d integer array
    as the int it holds (PyTorch treats it as an int; numpy as an index array). A uint8 array
    is refused: PyTorch reads it as a mask (deprecated), numpy as integers."""
    if isinstance(part, Tensor):
        part = part.data
    if isinstance(part, np.ndarray):
        if part.dtype == np.uint8:
            raise InvalidIndexError("x[index]: a uint8 index is a mask in PyTorch (deprecated) "
                                    "and integers in numpy; index with a bool mask or int64 "
                                    "integers")
        if part.ndim == 0 and part.dtype.kind in "iu":
            return int(part)
        return part.copy()
    return part


def _index_parts(index: tuple, ndim: int) -> tuple:
    """The entries of an index (`_index_part`), with an Ellipsis written out as the full slices
    it stands for where index arrays are present: PyTorch reads arrays on both sides of an
    Ellipsis that covers no dim as adjacent (their dims stay in place), numpy as separated
    (their dims go first)."""
    parts = tuple(_index_part(part) for part in index)
    ellipses = [k for k, part in enumerate(parts) if part is Ellipsis]
    if len(ellipses) != 1 or not any(map(_is_array, parts)):
        return parts  # nothing to rewrite (several ellipses: numpy raises)
    covered = ndim - sum(map(_dims_indexed, parts))
    if covered < 0:
        return parts  # too many indices: numpy raises
    k = ellipses[0]
    return parts[:k] + (slice(None),) * covered + parts[k + 1:]


def _check_masks(parts: tuple, shape: tuple[int, ...]) -> None:
    """PyTorch's check that each bool array of an index has the shape of the dims it covers
    (numpy reads an empty one as an empty integer index instead, whatever those dims)."""
    covered = len(shape) - sum(map(_dims_indexed, parts))  # by an Ellipsis
    dim = 0
    for part in parts:
        if part is Ellipsis:
            dim += covered
            continue
        if isinstance(part, np.ndarray) and part.dtype == np.bool_ and part.ndim and \
                part.shape != shape[dim:dim + part.ndim]:
            raise InvalidIndexError(f"x[index]: a mask of shape {part.shape} does not match the "
                                    f"shape {shape[dim:dim + part.ndim]} of the dims it indexes "
                                    f"(from dim {dim} of a tensor of shape {shape})")
        dim += _dims_indexed(part)


def _dims_indexed(part: Any) -> int:
    """How many of the tensor's dims one index entry consumes (an Ellipsis: none of its own)."""
    if part is None or part is Ellipsis or isinstance(part, (bool, np.bool_)):
        return 0
    if isinstance(part, (np.ndarray, list, tuple)):
        array = np.asarray(part)
        return array.ndim if array.dtype.kind == "b" else 1
    return 1


def _is_int(part: Any) -> bool:
    return isinstance(part, (int, np.integer)) and not isinstance(part, bool)


def _is_array(part: Any) -> bool:
    """An advanced index: an integer or bool array (or list, or tuple: inside an index, both
    numpy and PyTorch read a tuple as a sequence of indices), or a bool scalar (numpy and
    PyTorch both index a new length-1 dim with it)."""
    return isinstance(part, (np.ndarray, list, tuple, bool, np.bool_))


def _select_ints(parts: tuple) -> Iterator[Any]:
    """The first step: the ints, slices, None and Ellipsis, with full slices over the dims that
    the index arrays will index (a bool array covers as many dims as it has)."""
    for part in parts:
        if not _is_array(part):
            yield part
        elif not isinstance(part, (bool, np.bool_)):
            mask = np.asarray(part)
            yield from [slice(None)] * (mask.ndim if mask.dtype.kind == "b" else 1)


def _drop_ints(parts: tuple) -> Iterator[Any]:
    """The second step, on the first step's result: the index arrays where they were, full
    slices over the dims the slices and None kept or made; the ints' dims are gone."""
    for part in parts:
        if isinstance(part, slice) or part is None:
            yield slice(None)
        elif not _is_int(part):
            yield part  # index arrays, bool scalars, Ellipsis


from . import functional, ops  # noqa: E402  (they import this module's Tensor)
from . import creation  # noqa: E402
from .tensor_functions import cat, corrcoef, cov, tensordot, where  # noqa: E402
from . import linalg  # noqa: E402
