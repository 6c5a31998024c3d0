"""Stochastic weight averaging and exponential moving averages of a model's weights:
torch.optim.swa_utils's, as `minigrad.optim.swa_utils`.

    swa_model = optim.swa_utils.AveragedModel(model)
    schedule = optim.swa_utils.SWALR(opt, swa_lr=0.05)
    for epoch in range(epochs):
        train(...)
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            schedule.step()
    optim.swa_utils.update_bn(loader, swa_model)   # batch-norm statistics of the averaged weights
"""
from __future__ import annotations

import copy
import itertools
import math
from typing import Any, Callable, Iterable

import numpy as np

from .engine import no_grad
from .lr_scheduler import LRScheduler, _per_group
from .nn.modules import BatchNorm1d, BatchNorm2d, BatchNorm3d, Module
from .optim import Optimizer
from .tensor import Tensor

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]

AverageFn = Callable[[Tensor, Tensor, Tensor], Tensor]
MultiAverageFn = Callable[[list[Tensor], list[Tensor], Tensor], None]


def _check_decay(decay: float) -> None:
    if not 0 <= decay <= 1:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         f"[0,1] range.")


def get_ema_avg_fn(decay: float = 0.999) -> AverageFn:
    """The exponential moving average, ema = decay ema + (1 - decay) current, as an avg_fn."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Tensor) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_ema_multi_avg_fn(decay: float = 0.999) -> MultiAverageFn:
    """The exponential moving average as a multi_avg_fn: every ema in place,
    ema += (1 - decay) (current - ema) (PyTorch's lerp)."""
    _check_decay(decay)

    def ema_update(ema_params: list[Tensor], current_params: list[Tensor],
                   num_averaged: Tensor) -> None:
        for ema, current in zip(ema_params, current_params):
            if np.issubdtype(ema.dtype, np.floating):  # PyTorch's lerp
                ema.data += (1 - decay) * (current.data - ema.data)
            else:  # a count: the float average, truncated as PyTorch's copy_ does
                ema.data[...] = ema.data * decay + current.data * (1 - decay)

    return ema_update


def get_swa_avg_fn() -> AverageFn:
    """The running mean of every model seen, averaged + (current - averaged) / (n + 1)."""
    def swa_update(averaged_param: Tensor, current_param: Tensor,
                   num_averaged: Tensor) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def get_swa_multi_avg_fn() -> MultiAverageFn:
    """The running mean as a multi_avg_fn: every average in place,
    averaged += (current - averaged) / (n + 1)."""
    def swa_update(averaged_params: list[Tensor], current_params: list[Tensor],
                   num_averaged: Tensor) -> None:
        weight = 1 / (int(num_averaged.item()) + 1)
        for averaged, current in zip(averaged_params, current_params):
            averaged.data[...] = averaged.data + weight * (current.data - averaged.data)

    return swa_update


class AveragedModel(Module):
    """A copy of `model` (`module`) whose parameters, and with use_buffers its buffers too,
    are an average of the model's at each `update_parameters(model)`: the first call copies
    them, later ones apply avg_fn(averaged, current, n_averaged) to each (its result becomes
    the average) or multi_avg_fn(averaged list, current list, n_averaged) to all (it updates
    them in place); the running mean by default (SWA), get_ema_avg_fn() for an EMA. Without
    use_buffers the buffers are copied from the model. Calling it calls the averaged copy."""

    def __init__(self, model: Module, device: Any = None, avg_fn: AverageFn | None = None,
                 multi_avg_fn: MultiAverageFn | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", Tensor(np.array(0, np.int64)))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold `model`'s current parameters (and buffers, with use_buffers) into the average."""
        if self.use_buffers:
            pairs = list(zip(itertools.chain(self.module.parameters(), self.module.buffers()),
                             itertools.chain(model.parameters(), model.buffers())))
        else:
            pairs = list(zip(self.module.parameters(), model.parameters()))
        with no_grad():
            if int(self.n_averaged.item()) == 0:
                for averaged, current in pairs:
                    averaged.data[...] = current.data
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn([a for a, _ in pairs], [c.detach() for _, c in pairs],
                                  self.n_averaged)
            else:
                average = self.avg_fn or get_swa_avg_fn()
                for averaged, current in pairs:
                    averaged.data[...] = average(averaged.detach(), current.detach(),
                                                 self.n_averaged).data
            if not self.use_buffers:  # the buffers (batch-norm statistics) follow the model
                for own, theirs in zip(self.module.buffers(), model.buffers()):
                    own.data[...] = theirs.data
        self.n_averaged.data += 1
        for averaged, _ in pairs:
            averaged._version += 1  # changed in place: backward refuses a graph that saved it


def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recompute the batch-norm running statistics of `model` (in train mode, for the moment)
    as the plain average over one pass of `loader` (each item an input, or a list or tuple
    whose first entry is): what averaged weights need, whose statistics no batch has seen."""
    norms = [m for m in model.modules() if isinstance(m, (BatchNorm1d, BatchNorm2d, BatchNorm3d))
             and m.running_mean is not None]
    if not norms:
        return
    momenta = {}
    for norm in norms:  # PyTorch's reset_running_stats
        norm.running_mean.data[...] = 0
        norm.running_var.data[...] = 1
        norm.num_batches_tracked.data[...] = 0
        momenta[norm], norm.momentum = norm.momentum, None  # None: the cumulative average
    was_training = model.training
    model.train()
    for batch in loader:
        model(batch[0] if isinstance(batch, (list, tuple)) else batch)
    for norm, momentum in momenta.items():
        norm.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its swa_lr over anneal_epochs steps ('cos' or 'linear'),
    then holds it, as torch.optim.swa_utils.SWALR: with alpha_t = (1 - cos(pi t)) / 2 (or t)
    at t = min(1, step / anneal_epochs), lr = swa_lr alpha_t + lr_0 (1 - alpha_t), lr_0 being
    recovered from the current lr, so that an lr set by hand carries on."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float],
                 anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        for lr, group in zip(_per_group("SWALR", "swa_lr", optimizer, swa_lr),
                             optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs, self.anneal_strategy = anneal_epochs, anneal_strategy
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t: float) -> float:
        return t if self.anneal_strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        swa_lr = self.optimizer.param_groups[group]["swa_lr"]
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        previous = self._anneal(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        # the lr before annealing, from the current one and the previous step's alpha
        start = swa_lr if previous == 1 else (lr - previous * swa_lr) / (1 - previous)
        alpha = self._anneal(max(0, min(1, step / max(1, self.anneal_epochs))))
        return swa_lr * alpha + start * (1 - alpha)
