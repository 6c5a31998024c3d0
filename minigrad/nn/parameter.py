"""torch.nn.parameter's path: the parameter and buffer classes of `minigrad.nn.modules`."""
from .modules import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter"]
