"""Initialising parameters in place: torch.nn.init's functions, as `minigrad.nn.init`.

    for name, p in model.named_parameters():
        nn.init.normal_(p, std=0.02) if p.ndim > 1 else nn.init.zeros_(p)

Each fills its tensor under no_grad (a parameter requires grad, and filling it is no step of the
graph) and returns it. The random ones take `generator` (a minigrad.Generator or a numpy
np.random.Generator; last, by position or name, as in PyTorch); without it they draw from
minigrad's default generator (`minigrad.manual_seed`). Fan in and fan out are PyTorch's: for a
weight (out, in, *kernel), fan_in = in * prod(kernel) and fan_out = out * prod(kernel).
"""
from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .creation import _rng
from .engine import no_grad
from .errors import InvalidArgumentError
from .tensor import Tensor

__all__ = ["calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_",
           "kaiming_uniform_", "normal_", "ones_", "orthogonal_", "sparse_", "trunc_normal_",
           "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_"]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' variance steady through this nonlinearity (PyTorch's
    table): 1 for linear layers and sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + slope**2)) for leaky_relu (slope `param`, 0.01 by default), 3/4 for selu."""
    linear = ("linear", "identity", "sigmoid", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
              "conv_transpose2d", "conv_transpose3d")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise InvalidArgumentError(f"calculate_gain: negative_slope {slope!r} is not a number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise InvalidArgumentError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def _fans(name: str, tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise InvalidArgumentError(f"{name}: fan in and fan out need a tensor of at least 2 "
                                   f"dims, got shape {tensor.shape}")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Numbers drawn uniformly from [a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Any = None) -> Tensor:
    """Numbers drawn from N(mean, std**2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:
    """Numbers drawn from N(mean, std**2) restricted to [a, b]: entries outside are drawn
    again until every one is inside. That takes 1 / P(a <= x <= b) draws per entry, so bounds
    holding under 1% of the distribution are refused (PyTorch inverts the CDF instead)."""
    if not a < b:
        raise InvalidArgumentError(f"trunc_normal_: needs a < b, got a={a}, b={b}")
    inside = 0.5 * (math.erf((b - mean) / (std * math.sqrt(2)))
                    - math.erf((a - mean) / (std * math.sqrt(2))))
    if not inside >= 0.01:
        raise InvalidArgumentError(
            f"trunc_normal_: [{a}, {b}] holds {inside:.2g} of N({mean}, {std}**2); minigrad "
            f"draws until inside, which needs bounds holding at least 1% of it")
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
        outside = (tensor.data < a) | (tensor.data > b)
        while outside.any():
            redrawn = Tensor(tensor.data[outside]).normal_(mean, std, generator=generator)
            tensor.data[outside] = redrawn.data
            outside = (tensor.data < a) | (tensor.data > b)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix: ones on the diagonal of a 2-D tensor (as many as fit), zeros
    elsewhere."""
    if tensor.ndim != 2:
        raise InvalidArgumentError(f"eye_: only 2-D tensors are supported, got shape "
                                   f"{tensor.shape}")
    with no_grad():
        return tensor.copy_(Tensor(np.eye(*tensor.shape, dtype=tensor.dtype)))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution: for a weight (out, in, *kernel) of 3 to 5 dims, a 1 at
    the kernel's centre linking output channel d to input channel d (as many as fit, within
    each of `groups` blocks of output channels), zeros elsewhere; a convolution with it and
    padding to keep the size returns its input."""
    if tensor.ndim not in (3, 4, 5):
        raise InvalidArgumentError(f"dirac_: only tensors with 3, 4 or 5 dims are supported, "
                                   f"got shape {tensor.shape}")
    if tensor.shape[0] % groups:
        raise InvalidArgumentError(f"dirac_: dim 0 ({tensor.shape[0]}) must be divisible by "
                                   f"groups ({groups})")
    per_group = tensor.shape[0] // groups
    channels = np.arange(min(per_group, tensor.shape[1]))
    outputs = (np.arange(groups)[:, None] * per_group + channels).ravel()
    centre = tuple(size // 2 for size in tensor.shape[2:])
    values = np.zeros(tensor.shape, tensor.dtype)
    values[(outputs, np.tile(channels, groups), *centre)] = 1
    with no_grad():
        return tensor.copy_(Tensor(values))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Any = None) -> Tensor:
    """Martens (2010): a 2-D tensor drawn from N(0, std**2), then in each column the entries of
    ceil(sparsity * rows) rows picked at random set to zero."""
    if tensor.ndim != 2:
        raise InvalidArgumentError(f"sparse_: only 2-D tensors are supported, got shape "
                                   f"{tensor.shape}")
    rows, cols = tensor.shape
    with no_grad():
        tensor.normal_(0.0, std, generator=generator)
        # the first rows of an independent random permutation of the rows, per column
        zeroed = np.argsort(_rng("sparse_", generator).random((rows, cols)), axis=0)
        kept = np.ones(tensor.shape, dtype=bool)
        kept[zeroed[:math.ceil(sparsity * rows)], np.arange(cols)] = False
        return tensor.copy_(Tensor(np.where(kept, tensor.data, 0)))


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Saxe et al. (2013): the tensor, seen as (shape[0], the rest), a (semi-)orthogonal matrix
    times `gain`: the Q of the QR decomposition of a standard normal draw, each column's sign
    set by R's diagonal so that Q is uniform over such matrices, as PyTorch draws it."""
    if tensor.ndim < 2:
        raise InvalidArgumentError(f"orthogonal_: only tensors with 2 or more dimensions are "
                                   f"supported, got shape {tensor.shape}")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    draw = Tensor(np.empty((max(rows, cols), min(rows, cols)), tensor.dtype))
    q, r = np.linalg.qr(draw.normal_(generator=generator).data)
    q *= np.sign(np.diagonal(r))
    with no_grad():
        return tensor.copy_(Tensor(gain * (q if rows >= cols else q.T).reshape(tensor.shape)))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot & Bengio (2010): uniform on [-bound, bound], bound = gain sqrt(6 / (fan_in +
    fan_out))."""
    fan_in, fan_out = _fans("xavier_uniform_", tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator=generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot & Bengio (2010): N(0, std**2), std = gain sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans("xavier_normal_", tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator=generator)


def _kaiming_std(name: str, tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    if tensor.numel() == 0:  # nothing to draw: PyTorch returns it as it is, of any shape
        return 0.0
    if mode not in ("fan_in", "fan_out"):
        raise InvalidArgumentError(f"{name}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _fans(name, tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He et al. (2015): uniform on [-bound, bound], bound = sqrt(3) gain / sqrt(fan), the fan
    of `mode` and the gain of `nonlinearity` (leaky_relu with slope `a` by default)."""
    bound = math.sqrt(3.0) * _kaiming_std("kaiming_uniform_", tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator=generator)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He et al. (2015): N(0, std**2), std = gain / sqrt(fan)."""
    std = _kaiming_std("kaiming_normal_", tensor, a, mode, nonlinearity)
    return normal_(tensor, 0.0, std, generator=generator)


# nn.init.normal, nn.init.xavier_uniform, ...: the old names without the underscore, which
# PyTorch still takes and deprecates (a FutureWarning naming the new one)
def _deprecated(function: Callable[..., Tensor], module: str = "nn.init"
                ) -> Callable[..., Tensor]:
    old = function.__name__.rstrip("_")

    @functools.wraps(function)
    def deprecated(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"`{module}.{old}` is now deprecated in favor of `{module}."
                      f"{function.__name__}`.", FutureWarning, stacklevel=2)
        return function(*args, **kwargs)

    deprecated.__name__ = deprecated.__qualname__ = old
    return deprecated


constant, dirac, eye, kaiming_normal, kaiming_uniform, normal, orthogonal, sparse, uniform, \
    xavier_normal, xavier_uniform = map(_deprecated, (
        constant_, dirac_, eye_, kaiming_normal_, kaiming_uniform_, normal_, orthogonal_,
        sparse_, uniform_, xavier_normal_, xavier_uniform_))
