"""Learning-rate schedules: torch.optim.lr_scheduler's, as `minigrad.optim.lr_scheduler`.

    opt = optim.SGD(model.parameters(), lr=0.1)
    schedule = optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(100):
        train(...)          # opt.step() inside
        schedule.step()     # then the schedule, once per epoch (or per step)

Each scheduler sets every parameter group's "lr" from the lr the group had when the scheduler
was made (`base_lrs`, also kept in the group as "initial_lr") and the count of `step()` calls
(`last_epoch`), by the closed form of PyTorch's schedule. Making one sets the lr of epoch 0.
"""
from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    from .optim import Optimizer

__all__ = ["CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR",
           "MultiStepLR", "StepLR"]


class LRScheduler:
    """The base class: `step()` advances `last_epoch` and sets each group's lr to
    `lr_at(base_lr, last_epoch)`, which subclasses define."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        elif any("initial_lr" not in group for group in optimizer.param_groups):
            raise KeyError(f"{type(self).__name__}: resuming with last_epoch={last_epoch} needs "
                           f"'initial_lr' in every parameter group (made by a scheduler with "
                           f"last_epoch=-1)")
        self.optimizer = optimizer
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def lr_at(self, base_lr: float, epoch: int, group: int) -> float:
        raise NotImplementedError

    def step(self) -> None:
        self.last_epoch += 1
        for index, (group, base_lr) in enumerate(zip(self.optimizer.param_groups, self.base_lrs)):
            group["lr"] = self.lr_at(base_lr, self.last_epoch, index)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        """The lr of each group set by the last `step()`."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's settings and progress (everything but the optimizer and functions)."""
        return {key: value for key, value in vars(self).items()
                if key not in ("optimizer", "lr_lambdas")}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        vars(self).update(state)


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(epoch): one function, or one per parameter group."""

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        groups = len(optimizer.param_groups)
        if callable(lr_lambda):
            self.lr_lambdas = [lr_lambda] * groups
        else:
            self.lr_lambdas = list(lr_lambda)
            if len(self.lr_lambdas) != groups:
                raise ValueError(f"LambdaLR: expected {groups} lr_lambdas, got "
                                 f"{len(self.lr_lambdas)}")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int, group: int) -> float:
        return base_lr * self.lr_lambdas[group](epoch)


class StepLR(LRScheduler):
    """lr = base_lr * gamma ** (epoch // step_size): decays by gamma every step_size epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int, group: int) -> float:
        return base_lr * self.gamma ** (epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """lr = base_lr * gamma ** (the number of milestones reached): decays by gamma at each."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int, group: int) -> float:
        return base_lr * self.gamma ** bisect.bisect_right(self.milestones, epoch)


class ExponentialLR(LRScheduler):
    """lr = base_lr * gamma ** epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int, group: int) -> float:
        return base_lr * self.gamma ** epoch


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2 (Loshchilov & Hutter,
    without restarts): from base_lr down to eta_min at epoch T_max, and back up after it."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int, group: int) -> float:
        cosine = (1 + math.cos(math.pi * epoch / self.T_max)) / 2
        return self.eta_min + (base_lr - self.eta_min) * cosine


class LinearLR(LRScheduler):
    """lr = base_lr * factor, the factor going linearly from start_factor at epoch 0 to
    end_factor at epoch total_iters, and staying there (a warm-up, by default)."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError("LinearLR: start_factor must be in (0, 1] and end_factor in [0, 1], "
                             f"got {start_factor} and {end_factor}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int, group: int) -> float:
        progress = min(epoch, self.total_iters) / self.total_iters
        return base_lr * (self.start_factor + (self.end_factor - self.start_factor) * progress)
