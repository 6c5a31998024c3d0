"""The autograd engine: the `Function` base class every op derives from, and backward.

Applying an op (`SomeOp.apply(a, b)`) runs the op's `forward` on the inputs' numpy arrays and,
when gradients are being recorded, remembers the op instance on the result (`result.grad_fn`)
together with its input tensors. `backward` walks that graph from the output to the leaves in
reverse topological order, calling each op's `backward` with the gradient of its output and
handing the returned gradients on to its inputs (the chain rule).

Two per-thread switches live here: whether to record a graph (`no_grad`, `enable_grad`,
`set_grad_enabled`) and `fused` (use the fused kernels of `minigrad.kernels`, or spell every op
out in primitives).
"""
from __future__ import annotations

import bisect
import functools
import inspect
import itertools
import operator
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Union

import numpy as np

from .errors import InvalidArgumentError

if TYPE_CHECKING:
    from .tensor import Tensor

ArrayLike = Union["Tensor", np.ndarray, float, int, Sequence]
BackwardHook = Callable[["Function", np.ndarray, tuple], None]


# --------------------------------------------------------------------------------------------
# Per-thread switches (per thread, so data-parallel workers do not disturb each other)
# --------------------------------------------------------------------------------------------
class _Switches(threading.local):
    grad_enabled = True
    fused_enabled = True
    backward_hooks: tuple[BackwardHook, ...] = ()


_switches = _Switches()


def require_bool(where: str, value: Any, error: type[Exception] = TypeError) -> bool:
    """`value`, checked to be a Python bool: where PyTorch asks for a flag (requires_grad, a
    grad mode) it refuses 1, "no" or numpy.bool_ rather than read them by truthiness."""
    if not isinstance(value, bool):
        raise error(f"{where} must be a bool, got {value!r}")
    return value


def is_grad_enabled() -> bool:
    """True when ops applied in this thread record a graph for backward."""
    return _switches.grad_enabled


def is_fused_enabled() -> bool:
    """True when the functional API uses the fused kernels (the default) in this thread."""
    return _switches.fused_enabled


class _GradMode:
    """A context manager and decorator that sets, in this thread, whether ops record a graph,
    and restores the previous setting on exit."""

    enabled: bool

    def __new__(cls, func: Callable | None = None) -> Any:
        mode = super().__new__(cls)
        return mode if func is None else mode(func)  # @no_grad as well as @no_grad()

    def __enter__(self) -> None:
        self._previous = _switches.grad_enabled
        _switches.grad_enabled = self.enabled

    def __exit__(self, *exc: object) -> None:
        _switches.grad_enabled = self._previous

    def __call__(self, func: Callable) -> Callable:
        enabled = self.enabled
        if inspect.isgeneratorfunction(func):
            return _generator_in_mode(func, enabled)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(enabled):  # a fresh switch per call, so recursion restores
                return func(*args, **kwargs)

        return wrapper


def _generator_in_mode(func: Callable, enabled: bool) -> Callable:
    """A generator function decorated with a grad mode, as PyTorch does it: the mode holds
    while the generator's own code runs (each step up to a yield), and the caller's mode
    while it is suspended. Wrapping only the call would switch nothing, since calling a
    generator function runs none of its body."""

    @functools.wraps(func)
    def generator(*args: Any, **kwargs: Any) -> Any:
        inner = func(*args, **kwargs)
        resume: Callable[[], Any] = functools.partial(inner.send, None)
        while True:
            try:
                with set_grad_enabled(enabled):
                    item = resume()
            except StopIteration as stop:
                return stop.value
            try:
                sent = yield item
            except GeneratorExit:
                with set_grad_enabled(enabled):  # its finally blocks run in its mode too
                    inner.close()
                raise
            except BaseException as error:  # thrown in by the caller: raise it at the yield
                resume = functools.partial(inner.throw, error)
            else:
                resume = functools.partial(inner.send, sent)

    return generator


class no_grad(_GradMode):
    """Context manager and decorator under which no graph is recorded (inference, optimizer steps).

    >>> with no_grad():
    ...     y = model(x)          # y.requires_grad is False, nothing is saved for backward
    """

    enabled = False


class enable_grad(_GradMode):
    """Context manager and decorator under which graphs are recorded again (inside no_grad)."""

    enabled = True


