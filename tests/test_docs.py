"""The documentation matches the code: docs/*.md examples are doctested, the gradient tables in
docs/backward.md match the op docstrings, the attention-block picture is what docs/make_graph.py
draws today, docs/api.md lists what the package exports with true tiers, and the README's
examples run. (The graph tools themselves: tests/test_graph.py.)
"""
import ast
import doctest
import importlib.util
import inspect
import re
import textwrap
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

import pytest

import minigrad
from minigrad import Tensor, functional, nn, ops, special
from minigrad.ops import gradient_table
from tests.helpers import assert_stops_quietly_when_its_reader_is_gone

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


def test_gradient_tables_piped_into_a_reader_that_is_gone_stop_quietly():
    assert_stops_quietly_when_its_reader_is_gone("minigrad.ops")


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


# --------------------------------------------------------------------------------------------
# docs/api.md: every exported op, layer and name in a table, with true tier claims
# --------------------------------------------------------------------------------------------
API_MD = DOCS / "api.md"
# how docs/api.md writes the Tensor operators, and the dunder methods behind each
OPERATORS = {
    "x + y": ("__add__", "__radd__"), "x - y": ("__sub__", "__rsub__"),
    "x * y": ("__mul__", "__rmul__"), "x / y": ("__truediv__", "__rtruediv__"),
    "x // y": ("__floordiv__", "__rfloordiv__"), "x % y": ("__mod__", "__rmod__"),
    "x ** y": ("__pow__", "__rpow__"), "x @ y": ("__matmul__", "__rmatmul__"),
    "-x": ("__neg__",), "abs(x)": ("__abs__",), "x == y": ("__eq__",), "x != y": ("__ne__",),
    "x < y": ("__lt__",), "x <= y": ("__le__",), "x > y": ("__gt__",), "x >= y": ("__ge__",),
    "x & y": ("__and__", "__rand__"), "x | y": ("__or__", "__ror__"),
    "x ^ y": ("__xor__", "__rxor__"), "~x": ("__invert__",),
    "x << y": ("__lshift__", "__rlshift__"), "x >> y": ("__rshift__", "__rrshift__"),
    "x[index]": ("__getitem__",),
    "v in x": ("__contains__",), "len(x)": ("__len__",), "bool(x)": ("__bool__",),
    "iter(x)": ("__iter__",), "x += y": ("__iadd__",), "x -= y": ("__isub__",),
    "x *= y": ("__imul__",), "x /= y": ("__itruediv__",), "x //= y": ("__ifloordiv__",),
    "x %= y": ("__imod__",), "x **= y": ("__ipow__",), "x &= y": ("__iand__",),
    "x |= y": ("__ior__",), "x ^= y": ("__ixor__",), "x <<= y": ("__ilshift__",),
    "x >>= y": ("__irshift__",), "np.asarray(x)": ("__array__",),
    "np.exp(x)": ("__array_ufunc__",), "np.sum(x)": ("__array_function__",),
    "x[index] = value": ("__setitem__",),
    "float(x)": ("__float__",), "int(x)": ("__int__",), "operator.index(x)": ("__index__",),
}
# Tensor's dunder methods that are not ops: making, printing and hashing a tensor
NOT_OPERATORS = {"__init__", "__repr__", "__str__", "__hash__"}
OP_TABLE_HEADER = ["minigrad", "PyTorch", "tier", "gradient"]


