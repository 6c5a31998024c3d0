"""Layers: `Module` (parameters, buffers and sub-modules register themselves), `Linear`,
`Embedding`, `LayerNorm`, `BatchNorm1d`, `BatchNorm2d`, `GroupNorm`, `Dropout`, the containers
`ModuleList`, `ModuleDict`, `ParameterList` and `Sequential`, `Conv1d` to `Conv3d` and
`ConvTranspose1d` to `ConvTranspose3d`, pooling,
activations and losses, `EmbeddingBag`, `MultiheadAttention` and the Transformer layers, the
recurrent layers, with PyTorch's constructors and attribute names (a PyTorch state dict
loads as it is). Initialisation is explicit: every layer that draws random weights takes a numpy
`rng` (np.random.Generator) so a model is reproducible from one seed; `nn.init` re-initialises
a parameter in place, as torch.nn.init."""
from __future__ import annotations

import copy
import functools
import inspect
import math
from collections import OrderedDict
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from .. import devices
from .. import functional as F
from .. import init
from ..dtypes import get_default_dtype
from ..engine import (Function, HookHandle, _registered, is_grad_enabled, no_grad,
                      require_bool)
from ..errors import InvalidArgumentError, InvalidKeyError, InvalidTypeError
from ..tensor import Tensor, _as_array, _to_arguments
from ..tensor_functions import cat, stack


def _in_default_dtype(init: Callable[..., None]) -> Callable[..., None]:
    """A layer's `__init__` that reads `dtype=None` (given or left out) as
    `get_default_dtype()` at the time of the call, as PyTorch's layers do: one place for every
    layer, so none can capture the default at import or pass None on to numpy (which reads it
    as float64)."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def in_default_dtype(*args: Any, **kwargs: Any) -> None:
        bound = signature.bind(*args, **kwargs)
        if bound.arguments.get("dtype") is None:
            bound.arguments["dtype"] = get_default_dtype()
        init(*bound.args, **bound.kwargs)

    return in_default_dtype


class Parameter(Tensor):
    """A leaf tensor that a Module owns and an optimizer updates: PyTorch's
    `Parameter(data=None, requires_grad=True)` (no data: an empty tensor of the default float
    dtype)."""

    __slots__ = ()

    def __init__(self, data: Any = None, requires_grad: bool = True, *,
                 dtype: Any = None) -> None:
        if data is None:  # the dtype given, not an array's: Tensor makes float16 arrays float32
            data, dtype = np.empty(0), get_default_dtype() if dtype is None else dtype
        super().__init__(data, requires_grad=requires_grad, dtype=dtype)


class Buffer(Tensor):
    """A tensor that registers itself as a buffer when assigned to a Module attribute (as
    `register_buffer(name, buffer, buffer.persistent)`): PyTorch's
    `Buffer(data=None, *, persistent=True)`, sharing `data`'s array and keeping its
    requires_grad (no data: an empty tensor of the default float dtype)."""

    __slots__ = ("persistent",)

    def __init__(self, data: Any = None, *, persistent: bool = True) -> None:
        if data is None:
            data = Tensor(np.empty(0), dtype=get_default_dtype())
        # a tensor's dtype given, not read from its array: Tensor makes float16 arrays float32
        super().__init__(data, requires_grad=isinstance(data, Tensor) and data.requires_grad,
                         dtype=data.dtype if isinstance(data, Tensor) else None)
        self.persistent = persistent


_DATA_SLOT = Tensor.__dict__["data"]  # the array of a tensor, under _Uninitialized's property


class _Uninitialized:
    """What UninitializedParameter and UninitializedBuffer share, as PyTorch's: a tensor of a
    dtype but no shape yet, which a lazy module materializes in place (the same object, so an
    optimizer given it before then updates it after) when its first input shows the shape.
    Any use of its values before that raises ValueError, as PyTorch's."""

    __slots__ = ()
    cls_to_become: type[Tensor]

    @property
    def data(self) -> np.ndarray:
        raise ValueError(f"Attempted to use an uninitialized {self._kind()}: this happens when "
                         f"a lazy module's parameters or buffers are used before its first "
                         f"call, which infers their shapes (or before load_state_dict)")

    @data.setter
    def data(self, array: np.ndarray) -> None:
        _DATA_SLOT.__set__(self, array)

    @property
    def dtype(self) -> np.dtype:
        return _DATA_SLOT.__get__(self).dtype

    @property
    def shape(self) -> tuple[int, ...]:
        raise RuntimeError(f"Can't access the shape of an uninitialized {self._kind()}: run "
                           f"the lazy module once (or load a state dict) first")

    def _kind(self) -> str:
        return "parameter" if isinstance(self, Parameter) else "buffer"

    def materialize(self, shape: int | Sequence[int], dtype: Any = None) -> None:
        """Become a `cls_to_become` (Parameter, or a plain tensor for a buffer) of `shape`, of
        this dtype unless `dtype` is given, holding uninitialized values (np.empty's)."""
        array = np.empty(shape, self.dtype if dtype is None else dtype)
        self.__class__ = self.cls_to_become
        self.data = array

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class UninitializedParameter(_Uninitialized, Parameter):
    """A Parameter whose shape a lazy module sets at its first call (`materialize`), as
    PyTorch's `UninitializedParameter(requires_grad=True, *, dtype=None)` (the default float
    dtype unless given)."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, *, dtype: Any = None) -> None:
        super().__init__(None, requires_grad, dtype=dtype)

    def __deepcopy__(self, memo: dict) -> UninitializedParameter:
        # a new one: the default copy would read the values it has not got
        return UninitializedParameter(self.requires_grad, dtype=self.dtype)


class UninitializedBuffer(_Uninitialized, Buffer):
    """A buffer whose shape a lazy module sets at its first call (`materialize`), as PyTorch's
    `UninitializedBuffer(requires_grad=False, *, dtype=None, persistent=True)`; materialized it
    is a Buffer (PyTorch's: a plain Tensor), so assigning either registers a buffer."""

    __slots__ = ()
    cls_to_become = Buffer

    def __init__(self, requires_grad: bool = False, *, dtype: Any = None,
                 persistent: bool = True) -> None:
        super().__init__(Tensor(np.empty(0), requires_grad,
                                get_default_dtype() if dtype is None else dtype),
                         persistent=persistent)

    def __deepcopy__(self, memo: dict) -> UninitializedBuffer:
        return UninitializedBuffer(self.requires_grad, dtype=self.dtype,
                                   persistent=self.persistent)


class _IncompatibleKeys(NamedTuple):
    """What `Module.load_state_dict` returns, as PyTorch's: the module's names that the state
    lacks, and the state's names that the module lacks."""

    missing_keys: list[str]
    unexpected_keys: list[str]


class _BackwardHookBoundary:
    """One call of a module that has full backward hooks. Its positional inputs that require
    grad pass through one op (`_HookedInputs`: they are packed into one array, which the
    module reads back as views), so that their gradients arrive together, as PyTorch's hook
    sees them; its outputs likewise through one op (`_HookedOutputs`), read back through ops
    (`_HookedOutput`) that note each output's gradient. As PyTorch's one node for the outputs,
    that op runs once every output's gradient is known, and wherever one of them leads to a
    tensor backward or grad() wants; with no input requiring grad it runs the hooks."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.positions: list[int] = []
        self.arguments = 0
        self.grad_outputs: list[Tensor | None] = []

    def inputs(self, args: tuple) -> tuple:
        self.arguments = len(args)
        self.positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and
                          a.requires_grad]
        if not self.positions:
            return args
        packed = _HookedInputs.apply(*(args[i] for i in self.positions), boundary=self)
        args, start = list(args), 0
        for i in self.positions:
            shape, dtype, size = args[i].shape, args[i].dtype, args[i].numel()
            args[i] = packed[start:start + size].reshape(shape).to(dtype)
            start += size
        return tuple(args)

    def outputs(self, output: Any) -> Any:
        outputs = list(output) if isinstance(output, tuple) else [output]
        self.grad_outputs = [None] * len(outputs)
        hooked = [i for i, t in enumerate(outputs) if isinstance(t, Tensor) and t.requires_grad]
        if not hooked:
            return output
        packed = _HookedOutputs.apply(*(outputs[i] for i in hooked), boundary=self,
                                      indices=hooked)
        start = 0
        for i in hooked:
            shape, dtype = outputs[i].shape, outputs[i].dtype
            outputs[i] = _HookedOutput.apply(packed, boundary=self, index=i, start=start,
                                             shape=shape, dtype=dtype)
            start += outputs[i].numel()
        return tuple(outputs) if isinstance(output, tuple) else outputs[0]

    def fire(self, grad_input: tuple) -> tuple:
        """The module's hooks on (grad_input, grad_output); the grad_input they leave."""
        for hook, _, _ in list(self.module._backward_hooks.values()):
            replaced = hook(self.module, grad_input, tuple(self.grad_outputs))
            if replaced is not None:
                replaced = tuple(replaced)
                if not self.positions and any(g is not None for g in replaced):
                    raise RuntimeError("backward hook: no input of the module requires grad, "
                                       "so there is no gradient to replace; return None (or "
                                       "None for every input)")
                if len(replaced) != len(grad_input):
                    raise RuntimeError(f"backward hook: returned {len(replaced)} gradients "
                                       f"for {len(grad_input)} inputs")
                grad_input = replaced
        return grad_input


def _packed(arrays: tuple[np.ndarray, ...]) -> np.ndarray:
    """The arrays flattened into one, of the dtype they promote to."""
    dtype = np.result_type(*arrays)
    return np.concatenate([a.ravel().astype(dtype, copy=False) for a in arrays])


def _unpacked(g: np.ndarray, shapes: list[tuple[int, ...]], dtypes: list[np.dtype]
              ) -> list[np.ndarray]:
    """`g`, the gradient of a `_packed` array, cut into the arrays' shapes and dtypes."""
    bounds = np.cumsum([0] + [math.prod(shape) for shape in shapes])
    return [g[start:stop].reshape(shape).astype(dtype)
            for start, stop, shape, dtype in zip(bounds, bounds[1:], shapes, dtypes)]


class _HookedInputs(Function):
    """The inputs of a hooked module call that require grad, packed into one flat array (see
    _BackwardHookBoundary); backward unpacks their gradients and runs the module's hooks.
    dx_i = the hooks' grad_input[i] (G's part for x_i, unless a hook replaced it)"""

    saves_inputs = False

    def forward(self, *inputs: np.ndarray, boundary: _BackwardHookBoundary) -> np.ndarray:
        self.boundary, self.shapes = boundary, [a.shape for a in inputs]
        self.dtypes = [a.dtype for a in inputs]
        return _packed(inputs)

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, ...]:
        boundary = self.boundary
        grad_input: list[Tensor | None] = [None] * boundary.arguments
        for position, part in zip(boundary.positions, _unpacked(g, self.shapes, self.dtypes)):
            grad_input[position] = Tensor(part)
        grad_input = boundary.fire(tuple(grad_input))
        return tuple(None if grad_input[i] is None else _as_array(grad_input[i])
                     for i in boundary.positions)


class _HookedOutputs(Function):
    """The outputs of a hooked module call that require grad, packed into one flat array (see
    _BackwardHookBoundary), which `_HookedOutput` reads back; backward, which runs once they
    have all noted their gradients, runs the module's hooks when no input requires grad.
    dy_i = G's part for y_i (none for an output no gradient reached)"""

    saves_inputs = False

    def forward(self, *outputs: np.ndarray, boundary: _BackwardHookBoundary,
                indices: list[int]) -> np.ndarray:
        self.boundary, self.indices = boundary, indices
        self.shapes, self.dtypes = [a.shape for a in outputs], [a.dtype for a in outputs]
        return _packed(outputs)

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, ...]:
        boundary = self.boundary
        if not boundary.positions:
            boundary.fire((None,) * boundary.arguments)
        return tuple(None if boundary.grad_outputs[i] is None else part
                     for i, part in zip(self.indices, _unpacked(g, self.shapes, self.dtypes)))


