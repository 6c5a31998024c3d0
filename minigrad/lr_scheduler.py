"""Learning-rate schedules: torch.optim.lr_scheduler's, as `minigrad.optim.lr_scheduler`.

    opt = optim.SGD(model.parameters(), lr=0.1)
    schedule = optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(100):
        train(...)          # opt.step() inside
        schedule.step()     # then the schedule, once per epoch (or per step)

Each `step()` moves every parameter group's "lr" on from its current value, by PyTorch's
recursive form of the schedule (so schedulers chain, and an lr changed by hand carries on), using
the lr the group had when the scheduler was made where the schedule needs it (`base_lrs`, kept
in the group as "initial_lr") and the count of `step()` calls (`last_epoch`). Making one sets the
lr of epoch 0. As in PyTorch, LambdaLR, CosineAnnealingWarmRestarts, CyclicLR and OneCycleLR set
the lr from their fixed points instead (they do not chain), and ReduceLROnPlateau is stepped with a
metric. SequentialLR runs schedulers one after another, ChainedScheduler steps several together.
"""
from __future__ import annotations

import bisect
import math
from typing import Any, Callable, Sequence

from .errors import InvalidArgumentError
from .optim import Optimizer  # optim imports this module last, once Optimizer is defined
from .tensor import Tensor

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR",
           "MultiplicativeLR", "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau",
           "SequentialLR", "StepLR"]


