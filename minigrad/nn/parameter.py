"""torch.nn.parameter's path: the parameter classes of `minigrad.nn.modules`."""
from .modules import Parameter

__all__ = ["Parameter"]
