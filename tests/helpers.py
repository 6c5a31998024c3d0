"""Test helpers: float64 leaves for gradcheck, the ops in the graph behind a tensor, and the
cross-check of exception classes against PyTorch."""
import contextlib
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad import Tensor

rng = np.random.default_rng(1234)
TORCH_REASON = ("PyTorch not installed: the cross-checks against it are skipped (pip install "
                "-e '.[compare]' installs it)")


def torch_or_skip():
    """The torch module, or a skip of the calling test that says why."""
    return pytest.importorskip("torch", reason=TORCH_REASON)


def leaf(*shape, low=None, high=None, away_from=None):
    """A float64 leaf requiring grad; `away_from` keeps entries >= 0.1 from that kink."""
    if low is not None:
        data = rng.uniform(low, high, size=shape)
    else:
        data = rng.standard_normal(shape)
    if away_from is not None:
        data = np.where(np.abs(data - away_from) < 0.1, away_from + 0.5, data)
    return Tensor(data, requires_grad=True)


def distinct(*shape):
    """Entries spaced well apart, so max has no ties and finite differences stay off the kink."""
    data = rng.permutation(np.prod(shape)).reshape(shape) * 0.1 + rng.uniform(0, 0.01, shape)
    return Tensor(data, requires_grad=True)


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


def op_types(root: Tensor) -> set[type]:
    """The op classes in the graph behind `root`."""
    return {type(t.grad_fn) for t in graph_tensors(root) if t.grad_fn is not None}


def assert_keeps_float32(fn, inputs: list[Tensor]) -> None:
    """fn(*inputs) of float32 leaves is float32, and every op's backward returns float32
    gradients (seen before the engine casts them to their input's dtype)."""
    returned = []
    with minigrad.backward_hook(lambda op, g, grads: returned.append((g, grads))):
        out = fn(*inputs)
        assert out.dtype == np.float32
        out.backward(np.ones(out.shape, dtype=np.float32))
    assert returned
    for g, grads in returned:
        assert g.dtype == np.float32
        # not `d in (None, np.float32)`: a float64 dtype compares equal to None
        assert all(x is None or x.dtype == np.float32 for x in grads)
    assert all(t.grad is None or t.grad.dtype == np.float32 for t in inputs)


@contextlib.contextmanager
def default_dtype(name: str, torch=None):
    """minigrad's default dtype (and torch's, when given) set to the dtype `name` inside the
    block and put back after it, whatever happens there: the default is process-wide, and a
    float64 one leaked into the tests that follow would change their dtypes silently."""
    libraries = [lib for lib in (minigrad, torch) if lib is not None]
    before = [lib.get_default_dtype() for lib in libraries]
    try:
        for lib in libraries:
            lib.set_default_dtype(getattr(lib, name))
        yield
    finally:
        for lib, dtype in zip(libraries, before):
            lib.set_default_dtype(dtype)


def assert_raises_like_torch(misuse) -> None:
    """`misuse(lib, F)` misuses an op, with `lib` minigrad or torch and `F` its functional
    module; minigrad must raise an instance of the class PyTorch raises. PyTorch's
    NotImplementedError for a dtype it has no kernel for ("... not implemented for 'Float'")
    counts as its base, RuntimeError: minigrad's error there is a RuntimeError and a TypeError."""
    torch = torch_or_skip()
    import torch.nn.functional as torch_F
    with pytest.raises(Exception) as expected:
        misuse(torch, torch_F)
    cls = expected.type
    if cls is NotImplementedError and "not implemented for '" in str(expected.value):
        cls = RuntimeError
    with pytest.raises(cls):
        misuse(minigrad, minigrad.functional)


def runs_in_a_fresh_interpreter(code: str) -> None:
    """`code` run by a new Python (so no import made by the tests helps it), without error."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def assert_stops_quietly_when_its_reader_is_gone(*args: str) -> None:
    """`python -m ARGS | head` whose reader is gone before it writes: SIGPIPE stops it, as any
    Unix tool, with no BrokenPipeError traceback."""
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=Path(__file__).parents[1],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    assert process.wait(timeout=120) == -signal.SIGPIPE
    assert process.stderr.read() == b""
