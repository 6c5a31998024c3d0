"""torch.nn.utils.weight_norm (Salimans & Kingma, 2016): a weight w written as a magnitude g
and a direction v, w = g * v / ||v||, with g and v the parameters the optimizer updates in
place of w, which is recomputed from them before each forward (a forward pre-hook). The norm is
over every dim except `dim` (one magnitude per output channel for dim 0), or over the whole
tensor for dim None."""
from __future__ import annotations

import warnings
from typing import Any

from ...tensor import Tensor
from ..parameter import Parameter

__all__ = ["remove_weight_norm", "weight_norm"]


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """||v|| over every dim but `dim`, kept as size-1 dims; over everything (0-d) for dim -1,
    as PyTorch's norm_except_dim."""
    if dim == -1:
        return v.norm()
    return v.norm(dim=[d for d in range(v.ndim) if d != dim], keepdim=True)


class _WeightNorm:
    """The forward pre-hook that sets `name` from `name_g` and `name_v`."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, dim

    def weight(self, module: Any) -> Tensor:
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module: Any, inputs: Any) -> None:
        object.__setattr__(module, self.name, self.weight(module))  # a plain attribute


def _weight_norms(module: Any) -> dict[str, tuple[_WeightNorm, Any]]:
    """The module's weight norms by parameter name, with their hook handles."""
    if "_weight_norms" not in module.__dict__:
        object.__setattr__(module, "_weight_norms", {})
    return module.__dict__["_weight_norms"]


def weight_norm(module: Any, name: str = "weight", dim: int | None = 0) -> Any:
    """Replace parameter `name` of `module` by `name_g` (its norm over every dim but `dim`)
    and `name_v` (itself), from which it is recomputed before each forward; returns the module.
    Deprecated in PyTorch, which warns; so does this."""
    warnings.warn("`nn.utils.weight_norm` is deprecated in favor of "
                  "`nn.utils.parametrizations.weight_norm`, as in PyTorch (which minigrad "
                  "does not have yet)", FutureWarning, stacklevel=2)
    norms = _weight_norms(module)
    if name in norms:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    dim = -1 if dim is None else dim
    weight = getattr(module, name)
    norm = _WeightNorm(name, dim)
    del module._parameters[name]
    object.__delattr__(module, name)
    module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).data))
    module.register_parameter(name + "_v", Parameter(weight.data))
    norm(module, ())
    norms[name] = (norm, module.register_forward_pre_hook(norm))
    return module


def remove_weight_norm(module: Any, name: str = "weight") -> Any:
    """Undo weight_norm: `name` a parameter again, holding g * v / ||v||; returns the module."""
    norms = _weight_norms(module)
    if name not in norms:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    norm, handle = norms.pop(name)
    weight = norm.weight(module)
    handle.remove()
    del module._parameters[name + "_g"], module._parameters[name + "_v"]
    object.__delattr__(module, name + "_g")
    object.__delattr__(module, name + "_v")
    object.__delattr__(module, name)
    module.register_parameter(name, Parameter(weight.data))
    return module