class _HookedOutput(Function):
    """Output `index` of a hooked module call, read back from the `_HookedOutputs` array at
    `start`; backward notes its gradient for the hooks.   dpacked = G at its place, 0 elsewhere"""

    saves_inputs = False

    def forward(self, packed: np.ndarray, boundary: _BackwardHookBoundary, index: int,
                start: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        self.boundary, self.index, self.start, self.size = boundary, index, start, packed.size
        # a copy (astype's default): an op's own output, not a view of its input
        return packed[start:start + math.prod(shape)].reshape(shape).astype(dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        self.boundary.grad_outputs[self.index] = Tensor(g)
        if g.size == self.size:  # the call's only output
            return g.reshape(-1)
        spread = np.zeros(self.size, dtype=g.dtype)
        spread[self.start:self.start + g.size] = g.ravel()
        return spread


class Module:
    """Base class of layers and models: assign Parameters and Modules as attributes and they are
    found by `parameters()`, `named_parameters()`, `state_dict()` and `train()`/`eval()`;
    `register_buffer` adds state that is not trained (BatchNorm's running statistics)."""

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)
        # hook id -> (hook, with_kwargs, always_call); HookHandle.remove() deletes the entry
        object.__setattr__(self, "_forward_pre_hooks", {})
        object.__setattr__(self, "_forward_hooks", {})
        object.__setattr__(self, "_backward_hooks", {})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """minigrad's own layers that take a dtype read `dtype=None` as the default dtype at
        the time of the call (`_in_default_dtype`), and take PyTorch's `device=` too (the CPU
        only, minigrad/devices.py), as PyTorch's layers that make parameters or buffers do; a
        user's Module subclass is left as written."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if cls.__module__.startswith("minigrad.") and init is not None:
            parameters = inspect.signature(init).parameters
            if "dtype" in parameters:
                init = _in_default_dtype(init)
                cls.__init__ = init if "device" in parameters else devices.takes_device(init)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                                 f"before assigning attributes")
        registry = self._parameters if isinstance(value, Parameter) else \
            self._modules if isinstance(value, Module) else None
        if registry is None:
            # as PyTorch: a name registered as a parameter, sub-module or buffer takes only
            # that kind or None (kept registered, as an absent bias is), never a plain value
            for kind, named, expected in (("parameter", self._parameters, Parameter),
                                          ("child module", self._modules, Module),
                                          ("buffer", self._buffers, Tensor)):
                if name in named:
                    if value is not None and not isinstance(value, expected):
                        raise TypeError(f"cannot assign {type(value).__name__!r} as {kind} "
                                        f"{name!r} ({expected.__name__} or None expected)")
                    if isinstance(value, Buffer):
                        break  # registered again below, with the Buffer's persistence
                    named[name] = value
                    object.__setattr__(self, name, value)
                    return
            if isinstance(value, Buffer):
                self.register_buffer(name, value, value.persistent)
                return
        self._unregister(name, keep=registry)  # as PyTorch, a replaced one keeps its place
        if registry is not None:
            registry[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._unregister(name)  # as in PyTorch: `del model.bias` leaves its parameters too
        object.__delattr__(self, name)

    def _unregister(self, name: str, keep: dict[str, Any] | None = None) -> None:
        """Forget `name` as a parameter, buffer or sub-module (whichever it was), except in
        the registry `keep`."""
        for registry in (self._parameters, self._buffers, self._modules):
            if registry is not keep:
                registry.pop(name, None)
        self._non_persistent_buffers.discard(name)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep `tensor` as state of this module that is not a parameter: it is in
        `buffers()`, cast by `astype`, and (when persistent) in `state_dict()`."""
        self._check_new_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign {type(tensor).__name__!r} object to buffer "
                            f"{name!r} (Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)
        object.__setattr__(self, name, tensor)

    def _check_new_name(self, kind: str, name: str, registry: dict[str, Any]) -> None:
        """PyTorch's checks of a name to register: a non-empty string without '.', not an
        attribute of another kind already."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if "." in name or not name:
            raise KeyError(f"{kind} name must be non-empty and contain no '.', got {name!r}")
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute {name!r} already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add `param` under `name`, as assigning it does; None keeps the name as a parameter
        that is absent (what PyTorch's layers do for bias=False) and leaves it out of
        `parameters()` and `state_dict()`."""
        self._check_new_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign {type(param).__name__!r} object to parameter "
                            f"{name!r} (Parameter or None required)")
        self._register(self._parameters, name, param)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add `module` under `name`, as assigning it does (a name computed at run time)."""
        self._check_new_name("module", name, self._modules)
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._register(self._modules, name, module)

    register_module = add_module

    def _register(self, registry: dict[str, Any], name: str, value: Any) -> None:
        """register_parameter's and add_module's last step: assign `value`, or for None keep
        `name` registered as absent (a new name, or one of that kind, which keeps its place);
        assigning None alone would make a new name a plain attribute."""
        if value is not None:
            setattr(self, name, value)
        else:
            registry[name] = None
            object.__setattr__(self, name, None)

    def get_submodule(self, target: str) -> Module:
        """The module at dotted path `target` ("" is this one), as PyTorch's: AttributeError
        where the path leads nowhere or to something that is not a Module."""
        module = self
        for item in target.split(".") if target else []:
            if not hasattr(module, item):
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target`, as PyTorch's."""
        module, name = self._owner(target)
        param = module._parameters.get(name)
        if param is None:  # not a parameter, or one registered as absent (None)
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor | None:
        """The buffer at dotted path `target` (None for one registered as absent), as
        PyTorch's."""
        module, name = self._owner(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return module._buffers[name]

    def _owner(self, target: str) -> tuple[Module, str]:
        """The module holding the attribute at dotted path `target`, and its name there."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        return module, name

    def extra_repr(self) -> str:
        """The layer's settings, shown in its repr (PyTorch's hook): a layer overrides it."""
        return ""

    def __repr__(self) -> str:
        """PyTorch's layout: Name(settings), and each sub-module on a line of its own."""
        return self._layout([f"({name}): {module!r}" for name, module in self._modules.items()])

    def _layout(self, children: list[str]) -> str:
        extra = self.extra_repr()
        if not children:
            return f"{type(self).__name__}({extra})"
        lines = ([extra] if extra else []) + [child.replace("\n", "\n  ") for child in children]
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement forward")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._forward_pre_hooks or self._forward_hooks or self._backward_hooks:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    # PyTorch's module hooks: around forward, and on the gradients of a call's inputs and
    # outputs (register_full_backward_hook)
    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> HookHandle:
        """hook(module, args) before each forward (hook(module, args, kwargs) with_kwargs); it
        may return new args (a tuple, or one value), or (args, kwargs) with_kwargs."""
        return _registered(self._forward_pre_hooks, (hook, with_kwargs, False), prepend)

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False
                              ) -> HookHandle:
        """hook(module, args, output) after each forward (hook(module, args, kwargs, output)
        with_kwargs); it may return a new output. With always_call it runs even when forward
        raises (with output None), before the error goes on."""
        return _registered(self._forward_hooks, (hook, with_kwargs, always_call), prepend)

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False
                                    ) -> HookHandle:
        """hook(module, grad_input, grad_output) once the gradients of a call's positional
        tensor inputs are known: tuples of tensors (None for an argument that is no tensor
        requiring grad, or an output no gradient reached); it may return a new grad_input."""
        return _registered(self._backward_hooks, (hook, False, False), prepend)

    def _call_with_hooks(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        for hook, with_kwargs, _ in list(self._forward_pre_hooks.values()):
            result = hook(self, args, kwargs) if with_kwargs else hook(self, args)
            if result is None:
                continue
            if with_kwargs:
                args, kwargs = result
            else:
                args = result if isinstance(result, tuple) else (result,)
        boundary = None
        if self._backward_hooks and is_grad_enabled():
            boundary = _BackwardHookBoundary(self)
            args = boundary.inputs(args)
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            for hook, with_kwargs, always_call in list(self._forward_hooks.values()):
                if always_call:
                    hook(self, args, kwargs, None) if with_kwargs else hook(self, args, None)
            raise
        for hook, with_kwargs, _ in list(self._forward_hooks.values()):
            result = hook(self, args, kwargs, output) if with_kwargs else \
                hook(self, args, output)
            if result is not None:
                output = result
        return output if boundary is None else boundary.outputs(output)

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """(dotted name, module) of this module and every one below it, depth first; as in
        PyTorch, a module reachable by two names is listed once (under the first) unless
        remove_duplicate=False."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:  # a sub-module set to None is skipped, as in PyTorch
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                                remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """This module and every one below it, depth first, each once (unless
        remove_duplicate=False)."""
        return (module for _, module in self.named_modules(remove_duplicate=remove_duplicate))

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, module) of the direct sub-modules, each once (under its first name)."""
        seen: set[Module] = set()
        for name, module in list(self._modules.items()):
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        return (module for _, module in self.named_children())

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call fn on every sub-module, then on this one (PyTorch's order: for initialising
        weights)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _named_members(self, members: Callable[[Module], Iterable[tuple[str, Tensor | None]]],
                       prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, tensor) of `members(module)` of every module (of this one only when
        not `recurse`), module by module, names starting with `prefix`, and never a buffer set
        to None; with remove_duplicate, a tensor or module reachable by two names is listed
        once."""
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        seen: set[int] = set()
        for module_prefix, module in modules:
            for name, tensor in members(module):
                if tensor is None or (remove_duplicate and id(tensor) in seen):
                    continue
                seen.add(id(tensor))
                yield (f"{module_prefix}.{name}" if module_prefix else name), tensor

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, of sub-modules too unless recurse=False; a parameter
        shared by two modules is listed once unless remove_duplicate=False."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,  # type: ignore
                                   remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters, as a generator (PyTorch's: `next(model.parameters())` works; take
        list() of it to go over them twice)."""
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        return (b for _, b in self.named_buffers(recurse=recurse))

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient: to None, or to zeros in place (Tensor.zero_grad)."""
        for p in self.parameters():
            p.zero_grad(set_to_none)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set `requires_grad` of every parameter (False freezes them)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def train(self, mode: bool = True) -> Module:
        """Set the `training` flag (dropout on) here and in every sub-module."""
        require_bool("train: mode", mode, ValueError)  # PyTorch's class here
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def astype(self, dtype: Any) -> Module:
        """Cast every parameter and floating-point buffer to `dtype` in place (float64 for
        gradcheck, say); integer buffers (a step count) stay as they are, as in PyTorch."""
        for p in self.parameters():
            # the array itself, also an uninitialized parameter's (whose dtype this sets)
            p.data = _DATA_SLOT.__get__(p).astype(dtype)
            p.grad = None
        for b in self.buffers():
            if b.dtype.kind == "f":
                b.data = _DATA_SLOT.__get__(b).astype(dtype)
        return self

    def to(self, *args: Any, dtype: Any = None, device: Any = None,
           non_blocking: bool = False) -> Module:
        """PyTorch's `module.to(dtype)`, `to(device, dtype)` and `to(tensor)`: `astype`, for
        floating-point dtypes only; the device must be the CPU (minigrad/devices.py)."""
        dtype, _ = _to_arguments("Module.to", args, dtype, device, 1)
        if dtype is None:
            return self
        if np.dtype(dtype).kind != "f":
            raise TypeError(f"Module.to only accepts floating point dtypes, got {dtype}")
        return self.astype(dtype)

    def cpu(self) -> Module:
        """This module, on the CPU already."""
        return self

    def cuda(self, device: Any = None) -> Module:
        devices.on_cpu("Module.cuda", "cuda" if device is None else device)
        return self

    def float(self) -> Module:
        """`to(float32)`, as PyTorch's."""
        return self.to(np.float32)

    def double(self) -> Module:
        """`to(float64)`, as PyTorch's."""
        return self.to(np.float64)

    def _state(self) -> dict[str, Tensor]:
        """What state_dict saves: each module's parameters, then its persistent buffers; as in
        PyTorch, a shared tensor or module is saved under each of its names."""
        return dict(self._named_members(lambda m: [
            *m._parameters.items(),
            *((name, b) for name, b in m._buffers.items()
              if name not in m._non_persistent_buffers)], remove_duplicate=False))

    def state_dict(self, *, prefix: str = "", keep_vars: bool = False
                   ) -> dict[str, Any]:
        """`prefix` + parameter and persistent buffer name -> a copy of its array, or with
        keep_vars=True (or uninitialized, a lazy layer's) the tensor itself, as PyTorch's."""
        return {prefix + name: t if keep_vars or isinstance(t, _Uninitialized) else t.data.copy()
                for name, t in self._state().items()}

    def load_state_dict(self, state_dict: Mapping[str, Any],
                        strict: bool = True) -> _IncompatibleKeys:
        """Copy arrays (or Tensors) into the parameters and persistent buffers of the same
        names and return (missing_keys, unexpected_keys), as PyTorch. With strict=True a name
        missing on either side raises RuntimeError; with strict=False the names both sides
        have are loaded. A shape that differs raises either way. Nothing is copied unless all
        that is to be loaded fits. A lazy layer's uninitialized parameters and buffers are
        materialized in the state's shapes (an uninitialized one in the state is skipped)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        targets = self._state()
        missing = [name for name in targets if name not in state_dict]
        unexpected = [name for name in state_dict if name not in targets]
        if strict and (missing or unexpected):
            raise InvalidKeyError(f"load_state_dict for {type(self).__name__}: missing keys "
                                  f"{missing}, unexpected keys {unexpected}")
        values = {}
        for name, target in targets.items():
            if name in state_dict and not isinstance(state_dict[name], _Uninitialized):
                value = _as_array(state_dict[name])  # arrays, or Tensors and Parameters
                # a lazy layer's uninitialized tensor takes the shape (materialized below)
                if not isinstance(target, _Uninitialized) and value.shape != target.shape:
                    raise InvalidArgumentError(f"load_state_dict: {name} has shape "
                                               f"{value.shape} in the state but {target.shape} "
                                               f"in the model")
                values[name] = value
        for name, value in values.items():
            if isinstance(targets[name], _Uninitialized):
                targets[name].materialize(value.shape)
            np.copyto(targets[name].data, value, casting="same_kind")
            targets[name]._version += 1  # changed in place: a graph that saved it is stale
        return _IncompatibleKeys(missing, unexpected)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


class _ModuleSequence(Module):
    """What ModuleList and Sequential share, as PyTorch's: modules registered under '0', '1',
    ... (a Sequential's may have names), got and replaced by position; deleting, inserting or
    popping one numbers them '0', '1', ... again."""

    def _renumber(self, modules: list[Module]) -> None:
        for name in list(self._modules):
            delattr(self, name)
        self.extend(modules)

    def _sliced(self, items: list[tuple[str, Module]]) -> _ModuleSequence:
        raise NotImplementedError

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return self._sliced(list(self._modules.items())[index])
        return self._modules[_name_at(list(self._modules), index, "modules")]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, _name_at(list(self._modules), index, "modules"),
                _module(type(self).__name__, module))

    def __delitem__(self, index: int | slice) -> None:
        modules = list(self._modules.values())
        del modules[index]
        self._renumber(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> _ModuleSequence:
        setattr(self, str(len(self._modules)), _module(type(self).__name__, module))
        return self

    def extend(self, modules: Iterable[Module]) -> _ModuleSequence:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, _module(type(self).__name__, module))
        self._renumber(modules)

    def pop(self, index: int | slice) -> Any:
        popped = self[index]
        del self[index]
        return popped


def _name_at(names: list[str], index: int, kind: str) -> str:
    """The name at position `index` (negative: from the end) of a container's entries."""
    if not -len(names) <= index < len(names):
        raise IndexError(f"index {index} is out of range for {len(names)} {kind}")
    return names[index]


def _module(container: str, module: Any) -> Module:
    """`module`, checked to be a Module before a container registers it."""
    if not isinstance(module, Module):
        raise TypeError(f"{container}: {type(module).__name__} is not a Module subclass")
    return module


class ModuleList(_ModuleSequence):
    """A list of modules, registered under the names '0', '1', ...; a slice is a ModuleList."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        self.extend(modules if modules is not None else ())

    def _sliced(self, items: list[tuple[str, Module]]) -> ModuleList:
        return ModuleList(module for _, module in items)

    def __repr__(self) -> str:
        """As PyTorch prints it: a run of modules that print alike is one line, "(0-3): 4 x
        Block(...)"."""
        runs: list[list[Any]] = []  # [first index, last index, repr]
        for index, module in enumerate(self._modules.values()):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = index
            else:
                runs.append([index, index, text])
        return self._layout([f"({first}): {text}" if first == last else
                             f"({first}-{last}): {last - first + 1} x {text}"
                             for first, last, text in runs])


def _default_rng(rng: np.random.Generator | None) -> np.random.Generator:
    return rng if rng is not None else np.random.default_rng()


def _uniform_init(shape: tuple[int, ...], fan_in: int, rng: np.random.Generator,
                  dtype: Any) -> Parameter:
    """PyTorch's default for Linear and convolutions (kaiming_uniform with a = sqrt(5)):
    uniform in +-1/sqrt(fan_in), for the weight and the bias alike (zeros when there are no
    inputs, as PyTorch's bias then)."""
    bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
    return Parameter(rng.uniform(-bound, bound, shape), dtype=dtype)


class Linear(Module):
    """y = x @ weight.T + bias, weight (out_features, in_features) as in PyTorch.

    Initialised like PyTorch: uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        rng = _default_rng(rng)
        self.weight = _uniform_init((out_features, in_features), in_features, rng, dtype)
        self.bias = _uniform_init((out_features,), in_features, rng, dtype) if bias else None

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)


def _padding_index(layer: str, padding_idx: int | None, num_embeddings: int) -> int | None:
    """An embedding layer's padding_idx, checked and made non-negative, as PyTorch keeps it."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"{layer}: padding_idx must be within num_embeddings "
                             f"({num_embeddings}), got {padding_idx}")
    return padding_idx % num_embeddings


def _normal_table(num_embeddings: int, embedding_dim: int, padding_idx: int | None,
                  rng: np.random.Generator | None, dtype: Any) -> Parameter:
    """PyTorch's initial embedding table: N(0, 1), the padding row at zero."""
    weight = _default_rng(rng).standard_normal((num_embeddings, embedding_dim))
    if padding_idx is not None:
        weight[padding_idx] = 0
    return Parameter(weight, dtype=dtype)


class Embedding(Module):
    """A table of `num_embeddings` vectors of size `embedding_dim`; forward(indices) picks
    rows. Initialised N(0, 1), like PyTorch. With `max_norm`, the rows looked up are first
    scaled down in place to that norm (F.embedding's)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, *,
                 _weight: Parameter | None = None, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        super().__init__()
        padding_idx = _padding_index("Embedding", padding_idx, num_embeddings)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.weight = _weight if _weight is not None else \
            _normal_table(num_embeddings, embedding_dim, padding_idx, rng, dtype)

    @classmethod
    def from_pretrained(cls, embeddings: Any, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0) -> Embedding:
        """An Embedding whose weight is `embeddings` (num_embeddings, embedding_dim), as
        PyTorch's: it shares their memory, is frozen (requires_grad=False) unless freeze=False,
        and its padding row is kept as given (it gets no gradient)."""
        weight = Parameter(embeddings, requires_grad=not freeze)
        if weight.ndim != 2:  # PyTorch's class for it, as for padding_idx
            raise AssertionError(f"Embedding.from_pretrained: embeddings must be 2-dimensional, "
                                 f"got shape {weight.shape}")
        return cls(*weight.shape, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, _weight=weight)

    def extra_repr(self) -> str:
        settings = [f"{self.num_embeddings}, {self.embedding_dim}"]
        if self.padding_idx is not None:
            settings.append(f"padding_idx={self.padding_idx}")
        if self.max_norm is not None:
            settings.append(f"max_norm={self.max_norm}")
        if self.norm_type != 2:
            settings.append(f"norm_type={self.norm_type}")
        return ", ".join(settings)

    def forward(self, input: Any) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type)


class EmbeddingBag(Module):
    """F.embedding_bag as a layer: a table of `num_embeddings` vectors of size `embedding_dim`
    (N(0, 1), the `padding_idx` row at zero, as PyTorch's) and forward(input, offsets=None,
    per_sample_weights=None) giving one vector per bag, summed, averaged or maxed by `mode`.
    PyTorch's arguments after norm_type are keyword-only (minigrad has no
    scale_grad_by_freq or sparse)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, *, mode: str = "mean", include_last_offset: bool = False,
                 padding_idx: int | None = None, rng: np.random.Generator | None = None,
                 dtype: Any = None, _weight: Parameter | None = None) -> None:
        super().__init__()
        padding_idx = _padding_index("EmbeddingBag", padding_idx, num_embeddings)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.mode = max_norm, norm_type, mode
        self.include_last_offset, self.padding_idx = include_last_offset, padding_idx
        self.weight = _weight if _weight is not None else \
            _normal_table(num_embeddings, embedding_dim, padding_idx, rng, dtype)

    @classmethod
    def from_pretrained(cls, embeddings: Any, freeze: bool = True,
                        max_norm: float | None = None, norm_type: float = 2.0, *,
                        mode: str = "mean", include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:
        """An EmbeddingBag whose weight is `embeddings`, as Embedding.from_pretrained's."""
        weight = Parameter(embeddings, requires_grad=not freeze)
        if weight.ndim != 2:
            raise AssertionError(f"EmbeddingBag.from_pretrained: embeddings must be "
                                 f"2-dimensional, got shape {weight.shape}")
        return cls(*weight.shape, max_norm, norm_type, mode=mode,
                   include_last_offset=include_last_offset, padding_idx=padding_idx,
                   _weight=weight)

    def extra_repr(self) -> str:
        settings = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            settings += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            settings += f", norm_type={self.norm_type}"
        settings += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            settings += f", padding_idx={self.padding_idx}"
        return settings

    def forward(self, input: Any, offsets: Any = None,
                per_sample_weights: Tensor | None = None) -> Tensor:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               mode=self.mode, per_sample_weights=per_sample_weights,
                               include_last_offset=self.include_last_offset,
                               padding_idx=self.padding_idx)


