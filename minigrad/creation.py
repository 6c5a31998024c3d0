"""Tier 2: making tensors, as PyTorch's factory functions (`minigrad.zeros`, `minigrad.arange`,
`minigrad.randn`, ...), and `Generator`, the seedable source of their random numbers.

Sizes are given as PyTorch takes them: `zeros(2, 3)` or `zeros((2, 3))`. Floating-point results
are of the default float dtype (`minigrad.get_default_dtype()`, float32 unless
`minigrad.set_default_dtype` changed it, read at every call) unless `dtype=` says otherwise;
integer ones (arange of ints, randint) are int64.
Random functions draw from `generator=` (a `minigrad.Generator` or a numpy np.random.Generator),
or from the default generator that `minigrad.manual_seed` seeds.
"""
from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np

from . import devices
from .dtypes import get_default_dtype
from .errors import InvalidArgumentError, InvalidTypeError
from .tensor import Tensor, _as_array

__all__ = [
    "Generator", "arange", "bartlett_window", "bernoulli", "binomial", "blackman_window",
    "empty", "empty_like", "eye", "full", "full_like", "get_rng_state", "hamming_window",
    "hann_window", "initial_seed", "kaiser_window", "linspace", "logspace", "manual_seed",
    "multinomial", "normal", "ones", "ones_like", "poisson", "rand", "rand_like", "randint",
    "randint_like", "randn", "randn_like", "randperm", "range", "seed", "set_rng_state", "tensor",
    "tril_indices", "triu_indices", "zeros", "zeros_like",
]

Number = Union[int, float]


# --------------------------------------------------------------------------------------------
# Random numbers
# --------------------------------------------------------------------------------------------
class Generator:
    """A seedable stream of random numbers for `rand`, `randn`, `randint` and their `*_like`
    forms, as torch.Generator: a numpy np.random.Generator (`.rng`) underneath.

        g = minigrad.Generator().manual_seed(0)
        minigrad.randn(2, 3, generator=g)   # the same numbers after every manual_seed(0)
    """

    def __init__(self) -> None:
        self.manual_seed(int(np.random.SeedSequence().entropy))

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from `seed` (a non-negative integer); returns this generator."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
            raise InvalidArgumentError("manual_seed: seed must be a non-negative integer, got "
                                       f"{seed!r}")
        self._seed = int(seed)
        self.rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        """The seed the stream started from."""
        return self._seed

    def seed(self) -> int:
        """Restart the stream from a fresh random seed, which it returns."""
        seed = int(np.random.SeedSequence().entropy) % 2**63
        self.manual_seed(seed)
        return seed

    def get_state(self) -> Tensor:
        """Where the stream is, as a uint8 tensor (PyTorch's form) for `set_state`."""
        text = json.dumps(self.rng.bit_generator.state).encode()
        return Tensor(np.frombuffer(text, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> Generator:
        """Put the stream back where `get_state` found it; returns this generator."""
        if not isinstance(new_state, Tensor) or new_state.dtype != np.uint8:
            raise InvalidTypeError("set_state: expected the uint8 tensor get_state returned")
        try:
            self.rng.bit_generator.state = json.loads(new_state.data.tobytes())
        except (ValueError, TypeError, KeyError) as error:
            raise InvalidArgumentError(f"set_state: not a state get_state returned "
                                       f"({error})") from None
        return self


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (the one random functions use without `generator=`)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from fresh randomness; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (`Generator.get_state`)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Put the default generator back in a state `get_rng_state` returned."""
    default_generator.set_state(new_state)


def _rng(name: str, generator: Generator | np.random.Generator | None) -> np.random.Generator:
    if generator is None:
        return default_generator.rng
    if isinstance(generator, Generator):
        return generator.rng
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(f"{name}: generator must be a minigrad.Generator or a numpy "
                    f"np.random.Generator, got {type(generator).__name__}")


# --------------------------------------------------------------------------------------------
# Checking arguments
# --------------------------------------------------------------------------------------------
def _shape(name: str, size: tuple, keyword: Sequence[int] | None = None) -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))` and `f(size=(2, 3))` all mean shape (2, 3)."""
    if keyword is not None:
        if size:
            raise TypeError(f"{name}: give the size as arguments or as size=, not both")
        size = (keyword,)
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(_is_integer(n) for n in size):
        raise TypeError(f"{name}: sizes must be non-negative integers, got {size}")
    if min(size, default=0) < 0:
        raise InvalidArgumentError(f"{name}: sizes must be non-negative integers, got {size}")
    return tuple(int(n) for n in size)


def _dtype(name: str, dtype: Any, default: Any) -> np.dtype:
    if dtype is None:
        return np.dtype(default)
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name}: {dtype!r} is not a dtype; use e.g. minigrad.float64 or "
                        f"np.int64") from None