class set_grad_enabled(_GradMode):
    """Record graphs or not: at once when called, until the end of the block in a `with`, or
    during each call of a function it decorates (PyTorch's three uses)."""

    def __new__(cls, mode: bool) -> set_grad_enabled:
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        self.enabled = require_bool("set_grad_enabled: mode", mode)
        self._previous = _switches.grad_enabled
        _switches.grad_enabled = self.enabled

    def __enter__(self) -> None:
        pass  # __init__ has switched already, and kept the setting that __exit__ restores

    def __call__(self, func: Callable) -> Callable:
        _switches.grad_enabled = self._previous  # as a decorator it switches only during calls
        return super().__call__(func)


class inference_mode(_GradMode):
    """PyTorch's faster no_grad for inference; minigrad has nothing more to skip, so
    inference_mode() is no_grad, in a block or on a function (`@inference_mode` or
    `@inference_mode()`), and inference_mode(False) is enable_grad, as in PyTorch."""

    enabled = False

    def __new__(cls, mode: bool | Callable = True) -> Any:
        if callable(mode):  # @inference_mode without parentheses
            return super().__new__(cls, mode)
        self = object.__new__(cls)
        self.enabled = not require_bool("inference_mode: mode", mode)
        return self

    def __init__(self, mode: bool = True) -> None:
        pass  # __new__ has read the mode


@contextmanager
def fused(enabled: bool = True) -> Iterator[None]:
    """Choose, in this thread, between the fused kernels (`minigrad.kernels`, the default) and
    their compositions of primitives, for everything built on `minigrad.functional`.

    >>> with minigrad.fused(False):
    ...     loss = model(x, y)     # the graph holds primitives only: every op is one you can read
    """
    previous = _switches.fused_enabled
    _switches.fused_enabled = bool(enabled)
    try:
        yield
    finally:
        _switches.fused_enabled = previous


@contextmanager
def backward_hook(hook: BackwardHook) -> Iterator[None]:
    """Call `hook(op, grad_of_output, grads_of_inputs)` after each op's backward that runs in this
    thread inside the `with` block (`trace_backward` is built on it)."""
    previous = _switches.backward_hooks
    _switches.backward_hooks = previous + (hook,)
    try:
        yield
    finally:
        _switches.backward_hooks = previous


# --------------------------------------------------------------------------------------------
# Function: the base class of every op
# --------------------------------------------------------------------------------------------
class Function:
    """One differentiable op: `forward` computes the result from numpy arrays, `backward` maps the
    gradient of that result to one gradient per tensor input (or None for an input that needs
    none).

    A gradient may have the shape of the broadcast result: the engine sums it back to its input's
    shape (`unbroadcast`), so ops that broadcast need not. Subclasses store whatever backward
    needs as attributes of `self` in `forward`; the engine drops them once backward has used
    them. Positional arguments of `apply` are the inputs (tensors or arrays); keyword arguments
    are fixed settings (axis, eps, ...) passed to `forward` as is. `self.needs_input_grad[i]`
    tells backward whether input i wants a gradient at all.

    Backward raises if an input was changed in place after the op used it (PyTorch's version
    check), since the arrays forward saved would no longer be what it saw. An op whose backward
    never reads its inputs' values (Add, Reshape, ...) sets `saves_inputs = False` and is not
    checked: changing its inputs afterwards harms nothing. One that reads each input only for
    the other inputs' gradients (a * b: da = G * b) sets `reads_inputs_for_the_others = True`,
    and an input is checked only while another one needs a gradient. One whose backward reads
    its own output (exp: da = G * out) sets `saves_output = True`, and the output is checked.
    """

    inputs: list[Tensor] | None
    needs_input_grad: tuple[bool, ...]
    saves_inputs = True
    reads_inputs_for_the_others = False
    saves_output = False

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
        if data.base is not None:  # a view (x[1:], a reshape, ...): its input's memory
            _share_version_counter(out, tensors)
        if _switches.grad_enabled:
            needs = tuple([t.requires_grad for t in tensors])
            if True in needs:
                fn.inputs = tensors
                fn.input_versions = [t._versions[0] for t in tensors]
                if fn.saves_output:
                    fn.output_versions = out._versions  # the output's counter, now at 0
                fn.needs_input_grad = needs
                out._requires_grad = True  # no setter checks: a result of a float op
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
# Backward
# --------------------------------------------------------------------------------------------
def seed_gradient(output: Tensor, grad: ArrayLike | None) -> np.ndarray:
    """The gradient that backward starts from: `grad`, or 1 for a one-element output."""
    if not output.requires_grad:
        raise RuntimeError("backward: this tensor does not require grad, so there is nothing to "
                           "differentiate; create the leaves with requires_grad=True (and do not "
                           "compute under no_grad)")
    if grad is None:
        if output.data.size != 1:
            raise RuntimeError(f"backward: grad can be implicitly created only for a one-element "
                               f"output, this one has shape {output.shape}; pass a gradient of "
                               f"that shape, or reduce first (e.g. loss.sum())")
        return np.ones_like(output.data)
    seed = np.asarray(grad.data if isinstance(grad, Tensor) else grad, dtype=output.dtype)
    if seed.shape != output.shape:
        raise InvalidArgumentError(f"backward: grad has shape {seed.shape} but the output has "
                                   f"shape {output.shape}")
    return seed


