"""minigrad: a small autograd engine on numpy, readable op by op.

    from minigrad import Tensor
    import minigrad.functional as F

Three tiers: primitives with a hand-written backward (`minigrad.ops`), compositions of them
(`Tensor` methods, `minigrad.functional`), and fused kernels for speed (`minigrad.kernels`),
switched off by `with minigrad.fused(False):`. Importing minigrad changes no process-wide state.
"""
from .engine import (Function, backward_hook, enable_grad, fused, grad, inference_mode,
                     is_fused_enabled, is_grad_enabled, no_grad, set_grad_enabled, unbroadcast)
from .tensor import Tensor
from . import functional, kernels, linalg, nn, ops, optim  # noqa: E402,I001  (they build on Tensor)
from .tensor_functions import *  # noqa: F401,F403  (minigrad.cat, minigrad.where, ...)
from .tensor_functions import __all__ as _tensor_functions
from .pointwise import *  # noqa: F401,F403  (minigrad.exp, minigrad.maximum, ...)
from .pointwise import __all__ as _pointwise
from . import special  # noqa: E402  (torch.special's namespace, built on pointwise)
from .creation import *  # noqa: F401,F403  (minigrad.zeros, minigrad.randn, ...)
from .creation import __all__ as _creation
from .dtypes import *  # noqa: F401,F403  (minigrad.float32, minigrad.int64, ...)
from .dtypes import __all__ as _dtypes
from .gradcheck import GradcheckError, gradcheck
from .linalg import lu_unpack  # torch.lu_unpack, outside torch.linalg
from .functional import celu_, rrelu_, selu_, threshold_  # torch.celu_ and the like
from .graph import draw_graph, to_dot, trace_backward
from .memory import keep_freed_memory
from .devices import device
from . import cuda  # noqa: E402  (torch.cuda's questions: no GPU here)
from . import utils  # noqa: E402  (torch.utils.data: datasets and the DataLoader)
from .serialization import load, save
from . import autograd  # noqa: E402  (torch.autograd's namespace)
from . import func  # noqa: E402  (torch.func's functional_call)

__all__ = _tensor_functions + _pointwise + _creation + _dtypes + [
    "Function", "GradcheckError", "Tensor", "autograd", "backward_hook", "celu_", "cuda",
    "device", "draw_graph", "enable_grad",
    "func", "functional", "fused", "grad", "gradcheck", "inference_mode", "is_fused_enabled",
    "is_grad_enabled", "keep_freed_memory", "kernels", "linalg", "load", "lu_unpack", "nn",
    "no_grad", "ops", "optim", "rrelu_", "save", "selu_", "set_grad_enabled", "special",
    "threshold_", "to_dot", "trace_backward", "unbroadcast", "utils",
]
__version__ = "0.1.0"
