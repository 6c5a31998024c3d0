"""Layers: `Module` (parameters and sub-modules register themselves), `Linear`, `Embedding`,
`LayerNorm`, `Dropout`, `ModuleList`. Initialisation is explicit: every layer that draws random
weights takes a numpy `rng` (np.random.Generator) so a model is reproducible from one seed."""
from __future__ import annotations

import math
from typing import Any, Iterable, Iterator

import numpy as np

from . import functional as F
from .tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that a Module owns and an optimizer updates (requires_grad=True)."""

    __slots__ = ()

    def __init__(self, data: Any, dtype: Any = None) -> None:
        super().__init__(data, requires_grad=True, dtype=dtype)


class Module:
    """Base class of layers and models: assign Parameters and Modules as attributes and they are
    found by `parameters()`, `named_parameters()`, `state_dict()` and `train()`/`eval()`."""

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                                 f"before assigning attributes")
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement forward")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        yield prefix, self
        for name, module in self._modules.items():
            yield from module.named_modules(f"{prefix}.{name}" if prefix else name)

    def named_parameters(self) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs; a parameter shared by two modules is listed once."""
        seen: set[int] = set()
        for prefix, module in self.named_modules():
            for name, param in module._parameters.items():
                if id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{prefix}.{name}" if prefix else name), param

    def parameters(self) -> list[Parameter]:
        return [p for _, p in self.named_parameters()]

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = None

    def train(self, mode: bool = True) -> Module:
        """Set the `training` flag (dropout on) here and in every sub-module."""
        for _, module in self.named_modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def astype(self, dtype: Any) -> Module:
        """Cast every parameter to `dtype` in place (float64 for gradcheck, say)."""
        for p in self.parameters():
            p.data = p.data.astype(dtype)
            p.grad = None
        return self

    def state_dict(self) -> dict[str, np.ndarray]:
        """Parameter name -> a copy of its array."""
        return {name: p.data.copy() for name, p in self.named_parameters()}

    def load_state_dict(self, state: dict[str, np.ndarray]) -> None:
        """Copy arrays into the parameters; every name must match and every shape agree."""
        params = dict(self.named_parameters())
        missing = sorted(set(params) - set(state))
        unexpected = sorted(set(state) - set(params))
        if missing or unexpected:
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        for name, p in params.items():
            value = np.asarray(state[name])
            if value.shape != p.shape:
                raise ValueError(f"load_state_dict: {name} has shape {value.shape} in the state "
                                 f"but {p.shape} in the model")
            np.copyto(p.data, value, casting="same_kind")

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


class ModuleList(Module):
    """A list of modules, registered under the names '0', '1', ..."""

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module: Module) -> None:
        setattr(self, str(len(self._modules)), module)

    def __getitem__(self, i: int) -> Module:
        return list(self._modules.values())[i]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


def _default_rng(rng: np.random.Generator | None) -> np.random.Generator:
    return rng if rng is not None else np.random.default_rng()


class Linear(Module):
    """y = x @ weight.T + bias, weight (out_features, in_features) as in PyTorch.

    Initialised like PyTorch: uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 rng: np.random.Generator | None = None, dtype: Any = np.float32) -> None:
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        rng = _default_rng(rng)
        self.weight = Parameter(rng.uniform(-bound, bound, (out_features, in_features)), dtype)
        self.bias = Parameter(rng.uniform(-bound, bound, out_features), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias)


class Embedding(Module):
    """A table of `num_embeddings` vectors of size `dim`; forward(indices) picks rows.
    Initialised N(0, 1), like PyTorch."""

    def __init__(self, num_embeddings: int, dim: int, rng: np.random.Generator | None = None,
                 dtype: Any = np.float32) -> None:
        super().__init__()
        self.weight = Parameter(_default_rng(rng).standard_normal((num_embeddings, dim)), dtype)

    def forward(self, indices: Any) -> Tensor:
        return F.embedding(indices, self.weight)


class LayerNorm(Module):
    """Normalise the last axis to zero mean and unit variance, then scale and shift."""

    def __init__(self, dim: int, eps: float = 1e-5, dtype: Any = np.float32) -> None:
        super().__init__()
        self.eps = eps
        self.weight = Parameter(np.ones(dim), dtype)
        self.bias = Parameter(np.zeros(dim), dtype)

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, self.eps)


class Dropout(Module):
    """Zero entries with probability p while training; identity in eval mode. Masks are drawn
    from `rng`, so a seeded generator makes them reproducible (and checkpointable)."""

    def __init__(self, p: float = 0.0, rng: np.random.Generator | None = None) -> None:
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = p
        self.rng = _default_rng(rng)

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training, self.rng)