def refuse_create_graph(name: str, create_graph: bool) -> None:
    if create_graph:
        raise NotImplementedError(f"{name}: create_graph=True (gradients of gradients) is not "
                                  f"supported: backward computes on numpy arrays and records no "
                                  f"graph")


def differentiated_tensors(name: str, inputs: Tensor | Sequence[Tensor]) -> tuple[Tensor, ...]:
    """The `inputs` of grad() or backward() as a tuple, checked as PyTorch checks them."""
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not inputs:
        raise RuntimeError(f"{name}: inputs cannot be empty")
    if not all(t.requires_grad for t in inputs):
        raise RuntimeError(f"{name}: one of the differentiated tensors does not require grad")
    return inputs


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
            for parent in _parents(fn):
                if parent.requires_grad and id(parent) not in visited:
                    stack.append((parent, False))
    return order


def backpropagate(root: Tensor, seed: np.ndarray, retain_graph: bool,
                  wanted: Sequence[Tensor] | None) -> Iterator[tuple[Tensor, np.ndarray]]:
    """Run every op's backward once, in reverse topological order, yielding (tensor, gradient) for
    each leaf and each tensor that retains grad; with `wanted`, only the ops on a path to a
    wanted tensor run, and it yields for those tensors and the ones that retain grad among them.

    Gradients arriving at a tensor from several uses are summed out of place (an op may hand its
    upstream gradient on as is, so no gradient array is ever written to); each yielded gradient
    is a copy, so what the caller keeps aliases nothing.
    """
    order = _topological_order(root)
    wanted_ids = running = None
    if wanted is not None:
        wanted_ids = {id(t) for t in wanted}
        order, running = _leading_to(order, wanted_ids)
    grads: dict[int, np.ndarray] = {id(root): seed}
    hooks = _switches.backward_hooks
    for tensor in reversed(order):
        g = grads.pop(id(tensor), None)
        if g is None:
            continue  # no path from root reaches this tensor's gradient (e.g. an unused input)
        if tensor._hooks:
            g = _run_tensor_hooks(tensor, g)
        fn = tensor.grad_fn
        if wanted_ids is not None:
            # a leaf's retain_grad() changes nothing: grad() never writes a leaf's .grad
            report = id(tensor) in wanted_ids or fn is not None and tensor._retains_grad
        else:
            report = fn is None or tensor._retains_grad
        if report:
            yield tensor, np.array(g)
        if fn is None or running is not None and id(tensor) not in running:
            continue  # a wanted tensor none of whose inputs leads to another: its op need not run
        parents = _parents(fn)  # once per op: the version check and the gradients use it
        if fn.saves_inputs or fn.saves_output:
            _check_unchanged(fn, parents)
        input_grads = fn.backward(g)
        if not isinstance(input_grads, tuple):
            input_grads = (input_grads,)
        input_grads = _fit_to_inputs(fn, parents, input_grads)
        for hook in hooks:
            hook(fn, g, input_grads)
        for parent, pg in zip(parents, input_grads):
            if pg is not None:
                previous = grads.get(id(parent))
                grads[id(parent)] = pg if previous is None else previous + pg
        if not retain_graph:
            fn.__dict__.clear()  # saved arrays, inputs: the graph below is released
            fn.inputs = None


def _leading_to(order: list[Tensor], wanted_ids: set[int]) -> tuple[list[Tensor], set[int]]:
    """The tensors of `order` (inputs first) whose gradient reaches a wanted tensor, and the ids
    of those among them whose op must run (an input of it reaches one): as in PyTorch, grad()
    runs no other op's backward (a wanted non-leaf's own op stays unrun, its graph unfreed), and
    no other tensor's hooks or retained grad."""
    reaching = set(wanted_ids)
    kept, running = [], set()
    for tensor in order:
        fn = tensor.grad_fn
        if fn is not None and any(id(parent) in reaching for parent in _parents(fn)):
            running.add(id(tensor))
            reaching.add(id(tensor))
        if id(tensor) in reaching:
            kept.append(tensor)
    return kept, running


