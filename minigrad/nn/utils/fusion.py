"""torch.nn.utils.fusion: an evaluation-mode BatchNorm folded into the convolution or Linear
layer before it, so that inference runs one layer instead of two. With the running statistics
(mean m, variance v), eps and the affine weight g and bias c, BatchNorm is y -> (y - m) s + c,
s = g / sqrt(v + eps): a per-channel scale and shift, which multiply into the layer's weight and
bias."""
from __future__ import annotations

import copy
from typing import Any


from ...engine import no_grad
from ...tensor import Tensor
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _scale_and_shift(bn_rm: Tensor, bn_rv: Tensor, bn_eps: float, bn_w: Tensor | None,
                     bn_b: Tensor | None) -> tuple[Tensor, Tensor]:
    """BatchNorm's per-channel s = g / sqrt(v + eps) and c (1 and 0 without affine)."""
    scale = (bn_rv + bn_eps).rsqrt()
    if bn_w is not None:
        scale = bn_w * scale
    return scale, bn_b if bn_b is not None else bn_rm * 0


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution followed by an evaluation-mode BatchNorm, as one
    convolution: w s (s along the output channels: dim 0, or dim 1 of a transposed
    convolution's weight) and (b - m) s + c."""
    with no_grad():
        scale, shift = _scale_and_shift(bn_rm, bn_rv, bn_eps, bn_w, bn_b)
        shape = [1] * conv_w.ndim
        shape[1 if transpose else 0] = -1
        weight = conv_w * scale.reshape(shape).to(conv_w.dtype)
        bias = conv_b if conv_b is not None else bn_rm * 0
        bias = ((bias - bn_rm) * scale + shift).to(conv_w.dtype)
    return Parameter(weight.data, requires_grad=conv_w.requires_grad), \
        Parameter(bias.data, requires_grad=conv_w.requires_grad if conv_b is None
                  else conv_b.requires_grad)


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor | None,
                           bn_b: Tensor | None) -> tuple[Parameter, Parameter]:
    """The weight and bias of a Linear layer followed by an evaluation-mode BatchNorm1d, as one
    Linear layer: w s (s along the output features) and (b - m) s + c."""
    with no_grad():
        scale, shift = _scale_and_shift(bn_rm, bn_rv, bn_eps, bn_w, bn_b)
        weight = linear_w * scale.unsqueeze(-1).to(linear_w.dtype)
        bias = linear_b if linear_b is not None else bn_rm * 0
        bias = ((bias - bn_rm) * scale + shift).to(linear_w.dtype)
    return Parameter(weight.data, requires_grad=linear_w.requires_grad), \
        Parameter(bias.data, requires_grad=linear_w.requires_grad if linear_b is None
                  else linear_b.requires_grad)


def _refuse_training(name: str, *modules: Any) -> None:
    if any(module.training for module in modules):
        raise AssertionError(f"{name}: fusion only for eval! call .eval() on both modules "
                             f"first")


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A copy of the evaluation-mode convolution `conv` with the evaluation-mode BatchNorm `bn`
    that follows it folded in (`fuse_conv_bn_weights`)."""
    _refuse_training("fuse_conv_bn_eval", conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A copy of the evaluation-mode Linear layer with the evaluation-mode BatchNorm1d that
    follows it folded in (`fuse_linear_bn_weights`); bn must have one feature per output
    feature, or a single one (broadcast), as PyTorch's."""
    _refuse_training("fuse_linear_bn_eval", linear, bn)
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError("fuse_linear_bn_eval: to fuse, linear.out_features must equal "
                             "bn.num_features or bn.num_features must be 1")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused



