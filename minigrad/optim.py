"""Optimizers (`SGD`, `Adam`, `AdamW`, `RMSprop`, `Adagrad`, `Adamax`, `NAdam`, `RAdam`,
`Adadelta`, `Rprop`, `ASGD`, `LBFGS`), gradient clipping and the
warm-up + cosine learning-rate schedule (PyTorch's schedulers are in `optim.lr_scheduler`).

Optimizers take parameters or parameter groups (dicts with a "params" list and any setting to
override, e.g. {"params": biases, "weight_decay": 0.0}), and update `param.data` in place from
`param.grad`. Parameters whose grad is None are skipped. lr may be a one-entry Tensor, as in
PyTorch. The signatures are PyTorch's. `foreach` (PyTorch's choice between a loop and batched
kernels) is accepted and changes nothing: minigrad has one implementation; `capturable`,
`differentiable` and `fused` are accepted at their defaults only.
"""
from __future__ import annotations

import functools
import math
import sys
import warnings
from typing import Any, Callable, Iterable

import numpy as np

from .dtypes import get_default_dtype
from .engine import HookHandle, _registered, enable_grad
from .errors import InvalidArgumentError
from .tensor import Tensor


class Optimizer:
    """Holds parameter groups and per-parameter state arrays; `step` updates each parameter that
    has a gradient by the subclass's `_update`."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict],
                 defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):  # iterating it would give its rows, not parameters
            raise TypeError(f"{type(self).__name__}: params must be an iterable of Tensors or "
                            f"dicts, got a Tensor; pass [tensor]")
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__}: got an empty parameter list")
        self.defaults = defaults
        # hook id -> hook, in calling order; HookHandle.remove() deletes the entry
        self._optimizer_step_pre_hooks: dict[int, Callable] = {}
        self._optimizer_step_post_hooks: dict[int, Callable] = {}
        self._optimizer_state_dict_pre_hooks: dict[int, Callable] = {}
        self._optimizer_state_dict_post_hooks: dict[int, Callable] = {}
        self._optimizer_load_state_dict_pre_hooks: dict[int, Callable] = {}
        self._optimizer_load_state_dict_post_hooks: dict[int, Callable] = {}
        self._stepping = False  # inside step: a nested step (super().step) runs no hooks
        self.param_groups: list[dict[str, Any]] = []
        self.step_count = 0
        # per-parameter state arrays, named "<state>.<index of the parameter over all groups>"
        self.state: dict[str, np.ndarray] = {}
        for group in params if isinstance(params[0], dict) else [{"params": params}]:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Optimize more parameters: a dict with "params" (a Tensor or a list of them) and any
        setting that overrides the defaults, as when unfreezing layers during training. Their
        state is numbered after every parameter already there."""
        name = type(self).__name__
        if not isinstance(param_group, dict):
            raise TypeError(f"{name}: a parameter group must be a dict, got a "
                            f"{type(param_group).__name__}")
        members = param_group["params"]
        if isinstance(members, (set, frozenset)):  # its order, and so the state's, would vary
            raise TypeError(f"{name}: a parameter group's params must be ordered (a list or "
                            f"tuple), got a set")
        members = [members] if isinstance(members, Tensor) else list(members)
        for p in members:
            if not isinstance(p, Tensor):
                raise TypeError(f"{name}: can only optimize Tensors, got a {type(p).__name__}")
            if not p.is_leaf:  # its updates would be lost on the next forward
                raise ValueError(f"{name}: can't optimize a non-leaf Tensor")
        ids = {id(p) for p in members}
        if any(id(p) in ids for group in self.param_groups for p in group["params"]):
            raise ValueError(f"{name}: some parameters appear in more than one parameter group")
        if len(ids) < len(members):  # PyTorch warns, and steps them twice
            warnings.warn(f"{name}: a parameter group lists a parameter more than once; it is "
                          f"updated once per listing", UserWarning, stacklevel=3)
        self.param_groups.append({**self.defaults, **param_group, "params": members})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every subclass's own `step` runs the step hooks, as PyTorch's optimizers' do."""
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_step_hooks(cls.__dict__["step"])

    def register_step_pre_hook(self, hook: Callable[..., tuple[tuple, dict] | None]
                               ) -> HookHandle:
        """Call hook(optimizer, args, kwargs) before each `step` (args start with the
        optimizer, as PyTorch's); a hook returning (args, kwargs) replaces them."""
        return _registered(self._optimizer_step_pre_hooks, hook, prepend=False)

    def register_step_post_hook(self, hook: Callable[..., None]) -> HookHandle:
        """Call hook(optimizer, args, kwargs) after each `step`."""
        return _registered(self._optimizer_step_post_hooks, hook, prepend=False)

    def register_state_dict_pre_hook(self, hook: Callable[[Optimizer], None],
                                     prepend: bool = False) -> HookHandle:
        """Call hook(optimizer) before `state_dict` gathers the state."""
        return _registered(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
            self, hook: Callable[[Optimizer, dict[str, Any]], dict[str, Any] | None],
            prepend: bool = False) -> HookHandle:
        """Call hook(optimizer, state_dict) on what `state_dict` returns; a hook returning a
        dict replaces it."""
        return _registered(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
            self, hook: Callable[[Optimizer, dict[str, Any]], dict[str, Any] | None],
            prepend: bool = False) -> HookHandle:
        """Call hook(optimizer, state_dict) on what `load_state_dict` is given, before it
        reads it; a hook returning a dict replaces it."""
        return _registered(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[[Optimizer], None],
                                           prepend: bool = False) -> HookHandle:
        """Call hook(optimizer) once `load_state_dict` has restored the state."""
        return _registered(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def _through_hooks(self, hooks: dict[int, Callable], state_dict: dict[str, Any]
                       ) -> dict[str, Any]:
        """`state_dict` passed through `hooks`, each of which may return a replacement."""
        for hook in list(hooks.values()):
            replaced = hook(self, state_dict)
            state_dict = state_dict if replaced is None else replaced
        return state_dict

    def __repr__(self) -> str:
        """PyTorch's layout: the class, then each group's settings in sorted order."""
        text = f"{type(self).__name__} ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            text += "".join(f"    {name}: {group[name]}\n" for name in sorted(group)
                            if name != "params")
        return text + ")"

    def _params(self) -> Iterable[tuple[int, dict[str, Any], Tensor]]:
        index = 0
        for group in self.param_groups:
            for p in group["params"]:
                yield index, group, p
                index += 1

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient: to None, or to zeros in place (Tensor.zero_grad)."""
        for _, _, p in self._params():
            p.zero_grad(set_to_none)

    def _buffer(self, name: str, index: int, like: np.ndarray, fill: float = 0.0
                ) -> np.ndarray:
        """State array `name` of parameter `index`, made on first use shaped as `like` and
        filled with `fill`."""
        key = f"{name}.{index}"
        if key not in self.state:
            self.state[key] = np.full_like(like, fill)
        return self.state[key]

    def _scalar_buffer(self, name: str, index: int, fill: float) -> np.ndarray:
        """State number `name` of parameter `index` as a 0-d array made on first use holding
        `fill`: PyTorch keeps such numbers (NAdam's mu_product, ASGD's eta and mu) in float32
        tensors, float64 under a float64 default dtype, so they round to that at every step."""
        dtype = np.float64 if get_default_dtype() is np.float64 else np.float32
        return self._buffer(name, index, np.zeros((), dtype), fill)

    def _count_update(self, index: int) -> int:
        """How many updates parameter `index` has had, this one included (a parameter without a
        gradient at some step is not updated then, so counts can differ, as in PyTorch)."""
        key = f"updates.{index}"
        self.state[key] = np.array(int(self.state.get(key, 0)) + 1)
        return int(self.state[key])

    def state_dict(self) -> dict[str, np.ndarray]:
        """Step count, state buffers and each group's settings (lr, betas, ...: entries
        "param_groups.<group>.<setting>"), as numpy arrays ready for np.savez."""
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        settings = {f"param_groups.{index}.{name}": np.array(value)
                    for index, group in enumerate(self.param_groups)
                    for name, value in group.items() if name != "params"}
        state_dict = {"step": np.array(self.step_count), **settings,
                      **{k: v.copy() for k, v in self.state.items()}}
        return self._through_hooks(self._optimizer_state_dict_post_hooks, state_dict)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what `state_dict` returned: the step count, the state buffers (checked
        against the parameters' shapes) and, where given, the groups' settings. PyTorch's
        nested layout ({"state": ..., "param_groups": ...}, as a torch optimizer of the same
        kind and parameters returns it) is read too. Any other entry (one a state-dict
        post-hook added) is ignored, as PyTorch reads only "state" and "param_groups"; the
        pre-hooks get a copy of the dict, so one that takes such an entry out leaves the
        caller's as it was."""
        state_dict = self._through_hooks(self._optimizer_load_state_dict_pre_hooks,
                                         dict(state_dict))
        if "state" in state_dict and "param_groups" in state_dict:
            state_dict = self._flattened(state_dict)
        if "step" not in state_dict:
            raise KeyError(f"{type(self).__name__}.load_state_dict: no 'step' entry")
        settings = {key: value for key, value in state_dict.items()
                    if isinstance(key, str) and key.startswith("param_groups.")}
        state = {key: value for key, value in state_dict.items()
                 if key == "step" or (_is_state_key(key) and key not in settings)}
        for key, value in state.items():
            if key == "step":
                continue
            name, index = key.rsplit(".", 1)
            expected = self._state_shape(name, int(index), np.asarray(value))
            if expected != value.shape:
                raise ValueError(f"{type(self).__name__}.load_state_dict: {key} has shape "
                                 f"{value.shape}, expected {expected}")
        groups = [self._group_settings(key, value) for key, value in settings.items()]
        self.step_count = int(state.pop("step"))
        self.state = {k: np.array(v) for k, v in state.items()}
        for index, name, value in groups:
            self.param_groups[index][name] = value
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    def _state_shape(self, name: str, index: int, value: np.ndarray) -> tuple[int, ...] | None:
        """The shape state `name` of parameter `index` must have (None: no such parameter)."""
        if name in self._scalar_buffers:
            return ()
        shapes = [p.shape for _, _, p in self._params()]
        return shapes[index] if index < len(shapes) else None

    # PyTorch's names of state buffers minigrad names otherwise, and its group settings that
    # choose an implementation (minigrad has one)
    _torch_buffer_names = {"step": "updates"}
    # state held as one number per parameter, not an array shaped as it
    _scalar_buffers: tuple[str, ...] = ("updates",)
    _torch_implementation_settings = ("params", "foreach", "fused", "differentiable",
                                      "capturable")

    def _flattened(self, nested: dict[str, Any]) -> dict[str, np.ndarray]:
        """PyTorch's nested state dict in minigrad's flat layout. Its parameter indices count
        over all groups in order, as minigrad's do; the step count, which it lacks, is the
        largest parameter's."""
        name = type(self).__name__
        groups = nested["param_groups"]
        if [len(g["params"]) for g in groups] != [len(g["params"]) for g in self.param_groups]:
            raise ValueError(f"{name}.load_state_dict: the state dict's parameter groups hold "
                             f"{[len(g['params']) for g in groups]} parameters, this "
                             f"optimizer's {[len(g['params']) for g in self.param_groups]}")
        flat = {f"{self._torch_buffer_names.get(buffer, buffer)}.{index}": np.asarray(value)
                for index, buffers in nested["state"].items()
                for buffer, value in buffers.items() if value is not None}
        for key in flat:
            if key.startswith("updates."):  # PyTorch counts in a float tensor
                flat[key] = np.array(int(flat[key]))
        flat.update({f"param_groups.{index}.{setting}": np.asarray(value)
                     for index, group in enumerate(groups) for setting, value in group.items()
                     if setting not in self._torch_implementation_settings})
        counts = [int(v) for k, v in flat.items() if k.startswith("updates.")]
        return {"step": np.array(max(counts, default=0)), **flat}

    def _group_settings(self, key: str, value: np.ndarray) -> tuple[int, str, Any]:
        """(group index, setting, value as the Python type the group holds) of a
        "param_groups.<group>.<setting>" entry."""
        _, index, name = key.split(".", 2)
        if not index.isdigit() or int(index) >= len(self.param_groups):
            raise ValueError(f"{type(self).__name__}.load_state_dict: {key} names no parameter "
                             f"group (there are {len(self.param_groups)})")
        current = self.param_groups[int(index)].get(name)
        setting = np.asarray(value).tolist()  # Python numbers, bools and strings
        if isinstance(current, (tuple, list)):  # betas, as a tuple or a list
            setting = type(current)(setting)
        return int(index), name, setting

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient (a parameter without one is skipped, and
        its update count stays as it is). As PyTorch's, `closure` (recomputing the loss and
        its gradients) is called first, in grad mode, and its loss returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self.step_count += 1
        for index, group, p in self._params():
            if p.grad is None:
                continue
            g = -p.grad.data if group["maximize"] else p.grad.data
            if group.get("weight_decay") and not group.get("decoupled_weight_decay"):
                g = g + group["weight_decay"] * p.data  # L2 decay: part of the gradient
            self._update(index, _with_number_lr(group), p, g)
            p._version += 1  # changed in place: backward refuses a graph that saved it
        return loss

    def _update(self, index: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        """Update parameter `p` (number `index` over all groups) from its gradient `g`, already
        negated for maximize and with L2 weight decay added: the subclass's formulas."""
        raise NotImplementedError


def _is_state_key(key: Any) -> bool:
    """Whether `key` names a state buffer of the flat layout: '<buffer>.<parameter index>'."""
    if not isinstance(key, str):
        return False
    buffer, _, index = key.rpartition(".")
    return bool(buffer) and index.isascii() and index.isdigit()


def _with_step_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    """`step` running the optimizer's step pre-hooks before it and post-hooks after it, each
    given (optimizer, args, kwargs) with args starting with the optimizer, as PyTorch's. A
    step called from inside another (a subclass's through super().step) runs them once."""
    @functools.wraps(step)
    def hooked_step(*args: Any, **kwargs: Any) -> Any:
        optimizer = args[0]
        if optimizer._stepping:
            return step(*args, **kwargs)
        for hook in list(optimizer._optimizer_step_pre_hooks.values()):
            replaced = hook(optimizer, args, kwargs)
            if replaced is not None:
                if not (isinstance(replaced, tuple) and len(replaced) == 2):
                    raise RuntimeError(f"{type(optimizer).__name__}.step: a step pre-hook must "
                                       f"return None or (args, kwargs), got {replaced!r}")
                args, kwargs = replaced
        optimizer._stepping = True
        try:
            result = step(*args, **kwargs)
        finally:
            optimizer._stepping = False
        for hook in list(optimizer._optimizer_step_post_hooks.values()):
            hook(optimizer, args, kwargs)
        return result

    return hooked_step


Optimizer.step = _with_step_hooks(Optimizer.step)  # subclasses': Optimizer.__init_subclass__


def _with_number_lr(group: dict[str, Any]) -> dict[str, Any]:
    """The group, with an lr given as a one-entry Tensor read as its number (as PyTorch's
    optimizers take one: changing the tensor in place changes the next step's lr)."""
    if isinstance(group["lr"], Tensor):
        return {**group, "lr": group["lr"].item()}
    return group


def _refuse_unsupported(optimizer: str, **settings: bool | None) -> None:
    """PyTorch's capturable (CUDA graphs), differentiable (a graph through the update) and
    fused (one kernel) settings are accepted at their default only: minigrad has none of them."""
    for name, value in settings.items():
        if value:
            raise NotImplementedError(f"{optimizer}: {name}=True is not supported by minigrad")


def _check_settings(optimizer: str, betas: tuple[float, float] = (0.0, 0.0),
                    **at_least_zero: float) -> None:
    """PyTorch's checks of an optimizer's settings: lr (a number or a one-entry Tensor), eps,
    momentum and weight_decay not negative (NaN refused too), each beta in [0, 1)."""
    lr = at_least_zero.get("lr")
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError(f"{optimizer}: a Tensor lr must have one entry, got shape {lr.shape}")
    for name, value in at_least_zero.items():
        if not value >= 0:
            raise ValueError(f"{optimizer}: invalid {name} {value}, expected >= 0")
    for i, beta in enumerate(betas):
        if not 0 <= beta < 1:
            raise ValueError(f"{optimizer}: invalid beta at index {i}: {beta}, expected a "
                             f"value in [0, 1)")


class SGD(Optimizer):
    """The update of torch.optim.SGD:
        g = grad (-grad with maximize) + weight_decay * p
        buf = momentum * buf + (1 - dampening) * g   (buf = g at the first step)
        p -= lr * (g + momentum * buf if nesterov else buf)   (buf = g if momentum is 0)"""

    def __init__(self, params: Iterable, lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        _refuse_unsupported("SGD", differentiable=differentiable, fused=fused)
        _check_settings("SGD", lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum needs momentum > 0 and dampening 0")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})

    _torch_buffer_names = {**Optimizer._torch_buffer_names, "momentum_buffer": "momentum"}

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        momentum = group["momentum"]
        if momentum:
            first = f"momentum.{i}" not in self.state  # PyTorch starts buf at g, undamped
            buf = self._buffer("momentum", i, p.data)
            buf *= momentum
            buf += g if first else (1 - group["dampening"]) * g
            g = g + momentum * buf if group["nesterov"] else buf
        p.data -= group["lr"] * g


class Adam(Optimizer):
    """The update of torch.optim.Adam:
        g = grad (-grad with maximize) + weight_decay * p
            (or, with decoupled_weight_decay, p *= 1 - lr * weight_decay)
        m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2   (with amsgrad, v_max = max(v_max, v)
        replaces v below)
        p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    where t counts this parameter's updates (steps at which it had a gradient)."""

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _refuse_unsupported(type(self).__name__, capturable=capturable,
                            differentiable=differentiable, fused=fused)
        _check_settings(type(self).__name__, betas, lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        t = self._count_update(i)  # bias correction counts this parameter's own updates
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        m = self._buffer("exp_avg", i, p.data)
        v = self._buffer("exp_avg_sq", i, p.data)
        if group["weight_decay"] and group["decoupled_weight_decay"]:
            p.data *= 1 - lr * group["weight_decay"]
        # the formulas in place through one scratch array (no temporary per operation); m
        # as PyTorch's lerp: m + (1 - b1) (g - m)
        scratch = np.subtract(g, m, out=np.empty_like(m))  # an array even for a 0-d parameter
        scratch *= 1 - b1
        m += scratch
        np.multiply(g, g, out=scratch)
        scratch *= 1 - b2
        v *= b2
        v += scratch
        if group["amsgrad"]:  # the largest v so far, in place of v
            v_max = self._buffer("max_exp_avg_sq", i, p.data)
            np.maximum(v_max, v, out=v_max)
            v = v_max
        # lr / (1 - b1^t) * m / (sqrt(v) / c + eps) with c = sqrt(1 - b2^t) is
        # lr c / (1 - b1^t) * m / (sqrt(v) + eps c): one pass over the arrays fewer
        c = math.sqrt(1 - b2 ** t)
        np.sqrt(v, out=scratch)
        scratch += eps * c
        np.divide(m, scratch, out=scratch)
        scratch *= lr * c / (1 - b1 ** t)
        p.data -= scratch


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), the update of torch.optim.AdamW:
        p *= 1 - lr * weight_decay;   g = grad (-grad with maximize)
        m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2
        p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    where t counts this parameter's updates (steps at which it had a gradient)."""

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.01, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(Optimizer):
    """The update of torch.optim.RMSprop (Hinton's, with Graves's centred variant):
        g = grad (-grad with maximize) + weight_decay * p
        v = alpha v + (1 - alpha) g^2;   with centered, m = alpha m + (1 - alpha) g and
        v - m^2 replaces v below
        p -= lr * g / (sqrt(v) + eps)   (with momentum: buf = momentum buf + g / (sqrt(v) + eps),
        p -= lr * buf)"""

    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _refuse_unsupported("RMSprop", capturable=capturable, differentiable=differentiable)
        _check_settings("RMSprop", lr=lr, eps=eps, weight_decay=weight_decay, momentum=momentum,
                        alpha=alpha)
        super().__init__(params, {"lr": lr, "alpha": alpha, "eps": eps,
                                  "weight_decay": weight_decay, "momentum": momentum,
                                  "centered": centered, "maximize": maximize})

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        self._count_update(i)
        alpha = group["alpha"]
        v = self._buffer("square_avg", i, p.data)
        v *= alpha
        v += (1 - alpha) * g * g
        if group["centered"]:
            m = self._buffer("grad_avg", i, p.data)
            m += (1 - alpha) * (g - m)  # PyTorch's lerp
            denominator = np.sqrt(v - m * m)
        else:
            denominator = np.sqrt(v)
        denominator += group["eps"]
        if group["momentum"]:
            buf = self._buffer("momentum_buffer", i, p.data)
            buf *= group["momentum"]
            buf += g / denominator
            p.data -= group["lr"] * buf
        else:
            p.data -= group["lr"] * (g / denominator)


class Adagrad(Optimizer):
    """The update of torch.optim.Adagrad (Duchi et al.):
        g = grad (-grad with maximize) + weight_decay * p
        s += g^2   (s starts at initial_accumulator_value)
        p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)
    where t counts this parameter's updates."""

    def __init__(self, params: Iterable, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        _refuse_unsupported("Adagrad", differentiable=differentiable, fused=fused)
        _check_settings("Adagrad", lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value,
                                  "eps": eps, "maximize": maximize})

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        t = self._count_update(i)
        total = self._buffer("sum", i, p.data, group["initial_accumulator_value"])
        total += g * g
        step_size = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        p.data -= step_size * (g / (np.sqrt(total) + group["eps"]))


class Adamax(Optimizer):
    """Adam with the infinity norm (Kingma & Ba, section 7.1), the update of torch.optim.Adamax:
        g = grad (-grad with maximize) + weight_decay * p
        m = b1 m + (1 - b1) g;   u = max(b2 u, |g| + eps)
        p -= lr / (1 - b1^t) * m / u
    where t counts this parameter's updates."""

    def __init__(self, params: Iterable, lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _refuse_unsupported("Adamax", differentiable=differentiable, capturable=capturable)
        _check_settings("Adamax", betas, lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize})

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        t = self._count_update(i)
        b1, b2 = group["betas"]
        m = self._buffer("exp_avg", i, p.data)
        u = self._buffer("exp_inf", i, p.data)
        m += (1 - b1) * (g - m)  # PyTorch's lerp
        u *= b2
        np.maximum(u, np.abs(g) + group["eps"], out=u)
        p.data -= group["lr"] / (1 - b1 ** t) * (m / u)


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat), the update of torch.optim.NAdam:
        g = grad (-grad with maximize) + weight_decay * p
            (or, with decoupled_weight_decay, p *= 1 - lr * weight_decay)
        mu_t = b1 (1 - 0.96^(t momentum_decay) / 2);   P_t = mu_1 mu_2 ... mu_t (mu_product)
        m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2;   d = sqrt(v / (1 - b2^t)) + eps
        p -= lr (1 - mu_t) / (1 - P_t) * g / d + lr mu_{t+1} / (1 - P_t mu_{t+1}) * m / d
    where t counts this parameter's updates."""

    def __init__(self, params: Iterable, lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _refuse_unsupported("NAdam", capturable=capturable, differentiable=differentiable)
        _check_settings("NAdam", betas, lr=lr, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "momentum_decay": momentum_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize})

    _scalar_buffers = (*Optimizer._scalar_buffers, "mu_product")

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        t = self._count_update(i)
        lr, (b1, b2), decay = group["lr"], group["betas"], group["momentum_decay"]
        if group["weight_decay"] and group["decoupled_weight_decay"]:
            p.data *= 1 - lr * group["weight_decay"]
        mu = b1 * (1 - 0.5 * 0.96 ** (t * decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * decay))
        mu_product = self._scalar_buffer("mu_product", i, 1.0)
        mu_product *= mu
        m = self._buffer("exp_avg", i, p.data)
        v = self._buffer("exp_avg_sq", i, p.data)
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        denominator = np.sqrt(v / (1 - b2 ** t)) + group["eps"]
        p.data -= lr * (1 - mu) / (1 - float(mu_product)) * (g / denominator)
        p.data -= lr * mu_next / (1 - float(mu_product) * mu_next) * (m / denominator)


class RAdam(Optimizer):
    """Adam with a rectified adaptive lr (Liu et al.), the update of torch.optim.RAdam:
        g = grad (-grad with maximize) + weight_decay * p
            (or, with decoupled_weight_decay, p *= 1 - lr * weight_decay)
        m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2;   m_hat = m / (1 - b1^t)
        rho_inf = 2 / (1 - b2) - 1;   rho_t = rho_inf - 2 t b2^t / (1 - b2^t)
        if rho_t > 5:  r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                       p -= lr * m_hat * sqrt(1 - b2^t) / (sqrt(v) + eps) * r
        else:          p -= lr * m_hat   (v too uncertain yet: plain momentum)
    where t counts this parameter's updates."""

    def __init__(self, params: Iterable, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _refuse_unsupported("RAdam", capturable=capturable, differentiable=differentiable)
        _check_settings("RAdam", betas, lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize})

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        t = self._count_update(i)
        lr, (b1, b2) = group["lr"], group["betas"]
        if group["weight_decay"] and group["decoupled_weight_decay"]:
            p.data *= 1 - lr * group["weight_decay"]
        m = self._buffer("exp_avg", i, p.data)
        v = self._buffer("exp_avg_sq", i, p.data)
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        correction2 = 1 - b2 ** t
        step = m / (1 - b1 ** t) * lr
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / correction2
        if rho_t > 5:
            rectification = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                                      / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            step = step * (math.sqrt(correction2) / (np.sqrt(v) + group["eps"])) * rectification
        p.data -= step


class Adadelta(Optimizer):
    """The update of torch.optim.Adadelta (Zeiler):
        g = grad (-grad with maximize) + weight_decay * p
        v = rho v + (1 - rho) g^2;   delta = sqrt(a + eps) / sqrt(v + eps) * g
        a = rho a + (1 - rho) delta^2;   p -= lr * delta"""

    def __init__(self, params: Iterable, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _refuse_unsupported("Adadelta", capturable=capturable, differentiable=differentiable)
        _check_settings("Adadelta", lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0 <= rho <= 1:
            raise ValueError(f"Adadelta: invalid rho {rho}, expected a value in [0, 1]")
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize})

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        self._count_update(i)
        rho, eps = group["rho"], group["eps"]
        v = self._buffer("square_avg", i, p.data)
        accumulated = self._buffer("acc_delta", i, p.data)
        v *= rho
        v += (1 - rho) * g * g
        delta = np.sqrt(accumulated + eps) / np.sqrt(v + eps) * g
        accumulated *= rho
        accumulated += (1 - rho) * delta * delta
        p.data -= group["lr"] * delta


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun), the update of torch.optim.Rprop, which
    uses only the gradient's sign (it has no weight decay):
        g = grad (-grad with maximize);   s = sign(g * g_prev)
        step_size *= etaplus where s > 0, etaminus where s < 0; clamped to step_sizes
        g = 0 where s < 0 (the sign flipped: no move now, and no comparison next time)
        p -= sign(g) * step_size;   g_prev = g
    with each step_size starting at lr."""

    def __init__(self, params: Iterable, lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _refuse_unsupported("Rprop", capturable=capturable, differentiable=differentiable)
        _check_settings("Rprop", lr=lr)
        if not 0 < etas[0] < 1 < etas[1]:
            raise ValueError(f"Rprop: invalid etas {etas[0]}, {etas[1]}, expected "
                             f"0 < etaminus < 1 < etaplus")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "maximize": maximize})

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        self._count_update(i)
        (eta_minus, eta_plus), (smallest, largest) = group["etas"], group["step_sizes"]
        previous = self._buffer("prev", i, p.data)
        step_size = self._buffer("step_size", i, p.data, group["lr"])
        agreement = np.sign(g * previous)
        factor = np.ones_like(step_size)  # in the parameter's dtype, as PyTorch's
        factor[agreement > 0] = eta_plus
        factor[agreement < 0] = eta_minus
        step_size *= factor
        np.clip(step_size, smallest, largest, out=step_size)
        g = np.where(agreement < 0, 0, g).astype(p.data.dtype, copy=False)
        p.data -= np.sign(g) * step_size
        previous[...] = g


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky), the update of torch.optim.ASGD:
        g = grad (-grad with maximize) + weight_decay * p
        p *= 1 - lambd * eta;   p -= eta * g
        ax = p while mu is 1, else ax += mu (p - ax)   (the average of the iterates, `ax`)
        eta = lr / (1 + lambd lr t)^alpha;   mu = 1 / max(1, t - t0)
    where t counts this parameter's updates, eta starts at lr and mu at 1."""

    def __init__(self, params: Iterable, lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _refuse_unsupported("ASGD", differentiable=differentiable, capturable=capturable)
        _check_settings("ASGD", lr=lr, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "maximize": maximize})

    _scalar_buffers = (*Optimizer._scalar_buffers, "eta", "mu")

    def _update(self, i: int, group: dict[str, Any], p: Tensor, g: np.ndarray) -> None:
        t = self._count_update(i)
        lr, lambd = group["lr"], group["lambd"]
        eta = self._scalar_buffer("eta", i, lr)
        mu = self._scalar_buffer("mu", i, 1.0)
        average = self._buffer("ax", i, p.data)
        p.data *= 1 - lambd * float(eta)
        p.data -= float(eta) * g
        if mu == 1:
            average[...] = p.data
        else:
            average += (p.data - average) * mu
        # PyTorch makes both tensors of the default dtype before copying them in, so under a
        # float16 default they round to float16 first
        eta[...] = np.asarray(lr / (1 + lambd * lr * t) ** group["alpha"], get_default_dtype())
        mu[...] = np.asarray(1 / max(1, t - group["t0"]), get_default_dtype())


class LBFGS(Optimizer):
    """Limited-memory BFGS (Nocedal & Wright, Numerical Optimization, algorithms 7.4 and 7.5),
    as torch.optim.LBFGS. Each step(closure) runs up to max_iter iterations on all parameters
    as one flat vector x with gradient g:
        d = -H g, H g by the two-loop recursion over the last history_size pairs s = t d,
            y = g_new - g (a pair is kept only where y.s > 1e-10), from H_0 = (y.s / y.y) I;
            d = -g at the very first iteration
        x += t d, with t = lr min(1, 1 / |g|_1) at the first iteration and lr after, or, with
            line_search_fn="strong_wolfe", the t a line search finds that meets the strong
            Wolfe conditions (c1 = 1e-4, c2 = 0.9, cubic interpolation, at most 25 evaluations)
    It stops once max(|g|) <= tolerance_grad, d.g > -tolerance_change, max(|t d|) or the change
    of the loss is within tolerance_change, or after max_iter iterations or max_eval calls of
    the closure. The curvature history carries over to the next step. One parameter group."""

    def __init__(self, params: Iterable, lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        _check_settings("LBFGS", lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad,
                                  "tolerance_change": tolerance_change,
                                  "history_size": history_size,
                                  "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:  # its state is one vector over all parameters
            raise ValueError("LBFGS: doesn't support per-parameter options (parameter groups)")

    def _state_shape(self, name: str, index: int, value: np.ndarray) -> tuple[int, ...] | None:
        """All of LBFGS's state sits at parameter 0, as PyTorch's: vectors over all the
        parameters' entries, the history as rows of them, and numbers."""
        if index != 0:
            return None
        size = sum(p.numel() for _, _, p in self._params())
        return {"d": (size,), "prev_flat_grad": (size,), "old_dirs": (*value.shape[:1], size),
                "old_stps": (*value.shape[:1], size), "ro": value.shape[:1]}.get(name, ())

    def _flattened(self, nested: dict[str, Any]) -> dict[str, np.ndarray]:
        """PyTorch's LBFGS state: its history lists stacked as rows, without its scratch list
        'al' (the two-loop recursion's coefficients, recomputed at every iteration)."""
        state = {index: {name: value for name, value in buffers.items() if name != "al"}
                 for index, buffers in nested["state"].items()}
        flat = super()._flattened({**nested, "state": state})
        size = sum(p.numel() for _, _, p in self._params())
        for key in ("old_dirs.0", "old_stps.0"):
            if key in flat:  # an empty history is an empty list
                flat[key] = flat[key].reshape(-1, size)
        return flat

    def _flat_grad(self) -> np.ndarray:
        """All gradients as one vector (zeros for a parameter without one)."""
        return np.concatenate([(np.zeros_like(p.data) if p.grad is None else p.grad.data).ravel()
                               for _, _, p in self._params()])

    def _move(self, t: float, d: np.ndarray) -> None:
        """x += t d, on the parameters in place."""
        offset = 0
        for _, _, p in self._params():
            p.data += t * d[offset:offset + p.data.size].reshape(p.shape)
            p._version += 1
            offset += p.data.size

    def _loss_and_grad(self, closure: Callable[[], Any]) -> tuple[float, np.ndarray]:
        with enable_grad():
            loss = float(closure())
        return loss, self._flat_grad()

    def step(self, closure: Callable[[], Any]) -> Any:
        """Minimise the loss `closure` (which recomputes it and its gradients) by up to
        max_iter L-BFGS iterations; returns the closure's first loss, as PyTorch's."""
        group = _with_number_lr(self.param_groups[0])
        lr, history_size = group["lr"], group["history_size"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise RuntimeError("LBFGS: only line_search_fn='strong_wolfe' is supported")
        self.step_count += 1
        state = self.state
        with enable_grad():
            first_loss = closure()
        loss, g = float(first_loss), self._flat_grad()
        evaluations = 1
        state["func_evals.0"] = np.array(int(state.get("func_evals.0", 0)) + 1)
        if np.abs(g).max() <= tolerance_grad:  # already at a minimum
            return first_loss
        d, t = state.get("d.0"), float(state.get("t.0", 0))
        dirs, steps, rho = state.get("old_dirs.0"), state.get("old_stps.0"), state.get("ro.0")
        h_diag, previous_g = float(state.get("H_diag.0", 1)), state.get("prev_flat_grad.0")
        previous_loss = float(state.get("prev_loss.0", loss))
        for iteration in range(1, group["max_iter"] + 1):
            state["n_iter.0"] = np.array(int(state.get("n_iter.0", 0)) + 1)
            if int(state["n_iter.0"]) == 1:
                d, h_diag = -g, 1.0
                no_pairs = np.empty((0, g.size), g.dtype)  # never written: vstack copies
                dirs, steps, rho = no_pairs, no_pairs, np.empty(0, g.dtype)
            else:
                y, s = g - previous_g, d * t
                ys = float(y @ s)
                if ys > 1e-10:  # the pair keeps H positive definite only with curvature
                    keep = max(0, len(rho) + 1 - history_size)
                    dirs, steps = np.vstack([dirs[keep:], y]), np.vstack([steps[keep:], s])
                    rho = np.append(rho[keep:], 1 / ys).astype(g.dtype)
                    h_diag = ys / float(y @ y)
                d = _two_loop_direction(g, dirs, steps, rho, h_diag)
            previous_g, previous_loss = g, loss
            t = lr * min(1.0, 1.0 / float(np.abs(g).sum())) if int(state["n_iter.0"]) == 1 else lr
            slope = float(g @ d)
            if slope > -tolerance_change:  # not a descent direction
                break
            if group["line_search_fn"] == "strong_wolfe":
                start = [p.data.copy() for _, _, p in self._params()]

                def at_step(step: float) -> tuple[float, np.ndarray]:
                    self._move(step, d)
                    result = self._loss_and_grad(closure)
                    for (_, _, p), data in zip(self._params(), start):
                        p.data[...] = data
                    return result

                loss, g, t, line_evaluations = _strong_wolfe(at_step, t, d, loss, g, slope)
                self._move(t, d)
            else:
                self._move(t, d)
                line_evaluations = 0
                if iteration != group["max_iter"]:  # the last one's loss is the next step's
                    loss, g = self._loss_and_grad(closure)
                    line_evaluations = 1
            evaluations += line_evaluations
            state["func_evals.0"] = np.array(int(state["func_evals.0"]) + line_evaluations)
            if (iteration == group["max_iter"] or evaluations >= group["max_eval"]
                    or np.abs(g).max() <= tolerance_grad
                    or np.abs(d * t).max() <= tolerance_change
                    or abs(loss - previous_loss) < tolerance_change):
                break
        if d is None:  # max_iter 0: no iteration yet, no history
            return first_loss
        state.update({"d.0": d, "t.0": np.array(t), "old_dirs.0": dirs, "old_stps.0": steps,
                      "ro.0": rho, "H_diag.0": np.array(h_diag), "prev_flat_grad.0": previous_g,
                      "prev_loss.0": np.array(previous_loss)})
        return first_loss


def _two_loop_direction(g: np.ndarray, dirs: np.ndarray, steps: np.ndarray, rho: np.ndarray,
                        h_diag: float) -> np.ndarray:
    """-H g by L-BFGS's two-loop recursion (Nocedal & Wright, algorithm 7.4) over the pairs
    (steps[i], dirs[i]) = (s_i, y_i), oldest first, with rho_i = 1 / y_i.s_i and H_0 = h_diag I."""
    q = -g
    alphas = np.empty(len(rho), g.dtype)  # float64 numbers would make float32's direction float64
    for i in reversed(range(len(rho))):
        alphas[i] = float(steps[i] @ q) * rho[i]
        q = q - alphas[i] * dirs[i]
    r = q * h_diag
    for i in range(len(rho)):
        beta = float(dirs[i] @ r) * rho[i]
        r = r + (alphas[i] - beta) * steps[i]
    return r


def _cubic_minimum(t1: float, f1: float, slope1: float, t2: float, f2: float, slope2: float,
                   bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through (t1, f1) and (t2, f2) with those slopes, clamped to
    `bounds` (by default between t1 and t2); their midpoint where the cubic has no minimum
    (Nocedal & Wright, equation 3.59)."""
    low, high = bounds if bounds is not None else (min(t1, t2), max(t1, t2))
    d1 = slope1 + slope2 - 3 * (f1 - f2) / (t1 - t2)
    d2_squared = d1 ** 2 - slope1 * slope2
    if d2_squared < 0:
        return (low + high) / 2
    d2 = math.sqrt(d2_squared)
    if t1 <= t2:
        best = t2 - (t2 - t1) * ((slope2 + d2 - d1) / (slope2 - slope1 + 2 * d2))
    else:
        best = t1 - (t1 - t2) * ((slope1 + d2 - d1) / (slope1 - slope2 + 2 * d2))
    return min(max(best, low), high)


def _strong_wolfe(at_step: Callable[[float], tuple[float, np.ndarray]], t: float,
                  d: np.ndarray, loss: float, g: np.ndarray, slope: float, c1: float = 1e-4,
                  c2: float = 0.9, tolerance_change: float = 1e-9, max_evaluations: int = 25
                  ) -> tuple[float, np.ndarray, float, int]:
    """A step t along d meeting the strong Wolfe conditions, loss(t) <= loss + c1 t slope and
    |slope(t)| <= c2 |slope| (Nocedal & Wright, algorithms 3.5 and 3.6, the choices of
    Schmidt's minFunc, as PyTorch's): grow t until an interval brackets such a step, then
    shrink it by cubic interpolation. `at_step(t)` is (loss, gradient) at x + t d. Returns
    (loss, gradient, t, number of evaluations)."""
    d_size = float(np.abs(d).max())
    # max_evaluations counts the trials after the first, as PyTorch's max_ls
    new_loss, new_g = at_step(t)
    evaluations, new_slope = 1, float(new_g @ d)
    previous = (0.0, loss, g, slope)  # (t, loss, gradient, slope) at the last trial
    bracket = None
    while evaluations <= max_evaluations:
        if new_loss > loss + c1 * t * slope or (evaluations > 2 and new_loss >= previous[1]):
            bracket = [previous, (t, new_loss, new_g, new_slope)]  # too far: the minimum is within
            break
        if abs(new_slope) <= -c2 * slope:
            return new_loss, new_g, t, evaluations
        if new_slope >= 0:  # past the minimum along d
            bracket = [previous, (t, new_loss, new_g, new_slope)]
            break
        # extrapolate, to between 1.01 and 10 times as far
        next_t = _cubic_minimum(previous[0], previous[1], previous[3], t, new_loss, new_slope,
                                bounds=(t + 0.01 * (t - previous[0]), t * 10))
        previous = (t, new_loss, new_g, new_slope)
        t = next_t
        new_loss, new_g = at_step(t)
        evaluations, new_slope = evaluations + 1, float(new_g @ d)
    if bracket is None:  # out of evaluations while growing t
        return (new_loss, new_g, t, evaluations) if new_loss <= loss else (loss, g, 0.0,
                                                                            evaluations)
    # zoom: the bracket's low end has the smaller loss
    low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
    stalled = False
    while evaluations <= max_evaluations:
        (t_a, f_a, _, s_a), (t_b, f_b, _, s_b) = bracket
        if abs(t_b - t_a) * d_size < tolerance_change:
            break
        t = _cubic_minimum(t_a, f_a, s_a, t_b, f_b, s_b)
        # keep t away from the ends, which would make no progress
        smallest, largest = min(t_a, t_b), max(t_a, t_b)
        margin = 0.1 * (largest - smallest)
        if min(largest - t, t - smallest) < margin:
            if stalled or t >= largest or t <= smallest:
                t = largest - margin if abs(t - largest) < abs(t - smallest) else smallest + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        new_loss, new_g = at_step(t)
        evaluations, new_slope = evaluations + 1, float(new_g @ d)
        trial = (t, new_loss, new_g, new_slope)
        if new_loss > loss + c1 * t * slope or new_loss >= bracket[low][1]:
            bracket[high] = trial
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(new_slope) <= -c2 * slope:
                bracket[low] = trial
                break
            if new_slope * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = trial
    t, new_loss, new_g, _ = bracket[low]
    return new_loss, new_g, t, evaluations


def _vector_norm(a: np.ndarray, p: float, name: str) -> float:
    """torch.linalg.vector_norm of `a` flattened, in float64: p = 0 counts the non-zero
    entries, +-inf is the largest or smallest magnitude; `name` is the caller's, for errors."""
    if p == 0:
        return float(np.count_nonzero(a))
    if math.isinf(p):
        if not a.size:
            raise InvalidArgumentError(f"{name}: the {p} norm of an empty tensor is undefined "
                                       f"(max and min have no identity)")
        return float(np.abs(a).max() if p > 0 else np.abs(a).min())
    with np.errstate(divide="ignore"):  # a zero entry to a negative power is inf, as in torch
        return float((np.abs(a, dtype=np.float64) ** p).sum() ** (1 / p))


def _total_norm(arrays: list[np.ndarray], norm_type: float, error_if_nonfinite: bool,
                name: str) -> float:
    """The `norm_type`-norm of the arrays' norms (of all their entries as one vector), combined
    in float64; non-finite raises with error_if_nonfinite; `name` is the caller's, for errors."""
    if norm_type == 2:  # the training step's case: one vdot per gradient, no temporaries
        total = math.sqrt(sum(float(np.vdot(a, a)) for a in arrays))
    else:
        total = _vector_norm(np.array([_vector_norm(a, norm_type, name) for a in arrays]),
                             norm_type, name)
    if error_if_nonfinite and not math.isfinite(total):
        raise InvalidArgumentError(
            f"{name}: the total norm of order {norm_type} of the gradients is non-finite, so it "
            f"cannot be clipped (error_if_nonfinite=False scales anyway)")
    return total


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float | str = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The `norm_type`-norm of all the tensors' entries as one vector (the norm of their norms),
    as PyTorch's: a 0-d tensor of their dtype, outside the graph (0.0 for no tensors).
    error_if_nonfinite=True raises where it is NaN or infinite; `foreach` changes nothing."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if not tensors:
        return Tensor(0.0)
    for t in tensors:  # an integer norm would be truncated; PyTorch refuses it
        t._require_floating("get_total_norm")
    arrays = [t.data for t in tensors]
    total = _total_norm(arrays, float(norm_type), error_if_nonfinite, "get_total_norm")
    # dtype given, not read from the array: Tensor() would make a float16 array float32
    return Tensor(np.array(total), dtype=np.result_type(*arrays))


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                          total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale every gradient in place by min(1, max_norm / (total_norm + 1e-6)), as PyTorch's:
    clip_grad_norm_ with the norm given as a tensor (from `get_total_norm`, say). A NaN
    total_norm makes every gradient NaN; `foreach` changes nothing."""
    if not isinstance(total_norm, Tensor):
        raise TypeError(f"clip_grads_with_norm_: total_norm must be a Tensor (as "
                        f"get_total_norm returns it), not {type(total_norm).__name__}")
    if isinstance(parameters, Tensor):  # not its rows, which have no gradients of their own
        parameters = [parameters]
    # in total_norm's dtype and order of operations, as PyTorch's (its number / tensor is the
    # reciprocal times the number), so that a float32 norm scales to the same last bit
    total = total_norm._floating()
    dtype = total.dtype.type
    scale = dtype(1) / (dtype(total.item()) + dtype(1e-6)) * dtype(max_norm)
    # min(1, scale) written so that a NaN scale propagates, as through PyTorch's clamp
    if scale >= 1:
        return
    with np.errstate(invalid="ignore"):  # an inf entry times 0 is NaN, as in torch
        for p in parameters:
            if p.grad is not None:
                p.grad.data *= p.grad.dtype.type(scale)


def clip_grad_norm_(params: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float | str = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> float:
    """Scale all gradients together so their global `norm_type`-norm (L2 by default, math.inf
    or 'inf' for the largest magnitude) is at most `max_norm`; returns the norm before
    clipping, a float (the gradients' norms combined in float64). As in PyTorch, the global
    norm is the norm of the per-gradient norms (`get_total_norm`), a NaN norm makes every
    gradient NaN (error_if_nonfinite=True raises instead), and `params` may be one tensor;
    `foreach` changes nothing."""
    params = [params] if isinstance(params, Tensor) else list(params)
    grads = [p.grad.data for p in params if p.grad is not None]
    if not grads:
        return 0.0
    total = _total_norm(grads, float(norm_type), error_if_nonfinite, "clip_grad_norm_")
    clip_grads_with_norm_(params, max_norm, Tensor(np.array(total)))  # float64, not rounded
    return total


def cosine_lr(step: int, lr: float, min_lr: float, warmup: int, total: int) -> float:
    """Linear warm-up from ~0 to `lr` over `warmup` steps, then a cosine decay from `lr` to
    `min_lr` at step `total` (and `min_lr` after)."""
    if step < warmup:
        return lr * (step + 1) / (warmup + 1)
    if step >= total:
        return min_lr
    progress = (step - warmup) / max(1, total - warmup)
    return min_lr + 0.5 * (1 + math.cos(math.pi * progress)) * (lr - min_lr)


from . import lr_scheduler  # noqa: E402,F401  (optim.lr_scheduler, as torch.optim.lr_scheduler)
from . import swa_utils  # noqa: E402,F401  (optim.swa_utils, as torch.optim.swa_utils)

# as nn.functional (see nn/__init__.py): `from minigrad.optim.swa_utils import SWALR` finds the
# one module, as `from torch.optim.swa_utils import SWALR` does
sys.modules[f"{__name__}.lr_scheduler"] = lr_scheduler
sys.modules[f"{__name__}.swa_utils"] = swa_utils
