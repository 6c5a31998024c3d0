"""Layers, at PyTorch's import paths: `minigrad.nn.Linear`, ... (defined in `nn.modules`, as
torch.nn.modules), `nn.parameter`, `nn.utils`, and `nn.functional` and `nn.init`, which are
`minigrad.functional` and `minigrad.init` themselves, so `import minigrad.nn.functional as F`
works as `import torch.nn.functional as F` does."""
import sys

from .. import functional, init
from . import modules, parameter, utils
from .modules import *  # noqa: F401,F403  (nn.Linear, nn.Module, ...)
from .modules import __all__ as _modules

# As os.path is posixpath: the submodule names lead to the one module, not to a copy of it, so
# `import minigrad.nn.functional` finds it and `minigrad.nn.functional is minigrad.functional`
sys.modules[f"{__name__}.functional"] = functional
sys.modules[f"{__name__}.init"] = init

__all__ = _modules + ["functional", "init", "modules", "parameter", "utils"]
