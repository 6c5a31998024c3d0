"""torch.func's `functional_call`: run a module with some of its parameters and buffers replaced
by given tensors, for this call only, so that a gradient flows to those tensors rather than to
the module's own (meta-learning, ensembles, a loss as a function of the weights).

    out = minigrad.func.functional_call(model, {"fc.weight": w}, (x,))
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .tensor import Tensor

__all__ = ["functional_call"]


def functional_call(module: Any, parameter_and_buffer_dicts: Mapping[str, Tensor] | Sequence[
                        Mapping[str, Tensor]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with each named parameter or buffer ("fc.weight") of the dicts in
    place of the module's own, as torch.func.functional_call; afterwards the module is as it
    was. With `tie_weights`, a tensor given for one of several names of one parameter (a tied
    weight) stands for all of them; with `strict`, the names must be exactly the module's
    parameters and buffers (RuntimeError otherwise)."""
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (list, tuple)) \
        else (parameter_and_buffer_dicts,)
    values: dict[str, Tensor] = {}
    for given in dicts:
        repeated = sorted(values.keys() & given.keys())
        if repeated:
            raise ValueError(f"functional_call: {', '.join(repeated)} appeared in multiple "
                             f"dictionaries; each name may be given once")
        values.update(given)
    owned = {**dict(module.named_parameters(remove_duplicate=False)),
             **dict(module.named_buffers(remove_duplicate=False))}
    if strict:
        _check_strict(module, values, owned)
    if tie_weights:
        values = _tied(values, owned)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    originals = []
    try:
        for name, value in values.items():
            owner_name, _, attribute = name.rpartition(".")
            owner = module.get_submodule(owner_name)
            originals.append((owner, attribute, owner.__dict__.get(attribute, _ABSENT)))
            object.__setattr__(owner, attribute, value)  # read by forward; not registered
        return module(*args, **(kwargs or {}))
    finally:
        for owner, attribute, original in reversed(originals):
            if original is _ABSENT:
                object.__delattr__(owner, attribute)
            else:
                object.__setattr__(owner, attribute, original)


_ABSENT = object()


def _check_strict(module: Any, values: Mapping[str, Tensor], owned: Mapping[str, Any]) -> None:
    unexpected = sorted(values.keys() - owned.keys())
    missing = sorted(owned.keys() - values.keys())
    if unexpected or missing:
        lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
        if unexpected:
            lines.append(f"\tUnexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            lines.append(f"\tMissing key(s): {', '.join(map(repr, missing))}.")
        raise RuntimeError("\n".join(lines))


def _tied(values: Mapping[str, Tensor], owned: Mapping[str, Any]) -> dict[str, Tensor]:
    """`values` with the tensor given for a tied parameter under one name put under its other
    names too; two different tensors for one tied parameter are refused, as PyTorch."""
    names_of: dict[int, list[str]] = {}
    for name, tensor in owned.items():
        if tensor is not None:
            names_of.setdefault(id(tensor), []).append(name)
    tied = dict(values)
    for names in names_of.values():
        given = {name: values[name] for name in names if name in values}
        if len(names) < 2 or not given:
            continue
        if len({id(tensor) for tensor in given.values()}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, "
                             f"which are tied; give one, or tie_weights=False")
        tensor = next(iter(given.values()))
        tied.update({name: tensor for name in names})
    return tied
