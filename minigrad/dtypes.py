"""PyTorch's dtype names as numpy dtypes: `minigrad.zeros(3, dtype=minigrad.float64)` reads as in
PyTorch, and numpy dtypes work everywhere these do (`t.dtype == minigrad.float32` is True for a
float32 tensor). Floats default to float32 (`get_default_dtype`), integers to int64."""
import numpy as np

__all__ = ["bool", "double", "float", "float16", "float32", "float64", "get_default_dtype",
           "half", "int", "int16", "int32", "int64", "int8", "long", "short", "uint8"]

float16 = half = np.float16
float32 = float = np.float32
float64 = double = np.float64
uint8 = np.uint8
int8 = np.int8
int16 = short = np.int16
int32 = int = np.int32
int64 = long = np.int64
bool = np.bool_


def get_default_dtype() -> type:
    """The dtype of floating-point tensors made from Python numbers: float32."""
    return np.float32