class LayerNorm(Module):
    """Normalise the trailing `normalized_shape` dims (an int: the last dim) to zero mean and
    unit variance, then scale by `weight` and shift by `bias`, as PyTorch's LayerNorm (without
    them when elementwise_affine=False; without bias when bias=False)."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, *,
                 dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
            tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        self.weight = Parameter(np.ones(shape), dtype=dtype) if elementwise_affine else None
        self.bias = Parameter(np.zeros(shape), dtype=dtype) if elementwise_affine and bias \
            else None

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class _BatchNorm(Module):
    """BatchNorm1d and BatchNorm2d: F.batch_norm over the channels (dim 1), with weight (ones)
    and bias (zeros, unless bias=False) when affine, and the buffers running_mean (zeros),
    running_var (ones) and num_batches_tracked when track_running_stats, as PyTorch. Training
    normalises by the batch's statistics and updates the running ones by `momentum` (None:
    their cumulative average); eval mode uses the running ones (the batch's without
    track_running_stats)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, *,
                 dtype: Any = None, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(np.ones(num_features), dtype=dtype) if affine else None
        self.bias = Parameter(np.zeros(num_features), dtype=dtype) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(num_features), dtype=dtype))
            self.register_buffer("running_var", Tensor(np.ones(num_features), dtype=dtype))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, np.int64)))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    _ranks: tuple[int, ...] = ()  # the input's accepted numbers of dims

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _check_rank(self, x: Tensor) -> None:
        if x.ndim not in self._ranks:
            raise ValueError(f"{type(self).__name__}: expected "
                             f"{' or '.join(f'{r}D' for r in self._ranks)} input (got "
                             f"{x.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_rank(input)
        momentum = self.momentum
        if self.training and self.running_mean is not None:
            self.num_batches_tracked.data += 1
            if momentum is None:  # the cumulative average of every batch so far
                momentum = 1 / int(self.num_batches_tracked.data)
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or self.running_mean is None, momentum or 0.0,
                            self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L)."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W)."""

    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W)."""

    _ranks = (5,)


class _InstanceNorm(_BatchNorm):
    """InstanceNorm1d, 2d and 3d: F.instance_norm, each channel of each sample normalised over
    its spatial dims; PyTorch's defaults (no affine weight and bias, no running statistics).
    With track_running_stats, eval mode uses the running statistics; an unbatched
    (C, *spatial) input is one sample."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, *,
                 dtype: Any = None, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype=dtype,
                         bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        self._check_rank(input)
        batched = input.ndim == self._ranks[-1]
        channels = input.shape[1 if batched else 0]
        if self.affine and channels != self.num_features:  # PyTorch only warns without affine
            raise ValueError(f"{type(self).__name__}: expected input's size at dim="
                             f"{int(batched)} to match num_features ({self.num_features}), "
                             f"but got: {channels}.")
        out = F.instance_norm(input if batched else input.unsqueeze(0), self.running_mean,
                              self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              0.0 if self.momentum is None else self.momentum, self.eps)
        return out if batched else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L)."""

    _ranks = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W)."""

    _ranks = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W)."""

    _ranks = (4, 5)


class _LazyModule:
    """What the Lazy layers share, as PyTorch's LazyModuleMixin: made without the size of their
    input (Linear's in_features, the convolutions' in_channels, the norms' num_features), their
    parameters (and float buffers) are UninitializedParameters (UninitializedBuffers) until the
    first call, which infers it from the input, materializes them in place (so an optimizer
    given them before updates them after; a state dict loaded before gives their values), with
    the values `cls_to_become` would start from, and turns the layer into a `cls_to_become`."""

    cls_to_become: type[Module]
    _in_dim = 1  # the input's dim whose size the layer lacks
    _unbatched_rank: int | None = None  # with an unbatched form of this rank: dim 0 there

    def _lazy_init(self, *args: Any, **kwargs: Any) -> None:
        """Make the layer as `cls_to_become(0, *args, **kwargs)` (its checks of the other
        arguments run now), its parameters and float buffers left uninitialized."""
        self.cls_to_become.__init__(self, 0, *args, **kwargs)
        self._lazy_arguments = (args, kwargs)
        for name, p in list(self._parameters.items()):
            if p is not None:
                setattr(self, name, UninitializedParameter(p.requires_grad, dtype=p.dtype))
        for name, b in list(self._buffers.items()):
            if b is not None and b.dtype.kind == "f":
                self.register_buffer(name, UninitializedBuffer(dtype=b.dtype),
                                     name not in self._non_persistent_buffers)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(t, _Uninitialized)
                   for t in (*self._parameters.values(), *self._buffers.values()))

    def _in_size(self, input: Tensor) -> int:
        if self._unbatched_rank is None:
            return input.shape[self._in_dim]
        ranks = (self._unbatched_rank, self._unbatched_rank + 1)
        if input.ndim not in ranks:
            raise InvalidArgumentError(f"Expected {ranks[0]}D (unbatched) or {ranks[1]}D "
                                       f"(batched) input to {type(self).__name__}, but got "
                                       f"input of size: {input.shape}")
        return input.shape[1 if input.ndim == ranks[1] else 0]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """Infer the missing size from `input` and take the settings and initial values of
        the `cls_to_become` of that size (parameters loaded from a state dict keep theirs)."""
        arguments, keywords = self._lazy_arguments
        complete = self.cls_to_become(self._in_size(input), *arguments, **keywords)
        with no_grad():
            for mine, theirs in ((self._parameters, complete._parameters),
                                 (self._buffers, complete._buffers)):
                for name, tensor in mine.items():
                    if isinstance(tensor, _Uninitialized):
                        tensor.materialize(theirs[name].shape)
                        tensor.data[...] = theirs[name].data
        registered = {*self._parameters, *self._buffers, *self._modules}
        for name, value in vars(complete).items():  # in_features and the like
            if not name.startswith("_") and name != "training" and name not in registered:
                object.__setattr__(self, name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.initialize_parameters(*args, **kwargs)
        del self._lazy_arguments
        object.__setattr__(self, "__class__", self.cls_to_become)
        return self(*args, **kwargs)


class GroupNorm(Module):
    """F.group_norm with `num_groups` groups of the `num_channels` channels, and per-channel
    weight (ones) and bias (zeros, unless bias=False) when affine."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, *, dtype: Any = None, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.affine = affine
        self.weight = Parameter(np.ones(num_channels), dtype=dtype) if affine else None
        self.bias = Parameter(np.zeros(num_channels), dtype=dtype) if affine and bias else None

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class Dropout(Module):
    """Zero entries with probability p while training; identity in eval mode. `inplace` as
    F.dropout's. Masks are drawn from `rng`, so a seeded generator makes them reproducible (and
    checkpointable)."""

    def __init__(self, p: float = 0.5, inplace: bool = False, *,
                 rng: np.random.Generator | None = None) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p, self.inplace = p, inplace
        self.rng = _default_rng(rng)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace, rng=self.rng)


class Dropout1d(Dropout):
    """Dropout of whole channels (F.dropout1d) while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace, rng=self.rng)


class Dropout2d(Dropout):
    """Dropout of whole channels (F.dropout2d) while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace, rng=self.rng)


class Dropout3d(Dropout):
    """Dropout of whole channels (F.dropout3d) while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace, rng=self.rng)


class AlphaDropout(Dropout):
    """F.alpha_dropout while training (SELU's saturation value for the entries dropped)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training, self.inplace, rng=self.rng)


class FeatureAlphaDropout(Dropout):
    """F.feature_alpha_dropout (whole channels) while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace,
                                       rng=self.rng)


class Sequential(_ModuleSequence):
    """Modules applied one after another; registered as '0', '1', ... (or under the names of an
    OrderedDict), indexable (a slice is a Sequential, under the same names) and iterable."""

    def __init__(self, *modules: Module | OrderedDict[str, Module]) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, _module("Sequential", module))
        else:
            self.extend(modules)  # type: ignore[arg-type]

    def _sliced(self, items: list[tuple[str, Module]]) -> Sequential:
        return Sequential(OrderedDict(items))

    def __add__(self, other: Sequential) -> Sequential:
        """A new Sequential of this one's modules, then other's (the same module objects)."""
        return Sequential(*self, *_sequential("+", other))

    def __iadd__(self, other: Sequential) -> Sequential:
        return self.extend(list(_sequential("+=", other)))

    def __mul__(self, times: int) -> Sequential:
        """A new Sequential of this one's modules `times` over (shared, not copied)."""
        return Sequential(*list(self) * _factor("*", times))

    __rmul__ = __mul__

    def __imul__(self, times: int) -> Sequential:
        return self.extend(list(self) * (_factor("*=", times) - 1))

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input


def _sequential(operator: str, other: Any) -> Sequential:
    if not isinstance(other, Sequential):
        raise ValueError(f"Sequential {operator} takes a Sequential, got a "
                         f"{type(other).__name__}")
    return other


def _factor(operator: str, times: Any) -> int:
    if not isinstance(times, int):
        raise TypeError(f"Sequential {operator} takes an int, got a {type(times).__name__}")
    if times <= 0:
        raise ValueError(f"Sequential {operator}: the factor must be positive, got {times}")
    return times


class _ConvNd(Module):
    """The convolutions, as PyTorch's: weight (out_channels, in_channels / groups, *kernel_size)
    ((in_channels, out_channels / groups, *kernel_size) for the transposed ones), bias
    (out_channels,), both uniform in +-1/sqrt(fan_in) with fan_in = weight.shape[1] *
    prod(kernel_size); the settings kept as tuples. padding_mode 'reflect', 'replicate' or
    'circular' pads the input by F.pad in that mode instead of with zeros (the convolutions
    only; the transposed ones take 'zeros' alone, as PyTorch's)."""

    _function: Callable[..., Tensor]
    _transposed = False

    def __init__(self, spatial_dims: int, in_channels: int, out_channels: int,
                 kernel_size: int | Sequence[int], stride: int | Sequence[int],
                 padding: int | Sequence[int] | str, dilation: int | Sequence[int], groups: int,
                 bias: bool, padding_mode: str, rng: np.random.Generator | None, dtype: Any,
                 output_padding: int | Sequence[int] = 0) -> None:
        super().__init__()
        name = type(self).__name__
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by groups ({groups})")
        if isinstance(padding, str) and self._transposed:
            raise ValueError(f"{name}: padding {padding!r} is only for convolutions")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"{name}: padding must be 'same', 'valid' or ints, got {padding!r}")
        modes = ("zeros",) if self._transposed else ("zeros", "reflect", "replicate", "circular")
        if padding_mode not in modes:
            raise ValueError(f"{name}: padding_mode must be one of {modes}, got "
                             f"{padding_mode!r}")
        kernel = F._ints(name, "kernel_size", kernel_size, spatial_dims, minimum=1)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel
        # tuples, as PyTorch keeps them ('same' and 'valid' stay strings)
        self.stride = F._ints(name, "stride", stride, spatial_dims, minimum=1)
        if padding == "same" and self.stride != (1,) * spatial_dims:
            raise ValueError(f"{name}: padding='same' is not supported for strided "
                             f"convolutions (stride {self.stride})")
        self.padding = padding if isinstance(padding, str) else \
            F._ints(name, "padding", padding, spatial_dims, minimum=0)
        self.dilation = F._ints(name, "dilation", dilation, spatial_dims, minimum=1)
        self.padding_mode = padding_mode
        self.output_padding = F._ints(name, "output_padding", output_padding, spatial_dims,
                                      minimum=0)
        self.groups, self.transposed = groups, self._transposed
        channels = (in_channels, out_channels // groups) if self._transposed else \
            (out_channels, in_channels // groups)
        fan_in = channels[1] * math.prod(kernel)
        rng = _default_rng(rng)
        self.weight = _uniform_init((*channels, *kernel), fan_in, rng, dtype)
        self.bias = _uniform_init((out_channels,), fan_in, rng, dtype) if bias else None

    def extra_repr(self) -> str:
        settings = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, " \
                   f"stride={self.stride}"
        if self.padding != (0,) * len(self.kernel_size):  # PyTorch lists what is not default
            settings += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.kernel_size):
            settings += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.kernel_size):
            settings += f", output_padding={self.output_padding}"
        if self.groups != 1:
            settings += f", groups={self.groups}"
        settings += ", bias=False" if self.bias is None else ""
        return settings + (f", padding_mode={self.padding_mode}"
                           if self.padding_mode != "zeros" else "")

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode == "zeros":
            return type(self)._function(input, self.weight, self.bias, self.stride,
                                        self.padding, self.dilation, self.groups)
        return type(self)._function(F.pad(input, self._pad_amounts(), self.padding_mode),
                                    self.weight, self.bias, self.stride, 0, self.dilation,
                                    self.groups)

    def _pad_amounts(self) -> list[int]:
        """F.pad's (before, after) pairs, last dim first, for self.padding; 'same' puts the odd
        entry after, as the convolutions do."""
        if self.padding == "valid":
            return [0, 0] * len(self.kernel_size)
        if self.padding == "same":
            totals = [d * (k - 1) for k, d in zip(self.kernel_size, self.dilation)]
            pairs = [(total // 2, total - total // 2) for total in totals]
        else:
            pairs = [(p, p) for p in self.padding]
        return [amount for pair in reversed(pairs) for amount in pair]


class Conv1d(_ConvNd):
    """1-D convolution (F.conv1d) of (N, in_channels, L) to (N, out_channels, L')."""

    _function = staticmethod(F.conv1d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, rng, dtype)


class Conv2d(_ConvNd):
    """2-D convolution (F.conv2d) of (N, in_channels, H, W) to (N, out_channels, H', W')."""

    _function = staticmethod(F.conv2d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, rng, dtype)


class Conv3d(_ConvNd):
    """3-D convolution (F.conv3d) of (N, in_channels, D, H, W) to (N, out_channels, ...)."""

    _function = staticmethod(F.conv3d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, rng, dtype)


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d, 2d and 3d: PyTorch's arguments (output_padding before groups, dilation
    after bias); forward(input, output_size=None) picks output_padding from output_size (the
    spatial sizes, or the whole shape) when given, as PyTorch."""

    _transposed = True

    def __init__(self, spatial_dims: int, in_channels: int, out_channels: int,
                 kernel_size: int | Sequence[int], stride: int | Sequence[int] = 1,
                 padding: int | Sequence[int] = 0, output_padding: int | Sequence[int] = 0,
                 groups: int = 1, bias: bool = True, dilation: int | Sequence[int] = 1,
                 padding_mode: str = "zeros", rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        super().__init__(spatial_dims, in_channels, out_channels, kernel_size, stride, padding,
                         dilation, groups, bias, padding_mode, rng, dtype, output_padding)

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        output_padding = self.output_padding if output_size is None else \
            self._output_padding(input, list(output_size))
        return type(self)._function(input, self.weight, self.bias, self.stride, self.padding,
                                    output_padding, self.groups, self.dilation)

    def _output_padding(self, x: Tensor, output_size: list[int]) -> tuple[int, ...]:
        """The output_padding that gives output_size, which must lie within a stride of the
        smallest output."""
        dims = len(self.kernel_size)
        if len(output_size) == x.ndim:
            output_size = output_size[x.ndim - dims:]
        if len(output_size) != dims:
            raise ValueError(f"{type(self).__name__}: for {x.ndim}D input, output_size must "
                             f"have {dims} or {x.ndim} elements (got {len(output_size)})")
        smallest = [(size - 1) * stride - 2 * padding + dilation * (kernel - 1) + 1
                    for size, stride, padding, dilation, kernel in zip(
                        x.shape[x.ndim - dims:], self.stride, self.padding, self.dilation,
                        self.kernel_size)]
        largest = [size + stride - 1 for size, stride in zip(smallest, self.stride)]
        if not all(low <= size <= high for low, size, high in zip(smallest, output_size,
                                                                   largest)):
            raise ValueError(f"{type(self).__name__}: requested an output size of "
                             f"{output_size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {x.shape[x.ndim - dims:]})")
        return tuple(size - low for size, low in zip(output_size, smallest))


class ConvTranspose1d(_ConvTransposeNd):
    """F.conv_transpose1d as a layer: (N, in_channels, L) to (N, out_channels, L')."""

    _function = staticmethod(F.conv_transpose1d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups, bias, dilation, padding_mode, rng, dtype)


class ConvTranspose2d(_ConvTransposeNd):
    """F.conv_transpose2d as a layer: (N, in_channels, H, W) to (N, out_channels, H', W')."""

    _function = staticmethod(F.conv_transpose2d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups, bias, dilation, padding_mode, rng, dtype)


class ConvTranspose3d(_ConvTransposeNd):
    """F.conv_transpose3d as a layer: (N, in_channels, D, H, W) to (N, out_channels, ...)."""

    _function = staticmethod(F.conv_transpose3d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups, bias, dilation, padding_mode, rng, dtype)


class MaxPool2d(Module):
    """F.max_pool2d as a layer."""

    def __init__(self, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.padding = kernel_size, padding
        self.stride = kernel_size if stride is None else stride  # PyTorch's default
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool2d(Module):
    """F.avg_pool2d as a layer."""

    def __init__(self, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size, self.padding = kernel_size, padding
        self.stride = kernel_size if stride is None else stride  # PyTorch's default
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class Flatten(Module):
    """Merge dims start_dim..end_dim into one: (N, C, H, W) -> (N, C*H*W) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"

    def forward(self, input: Tensor) -> Tensor:
        ndim = max(input.ndim, 1)
        if not (-ndim <= self.start_dim < ndim and -ndim <= self.end_dim < ndim):
            raise IndexError(f"Flatten: start_dim {self.start_dim} and end_dim {self.end_dim} "
                             f"must be dims of the input, shape {input.shape}")
        start, end = self.start_dim % ndim, self.end_dim % ndim
        if start > end:
            raise InvalidArgumentError(f"Flatten: start_dim {self.start_dim} comes after end_dim "
                                       f"{self.end_dim} for an input of shape {input.shape}")
        return input.reshape(*input.shape[:start], -1, *input.shape[end + 1:])


class GELU(Module):
    """F.gelu as a layer: approximate='none' (exact, erf) or 'tanh'."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments, as in PyTorch."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class _AlongDim(Module):
    """A function of a tensor and a dim as a layer: the shared base of Softmax and LogSoftmax,
    which are not subclasses of each other (as in PyTorch)."""

    _function: Callable[[Tensor, int], Tensor]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.dim)


class Softmax(_AlongDim):
    """F.softmax along `dim` as a layer."""

    _function = staticmethod(F.softmax)


class LogSoftmax(_AlongDim):
    """F.log_softmax along `dim` as a layer."""

    _function = staticmethod(F.log_softmax)


class Tanh(Module):
    """F.tanh as a layer."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Sigmoid(Module):
    """F.sigmoid as a layer."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class MSELoss(Module):
    """F.mse_loss(input, target) as a module (reduction keyword-only: PyTorch's first
    positional argument is the deprecated size_average)."""

    def __init__(self, *, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(MSELoss):
    """F.l1_loss(input, target) as a module."""

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class _WeightedLoss(Module):
    """A loss module given a `weight` (and BCEWithLogitsLoss a `pos_weight`): kept as buffers,
    as PyTorch's, so they are in its state dict (when given) and cast by `to()`."""

    def __init__(self, reduction: str, **weights: Any) -> None:
        super().__init__()
        self.reduction = reduction
        for name, weight in weights.items():
            self.register_buffer(name, weight if weight is None or isinstance(weight, Tensor)
                                 else Tensor(weight))

    @staticmethod
    def _given(weight: Tensor | None) -> Any:
        """A weight as the functional should take it: its array (which takes the input's
        dtype, as PyTorch's result does) unless it requires grad."""
        return weight if weight is None or weight.requires_grad else weight.data


class CrossEntropyLoss(_WeightedLoss):
    """F.cross_entropy(input, target) as a module (class `weight` a constant array)."""

    def __init__(self, weight: Any = None, *, ignore_index: int = -100,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(reduction, weight=weight)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.cross_entropy(input, target, self._given(self.weight),
                               ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


# --------------------------------------------------------------------------------------------
# More of PyTorch's layers, each a functional op with its settings
# --------------------------------------------------------------------------------------------
class _Pointwise(Module):
    """A function of one tensor with no settings, as a layer (the base of ReLU6, Mish, ...)."""

    _function: Callable[[Tensor], Tensor]

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input)


class _PointwiseInPlace(_Pointwise):
    """A function of one tensor with PyTorch's `inplace` flag, as a layer (ReLU, SiLU, ...):
    F.relu(x, inplace=True) writes into x unless the result requires grad."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, inplace=self.inplace)


class ReLU(_PointwiseInPlace):
    _function = staticmethod(F.relu)


class SiLU(_PointwiseInPlace):
    _function = staticmethod(F.silu)


class ReLU6(_PointwiseInPlace):
    _function = staticmethod(F.relu6)


class SELU(_PointwiseInPlace):
    _function = staticmethod(F.selu)


class Mish(_PointwiseInPlace):
    _function = staticmethod(F.mish)


class Hardsigmoid(_PointwiseInPlace):
    _function = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""  # PyTorch's shows no inplace here


class Hardswish(Hardsigmoid):
    _function = staticmethod(F.hardswish)


class LogSigmoid(_Pointwise):
    _function = staticmethod(F.logsigmoid)


class Softsign(_Pointwise):
    _function = staticmethod(F.softsign)


def _inplace_repr(inplace: bool) -> str:
    """The end of an activation's extra_repr, as PyTorch's: the flag only when it is set."""
    return ", inplace=True" if inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_repr(self.inplace)}"

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_repr(self.inplace)}"

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)


class CELU(ELU):
    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
                 ) -> None:
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_repr(self.inplace)}"

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)


class Softmin(_AlongDim):
    _function = staticmethod(F.softmin)


class Tanhshrink(_Pointwise):
    _function = staticmethod(F.tanhshrink)


class Hardshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Softshrink(Hardshrink):
    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_repr(self.inplace)}"

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)


class RReLU(Module):
    """F.rrelu: random slopes for x < 0 while training (from `rng`), their mean in eval mode."""

    def __init__(self, lower: float = 1 / 8, upper: float = 1 / 3, inplace: bool = False, *,
                 rng: np.random.Generator | None = None) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace
        self.rng = _default_rng(rng)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_repr(self.inplace)}"

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace, rng=self.rng)


class PReLU(Module):
    """F.prelu with a learned slope for x < 0: one for all channels, or one per channel
    (num_parameters = the channels, dim 1), each starting at `init`."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, *,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(np.full(num_parameters, init), dtype=dtype)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)


class RMSNorm(Module):
    """F.rms_norm over the trailing `normalized_shape` dims (an int: the last dim), then a
    learned scale `weight` (ones) unless elementwise_affine=False, as PyTorch's RMSNorm."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, *, dtype: Any = None) -> None:
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
            tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = Parameter(np.ones(self.normalized_shape), dtype=dtype) \
            if elementwise_affine else None

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)


class PixelShuffle(Module):
    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)


class ChannelShuffle(Module):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def extra_repr(self) -> str:
        return f"groups={self.groups}"

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)


class Unflatten(Module):
    """x.unflatten(dim, unflattened_size) as a layer."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)


class MaxPool1d(MaxPool2d):
    """F.max_pool1d as a layer."""

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool1d(Module):
    """F.avg_pool1d as a layer."""

    def __init__(self, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        # 1-tuples, as PyTorch keeps them
        self.kernel_size = F._ints("AvgPool1d", "kernel_size", kernel_size, 1, minimum=1)
        self.stride = self.kernel_size if stride is None else \
            F._ints("AvgPool1d", "stride", stride, 1, minimum=1)
        self.padding = F._ints("AvgPool1d", "padding", padding, 1, minimum=0)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size: int | None | Sequence[int | None]) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


# --------------------------------------------------------------------------------------------
# Layers for functions of F that had none
# --------------------------------------------------------------------------------------------
class Bilinear(Module):
    """y = x1^T W x2 + b (F.bilinear), weight (out_features, in1_features, in2_features).

    Initialised like PyTorch: uniform in +-1/sqrt(in1_features), weight and bias alike."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        rng = _default_rng(rng)
        self.weight = _uniform_init((out_features, in1_features, in2_features), in1_features,
                                    rng, dtype)
        self.bias = _uniform_init((out_features,), in1_features, rng, dtype) if bias else None

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """F.multilabel_soft_margin_loss(input, target) as a module (class `weight` a buffer)."""

    def __init__(self, weight: Any = None, *, reduction: str = "mean") -> None:
        super().__init__(reduction, weight=weight)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, self._given(self.weight),
                                             reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """F.multi_margin_loss(input, target) as a module (class `weight` a buffer)."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Any = None, *,
                 reduction: str = "mean") -> None:
        if p not in (1, 2):  # PyTorch checks it here already
            raise ValueError(f"MultiMarginLoss: only p == 1 and p == 2 are supported, got {p}")
        super().__init__(reduction, weight=weight)
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.multi_margin_loss(input, target, self.p, self.margin, self._given(self.weight),
                                   reduction=self.reduction)


class GLU(_AlongDim):
    """F.glu along `dim` as a layer."""

    _function = staticmethod(F.glu)


class Softmax2d(Module):
    """F.softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W)."""

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise InvalidArgumentError(f"Softmax2d: expects (N, C, H, W) or (C, H, W), got "
                                       f"shape {input.shape}")
        return F.softmax(input, -3)


class CosineSimilarity(Module):
    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim  # `norm`: PyTorch's name for p

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    """F.adaptive_max_pool2d as a layer."""

    def __init__(self, output_size: int | None | Sequence[int | None],
                 return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class MaxPool3d(MaxPool2d):
    """F.max_pool3d as a layer."""

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


def _per_dim(value: Any, dims: int) -> tuple:
    """One setting per spatial dim, as PyTorch's _pair and _triple keep them."""
    return tuple(value) if np.iterable(value) else (value,) * dims


class FractionalMaxPool2d(Module):
    """F.fractional_max_pool2d as a layer, as PyTorch's: `output_size` or `output_ratio` (each
    in (0, 1)), the settings kept as tuples; `_random_samples` given is a buffer and sets the
    windows' places, else they are drawn at each call from `rng` (keyword-only)."""

    _spatial_dims = 2

    def __init__(self, kernel_size: int | Sequence[int],
                 output_size: int | Sequence[int] | None = None,
                 output_ratio: float | Sequence[float] | None = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None, *,
                 rng: np.random.Generator | None = None) -> None:
        super().__init__()
        name, dims = type(self).__name__, self._spatial_dims
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             f"ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        self.kernel_size, self.return_indices = _per_dim(kernel_size, dims), return_indices
        self.output_size = None if output_size is None else _per_dim(output_size, dims)
        self.output_ratio = None if output_ratio is None else _per_dim(output_ratio, dims)
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")
        self.register_buffer("_random_samples", _random_samples)
        self.rng = _default_rng(rng)

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        pool = F.fractional_max_pool2d if self._spatial_dims == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, self._random_samples, rng=self.rng)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """F.fractional_max_pool3d as a layer, as FractionalMaxPool2d."""

    _spatial_dims = 3


class AvgPool3d(AvgPool2d):
    """F.avg_pool3d as a layer."""

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _LPPool(Module):
    """LPPool1d, 2d and 3d: F.lp_pool1d, 2d and 3d as layers."""

    _function: Callable[..., Tensor]

    def __init__(self, norm_type: float, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.norm_type, self.kernel_size, self.stride,
                                    self.ceil_mode)


class LPPool1d(_LPPool):
    _function = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    _function = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPool):
    _function = staticmethod(F.lp_pool3d)


class LocalResponseNorm(Module):
    """F.local_response_norm as a layer."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)


class CrossMapLRN2d(Module):
    """Local response normalisation across the channels of (N, C, H, W) (Krizhevsky et al.
    2012), Lua Torch's layer: x / (k + alpha / size * s)^beta, s the sum of x^2 over the
    2 * ((size - 1) // 2) + 1 channels centred on each (for an odd size, `size` channels, as
    LocalResponseNorm's; for an even one, one fewer): F.local_response_norm of that window."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D "
                             f"instead.")
        window = 2 * ((self.size - 1) // 2) + 1
        return F.local_response_norm(input, window, self.alpha * window / self.size, self.beta,
                                     self.k)


class _MaxUnpoolNd(Module):
    """MaxUnpool1d, 2d and 3d: F.max_unpool1d, 2d and 3d as layers, forward(input, indices,
    output_size=None); the settings kept as tuples, as PyTorch keeps them."""

    _function: Callable[..., Tensor]
    _spatial_dims: int

    def __init__(self, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] | None = None,
                 padding: int | Sequence[int] = 0) -> None:
        super().__init__()
        name, dims = type(self).__name__, self._spatial_dims
        self.kernel_size = F._ints(name, "kernel_size", kernel_size, dims, minimum=1)
        self.stride = self.kernel_size if stride is None else \
            F._ints(name, "stride", stride, dims, minimum=1)
        self.padding = F._ints(name, "padding", padding, dims, minimum=0)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Any,
                output_size: Sequence[int] | None = None) -> Tensor:
        return type(self)._function(input, indices, self.kernel_size, self.stride, self.padding,
                                    output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    _function, _spatial_dims = staticmethod(F.max_unpool1d), 1


class MaxUnpool2d(_MaxUnpoolNd):
    _function, _spatial_dims = staticmethod(F.max_unpool2d), 2


class MaxUnpool3d(_MaxUnpoolNd):
    _function, _spatial_dims = staticmethod(F.max_unpool3d), 3


class Unfold(Module):
    """F.unfold (im2col) as a layer."""

    def __init__(self, kernel_size: int | Sequence[int], dilation: int | Sequence[int] = 1,
                 padding: int | Sequence[int] = 0, stride: int | Sequence[int] = 1) -> None:
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    """F.fold (col2im, unfold's adjoint) as a layer."""

    def __init__(self, output_size: int | Sequence[int], kernel_size: int | Sequence[int],
                 dilation: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 stride: int | Sequence[int] = 1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)


class Upsample(Module):
    """F.interpolate as a layer: to `size`, or by `scale_factor`."""

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
                 align_corners: bool | None = None) -> None:
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        if isinstance(scale_factor, (tuple, list)):  # PyTorch keeps floats: (2.0, 3.0)
            scale_factor = type(scale_factor)(float(factor) for factor in scale_factor)
        elif scale_factor is not None:
            scale_factor = float(scale_factor)
        self.scale_factor = scale_factor

    def extra_repr(self) -> str:
        given = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                 else f"size={self.size!r}")
        return f"{given}, mode={self.mode!r}"

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners)


class UpsamplingNearest2d(Upsample):
    """Upsample with mode 'nearest' (of (N, C, H, W) inputs, for PyTorch's name)."""

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Upsample with mode 'bilinear' and align_corners=True, as PyTorch's."""

    def __init__(self, size: int | Sequence[int] | None = None,
                 scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class _Pad(Module):
    """F.pad of the last `_dims` dims as a layer: `padding` one int for every side, or
    (left, right, top, bottom, front, back) as F.pad reads them."""

    _dims: int
    _mode: str

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        self.padding = F._ints(type(self).__name__, "padding", padding, 2 * self._dims,
                               minimum=-math.inf)  # a negative amount crops, as in F.pad

    def extra_repr(self) -> str:
        return f"{self.padding}"

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode, getattr(self, "value", None))


class ConstantPad1d(_Pad):
    _dims, _mode = 1, "constant"

    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad2d(ConstantPad1d):
    _dims = 2


class ConstantPad3d(ConstantPad1d):
    _dims = 3


class ZeroPad1d(_Pad):
    _dims, _mode = 1, "constant"


class ZeroPad2d(ZeroPad1d):
    _dims = 2


class ZeroPad3d(ZeroPad1d):
    _dims = 3


class ReflectionPad1d(_Pad):
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(ReflectionPad1d):
    _dims = 2


class ReflectionPad3d(ReflectionPad1d):
    _dims = 3


class ReplicationPad1d(_Pad):
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(ReplicationPad1d):
    _dims = 2


class ReplicationPad3d(ReplicationPad1d):
    _dims = 3


class CircularPad1d(_Pad):
    _dims, _mode = 1, "circular"


class CircularPad2d(CircularPad1d):
    _dims = 2


class CircularPad3d(CircularPad1d):
    _dims = 3


class NLLLoss(_WeightedLoss):
    """F.nll_loss(input, target) as a module (class `weight` a constant array)."""

    def __init__(self, weight: Any = None, *, ignore_index: int = -100,
                 reduction: str = "mean") -> None:
        super().__init__(reduction, weight=weight)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.nll_loss(input, target, self._given(self.weight),
                          ignore_index=self.ignore_index, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """NLLLoss under the name PyTorch keeps for it (deprecated there, with a warning): class
    scores (N, C, H, W) and targets (N, H, W), as NLLLoss takes them."""


class BCELoss(_WeightedLoss):
    """F.binary_cross_entropy(input, target) as a module."""

    def __init__(self, weight: Any = None, *, reduction: str = "mean") -> None:
        super().__init__(reduction, weight=weight)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.binary_cross_entropy(input, target, self._given(self.weight),
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """F.binary_cross_entropy_with_logits(input, target) as a module."""

    def __init__(self, weight: Any = None, *, reduction: str = "mean",
                 pos_weight: Any = None) -> None:
        super().__init__(reduction, weight=weight, pos_weight=pos_weight)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self._given(self.weight),
                                                  reduction=self.reduction,
                                                  pos_weight=self._given(self.pos_weight))


class SmoothL1Loss(Module):
    def __init__(self, *, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.beta = reduction, beta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(Module):
    """F.huber_loss as a module; it never had size_average, so reduction is positional, as in
    PyTorch."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__()
        self.reduction, self.delta = reduction, delta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(Module):
    def __init__(self, *, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__()
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(Module):
    def __init__(self, margin: float = 0.0, *, reduction: str = "mean") -> None:
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def forward(self, input1: Tensor, input2: Tensor, target: Any) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, self.margin,
                                     reduction=self.reduction)


class CosineEmbeddingLoss(MarginRankingLoss):
    def forward(self, input1: Tensor, input2: Tensor, target: Any) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, self.margin,
                                       reduction=self.reduction)


class HingeEmbeddingLoss(Module):
    def __init__(self, margin: float = 1.0, *, reduction: str = "mean") -> None:
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class SoftMarginLoss(Module):
    def __init__(self, *, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class TripletMarginLoss(Module):
    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, *, reduction: str = "mean") -> None:
        super().__init__()
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap
        self.reduction = reduction

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps,
                                     self.swap, reduction=self.reduction)


class MultiLabelMarginLoss(Module):
    def __init__(self, *, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(Module):
    """F.triplet_margin_with_distance_loss as a layer (its arguments keyword-only, as
    PyTorch's); without a distance_function, a PairwiseDistance() child module, as
    PyTorch's."""

    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                 margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> None:
        super().__init__()
        self.distance_function = PairwiseDistance() if distance_function is None else \
            distance_function
        self.margin = margin
        self.swap, self.reduction = swap, reduction

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class GaussianNLLLoss(Module):
    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"
                 ) -> None:
        super().__init__()
        self.full, self.eps, self.reduction = full, eps, reduction

    def forward(self, input: Tensor, target: Any, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class PoissonNLLLoss(Module):
    def __init__(self, log_input: bool = True, full: bool = False, *, eps: float = 1e-8,
                 reduction: str = "mean") -> None:
        super().__init__()
        self.log_input, self.full, self.eps, self.reduction = log_input, full, eps, reduction

    def forward(self, log_input: Tensor, target: Any) -> Tensor:
        return F.poisson_nll_loss(log_input, target, self.log_input, self.full, eps=self.eps,
                                  reduction=self.reduction)


class CTCLoss(Module):
    """F.ctc_loss as a module, with PyTorch's arguments (blank, reduction, zero_infinity)."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False
                 ) -> None:
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs: Tensor, targets: Any, input_lengths: Any,
                target_lengths: Any) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


class ModuleDict(Module):
    """Modules by name, registered under their keys (an ordered dict's methods)."""

    def __init__(self, modules: dict[str, Module] | Iterable[tuple[str, Module]] | None = None
                 ) -> None:
        super().__init__()
        self.update(modules if modules is not None else ())

    def update(self, modules: dict[str, Module] | Iterable[tuple[str, Module]]) -> None:
        for name, module in dict(modules).items():
            self[name] = module

    def __getitem__(self, name: str) -> Module:
        return self._modules[name]

    def __setitem__(self, name: str, module: Module) -> None:
        self.add_module(name, module)

    def __delitem__(self, name: str) -> None:
        if name not in self._modules:
            raise KeyError(name)
        delattr(self, name)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, name: str) -> bool:
        return name in self._modules

    def pop(self, name: str) -> Module:
        module = self[name]
        del self[name]
        return module

    def clear(self) -> None:
        for name in list(self._modules):
            del self[name]

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()


class ParameterList(Module):
    """A list of parameters, registered under the names '0', '1', ... (tensors given are made
    Parameters)."""

    def __init__(self, values: Iterable[Tensor] | None = None) -> None:
        super().__init__()
        self.extend(values if values is not None else ())

    def append(self, value: Tensor) -> ParameterList:
        setattr(self, str(len(self._parameters)), _parameter(value))
        return self

    def extend(self, values: Iterable[Tensor]) -> ParameterList:
        for value in values:
            self.append(value)
        return self

    def __getitem__(self, index: int | slice) -> Any:
        """A parameter, or a ParameterList of a slice, as PyTorch's."""
        values = list(self._parameters.values())
        return ParameterList(values[index]) if isinstance(index, slice) else values[index]

    def __setitem__(self, index: int, value: Tensor) -> None:
        setattr(self, _name_at(list(self._parameters), index, "parameters"), _parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())


class ParameterDict(Module):
    """Parameters by name, registered under their keys, with a dict's methods, as PyTorch's: a
    tensor given is made a Parameter, any other value is kept as a plain attribute. A plain
    dict given to the constructor or `update` is taken in sorted key order, an OrderedDict, a
    ParameterDict or a sequence of pairs in its own order."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})  # the keys in order; values are attributes
        if parameters is not None:
            self.update(parameters)

    def update(self, parameters: Any) -> None:
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        elif isinstance(parameters, Iterable):
            pairs = list(parameters)
            for index, pair in enumerate(pairs):
                if not isinstance(pair, Iterable):
                    raise TypeError(f"ParameterDict update sequence element #{index} should be "
                                    f"Iterable; is {type(pair).__name__}")
                if len(pair) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{index} has "
                                     f"length {len(pair)}; 2 is required")
        else:
            raise TypeError(f"ParameterDict.update should be called with an iterable of "
                            f"key/value pairs, but got {type(parameters).__name__}")
        for key, value in pairs:
            self[key] = value

    def _check_key(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(f"Index given to ParameterDict cannot be used as a key as it is "
                            f"not a string (type is {type(key).__name__!r})")
        return key

    def __getitem__(self, key: str) -> Any:
        if self._check_key(key) not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if isinstance(value, Tensor) and self._check_key(key) not in self._keys:
            self.register_parameter(key, _parameter(value))  # PyTorch's checks of a new name
        else:
            setattr(self, self._check_key(key), _parameter(value) if isinstance(value, Tensor)
                    else value)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        self[key]  # noqa: B018  (a missing key raises KeyError)
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def values(self) -> Iterator[Any]:
        return (self[key] for key in self._keys)

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((key, self[key]) for key in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """The last key inserted and its value, removed."""
        if not self._keys:
            raise KeyError("popitem(): ParameterDict is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> ParameterDict:
        """A new ParameterDict of the same values (the same Parameter objects), in order."""
        return ParameterDict(OrderedDict(self.items()))

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict([(key, default) for key in keys])

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self

    def __repr__(self) -> str:
        """As PyTorch prints it: one line per key, a tensor by its type and size."""
        lines = [f"    ({key}): " + (
            f"Parameter containing: [{value.type()} of size {'x'.join(map(str, value.shape))}]"
            if isinstance(value, Tensor) else f"Object of type: {type(value).__name__}")
            for key, value in self.items()]
        return "ParameterDict(" + "".join(f"\n{line}" for line in lines) + ("\n)" if lines else ")")


def _parameter(value: Any) -> Parameter:
    """`value` as a Parameter (a tensor or array given to a ParameterList becomes one)."""
    return value if isinstance(value, Parameter) else Parameter(_as_array(value))


class MultiheadAttention(Module):
    """PyTorch's nn.MultiheadAttention (Vaswani et al., 2017), composed of linear, softmax and
    matmul: query, key and value projected by in_proj_weight (3E, E) and in_proj_bias (3E,),
    attention in `num_heads` heads of E / num_heads dims, the heads merged and projected by
    out_proj, with PyTorch's parameter names (its state dict loads as it is) and initialisation
    (Glorot-uniform projection weights, zero biases). With key and value widths `kdim`, `vdim`
    other than E, the projections are q_proj_weight (E, E), k_proj_weight (E, kdim) and
    v_proj_weight (E, vdim) instead of in_proj_weight. `add_bias_kv` appends learned bias_k and
    bias_v (1, 1, E) to the projected keys and values as one more position, `add_zero_attn` a
    position of zeros to each head's keys and values (both attended by every query).

    forward(query, key, value) takes (L, N, E), (S, N, kdim), (S, N, vdim) ((N, L, E) ... with
    batch_first, or unbatched (L, E) ...) and returns (output, weights): the output like query,
    and the attention weights (after dropout, as PyTorch's) averaged over the heads, (N, L, S),
    or per head (N, H, L, S) with average_attn_weights=False, or None with need_weights=False
    (S counting the positions added). Masks mean what PyTorch's mean: attn_mask (L, S) or
    (N * H, L, S), True (or a float added to the scores, -inf) where a query may NOT attend;
    key_padding_mask (N, S) ((S,) unbatched), True at padding; the positions added are never
    masked. A float mask given as a Tensor gets its gradient (a learned bias). Dropout (of the
    weights, while training) draws from `rng`."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 *, rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise InvalidArgumentError(f"MultiheadAttention: embed_dim {embed_dim} must be "
                                       f"divisible by num_heads {num_heads}")
        if not 0 <= dropout <= 1:
            raise ValueError(f"MultiheadAttention: dropout must be in [0, 1], got {dropout}")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == self.vdim == embed_dim
        self.head_dim, self.batch_first = embed_dim // num_heads, batch_first
        self.rng = _default_rng(rng)

        def glorot(*shape: int) -> Parameter:
            # dtype given again: Tensor makes a float16 array float32
            weight = Parameter(np.empty(shape, dtype), dtype=dtype)
            return init.xavier_uniform_(weight, generator=self.rng)

        if self._qkv_same_embed_dim:
            self.in_proj_weight = glorot(3 * embed_dim, embed_dim)
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight, self.k_proj_weight, self.v_proj_weight = (
                glorot(embed_dim, width) for width in (embed_dim, self.kdim, self.vdim))
            self.in_proj_weight = None
        self.in_proj_bias = Parameter(np.zeros(3 * embed_dim), dtype=dtype) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias, rng=self.rng, dtype=dtype)
        if bias:
            self.out_proj.bias = Parameter(np.zeros(embed_dim), dtype=dtype)
        self.bias_k = self.bias_v = None
        if add_bias_kv:
            self.bias_k, self.bias_v = (
                init.xavier_normal_(Parameter(np.empty((1, 1, embed_dim), dtype), dtype=dtype),
                                    generator=self.rng) for _ in range(2))
        self.add_zero_attn = add_zero_attn

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Any = None, need_weights: bool = True, attn_mask: Any = None,
                average_attn_weights: bool = True, is_causal: bool = False
                ) -> tuple[Tensor, Tensor | None]:
        if is_causal and attn_mask is None:  # PyTorch: is_causal is only a hint about attn_mask
            raise InvalidArgumentError("MultiheadAttention: is_causal=True needs the causal "
                                       "attn_mask too (it is a hint about it)")
        batched = query.ndim == 3
        if not batched:  # (L, E): one sequence
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        length, batch, width = query.shape
        heads, source = self.num_heads, key.shape[0]
        weights_qkv = self.in_proj_weight.chunk(3) if self._qkv_same_embed_dim else (
            self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        biases = self.in_proj_bias.chunk(3) if self.in_proj_bias is not None else (None,) * 3
        q, k, v = (F.linear(x, w, b) for x, w, b in zip((query, key, value), weights_qkv,
                                                        biases))
        if self.bias_k is not None:  # one more position, (1, N, E), for every sample
            k = cat([k, self.bias_k.expand(1, batch, width)])
            v = cat([v, self.bias_v.expand(1, batch, width)])
        # each projection (seq, N, E) as (N * heads, seq, head_dim), as PyTorch lays them out
        q, k, v = (x.reshape(x.shape[0], batch * heads, self.head_dim).transpose(0, 1)
                   for x in (q, k, v))
        if self.add_zero_attn:
            zeros = Tensor(np.zeros((batch * heads, 1, self.head_dim), dtype=k.dtype))
            k, v = cat([k, zeros], dim=1), cat([v, zeros], dim=1)
        scores = q @ k.transpose(1, 2) * (1 / math.sqrt(self.head_dim))
        mask = self._additive_mask(attn_mask, key_padding_mask, batched, batch, length,
                                   source, scores.dtype)
        if mask is not None:
            added = k.shape[1] - source  # positions every query attends: 0 added to their score
            scores = scores + (F.pad(mask, (0, added)) if added else mask)
        weights = F.dropout(F.softmax(scores, -1), self.dropout, self.training, rng=self.rng)
        out = (weights @ v).transpose(0, 1).reshape(length, batch, width)
        out = self.out_proj(out)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        weights = weights.reshape(batch, heads, length, k.shape[1])
        weights = weights.mean(1) if average_attn_weights else weights
        return out, weights if batched else weights.squeeze(0)

    def _additive_mask(self, attn_mask: Any, key_padding_mask: Any, batched: bool, batch: int,
                       length: int, source: int, dtype: np.dtype) -> Tensor | None:
        """attn_mask and key_padding_mask as one float mask added to the scores, broadcasting to
        (N * H, L, S): -inf where a bool mask is True, a float mask as it is (a Tensor stays in
        the graph, as PyTorch's: a learned additive bias gets its gradient)."""
        def additive(mask: Any) -> Tensor:
            array = np.asarray(_as_array(mask))
            if array.dtype != bool and array.dtype.kind != "f":  # PyTorch's class for it
                raise AssertionError(f"MultiheadAttention: only bool and floating masks are "
                                     f"supported, got dtype {array.dtype}")
            if array.dtype == bool:
                return Tensor(np.where(array, -np.inf, 0).astype(dtype))
            return mask.to(dtype) if isinstance(mask, Tensor) else Tensor(array.astype(dtype))

        total = None
        if attn_mask is not None:
            total = additive(attn_mask)
            per_head = (batch * self.num_heads, length, source)
            if total.shape not in ((length, source), per_head):
                raise InvalidArgumentError(f"MultiheadAttention: attn_mask must have shape "
                                           f"{(length, source)} or {per_head}, got "
                                           f"{tuple(total.shape)}")
        if key_padding_mask is not None:
            padding = additive(key_padding_mask)
            expected = (batch, source) if batched else (source,)
            if padding.ndim != len(expected):  # PyTorch's class for it
                kind = "batched (3-D)" if batched else "unbatched (2-D)"
                raise AssertionError(f"MultiheadAttention: for a {kind} query, key_padding_mask "
                                     f"must be {len(expected)}-D, got {padding.ndim}-D")
            if tuple(padding.shape) != expected:
                raise InvalidArgumentError(f"MultiheadAttention: key_padding_mask must have "
                                           f"shape {expected}, got {tuple(padding.shape)}")
            # each sample's row for each of its heads, (N * H, 1, S)
            padding = padding.reshape(batch, 1, 1, source).broadcast_to(
                (batch, self.num_heads, 1, source)).reshape(batch * self.num_heads, 1, source)
            total = padding if total is None else total + padding
        return total


# --------------------------------------------------------------------------------------------
# Transformer layers
# --------------------------------------------------------------------------------------------
def _transformer_activation(activation: str | Callable[[Tensor], Tensor]
                            ) -> Callable[[Tensor], Tensor]:
    """PyTorch's choice of the feed-forward activation: "relu", "gelu" or a callable (a
    function or a Module)."""
    if callable(activation):
        return activation
    if activation in ("relu", "gelu"):
        return F.relu if activation == "relu" else F.gelu
    raise InvalidArgumentError(f"activation should be relu/gelu, not {activation}")


def _clones(module: Module, copies: int) -> ModuleList:
    """`copies` deep copies of `module` in a ModuleList, as PyTorch's encoder and decoder stack
    their layer: equal parameters at first, not shared. The copies draw their dropout masks
    from the generators of `module` itself (shared, not copied), so that the layers' masks
    differ rather than repeat one another."""
    generators = {id(value): value for m in module.modules() for value in vars(m).values()
                  if isinstance(value, np.random.Generator)}
    return ModuleList(copy.deepcopy(module, dict(generators)) for _ in range(copies))


class _TransformerLayer(Module):
    """What the encoder and decoder layers share: the feed-forward block linear2(dropout(
    activation(linear1(x)))), the residual connections around each block with LayerNorm after
    them (or before the block, with norm_first), and PyTorch's names for all of it."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float,
                 activation: str | Callable[[Tensor], Tensor], layer_norm_eps: float,
                 batch_first: bool, norm_first: bool, bias: bool, cross_attention: bool,
                 rng: np.random.Generator | None, dtype: Any) -> None:
        super().__init__()
        rng = _default_rng(rng)  # one generator for every dropout of the layer
        attention = functools.partial(MultiheadAttention, d_model, nhead, dropout, bias,
                                      batch_first=batch_first, rng=rng, dtype=dtype)
        self.self_attn = attention()
        if cross_attention:  # the decoder's attention to the encoder's output
            self.multihead_attn = attention()
        self.linear1 = Linear(d_model, dim_feedforward, bias, rng=rng, dtype=dtype)
        self.dropout = Dropout(dropout, rng=rng)
        self.linear2 = Linear(dim_feedforward, d_model, bias, rng=rng, dtype=dtype)
        self.norm_first = norm_first
        blocks = 3 if cross_attention else 2  # each with its norm and its dropout
        for index in range(1, blocks + 1):
            setattr(self, f"norm{index}", LayerNorm(d_model, layer_norm_eps, bias=bias,
                                                    dtype=dtype))
        for index in range(1, blocks + 1):
            setattr(self, f"dropout{index}", Dropout(dropout, rng=rng))
        self.activation = _transformer_activation(activation)

    def _residual(self, x: Tensor, norm: LayerNorm, dropout: Dropout,
                  block: Callable[[Tensor], Tensor]) -> Tensor:
        """x + dropout(block(norm(x))) with norm_first; else norm(x + dropout(block(x))), the
        original Transformer's order."""
        if self.norm_first:
            return x + dropout(block(norm(x)))
        return norm(x + dropout(block(x)))

    @staticmethod
    def _attend(attention: MultiheadAttention, x: Tensor, source: Tensor, mask: Any,
                key_padding_mask: Any, is_causal: bool) -> Tensor:
        return attention(x, source, source, attn_mask=mask, key_padding_mask=key_padding_mask,
                         need_weights=False, is_causal=is_causal)[0]

    def _feed_forward(self, x: Tensor) -> Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_TransformerLayer):
    """PyTorch's nn.TransformerEncoderLayer (Vaswani et al., 2017): self-attention
    (`self_attn`, an nn.MultiheadAttention) and a feed-forward block (linear1, activation,
    linear2), each inside a residual connection with LayerNorm (norm1, norm2) after it, or
    before it with norm_first=True; dropout (dropout1, dropout, dropout2) while training, drawn
    from `rng`. PyTorch's arguments, defaults, parameter names (its state dict loads as it is)
    and initialisation; `activation` is "relu", "gelu" or a callable.

    forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False): src (S, N, E),
    (N, S, E) with batch_first or unbatched (S, E); the masks as nn.MultiheadAttention's
    attn_mask and key_padding_mask (bool, True = may not attend, or float, added to the
    scores). is_causal is PyTorch's hint that src_mask is the causal mask: the mask given is
    applied either way, and is_causal=True without one raises, as in PyTorch."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                         batch_first, norm_first, bias, False, rng, dtype)

    def forward(self, src: Tensor, src_mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool = False) -> Tensor:
        x = self._residual(src, self.norm1, self.dropout1, lambda x: self._attend(
            self.self_attn, x, x, src_mask, src_key_padding_mask, is_causal))
        return self._residual(x, self.norm2, self.dropout2, self._feed_forward)


class TransformerDecoderLayer(_TransformerLayer):
    """PyTorch's nn.TransformerDecoderLayer: self-attention (`self_attn`), attention to the
    encoder's output (`multihead_attn`) and the feed-forward block, each inside a residual
    connection with LayerNorm (norm1, norm2, norm3; before the block with norm_first) and
    dropout (dropout1, dropout2, dropout3, and dropout inside the feed-forward block);
    arguments as TransformerEncoderLayer's.

    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False): tgt (T, N, E),
    memory (S, N, E) (batch first, or unbatched, as for the encoder layer); tgt_mask (T, T) and
    memory_mask (T, S) (or per head, (N * nhead, ...)) and the key padding masks (N, T) and
    (N, S), as nn.MultiheadAttention's; the is_causal hints as the encoder layer's."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                         batch_first, norm_first, bias, True, rng, dtype)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Any = None,
                memory_mask: Any = None, tgt_key_padding_mask: Any = None,
                memory_key_padding_mask: Any = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = self._residual(tgt, self.norm1, self.dropout1, lambda x: self._attend(
            self.self_attn, x, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self._residual(x, self.norm2, self.dropout2, lambda x: self._attend(
            self.multihead_attn, x, memory, memory_mask, memory_key_padding_mask,
            memory_is_causal))
        return self._residual(x, self.norm3, self.dropout3, self._feed_forward)


class TransformerEncoder(Module):
    """PyTorch's nn.TransformerEncoder: `num_layers` copies of `encoder_layer` (deep copies,
    under `layers`, as PyTorch's: equal parameters at first, not shared), applied in turn,
    then `norm` if given. forward(src, mask=None, src_key_padding_mask=None, is_causal=None)
    hands the masks to every layer. `enable_nested_tensor` and `mask_check` are accepted and
    kept: minigrad has no nested tensors, and computes every position, padding too."""

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check

    def forward(self, src: Tensor, mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool | None = None) -> Tensor:
        # PyTorch's None means "find out whether mask is causal", only to pick a faster path
        # for the same result; here it is a hint like False
        for layer in self.layers:
            src = layer(src, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                        is_causal=bool(is_causal))
        return src if self.norm is None else self.norm(src)


class TransformerDecoder(Module):
    """PyTorch's nn.TransformerDecoder: `num_layers` copies of `decoder_layer` (under
    `layers`, as TransformerEncoder's), each given the encoder's output `memory` and the masks,
    then `norm` if given. forward(tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal=None,
    memory_is_causal=False)."""

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None
                 ) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Any = None,
                memory_mask: Any = None, tgt_key_padding_mask: Any = None,
                memory_key_padding_mask: Any = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        for layer in self.layers:
            tgt = layer(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return tgt if self.norm is None else self.norm(tgt)


class Transformer(Module):
    """PyTorch's nn.Transformer (Vaswani et al., 2017): a TransformerEncoder of
    `num_encoder_layers` layers and a TransformerDecoder of `num_decoder_layers`, each ending
    in a LayerNorm (`encoder.norm`, `decoder.norm`), or `custom_encoder` and `custom_decoder`;
    every parameter of more than one dim re-initialised Glorot-uniform, as PyTorch's. PyTorch's
    arguments, defaults and parameter names (its state dict loads as it is).

    forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    src_is_causal=None, tgt_is_causal=None, memory_is_causal=False): the encoder reads src
    (S, N, E), the decoder tgt (T, N, E) and the encoder's output; returns (T, N, E) ((N, T, E)
    with batch_first, (T, E) unbatched). `generate_square_subsequent_mask(sz)` makes the causal
    tgt_mask."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable[[Tensor], Tensor] = F.relu,
                 custom_encoder: Module | None = None, custom_decoder: Module | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__()
        rng = _default_rng(rng)
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(*layer_args, rng=rng, dtype=dtype), num_encoder_layers,
            LayerNorm(d_model, layer_norm_eps, bias=bias, dtype=dtype))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(*layer_args, rng=rng, dtype=dtype), num_decoder_layers,
            LayerNorm(d_model, layer_norm_eps, bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p, generator=rng)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Any = None, tgt_mask: Any = None,
                memory_mask: Any = None, src_key_padding_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise InvalidArgumentError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise InvalidArgumentError("the feature number of src and tgt must be equal to "
                                       "d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, *, dtype: Any = None) -> Tensor:
        """The causal mask (sz, sz), as PyTorch's: -inf above the diagonal (a position may not
        attend to later ones), 0 elsewhere; the default float dtype unless `dtype` says
        otherwise."""
        dtype = get_default_dtype() if dtype is None else dtype
        return Tensor(np.triu(np.full((sz, sz), -np.inf), 1), dtype=dtype)


# --------------------------------------------------------------------------------------------
# Recurrent layers
# --------------------------------------------------------------------------------------------
# PyTorch's RNNBase modes: (blocks of hidden_size rows in each weight, states carried from
# step to step: LSTM's h and c)
_RNN_MODES = {"RNN_TANH": (1, 1), "RNN_RELU": (1, 1), "LSTM": (4, 2), "GRU": (3, 1)}


class RNNBase(Module):
    """The base class of RNN, LSTM and GRU, PyTorch's: its first argument `mode` ('RNN_TANH',
    'RNN_RELU', 'LSTM' or 'GRU') sets the gates, as theirs; `num_layers` stacked layers (each
    direction of a bidirectional one reading the sequence its own way), with PyTorch's
    parameters (weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}, "_reverse" for the
    backward direction; gates stacked in PyTorch's order), initialisation (uniform in
    +-1/sqrt(hidden_size)) and layouts: input (L, N, H_in), (N, L, H_in) with batch_first, or
    unbatched (L, H_in); returns (output, h_n) (LSTM: (output, (h_n, c_n))), output holding the
    last layer's hidden state at every step (both directions' concatenated), h_n each layer's
    and direction's last one. Dropout (from `rng`, while training) applies to the outputs of
    every layer but the last. LSTM's proj_size > 0 projects each hidden state to that size
    (weight_hr_l{k}), as PyTorch's.

    Each step is a composition of linear, sigmoid and tanh; the input's share of every step is
    one matrix product over the whole sequence."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__()
        if mode not in _RNN_MODES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        self.mode = mode
        chunks, self._states = _RNN_MODES[mode]
        if proj_size and mode != "LSTM":
            raise InvalidArgumentError(f"{type(self).__name__}: proj_size is only for LSTM")
        if not 0 <= proj_size < hidden_size:
            raise ValueError(f"{type(self).__name__}: proj_size must be in [0, hidden_size) "
                             f"= [0, {hidden_size}), got {proj_size}")
        if not 0 <= dropout <= 1:
            raise ValueError(f"{type(self).__name__}: dropout must be in [0, 1], got {dropout}")
        if hidden_size < 1 or num_layers < 1:
            raise ValueError(f"{type(self).__name__}: hidden_size and num_layers must be >= 1, "
                             f"got {hidden_size} and {num_layers}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, dropout
        self.bidirectional, self.proj_size = bidirectional, proj_size
        self.rng = _default_rng(rng)
        gates, directions = chunks * hidden_size, 2 if bidirectional else 1
        output_size = proj_size or hidden_size  # of each direction's hidden state
        uniform = functools.partial(_uniform_init, fan_in=hidden_size, rng=self.rng, dtype=dtype)
        for layer in range(num_layers):
            width = input_size if layer == 0 else output_size * directions
            for suffix in ("", "_reverse")[:directions]:
                setattr(self, f"weight_ih_l{layer}{suffix}", uniform((gates, width)))
                setattr(self, f"weight_hh_l{layer}{suffix}", uniform((gates, output_size)))
                if bias:
                    setattr(self, f"bias_ih_l{layer}{suffix}", uniform((gates,)))
                    setattr(self, f"bias_hh_l{layer}{suffix}", uniform((gates,)))
                if proj_size:
                    setattr(self, f"weight_hr_l{layer}{suffix}",
                            uniform((proj_size, hidden_size)))

    def extra_repr(self) -> str:
        settings = f"{self.input_size}, {self.hidden_size}"
        defaults = {"proj_size": 0, "num_layers": 1, "bias": True, "batch_first": False,
                    "dropout": 0.0, "bidirectional": False}
        for name, default in defaults.items():  # PyTorch lists what is not default
            if getattr(self, name) != default:
                settings += f", {name}={getattr(self, name)}"
        return settings

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        name = type(self).__name__
        if input.ndim not in (2, 3) or input.shape[-1] != self.input_size:
            raise InvalidArgumentError(f"{name}: expected input (L, N, {self.input_size}), "
                                       f"(N, L, {self.input_size}) with batch_first or "
                                       f"(L, {self.input_size}), got shape {input.shape}")
        batched = input.ndim == 3
        x = input if not batched or not self.batch_first else input.transpose(0, 1)
        x = x if batched else x.unsqueeze(1)  # (L, N, H_in) from here on
        directions = 2 if self.bidirectional else 1
        states = self._initial_states(hx, batched, x.shape[1], directions, x.dtype)
        last: list[list[Tensor]] = [[] for _ in states]
        for layer in range(self.num_layers):
            outputs = []
            for direction, suffix in enumerate(("", "_reverse")[:directions]):
                index = layer * directions + direction
                steps = self._run(x, layer, suffix, [s[index] for s in states],
                                  reverse=direction == 1)
                outputs.append(stack(steps[0], 0))
                for kept, final in zip(last, steps[1]):
                    kept.append(final)
            x = outputs[0] if directions == 1 else cat(outputs, -1)
            if layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, self.training, rng=self.rng)
        finals = [stack(kept, 0) for kept in last]
        if not batched:
            x, finals = x.squeeze(1), [f.squeeze(1) for f in finals]
        elif self.batch_first:
            x = x.transpose(0, 1)
        return x, (finals[0] if len(finals) == 1 else tuple(finals))

    def _initial_states(self, hx: Any, batched: bool, batch: int, directions: int,
                        dtype: np.dtype) -> list[Tensor]:
        """h_0 (and c_0) as (num_layers * directions, N, H) tensors (h_0's H proj_size if
        given): zeros when not given."""
        shape = (self.num_layers * directions, batch, self.hidden_size)
        shapes = [shape[:2] + (self.proj_size or self.hidden_size,)] + [shape] * (
            self._states - 1)
        return _initial_states(type(self).__name__, hx, shapes, batched, 1, dtype)

    def _run(self, x: Tensor, layer: int, suffix: str, state: list[Tensor],
             reverse: bool) -> tuple[list[Tensor], list[Tensor]]:
        """One direction of one layer over the sequence: (hidden state at each step in the
        input's order, the final states)."""
        weight_hh = getattr(self, f"weight_hh_l{layer}{suffix}")
        bias_hh = getattr(self, f"bias_hh_l{layer}{suffix}", None)
        projection = getattr(self, f"weight_hr_l{layer}{suffix}", None)
        from_input = F.linear(x, getattr(self, f"weight_ih_l{layer}{suffix}"),
                              getattr(self, f"bias_ih_l{layer}{suffix}", None))
        order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        hidden = []
        for t in order:
            state = self._cell(from_input[t], F.linear(state[0], weight_hh, bias_hh), state)
            if projection is not None:
                state[0] = F.linear(state[0], projection)
            hidden.append(state[0])
        return hidden[::-1] if reverse else hidden, state

    def _cell(self, from_input: Tensor, from_hidden: Tensor, state: list[Tensor]
              ) -> list[Tensor]:
        """The next states from the step's input and hidden shares: each subclass's gates (a
        bare RNNBase or RNNCellBase has none, as PyTorch's has no forward)."""
        raise NotImplementedError(f"{type(self).__name__} has no cell of its own: use nn.RNN, "
                                  f"nn.LSTM, nn.GRU or their cells")


def _initial_states(name: str, hx: Any, shapes: list[tuple[int, ...]], batched: bool,
                    batch_dim: int, dtype: np.dtype) -> list[Tensor]:
    """The states (h, or h and c) a recurrent layer starts from, one of each of `shapes`:
    zeros when hx is None, else hx's, given a batch dim at `batch_dim` if unbatched."""
    if hx is None:
        return [Tensor(np.zeros(shape, dtype)) for shape in shapes]
    given = list(hx) if len(shapes) > 1 else [hx]
    if len(given) != len(shapes):
        raise InvalidArgumentError(f"{name}: hx must be (h_0, c_0)")
    for g, shape in zip(given, shapes):
        expected = shape if batched else shape[:batch_dim] + shape[batch_dim + 1:]
        if g.shape != expected:
            raise InvalidArgumentError(f"{name}: expected hidden state of shape {expected}, "
                                       f"got {tuple(g.shape)}")
    return given if batched else [g.unsqueeze(batch_dim) for g in given]


class RNN(RNNBase):
    """Elman's RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu, with
    nonlinearity='relu'). Arguments and results as RNNBase."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: unknown nonlinearity {nonlinearity!r}; use 'tanh' or 'relu'")
        super().__init__(f"RNN_{nonlinearity.upper()}", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, rng=rng, dtype=dtype)
        self.nonlinearity = nonlinearity

    def _cell(self, from_input: Tensor, from_hidden: Tensor, state: list[Tensor]
              ) -> list[Tensor]:
        total = from_input + from_hidden
        return [total.tanh() if self.nonlinearity == "tanh" else total.relu()]


class LSTM(RNNBase):
    """Hochreiter & Schmidhuber's LSTM, PyTorch's gates (i, f, g, o) stacked in that order:
    i, f, o = sigmoid(...), g = tanh(...) of x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh;
    c_t = f c_{t-1} + i g,  h_t = o tanh(c_t) (times W_hr^T with proj_size). hx is (h_0, c_0);
    returns (output, (h_n, c_n))."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, rng=rng, dtype=dtype)

    def _cell(self, from_input: Tensor, from_hidden: Tensor, state: list[Tensor]
              ) -> list[Tensor]:
        i, f, g, o = (from_input + from_hidden).chunk(4, -1)
        cell = f.sigmoid() * state[1] + i.sigmoid() * g.tanh()
        return [o.sigmoid() * cell.tanh(), cell]