def markdown_tables(text):
    """Each table of a Markdown page as (header cells, rows of cells), with `\\|` unescaped."""
    tables, lines = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            lines.append(line)
        elif lines:
            header, _, *rows = [[cell.strip().replace("\\|", "|")
                                 for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in lines]
            tables.append((header, rows))
            lines = []
    return tables


def api_tables():
    """The tables of docs/api.md that list minigrad's names (first column "minigrad"), without
    the rows that only name a family (a bold first cell and nothing else)."""
    tables = [(header, [row for row in rows if any(row[1:])])
              for header, rows in markdown_tables(API_MD.read_text(encoding="utf-8"))
              if header[0] == "minigrad"]
    assert tables
    for header, rows in tables:
        for row in rows:
            assert len(row) == len(header), f"docs/api.md: a row with {len(row)} cells: {row}"
    return tables


def listed_names(cell):
    """The names a first-column cell lists, as (namespace, name): ("Tensor", "sum") for
    `x.sum()`, ("minigrad", "cat"), ("F", "relu"), ("special", "expit"), ("nn", "Linear"), and
    the dunders of an operator (`x + y`)."""
    names = []
    for span in re.findall(r"`([^`]+)`", cell):
        match = re.fullmatch(r"(x|minigrad|F|nn|special)\.(\w+)(\(\))?", span)
        if span in OPERATORS:
            names += [("Tensor", dunder) for dunder in OPERATORS[span]]
        elif match and match[1] == "x":
            is_method = callable(getattr(Tensor, match[2], None))
            assert is_method == bool(match[3]), (
                f"docs/api.md: `{span}`: Tensor.{match[2]} is "
                + (f"a method: write `x.{match[2]}()`" if is_method
                   else f"not a method: write `x.{match[2]}`"))
            names.append(("Tensor", match[2]))
        elif match:
            names.append((match[1], match[2]))
        else:
            raise AssertionError(f"docs/api.md: cannot read `{span}` as a minigrad name: write "
                                 f"x.method(), x.attribute, minigrad.name, F.name, "
                                 f"special.name, nn.Name or an operator of tests/test_docs.py's "
                                 f"OPERATORS")
    return names


def exported_names():
    """What the package offers, by introspection: minigrad.__all__ (its submodules aside), the
    Tensor's public attributes and operators, minigrad.functional's functions (its __all__ if
    it gets one, else those defined in it), minigrad.special's __all__ and the layers of
    minigrad.nn."""
    tensor = vars(Tensor)
    functions = getattr(functional, "__all__", None) or [
        name for name, value in vars(functional).items()
        if inspect.isfunction(value) and value.__module__ == functional.__name__]
    return (
        {("minigrad", name) for name in minigrad.__all__
         if not inspect.ismodule(getattr(minigrad, name))}
        | {("Tensor", name) for name in dir(Tensor) if not name.startswith("_")}
        | {("Tensor", name) for name, value in tensor.items()
           if name.startswith("__") and callable(value) and name not in NOT_OPERATORS}
        | {("F", name) for name in functions if not name.startswith("_")}
        | {("special", name) for name in special.__all__}
        | {("nn", name) for name, value in vars(nn).items()
           if inspect.isclass(value) and value.__module__ == nn.modules.__name__
           and not name.startswith("_")})


def spelled(name):
    """A listed or exported name as docs/api.md would write it."""
    namespace, attr = name
    if namespace != "Tensor":
        return f"{namespace}.{attr}"
    operator = [syntax for syntax, dunders in OPERATORS.items() if attr in dunders]
    return operator[0] if operator else f"x.{attr}()" if callable(getattr(Tensor, attr, None)) \
        else f"x.{attr}"


def python_object(name):
    namespace, attr = name
    if namespace == "Tensor":
        return vars(Tensor).get(attr)
    return getattr({"minigrad": minigrad, "F": functional, "nn": nn, "special": special}[namespace],
                   attr, None)


def test_api_md_lists_every_exported_name_once():
    listed = Counter(name for _, rows in api_tables() for row in rows
                     for name in listed_names(row[0]))
    exported = exported_names()
    missing = sorted(map(spelled, exported - set(listed)))
    absent = sorted(map(spelled, set(listed) - exported))
    twice = sorted(spelled(name) for name, count in listed.items() if count > 1)
    assert not missing, f"docs/api.md lacks rows for what the package exports: {missing}"
    assert not absent, f"docs/api.md lists names the package does not export: {absent}"
    assert not twice, f"docs/api.md lists these names in more than one row: {twice}"


def used_ops(fn):
    """The primitives and kernels that fn's own source names (`ops.X`, `kernels.K`), and the
    minigrad functions, Tensor methods and Tensor operators it calls (or may call: the source
    does not say whether `x.sum()` is a Tensor's or a numpy array's)."""
    fn = getattr(fn, "fget", fn)  # a property: its getter
    if not inspect.isfunction(fn) or not fn.__module__.startswith("minigrad"):
        return set(), []
    methods = vars(Tensor)
    binary = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
              ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul"}
    names, callees = set(), []
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(fn)))):
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in ("ops", "kernels"):
                names.add(node.attr)  # ops.Max.apply(...), or ops.Max handed on
            callees.append(methods.get(node.attr))  # x.sum(...), x.T
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callees.append(fn.__globals__.get(node.func.id))  # softmax(...), cat(...)
        elif isinstance(node, ast.BinOp) and type(node.op) in binary:
            name = binary[type(node.op)]
            callees += [methods[f"__{name}__"], methods[f"__r{name}__"]]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            callees.append(methods["__neg__"])
        elif isinstance(node, ast.Subscript):
            callees.append(methods["__getitem__"])
    return names, [callee for callee in callees if callee is not None]


