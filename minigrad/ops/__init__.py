"""Every op of minigrad, one class each, grouped in files by family."""
from .elementwise import (Abs, Add, Div, Exp, Gelu, Log, MaskedFill, Mul, Neg, Pow, Relu,
                          Sigmoid, Sqrt, Sub, Tanh, Where)
from .matmul import MatMul
from .nn_ops import CrossEntropy, Dropout, Embedding, LayerNorm, LogSoftmax, Softmax
from .reductions import Max, Mean, Sum
from .shape import Concat, GetItem, Reshape, Stack, Transpose

__all__ = [
    "Abs", "Add", "Concat", "CrossEntropy", "Div", "Dropout", "Embedding", "Exp", "Gelu",
    "GetItem", "LayerNorm", "Log", "LogSoftmax", "MaskedFill", "MatMul", "Max", "Mean", "Mul",
    "Neg", "Pow", "Relu", "Reshape", "Sigmoid", "Softmax", "Sqrt", "Stack", "Sub", "Sum", "Tanh",
    "Transpose", "Where",
]
