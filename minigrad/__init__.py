"""minigrad: a small autograd engine on numpy, readable op by op.

    from minigrad import Tensor
    import minigrad.functional as F
"""
from . import functional, nn, ops, optim
from .memory import keep_freed_memory
from .engine import Function, Tensor, grad, is_grad_enabled, no_grad, unbroadcast
from .gradcheck import GradcheckError, gradcheck
from .graph import draw_graph, trace_backward

__all__ = [
    "Function", "GradcheckError", "Tensor", "draw_graph", "functional", "grad", "gradcheck",
    "is_grad_enabled", "nn", "no_grad", "ops", "optim", "trace_backward", "unbroadcast",
]
__version__ = "0.1.0"

keep_freed_memory()
