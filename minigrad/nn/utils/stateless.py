"""torch.nn.utils.stateless: `functional_call`, deprecated there in favour of torch.func's (a
FutureWarning), which it calls."""
from __future__ import annotations

import warnings
from typing import Any

from ... import func

__all__ = ["functional_call"]


def functional_call(module: Any, parameters_and_buffers: Any, args: Any = None,
                    kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """minigrad.func.functional_call, under its old name."""
    warnings.warn("`nn.utils.stateless.functional_call` is deprecated, as in PyTorch; use "
                  "`minigrad.func.functional_call`", FutureWarning, stacklevel=2)
    return func.functional_call(module, parameters_and_buffers, args, kwargs,
                                tie_weights=tie_weights, strict=strict)
