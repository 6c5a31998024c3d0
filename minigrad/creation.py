"""Tier 2: making tensors, as PyTorch's factory functions (`minigrad.zeros`, `minigrad.arange`,
`minigrad.randn`, ...), and `Generator`, the seedable source of their random numbers.

Sizes are given as PyTorch takes them: `zeros(2, 3)` or `zeros((2, 3))`. Floating-point results
are float32 unless `dtype=` says otherwise; integer ones (arange of ints, randint) are int64.
Random functions draw from `generator=` (a `minigrad.Generator` or a numpy np.random.Generator),
or from the default generator that `minigrad.manual_seed` seeds.
"""
from __future__ import annotations

import functools
import inspect
import json
import math
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np

from . import devices
from .dtypes import get_default_dtype
from .errors import InvalidArgumentError, InvalidTypeError
from .tensor import Tensor

__all__ = [
    "Generator", "arange", "empty", "empty_like", "eye", "full", "full_like", "get_rng_state",
    "initial_seed", "linspace", "logspace", "manual_seed", "ones", "ones_like", "rand",
    "rand_like", "randint", "randn", "randn_like", "randperm", "seed", "set_rng_state",
    "tensor", "tril_indices", "triu_indices", "zeros", "zeros_like",
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
    """Random floats come straight from numpy's generators, which make float32 and float64."""
    result = _dtype(name, dtype, default)
    if result not in (np.float32, np.float64):
        raise InvalidTypeError(f"{name}: dtype must be float32 or float64, got {result}")
    return result


def _tensor(data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor(data, dtype=data.dtype, requires_grad=requires_grad)


def _takes_device(make: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """`make` with PyTorch's `device=` keyword, which may only name the CPU, where minigrad
    computes (minigrad/devices.py)."""
    @functools.wraps(make)
    def made_on_cpu(*args: Any, device: Any = None, **kwargs: Any) -> Tensor:
        devices.on_cpu(make.__name__, device)
        return make(*args, **kwargs)

    signature = inspect.signature(make)
    keyword = inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None,
                                annotation=Any)
    made_on_cpu.__signature__ = signature.replace(
        parameters=[*signature.parameters.values(), keyword])
    return made_on_cpu


def _is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


# --------------------------------------------------------------------------------------------
# From data, and filled tensors
# --------------------------------------------------------------------------------------------
@_takes_device
def tensor(data: Any, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of `data`, with torch.tensor's dtypes: Python ints give int64,
    floats float32, bools bool; numpy arrays and scalars keep theirs. (`Tensor(data)` instead
    wraps a numpy array without copying and makes Python numbers float32.)"""
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


@_takes_device
def zeros(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None, dtype: Any = None,
          requires_grad: bool = False) -> Tensor:
    dtype = _dtype("zeros", dtype, get_default_dtype())
    return _tensor(np.zeros(_shape("zeros", sizes, size), dtype), requires_grad)


@_takes_device
def ones(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None, dtype: Any = None,
         requires_grad: bool = False) -> Tensor:
    dtype = _dtype("ones", dtype, get_default_dtype())
    return _tensor(np.ones(_shape("ones", sizes, size), dtype), requires_grad)


@_takes_device
def empty(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None, dtype: Any = None,
          requires_grad: bool = False) -> Tensor:
    """Uninitialised entries: whatever the memory held."""
    dtype = _dtype("empty", dtype, get_default_dtype())
    return _tensor(np.empty(_shape("empty", sizes, size), dtype), requires_grad)


@_takes_device
def full(size: int | tuple[int, ...], fill_value: Number | bool, *, dtype: Any = None,
         requires_grad: bool = False) -> Tensor:
    """Every entry `fill_value`; the dtype follows it unless given (bool, int64, or float32)."""
    if isinstance(fill_value, (bool, np.bool_)):
        default = np.bool_
    elif _is_integer(fill_value):
        default = np.int64
    else:
        default = get_default_dtype()
    return _tensor(np.full(_shape("full", (size,)), fill_value, _dtype("full", dtype, default)),
                   requires_grad)


@_takes_device
def eye(n: int, m: int | None = None, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """An n x m (n x n) matrix with ones on the diagonal."""
    shape = _shape("eye", (n, n if m is None else m))
    return _tensor(np.eye(*shape, dtype=_dtype("eye", dtype, get_default_dtype())), requires_grad)


@_takes_device
def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Tensor:
    """The (row, column) indices of the lower triangle of a row x col matrix (on and below the
    `offset`-th diagonal), as a 2 x N tensor in row-major order, as torch.tril_indices."""
    rows, cols = _shape("tril_indices", (row, col))
    return Tensor(np.stack(np.tril_indices(rows, offset, cols)).astype(
        _dtype("tril_indices", dtype, np.int64)))


@_takes_device
def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None) -> Tensor:
    """The (row, column) indices of the upper triangle (on and above the `offset`-th diagonal),
    as tril_indices."""
    rows, cols = _shape("triu_indices", (row, col))
    return Tensor(np.stack(np.triu_indices(rows, offset, cols)).astype(
        _dtype("triu_indices", dtype, np.int64)))


# --------------------------------------------------------------------------------------------
# Ranges
# --------------------------------------------------------------------------------------------
@_takes_device
def arange(start: Number, end: Number | None = None, step: Number = 1, *, dtype: Any = None,
           requires_grad: bool = False) -> Tensor:
    """start, start + step, ... up to but excluding end (`arange(n)` is 0 .. n-1). int64 when
    all three are integers, else float32; values are computed in float64 and then cast. A
    one-entry tensor counts as its number, as in PyTorch (arange(n) for an int64 n is int64)."""
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


@_takes_device
def linspace(start: Number, end: Number, steps: int, *, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    """`steps` evenly spaced values from start to end, both included (float32 unless given)."""
    if not _is_integer(steps):
        raise TypeError(f"linspace: steps must be a non-negative integer, got {steps!r}")
    if steps < 0:
        raise InvalidArgumentError(f"linspace: steps must be a non-negative integer, got {steps}")
    target = _dtype("linspace", dtype, get_default_dtype())
    if target == np.bool_:
        raise InvalidArgumentError("linspace: dtype must be a number type, not bool (as in "
                                   "PyTorch)")
    return _tensor(np.linspace(start, end, steps).astype(target), requires_grad)


@_takes_device
def logspace(start: Number, end: Number, steps: int, base: float = 10.0, *, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    """base ** linspace(start, end, steps): `steps` values evenly spaced in the exponent
    (float32 unless given)."""
    exponents = linspace(start, end, steps, dtype=np.float64)
    target = _dtype("logspace", dtype, get_default_dtype())
    return _tensor((base ** exponents.data).astype(target), requires_grad)


# --------------------------------------------------------------------------------------------
# Random tensors
# --------------------------------------------------------------------------------------------
@_takes_device
def rand(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None,
         generator: Generator | np.random.Generator | None = None,
         dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform on [0, 1)."""
    target = _float_dtype("rand", dtype, get_default_dtype())
    return _tensor(_rng("rand", generator).random(_shape("rand", sizes, size), dtype=target),
                   requires_grad)


@_takes_device
def randn(*sizes: int | tuple[int, ...], size: Sequence[int] | None = None,
          generator: Generator | np.random.Generator | None = None,
          dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal: mean 0, variance 1."""
    target = _float_dtype("randn", dtype, get_default_dtype())
    shape = _shape("randn", sizes, size)
    return _tensor(_rng("randn", generator).standard_normal(shape, dtype=target), requires_grad)


@_takes_device
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


@_takes_device
def randperm(n: int, *, generator: Generator | np.random.Generator | None = None,
             dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A random permutation of 0, ..., n - 1, int64 unless given."""
    (count,) = _shape("randperm", (n,))
    values = _rng("randperm", generator).permutation(count)
    return _tensor(values.astype(_dtype("randperm", dtype, np.int64), copy=False), requires_grad)


# --------------------------------------------------------------------------------------------
# The *_like forms: the shape of `input`, and its dtype unless given
# --------------------------------------------------------------------------------------------
@_takes_device
def zeros_like(input: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return zeros(input.shape, dtype=input.dtype if dtype is None else dtype,
                 requires_grad=requires_grad)


@_takes_device
def ones_like(input: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return ones(input.shape, dtype=input.dtype if dtype is None else dtype,
                requires_grad=requires_grad)


@_takes_device
def empty_like(input: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return empty(input.shape, dtype=input.dtype if dtype is None else dtype,
                 requires_grad=requires_grad)


@_takes_device
def full_like(input: Tensor, fill_value: Number | bool, *, dtype: Any = None,
              requires_grad: bool = False) -> Tensor:
    return full(input.shape, fill_value, dtype=input.dtype if dtype is None else dtype,
                requires_grad=requires_grad)


@_takes_device
def rand_like(input: Tensor, *, generator: Generator | np.random.Generator | None = None,
              dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return rand(input.shape, generator=generator, dtype=input.dtype if dtype is None else dtype,
                requires_grad=requires_grad)


@_takes_device
def randn_like(input: Tensor, *, generator: Generator | np.random.Generator | None = None,
               dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return randn(input.shape, generator=generator, dtype=input.dtype if dtype is None else dtype,
                 requires_grad=requires_grad)
