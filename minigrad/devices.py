"""PyTorch's devices, for code that names one: minigrad computes with numpy on the CPU, so
`device="cpu"` (or `minigrad.device("cpu")`) is accepted wherever PyTorch takes a device and
changes nothing, and any other device raises `DeviceError` when a tensor is to go there.
`minigrad.cuda.is_available()` is False, so the usual
`device = "cuda" if torch.cuda.is_available() else "cpu"` picks the CPU."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from .errors import DeviceError, InvalidArgumentError

__all__ = ["device"]

_TYPES = ("cpu", "cuda", "mps", "xpu", "meta")


class device:  # noqa: N801  (PyTorch's name)
    """torch.device: a type ("cpu", "cuda", ...) and an optional index, from "cuda:1", from
    ("cuda", 1), or from another device."""

    def __init__(self, type: str | device, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        if not isinstance(type, str):
            raise TypeError(f"device: expected a string such as 'cpu', got "
                            f"{type.__class__.__name__}")
        name, _, number = type.partition(":")
        if name not in _TYPES or (number and not number.isdigit()) or (number and
                                                                      index is not None):
            raise InvalidArgumentError(f"device: expected one of {', '.join(_TYPES)}, "
                                       f"optionally with ':index', got {type!r}")
        self.type = name
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type={self.type!r}{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type,
                                                                           other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def on_cpu(name: str, place: Any) -> None:
    """Refuse any device but the CPU (None means the CPU too)."""
    if place is not None and device(place).type != "cpu":
        raise DeviceError(f"{name}: minigrad computes on the CPU only, so device "
                          f"{str(device(place))!r} is not available; use 'cpu' (or leave the "
                          f"device out)")


def is_device(value: Any) -> bool:
    """Whether `value` names a device (a device, or a string such as 'cpu' or 'cuda:0')."""
    return isinstance(value, device) or isinstance(value, str) and \
        value.partition(":")[0] in _TYPES


def takes_device(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` (a factory, or a layer's __init__) with PyTorch's `device=` keyword, which
    may only name the CPU."""
    @functools.wraps(function)
    def on_the_cpu(*args: Any, device: Any = None, **kwargs: Any) -> Any:
        on_cpu(function.__qualname__, device)
        return function(*args, **kwargs)

    signature = inspect.signature(function)
    keyword = inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None,
                                annotation=Any)
    on_the_cpu.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), keyword])
    return on_the_cpu
