"""The graph tools of minigrad/graph.py: draw_graph (a text tree), to_dot (Graphviz DOT text) and
trace_backward (a log of backward, op by op).

Expected values are computed by hand or with plain numpy, never by calling minigrad again.
"""
import io
import re
import shutil
import subprocess

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, engine, nn
from tests.helpers import graph_tensors

# --------------------------------------------------------------------------------------------
# draw_graph
# --------------------------------------------------------------------------------------------
class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.fc1 = nn.Linear(3, 5, rng=rng, dtype=np.float64)
        self.fc2 = nn.Linear(5, 2, rng=rng, dtype=np.float64)

    def forward(self, x):
        h = self.fc1(x).tanh()
        return self.fc2(h * h)  # h is used twice


def drawn(tensor, module=None):
    buf = io.StringIO()
    minigrad.draw_graph(tensor, module, file=buf)
    return buf.getvalue()


@pytest.fixture
def two_layer_loss():
    model = TwoLayer()
    x = Tensor(np.arange(12.0).reshape(4, 3) / 10, name="x")
    return model, x, model(x).sum()


def test_draw_graph_shows_ops_shapes_and_parameter_names(two_layer_loss):
    model, _, loss = two_layer_loss
    text = drawn(loss, model)
    lines = text.splitlines()
    assert lines[0] == "Sum  () float64"
    for op in ["Sum", "Affine", "Mul", "Tanh"]:  # Affine: kernels are on by default
        assert re.search(rf"\b{op}  ", text), op
    for shape in ["(4, 2)", "(4, 5)", "(5, 3)", "(5,)", "(2, 5)", "(2,)", "(4, 3)"]:
        assert shape in text, shape
    names = [name for name, _ in model.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    for name in names:
        assert sum(f"─ {name}  (" in line for line in lines) == 1, name
    assert "─ x  (4, 3) float64" in text  # a leaf named by its tensor.name


def test_draw_graph_prints_a_reused_subgraph_once(two_layer_loss):
    model, _, loss = two_layer_loss
    lines = drawn(loss, model).splitlines()
    shown_above = [line for line in lines if line.endswith("(shown above)")]
    assert len(shown_above) == 1
    assert "Tanh  (4, 5) float64" in shown_above[0]
    assert sum("Tanh" in line for line in lines) == 2  # drawn once, referred to once
    assert sum("fc1.weight" in line for line in lines) == 1  # its sub-tree is not repeated


def test_draw_graph_names_unnamed_leaves_and_constants():
    a = Tensor(np.ones(2), requires_grad=True)
    lines = drawn((a * 3.0).sum()).splitlines()
    assert lines == ["Sum  () float64",
                     "└─ Mul  (2,) float64",
                     "   ├─ leaf  (2,) float64",
                     "   └─ constant  () float64"]


def test_draw_graph_after_backward(two_layer_loss):
    model, _, loss = two_layer_loss
    loss.backward(retain_graph=True)
    assert "(graph freed by backward)" not in drawn(loss, model)
    loss.backward()
    assert drawn(loss, model) == "Sum  () float64  (graph freed by backward)\n"


def test_draw_graph_writes_to_stdout_by_default(two_layer_loss, capsys):
    model, _, loss = two_layer_loss
    minigrad.draw_graph(loss, model)
    assert capsys.readouterr().out == drawn(loss, model)


def test_draw_graph_of_a_100k_op_chain():
    """No recursion, and output linear in the graph's size: deep lines keep a bounded prefix."""
    n = 100_000
    x = Tensor(np.ones(3), requires_grad=True)
    y = x
    for _ in range(n):
        y = -y
    lines = drawn(y).splitlines()
    assert len(lines) == n + 1
    assert lines[0] == "Neg  (3,) float64"
    assert all(line.endswith("Neg  (3,) float64") for line in lines[:-1])
    assert lines[-1].endswith("leaf  (3,) float64")
    assert max(len(line) for line in lines) < 200
    assert lines[-1].startswith("⋮")  # the outer levels of indentation are cut, and marked


# --------------------------------------------------------------------------------------------
# to_dot
# --------------------------------------------------------------------------------------------
HEADER = ["digraph minigrad {", "  rankdir=BT;", '  node [fontname="Helvetica", fontsize=10];']
OP_STYLE = 'shape=box, style="rounded,filled", fillcolor="#e8eef7"'
NODE = re.compile(r'  (n\d+) \[label="((?:[^"\\]|\\.)*)", (shape=box, style="rounded,filled", '
                  r'fillcolor="#e8eef7"|shape=ellipse|shape=ellipse, style=dashed)\];')
EDGE = re.compile(r"  (n\d+) -> (n\d+);")


def label_lines(label):
    r"""A DOT label's lines, unescaped: \n separates lines, \" and \\ stand for " and \."""
    lines, current, chars = [], "", iter(label)
    for c in chars:
        if c == "\\":
            c = next(chars)
            if c == "n":
                lines.append(current)
                current = ""
                continue
        current += c
    return lines + [current]


def parse_dot(text):
    """Check `text` is the DOT subset to_dot writes (header, node statements, edge statements,
    closing brace; every line matched); return {id: (label lines, kind)} and the edge list."""
    lines = text.splitlines()
    assert text.endswith("}\n") and lines[:3] == HEADER and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[3:-1]:
        node, edge = NODE.fullmatch(line), EDGE.fullmatch(line)
        assert node or edge, f"not a node or edge statement: {line!r}"
        if node:
            assert node[1] not in nodes, f"node {node[1]} declared twice"
            kind = {OP_STYLE: "op", "shape=ellipse": "leaf"}.get(node[3], "constant")
            nodes[node[1]] = (label_lines(node[2]), kind)
        else:
            edges.append((edge[1], edge[2]))
    return nodes, edges


def test_to_dot_of_a_tiny_graph_matches_hand_written_dot():
    """y = sum(w * w + 3): w is used twice, so one node with two edges into Mul. Statements may
    come in any order; ids are numbered in the order the walk from the output meets them."""
    w = Tensor(np.array([1.0, 2.0]), requires_grad=True, name="w")
    y = (w * w + 3.0).sum()
    expected = HEADER + [
        f'  n0 [label="Sum\\nscalar", {OP_STYLE}];',
        f'  n1 [label="Add\\n2", {OP_STYLE}];',
        f'  n2 [label="Mul\\n2", {OP_STYLE}];',
        '  n3 [label="constant\\nscalar", shape=ellipse, style=dashed];',
        '  n4 [label="w\\n2", shape=ellipse];',
        "  n1 -> n0;",
        "  n2 -> n1;",
        "  n3 -> n1;",
        "  n4 -> n2;",
        "  n4 -> n2;",
        "}",
    ]
    lines = minigrad.to_dot(y).splitlines()
    assert lines[:3] == expected[:3] and lines[-1] == "}"
    assert sorted(lines[3:-1]) == sorted(expected[3:-1])


def test_to_dot_has_one_node_per_tensor_and_edges_from_inputs_to_ops():
    model = TwoLayer()
    x = Tensor(np.arange(12.0).reshape(4, 3) / 10, name="x")
    with minigrad.fused(False):  # composed: more ops, and h = tanh(...) used twice
        loss = model(x).sum()
    nodes, edges = parse_dot(minigrad.to_dot(loss, model))
    tensors = graph_tensors(loss)
    assert len(nodes) == len(tensors)
    ops = [t for t in tensors if t.grad_fn is not None]
    assert len(edges) == sum(len(t.grad_fn.inputs) for t in ops)
    assert sorted(label[0] for label, kind in nodes.values() if kind == "op") == sorted(
        type(t.grad_fn).__name__ for t in ops)
    assert {a for edge in edges for a in edge} <= set(nodes)
    # edges point from an input to the op that consumed it: only ops receive edges, and the
    # output (the Sum) feeds nothing
    assert all(nodes[target][1] == "op" for _, target in edges)
    [root] = [n for n in nodes if n not in {source for source, _ in edges}]
    assert nodes[root] == (["Sum", "scalar"], "op")
    # h * h: the Tanh node sends two edges into the same Mul
    [tanh] = [n for n, (label, _) in nodes.items() if label[0] == "Tanh"]
    consumers = [target for source, target in edges if source == tanh]
    assert len(consumers) == 2 and consumers[0] == consumers[1]
    assert nodes[consumers[0]][0][0] == "Mul"


def test_to_dot_names_parameters_and_dashes_constants(two_layer_loss):
    model, _, loss = two_layer_loss
    nodes, _ = parse_dot(minigrad.to_dot(loss, model))
    leaves = sorted((label, kind) for label, kind in nodes.values() if kind != "op")
    assert leaves == [(["fc1.bias", "5"], "leaf"), (["fc1.weight", "5x3"], "leaf"),
                      (["fc2.bias", "2"], "leaf"), (["fc2.weight", "2x5"], "leaf"),
                      (["x", "4x3"], "constant")]  # x needs no grad: dashed, named by .name
    nodes, _ = parse_dot(minigrad.to_dot(loss))  # without the module: parameters are leaves
    assert sorted(label[0] for label, kind in nodes.values() if kind == "leaf") == ["leaf"] * 4


def test_to_dot_escapes_quotes_backslashes_and_newlines_in_names():
    w = Tensor(np.ones(2), requires_grad=True, name='say "hi" \\ twice\nover')
    nodes, _ = parse_dot(minigrad.to_dot(w * 2.0))
    assert (['say "hi" \\ twice', "over", "2"], "leaf") in nodes.values()


def test_to_dot_of_a_leaf_and_after_backward():
    nodes, edges = parse_dot(minigrad.to_dot(Tensor(np.zeros((2, 3)))))
    assert list(nodes.values()) == [(["constant", "2x3"], "constant")] and edges == []
    w = Tensor(np.ones(2), requires_grad=True)
    y = (w * w).sum()
    y.backward()
    nodes, edges = parse_dot(minigrad.to_dot(y))
    assert list(nodes.values()) == [(["Sum", "scalar", "(graph freed by backward)"], "op")]
    assert edges == []


def test_to_dot_of_a_deep_chain_needs_no_recursion():
    y = Tensor(np.ones(3), requires_grad=True)
    for _ in range(20_000):
        y = -y
    nodes, edges = parse_dot(minigrad.to_dot(y))
    assert len(nodes) == 20_001 and len(edges) == 20_000


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz `dot` is not installed: DOT output is not rendered")
def test_graphviz_renders_to_dot_output(two_layer_loss):
    model, _, loss = two_layer_loss
    w = Tensor(np.ones(2), requires_grad=True, name='odd "name" \\')
    for text in [minigrad.to_dot(loss, model), minigrad.to_dot(w * 2.0)]:
        result = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert "<svg" in result.stdout


# --------------------------------------------------------------------------------------------
# trace_backward
# --------------------------------------------------------------------------------------------
A = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
B = np.array([[2.0, 1.0, -1.0], [3.0, 0.0, 2.0]])


def test_trace_backward_records_a_hand_checkable_graph():
    a, b = Tensor(A.copy(), requires_grad=True), Tensor(B.copy(), requires_grad=True)
    y = (a * b).sum()
    buf = io.StringIO()
    with minigrad.trace_backward(file=buf) as records:
        y.backward()
    assert [r["op"] for r in records] == ["Sum", "Mul"]
    total, mul = records

    # Sum gets dL/dy = 1 and spreads ones over (2, 3): norm sqrt(6)
    assert total["grad_shape"] == ()
    assert total["grad_norm"] == pytest.approx(1.0)
    [(shape, norm)] = total["input_grads"]
    assert shape == (2, 3) and norm == pytest.approx(np.linalg.norm(np.ones((2, 3))))

    # Mul gets the ones; d(a*b)/da = b and d(a*b)/db = a
    assert mul["grad_shape"] == (2, 3)
    assert mul["grad_norm"] == pytest.approx(np.sqrt(6))
    (shape_a, norm_a), (shape_b, norm_b) = mul["input_grads"]
    assert shape_a == shape_b == (2, 3)
    assert norm_a == pytest.approx(np.linalg.norm(B), rel=1e-12)
    assert norm_b == pytest.approx(np.linalg.norm(A), rel=1e-12)

    lines = buf.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("Sum.backward  G () |G|=1  ->  d0 (2, 3)")
    assert lines[1].startswith("Mul.backward  G (2, 3)")
    assert f"|.|={np.linalg.norm(B):.4g}" in lines[1]
    assert f"|.|={np.linalg.norm(A):.4g}" in lines[1]


def test_trace_backward_one_record_per_op_in_execution_order():
    """h is used twice; its op (Mul) runs once, last, after both consumers (Add and Exp)."""
    a, b = Tensor(A.copy(), requires_grad=True), Tensor(B.copy(), requires_grad=True)
    h = a * b
    y = (h + (h * 0.1).exp()).sum()
    with minigrad.trace_backward(file=io.StringIO()) as records:
        y.backward()
    assert [r["op"] for r in records] == ["Sum", "Add", "Exp", "Mul", "Mul"]
    # the first Mul is h * 0.1: its constant gets no gradient
    assert records[3]["input_grads"][1] is None
    # the last record is h = a * b: its incoming G is the sum of both uses of h
    e = np.exp(A * B * 0.1)
    g_h = 1 + 0.1 * e
    assert records[4]["grad_norm"] == pytest.approx(np.linalg.norm(g_h), rel=1e-12)
    assert records[4]["input_grads"][0][1] == pytest.approx(np.linalg.norm(g_h * B), rel=1e-12)


def test_trace_backward_prints_op_names_to_stdout_by_default(capsys):
    a = Tensor(A.copy(), requires_grad=True)
    with minigrad.trace_backward():
        (a * 2.0).tanh().sum().backward()
    out = capsys.readouterr().out.splitlines()
    assert [line.split(".backward")[0] for line in out] == ["Sum", "Tanh", "Mul"]
    assert out[-1].endswith("d1 -")  # the constant 2.0 needs no gradient


def test_trace_backward_removes_its_hook(capsys):
    hooks_before = engine._switches.backward_hooks
    a = Tensor(A.copy(), requires_grad=True)
    with minigrad.trace_backward() as records:
        (a * a).sum().backward()
    assert len(records) == 2
    capsys.readouterr()
    (a * a).sum().backward()
    assert capsys.readouterr().out == ""
    assert len(records) == 2
    assert engine._switches.backward_hooks == hooks_before


def test_trace_backward_removes_its_hook_when_backward_fails(capsys):
    hooks_before = engine._switches.backward_hooks
    a = Tensor(A.copy(), requires_grad=True)
    y = (a * a).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        with minigrad.trace_backward():
            y.backward()
    assert engine._switches.backward_hooks == hooks_before