class GRU(RNNBase):
    """Cho et al.'s GRU, PyTorch's gates (r, z, n) stacked in that order:
    r, z = sigmoid(x_t W_i^T + b_i + h_{t-1} W_h^T + b_h) for their rows,
    n = tanh(x_t W_in^T + b_in + r (h_{t-1} W_hn^T + b_hn)),  h_t = (1 - z) n + z h_{t-1}."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, rng=rng, dtype=dtype)

    def _cell(self, from_input: Tensor, from_hidden: Tensor, state: list[Tensor]
              ) -> list[Tensor]:
        input_r, input_z, input_n = from_input.chunk(3, -1)
        hidden_r, hidden_z, hidden_n = from_hidden.chunk(3, -1)
        reset = (input_r + hidden_r).sigmoid()
        update = (input_z + hidden_z).sigmoid()
        candidate = (input_n + reset * hidden_n).tanh()
        return [(1 - update) * candidate + update * state[0]]


class RNNCellBase(Module):
    """The base class of RNNCell, LSTMCell and GRUCell, PyTorch's: weights of `num_chunks`
    blocks of hidden_size rows (the gates). The cells are one step of RNN, LSTM or GRU (the same
    `_cell`), with PyTorch's parameters weight_ih (gates * hidden_size, input_size), weight_hh,
    bias_ih and bias_hh, initialised as theirs. forward(input, hx=None) takes input (N,
    input_size) or unbatched (input_size,) and the state of that batchedness (zeros when not
    given): h, or (h, c) for LSTMCell; it returns the next state likewise."""

    _states = 1  # LSTMCell: h and c
    _cell = RNNBase._cell

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__()
        if hidden_size < 1:
            raise ValueError(f"{type(self).__name__}: hidden_size must be >= 1, got "
                             f"{hidden_size}")
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        uniform = functools.partial(_uniform_init, fan_in=hidden_size, rng=_default_rng(rng),
                                    dtype=dtype)
        self.weight_ih = uniform((num_chunks * hidden_size, input_size))
        self.weight_hh = uniform((num_chunks * hidden_size, hidden_size))
        self.bias_ih = uniform((num_chunks * hidden_size,)) if bias else None
        self.bias_hh = uniform((num_chunks * hidden_size,)) if bias else None

    def extra_repr(self) -> str:
        settings = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:  # PyTorch lists what is not default
            settings += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            settings += f", nonlinearity={self.nonlinearity}"
        return settings

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: expected input to be 1D or 2D, got {input.ndim}D")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        states = _initial_states(name, hx, [(x.shape[0], self.hidden_size)] * self._states,
                                 batched, 0, x.dtype)
        new = self._cell(F.linear(x, self.weight_ih, self.bias_ih),
                         F.linear(states[0], self.weight_hh, self.bias_hh), states)
        new = new if batched else [state.squeeze(0) for state in new]
        return new[0] if self._states == 1 else tuple(new)


class RNNCell(RNNCellBase):
    """One step of nn.RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    _cell = RNN._cell

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):  # PyTorch's RuntimeError comes when run
            raise InvalidArgumentError(f"RNNCell: unknown nonlinearity {nonlinearity!r}; use "
                                       f"'tanh' or 'relu'")
        super().__init__(input_size, hidden_size, bias, 1, rng=rng, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTMCell(RNNCellBase):
    """One step of nn.LSTM: hx is (h, c); returns (h', c')."""

    _states, _cell = 2, LSTM._cell

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, rng=rng, dtype=dtype)


class GRUCell(RNNCellBase):
    """One step of nn.GRU: returns h'."""

    _cell = GRU._cell

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, rng=rng, dtype=dtype)


class _ASMoutput(NamedTuple):
    """What AdaptiveLogSoftmaxWithLoss returns, as PyTorch's namedtuple: each target's log
    probability, and the mean of their negatives."""

    output: Tensor
    loss: Tensor


class AdaptiveLogSoftmaxWithLoss(Module):
    """Grave et al.'s adaptive softmax (2016), PyTorch's layer: the `cutoffs` split the classes
    by frequency (most frequent first) into a shortlist [0, cutoffs[0]) and clusters; `head`
    scores the shortlist and one entry per cluster, each cluster i's `tail[i]` (two linear maps
    without bias, through in_features // div_value ** (i + 1) features) its classes. A class's
    log probability is the head's for it, or its cluster's entry in the head plus its own in
    the cluster's log_softmax. forward(input, target) gives (output, loss): each row's target
    log probability and the mean of their negatives, computing a cluster's tail only for the
    rows whose target is in it; `log_prob(input)` gives all n_classes, `predict(input)` the
    most probable class."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(set(cutoffs)) or cutoffs[0] <= 0 or cutoffs[-1] > n_classes - 1
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features, self.n_classes, self.div_value = in_features, n_classes, div_value
        self.head_bias, self.cutoffs = head_bias, cutoffs + [n_classes]
        self.shortlist_size, self.n_clusters = cutoffs[0], len(cutoffs)
        self.head_size = self.shortlist_size + self.n_clusters
        rng = _default_rng(rng)
        self.head = Linear(in_features, self.head_size, head_bias, rng=rng, dtype=dtype)
        self.tail = ModuleList()
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            hidden = int(in_features // div_value ** (i + 1))
            self.tail.append(Sequential(Linear(in_features, hidden, False, rng=rng, dtype=dtype),
                                        Linear(hidden, stop - start, False, rng=rng,
                                               dtype=dtype)))

    def forward(self, input_: Tensor, target_: Any) -> _ASMoutput:
        """PyTorch's argument names (input_, target_), so they are given by name as there."""
        input, target = input_, _as_array(target_)
        if target.ndim > 1:
            raise InvalidArgumentError("0D or 1D target tensor expected, multi-target not "
                                       "supported")
        if target.ndim == 1 and input.shape[:1] != target.shape:
            raise InvalidArgumentError("Input and target should have the same size in the "
                                       "batch dimension.")
        if input.ndim != target.ndim + 1:
            raise InvalidArgumentError(f"{target.ndim}D target tensor expects "
                                       f"{target.ndim + 1}D input tensors, but found inputs "
                                       f"with size {input.shape}")
        if target.dtype.kind not in "iu":
            raise InvalidTypeError(f"AdaptiveLogSoftmaxWithLoss: target must hold integers, "
                                   f"got dtype {target.dtype}")
        batched = target.ndim == 1
        x, target = (input, target) if batched else (input.unsqueeze(0), target.reshape(1))
        if target.size and (target.min() < 0 or target.max() >= self.n_classes):
            raise InvalidArgumentError(f"Target values should be in [0, {self.n_classes - 1}], "
                                       f"but values in range [{target.min()}, {target.max()}] "
                                       f"were found.")
        cluster = np.searchsorted(self.cutoffs, target, side="right")  # 0: the shortlist
        head_column = np.where(cluster == 0, target, self.shortlist_size + cluster - 1)
        output = F.log_softmax(self.head(x), 1).gather(1, head_column[:, None]).squeeze(1)
        for i, tail in enumerate(self.tail, 1):
            rows = np.flatnonzero(cluster == i)
            if rows.size:
                within = (target[rows] - self.cutoffs[i - 1])[:, None]
                output = output.index_add(
                    0, rows, F.log_softmax(tail(x[rows]), 1).gather(1, within).squeeze(1))
        return _ASMoutput(output if batched else output.squeeze(0), (-output).mean())

    def log_prob(self, input: Tensor) -> Tensor:
        """The log probability of every class, (N, n_classes), of input (N, in_features)."""
        head = F.log_softmax(self.head(input), 1)
        clusters = [F.log_softmax(tail(input), 1) + head[:, self.shortlist_size + i:][:, :1]
                    for i, tail in enumerate(self.tail)]
        return cat([head[:, :self.shortlist_size], *clusters], 1)

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each row of input (N, in_features), int64 (outside the
        graph)."""
        return Tensor(self.log_prob(input).data.argmax(1).astype(np.int64))


class LazyLinear(_LazyModule, Linear):
    """nn.Linear with in_features inferred from the first input (its last dim), as PyTorch's;
    then a Linear."""

    cls_to_become = Linear
    _in_dim = -1

    def __init__(self, out_features: int, bias: bool = True, *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        self._lazy_init(out_features, bias, rng=rng, dtype=dtype)


class LazyConv1d(_LazyModule, Conv1d):
    """nn.Conv1d with in_channels inferred from the first input (dim 1, or 0 unbatched), as
    PyTorch's; then a Conv1d."""

    cls_to_become = Conv1d
    _unbatched_rank = 2

    def __init__(self, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                        padding_mode, rng=rng, dtype=dtype)


class LazyConv2d(_LazyModule, Conv2d):
    """nn.Conv2d with in_channels inferred from the first input (dim 1, or 0 unbatched), as
    PyTorch's; then a Conv2d."""

    cls_to_become = Conv2d
    _unbatched_rank = 3

    def __init__(self, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                        padding_mode, rng=rng, dtype=dtype)


class LazyConv3d(_LazyModule, Conv3d):
    """nn.Conv3d with in_channels inferred from the first input (dim 1, or 0 unbatched), as
    PyTorch's; then a Conv3d."""

    cls_to_become = Conv3d
    _unbatched_rank = 4

    def __init__(self, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
                 dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", *, rng: np.random.Generator | None = None,
                 dtype: Any = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, dilation, groups, bias,
                        padding_mode, rng=rng, dtype=dtype)


class LazyConvTranspose1d(_LazyModule, ConvTranspose1d):
    """nn.ConvTranspose1d with in_channels inferred from the first input (dim 1, or 0
    unbatched), as PyTorch's; then a ConvTranspose1d."""

    cls_to_become = ConvTranspose1d
    _unbatched_rank = 2

    def __init__(self, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, output_padding, groups,
                        bias, dilation, padding_mode, rng=rng, dtype=dtype)


class LazyConvTranspose2d(_LazyModule, ConvTranspose2d):
    """nn.ConvTranspose2d with in_channels inferred from the first input (dim 1, or 0
    unbatched), as PyTorch's; then a ConvTranspose2d."""

    cls_to_become = ConvTranspose2d
    _unbatched_rank = 3

    def __init__(self, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, output_padding, groups,
                        bias, dilation, padding_mode, rng=rng, dtype=dtype)


class LazyConvTranspose3d(_LazyModule, ConvTranspose3d):
    """nn.ConvTranspose3d with in_channels inferred from the first input (dim 1, or 0
    unbatched), as PyTorch's; then a ConvTranspose3d."""

    cls_to_become = ConvTranspose3d
    _unbatched_rank = 4

    def __init__(self, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", *,
                 rng: np.random.Generator | None = None, dtype: Any = None) -> None:
        self._lazy_init(out_channels, kernel_size, stride, padding, output_padding, groups,
                        bias, dilation, padding_mode, rng=rng, dtype=dtype)


class LazyBatchNorm1d(_LazyModule, BatchNorm1d):
    """nn.BatchNorm1d with num_features inferred from the first input (dim 1), as PyTorch's;
    then a BatchNorm1d."""

    cls_to_become = BatchNorm1d

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, *, dtype: Any = None,
                 bias: bool = True) -> None:
        self._lazy_init(eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)


class LazyBatchNorm2d(_LazyModule, BatchNorm2d):
    """nn.BatchNorm2d with num_features inferred from the first input (dim 1), as PyTorch's;
    then a BatchNorm2d."""

    cls_to_become = BatchNorm2d

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, *, dtype: Any = None,
                 bias: bool = True) -> None:
        self._lazy_init(eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)


class LazyBatchNorm3d(_LazyModule, BatchNorm3d):
    """nn.BatchNorm3d with num_features inferred from the first input (dim 1), as PyTorch's;
    then a BatchNorm3d."""

    cls_to_become = BatchNorm3d

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, *, dtype: Any = None,
                 bias: bool = True) -> None:
        self._lazy_init(eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)


class LazyInstanceNorm1d(_LazyModule, InstanceNorm1d):
    """nn.InstanceNorm1d with num_features inferred from the first input (dim 1, or 0
    unbatched), then an InstanceNorm1d; PyTorch's defaults, which unlike InstanceNorm1d's
    are affine=True and track_running_stats=True."""

    cls_to_become = InstanceNorm1d
    _unbatched_rank = 2

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, *, dtype: Any = None,
                 bias: bool = True) -> None:
        self._lazy_init(eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)


class LazyInstanceNorm2d(_LazyModule, InstanceNorm2d):
    """nn.InstanceNorm2d with num_features inferred from the first input (dim 1, or 0
    unbatched), then an InstanceNorm2d; PyTorch's defaults, which unlike InstanceNorm2d's
    are affine=True and track_running_stats=True."""

    cls_to_become = InstanceNorm2d
    _unbatched_rank = 3

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, *, dtype: Any = None,
                 bias: bool = True) -> None:
        self._lazy_init(eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)


class LazyInstanceNorm3d(_LazyModule, InstanceNorm3d):
    """nn.InstanceNorm3d with num_features inferred from the first input (dim 1, or 0
    unbatched), then an InstanceNorm3d; PyTorch's defaults, which unlike InstanceNorm3d's
    are affine=True and track_running_stats=True."""

    cls_to_become = InstanceNorm3d
    _unbatched_rank = 4

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, *, dtype: Any = None,
                 bias: bool = True) -> None:
        self._lazy_init(eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)


# what `from minigrad.nn.modules import *` (and so minigrad.nn) offers: the layers defined here
__all__ = [name for name, value in list(globals().items())
           if isinstance(value, type) and value.__module__ == __name__ and not name.startswith("_")]