class LRScheduler:
    """The base class: `step()` advances `last_epoch` and sets each group's lr to
    `_lr(its lr, its base lr, epoch, group index)`, which subclasses define."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        if last_epoch == -1:
            for group in optimizer.param_groups:
                # a copy of a Tensor lr, which the steps fill in place
                group.setdefault("initial_lr", _copy(group["lr"]))
        elif any("initial_lr" not in group for group in optimizer.param_groups):
            raise KeyError(f"{type(self).__name__}: resuming with last_epoch={last_epoch} needs "
                           f"'initial_lr' in every parameter group (made by a scheduler with "
                           f"last_epoch=-1)")
        self.optimizer = optimizer
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self.step()

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        raise NotImplementedError

    def _resuming(self, epoch: int) -> bool:
        """Whether this is the step a scheduler made with last_epoch >= 0 takes in its
        constructor: PyTorch's smooth schedules keep the restored lr then."""
        return self._step_count == 1 and epoch > 0

    def step(self) -> None:
        self._step_count += 1
        self.last_epoch += 1
        for index, (group, base_lr) in enumerate(zip(self.optimizer.param_groups, self.base_lrs)):
            _set_lr(group, self._lr(group["lr"], base_lr, self.last_epoch, index))
        self._keep_last_lr()

    def _restart(self) -> None:
        """Go back to epoch 0 of the schedule, each group's lr its first value from the base lr
        (what SequentialLR does at a milestone; PyTorch's step(0))."""
        self.last_epoch = 0
        for index, (group, base_lr) in enumerate(zip(self.optimizer.param_groups, self.base_lrs)):
            _set_lr(group, self._restarted_lr(group["lr"], base_lr, index))
        self._keep_last_lr()

    def _restarted_lr(self, lr: float, base_lr: float, group: int) -> float:
        return self._lr(base_lr, base_lr, 0, group)

    def _keep_last_lr(self) -> None:
        self._last_lr = [_copy(group["lr"]) for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        """The lr of each group set by the last `step()`."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's settings and progress (everything but the optimizer and functions)."""
        return {key: value for key, value in vars(self).items()
                if key not in ("optimizer", "lr_lambdas")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        vars(self).update(state_dict)


def _set_lr(group: dict[str, Any], lr: Any) -> None:
    """A group's new lr; one given as a Tensor is filled in place, as PyTorch's schedulers do,
    so the tensor the optimizer was given follows the schedule."""
    if isinstance(group["lr"], Tensor):
        group["lr"].fill_(float(lr))
    else:
        group["lr"] = lr


def _copy(lr: Any) -> Any:
    return lr.clone() if isinstance(lr, Tensor) else lr


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _per_group(scheduler: str, name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    """A setting (a number, or LambdaLR's function) given once for every parameter group, or
    as a list or tuple of one per group, as PyTorch reads it."""
    groups = len(optimizer.param_groups)
    if not isinstance(value, (list, tuple)):
        return [value] * groups
    if len(value) != groups:
        raise ValueError(f"{scheduler}: expected {groups} values of {name} (one per parameter "
                         f"group), got {len(value)}")
    return list(value)


class _PerGroupLambdas(LRScheduler):
    """LambdaLR and MultiplicativeLR: `lr_lambda` is one function of the epoch, or one per
    parameter group."""

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _per_group(type(self).__name__, "lr_lambda", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)


class LambdaLR(_PerGroupLambdas):
    """lr = base_lr * lr_lambda(epoch): one function, or one per parameter group (it does not
    chain, as PyTorch's)."""

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        return base_lr * self.lr_lambdas[group](epoch)


class MultiplicativeLR(_PerGroupLambdas):
    """lr *= lr_lambda(epoch) at every step after epoch 0 (one function, or one per group)."""

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        if epoch == 0 or self._resuming(epoch):
            return lr
        return lr * self.lr_lambdas[group](epoch)

    def _restarted_lr(self, lr: float, base_lr: float, group: int) -> float:
        return lr * self.lr_lambdas[group](0)  # PyTorch's step(0) goes on from the lr it finds


class StepLR(LRScheduler):
    """lr *= gamma every step_size epochs: base_lr * gamma ** (epoch // step_size) alone."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        return lr * self.gamma if epoch and epoch % self.step_size == 0 else lr


class MultiStepLR(LRScheduler):
    """lr *= gamma at each milestone epoch (twice at a milestone given twice)."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        return lr * self.gamma ** self.milestones.count(epoch)


class ExponentialLR(LRScheduler):
    """lr *= gamma every epoch: base_lr * gamma ** epoch alone."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        return lr * self.gamma if epoch and not self._resuming(epoch) else lr


class CosineAnnealingLR(LRScheduler):
    """Loshchilov & Hutter's cosine without restarts: alone, lr = eta_min + (base_lr - eta_min)
    (1 + cos(pi epoch / T_max)) / 2, from base_lr down to eta_min at epoch T_max and back up
    after it; each step scales lr - eta_min by the ratio of two consecutive cosine terms."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        if epoch == 0 or self._resuming(epoch):
            return lr
        if (epoch - 1 - self.T_max) % (2 * self.T_max) == 0:  # the ratio below would be 0 / 0
            return lr + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
        return self.eta_min + (lr - self.eta_min) * (
            (1 + math.cos(math.pi * epoch / self.T_max))
            / (1 + math.cos(math.pi * (epoch - 1) / self.T_max)))


class CosineAnnealingWarmRestarts(LRScheduler):
    """Loshchilov & Hutter's SGDR: lr = eta_min + (base_lr - eta_min) (1 + cos(pi T_cur / T_i))
    / 2, with T_cur the epochs since the last restart and a restart every T_i epochs (T_0 at
    first, T_mult times longer after each). As PyTorch's, step(epoch) may name the epoch, a
    fraction of one too (steps within an epoch); the lr is set from base_lr, not chained."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if not isinstance(T_0, int) or T_0 <= 0 or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be a positive int and "
                             f"T_mult an int >= 1, got {T_0!r} and {T_mult!r}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        return self.eta_min + (base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch: float | None = None) -> None:
        if epoch is None and self.last_epoch >= 0:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:  # a restart
                self.T_cur, self.T_i = self.T_cur % self.T_i, self.T_i * self.T_mult
        else:
            epoch = 0 if epoch is None else epoch
            if epoch < 0:
                raise ValueError(f"CosineAnnealingWarmRestarts: expected a non-negative "
                                 f"epoch, got {epoch}")
            if epoch < self.T_0:
                self.T_i, self.T_cur = self.T_0, epoch
            elif self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:  # n restarts so far: T_0 (T_mult^n - 1) / (T_mult - 1) <= epoch
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        self.last_epoch = math.floor(epoch) - 1  # the base step counts it on by one
        super().step()

    def _restart(self) -> None:
        self.step(0)


class LinearLR(LRScheduler):
    """lr scaled by a factor going linearly from start_factor at epoch 0 to end_factor at epoch
    total_iters, and staying there (a warm-up, by default)."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError("LinearLR: start_factor must be in (0, 1] and end_factor in [0, 1], "
                             f"got {start_factor} and {end_factor}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        if epoch == 0:
            return lr * self.start_factor
        if epoch > self.total_iters or self._resuming(epoch):
            return lr
        change = self.end_factor - self.start_factor  # the factor's ratio to the previous one
        return lr * (1 + change / (self.total_iters * self.start_factor + (epoch - 1) * change))


class ConstantLR(LRScheduler):
    """lr scaled by `factor` from epoch 0 until epoch total_iters, then back to what it was."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if not 0 <= factor <= 1:
            raise ValueError(f"ConstantLR: factor must be in [0, 1], got {factor}")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        if epoch == 0:
            return lr * self.factor
        return lr / self.factor if epoch == self.total_iters else lr


class PolynomialLR(LRScheduler):
    """Alone, lr = base_lr (1 - epoch / total_iters) ** power, down to 0 at total_iters and
    staying there; each step scales lr by the ratio of two consecutive such factors."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        if epoch == 0 or epoch > self.total_iters or self._resuming(epoch):
            return lr
        return lr * ((1 - epoch / self.total_iters)
                     / (1 - (epoch - 1) / self.total_iters)) ** self.power


class ReduceLROnPlateau(LRScheduler):
    """lr *= factor (not below min_lr, one per group or one for all) once the metric given to
    `step(metrics)` has not improved for more than `patience` steps, and then not again for
    `cooldown` steps. Improving is beating the best so far by `threshold`: relatively
    ('rel': below best (1 - threshold) in mode 'min', above best (1 + threshold) in mode
    'max') or absolutely ('abs'). A change of lr smaller than `eps` is not made."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float | Sequence[float] = 0,
                 eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1.0, got {factor}")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceLROnPlateau: mode must be 'min' or 'max' and "
                             f"threshold_mode 'rel' or 'abs', got {mode!r} and "
                             f"{threshold_mode!r}")
        _check_optimizer(optimizer)
        self.min_lrs = _per_group("ReduceLROnPlateau", "min_lr", optimizer, min_lr)
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        self.optimizer, self.mode, self.factor, self.patience = optimizer, mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.eps = cooldown, eps
        self.last_epoch = self.cooldown_counter = self.num_bad_epochs = 0
        self.best = math.inf if mode == "min" else -math.inf
        self._keep_last_lr()

    def _is_better(self, value: float) -> bool:
        """PyTorch's test; 'rel' scales best itself, so for a negative best the bound moves
        the other way, as there."""
        sign = 1 if self.mode == "min" else -1
        bound = self.best * (1 - sign * self.threshold) if self.threshold_mode == "rel" \
            else self.best - sign * self.threshold
        return value < bound if self.mode == "min" else value > bound

    def step(self, metrics: Any) -> None:  # type: ignore[override]
        current = float(metrics)
        self.last_epoch += 1
        if self._is_better(current):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:  # bad steps in the cooldown do not count
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._keep_last_lr()

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):  # a group was added since
            if self.default_min_lr is None:
                raise InvalidArgumentError(
                    f"ReduceLROnPlateau: the optimizer has {len(groups)} parameter groups but "
                    f"min_lrs {len(self.min_lrs)}; set min_lrs to match")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            lr = max(group["lr"] * self.factor, min_lr)
            if group["lr"] - lr > self.eps:
                _set_lr(group, lr)


def _uses_beta1(scheduler: str, optimizer: Optimizer) -> bool:
    """Whether a scheduler cycling momentum cycles Adam's beta1 (else the momentum setting);
    an optimizer with neither is refused."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(f"{scheduler}: cycle_momentum needs an optimizer with momentum or betas")
    return "betas" in optimizer.defaults


def _set_momentum(group: dict[str, Any], momentum: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """Smith's cyclical learning rate, stepped once per batch: lr climbs linearly from base_lr
    to max_lr over step_size_up steps and back down over step_size_down (step_size_up if not
    given), the climb scaled by scale_fn of the cycle number (from 1) or, with
    scale_mode='iterations', of the step count. The modes give scale_fn: 'triangular' 1,
    'triangular2' 1 / 2**(cycle - 1), 'exp_range' gamma**step. With cycle_momentum the
    momentum (or Adam's beta1) runs the other way, between max_momentum and base_momentum.
    Making it sets each group's lr to base_lr (and momentum to max_momentum)."""

    def __init__(self, optimizer: Optimizer, base_lr: float | Sequence[float],
                 max_lr: float | Sequence[float], step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
                 scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum: float | Sequence[float] = 0.8,
                 max_momentum: float | Sequence[float] = 0.9, last_epoch: int = -1) -> None:
        name = "CyclicLR"
        _check_optimizer(optimizer)
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError(f"{name}: mode must be 'triangular', 'triangular2' or 'exp_range', "
                             f"or give scale_fn; got {mode!r}")
        base_lrs = _per_group(name, "base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, base_lrs):
                _set_lr(group, lr)
        self.max_lrs = _per_group(name, "max_lr", optimizer, max_lr)
        up = float(step_size_up)
        self.total_size = up + (up if step_size_down is None else float(step_size_down))
        self.step_ratio = up / self.total_size
        self.mode, self.gamma, self.scale_fn = mode, gamma, scale_fn
        if scale_fn is None:  # the mode's own
            scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(name, optimizer)
            self.base_momentums = _per_group(name, "base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group(name, "max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for group, high, low in zip(optimizer.param_groups, self.max_momentums,
                                            self.base_momentums):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)
        # PyTorch's order: the first step (above) ran from the groups' initial_lr
        self.base_lrs = base_lrs

    def _height(self, epoch: int) -> float:
        """The fraction of the way from the low end to the high end at this step: the
        triangle's height times the scale."""
        cycle = math.floor(1 + epoch / self.total_size)
        x = 1.0 + epoch / self.total_size - cycle  # how far into this cycle, in [0, 1)
        climb = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        return climb * self._scale(cycle if self.scale_mode == "cycle" else epoch)

    def _scale(self, at: float) -> float:
        if self.scale_fn is not None:
            return self.scale_fn(at)
        if self.mode == "triangular2":
            return 1 / 2.0 ** (at - 1)
        if self.mode == "exp_range":
            return self.gamma ** at
        return 1.0

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        height = self._height(epoch)
        if self.cycle_momentum:
            high = self.max_momentums[group]
            _set_momentum(self.optimizer.param_groups[group],
                          high - (high - self.base_momentums[group]) * height, self.use_beta1)
        return base_lr + (self.max_lrs[group] - base_lr) * height

    def state_dict(self) -> dict[str, Any]:
        """As the base class's, without a scale_fn given (a function, as PyTorch leaves out)."""
        return {key: value for key, value in super().state_dict().items() if key != "scale_fn"}


class OneCycleLR(LRScheduler):
    """Smith's 1cycle policy, stepped once per batch for `total_steps` (or epochs *
    steps_per_epoch) steps: lr anneals ('cos' or 'linear') from max_lr / div_factor up to
    max_lr over the first pct_start of the steps, then down to that / final_div_factor (with
    three_phase, back to the start first, then down). With cycle_momentum the momentum (or
    Adam's beta1) runs the other way, from max_momentum to base_momentum and back. The lrs and
    momenta are kept in each group ("initial_lr", "max_lr", "min_lr", "max_momentum",
    "base_momentum"), as PyTorch keeps them."""

    def __init__(self, optimizer: Optimizer, max_lr: float | Sequence[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | Sequence[float] = 0.85,
                 max_momentum: float | Sequence[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        name = "OneCycleLR"
        _check_optimizer(optimizer)
        if total_steps is None and (epochs is None or steps_per_epoch is None):
            raise ValueError(f"{name}: give total_steps, or epochs and steps_per_epoch")
        for setting, value in (("total_steps", total_steps), ("epochs", epochs),
                               ("steps_per_epoch", steps_per_epoch)):
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ValueError(f"{name}: {setting} must be a positive int, got {value!r}")
        self.total_steps = total_steps if total_steps is not None else epochs * steps_per_epoch
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"{name}: pct_start must be a float in [0, 1], got {pct_start!r}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"{name}: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self.anneal_strategy, self.cycle_momentum = anneal_strategy, cycle_momentum
        # each phase: (last step, the group's lr and momentum keys it goes from and to)
        rise = float(pct_start * self.total_steps) - 1
        self._phases = [(rise, "initial_lr", "max_lr", "max_momentum", "base_momentum")]
        if three_phase:
            self._phases.append((2 * rise, "max_lr", "initial_lr", "base_momentum",
                                 "max_momentum"))
        self._phases.append((self.total_steps - 1, self._phases[-1][2], "min_lr",
                             self._phases[-1][4], "max_momentum"))
        max_lrs = _per_group(name, "max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, peak in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"], group["max_lr"] = peak / div_factor, peak
                group["min_lr"] = group["initial_lr"] / final_div_factor
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(name, optimizer)
            highs = _per_group(name, "max_momentum", optimizer, max_momentum)
            lows = _per_group(name, "base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, high, low in zip(optimizer.param_groups, highs, lows):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def _lr(self, lr: float, base_lr: float, epoch: int, group: int) -> float:
        if epoch > self.total_steps:
            raise ValueError(f"OneCycleLR: tried to step {epoch} times, past total_steps "
                             f"{self.total_steps}")
        settings = self.optimizer.param_groups[group]
        start = 0.0
        for index, (end, lr_from, lr_to, momentum_from, momentum_to) in enumerate(self._phases):
            if epoch <= end or index == len(self._phases) - 1:
                break
            start = end
        pct = (epoch - start) / (end - start)
        if self.cycle_momentum:
            _set_momentum(settings, self._anneal(settings[momentum_from],
                                                 settings[momentum_to], pct), self.use_beta1)
        return self._anneal(settings[lr_from], settings[lr_to], pct)


class _Composite(LRScheduler):
    """SequentialLR and ChainedScheduler: schedulers of one optimizer, stepped by this one;
    the state dict holds theirs."""

    def _keep_schedulers(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler]) -> None:
        name = type(self).__name__
        if not schedulers:
            raise ValueError(f"{name}: expects at least one scheduler")
        for index, scheduler in enumerate(schedulers):
            if isinstance(scheduler, ReduceLROnPlateau):  # its step needs a metric
                raise ValueError(f"{name}: does not support ReduceLROnPlateau (index {index})")
            if scheduler.optimizer is not optimizer:
                raise ValueError(f"{name}: expects all schedulers to belong to the same "
                                 f"optimizer, but the one at index {index} does not")
        self.optimizer = optimizer
        self._schedulers = list(schedulers)

    def state_dict(self) -> dict[str, Any]:
        state = {key: value for key, value in vars(self).items()
                 if key not in ("optimizer", "_schedulers")}
        return {**state, "_schedulers": [s.state_dict() for s in self._schedulers]}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state.pop("_schedulers")):
            scheduler.load_state_dict(saved)
        vars(self).update(state)


class SequentialLR(_Composite):
    """One scheduler after another: schedulers[i] runs from milestones[i - 1] (from 0 for the
    first), starting over from its epoch 0 there, as PyTorch's. Making it undoes the steps the
    schedulers took when they were made and sets the first one's lr of epoch 0."""

    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler],
                 milestones: Sequence[int], last_epoch: int = -1) -> None:
        self._keep_schedulers(optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"SequentialLR: expects one milestone fewer than schedulers, got "
                             f"{len(schedulers)} schedulers and {len(milestones)} milestones")
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        for group in optimizer.param_groups:
            _set_lr(group, group["initial_lr"])
        for scheduler in self._schedulers:
            scheduler.last_epoch -= 1
        first = self._schedulers[0]
        first._step_count = 0
        first.step()
        self._last_lr = first.get_last_lr()

    def step(self) -> None:
        self.last_epoch += 1
        index = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._restart()
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Several schedulers stepped together, each from the lr the one before left: their
    changes multiply (e.g. a warm-up and a decay)."""

    def __init__(self, schedulers: Sequence[LRScheduler],
                 optimizer: Optimizer | None = None) -> None:
        if optimizer is None and schedulers:
            optimizer = schedulers[0].optimizer
        self._keep_schedulers(optimizer, schedulers)
        self._keep_last_lr()

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._keep_last_lr()
