"""See the backward pass: print the graph behind a tensor (as text or Graphviz DOT), and trace
backward op by op."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

import numpy as np

from .engine import Function, backward_hook
from .tensor import Tensor


def _describe(t: Tensor) -> str:
    return f"{t.shape} {t.dtype}"


_MAX_INDENT = 3 * 32  # characters of tree prefix (32 levels) before deeper lines are clipped


def _clip(prefix: str) -> str:
    """Keep a deep graph's output linear in its size: past _MAX_INDENT characters, keep only the
    innermost levels of the prefix, behind a `⋮  ` that marks the outer ones as cut."""
    return prefix if len(prefix) <= _MAX_INDENT else "⋮  " + prefix[3 - _MAX_INDENT:]


def draw_graph(tensor: Tensor, module: Any = None, file: TextIO | None = None) -> None:
    """Print the graph that produced `tensor` as an indented tree, output first.

    Each node shows its op (or, for a leaf, its name), output shape and dtype. Leaves are named
    by `tensor.name` or, when `module` is given, by their `module.named_parameters()` name;
    unnamed leaves that require grad show as `leaf`, others as `constant`. A sub-graph used
    twice is printed once and then referred to as `(shown above)`. Lines deeper than 32 levels
    show only their innermost levels of indentation, after a `⋮`.
    """
    file = file or sys.stdout
    names = {id(p): n for n, p in module.named_parameters()} if module is not None else {}
    shown: set[int] = set()
    # explicit stack of (tensor, prefix of its own line, prefix of its children's lines)
    stack: list[tuple[Tensor, str, str]] = [(tensor, "", "")]
    while stack:
        node, line_prefix, child_prefix = stack.pop()
        fn = node.grad_fn
        if fn is None:
            name = node.name or names.get(id(node))
            kind = name or ("leaf" if node.requires_grad else "constant")
            print(f"{line_prefix}{kind}  {_describe(node)}", file=file)
            continue
        label = f"{line_prefix}{type(fn).__name__}  {_describe(node)}"
        if id(node) in shown:
            print(f"{label}  (shown above)", file=file)
            continue
        shown.add(id(node))
        if fn.inputs is None:
            print(f"{label}  (graph freed by backward)", file=file)
            continue
        print(label, file=file)
        inputs = list(fn.inputs)
        for i in reversed(range(len(inputs))):  # reversed: the stack pops the first input first
            last = i == len(inputs) - 1
            stack.append((inputs[i], _clip(child_prefix + ("└─ " if last else "├─ ")),
                          _clip(child_prefix + ("   " if last else "│  "))))


def to_dot(tensor: Tensor, module: Any = None) -> str:
    """The graph that produced `tensor` as Graphviz DOT text (render it with
    `dot -Tsvg graph.dot -o graph.svg`; minigrad itself needs no Graphviz).

    Ops are boxes labelled with their class and output shape; leaves are ellipses named as in
    `draw_graph` (parameter names when `module` is given), constants dashed; an op whose inputs
    backward has already released says `(graph freed by backward)`. Edges point from an op's
    inputs to the op, the way the forward pass flows; backward runs them in reverse.
    """
    names = {id(p): n for n, p in module.named_parameters()} if module is not None else {}
    ids: dict[int, str] = {}

    def node_id(t: Tensor) -> str:
        return ids.setdefault(id(t), f"n{len(ids)}")

    nodes, edges, visited = [], [], set()
    stack = [tensor]
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        fn = node.grad_fn
        shape = "x".join(str(n) for n in node.shape) or "scalar"
        if fn is None:
            kind = node.name or names.get(id(node)) or (
                "leaf" if node.requires_grad else "constant")
            style = "" if node.requires_grad else ", style=dashed"
            nodes.append(f'  {node_id(node)} [label={_dot_label(kind, shape)}, '
                         f'shape=ellipse{style}];')
            continue
        lines = [type(fn).__name__, shape] + (
            ["(graph freed by backward)"] if fn.inputs is None else [])
        nodes.append(f'  {node_id(node)} [label={_dot_label(*lines)}, shape=box, '
                     f'style="rounded,filled", fillcolor="#e8eef7"];')
        for parent in fn.inputs or ():
            edges.append(f"  {node_id(parent)} -> {node_id(node)};")
            stack.append(parent)
    header = ["digraph minigrad {", "  rankdir=BT;", '  node [fontname="Helvetica", fontsize=10];']
    return "\n".join(header + nodes + edges + ["}"]) + "\n"


def _dot_label(*lines: str) -> str:
    """A quoted DOT label of one or more lines; quotes and backslashes in a tensor's name are
    escaped so that any name gives valid DOT."""
    escaped = (line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
               for line in lines)
    return '"' + "\\n".join(escaped) + '"'


def _norm(a: np.ndarray) -> float:
    return float(np.sqrt(np.vdot(a, a).real)) if a.size else 0.0


@contextmanager
def trace_backward(file: TextIO | None = None) -> Iterator[list[dict[str, Any]]]:
    """Log each op's backward as it runs: the incoming gradient's shape and L2 norm, and each
    outgoing gradient's. Yields the list of records, one dict per op, filled as backward runs.

    >>> with trace_backward() as records:
    ...     loss.backward()
    MatMul.backward  G (4, 3) |G|=1.2  ->  d0 (4, 5) |.|=0.8,  d1 (5, 3) |.|=2.1

    A norm that shrinks towards 0 from line to line is a vanishing gradient; one that grows by
    orders of magnitude is exploding.
    """
    file = file or sys.stdout
    records: list[dict[str, Any]] = []

    def hook(fn: Function, grad: np.ndarray, input_grads: tuple) -> None:
        record = {"op": type(fn).__name__, "grad_shape": grad.shape, "grad_norm": _norm(grad),
                  "input_grads": [None if g is None else (g.shape, _norm(g))
                                  for g in input_grads]}
        records.append(record)
        outs = ",  ".join("d{} -".format(i) if g is None else
                          f"d{i} {g[0]} |.|={g[1]:.4g}"
                          for i, g in enumerate(record["input_grads"]))
        print(f"{record['op']}.backward  G {grad.shape} |G|={record['grad_norm']:.4g}  ->  {outs}",
              file=file)

    with backward_hook(hook):
        yield records
