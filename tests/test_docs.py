"""The documentation matches the code: docs/*.md examples are doctested, the gradient tables in
docs/backward.md match the op docstrings, the attention-block picture is what docs/make_graph.py
draws today, and the README's examples run. (The graph tools themselves: tests/test_graph.py.)
"""
import doctest
import importlib.util
import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

import pytest

from minigrad import ops
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
# the attention block picture (docs/attention_block.dot and .svg, made by docs/make_graph.py)
# --------------------------------------------------------------------------------------------
def dot_nodes_and_edges(text):
    """{id: label lines} and a Counter of (source, target) edges of to_dot's output."""
    nodes = {node: label.split("\\n")
             for node, label in re.findall(r'^  (n\d+) \[label="([^"\\]*(?:\\n[^"\\]*)*)"',
                                           text, re.M)}
    return nodes, Counter(re.findall(r"^  (n\d+) -> (n\d+);$", text, re.M))


def test_attention_block_dot_is_what_make_graph_builds_now():
    spec = importlib.util.spec_from_file_location("make_graph", DOCS / "make_graph.py")
    make_graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_graph)
    committed = (DOCS / "attention_block.dot").read_text(encoding="utf-8")
    assert committed == make_graph.attention_block_dot(), (
        "docs/attention_block.dot is out of date: run `python docs/make_graph.py`")
    nodes, _ = dot_nodes_and_edges(committed)
    ops_drawn = {label[0] for label in nodes.values()} & {op.__name__ for op in ops.kernels()}
    assert not ops_drawn, "the picture should show the composed path, not kernels"


def test_attention_block_svg_draws_the_committed_dot():
    """Graphviz titles each node and edge of its SVG with the DOT ids, so the SVG can be checked
    against the .dot without Graphviz: the same nodes with the same labels, the same edges."""
    nodes, edges = dot_nodes_and_edges((DOCS / "attention_block.dot").read_text(encoding="utf-8"))
    svg = ElementTree.parse(DOCS / "attention_block.svg").getroot()
    ns = {"svg": "http://www.w3.org/2000/svg"}
    drawn_nodes, drawn_edges = {}, Counter()
    for group in svg.iterfind(".//svg:g", ns):
        title = group.findtext("svg:title", namespaces=ns)
        if group.get("class") == "node":
            drawn_nodes[title] = [t.text for t in group.iterfind("svg:text", ns)]
        elif group.get("class") == "edge":
            drawn_edges[tuple(title.split("->"))] += 1
    assert len(nodes) > 20 and drawn_nodes == nodes
    assert drawn_edges == edges


def test_backward_md_shows_the_attention_block_picture():
    text = (DOCS / "backward.md").read_text(encoding="utf-8")
    assert re.search(r"!\[[^\]]+\]\(attention_block\.svg\)", text)
    assert "python docs/make_graph.py" in text


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
