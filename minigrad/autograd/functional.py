"""torch.autograd.functional's reverse-mode helpers, built on minigrad.grad."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..engine import grad
from ..tensor import Tensor

__all__ = ["jacobian", "vjp"]


def _as_inputs(inputs: Tensor | Sequence[Tensor]) -> tuple[tuple[Tensor, ...], bool]:
    """Fresh leaves requiring grad, with the values of `inputs` (one tensor or a tuple), and
    whether it was one tensor."""
    single = isinstance(inputs, Tensor)
    leaves = tuple(Tensor(t.detach().data.copy(), requires_grad=True)
                   for t in ((inputs,) if single else inputs))
    return leaves, single


def vjp(func: Callable[..., Tensor], inputs: Tensor | Sequence[Tensor],
        v: Tensor | None = None) -> tuple[Tensor, Tensor | tuple[Tensor, ...]]:
    """(func(*inputs), v^T J): the gradient of sum(func(*inputs) * v) with respect to each
    input (v may be None for a one-element output), as torch.autograd.functional.vjp; an
    input that func does not use gets zeros (all do, where the output needs no grad)."""
    leaves, single = _as_inputs(inputs)
    output = func(*leaves)
    grads = (grad(output, leaves, v, allow_unused=True) if output.requires_grad else
             (None,) * len(leaves))
    grads = tuple(Tensor(np.zeros_like(leaf.data)) if g is None else g
                  for leaf, g in zip(leaves, grads))
    return output.detach(), grads[0] if single else grads


def jacobian(func: Callable[..., Tensor | tuple[Tensor, ...]],
             inputs: Tensor | Sequence[Tensor]) -> Any:
    """d func(*inputs) / d inputs as torch.autograd.functional.jacobian: for one input, a
    tensor of shape output.shape + input.shape; for a tuple of inputs, a tuple with one such
    tensor per input; for a tuple of outputs, a tuple of those, one per output. One backward
    per output entry (reverse mode); none where an output needs no grad, whose Jacobian is
    zeros."""
    leaves, single = _as_inputs(inputs)
    outputs = func(*leaves)
    if isinstance(outputs, Tensor):
        return _jacobian_of(outputs, leaves, single)
    return tuple(_jacobian_of(output, leaves, single) for output in outputs)


def _jacobian_of(output: Tensor, leaves: tuple[Tensor, ...], single: bool) -> Any:
    """One output's Jacobian with respect to each leaf (the leaf's alone if `single`)."""
    rows = [[] for _ in leaves]
    for index in range(output.numel() if output.requires_grad else 0):
        upstream = np.zeros(output.shape, dtype=output.dtype)
        upstream.flat[index] = 1
        grads = grad(output, leaves, upstream, retain_graph=True, allow_unused=True)
        for row, leaf, g in zip(rows, leaves, grads):
            row.append(np.zeros_like(leaf.data) if g is None else g.data)
    jacobians = tuple(Tensor(np.stack(row).reshape(output.shape + leaf.shape) if row else
                             np.zeros(output.shape + leaf.shape, dtype=leaf.dtype))
                      for row, leaf in zip(rows, leaves))
    return jacobians[0] if single else jacobians
