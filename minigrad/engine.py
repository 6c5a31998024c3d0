"""The autograd engine: `Tensor`, the `Function` base class every op derives from, and backward.

A `Tensor` wraps a numpy array. Applying an op (`SomeOp.apply(a, b)`) runs the op's `forward` on
the arrays and, when gradients are being recorded, remembers the op instance on the result
(`result.grad_fn`) together with its input tensors. `backward()` walks that graph from the output
to the leaves in reverse topological order, calling each op's `backward` with the gradient of its
output and handing the returned gradients on to its inputs (the chain rule).
"""
from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Union

import numpy as np

ArrayLike = Union["Tensor", np.ndarray, float, int, Sequence]


# --------------------------------------------------------------------------------------------
# Gradient recording switch (per thread, so data-parallel workers do not disturb each other)
# --------------------------------------------------------------------------------------------
class _GradMode(threading.local):
    enabled = True


_grad_mode = _GradMode()


def is_grad_enabled() -> bool:
    """True when ops applied in this thread record a graph for backward."""
    return _grad_mode.enabled


class no_grad:
    """Context manager and decorator under which no graph is recorded (inference, optimizer steps).

    >>> with no_grad():
    ...     y = model(x)          # y.requires_grad is False, nothing is saved for backward
    """

    def __enter__(self) -> None:
        self._previous = _grad_mode.enabled
        _grad_mode.enabled = False

    def __exit__(self, *exc: object) -> None:
        _grad_mode.enabled = self._previous

    def __call__(self, func: Callable) -> Callable:
        if inspect.isgeneratorfunction(func):
            # a generator's body runs at each next(), long after the call returned: switch
            # recording off around every step, and back on while the caller has control
            @functools.wraps(func)
            def generator_wrapper(*args: Any, **kwargs: Any) -> Any:
                steps = func(*args, **kwargs)
                try:
                    while True:
                        with no_grad():
                            try:
                                value = next(steps)
                            except StopIteration as stop:
                                return stop.value
                        yield value
                finally:
                    steps.close()  # a caller that stops early still runs the body's cleanup

            return generator_wrapper

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with no_grad():
                return func(*args, **kwargs)

        return wrapper


