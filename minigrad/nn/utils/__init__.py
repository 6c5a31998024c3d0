"""torch.nn.utils's gradient clipping and parameter flattening: `clip_grad_norm_` (the one of
`minigrad.optim`) and its two halves `get_total_norm` and `clip_grads_with_norm_`,
`clip_grad_value_`, `parameters_to_vector` and `vector_to_parameters`; and
`nn.utils.rnn.pad_sequence`."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ...engine import no_grad
from ...init import _deprecated
from ...optim import clip_grad_norm_, clip_grads_with_norm_, get_total_norm
from ...tensor import Tensor
from ...tensor_functions import cat
from . import fusion, rnn, stateless
from .weight_norm import remove_weight_norm, weight_norm
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "fusion", "get_total_norm", "parameters_to_vector",
           "remove_weight_norm", "rnn", "stateless", "vector_to_parameters", "weight_norm"]

# PyTorch's old name, deprecated as there (a FutureWarning naming clip_grad_norm_)
clip_grad_norm = _deprecated(clip_grad_norm_, "nn.utils")


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient in place to [-clip_value, clip_value] (NaN stays NaN), as PyTorch's;
    `foreach` is accepted and changes nothing (one implementation)."""
    clip_value = float(clip_value)
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one 1-D tensor, in the graph (its gradient
    reaches each parameter), as PyTorch's."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Give each parameter, in order, the next `numel()` entries of `vec` as its data (a copy,
    of vec's dtype, as PyTorch's `param.data = ...`); entries left over are ignored, too few
    raise RuntimeError."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        piece = vec.data[start:start + p.numel()]
        if piece.size != p.numel():
            raise RuntimeError(f"vector_to_parameters: vec has {vec.numel()} entries, too few "
                               f"for the parameters (at least {start + p.numel()} needed)")
        p.data = np.array(piece.reshape(p.shape))
        start += p.numel()