def accumulate_grad(tensor: Tensor, g: np.ndarray) -> None:
    """Add `g` into `tensor.grad`: a leaf's in place (PyTorch's AccumulateGrad), a retained
    non-leaf's into a new tensor, as PyTorch's retain_grad (an earlier `.grad` keeps its values).
    `g` is the caller's own array."""
    previous = tensor._grad
    if previous is None:
        tensor._grad = Tensor._make(g)
    elif tensor.grad_fn is None:
        previous.data += g
    else:
        g += previous.data  # not `previous.data + g`, which would make a 0-d sum a scalar
        tensor._grad = Tensor._make(g)


def _share_version_counter(view: Tensor, inputs: list[Tensor]) -> None:
    """Give a view the version counter of the input whose memory it shows, so that changing
    either in place counts for both."""
    owner = view.data.base
    for tensor in inputs:
        if tensor.data is owner or tensor.data.base is owner:
            view._versions = tensor._versions
            return


def _check_unchanged(fn: Function, parents: list[Tensor]) -> None:
    """PyTorch's version check: an input changed in place since the op used it (or its output,
    where backward reads that) would give the op's backward other values than forward saw."""
    name = type(fn).__name__
    if fn.saves_output and fn.output_versions[0]:
        raise RuntimeError(f"backward: the output of {name} was changed by an in-place "
                           f"operation, and {name}'s backward reads it; change a clone of it "
                           f"instead, or change it after backward")
    if not fn.saves_inputs:
        return
    needs = fn.needs_input_grad
    # `parents`: an input changed since by a recorded write is checked as the tensor standing
    # for what this op saw (Tensor._rebound_recorded left that array as it was)
    for position, (tensor, version) in enumerate(zip(parents, fn.input_versions)):
        if fn.reads_inputs_for_the_others and not any(
                needed for other, needed in enumerate(needs) if other != position):
            continue  # its value is read for no gradient wanted
        if tensor._version != version:
            raise RuntimeError(
                f"backward: input {position} of {name} (shape {tensor.shape}) was "
                f"changed by an in-place operation after {name} used it (its "
                f"version is {tensor._version}, expected {version}); change a clone of it "
                f"instead, or change it after backward")


def _parents(fn: Function) -> list[Tensor]:
    """The tensors whose gradients `fn`'s backward gives: its inputs, except that an input a
    recorded `x[index] = value` has written to since `fn` used it is replaced by the tensor
    that stands for the entries `fn` saw (Tensor._rebound_recorded)."""
    for t in fn.inputs:  # a loop, not any(): this runs for every op of every backward
        if t._rewrites is not None:
            return [_as_it_was(t, version) for t, version in zip(fn.inputs, fn.input_versions)]
    return fn.inputs


def _as_it_was(tensor: Tensor, version: int) -> Tensor:
    """`tensor` as an op that used it at `version` saw it: the tensor standing for its entries
    before the first recorded write after that version, or `tensor` itself."""
    rewrites = tensor._rewrites
    if not rewrites:
        return tensor
    # a bisection, not a scan: a buffer filled row by row, each row read back, has as many
    # rewrites as readers, and a scan made its backward quadratic in the number of rows
    first_after = bisect.bisect_right(rewrites, version, key=operator.itemgetter(0))
    return rewrites[first_after][1] if first_after < len(rewrites) else tensor


class HookHandle:
    """What `Tensor.register_hook` returns: `remove()` unregisters the hook."""

    _next_id = itertools.count()

    def __init__(self, hooks: dict[int, Callable], hook: Callable) -> None:
        self.hooks, self.id = hooks, next(HookHandle._next_id)
        hooks[self.id] = hook

    def remove(self) -> None:
        self.hooks.pop(self.id, None)


def _registered(hooks: dict[int, Any], entry: Any, prepend: bool) -> HookHandle:
    """`entry` added to `hooks` (a module's or an optimizer's), last or (prepend) first; its handle."""
    handle = HookHandle(hooks, entry)
    if prepend:
        ordered = {handle.id: hooks.pop(handle.id), **hooks}
        hooks.clear()
        hooks.update(ordered)
    return handle


def _run_tensor_hooks(tensor: Tensor, g: np.ndarray) -> np.ndarray:
    """`g` passed through the tensor's hooks in the order they were registered; each sees it as
    a tensor, as in PyTorch."""
    for hook in list(tensor._hooks.values()):
        replaced = hook(Tensor._make(g))
        if replaced is not None:
            replaced = np.asarray(replaced.data if isinstance(replaced, Tensor) else replaced)
            if replaced.shape != g.shape:
                raise RuntimeError(f"hook: returned a gradient of shape {replaced.shape} for a "
                                   f"tensor whose gradient has shape {g.shape}")
            g = replaced.astype(g.dtype, copy=False)
    return g


