"""PyTorch's dtype names as numpy dtypes: `minigrad.zeros(3, dtype=minigrad.float64)` reads as in
PyTorch, and numpy dtypes work everywhere these do (`t.dtype == minigrad.float32` is True for a
float32 tensor). Floats default to float32 (`get_default_dtype`; `set_default_dtype` changes that
for the whole process, as PyTorch's), integers to int64."""
from typing import Any

import numpy as np

__all__ = ["bool", "double", "finfo", "float", "float16", "float32", "float64",
           "get_default_dtype", "half", "iinfo", "int", "int16", "int32", "int64", "int8", "long",
           "set_default_dtype", "short", "uint8"]

float16 = half = np.float16
float32 = float = np.float32
float64 = double = np.float64
uint8 = np.uint8
int8 = np.int8
int16 = short = np.int16
int32 = int = np.int32
int64 = long = np.int64
bool = np.bool_


# process-wide, as PyTorch's: read at every call that needs it, never copied at import
_default_dtype: type = np.float32


def get_default_dtype() -> type:
    """The dtype of floating-point tensors made from Python numbers, of the factories (zeros,
    rand, ...) and layers given no dtype, and of integer values promoted to floats: float32
    unless `set_default_dtype` changed it."""
    return _default_dtype


def set_default_dtype(d: Any) -> None:
    """torch.set_default_dtype: make `d` (float16, float32 or float64, by any name numpy reads:
    minigrad.double, np.float64, "float64") the default floating-point dtype, for the whole
    process. Any other dtype raises TypeError, as in PyTorch; so does bfloat16, which PyTorch
    takes but numpy has not got."""
    global _default_dtype
    try:
        dtype = None if d is None else np.dtype(d)  # np.dtype(None) would be float64
    except TypeError:
        dtype = None
    if dtype not in (np.float16, np.float32, np.float64):
        raise TypeError(f"set_default_dtype: only floating-point types are supported as the "
                        f"default type (float16, float32 or float64; numpy has no bfloat16), "
                        f"got {d!r}")
    _default_dtype = dtype.type


class finfo:  # noqa: N801  (PyTorch's name)
    """torch.finfo: the limits of a floating-point dtype (the default float dtype when none is
    given): bits, eps, max, min, tiny (= smallest_normal), resolution, and dtype's name."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002  (PyTorch's argument name)
        dtype = np.dtype(get_default_dtype() if type is None else type)
        if dtype.kind not in "fc":
            raise TypeError(f"finfo: expected a floating-point dtype, got {dtype}; use "
                            f"minigrad.iinfo for integers")
        info = np.finfo(dtype)
        # Python floats (this module's `float` is PyTorch's name for float32)
        self.bits, self.eps, self.resolution = info.bits, info.eps.item(), 10.0 ** -info.precision
        self.max, self.min = info.max.item(), info.min.item()
        self.tiny = self.smallest_normal = info.smallest_normal.item()
        self.dtype = info.dtype.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801  (PyTorch's name)
    """torch.iinfo: the limits of an integer dtype: bits, max, min, and dtype's name."""

    def __init__(self, type: Any) -> None:  # noqa: A002
        dtype = np.dtype(type)
        if dtype.kind not in "iu":
            raise TypeError(f"iinfo: expected an integer dtype, got {dtype}; use minigrad.finfo "
                            f"for floating-point ones")
        info = np.iinfo(dtype)
        self.bits, self.max, self.min, self.dtype = info.bits, info.max, info.min, info.dtype.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