def reached_ops(functions):
    """The primitives and kernels that `functions` name or reach through what they call: an
    over-approximation, so an op missing here is one the functions never apply."""
    found, seen, todo = set(), set(), list(functions)
    while todo:
        fn = todo.pop()
        if fn not in seen:
            seen.add(fn)
            names, callees = used_ops(fn)
            found |= names
            todo += callees
    return found


def op_rows():
    """The rows of docs/api.md's op table, each with the Python objects its first cell names."""
    [rows] = [rows for header, rows in api_tables() if header == OP_TABLE_HEADER]
    return [(row, [python_object(name) for name in listed_names(row[0])]) for row in rows]


def test_api_md_tiers_name_real_ops():
    """Every op class the op table names (`X`, `X.backward`) is a primitive or a kernel of
    minigrad's, each in the tier the row says; each tier is one the page explains."""
    primitives = {op.__name__ for op in ops.primitives()}
    kernels = {op.__name__ for op in ops.kernels()}
    for row, _ in op_rows():
        first, _, tier, gradient = row
        assert tier.startswith(("primitive `", "composition", "outside the graph")), (
            f"docs/api.md: {first}: tier {tier!r} is none of primitive `X`, composition, "
            f"composition; kernel `K`, outside the graph")
        named = re.findall(r"`([A-Z]\w*)(?:\.backward)?`", tier + gradient)
        unknown = [name for name in named if name not in primitives | kernels]
        assert not unknown, f"docs/api.md: {first} names ops minigrad lacks: {unknown}"
        claimed = re.findall(r"`(\w+)`", tier.split("kernel", 1)[1]) if "kernel" in tier else []
        assert set(claimed) <= kernels, f"docs/api.md: {first}: {claimed} are not all kernels"
        primitive = re.match(r"primitive `(\w+)`", tier)
        assert primitive is None or primitive[1] in primitives, (
            f"docs/api.md: {first}: {primitive[1]} is not a primitive")


def test_api_md_tiers_match_the_code():
    """A row's primitive and kernels are ones its functions can reach (read from their
    source), and every kernel a function dispatches to itself is named in its row."""
    kernels = {op.__name__ for op in ops.kernels()}
    for row, objects in op_rows():
        first, _, tier, _ = row
        reached = reached_ops(objects)
        dispatched = set().union(*(used_ops(fn)[0] for fn in objects)) & kernels
        claimed = set(re.findall(r"`(\w+)`", tier.split("kernel", 1)[1])) if "kernel" in tier \
            else set()
        assert dispatched <= claimed <= reached, (
            f"docs/api.md: {first}: its tier names the kernels {sorted(claimed)}; it "
            f"dispatches to {sorted(dispatched)} and can reach {sorted(reached & kernels)}")
        primitive = re.match(r"primitive `(\w+)`", tier)
        assert primitive is None or primitive[1] in reached, (
            f"docs/api.md: {first} is said to be primitive {primitive[1]}, which its code "
            f"never applies")


def test_api_md_pytorch_names_exist():
    """Every PyTorch name in the tables (`torch.x`, `Tensor.x`, `F.x` for torch.nn.functional,
    `nn.X` for torch.nn) is one PyTorch has."""
    torch = pytest.importorskip("torch", reason="PyTorch not installed: the PyTorch names in "
                                                "docs/api.md are not checked")
    roots = {"Tensor": torch.Tensor, "F": torch.nn.functional, "nn": torch.nn}
    wrong = []
    for _, rows in api_tables():
        for row in rows:
            for name in re.findall(r"`((?:torch|Tensor|F|nn)\.[\w.]+)`", row[1]):
                root, *path = name.split(".")
                obj = roots.get(root)
                if obj is None:  # torch.x.y: the longest prefix that is a module, then attributes
                    for end in range(len(path), -1, -1):
                        try:
                            obj = importlib.import_module(".".join(["torch", *path[:end]]))
                        except ImportError:
                            continue
                        path = path[end:]
                        break
                try:
                    for attr in path:
                        obj = getattr(obj, attr)
                except AttributeError:
                    wrong.append(name)
    assert not wrong, f"docs/api.md names PyTorch functions that do not exist: {wrong}"


