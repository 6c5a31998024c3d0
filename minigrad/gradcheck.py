"""Check analytic gradients against central finite differences: the way to trust a new op."""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from .engine import grad
from .tensor import Tensor


class GradcheckError(RuntimeError, AssertionError):
    """An analytic gradient disagreed with the finite-difference estimate, or a value it needs
    (an input, the output, a gradient) is NaN or inf, where no comparison can be trusted. A
    RuntimeError as PyTorch's, and the AssertionError it was before."""


def gradcheck(fn: Callable[..., Tensor], inputs: Tensor | Iterable[Tensor], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, seed: int = 0, *,
              raise_exception: bool = True) -> bool:
    """Check `fn(*inputs)`'s backward against central differences, for every entry of every input
    that requires grad.

    The output is projected on a random upstream gradient u (seeded), so the scalar checked is
    f = sum(fn(*inputs) * u): a plain `.sum()` would hide gradients that are transposed or
    permuted. Each entry x_j is nudged in place, numeric_j = (f(x_j + eps) - f(x_j - eps)) / 2eps,
    and must satisfy |analytic_j - numeric_j| <= atol + rtol * |numeric_j|.

    Inputs that require grad must be float64 (float32 differences are too coarse to compare);
    `fn` may also use them through closures (e.g. a module's parameters), since entries are
    perturbed in place and restored.

    Returns True, or raises GradcheckError naming the input, the worst entry, and both values,
    or which values are not finite: NaN and inf compare false to everything, so with them in the
    inputs, the output or a gradient a wrong backward could otherwise pass. With
    `raise_exception=False` it returns False instead, as PyTorch's.
    """
    try:
        return _check(fn, inputs, eps, atol, rtol, seed)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _check(fn: Callable[..., Tensor], inputs: Tensor | Iterable[Tensor], eps: float,
           atol: float, rtol: float, seed: int) -> bool:
    # one tensor is the one input, as in PyTorch (iterating it would split it into its rows);
    # a tuple, since inputs are read more than once and a generator would run dry
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    checked = [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input requires grad; create them with requires_grad=True")
    for i, t in checked:
        if t.dtype != np.float64:
            raise TypeError(f"gradcheck: input {_label(i, t)} is {t.dtype}; use float64 inputs "
                            f"(e.g. Tensor(x, dtype=np.float64, requires_grad=True))")
        if not t.data.flags.c_contiguous:
            t.data = np.ascontiguousarray(t.data)  # so the flat view below writes into it
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor):
            _require_finite(t.data, f"input {_label(i, t)}")

    out = fn(*inputs)
    if not isinstance(out, Tensor):
        raise TypeError(f"gradcheck: fn must return a Tensor, got {type(out).__name__}")
    _require_finite(out.data, "the output of fn")
    upstream = np.random.default_rng(seed).standard_normal(out.shape)

    # minigrad.grad, not backward: no .grad is touched, and non-leaf inputs get theirs too
    grads = grad(out, [t for _, t in checked], upstream, allow_unused=True)
    analytic = [np.zeros_like(t.data) if g is None else g.data
                for (_, t), g in zip(checked, grads)]

    def projected() -> float:
        return float(np.sum(fn(*inputs).data * upstream))

    for (i, t), a_grad in zip(checked, analytic):
        numeric = np.zeros_like(t.data)
        flat = t.data.reshape(-1)  # a view: writing to it perturbs the input in place
        for j in range(flat.size):
            original = flat[j]
            flat[j] = original + eps
            plus = projected()
            flat[j] = original - eps
            minus = projected()
            flat[j] = original
            numeric.flat[j] = (plus - minus) / (2 * eps)
        _require_finite(a_grad, f"the analytic gradient of input {_label(i, t)}")
        _require_finite(numeric, f"the numeric gradient of input {_label(i, t)} (fn is not "
                                 f"finite within eps={eps} of it)")
        error = np.abs(a_grad - numeric) - (atol + rtol * np.abs(numeric))
        if np.any(error > 0):
            worst = np.unravel_index(np.argmax(error), t.shape)
            raise GradcheckError(
                f"gradcheck: gradient of input {_label(i, t)} (shape {t.shape}) is wrong at "
                f"index {tuple(int(k) for k in worst)}: analytic {a_grad[worst]:.8g}, numeric "
                f"{numeric[worst]:.8g} (atol={atol}, rtol={rtol}); "
                f"{int(np.sum(error > 0))} of {t.numel()} entries disagree")
    return True


def _require_finite(values: np.ndarray, what: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        first = tuple(int(k) for k in np.argwhere(bad)[0])
        raise GradcheckError(f"gradcheck: {what} holds {int(bad.sum())} non-finite value(s), the "
                             f"first {values[first]} at index {first}; gradients can only be "
                             f"checked where every value is finite")


def _label(index: int, tensor: Tensor) -> str:
    return f"{index} ({tensor.name!r})" if tensor.name else str(index)