# --------------------------------------------------------------------------------------------
# Function: the base class of every op
# --------------------------------------------------------------------------------------------
class Function:
    """One differentiable op: `forward` computes the result from numpy arrays, `backward` maps the
    gradient of that result to one gradient per tensor input (or None for an input that needs
    none), each the shape of its input.

    Subclasses store whatever backward needs as attributes of `self` in `forward`; the engine
    drops them once backward has used them. Positional arguments of `apply` are the inputs (tensors
    or arrays); keyword arguments are fixed settings (axis, eps, ...) passed to `forward` as is.
    `self.needs_input_grad[i]` tells backward whether input i wants a gradient at all.
    """

    registry: list[type[Function]] = []  # every op class defined, minigrad's own and extensions

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Function.registry.append(cls)

    def forward(self, *inputs: np.ndarray, **settings: Any) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must implement forward")

    def backward(self, grad: np.ndarray) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement backward")

    @classmethod
    def apply(cls, *inputs: ArrayLike, **settings: Any) -> Tensor:
        """Run the op on `inputs` and, if any input requires grad, record it for backward."""
        tensors = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
        fn = cls()
        data = fn.forward(*[t.data for t in tensors], **settings)
        if type(data) is not np.ndarray:
            data = np.asarray(data)  # numpy reductions return scalars, not 0-d arrays
        out = Tensor._make(data)
        if _grad_mode.enabled:
            needs = tuple([t.requires_grad for t in tensors])
            if True in needs:
                fn.inputs = tensors
                fn.needs_input_grad = needs
                out.requires_grad = True
                out.grad_fn = fn
        return out

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum `grad` down to `shape`: the backward of numpy broadcasting.

    Broadcasting copies an input along new leading axes and along axes of size 1, so its gradient
    is the sum of the output gradient over exactly those axes.
    """
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1
    )
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


# --------------------------------------------------------------------------------------------
# Tensor
# --------------------------------------------------------------------------------------------
def _as_array(value: ArrayLike) -> np.ndarray:
    """Masks, conditions and indices may come as Tensors or anything numpy accepts."""
    return value.data if isinstance(value, Tensor) else np.asarray(value)


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
        self.grad_fn: Function | None = None
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

    # ---- arithmetic: thin wrappers over the ops ----
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
        return _ops.Add.apply(self, self._lift(other))

    def __radd__(self, other: ArrayLike) -> Tensor:
        return _ops.Add.apply(self._lift(other), self)

    def __sub__(self, other: ArrayLike) -> Tensor:
        return _ops.Sub.apply(self, self._lift(other))

    def __rsub__(self, other: ArrayLike) -> Tensor:
        return _ops.Sub.apply(self._lift(other), self)

    def __mul__(self, other: ArrayLike) -> Tensor:
        return _ops.Mul.apply(self, self._lift(other))

    def __rmul__(self, other: ArrayLike) -> Tensor:
        return _ops.Mul.apply(self._lift(other), self)

    def __truediv__(self, other: ArrayLike) -> Tensor:
        return _ops.Div.apply(self, self._lift(other))

    def __rtruediv__(self, other: ArrayLike) -> Tensor:
        return _ops.Div.apply(self._lift(other), self)

    def __pow__(self, exponent: ArrayLike) -> Tensor:
        return _ops.Pow.apply(self, self._lift(exponent))

    def __rpow__(self, base: ArrayLike) -> Tensor:
        return _ops.Pow.apply(self._lift(base), self)

    def __matmul__(self, other: ArrayLike) -> Tensor:
        return _ops.MatMul.apply(self, self._lift(other))

    def __rmatmul__(self, other: ArrayLike) -> Tensor:
        return _ops.MatMul.apply(self._lift(other), self)

    def __neg__(self) -> Tensor:
        return _ops.Neg.apply(self)

    # ---- elementwise ----
    def exp(self) -> Tensor:
        return _ops.Exp.apply(self)

    def log(self) -> Tensor:
        return _ops.Log.apply(self)

    def sqrt(self) -> Tensor:
        return _ops.Sqrt.apply(self)

    def abs(self) -> Tensor:
        return _ops.Abs.apply(self)

    def tanh(self) -> Tensor:
        return _ops.Tanh.apply(self)

    def sigmoid(self) -> Tensor:
        return _ops.Sigmoid.apply(self)

    def relu(self) -> Tensor:
        return _ops.Relu.apply(self)

    def masked_fill(self, mask: ArrayLike, value: float) -> Tensor:
        """Replace the entries where `mask` is True by `value` (their gradient is 0)."""
        return _ops.MaskedFill.apply(self, mask=_as_array(mask), value=value)

    # ---- reductions ----
    def sum(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        return _ops.Sum.apply(self, axis=axis, keepdims=keepdims)

    def mean(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        return _ops.Mean.apply(self, axis=axis, keepdims=keepdims)

    def max(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        return _ops.Max.apply(self, axis=axis, keepdims=keepdims)

    # ---- shape ----
    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        return _ops.Reshape.apply(self, shape=shape)

    def transpose(self, *axes: int | Sequence[int]) -> Tensor:
        if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = tuple(axes[0])
        return _ops.Transpose.apply(self, axes=axes or None)

    @property
    def T(self) -> Tensor:
        return _ops.Transpose.apply(self, axes=None)

    def __getitem__(self, index: Any) -> Tensor:
        return _ops.GetItem.apply(self, index=index)

    # ---- autograd ----
    def backward(self, grad: ArrayLike | None = None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's `.grad` (`+=`, so zero them between steps).

        `grad` is the gradient of some final scalar with respect to this tensor; it defaults to 1
        for a one-element tensor. The graph's saved arrays are released afterwards unless
        `retain_graph=True`.
        """
        seed = _seed_gradient(self, grad)
        for tensor, g in _backpropagate(self, seed, retain_graph, wanted=None):
            if tensor.grad is None:
                tensor.grad = g
            else:
                tensor.grad += g


def _seed_gradient(output: Tensor, grad: ArrayLike | None) -> np.ndarray:
    if not output.requires_grad:
        raise RuntimeError("backward: this tensor does not require grad, so there is nothing to "
                           "differentiate; create the leaves with requires_grad=True (and do not "
                           "compute under no_grad)")
    if grad is None:
        if output.size != 1:
            raise RuntimeError(f"backward: grad can be implied only for a one-element output, "
                               f"this one has shape {output.shape}; pass grad= of that shape, "
                               f"or reduce first (e.g. loss.sum())")
        return np.ones_like(output.data)
    seed = np.array(_as_array(grad), dtype=output.dtype)  # a copy: backward must not alias it
    if seed.shape != output.shape:
        raise ValueError(f"backward: grad has shape {seed.shape} but the output has shape "
                         f"{output.shape}")
    return seed


def _topological_order(root: Tensor) -> list[Tensor]:
    """Tensors that lead to `root` and require grad, inputs before outputs (iterative DFS, so a
    graph of any depth works without recursion)."""
    order: list[Tensor] = []
    visited: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        tensor, inputs_done = stack.pop()
        if inputs_done:
            order.append(tensor)
            continue
        if id(tensor) in visited:
            continue
        visited.add(id(tensor))
        stack.append((tensor, True))
        fn = tensor.grad_fn
        if fn is not None:
            if fn.inputs is None:
                raise RuntimeError(
                    "backward: trying to backward through the graph a second time: its saved "
                    f"arrays were freed by the first backward (at {type(fn).__name__}); call the "
                    "first backward with retain_graph=True if you need to backward twice")
            for parent in fn.inputs:
                if parent.requires_grad and id(parent) not in visited:
                    stack.append((parent, False))
    return order


def _backpropagate(root: Tensor, seed: np.ndarray, retain_graph: bool,
                   wanted: Sequence[Tensor] | None) -> Iterator[tuple[Tensor, np.ndarray]]:
    """Run every op's backward once, in reverse topological order, yielding (tensor, gradient) for
    each leaf (and each tensor that retains grad), or only for `wanted` when given.

    Each yielded gradient is a fresh array owned by the caller. Gradients arriving at a tensor
    from several uses are summed; the sum is done in place only on arrays this loop allocated,
    because an op may return its upstream gradient itself (Add does) or a view of it.
    """
    wanted_ids = None if wanted is None else {id(t) for t in wanted}
    grads: dict[int, np.ndarray] = {id(root): seed}
    owned: set[int] = {id(root)}  # ids of tensors whose gradient array the loop allocated
    hooks = _backward_hooks
    for tensor in reversed(_topological_order(root)):
        key = id(tensor)
        g = grads.pop(key, None)
        if g is None:
            continue  # no path from root reaches this tensor's gradient (e.g. an unused input)
        fn = tensor.grad_fn
        report = tensor._retains_grad or fn is None if wanted_ids is None else key in wanted_ids
        if report:
            yield tensor, (g if key in owned else np.array(g))  # a copy, and never a scalar
        owned.discard(key)
        if fn is None:
            continue
        input_grads = fn.backward(g)
        if not isinstance(input_grads, tuple):
            input_grads = (input_grads,)
        _check_gradients(fn, input_grads)
        for hook in hooks:
            hook(fn, g, input_grads)
        for parent, needs, pg in zip(fn.inputs, fn.needs_input_grad, input_grads):
            if not needs or pg is None:
                continue
            if pg.dtype != parent.data.dtype:
                pg = pg.astype(parent.data.dtype)
            pkey = id(parent)
            previous = grads.get(pkey)
            if previous is None:
                grads[pkey] = pg
            elif pkey in owned:
                previous += pg
            else:
                # asarray: for 0-d gradients numpy's `+` returns a scalar, and `+=` on a scalar
                # would rebind the local name instead of accumulating in place
                grads[pkey] = np.asarray(previous + pg)
                owned.add(pkey)
        if not retain_graph:
            fn.__dict__.clear()  # saved arrays, inputs: the graph below is released
            fn.inputs = None


def _check_gradients(fn: Function, input_grads: tuple) -> None:
    """Catch an extender's backward that returns the wrong number or shape of gradients."""
    name = type(fn).__name__
    if len(input_grads) != len(fn.inputs):
        raise RuntimeError(f"{name}.backward returned {len(input_grads)} gradient(s) but "
                           f"{name} has {len(fn.inputs)} input(s); return one per input "
                           f"(None for an input that needs none)")
    for i, (parent, pg) in enumerate(zip(fn.inputs, input_grads)):
        if pg is not None and getattr(pg, "shape", None) != parent.data.shape:
            got = getattr(pg, "shape", type(pg).__name__)
            raise RuntimeError(f"{name}.backward returned a gradient of shape {got} for input "
                               f"{i}, which has shape {parent.data.shape}; a gradient must have "
                               f"its input's shape (use unbroadcast() after broadcasting)")


def grad(output: Tensor, inputs: Sequence[Tensor], grad_output: ArrayLike | None = None,
         retain_graph: bool = False) -> list[np.ndarray | None]:
    """Gradients of `output` with respect to `inputs`, returned instead of accumulated into
    `.grad` (so threads can backpropagate through shared parameters at the same time).

    An input that `output` does not depend on gets None.
    """
    seed = _seed_gradient(output, grad_output)
    found = {id(t): g for t, g in _backpropagate(output, seed, retain_graph, wanted=inputs)}
    grads, handed_out = [], set()
    for t in inputs:
        g = found.get(id(t))
        if g is not None and id(t) in handed_out:
            g = g.copy()  # the same tensor listed twice: two arrays, so neither aliases the other
        handed_out.add(id(t))
        grads.append(g)
    return grads


_backward_hooks: list[Callable[[Function, np.ndarray, tuple], None]] = []


from . import ops as _ops  # noqa: E402  (the ops import Tensor and Function from this module)