def test_api_md_optimizer_table_names_what_exists():
    """The optimizers, schedules and init functions the table lists exist under those names
    (`optim.X`, `optim.lr_scheduler.X`, `nn.init.X`; a bare name continues the cell's first
    namespace; `opt.method()` is a method of optimizers)."""
    tables = [rows for header, rows in markdown_tables(API_MD.read_text(encoding="utf-8"))
              if header[0] == "minigrad.optim"]
    assert len(tables) == 1
    roots = {"optim": minigrad.optim, "nn": minigrad.nn, "opt": minigrad.optim.Optimizer}
    for row in tables[0]:
        owner = None
        for span in re.findall(r"`([^`]+)`", row[0]):
            *namespace, name = span.removesuffix("()").split(".")
            if namespace:
                owner = roots[namespace[0]]
                for part in namespace[1:]:
                    owner = getattr(owner, part)
            assert hasattr(owner, name), f"docs/api.md: `{span}` does not exist"


def test_api_md_linalg_table_lists_minigrad_linalg_once_with_real_primitives():
    """The `minigrad.linalg` table has one row per name of `linalg.__all__`, nothing more, and
    every op class its tier and gradient columns name is a primitive of minigrad's."""
    [rows] = [rows for header, rows in markdown_tables(API_MD.read_text(encoding="utf-8"))
              if header[0] == "minigrad.linalg"]
    listed = [span.removeprefix("linalg.") for row in rows
              for span in re.findall(r"`(linalg\.\w+)`", row[0])]
    assert sorted(listed) == sorted(minigrad.linalg.__all__)
    primitives = {op.__name__ for op in ops.primitives()}
    for row in rows:
        named = set(re.findall(r"`([A-Z]\w*)(?:\.backward)?`", row[2] + row[3]))
        assert named <= primitives, f"docs/api.md: {row[0]} names {named - primitives}"


# --------------------------------------------------------------------------------------------
# type hints on the public API
# --------------------------------------------------------------------------------------------
def _public_callables():
    """(name, function) for every public function of minigrad, minigrad.functional,
    minigrad.special and minigrad.linalg, every public Tensor method, and the __init__, forward
    and step of every public class of minigrad.nn and minigrad.optim."""
    for module, prefix in ((minigrad, "minigrad"), (functional, "F"), (special, "special"),
                           (minigrad.linalg, "linalg")):
        for name in dir(module):
            value = getattr(module, name)
            if not name.startswith("_") and inspect.isfunction(value) and \
                    value.__module__.startswith("minigrad"):
                yield f"{prefix}.{name}", value
    for name, value in vars(Tensor).items():
        if not name.startswith("_") and inspect.isfunction(value):
            yield f"Tensor.{name}", value
    for module in (nn, minigrad.optim):
        for name in dir(module):
            cls = getattr(module, name)
            if name.startswith("_") or not inspect.isclass(cls) or \
                    not cls.__module__.startswith("minigrad"):
                continue
            for method in ("__init__", "forward", "step"):
                if inspect.isfunction(cls.__dict__.get(method)):
                    yield f"{module.__name__}.{name}.{method}", cls.__dict__[method]


def test_the_public_api_has_type_hints():
    """Every parameter but self/cls and *args/**kwargs annotated, and every return but
    __init__'s."""
    unannotated = []
    for name, function in _public_callables():
        signature = inspect.signature(function)
        bare = [p.name for p in signature.parameters.values()
                if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if not name.endswith("__init__") and \
                signature.return_annotation is inspect.Signature.empty:
            bare.append("return")
        if bare:
            unannotated.append(f"{name}: {', '.join(bare)}")
    assert not unannotated, "\n".join(unannotated)


def test_api_md_autograd_table_lists_minigrad_autograd():
    """The `minigrad.autograd` table names what minigrad.autograd exports, and all of it
    (`functional.X` names minigrad.autograd.functional's)."""
    [rows] = [rows for header, rows in markdown_tables(API_MD.read_text(encoding="utf-8"))
              if header[0] == "minigrad.autograd"]
    listed = [span for row in rows for span in re.findall(r"`([\w.]+)`", row[0])]
    for span in listed:
        owner = minigrad.autograd
        for part in span.split("."):
            owner = getattr(owner, part)
    expected = set(minigrad.autograd.__all__) - {"functional"} | {
        f"functional.{name}" for name in minigrad.autograd.functional.__all__}
    assert sorted(listed) == sorted(expected)


def test_api_md_data_table_lists_minigrad_utils_data():
    [rows] = [rows for header, rows in markdown_tables(API_MD.read_text(encoding="utf-8"))
              if header[0] == "minigrad.utils.data"]
    listed = [span for row in rows for span in re.findall(r"`(\w+)`", row[0])]
    assert sorted(listed) == sorted(minigrad.utils.data.__all__)
