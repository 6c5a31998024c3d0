"""`Tensor`: a numpy array that remembers how it was computed, and the Tensor API.

Tier 2 (compositions) lives here and in `functional.py`: every method below is either one
primitive op (`minigrad/ops/`) applied to this tensor, or a few readable lines of other methods.
None has a backward of its own; their gradients come from the primitives they are made of.
Names and meaning follow PyTorch (`dim=`, `keepdim=`); numpy's `axis=`/`keepdims=` work too.
"""
from __future__ import annotations

from collections.abc import Sequence
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

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def __len__(self) -> int:
        return len(self.data)

    def numpy(self) -> np.ndarray:
        return self.data

    def item(self) -> float:
        return self.data.item()

    def detach(self) -> Tensor:
        """The same data, cut off from the graph."""
        return Tensor._make(self.data)

    def round(self, decimals: int = 0) -> Tensor:
        """Rounded copy, for display; not differentiable."""
        return Tensor._make(np.round(self.data, decimals))

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

    def relu(self) -> Tensor:
        return self.masked_fill(self.data <= 0, 0.0)  # NaN <= 0 is False: NaN stays NaN

    def masked_fill(self, mask: ArrayLike, value: float) -> Tensor:
        """Replace the entries where `mask` is True by `value` (their gradient is 0)."""
        mask = np.asarray(_as_array(mask), dtype=bool)
        if not engine._broadcasts_to(mask.shape, self.shape):
            raise ValueError(f"masked_fill: mask of shape {mask.shape} does not broadcast to "
                             f"the tensor's shape {self.shape}")
        return ops.Where.apply(self._lift(value), self, cond=mask)

    # ---- reductions ----
    def sum(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
            keepdims: bool | None = None) -> Tensor:
        return ops.Sum.apply(self, axis=_dims(dim, axis), keepdims=keepdims or keepdim)

    def mean(self, dim: Dim = None, keepdim: bool = False, *, axis: Dim = None,
             keepdims: bool | None = None) -> Tensor:
        total = self.sum(_dims(dim, axis), keepdims or keepdim)
        count = self.size // max(total.size, 1)  # entries averaged into each output
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
        if isinstance(index, tuple):
            index = tuple(i.data if isinstance(i, Tensor) else i for i in index)
        elif isinstance(index, Tensor):
            index = index.data
        return ops.GetItem.apply(self, index=index)

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


from . import ops  # noqa: E402  (the ops module imports this one's Tensor)
