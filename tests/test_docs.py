"""The documentation runs: docs/*.md examples are doctested, the gradient table in docs/backward.md
matches the op docstrings, and the two graph tools it describes (draw_graph, trace_backward)
behave as documented.

Expected values are computed by hand or with plain numpy, never by calling minigrad again.
"""
import doctest
import io
import re
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, engine, nn, ops
from minigrad.ops import gradient_table

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
TABLES = {"primitives": ops.primitives, "kernels": ops.kernels}


def run_doctest(name):
    return doctest.testfile(str(DOCS / name), module_relative=False, optionflags=FLAGS,
                            report=True, verbose=False)


def count_prompts(text):
    return sum(1 for line in text.splitlines() if line.lstrip().startswith(">>>"))


# --------------------------------------------------------------------------------------------
# doctests of the Markdown pages
# --------------------------------------------------------------------------------------------
def test_extending_md_runs():
    result = run_doctest("extending.md")
    assert result.failed == 0, "docs/extending.md: a doctest failed (details printed above)"
    assert result.attempted > 10


def test_extending_md_leaves_minigrad_unchanged():
    """Defining Function subclasses (the page defines several) adds them to no module-level list
    or dict of minigrad's: the primitives and kernels stay what the package defines."""
    import sys

    def module_state():
        return {(name, attr): (type(value), len(value))
                for name, module in sys.modules.items() if name.startswith("minigrad")
                for attr, value in vars(module).items() if isinstance(value, (list, dict, set))
                and not attr.startswith("__")}

    before, primitives, kernels = module_state(), ops.primitives(), ops.kernels()
    assert run_doctest("extending.md").failed == 0
    assert module_state() == before
    assert ops.primitives() == primitives and ops.kernels() == kernels


def test_backward_md_runs():
    result = run_doctest("backward.md")
    assert result.failed == 0, "docs/backward.md: a doctest failed (details printed above)"
    assert result.attempted > 0


@pytest.mark.parametrize("name", ["backward.md", "extending.md"])
def test_every_prompt_is_an_example(name):
    """Every `>>>` line is picked up by doctest (none hidden by indentation or a missing blank
    line), and every fenced block holding one ends its examples with a blank line."""
    text = (DOCS / name).read_text(encoding="utf-8")
    examples = doctest.DocTestParser().get_examples(text)
    assert len(examples) == count_prompts(text) > 0
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    assert blocks
    for block in blocks:
        if ">>>" in block:
            assert block.endswith("\n\n"), f"no blank line before the closing fence:\n{block}"


# --------------------------------------------------------------------------------------------
# the gradient table
# --------------------------------------------------------------------------------------------
def embedded_table(kind):
    start, end = f"<!-- {kind}-table:start -->", f"<!-- {kind}-table:end -->"
    text = (DOCS / "backward.md").read_text(encoding="utf-8")
    assert text.count(start) == 1 and text.count(end) == 1
    inner = text.split(start, 1)[1].split(end, 1)[0]
    assert inner.startswith("\n") and inner.endswith("\n")
    return inner[1:-1]


@pytest.mark.parametrize("kind", TABLES)
def test_gradient_table_in_backward_md_is_current(kind):
    assert embedded_table(kind) == gradient_table(TABLES[kind]()), (
        f"docs/backward.md: the {kind} gradient table is out of date; paste the output of "
        "`python -m minigrad.ops` between the table markers")


@pytest.mark.parametrize("kind", TABLES)
def test_gradient_table_lists_every_op_of_its_tier(kind):
    table = embedded_table(kind)
    listed = TABLES[kind]()
    assert listed
    missing = [op.__name__ for op in listed if f"| `{op.__name__}` |" not in table]
    assert not missing, f"ops missing from the {kind} table in docs/backward.md: {missing}"
    assert len(table.splitlines()) == 2 + len(listed)  # header, separator, one row per op


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


# ---- README ----
README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_examples_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
    assert "CrossEntropy" in capsys.readouterr().out  # the draw_graph example printed the graph


def test_ci_runs_the_readme_test_command():
    quick_start = README.read_text().split("## Quick start", 1)[1].split("##", 1)[0]
    commands = [line.split("#")[0].strip() for line in quick_start.splitlines()
                if line.startswith(("pip ", "python "))]
    test_command = next(c for c in commands if "pytest" in c)
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert test_command in [line.strip() for line in ci]