def _float_dtype(name: str, dtype: Any, default: Any) -> np.dtype:
    """The dtype of random floats: float32 and float64 come straight from numpy's generators,
    float16 (a possible default dtype) is drawn in float32 and rounded."""
    result = _dtype(name, dtype, default)
    if result not in (np.float16, np.float32, np.float64):
        raise InvalidTypeError(f"{name}: dtype must be float16, float32 or float64, got "
                               f"{result}")
    return result


def _standard_normal(rng: np.random.Generator, shape: tuple[int, ...],
                     dtype: np.dtype) -> np.ndarray:
    """Standard normal samples of `dtype` (float16 drawn in float32: numpy makes no float16)."""
    return rng.standard_normal(shape, dtype=np.promote_types(dtype, np.float32)).astype(
        dtype, copy=False)


def _tensor(data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor(data, dtype=data.dtype, requires_grad=requires_grad)


def _is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


# --------------------------------------------------------------------------------------------
# From data, and filled tensors
# --------------------------------------------------------------------------------------------
@devices.takes_device
def tensor(data: Any, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of `data`, with torch.tensor's dtypes: Python ints give int64,
    floats the default float dtype, bools bool; numpy arrays and scalars keep theirs.
    (`Tensor(data)` instead wraps a numpy array without copying and makes Python numbers the
    default float dtype.)"""
    if isinstance(data, Tensor):
        data = data.data
    array = np.array(data, dtype=None if dtype is None else _dtype("tensor", dtype, None))
    if dtype is None and not isinstance(data, (np.ndarray, np.generic)):
        if array.dtype.kind == "f":
            array = array.astype(get_default_dtype())
        elif array.dtype.kind in "iu":
            array = array.astype(np.int64)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"tensor: cannot make a tensor from {type(data).__name__} (numpy dtype "
                        f"{array.dtype}); give numbers, nested lists of numbers or an array")
    return _tensor(array, requires_grad)


@devices.takes_device
def zeros(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None, dtype: Any = None,
          requires_grad: bool = False) -> Tensor:
    dtype = _dtype("zeros", dtype, get_default_dtype())
    return _tensor(np.zeros(_shape("zeros", sizes, size), dtype), requires_grad)


@devices.takes_device
def ones(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None, dtype: Any = None,
         requires_grad: bool = False) -> Tensor:
    dtype = _dtype("ones", dtype, get_default_dtype())
    return _tensor(np.ones(_shape("ones", sizes, size), dtype), requires_grad)


@devices.takes_device
def empty(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None, dtype: Any = None,
          requires_grad: bool = False) -> Tensor:
    """Uninitialised entries: whatever the memory held."""
    dtype = _dtype("empty", dtype, get_default_dtype())
    return _tensor(np.empty(_shape("empty", sizes, size), dtype), requires_grad)


@devices.takes_device
def full(size: int | tuple[int, ...], fill_value: Number | bool, *, dtype: Any = None,
         requires_grad: bool = False) -> Tensor:
    """Every entry `fill_value`; the dtype follows it unless given (bool, int64, or the default
    float dtype)."""
    if isinstance(fill_value, (bool, np.bool_)):
        default = np.bool_
    elif _is_integer(fill_value):
        default = np.int64
    else:
        default = get_default_dtype()
    return _tensor(np.full(_shape("full", (size,)), fill_value, _dtype("full", dtype, default)),
                   requires_grad)


@devices.takes_device
def eye(n: int, m: int | None = None, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """An n x m (n x n) matrix with ones on the diagonal."""
    shape = _shape("eye", (n, n if m is None else m))
    return _tensor(np.eye(*shape, dtype=_dtype("eye", dtype, get_default_dtype())), requires_grad)


@devices.takes_device
def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Tensor:
    """The (row, column) indices of the lower triangle of a row x col matrix (on and below the
    `offset`-th diagonal), as a 2 x N tensor in row-major order, as torch.tril_indices."""
    rows, cols = _shape("tril_indices", (row, col))
    return Tensor(np.stack(np.tril_indices(rows, offset, cols)).astype(
        _dtype("tril_indices", dtype, np.int64)))


@devices.takes_device
def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Tensor:
    """The (row, column) indices of the upper triangle (on and above the `offset`-th diagonal),
    as tril_indices."""
    rows, cols = _shape("triu_indices", (row, col))
    return Tensor(np.stack(np.triu_indices(rows, offset, cols)).astype(
        _dtype("triu_indices", dtype, np.int64)))


# --------------------------------------------------------------------------------------------
# Ranges
# --------------------------------------------------------------------------------------------
@devices.takes_device
def arange(start: Number, end: Number | None = None, step: Number = 1, *, dtype: Any = None,
           requires_grad: bool = False) -> Tensor:
    """start, start + step, ... up to but excluding end (`arange(n)` is 0 .. n-1). int64 when
    all three are integers, else the default float dtype; values are computed in float64 and
    then cast. A one-entry tensor counts as its number, as in PyTorch (arange(n) for an int64 n
    is int64)."""
    start, end, step = (x.item() if isinstance(x, Tensor) else x for x in (start, end, step))
    if end is None:
        start, end = 0, start
    if step == 0:
        raise InvalidArgumentError("arange: step must be nonzero")
    if not all(map(math.isfinite, (start, end, step))):
        raise InvalidArgumentError(f"arange: start {start}, end {end} and step {step} must be "
                                   "finite")
    if (end - start) * step < 0:
        raise InvalidArgumentError(f"arange: end {end} cannot be reached from start {start} with "
                                   f"step {step}")
    # a bool is an integer here, as in PyTorch (arange(True, 4) is int64)
    integers = all(isinstance(x, (int, np.integer, np.bool_)) for x in (start, end, step))
    target = _dtype("arange", dtype, np.int64 if integers else get_default_dtype())
    values = np.arange(start, end, step, dtype=np.int64 if integers else np.float64)
    return _tensor(values.astype(target, copy=False), requires_grad)


# torch.range's name: this module calls no builtin range (it would find this one)
@devices.takes_device
def range(start: Number, end: Number, step: Number = 1, *, dtype: Any = None,  # noqa: A001
          requires_grad: bool = False) -> Tensor:
    """start, start + step, ... up to and including end, as torch.range, deprecated as it is
    (it warns: use arange, which excludes end, as Python's range): the default float dtype
    unless given, whatever the arguments' types."""
    warnings.warn("minigrad.range is deprecated, as torch.range: its end is included, unlike "
                  "Python's range; use minigrad.arange, which excludes it", UserWarning,
                  stacklevel=2)
    if step == 0 or (end - start) * step < 0:
        raise InvalidArgumentError(f"range: end {end} cannot be reached from start {start} with "
                                   f"step {step}")
    # PyTorch counts the entries in float64 and rounds down: range(0, 1, 0.1) has 11
    count = int(math.floor((end - start) / step)) + 1
    values = start + step * np.arange(count, dtype=np.float64)
    return _tensor(values.astype(_dtype("range", dtype, get_default_dtype())), requires_grad)


@devices.takes_device
def linspace(start: Number, end: Number, steps: int, *, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    """`steps` evenly spaced values from start to end, both included (the default float dtype
    unless given)."""
    if not _is_integer(steps):
        raise TypeError(f"linspace: steps must be a non-negative integer, got {steps!r}")
    if steps < 0:
        raise InvalidArgumentError(f"linspace: steps must be a non-negative integer, got {steps}")
    target = _dtype("linspace", dtype, get_default_dtype())
    if target == np.bool_:
        raise InvalidArgumentError("linspace: dtype must be a number type, not bool (as in "
                                   "PyTorch)")
    return _tensor(np.linspace(start, end, steps).astype(target), requires_grad)


@devices.takes_device
def logspace(start: Number, end: Number, steps: int, base: float = 10.0, *, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    """base ** linspace(start, end, steps): `steps` values evenly spaced in the exponent
    (the default float dtype unless given)."""
    exponents = linspace(start, end, steps, dtype=np.float64)
    target = _dtype("logspace", dtype, get_default_dtype())
    return _tensor((base ** exponents.data).astype(target), requires_grad)


# --------------------------------------------------------------------------------------------
# Random tensors
# --------------------------------------------------------------------------------------------
@devices.takes_device
def rand(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None,
         generator: Generator | np.random.Generator | None = None,
         dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform on [0, 1)."""
    target = _float_dtype("rand", dtype, get_default_dtype())
    rng, shape = _rng("rand", generator), _shape("rand", sizes, size)
    if target == np.float16:
        # float16 holds every k / 2048 below 1 exactly; a float32 draw rounded could give 1.0
        values = (np.floor(rng.random(shape, dtype=np.float32) * 2048) / 2048).astype(target)
    else:
        values = rng.random(shape, dtype=target)
    return _tensor(values, requires_grad)


@devices.takes_device
def randn(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None,
          generator: Generator | np.random.Generator | None = None,
          dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal: mean 0, variance 1."""
    target = _float_dtype("randn", dtype, get_default_dtype())
    shape = _shape("randn", sizes, size)
    return _tensor(_standard_normal(_rng("randn", generator), shape, target), requires_grad)


@devices.takes_device
def randint(low: int, high: int | tuple[int, ...] | None = None,
            size: tuple[int, ...] | None = None, *,
            generator: Generator | np.random.Generator | None = None, dtype: Any = None,
            requires_grad: bool = False) -> Tensor:
    """Integers uniform in [low, high), int64 unless given: `randint(high, size)` or
    `randint(low, high, size)`, as in PyTorch."""
    if size is None:
        low, high, size = 0, low, high
    if size is None or not (_is_integer(low) and _is_integer(high)):
        raise TypeError("randint: give randint(high, size) or randint(low, high, size), with "
                        "integer bounds and a size tuple")
    if high <= low:
        raise InvalidArgumentError(f"randint: high ({high}) must be greater than low ({low})")
    target = _dtype("randint", dtype, np.int64)
    if target.kind in "biu":  # values outside the dtype would wrap around, PyTorch refuses them
        lowest, highest = (0, 1) if target == np.bool_ else (np.iinfo(target).min,
                                                              np.iinfo(target).max)
        if low < lowest or high - 1 > highest:
            raise InvalidArgumentError(f"randint: [{low}, {high}) is out of bounds for "
                                       f"{target}, whose values are [{lowest}, {highest}]")
    values = _rng("randint", generator).integers(low, high, _shape("randint", (size,)))
    return _tensor(values.astype(target, copy=False), requires_grad)


@devices.takes_device
def randperm(n: int, *, generator: Generator | np.random.Generator | None = None,
             dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A random permutation of 0, ..., n - 1, int64 unless given."""
    (count,) = _shape("randperm", (n,))
    values = _rng("randperm", generator).permutation(count)
    return _tensor(values.astype(_dtype("randperm", dtype, np.int64), copy=False), requires_grad)


@devices.takes_device
def normal(mean: Tensor | float, std: Tensor | float = 1.0, size: Sequence[int] | None = None,
           *, generator: Generator | np.random.Generator | None = None, dtype: Any = None,
           requires_grad: bool = False) -> Tensor:
    """Normal samples of the given means and standard deviations, as torch.normal: tensors (of
    a float dtype) broadcast together and give the shape, and mean's dtype (std's where mean is
    a number); two numbers need `size` (and take `dtype`, by default the default float dtype).
    As in PyTorch, the samples join the graph of tensor arguments with gradient 0 (they are not
    mean + std * noise to backward)."""
    tensors = [x for x in (mean, std) if isinstance(x, Tensor)]
    if tensors and (size is not None or dtype is not None or requires_grad):
        raise TypeError("normal: size, dtype and requires_grad go with a number mean and std; "
                        "with a tensor, its shape and dtype decide")
    for x in tensors:
        if x.dtype.kind != "f":
            raise InvalidTypeError(f"normal: mean and std must be floats, got dtype {x.dtype}")
    if (np.asarray(_as_array(std)) < 0).any():
        raise InvalidArgumentError("normal: std must be >= 0")
    rng = _rng("normal", generator)
    if not tensors:
        if size is None:
            raise TypeError("normal: with a number for both mean and std, give the size")
        target = _float_dtype("normal", dtype, get_default_dtype())
        noise = _standard_normal(rng, _shape("normal", (size,)), target)
        return _tensor((mean + std * noise).astype(target, copy=False), requires_grad)
    mean_data, std_data = _as_array(mean), _as_array(std)
    try:
        shape = np.broadcast_shapes(np.shape(mean_data), np.shape(std_data))
    except ValueError:
        raise InvalidArgumentError(f"normal: the shapes of mean, {np.shape(mean_data)}, and "
                                   f"std, {np.shape(std_data)}, do not broadcast") from None
    target = tensors[0].dtype  # mean's, or std's where mean is a number: PyTorch's, unpromoted
    samples = (mean_data + std_data * rng.standard_normal(shape)).astype(target)
    # std joins the graph cast to mean's dtype, so that joining it does not promote the samples
    return tensors[0]._step_function(samples, *(x.to(target) for x in tensors[1:]))


def bernoulli(input: Tensor, p: float | None = None, *,
              generator: Generator | np.random.Generator | None = None) -> Tensor:
    """1 with probability input (or, given, the number p) and 0 otherwise, in input's float
    dtype and shape, as torch.bernoulli; joined to input's graph with gradient 0."""
    if input.dtype.kind != "f":
        raise InvalidTypeError(f"bernoulli: input must be a float tensor, got {input.dtype}")
    probabilities = input.data if p is None else np.float64(p)
    if not ((probabilities >= 0) & (probabilities <= 1)).all():
        raise InvalidArgumentError("bernoulli: probabilities must be in [0, 1]")
    draws = _rng("bernoulli", generator).random(input.shape) < probabilities
    return input._step_function(draws.astype(input.dtype))


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | np.random.Generator | None = None) -> Tensor:
    """`num_samples` category indices (int64) drawn with the weights in input's last dim
    (1-D, or one row each of a 2-D input; non-negative, finite, not normalised), as
    torch.multinomial. Without replacement each index appears once: the largest keys
    weight / Exp(1) win (Efraimidis and Spirakis), so categories of weight 0 come last."""
    if input.ndim not in (1, 2):
        raise InvalidArgumentError(f"multinomial: input must be 1-D or 2-D, got shape "
                                   f"{input.shape}")
    if input.dtype.kind != "f":
        raise InvalidTypeError(f"multinomial: input must be a float tensor, got {input.dtype}")
    weights = input.data.reshape(-1, input.shape[-1]).astype(np.float64)
    if not (np.isfinite(weights) & (weights >= 0)).all():
        raise InvalidArgumentError("multinomial: weights must be finite and >= 0")
    if (weights.sum(-1) <= 0).any():
        raise InvalidArgumentError("multinomial: the weights of each row must sum to more than 0")
    if num_samples <= 0 or (not replacement and num_samples > weights.shape[-1]):
        raise InvalidArgumentError(f"multinomial: cannot draw {num_samples} samples from "
                                   f"{weights.shape[-1]} categories "
                                   f"{'with' if replacement else 'without'} replacement")
    rng = _rng("multinomial", generator)
    if replacement:
        bounds = weights.cumsum(-1) / weights.sum(-1, keepdims=True)
        uniform = rng.random((len(weights), num_samples))
        # the first category whose cumulative share exceeds the uniform draw
        indices = np.stack([np.searchsorted(row, u, side="right") for row, u in
                            zip(bounds, uniform)])
        indices = np.minimum(indices, weights.shape[-1] - 1)  # a draw at rounding's edge
    else:
        keys = weights / rng.exponential(size=weights.shape)
        indices = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    return Tensor._make(indices.reshape(input.shape[:-1] + (num_samples,)).astype(np.int64))


def poisson(input: Tensor, generator: Generator | np.random.Generator | None = None) -> Tensor:
    """Poisson samples of the rates in input (floats, >= 0), in its dtype, as torch.poisson;
    joined to input's graph with gradient 0."""
    if input.dtype.kind != "f":
        raise InvalidTypeError(f"poisson: input must be a float tensor, got {input.dtype}")
    if (input.data < 0).any():
        raise InvalidArgumentError("poisson: rates must be >= 0")
    samples = _rng("poisson", generator).poisson(input.data)
    return input._step_function(samples.astype(input.dtype))


def binomial(count: Tensor, prob: Tensor,
             generator: Generator | np.random.Generator | None = None) -> Tensor:
    """The number of successes in `count` trials of probability `prob` (float tensors that
    broadcast), in their dtype, as torch.binomial; outside the graph (PyTorch has no gradient
    for it either)."""
    if count.dtype.kind != "f" or prob.dtype.kind != "f":  # a ValueError, as PyTorch's
        raise InvalidArgumentError(f"binomial: count and prob must be float tensors, got "
                               f"{count.dtype} and {prob.dtype}")
    if (count.data < 0).any() or not ((prob.data >= 0) & (prob.data <= 1)).all():
        raise InvalidArgumentError("binomial: count must be >= 0 and prob in [0, 1]")
    samples = _rng("binomial", generator).binomial(count.data.astype(np.int64), prob.data)
    return Tensor._make(samples.astype(np.result_type(count.dtype, prob.dtype)))


# --------------------------------------------------------------------------------------------
# Window functions (torch.hann_window, ...): float tensors of window_length, no grad recorded
# --------------------------------------------------------------------------------------------
def _window(name: str, window_length: int, periodic: bool, dtype: Any, requires_grad: bool,
            shape: Callable[[np.ndarray], np.ndarray]) -> Tensor:
    """`shape` of the positions t = n / (M - 1), n = 0 .. M - 1, in [0, 1]: a symmetric window
    of M = window_length points, or with `periodic` one of window_length + 1 without its last
    point (the window for spectral analysis), as PyTorch's; computed in float64, then cast."""
    target = _dtype(name, dtype, get_default_dtype())
    if target.kind != "f":
        raise InvalidTypeError(f"{name}: dtype must be a float dtype, got {target}")
    if not _is_integer(window_length) or window_length < 0:
        raise InvalidArgumentError(f"{name}: window_length must be a non-negative integer, got "
                                   f"{window_length!r}")
    if window_length <= 1:  # no interval to spread over: [] or [1]
        return _tensor(np.ones(window_length, dtype=target), requires_grad)
    points = window_length + 1 if periodic else window_length
    values = shape(np.arange(points) / (points - 1))[:window_length]
    return _tensor(values.astype(target), requires_grad)


@devices.takes_device
def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                requires_grad: bool = False) -> Tensor:
    """0.5 - 0.5 cos(2 pi t)."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   lambda t: 0.5 - 0.5 * np.cos(2 * np.pi * t))


@devices.takes_device
def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None,
                   requires_grad: bool = False) -> Tensor:
    """alpha - beta cos(2 pi t)."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   lambda t: alpha - beta * np.cos(2 * np.pi * t))


@devices.takes_device
def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    requires_grad: bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi t) + 0.08 cos(4 pi t)."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad,
                   lambda t: 0.42 - 0.5 * np.cos(2 * np.pi * t) + 0.08 * np.cos(4 * np.pi * t))


@devices.takes_device
def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    requires_grad: bool = False) -> Tensor:
    """The triangle 1 - |2 t - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   lambda t: 1 - np.abs(2 * t - 1))


@devices.takes_device
def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2 t - 1) ** 2)) / I0(beta), I0 the modified Bessel function."""
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad,
                   lambda t: np.i0(beta * np.sqrt(1 - (2 * t - 1) ** 2)) / np.i0(beta))


