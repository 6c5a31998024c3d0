"""PyTorch's torch.autograd namespace: `backward`, `grad`, `gradcheck`, the grad-mode switches,
`functional.jacobian`/`vjp`, and `Function`, PyTorch's way to write an op with its own backward:

    class Exp(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad_output):
            out, = ctx.saved_tensors
            return grad_output * out

    y = Exp.apply(x)

It is built on minigrad's own op class, `minigrad.Function` (forward and backward on numpy
arrays, docs/extending.md): one `_UserOp` records each call.
"""
from __future__ import annotations

from typing import Any, Sequence

from ..engine import Function as _Op
from ..engine import enable_grad, grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ..errors import InvalidArgumentError
from ..gradcheck import gradcheck
from ..tensor import Tensor
from . import functional

__all__ = ["Function", "FunctionCtx", "backward", "enable_grad", "functional", "grad",
           "gradcheck", "inference_mode", "is_grad_enabled", "no_grad", "set_grad_enabled"]


def backward(tensors: Tensor | Sequence[Tensor], grad_tensors: Any = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             inputs: Tensor | Sequence[Tensor] | None = None) -> None:
    """torch.autograd.backward: `tensor.backward(grad_tensor, ...)` for each tensor and its
    gradient (None for a one-element tensor), accumulating into the leaves' `.grad`."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors] * len(tensors) if grad_tensors is None else [grad_tensors]
    grad_tensors = list(grad_tensors)
    if len(grad_tensors) != len(tensors):
        raise InvalidArgumentError(f"backward: got {len(grad_tensors)} gradients for "
                                   f"{len(tensors)} tensors")
    for i, (tensor, gradient) in enumerate(zip(tensors, grad_tensors)):
        # every graph but the last is kept for the ones after it, which may share it
        keep = retain_graph if retain_graph is not None else i < len(tensors) - 1
        tensor.backward(gradient, keep, create_graph, inputs)


class FunctionCtx:
    """What a Function's forward leaves for its backward (PyTorch's ctx): tensors through
    `save_for_backward` (read back as `saved_tensors`), anything else as attributes;
    `needs_input_grad` says, per forward argument, whether its gradient is wanted."""

    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs_input_grad
        self._saved: tuple[Tensor | None, ...] = ()
        self._saved_versions: list[int | None] = []
        self.materialize_grads = True
        self.non_differentiable: list[Tensor] = []

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        self._saved = tensors
        self._saved_versions = [None if t is None else t._version for t in tensors]

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """What save_for_backward kept; as PyTorch, a tensor changed in place since raises
        (backward would read other values than forward saw)."""
        for position, (tensor, version) in enumerate(zip(self._saved, self._saved_versions)):
            if tensor is not None and tensor._version != version:
                raise RuntimeError(f"saved_tensors: saved tensor {position} (shape "
                                   f"{tensor.shape}) was changed by an in-place operation "
                                   f"after save_for_backward (its version is "
                                   f"{tensor._version}, expected {version}); change a clone "
                                   f"of it instead, or change it after backward")
        return self._saved

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self.non_differentiable.extend(tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """Accepted for PyTorch's code: minigrad's backward always gets a gradient array."""
        self.materialize_grads = value


class Function:
    """PyTorch's torch.autograd.Function: subclass it with static methods
    `forward(ctx, *args)` (tensor arguments arrive as they are, run with grad mode off; one
    tensor out) and `backward(ctx, grad_output)` (one gradient per forward argument, None for
    those that need none), or PyTorch's other form, `forward(*args)` plus
    `setup_context(ctx, inputs, output)`; call `YourFunction.apply(*args)`."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement forward")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> Any:
        raise NotImplementedError("a Function subclass must implement backward")

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: Any) -> None:
        raise NotImplementedError  # only when forward takes no ctx

    @classmethod
    def apply(cls, *args: Any) -> Tensor:
        tensors = [a for a in args if isinstance(a, Tensor)]
        out = _UserOp.apply(*tensors, function=cls, args=args)
        if out.requires_grad and (out.grad_fn.non_differentiable or not out.is_floating_point()):
            out.grad_fn, out._requires_grad = None, False  # as PyTorch: no gradient flows there
        return out


class _UserOp(_Op):
    """One call of a PyTorch-style Function: forward and backward hand over to the user's."""

    saves_inputs = False  # the user's backward reads what its forward saved

    def forward(self, *arrays: Any, function: type[Function], args: tuple) -> Any:
        recording = is_grad_enabled()
        needs = tuple(recording and isinstance(a, Tensor) and a.requires_grad for a in args)
        self.function, self.args = function, args
        self.ctx = ctx = FunctionCtx(needs)
        with no_grad():
            if function.setup_context is Function.setup_context:
                out = function.forward(ctx, *args)
            else:
                out = function.forward(*args)
                function.setup_context(ctx, args, out)
        if not isinstance(out, Tensor):
            raise TypeError(f"{function.__name__}.forward must return one Tensor, got "
                            f"{type(out).__name__}")
        self.non_differentiable = any(out is t for t in ctx.non_differentiable)
        # a saved output shares its array with the op's: the engine checks that one's version
        self.saves_output = any(out is t for t in ctx._saved)
        return out.data

    def backward(self, g: Any) -> tuple[Any, ...]:
        with no_grad():
            grads = self.function.backward(self.ctx, Tensor._make(g))
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(self.args):
            raise RuntimeError(f"{self.function.__name__}.backward returned {len(grads)} "
                               f"gradients, but forward took {len(self.args)} arguments")
        tensor_grads = []
        for arg, gradient in zip(self.args, grads):
            if not isinstance(arg, Tensor):
                if gradient is not None:
                    raise RuntimeError(f"{self.function.__name__}.backward returned a gradient "
                                       f"for an argument that is not a tensor: return None")
                continue
            tensor_grads.append(gradient.data if isinstance(gradient, Tensor) else gradient)
        return tuple(tensor_grads)
