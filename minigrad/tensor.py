"""`Tensor`: a numpy array that remembers how it was computed, and the Tensor API.

Tier 2 (compositions) lives here and in `functional.py`: every method below is either one
primitive op (`minigrad/ops/`) applied to this tensor, or a few readable lines of other methods.
None has a backward of its own; their gradients come from the primitives they are made of.
Names and meaning follow PyTorch (`dim=`, `keepdim=`); numpy's `axis=`/`keepdims=` work too.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, Union

import numpy as np

from . import engine
from .engine import ArrayLike

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


class Tensor:
    """An n-dimensional array that remembers how it was computed, so gradients can flow back.

    Python scalars and lists become float32; numpy float arrays keep float32 or float64; integer
    and bool arrays stay as they are (indices, targets, masks) and cannot require grad. Numpy
    arrays are wrapped without a copy.
    """

    __slots__ = ("data", "grad", "requires_grad", "grad_fn", "name", "_retains_grad", "__weakref__")
    __array_ufunc__ = None  # make `ndarray * tensor` call Tensor.__rmul__ instead of numpy's loop

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
                array = array.astype(np.float32)
            elif array.dtype.kind != "b":
                raise TypeError(f"Tensor: cannot make a tensor from {type(data).__name__} "
                                f"(numpy dtype {array.dtype}); give numbers or a numpy array")
        if requires_grad and array.dtype.kind != "f":
            raise TypeError(f"Tensor: only floating-point tensors can require grad, got dtype "
                            f"{array.dtype}; convert with Tensor(data, dtype=np.float32)")
        self.data: np.ndarray = array
        self.grad: np.ndarray | None = None
        self.requires_grad: bool = requires_grad
        self.grad_fn: engine.Function | None = None
        self.name: str | None = name
        self._retains_grad = False

    @staticmethod
    def _make(data: np.ndarray) -> Tensor:
        """Wrap an op's output without the checks of __init__ (the hot path of every op)."""
        t = object.__new__(Tensor)
        t.data = data
        t.grad = None
        t.requires_grad = False
        t.grad_fn = None
        t.name = None
        t._retains_grad = False
        return t

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

    def __len__(self) -> int:
        return len(self.data)

    def numpy(self) -> np.ndarray:
        return self.data

    def item(self) -> float:
        return self.data.item()

    def tolist(self) -> Any:
        """The entries as (nested) Python lists of Python numbers; a 0-d tensor gives a number."""
        return self.data.tolist()

    def detach(self) -> Tensor:
        """The same data, cut off from the graph."""
        return Tensor._make(self.data)

    def retain_grad(self) -> Tensor:
        """Keep `.grad` on this non-leaf tensor after backward (leaves always keep theirs)."""
        self._retains_grad = True
        return self

    def zero_grad(self) -> None:
        self.grad = None

    def __repr__(self) -> str:
        extra = f", grad_fn={type(self.grad_fn).__name__}" if self.grad_fn is not None else (
            ", requires_grad=True" if self.requires_grad else "")
        return f"Tensor(shape={self.shape}, dtype={self.dtype}{extra})"

    def __str__(self) -> str:
        return str(self.data)

    # ---- arithmetic: one primitive each ----
    def _lift(self, other: ArrayLike) -> Tensor:
        """A Python or numpy scalar takes this tensor's dtype (as in PyTorch): float64 math stays
        exact, float32 math never up-casts. With an integer or bool tensor the scalar keeps its
        own type and numpy promotes (int_tensor * 0.5 is float, not truncated to 0)."""
        if isinstance(other, Tensor):
            return other
        if isinstance(other, (int, float, np.number)):
            if self.data.dtype.kind == "f":
                return Tensor._make(np.asarray(other, dtype=self.data.dtype))
            return Tensor._make(np.asarray(other))
        return Tensor(other)

    def __add__(self, other: ArrayLike) -> Tensor:
        return ops.Add.apply(self, self._lift(other))

    def __radd__(self, other: ArrayLike) -> Tensor:
        return ops.Add.apply(self._lift(other), self)

    def __sub__(self, other: ArrayLike) -> Tensor:
        return ops.Sub.apply(self, self._lift(other))

    def __rsub__(self, other: ArrayLike) -> Tensor:
        return ops.Sub.apply(self._lift(other), self)

    def __mul__(self, other: ArrayLike) -> Tensor:
        return ops.Mul.apply(self, self._lift(other))

    def __rmul__(self, other: ArrayLike) -> Tensor:
        return ops.Mul.apply(self._lift(other), self)

    def __truediv__(self, other: ArrayLike) -> Tensor:
        return ops.Div.apply(self, self._lift(other))

    def __rtruediv__(self, other: ArrayLike) -> Tensor:
        return ops.Div.apply(self._lift(other), self)

    def __pow__(self, exponent: ArrayLike) -> Tensor:
        return ops.Pow.apply(self, self._lift(exponent))

    def __rpow__(self, base: ArrayLike) -> Tensor:
        return ops.Pow.apply(self._lift(base), self)

    def __matmul__(self, other: ArrayLike) -> Tensor:
        return ops.MatMul.apply(self, self._lift(other))

    def __rmatmul__(self, other: ArrayLike) -> Tensor:
        return ops.MatMul.apply(self._lift(other), self)

    def __neg__(self) -> Tensor:
        return ops.Neg.apply(self)

    def __mod__(self, other: ArrayLike) -> Tensor:
        return ops.Remainder.apply(self, self._lift(other))

    def __rmod__(self, other: ArrayLike) -> Tensor:
        return ops.Remainder.apply(self._lift(other), self)

    def __floordiv__(self, other: ArrayLike) -> Tensor:
        return self.floor_divide(other)

    def __rfloordiv__(self, other: ArrayLike) -> Tensor:
        return self._lift(other).floor_divide(self)

    # PyTorch's method names for the operators
    def add(self, other: ArrayLike, *, alpha: float = 1) -> Tensor:
        """self + alpha * other."""
        return self + (other if alpha == 1 else self._lift(other) * alpha)

    def sub(self, other: ArrayLike, *, alpha: float = 1) -> Tensor:
        """self - alpha * other."""
        return self - (other if alpha == 1 else self._lift(other) * alpha)

    def mul(self, other: ArrayLike) -> Tensor:
        return self * other

    def div(self, other: ArrayLike, *, rounding_mode: str | None = None) -> Tensor:
        """self / other; rounding_mode "trunc" rounds the quotient toward 0, "floor" down."""
        if rounding_mode is None:
            return self / other
        if rounding_mode == "trunc":
            return (self / other).trunc()
        if rounding_mode == "floor":
            return self.floor_divide(other)
        raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got "
                         f"{rounding_mode!r}")

    def pow(self, exponent: ArrayLike) -> Tensor:
        return self ** exponent

    def neg(self) -> Tensor:
        return -self

    def remainder(self, other: ArrayLike) -> Tensor:
        """self % other, with the sign of `other` (Python's and PyTorch's %)."""
        return self % other

    def floor_divide(self, other: ArrayLike) -> Tensor:
        """floor(self / other) as Python's // computes it. A step function: its gradient is 0
        (PyTorch raises in backward instead)."""
        other = self._lift(other)
        return self._step_function(np.floor_divide(self.data, other.data), other)

    # ---- comparisons and logic: bool tensors outside the graph, as in PyTorch ----
    def _compare(self, other: Any, compare: np.ufunc) -> Tensor:
        if isinstance(other, Tensor):
            other = other.data
        elif not isinstance(other, (int, float, np.ndarray, np.generic, list, tuple)):
            return NotImplemented  # e.g. x == None: Python falls back to identity (False)
        try:
            return Tensor._make(np.asarray(compare(self.data, other)))
        except ValueError:
            raise ValueError(f"{compare.__name__}: shapes {self.shape} and {np.shape(other)} do "
                             f"not broadcast together") from None

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
            raise TypeError(f"Tensor.__contains__ supports a tensor or a number, got "
                            f"{type(element).__name__}")
        return bool(np.any(self.data == _as_array(element)))

    def _bitwise(self, other: Any, op: np.ufunc) -> Tensor:
        """`op` on bool tensors (logical) or integer ones (bitwise), as PyTorch's & | ^ ~."""
        other = other.data if isinstance(other, Tensor) else other
        for kind in {self.data.dtype.kind, np.asarray(other).dtype.kind}:
            if kind not in "biu":
                raise TypeError(f"{op.__name__}: needs bool or integer tensors, got dtypes "
                                f"{self.dtype} and {np.asarray(other).dtype}; compare first, "
                                f"e.g. (x > 0) & (y > 0)")
        return Tensor._make(np.asarray(op(self.data, other)))

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
            raise TypeError(f"invert (~): needs a bool or integer tensor, got dtype {self.dtype}")
        return Tensor._make(np.invert(self.data))

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
        return ops.Exp.apply(self)

    def log(self) -> Tensor:
        return ops.Log.apply(self)

    def sqrt(self) -> Tensor:
        return ops.Sqrt.apply(self)

    def tanh(self) -> Tensor:
        return ops.Tanh.apply(self)

    def sigmoid(self) -> Tensor:
        return ops.Sigmoid.apply(self)

    def abs(self) -> Tensor:
        """|x| = x * sign(x); sign is a constant, so the gradient is sign(x) (0 at x = 0)."""
        return self * np.sign(self.data)

    def __abs__(self) -> Tensor:
        return self.abs()

    def relu(self) -> Tensor:
        return self.masked_fill(self.data <= 0, 0.0)  # NaN <= 0 is False: NaN stays NaN

    def masked_fill(self, mask: ArrayLike, value: float) -> Tensor:
        """Replace the entries where `mask` is True by `value` (their gradient is 0)."""
        mask = np.asarray(_as_array(mask), dtype=bool)
        if not engine._broadcasts_to(mask.shape, self.shape):
            raise ValueError(f"masked_fill: mask of shape {mask.shape} does not broadcast to "
                             f"the tensor's shape {self.shape}")
        return ops.Where.apply(self._lift(value), self, cond=mask)

    def erf(self) -> Tensor:
        """The error function, 2/sqrt(pi) * integral of exp(-t**2) from 0 to x."""
        return ops.Erf.apply(self)

    def sin(self) -> Tensor:
        return ops.Sin.apply(self)

    def cos(self) -> Tensor:
        return ops.Cos.apply(self)

    def tan(self) -> Tensor:
        return self.sin() / self.cos()

    def log1p(self) -> Tensor:
        """log(1 + x), accurate for small x."""
        return ops.Log1p.apply(self)

    def expm1(self) -> Tensor:
        """exp(x) - 1, accurate for small x."""
        return ops.Expm1.apply(self)

    def log2(self) -> Tensor:
        return self.log() / math.log(2)

    def log10(self) -> Tensor:
        return self.log() / math.log(10)

    def exp2(self) -> Tensor:
        """2 ** x (numpy's power, exact for integer x, rather than exp(x * log 2))."""
        return self._lift(2) ** self

    def rsqrt(self) -> Tensor:
        """1 / sqrt(x)."""
        return self.sqrt().reciprocal()

    def reciprocal(self) -> Tensor:
        return 1 / self

    def square(self) -> Tensor:
        return self * self

    def _step_function(self, values: np.ndarray, *others: Tensor) -> Tensor:
        """`values`, a step function of this tensor (and of `others`): its floor, sign, ... As
        in PyTorch it stays connected to them with gradient 0, so that backward through it works
        and gives zeros: Where(cond=True) passes the values on and routes no gradient back."""
        out = Tensor._make(values)
        for tensor in (self, *others):
            out = ops.Where.apply(out, tensor, cond=np.True_)
        return out

    def _rounded(self, rounding: Any) -> Tensor:
        """`rounding(data)` with gradient 0; integers are already whole and are copied."""
        if self.data.dtype.kind != "f":
            return Tensor._make(self.data.copy())
        return self._step_function(rounding(self.data))

    def floor(self) -> Tensor:
        """Round down. Gradient 0, as in PyTorch."""
        return self._rounded(np.floor)

    def ceil(self) -> Tensor:
        """Round up. Gradient 0."""
        return self._rounded(np.ceil)

    def trunc(self) -> Tensor:
        """Round toward 0. Gradient 0."""
        return self._rounded(np.trunc)

    def round(self, decimals: int = 0) -> Tensor:
        """Round to `decimals` decimal places, halves to even (as PyTorch). Gradient 0."""
        return self._rounded(lambda data: np.round(data, decimals))

    def sign(self) -> Tensor:
        """-1, 0 or 1 by the sign of each entry (NaN stays NaN). Gradient 0."""
        if self.data.dtype.kind != "f":
            return Tensor._make(np.sign(self.data))
        return self._step_function(np.sign(self.data))

    def maximum(self, other: ArrayLike) -> Tensor:
        """The larger of self and other, entry by entry; NaN where either is NaN. At a tie each
        side gets half the gradient, as in PyTorch (at a tie of infinities other gets it all)."""
        other = self._lift(other)
        a, b = self.data, other.data
        larger = ops.Where.apply(self, other, cond=(a > b) | np.isnan(a))  # a tie picks other
        # at a tie add (self - other) / 2: it is 0, so the value stays exact, and it moves half
        # of other's gradient to self (not at infinite ties, where inf - inf would be NaN)
        tie, zero = (a == b) & np.isfinite(a), self._lift(0)
        at_ties = ops.Where.apply(self, zero, cond=tie) - ops.Where.apply(other, zero, cond=tie)
        return larger + at_ties * 0.5

    def minimum(self, other: ArrayLike) -> Tensor:
        """The smaller of self and other: -maximum(-self, -other)."""
        return -(-self).maximum(-self._lift(other))

    def clamp(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
        """Entries limited to [min, max] (tensors or numbers; either may be None). The gradient
        passes where min <= x <= max, and goes to min or max where they were taken. Where
        min > max the result is max, as in PyTorch."""
        if min is None and max is None:
            raise ValueError("clamp: give min, max or both")
        out = self
        if min is not None:
            low = self._lift(min)
            out = ops.Where.apply(low, out, cond=self.data < low.data)
        if max is not None:
            high = self._lift(max)
            out = ops.Where.apply(high, out, cond=out.data > high.data)
        return out

    def clip(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
        """Alias of clamp."""
        return self.clamp(min, max)

    def lerp(self, end: ArrayLike, weight: ArrayLike) -> Tensor:
        """self + weight * (end - self). As PyTorch, weights from 0.5 up compute
        end - (end - self) * (1 - weight), so that weight 1 gives `end` exactly."""
        end, weight = self._lift(end), self._lift(weight)
        difference = end - self
        from_start = self + weight * difference
        from_end = end - difference * (1 - weight)
        return ops.Where.apply(from_start, from_end, cond=np.abs(weight.data) < 0.5)

    # ---- reductions ----
    def sum(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
            keepdims: bool | None = None) -> Tensor:
        return ops.Sum.apply(self, axis=_dims(dim, axis), keepdims=keepdims or keepdim)

    def mean(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
             keepdims: bool | None = None) -> Tensor:
        total = self.sum(_dims(dim, axis), keepdims or keepdim)
        count = self.data.size // max(total.data.size, 1)  # entries averaged into each output
        return total / count

    def max(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
            keepdims: bool | None = None) -> Tensor:
        return ops.Max.apply(self, axis=_dims(dim, axis), keepdims=keepdims or keepdim)

    # ---- shape ----
    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        return ops.Reshape.apply(self, shape=shape)

    def permute(self, *dims: int | Sequence[int]) -> Tensor:
        """Reorder the dims: out.shape[i] = self.shape[dims[i]]."""
        if len(dims) == 1 and not isinstance(dims[0], (int, np.integer)):
            dims = tuple(dims[0])
        return ops.Transpose.apply(self, axes=dims)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dims (PyTorch's meaning, not numpy's axes permutation)."""
        dims = list(range(self.ndim))
        dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
        return self.permute(dims)

    @property
    def T(self) -> Tensor:
        """All dims reversed (the matrix transpose of a 2-D tensor)."""
        return self.permute(tuple(range(self.ndim))[::-1])

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped: a batch of transposed matrices."""
        return self.transpose(-2, -1)

    def __getitem__(self, index: Any) -> Tensor:
        """numpy's indexing with PyTorch's one difference: when ints and index arrays meet in one
        index, the ints select first (each removes its dim) and the arrays index what is left.
        So a (2, 3, 4) tensor's x[0, :, idx] has shape (3, len(idx)), as in PyTorch, where numpy
        treats 0 as an index array too and gives (len(idx), 3)."""
        if not isinstance(index, tuple):
            return ops.GetItem.apply(self, index=_index_part(index))
        parts = tuple(_index_part(part) for part in index)
        if any(map(_is_int, parts)) and any(map(_is_array, parts)):
            selected = ops.GetItem.apply(self, index=tuple(_select_ints(parts)))
            return ops.GetItem.apply(selected, index=tuple(_drop_ints(parts)))
        return ops.GetItem.apply(self, index=parts)

    # ---- autograd ----
    def backward(self, grad: ArrayLike | None = None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's `.grad` (`+=`, so zero them between steps).

        `grad` is the gradient of some final scalar with respect to this tensor; it defaults to 1
        for a one-element tensor. The graph's saved arrays are released afterwards unless
        `retain_graph=True`.
        """
        seed = engine.seed_gradient(self, grad)
        for tensor, g in engine.backpropagate(self, seed, retain_graph, wanted=None):
            if tensor.grad is None:
                tensor.grad = g
            else:
                tensor.grad += g

    # ---- conversions and copies (last in the class: `float`, `int` and `bool` name methods) ----
    def __float__(self) -> float:
        return float(self.item())  # one entry only (numpy's .item() raises otherwise)

    def __int__(self) -> int:
        return int(self.item())

    def to(self, dtype: Any) -> Tensor:
        """This tensor in `dtype` (or in another tensor's dtype); itself when it is in it already.
        Float to float is differentiable; to integers or bool it is not (as in PyTorch)."""
        if isinstance(dtype, Tensor):
            dtype = dtype.dtype
        try:
            target = np.dtype(dtype) if dtype is not None else None
        except TypeError:
            target = None
        if target is None:
            raise TypeError(f"to: expected a dtype (e.g. minigrad.float64) or a tensor, got "
                            f"{dtype!r}")
        if target == self.dtype:
            return self
        if target.kind == "f" and self.dtype.kind == "f":
            return ops.Cast.apply(self, dtype=target)
        return Tensor._make(self.data.astype(target))

    def type_as(self, other: Tensor) -> Tensor:
        """This tensor in `other`'s dtype."""
        return self.to(other.dtype)

    def float(self) -> Tensor:
        """As float32."""
        return self.to(np.float32)

    def double(self) -> Tensor:
        """As float64."""
        return self.to(np.float64)

    def long(self) -> Tensor:
        """As int64 (not differentiable)."""
        return self.to(np.int64)

    def int(self) -> Tensor:
        """As int32 (not differentiable)."""
        return self.to(np.int32)

    def bool(self) -> Tensor:
        """As bool: True where nonzero (not differentiable)."""
        return self.to(np.bool_)

    def clone(self) -> Tensor:
        """A copy in its own memory; the gradient passes through it unchanged."""
        if self.data.dtype.kind != "f":
            return Tensor._make(self.data.copy())
        return self * self._lift(1)  # x * 1 is exactly x, -0.0, inf and NaN included

    def view(self, *shape: int | Sequence[int]) -> Tensor:
        """`reshape` (any layout can be viewed here: numpy copies when it must)."""
        return self.reshape(*shape)

    def contiguous(self) -> Tensor:
        """Itself: minigrad has no strided layouts to make contiguous."""
        return self


# --------------------------------------------------------------------------------------------
# Indexing helpers: PyTorch's rule for ints next to index arrays (Tensor.__getitem__)
# --------------------------------------------------------------------------------------------
def _index_part(part: Any) -> Any:
    """One entry of an index as numpy takes it: a tensor as its array, and a 0-d integer array
    as the int it holds (PyTorch treats it as an int; numpy as an index array)."""
    if isinstance(part, Tensor):
        part = part.data
    if isinstance(part, np.ndarray) and part.ndim == 0 and part.dtype.kind in "iu":
        return int(part)
    return part


def _is_int(part: Any) -> bool:
    return isinstance(part, (int, np.integer)) and not isinstance(part, bool)


def _is_array(part: Any) -> bool:
    """An advanced index: an integer or bool array (or list), or a bool scalar (numpy and PyTorch
    both index a new length-1 dim with it)."""
    return isinstance(part, (np.ndarray, list, bool, np.bool_))


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


from . import ops  # noqa: E402  (the ops module imports this one's Tensor)