# --------------------------------------------------------------------------------------------
# The *_like forms: the shape of `input`, and its dtype unless given
# --------------------------------------------------------------------------------------------
@devices.takes_device
def zeros_like(input: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return zeros(input.shape, dtype=input.dtype if dtype is None else dtype,
                 requires_grad=requires_grad)


@devices.takes_device
def ones_like(input: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return ones(input.shape, dtype=input.dtype if dtype is None else dtype,
                requires_grad=requires_grad)


@devices.takes_device
def empty_like(input: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return empty(input.shape, dtype=input.dtype if dtype is None else dtype,
                 requires_grad=requires_grad)


@devices.takes_device
def full_like(input: Tensor, fill_value: Number | bool, *, dtype: Any = None,
              requires_grad: bool = False) -> Tensor:
    return full(input.shape, fill_value, dtype=input.dtype if dtype is None else dtype,
                requires_grad=requires_grad)


@devices.takes_device
def rand_like(input: Tensor, *, generator: Generator | np.random.Generator | None = None,
              dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return rand(input.shape, generator=generator, dtype=input.dtype if dtype is None else dtype,
                requires_grad=requires_grad)


@devices.takes_device
def randint_like(input: Tensor, low: int, high: int | None = None, *,
                 generator: Generator | np.random.Generator | None = None, dtype: Any = None,
                 requires_grad: bool = False) -> Tensor:
    """randint of input's shape and (unless given) dtype: `randint_like(input, high)` or
    `randint_like(input, low, high)`, as in PyTorch."""
    low, high = (0, low) if high is None else (low, high)
    return randint(low, high, input.shape, generator=generator,
                   dtype=input.dtype if dtype is None else dtype, requires_grad=requires_grad)


@devices.takes_device
def randn_like(input: Tensor, *, generator: Generator | np.random.Generator | None = None,
               dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return randn(input.shape, generator=generator, dtype=input.dtype if dtype is None else dtype,
                 requires_grad=requires_grad)