def _fit_to_inputs(fn: Function, parents: list[Tensor], input_grads: tuple) -> tuple:
    """Each wanted gradient summed back to its input's shape (`unbroadcast`) and cast to its
    dtype, None for an input that needs none; an extender's backward that returns the wrong
    number or shape of gradients gets a clear error. The inputs are `parents` (`_parents`): an
    input that squeeze_ and the like have reshaped since has the shape the op saw there."""
    name = type(fn).__name__
    if len(input_grads) != len(fn.inputs):
        raise RuntimeError(f"{name}.backward returned {len(input_grads)} gradient(s) but "
                           f"{name} has {len(fn.inputs)} input(s); return one per input "
                           f"(None for an input that needs none)")
    fitted = []
    for i, (parent, needs, pg) in enumerate(zip(parents, fn.needs_input_grad, input_grads)):
        if not needs:
            pg = None  # a constant's gradient is dropped before any work is spent on it
        if pg is not None:
            shape = parent.data.shape
            got = getattr(pg, "shape", None)
            if got != shape:
                if got is None or not _broadcasts_to(shape, got):
                    raise RuntimeError(
                        f"{name}.backward returned a gradient of shape "
                        f"{got if got is not None else type(pg).__name__} for input {i}, which "
                        f"has shape {shape}; a gradient must have its input's shape (or the "
                        f"shape that input was broadcast to)")
                pg = unbroadcast(pg, shape)
            if pg.dtype != parent.data.dtype:
                pg = pg.astype(parent.data.dtype)
        fitted.append(pg)
    return tuple(fitted)


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether numpy broadcasts `shape` to exactly `target`: each of its dims, aligned from the
    right, is 1 or target's. In Python: np.broadcast_shapes took ~10 us, a third of a small
    op's cost in F.linear."""
    return len(shape) <= len(target) and all(
        n == 1 or n == t for n, t in zip(reversed(shape), reversed(target)))


def grad(output: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: ArrayLike | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple[Tensor | None, ...]:
    """Gradients of `output` with respect to `inputs`, returned instead of accumulated into
    `.grad` (so threads can backpropagate through shared parameters at the same time), as
    `torch.autograd.grad`.

    Every input must require grad. One that `output` does not depend on raises, as in PyTorch,
    unless `allow_unused=True`, which gives None for it; an input listed twice gets two tensors.
    Only the ops on a path to an input run; a tensor there that retains grad gets it in `.grad`.
    PyTorch's sequence forms are taken for the one output: `[output]`, and `grad_outputs` as
    `[tensor]` or `[None]`. `create_graph=True` (gradients of gradients) is not supported.
    """
    refuse_create_graph("grad", create_graph)
    if isinstance(output, (list, tuple)):
        if len(output) != 1:
            raise InvalidArgumentError(f"grad: takes one output, got {len(output)}; call it once "
                                       f"per output, or differentiate their sum")
        output = output[0]
    if isinstance(grad_outputs, (list, tuple)) and len(grad_outputs) == 1 \
            and (grad_outputs[0] is None or isinstance(grad_outputs[0], Tensor)):
        grad_outputs = grad_outputs[0]  # PyTorch's form: one entry per output, and there is one
    inputs = differentiated_tensors("grad", inputs)
    seed = seed_gradient(output, grad_outputs)
    wanted_ids = {id(t) for t in inputs}
    found = {}
    for t, g in backpropagate(output, seed, bool(retain_graph), wanted=inputs):
        if id(t) in wanted_ids:
            found[id(t)] = g
        # as in PyTorch, retain_grad() keeps what grad() computed at a non-leaf too (on a leaf
        # it is a no-op: its .grad is backward's alone)
        if t._retains_grad and t.grad_fn is not None:
            accumulate_grad(t, g.copy() if id(t) in wanted_ids else g)
    grads, handed_out = [], set()
    for i, t in enumerate(inputs):
        g = found.get(id(t))
        if g is None and not allow_unused:
            raise RuntimeError(f"grad: the differentiated tensor at index {i} appears not to "
                               "have been used in the graph; set allow_unused=True if this is "
                               "what you want")
        if g is not None:
            g = Tensor._make(g.copy() if id(t) in handed_out else g)
        handed_out.add(id(t))
        grads.append(g)
    return tuple(grads)


from .tensor import Tensor  # noqa: E402  (Tensor's methods apply the ops defined on Function)
