"""Test helper: every tensor in the graph behind a tensor (before backward frees it)."""
from minigrad import Tensor


def graph_tensors(root: Tensor) -> list[Tensor]:
    """`root` and every tensor it was computed from, each once, output first."""
    seen, stack, found = set(), [root], []
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        found.append(t)
        if t.grad_fn is not None:
            stack.extend(t.grad_fn.inputs)
    return found
