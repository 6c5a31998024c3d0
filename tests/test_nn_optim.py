"""Modules, layers, optimizers, gradient clipping and the learning-rate schedule.

Every expected value is computed here, independently, in plain numpy float64 from the formulas
(or, when torch is installed, by torch.optim on the same data)."""
import inspect
import math
import types
from collections import OrderedDict

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, nn, optim
from minigrad.optim import SGD, AdamW, clip_grad_norm_, cosine_lr
from models.gpt import GPT, GPTConfig
from tests.helpers import (assert_raises_like_torch, default_dtype,
                           runs_in_a_fresh_interpreter, torch_or_skip)


# ----------------------------------------------------------------------------------------------
# Module
# ----------------------------------------------------------------------------------------------
class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(np.ones((2, 3)))
        self.b = nn.Parameter(np.zeros(3))
        self.note = "not a parameter"
        self.plain = Tensor(np.ones(3), requires_grad=True)  # a Tensor, not a Parameter

    def forward(self, x):
        return x @ self.w + self.b


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Inner()
        self.layers = nn.ModuleList([Inner(), Inner()])
        self.scale = nn.Parameter(np.array([2.0]))
        self.drop = nn.Dropout(0.5, rng=np.random.default_rng(0))

    def forward(self, x):
        return self.first(x)


def test_parameters_and_submodules_register():
    m = Outer()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["scale", "first.w", "first.b", "layers.0.w", "layers.0.b",
                     "layers.1.w", "layers.1.b"]
    assert len(list(m.parameters())) == 7
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    assert m.num_parameters() == 1 + 3 * (6 + 3)
    module_names = [n for n, _ in m.named_modules()]
    assert module_names == ["", "first", "layers", "layers.0", "layers.1", "drop"]
    assert len(m.layers) == 2 and m.layers[1] is list(m.layers)[1]


def test_parameters_and_buffers_are_generators_as_torch():
    # PyTorch's idiom `next(model.parameters())` (the first parameter, e.g. for its dtype)
    m = Outer()
    assert next(m.parameters()) is m.scale
    assert isinstance(m.parameters(), types.GeneratorType)
    assert isinstance(m.buffers(), types.GeneratorType)


def test_reassigning_an_attribute_unregisters_it():
    m = Inner()
    m.w = None
    assert [n for n, _ in m.named_parameters()] == ["b"]
    m.b = Inner()  # a parameter slot replaced by a module
    assert [n for n, _ in m.named_parameters()] == ["b.w", "b.b"]


def _assigned_none(nn_module, ones):
    layer = nn_module.Linear(2, 3)
    layer.bias = None  # stays registered, as an absent parameter
    without = list(layer.state_dict()), repr(layer)
    layer.bias = nn_module.Parameter(ones(3))  # back in its place
    model = nn_module.Sequential(nn_module.ReLU(), nn_module.Tanh())
    model[0] = nn_module.Sigmoid()
    setattr(model, "1", None)
    return (without, list(layer.state_dict()), [n for n, _ in model.named_modules()],
            len(list(model.children())))


def test_assigning_none_keeps_the_registration_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    assert _assigned_none(nn, np.ones) == _assigned_none(torch.nn, torch.ones)


@pytest.mark.parametrize("misuse", [
    lambda nn_module, ones: setattr(nn_module.Linear(2, 3), "bias", ones(3) * 2),
    lambda nn_module, ones: setattr(nn_module.Linear(2, 3), "weight", 1.0),
    lambda nn_module, ones: setattr(nn_module.Sequential(nn_module.ReLU()), "0", "relu"),
    lambda nn_module, ones: setattr(nn_module.BatchNorm1d(3), "running_mean", [0.0] * 3),
])
def test_assigning_another_kind_to_a_registered_name_raises_as_torch(misuse):
    """A plain value (a Tensor that is not a Parameter, say) assigned to a parameter's name
    is refused, not silently taken out of the parameters the optimizer sees."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    with pytest.raises(TypeError):
        misuse(torch.nn, torch.ones)
    with pytest.raises(TypeError):
        misuse(nn, lambda n: Tensor(np.ones(n)))


def test_module_list_append_registers():
    ml = nn.ModuleList()
    ml.append(nn.Linear(2, 3, rng=np.random.default_rng(0)))
    ml.append(nn.LayerNorm(3))
    assert [n for n, _ in ml.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_gpt_dotted_names():
    cfg = GPTConfig(vocab_size=7, block_size=4, n_layer=2, n_head=2, n_embd=8)
    names = [n for n, _ in GPT(cfg).named_parameters()]
    for expected in ["wte.weight", "wpe.weight", "blocks.0.attn.W_q.weight",
                     "blocks.0.attn.W_o.bias", "blocks.1.ln_1.weight", "blocks.1.mlp.fc.weight",
                     "blocks.1.mlp.proj.bias", "ln_f.bias"]:
        assert expected in names
    assert len(names) == len(set(names))
    # 2 embeddings + per block (2 LN x 2 + 4 linears x 2 + 2 MLP linears x 2) + final LN x 2
    assert len(names) == 2 + 2 * (4 + 8 + 4) + 2


def test_shared_parameter_listed_once():
    a = nn.Linear(3, 3, rng=np.random.default_rng(0))
    b = nn.Linear(3, 3, rng=np.random.default_rng(1))
    b.weight = a.weight  # tied

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = a, b

    params = list(Two().parameters())
    assert len(params) == 3
    assert sum(p is a.weight for p in params) == 1
    assert Two().num_parameters() == 9 + 3 + 3


def test_zero_grad():
    m = Outer()
    for p in m.parameters():
        p.grad = Tensor(np.ones_like(p.data))
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


@pytest.mark.parametrize("zero_grad", [
    lambda model, params: model.zero_grad(set_to_none=False),
    lambda model, params: SGD(params, lr=0.1).zero_grad(False),
])
def test_zero_grad_without_set_to_none_zeroes_in_place(zero_grad):
    m = Outer()
    params = list(m.parameters())
    grads = [Tensor(np.ones_like(p.data)) for p in params[1:]]
    for p, g in zip(params[1:], grads):
        p.grad = g
    zero_grad(m, params)
    assert params[0].grad is None  # a gradient never computed stays None, as in PyTorch
    for p, g in zip(params[1:], grads):
        assert p.grad is g and not g.any()


def test_named_members_take_prefix_and_recurse_as_torch():
    m = WithBuffers()
    assert [n for n, _ in m.named_parameters(prefix="model")] == ["model.lin.weight",
                                                                  "model.lin.bias"]
    assert list(m.named_parameters(recurse=False)) == [] and list(m.parameters(recurse=False)) == []
    assert [n for n, _ in m.lin.named_parameters("lin", recurse=False)] == ["lin.weight",
                                                                          "lin.bias"]
    own = [n for n, _ in m.named_buffers(recurse=False)]
    assert own == [n for n, _ in m.named_buffers()] == ["mean", "steps", "scratch"]
    assert list(m.buffers(recurse=False)) == [m.mean, m.steps, m.scratch]
    assert [n for n, _ in m.named_buffers(prefix="p")][0] == "p.mean"


def test_deleting_an_attribute_unregisters_it_as_torch():
    m = WithBuffers()
    del m.lin.bias, m.mean
    assert [n for n, _ in m.named_parameters()] == ["lin.weight"]
    assert "mean" not in m.state_dict() and "lin.bias" not in m.state_dict()
    del m.lin
    assert list(m.parameters()) == [] and not hasattr(m, "lin")
    with pytest.raises(AttributeError):
        del m.lin


def test_train_eval_reach_every_submodule():
    cfg = GPTConfig(vocab_size=7, block_size=4, n_layer=2, n_head=2, n_embd=8, dropout=0.1)
    model = GPT(cfg)
    modules = [m for _, m in model.named_modules()]
    assert len(modules) > 10 and all(m.training for m in modules)
    assert model.eval() is model
    assert not any(m.training for m in modules)
    model.train()
    assert all(m.training for m in modules)
    with pytest.raises(ValueError):  # as PyTorch: a bool, not a truthy value
        model.train(0)
    assert all(m.training for m in modules)
    # dropout is really off in eval mode: two forwards agree
    idx = np.array([[1, 2, 3, 4]])
    model.eval()
    l1, _ = model(idx)
    l2, _ = model(idx)
    np.testing.assert_array_equal(l1.data, l2.data)


def test_state_dict_round_trip_copies():
    m1, m2 = Outer(), Outer()
    rng = np.random.default_rng(0)
    for p in m1.parameters():
        p.data[...] = rng.standard_normal(p.shape)
    state = m1.state_dict()
    assert set(state) == {n for n, _ in m1.named_parameters()}
    for name, p in m1.named_parameters():
        np.testing.assert_array_equal(state[name], p.data)
        assert not np.shares_memory(state[name], p.data)
    state["first.w"][...] = 99.0  # editing the state does not touch the model
    assert not np.any(m1.first.w.data == 99.0)
    state = m1.state_dict()
    m2.load_state_dict(state)
    for (n1, p1), (n2, p2) in zip(m1.named_parameters(), m2.named_parameters()):
        assert n1 == n2
        np.testing.assert_array_equal(p1.data, p2.data)
        assert not np.shares_memory(p1.data, p2.data)
        assert not np.shares_memory(p2.data, state[n2])
    state["scale"][...] = -5.0  # nor does editing it after loading
    assert m2.scale.data[0] != -5.0


def test_load_state_dict_strict_and_its_result_as_torch():
    m = nn.Linear(2, 3, rng=np.random.default_rng(0))
    before = m.state_dict()
    assert m.load_state_dict(before) == ([], [])
    assert m.load_state_dict(before, True).missing_keys == []
    partial = {"weight": np.ones((3, 2)), "extra": np.zeros(1), "more": np.zeros(2)}
    with pytest.raises(RuntimeError, match="bias"):
        m.load_state_dict(partial)  # strict: nothing is loaded
    np.testing.assert_array_equal(m.weight.data, before["weight"])
    result = m.load_state_dict(partial, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra", "more"]
    assert tuple(result) == (["bias"], ["extra", "more"])
    np.testing.assert_array_equal(m.weight.data, np.ones((3, 2)))
    np.testing.assert_array_equal(m.bias.data, before["bias"])
    with pytest.raises(RuntimeError, match="bias"):  # a shape that differs raises either way
        m.load_state_dict({"bias": np.zeros(4)}, strict=False)


class _Lookup:
    """Looks like a dict (in, [], iteration) without being a Mapping."""

    def __init__(self, entries):
        self.entries = entries

    def __contains__(self, key):
        return key in self.entries

    def __getitem__(self, key):
        return self.entries[key]

    def __iter__(self):
        return iter(self.entries)


def test_load_state_dict_refuses_what_is_not_a_mapping_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    with pytest.raises(TypeError):
        torch.nn.Linear(2, 3).load_state_dict(_Lookup(torch.nn.Linear(2, 3).state_dict()))
    with pytest.raises(TypeError):
        nn.Linear(2, 3).load_state_dict(_Lookup(nn.Linear(2, 3).state_dict()))


def test_load_state_dict_errors_name_the_key():
    m = Outer()
    state = m.state_dict()
    missing = dict(state)
    del missing["layers.1.b"]
    with pytest.raises(RuntimeError, match=r"layers\.1\.b"):  # PyTorch's class
        m.load_state_dict(missing)
    extra = {**state, "layers.2.w": np.zeros((2, 3))}
    with pytest.raises(RuntimeError, match=r"layers\.2\.w"):
        m.load_state_dict(extra)
    with pytest.raises(KeyError):  # what older minigrad raised, still caught
        m.load_state_dict(extra)
    bad = {**state, "first.w": np.zeros((3, 2))}
    with pytest.raises(ValueError, match=r"first\.w"):
        m.load_state_dict(bad)


def _tree(nn_module):
    """The same small tree of modules in minigrad or torch.nn: a Sequential holding a Linear
    and a Sequential of a LayerNorm and a ReLU."""
    inner = nn_module.Sequential(nn_module.LayerNorm(3), nn_module.ReLU())
    return nn_module.Sequential(nn_module.Linear(2, 3), inner)


def test_modules_children_and_apply_visit_in_torch_order():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: its order is not checked")
    ours, theirs = _tree(nn), _tree(torch.nn)
    kinds = lambda modules: [type(m).__name__ for m in modules]  # noqa: E731
    assert kinds(ours.modules()) == kinds(theirs.modules())
    assert kinds(ours.children()) == kinds(theirs.children())
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    visited, t_visited = [], []
    assert ours.apply(lambda m: visited.append(type(m).__name__)) is ours
    theirs.apply(lambda m: t_visited.append(type(m).__name__))
    assert visited == t_visited  # children first, then the module itself


def _scaled_pair(nn_module, weight):
    """A module of two positional tensors and a number, returning two tensors, in minigrad or
    torch.nn: (a * w * scale + shift, (a + b) * w)."""
    class ScaledPair(nn_module.Module):
        def __init__(self):
            super().__init__()
            self.w = nn_module.Parameter(weight)

        def forward(self, a, b, scale, *, shift=0.0):
            return a * self.w * scale + shift, (a + b) * self.w
    return ScaledPair()


def _hooked_run(lib, nn_module, replace):
    """Every kind of module hook on _scaled_pair, as PyTorch's: what each hook saw, in order,
    and the inputs' gradients (a hook doubling the first input's gradient if `replace`)."""
    module, seen = _scaled_pair(nn_module, lib.tensor([0.5, 1.5, -2.0], dtype=lib.float64)), []

    def values(tensors):
        return [None if t is None else t.detach().numpy().round(12).tolist() for t in tensors]

    module.register_forward_pre_hook(lambda m, args: seen.append(("pre", len(args))))
    module.register_forward_pre_hook(lambda m, args: (args[0] * 2, *args[1:]), prepend=False)
    module.register_forward_pre_hook(lambda m, args, kwargs: seen.append(("first", kwargs)) or
                                     (args, {"shift": 1.0}), prepend=True, with_kwargs=True)
    module.register_forward_hook(lambda m, args, out: seen.append(("out", values(out))))
    module.register_forward_hook(lambda m, args, kwargs, out: (out[0] + 1, out[1]),
                                 with_kwargs=True)

    def backward_hook(m, grad_input, grad_output):
        seen.append(("grads", values(grad_input), values(grad_output)))
        if replace:
            return (grad_input[0] * 2, *grad_input[1:])
    module.register_full_backward_hook(backward_hook)
    a = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.25, 3.0, -1.0], dtype=lib.float64, requires_grad=True)
    first, second = module(a, b, 3.0, shift=5.0)
    (first * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64) + second).sum().backward()
    return seen, values([a.grad, b.grad, module.w.grad])


@pytest.mark.parametrize("replace", [False, True])
def test_module_hooks_see_and_change_what_torchs_do(replace):
    """Forward pre-hooks (prepend, with_kwargs, a new input), forward hooks (a new output)
    and full backward hooks (grad_input for the tensors among the positional arguments, None
    for the number; grad_output; a replaced grad_input): the same calls, values and
    gradients as PyTorch's."""
    torch = torch_or_skip()
    assert _hooked_run(minigrad, nn, replace) == _hooked_run(torch, torch.nn, replace)


def test_module_hooks_are_removed_by_their_handles_and_always_call_runs_on_errors():
    layer, calls = nn.Linear(2, 2), []
    handles = [layer.register_forward_pre_hook(lambda m, args: calls.append("pre")),
               layer.register_forward_hook(lambda m, args, out: calls.append("out")),
               layer.register_full_backward_hook(lambda m, gi, go: calls.append("back"))]
    layer(Tensor(np.ones((1, 2)), requires_grad=True)).sum().backward()
    assert calls == ["pre", "out", "back"]
    for handle in handles:
        handle.remove()
    layer(Tensor(np.ones((1, 2)), requires_grad=True)).sum().backward()
    assert calls == ["pre", "out", "back"]
    layer.register_forward_hook(lambda m, args, out: calls.append(("always", out)),
                                always_call=True)
    with pytest.raises(Exception):
        layer(Tensor(np.ones((1, 3))))  # the wrong width
    assert calls[-1] == ("always", None)


def test_a_backward_hook_on_a_module_whose_inputs_need_no_grad_sees_the_output_grads():
    torch = torch_or_skip()
    seen = []
    for lib in (nn, torch.nn):
        layer = lib.Linear(2, 3)
        layer.register_full_backward_hook(lambda m, gi, go: seen.append(
            (gi, [tuple(g.shape) for g in go])))
        data = np.ones((4, 2), dtype=np.float32)
        layer(Tensor(data) if lib is nn else torch.tensor(data)).sum().backward()
    assert seen[0] == seen[1] == ((None,), [(4, 3)])


def test_a_backward_hook_on_inputs_needing_no_grad_runs_though_an_output_gets_no_gradient():
    """As PyTorch's: once, with None for the outputs no gradient reached (a string among the
    outputs, a tensor output the loss does not use); before, the hook waited for those and
    never ran."""
    torch = torch_or_skip()
    seen = []
    for lib in (nn, torch.nn):
        class Outputs(lib.Module):
            def __init__(self):
                super().__init__()
                self.layer = lib.Linear(2, 3)

            def forward(self, x):
                y = self.layer(x)
                return y, "unused", y * 2
        module = Outputs()
        module.register_full_backward_hook(lambda m, gi, go: seen.append(
            (gi, [None if g is None else tuple(g.shape) for g in go])))
        data = np.ones((4, 2), dtype=np.float32)
        module(Tensor(data) if lib is nn else torch.tensor(data))[0].sum().backward()
    assert seen[0] == seen[1] == ((None,), [(4, 3), None, None])


def test_nested_modules_backward_hooks_run_in_torchs_order():
    """Outer module first where no input requires grad (its hook runs once its outputs'
    gradients are known, as PyTorch's), last where one does (after its inputs')."""
    torch = torch_or_skip()
    orders = []
    for lib in (nn, torch.nn):
        class Outer(lib.Module):
            def __init__(self):
                super().__init__()
                self.first, self.second = lib.Linear(2, 2), lib.Linear(2, 2)

            def forward(self, x):
                return self.second(self.first(x).tanh())
        model, order = Outer(), []
        for name, module in [("outer", model), ("first", model.first),
                             ("second", model.second)]:
            module.register_full_backward_hook(
                lambda m, gi, go, name=name: order.append((name, gi[0] is None)))
        for needs_grad in (False, True):
            data = np.ones((3, 2), dtype=np.float32)
            x = Tensor(data) if lib is nn else torch.tensor(data)
            model(x.requires_grad_(needs_grad)).sum().backward()
        orders.append(order)
    assert orders[0] == orders[1]


def _hooks_under_grad(lib, tensor, grad, weights):
    """What the backward hooks of a two-layer model and its layers see under grad() with
    respect to first.weight, then second.bias, the input requiring no grad: (name, grad_input
    shapes, grad_output arrays) per call, "next" between the two."""
    class Outer(lib.Module):
        def __init__(self):
            super().__init__()
            self.first, self.second = lib.Linear(2, 3), lib.Linear(3, 2)

        def forward(self, x):
            return self.second(self.first(x).tanh())
    model, seen = Outer(), []
    model.load_state_dict(weights)
    for name, module in [("outer", model), ("first", model.first), ("second", model.second)]:
        module.register_full_backward_hook(lambda m, gi, go, name=name: seen.append(
            (name, [None if g is None else tuple(g.shape) for g in gi],
             [g.detach().numpy() for g in go])))
    x = tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2))
    for wanted in (model.first.weight, model.second.bias):
        grad((model(x) ** 2).sum(), [wanted])
        seen.append("next")
    return seen


def test_backward_hooks_under_grad_with_respect_to_parameters_as_torch():
    """grad() with respect to a parameter, the input requiring none: a module none of whose
    inputs requires grad runs its hook once its outputs' gradients are known (grad_input all
    None), if they lie on the way to the parameter; one whose input requires grad runs it only
    where that input's gradient is computed, as PyTorch's."""
    torch = torch_or_skip()
    weights = {name: np.asarray(value) for name, value in nn.Sequential(
        nn.Linear(2, 3, rng=np.random.default_rng(0)),
        nn.Linear(3, 2, rng=np.random.default_rng(1))).state_dict().items()}
    weights = {name.replace("0.", "first.").replace("1.", "second."): value
               for name, value in weights.items()}
    ours = _hooks_under_grad(nn, Tensor, minigrad.grad, weights)
    theirs = _hooks_under_grad(torch.nn, torch.tensor, torch.autograd.grad,
                               {name: torch.tensor(value) for name, value in weights.items()})
    calls = [call if call == "next" else call[:2] for call in ours]
    assert calls == [call if call == "next" else call[:2] for call in theirs]
    assert calls == [("outer", [None]), ("second", [(4, 3)]), ("first", [None]), "next",
                     ("outer", [None]), "next"]
    for our, their in zip(ours, theirs):
        for ours_g, theirs_g in zip(our[2], their[2]) if our != "next" else ():
            np.testing.assert_allclose(ours_g, theirs_g, rtol=1e-6)


def test_backward_hook_under_grad_sees_the_gradient_of_every_output_as_torch():
    """PyTorch's hook node takes all of a call's outputs: once one of them leads to the
    parameter grad() wants, the node runs with the gradient of each output that has one, also
    of an output that leads elsewhere (None for one the loss does not use)."""
    torch = torch_or_skip()
    seen = {}
    for lib, tensor, grad in ((nn, Tensor, minigrad.grad),
                              (torch.nn, torch.tensor, torch.autograd.grad)):
        class TwoHeads(lib.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = lib.Linear(2, 3), lib.Linear(2, 4)

            def forward(self, x):
                return self.a(x), self.b(x).double()
        model, calls = TwoHeads(), []
        model.register_full_backward_hook(lambda m, gi, go: calls.append(
            (gi, [None if g is None else (tuple(g.shape), str(g.dtype).split(".")[-1])
                  for g in go])))
        x = tensor(np.ones((5, 2), dtype=np.float32))
        for loss in (lambda a, b: a.sum() + b.sum(), lambda a, b: a.sum()):
            grad(loss(*model(x)), [model.a.weight])
        seen[lib] = calls
    assert seen[nn] == seen[torch.nn] == [
        ((None,), [((5, 3), "float32"), ((5, 4), "float64")]),
        ((None,), [((5, 3), "float32"), None])]

def test_backward_hook_replacing_what_no_input_has_raises_as_torch():
    """With no input requiring grad there is no grad_input to replace: a hook returning
    gradients anyway raises (RuntimeError), None for each input is accepted."""
    def misuse(lib, F):
        layer = lib.nn.Linear(3, 2)
        layer.register_full_backward_hook(lambda m, gi, go: (go[0][:, :1] * 0 + 1,))
        layer(lib.ones(4, 3)).sum().backward()
    assert_raises_like_torch(misuse)
    layer = nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (None,))
    layer(minigrad.ones(4, 3)).sum().backward()
    assert layer.weight.grad is not None


def _shared(nn_module, ones):
    """A module holding one Linear under two names and in a Sequential(l, l), and the
    Parameter `ones` under two names, in minigrad or torch.nn."""
    class Shared(nn_module.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn_module.Linear(2, 2)
            self.l2 = self.l1
            self.twice = nn_module.Sequential(self.l1, self.l1)
            self.p = nn_module.Parameter(ones)
            self.q = self.p
    return Shared()


def test_shared_modules_are_visited_once_as_torch_does():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    ours, theirs = _shared(nn, np.ones(1)), _shared(torch.nn, torch.ones(1))
    names = lambda pairs: [n for n, _ in pairs]  # noqa: E731
    assert names(ours.named_modules()) == names(theirs.named_modules())  # ['', 'l1', 'twice']
    assert (names(ours.named_modules(remove_duplicate=False))
            == names(theirs.named_modules(remove_duplicate=False)))
    assert len(list(ours.modules())) == len(list(theirs.modules())) == 3
    assert names(ours.named_children()) == names(theirs.named_children())
    assert names(ours.twice.named_children()) == names(theirs.twice.named_children()) == ["0"]
    assert len(list(ours.twice.children())) == 1
    visited, t_visited = [], []
    ours.apply(lambda m: visited.append(type(m).__name__))
    theirs.apply(lambda m: t_visited.append(type(m).__name__))
    assert visited == t_visited
    # parameters are listed once; state_dict keeps every name, as torch's does
    assert names(ours.named_parameters()) == names(theirs.named_parameters())
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    np.testing.assert_array_equal(ours.l2.weight.data, theirs.l1.weight.detach().numpy())


def _names(container):
    """(kind of each module, its registered name) of a container, in minigrad or torch."""
    return [type(m).__name__ for m in container], list(container._modules)


def _edited_list(nn_module):
    """A ModuleList changed by each of PyTorch's list methods, and what they returned."""
    layers = nn_module.ModuleList(None)
    returned = layers.append(nn_module.ReLU()) is layers
    layers.extend([nn_module.Tanh(), nn_module.Sigmoid(), nn_module.SiLU()])
    layers.insert(1, nn_module.GELU())
    layers[-1] = nn_module.Identity()
    del layers[0]
    popped = type(layers.pop(1)).__name__
    sliced = layers[::-1]
    return _names(layers), returned, popped, type(sliced).__name__, _names(sliced)


def _edited_sequential(nn_module):
    model = nn_module.Sequential(OrderedDict(first=nn_module.ReLU(), second=nn_module.Tanh(),
                                             third=nn_module.SiLU()))
    sliced = model[1:]
    model[0] = nn_module.GELU()
    kept_names = _names(model)
    model.extend([nn_module.Sigmoid()])
    del model[2]  # numbers the rest '0', '1', ...
    model.insert(0, nn_module.Identity())
    popped = type(model.pop(-1)).__name__
    return _names(sliced), kept_names, _names(model), popped


def _combined_sequential(nn_module):
    """Sequentials added and multiplied: renumbered, the module objects shared, not copied."""
    first = nn_module.Sequential(OrderedDict(a=nn_module.Linear(2, 2), b=nn_module.ReLU()))
    second = nn_module.Sequential(nn_module.Tanh())
    added, tripled, doubled = first + second, first * 3, 2 * second
    grown = nn_module.Sequential(nn_module.Linear(2, 2))
    same = grown
    grown += second
    grown *= 2
    return (_names(added), added[0] is first[0], _names(tripled), tripled[2] is first[0],
            len(list(tripled.parameters())), _names(doubled), grown is same, _names(grown),
            grown[2] is grown[0], _names(first))


def _edited_dict(nn_module):
    layers = nn_module.ModuleDict(None)
    layers["a"], layers["b"] = nn_module.ReLU(), nn_module.Tanh()
    popped = type(layers.pop("a")).__name__
    before = list(layers.keys())
    layers.clear()
    return popped, before, len(layers), len(nn_module.ParameterList(None))


def _edited_parameters(nn_module, make):
    """A ParameterList extended, assigned to and sliced."""
    values = nn_module.ParameterList([make(2)])
    returned = values.extend([make(3), make(4)]) is values
    values[-1] = make(5)  # a plain tensor, made a Parameter
    sliced = values[1:]
    return (returned, type(sliced).__name__, [tuple(p.shape) for p in sliced],
            [n for n, _ in values.named_parameters()], type(values[2]).__name__)


def test_parameter_list_edits_and_slices_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    assert (_edited_parameters(nn, lambda n: Tensor(np.ones(n)))
            == _edited_parameters(torch.nn, torch.ones))
    with pytest.raises(IndexError):
        nn.ParameterList([Tensor(np.ones(1))])[1] = Tensor(np.ones(1))


def _edited_parameter_dict(nn_module, make):
    """A ParameterDict made from a plain dict (sorted), edited with a dict's methods."""
    values = nn_module.ParameterDict({"b": make(2), "a": make(3), "note": "text"})
    order = list(values)
    values["c"] = make(4)  # a plain tensor, made a Parameter
    values.update([("z", make(1)), ("b", make(5))])  # pairs keep their order; "b" replaced
    default = values.setdefault("a", None) is values["a"]
    popped = tuple(values.pop("c").shape)
    last = values.popitem()[0]
    merged = values | nn_module.ParameterDict(OrderedDict([("y", make(6)), ("x", make(7))]))
    copied = values.copy()
    return (order, type(values["c" if "c" in values else "a"]).__name__, default, popped, last,
            list(merged), list(reversed(merged)), copied["a"] is values["a"], len(values),
            [(n, tuple(p.shape)) for n, p in values.named_parameters()],
            list(values.state_dict()), values.get("missing", 0), "note" in values, repr(values),
            list(values.fromkeys(["p", "q"]).keys()))


def test_parameter_dict_as_torch():
    torch = torch_or_skip()
    ours = _edited_parameter_dict(nn, lambda n: Tensor(np.ones(n, dtype=np.float32)))
    theirs = _edited_parameter_dict(torch.nn, torch.ones)
    assert ours[:-2] == theirs[:-2]
    assert ours[-2] == theirs[-2].replace("torch.", "minigrad.")
    assert ours[-1] == theirs[-1]
    model = nn.ParameterDict({"w": Tensor(np.ones((2, 2), dtype=np.float32))})
    (model["w"] * 3).sum().backward()  # a Parameter of the module, trained as one
    np.testing.assert_array_equal(model["w"].grad.data, np.full((2, 2), 3.0))
    with pytest.raises(KeyError):  # a dict's error (PyTorch: AttributeError)
        model["missing"]


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.nn.ParameterDict({"a.b": m.ones(1)}),
    lambda m, F: m.nn.ParameterDict({"keys": m.ones(1)}),
    lambda m, F: m.nn.ParameterDict()[1],
    lambda m, F: m.nn.ParameterDict().update(3),
    lambda m, F: m.nn.ParameterDict().update([("a",)]),
    lambda m, F: m.nn.ParameterDict().update([3]),
    lambda m, F: m.nn.ParameterDict({"a": m.ones(1)})(m.ones(1)),
])
def test_parameter_dict_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


def test_buffer_registers_itself_as_torch():
    torch = torch_or_skip()

    def registered(lib, values):
        m = lib.nn.Module()
        m.kept = lib.nn.Buffer(values(2))
        m.skipped = lib.nn.Buffer(values(3), persistent=False)
        m.register_buffer("given", lib.nn.Buffer(values(1), persistent=False))  # its argument
        m.skipped = lib.nn.Buffer(values(3))  # assigned anew: persistent now
        m.plain = values(4)  # a plain tensor is an attribute, as before
        m.register_buffer("later", values(1), persistent=False)
        m.later = values(5)  # a buffer's name keeps its persistence
        shares = m.kept.data is not None
        empty = lib.nn.Buffer()
        return (list(m.state_dict()), [n for n, _ in m.named_buffers()], shares,
                tuple(empty.shape), str(empty.dtype).rsplit(".", 1)[-1],
                lib.nn.Buffer(values(1).requires_grad_()).requires_grad,
                isinstance(m.kept, lib.Tensor))

    assert registered(minigrad, lambda n: minigrad.ones(n)) == registered(torch, torch.ones)
    data = Tensor(np.arange(3.0))
    buffer = nn.Buffer(data)
    assert buffer.data is data.data  # shares the memory, as torch's detach()
    for misuse in [lambda m: setattr(m, "weight", nn.Buffer(Tensor(np.ones(1)))),
                   lambda m: setattr(m, "bias", nn.Buffer(Tensor(np.ones(1))))]:
        with pytest.raises(TypeError):  # a parameter's name takes a Parameter or None
            misuse(nn.Linear(1, 1))
    layer = nn.Linear(1, 1)
    layer.note = 1
    with pytest.raises(KeyError):  # as register_buffer over a plain attribute, as torch's
        layer.note = nn.Buffer(Tensor(np.ones(1)))


@pytest.mark.parametrize("edit", [_edited_list, _edited_sequential, _edited_dict,
                                  _combined_sequential])
def test_containers_edit_and_slice_as_torch(edit):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    assert edit(nn) == edit(torch.nn)


@pytest.mark.parametrize("misuse", [
    # names add_module refuses (regression: 'train' replaced the method, 'a.b' broke state_dict)
    lambda m, F: m.nn.Sequential(OrderedDict([("train", m.nn.ReLU())])),
    lambda m, F: m.nn.Sequential(OrderedDict([("a.b", m.nn.ReLU())])),
    lambda m, F: m.nn.ModuleDict({"a.b": m.nn.ReLU()}),
    lambda m, F: m.nn.ModuleDict({"": m.nn.ReLU()}),
    lambda m, F: m.nn.ModuleDict({"forward": m.nn.ReLU()}),
    lambda m, F: m.nn.ModuleDict({"relu": 3}),
    lambda m, F: m.nn.ModuleList([m.nn.ReLU()])[1],
    lambda m, F: m.nn.ModuleList([m.nn.ReLU()]).append(3),
    lambda m, F: m.nn.Sequential(m.nn.ReLU()).append("relu"),
    lambda m, F: m.nn.Sequential(m.nn.ReLU()) + m.nn.ModuleList([m.nn.ReLU()]),
    lambda m, F: m.nn.Sequential(m.nn.ReLU()) * 2.0,
    lambda m, F: m.nn.Sequential(m.nn.ReLU()) * 0,
    lambda m, F: m.nn.Sequential(m.nn.ReLU()).__imul__(-1),
])
def test_containers_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


def _registered(nn_module, ones):
    """A Linear given parameters and modules by PyTorch's registering methods, and what its
    lookups find."""
    layer = nn_module.Linear(2, 3)
    layer.weight = nn_module.Parameter(ones((3, 2)))  # replaced: keeps its place
    layer.register_parameter("scale", nn_module.Parameter(ones(1)))
    layer.register_parameter("shift", None)
    layer.add_module("act", nn_module.ReLU())
    layer.register_module("inner", nn_module.Linear(3, 1))
    layer.add_module("later", None)  # registered, as a module that is absent
    frozen = nn_module.Parameter(ones(2), requires_grad=False)
    return (list(layer.state_dict()), [n for n, _ in layer.named_modules()], layer.shift,
            list(layer._modules), repr(layer),
            type(layer.get_submodule("inner")).__name__, layer.get_submodule("") is layer,
            tuple(layer.get_parameter("inner.bias").shape), frozen.requires_grad,
            tuple(nn_module.BatchNorm1d(3).get_buffer("running_var").shape),
            tuple(nn_module.Parameter().shape), str(layer.double().weight.dtype).split(".")[-1],
            str(layer.float().inner.weight.dtype).split(".")[-1])


def test_registering_methods_and_lookups_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    assert _registered(nn, np.ones) == _registered(torch.nn, torch.ones)
    ours, theirs = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    for layer in (ours, theirs):
        layer.register_parameter("weight", None)  # emptied, in its place
        layer.weight = type(layer.bias)(layer.bias.data)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight", "bias"]


def _with_absent_module(nn_module):
    layer = nn_module.Linear(2, 3)
    layer.add_module("later", None)
    return layer


def _with_absent_bias(nn_module):
    layer = nn_module.Linear(2, 3)
    layer.bias = None  # still registered, as a parameter that is absent
    return layer


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.nn.Linear(2, 3).register_parameter("in_features", None),
    lambda m, F: m.nn.Linear(2, 3).register_parameter("a.b", None),
    lambda m, F: m.nn.Linear(2, 3).register_parameter(1, None),
    lambda m, F: m.nn.Linear(2, 3).register_parameter("p", [1.0]),
    lambda m, F: m.nn.Linear(2, 3).add_module("weight", m.nn.ReLU()),
    lambda m, F: m.nn.Linear(2, 3).add_module("act", 3),
    lambda m, F: m.nn.Linear(2, 3).get_submodule("weight"),
    lambda m, F: m.nn.Linear(2, 3).get_submodule("nothing"),
    lambda m, F: m.nn.Linear(2, 3).get_parameter("in_features"),
    lambda m, F: m.nn.Linear(2, 3).get_parameter("nothing"),
    lambda m, F: _with_absent_bias(m.nn).get_parameter("bias"),
    lambda m, F: m.nn.BatchNorm1d(3).get_buffer("weight"),  # a parameter, not a buffer
    lambda m, F: m.nn.BatchNorm1d(3).get_buffer("nothing"),
    lambda m, F: setattr(_with_absent_module(m.nn), "later", 3),
])
def test_registering_methods_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("make", [
    lambda nn_module: nn_module.BatchNorm1d(3, bias=False),
    lambda nn_module: nn_module.BatchNorm2d(3, affine=False),
    lambda nn_module: nn_module.GroupNorm(1, 3, bias=False),
    lambda nn_module: nn_module.GroupNorm(1, 3),
    lambda nn_module: nn_module.LayerNorm(3, bias=False),
    lambda nn_module: nn_module.LayerNorm(3, elementwise_affine=False),
])
def test_norm_layers_bias_flag_and_repr_as_torch(make):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    ours, theirs = make(nn), make(torch.nn)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


def _listings(nn_module):
    shared = nn_module.Linear(2, 2)
    model = nn_module.Sequential(shared, shared, nn_module.BatchNorm1d(2))
    kept = model.state_dict(keep_vars=True)
    return (list(model.state_dict(prefix="net.")), kept["0.weight"] is shared.weight,
            [n for n, _ in model.named_parameters(remove_duplicate=False)],
            [n for n, _ in model.named_buffers(prefix="x", remove_duplicate=False)],
            len(list(model.modules(remove_duplicate=False))))


def test_state_dict_and_listings_take_torchs_options():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    assert _listings(nn) == _listings(torch.nn)


@pytest.mark.parametrize("make", [
    lambda nn_module, w: nn_module.CrossEntropyLoss(w, label_smoothing=0.1),
    lambda nn_module, w: nn_module.NLLLoss(w),
    lambda nn_module, w: nn_module.BCELoss(w),
    lambda nn_module, w: nn_module.BCEWithLogitsLoss(w, pos_weight=w),
    lambda nn_module, w: nn_module.BCEWithLogitsLoss(pos_weight=w),
    lambda nn_module, w: nn_module.CrossEntropyLoss(),
])
def test_loss_weights_are_buffers_as_torch(make):
    """A PyTorch state dict of a model holding a weighted loss loads: the weights are
    buffers."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    theirs = make(torch.nn, torch.tensor([1.0, 2.0, 0.5]))
    ours = make(nn, np.array([1.0, 2.0, 0.5]))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: v.numpy() * 3 for k, v in theirs.state_dict().items()})
    for name, value in theirs.state_dict().items():
        np.testing.assert_array_equal(getattr(ours, name).data, value.numpy() * 3)


def test_loss_modules_take_positionally_only_what_torch_does():
    """HuberLoss(reduction, delta) as PyTorch's; MSELoss's first positional argument in
    PyTorch is the deprecated size_average, so minigrad takes reduction by name only."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    x, t = np.array([0.0, 3.0]), np.array([1.0, 0.0])
    theirs = torch.nn.HuberLoss("sum", 0.5)(torch.tensor(x), torch.tensor(t))
    assert nn.HuberLoss("sum", 0.5)(Tensor(x), t).item() == pytest.approx(theirs.item())
    with pytest.raises(TypeError):
        nn.MSELoss("sum")
    with pytest.raises(TypeError):
        nn.L1Loss("sum")


@pytest.mark.parametrize("make", [
    lambda nn_module, w: nn_module.CrossEntropyLoss(w),
    lambda nn_module, w: nn_module.BCELoss(w),
    lambda nn_module, w: nn_module.BCEWithLogitsLoss(w, pos_weight=w),
])
def test_weighted_losses_keep_the_inputs_dtype_as_torch(make):
    """float64 weights (a numpy array's default) with a float32 input give a float32 loss, as
    torch's float32 weights do (its BCE losses also with float64 ones)."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    weight = np.array([0.5, 1.0, 2.0])
    x = np.random.default_rng(0).uniform(0.1, 0.9, (4, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 1]) if "CrossEntropy" in repr(make(nn, None)) else \
        np.ones((4, 3), np.float32)
    theirs = make(torch.nn, torch.tensor(weight, dtype=torch.float32))(torch.tensor(x),
                                                                       torch.tensor(target))
    for given in (weight, Tensor(weight)):
        ours = make(nn, given)(Tensor(x), target)
        assert str(ours.dtype) == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-6)


def test_apply_initialises_weights():
    model = _tree(nn)
    model.apply(lambda m: m.bias.data.fill(0.5) if isinstance(m, nn.Linear) else None)
    np.testing.assert_array_equal(model[0].bias.data, 0.5)


def test_requires_grad_freezes_and_unfreezes_every_parameter():
    model = Outer()
    assert model.requires_grad_(False) is model
    assert not any(p.requires_grad for p in model.parameters())
    model.requires_grad_()
    assert all(p.requires_grad for p in model.parameters())
    with pytest.raises(TypeError):  # as PyTorch: a flag, not a truthy value
        model.requires_grad_(0)
    assert all(p.requires_grad for p in model.parameters())


class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2, rng=np.random.default_rng(0), dtype=np.float64)
        self.register_buffer("mean", Tensor(np.zeros(2)))
        self.register_buffer("steps", Tensor(np.array(0)))
        self.register_buffer("scratch", Tensor(np.ones(2)), persistent=False)
        self.register_buffer("unset", None)


def test_buffers_are_listed_and_persistent_ones_saved_as_torch_does():
    m = WithBuffers()
    assert [n for n, _ in m.named_buffers()] == ["mean", "steps", "scratch"]
    assert next(m.buffers()) is m.mean
    assert list(m.state_dict()) == ["mean", "steps", "lin.weight", "lin.bias"]
    assert list(m.parameters()) == [m.lin.weight, m.lin.bias]  # buffers are not trained
    torch = pytest.importorskip("torch", reason="PyTorch not installed: its order is not checked")

    class Theirs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)
            self.register_buffer("mean", torch.zeros(2))
            self.register_buffer("steps", torch.tensor(0))
            self.register_buffer("scratch", torch.ones(2), persistent=False)
            self.register_buffer("unset", None)

    assert list(m.state_dict()) == list(Theirs().state_dict())
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in Theirs().named_buffers()]


def test_buffers_round_trip_through_the_state_dict_and_assignment():
    m1, m2 = WithBuffers(), WithBuffers()
    m1.mean.data[...] = [1.0, 2.0]
    m1.steps = Tensor(np.array(4))  # assigning to a buffer's name replaces the buffer
    assert m1._buffers["steps"] is m1.steps
    m2.load_state_dict(m1.state_dict())
    np.testing.assert_array_equal(m2.mean.data, [1.0, 2.0])
    assert int(m2.steps.data) == 4
    with pytest.raises(RuntimeError, match="scratch"):
        m2.load_state_dict({**m1.state_dict(), "scratch": np.ones(2)})
    with pytest.raises(TypeError, match="steps"):
        m1.steps = 3
    m1.steps = None  # a buffer set to None is left out, as in PyTorch
    assert "steps" not in m1.state_dict()


def test_register_buffer_rejects_what_torch_rejects():
    m = WithBuffers()
    for name in ("a.b", "", "lin", "train"):
        with pytest.raises(KeyError):
            m.register_buffer(name, Tensor(np.zeros(1)))
    with pytest.raises(TypeError, match="buffer 'x'"):
        m.register_buffer("x", np.zeros(1))


def test_to_casts_parameters_and_float_buffers_like_astype():
    m = WithBuffers().to(np.float32)
    assert {t.dtype for t in [*m.parameters(), m.mean, m.scratch]} == {np.dtype(np.float32)}
    assert m.steps.dtype == np.int64
    with pytest.raises(TypeError, match="floating point"):
        m.to(np.int64)


def test_forgetting_super_init_is_a_clear_error():
    class Broken(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(np.ones(2))

    with pytest.raises(AttributeError, match=r"super\(\)\.__init__\(\)"):
        Broken()


LAZY_LAYERS = [  # (make(nn), the first input's shape)
    (lambda n, **k: n.LazyLinear(3, **k), (2, 5)),
    (lambda n, **k: n.LazyLinear(4, False, **k), (2, 3, 6)),
    (lambda n, **k: n.LazyConv1d(4, 3, 2, 1, 1, 2, **k), (2, 6, 9)),
    (lambda n, **k: n.LazyConv2d(2, 3, **k), (3, 7, 6)),  # unbatched: in_channels from dim 0
    (lambda n, **k: n.LazyConv3d(2, (1, 2, 2), bias=False, **k), (1, 2, 3, 4, 4)),
    (lambda n, **k: n.LazyConvTranspose1d(3, 2, 2, **k), (2, 4, 5)),
    (lambda n, **k: n.LazyConvTranspose2d(4, 3, 1, 1, 0, 2, **k), (1, 6, 4, 4)),
    (lambda n, **k: n.LazyConvTranspose3d(2, 2, **k), (3, 2, 2, 3)),
    (lambda n, **k: n.LazyBatchNorm1d(**k), (4, 3)),
    (lambda n, **k: n.LazyBatchNorm2d(1e-3, 0.2, **k), (2, 3, 4, 4)),
    (lambda n, **k: n.LazyBatchNorm3d(affine=False, **k), (2, 3, 2, 2, 2)),
    (lambda n, **k: n.LazyInstanceNorm1d(**k), (2, 3, 6)),
    (lambda n, **k: n.LazyInstanceNorm2d(track_running_stats=False, **k), (2, 3, 4, 4)),
    (lambda n, **k: n.LazyInstanceNorm3d(**k), (2, 2, 2, 3, 2)),
]


@pytest.mark.parametrize("make, shape", LAZY_LAYERS)
def test_lazy_layers_infer_their_input_size_as_torch(make, shape):
    """Before the first call: torch's repr and uninitialized state; after it: the layer
    PyTorch's becomes, with its settings and parameter shapes, computing what it computes
    with its values."""
    torch = torch_or_skip()
    ours, theirs = make(nn, dtype=np.float64), make(torch.nn, dtype=torch.float64)
    assert repr(ours) == repr(theirs)
    kinds = {k: type(v).__name__ for k, v in theirs.state_dict().items()}
    if "num_batches_tracked" in kinds:  # a plain tensor there: an array in ours
        kinds["num_batches_tracked"] = "ndarray"
    assert {k: type(v).__name__ for k, v in ours.state_dict().items()} == kinds
    assert ours.has_uninitialized_params() and theirs.has_uninitialized_params()
    x = np.random.default_rng(0).standard_normal(shape)
    ours(Tensor(x))
    theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)
    assert {n: p.shape for n, p in ours.named_parameters()} == \
        {n: tuple(p.shape) for n, p in theirs.named_parameters()}
    assert all(p.dtype == np.float64 for p in ours.parameters())
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    np.testing.assert_allclose(ours(Tensor(x)).data, theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)


def test_lazy_layer_materializes_the_parameters_an_optimizer_holds():
    """The parameters given to an optimizer before the first call are the ones it makes, as
    PyTorch documents (materialized in place), and keep their requires_grad and float32."""
    layer = nn.LazyLinear(2, rng=np.random.default_rng(0))
    params = list(layer.parameters())
    layer.bias.requires_grad_(False)
    opt = SGD(params, lr=1.0)
    out = layer(Tensor(np.ones((3, 4), dtype=np.float32)))
    assert isinstance(layer, nn.Linear) and not isinstance(layer, nn.LazyLinear)
    assert layer.weight is params[0] and layer.bias is params[1]
    assert type(layer.weight) is nn.Parameter and layer.in_features == 4
    assert layer.weight.dtype == np.float32 and out.dtype == np.float32
    bound = 1 / math.sqrt(4)  # Linear's initialisation for in_features 4
    assert np.abs(layer.weight.data).max() <= bound and np.abs(layer.weight.data).max() > 0
    before = layer.weight.data.copy()
    out.sum().backward()
    opt.step()
    np.testing.assert_allclose(layer.weight.data, before - 3.0, rtol=1e-6)
    assert layer.bias.grad is None


def test_lazy_layer_takes_the_shapes_of_a_state_dict_loaded_first():
    torch = torch_or_skip()
    full = nn.Linear(5, 3, dtype=np.float64)
    ours, theirs = nn.LazyLinear(3, dtype=np.float64), torch.nn.LazyLinear(3)
    ours.load_state_dict(full.state_dict())
    theirs.load_state_dict({k: torch.tensor(v) for k, v in full.state_dict().items()})
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params() is False
    assert type(ours).__name__ == "LazyLinear"  # until the first call, as torch's
    x = np.random.default_rng(0).standard_normal((2, 5))
    np.testing.assert_array_equal(ours(Tensor(x)).data, full(Tensor(x)).data)  # kept
    assert type(ours) is nn.Linear


def test_lazy_layer_deep_copies_before_its_first_call():
    """Regression: copy.deepcopy of a lazy layer raised ValueError (the default copy read the
    uninitialized values). A copy, as torch's, is a lazy layer of its own."""
    import copy
    layer = nn.LazyBatchNorm1d()
    layer.weight.requires_grad_(False)
    copied = copy.deepcopy(layer)
    assert type(copied) is nn.LazyBatchNorm1d and copied.has_uninitialized_params()
    assert copied.weight is not layer.weight and not copied.weight.requires_grad
    assert list(copied.state_dict()) == list(layer.state_dict())
    copied(Tensor(np.ones((2, 4), dtype=np.float32)))
    assert type(copied) is nn.BatchNorm1d and copied.weight.shape == (4,)
    assert layer.has_uninitialized_params()  # the original is left as it was
    layer(Tensor(np.ones((2, 5), dtype=np.float32)))
    assert layer.weight.shape == (5,)


def test_uninitialized_parameters_refuse_to_be_used_as_torch():
    torch = torch_or_skip()
    for lib in (nn, torch.nn):
        weight = lib.LazyLinear(3).weight
        assert repr(weight) == "<UninitializedParameter>"
        with pytest.raises(ValueError):
            weight + 1
        with pytest.raises(RuntimeError):
            weight.shape
        assert weight.requires_grad
        buffer = lib.UninitializedBuffer()
        assert repr(buffer) == "<UninitializedBuffer>" and not buffer.requires_grad
    assert nn.UninitializedParameter().dtype == np.float32
    assert nn.UninitializedParameter(dtype=np.float64).dtype == np.float64
    assert nn.LazyLinear(3).double().weight.dtype == np.float64  # as torch's .double()
    assert_raises_like_torch(lambda lib, F: lib.nn.LazyConv2d(4, 3)(lib.ones(8, 8)))
    assert_raises_like_torch(lambda lib, F: lib.nn.LazyConv1d(4, 3, groups=2)(lib.ones(1, 3,
                                                                                       8)))
    with pytest.raises(ValueError):  # out_channels not divisible by groups: ours when made
        nn.LazyConv1d(3, 3, groups=2)
    with pytest.raises(RuntimeError):  # torch's at the first call
        torch.nn.LazyConv1d(3, 3, groups=2)(torch.ones(1, 2, 8))


# ----------------------------------------------------------------------------------------------
# Layers vs numpy
# ----------------------------------------------------------------------------------------------
def test_linear_forward():
    layer = nn.Linear(4, 3, rng=np.random.default_rng(0), dtype=np.float64)
    assert layer.weight.shape == (3, 4) and layer.bias.shape == (3,)  # (out, in), as PyTorch
    bound = 1 / math.sqrt(4)
    assert np.all(np.abs(layer.weight.data) <= bound) and np.all(np.abs(layer.bias.data) <= bound)
    x = np.random.default_rng(1).standard_normal((2, 5, 4))
    expected = np.einsum("bti,oi->bto", x, layer.weight.data) + layer.bias.data
    np.testing.assert_allclose(layer(Tensor(x)).data, expected, rtol=1e-12, atol=1e-12)
    nobias = nn.Linear(4, 3, bias=False, rng=np.random.default_rng(0))
    assert nobias.bias is None and len(list(nobias.parameters())) == 1
    np.testing.assert_allclose(nobias(Tensor(x, dtype=np.float32)).data,
                               x @ nobias.weight.data.T.astype(np.float64), rtol=1e-5, atol=1e-6)


def test_embedding_forward():
    emb = nn.Embedding(6, 3, rng=np.random.default_rng(0))
    idx = np.array([[0, 5, 5], [2, 1, 0]])
    out = emb(idx)
    assert out.shape == (2, 3, 3)
    table = emb.weight.data
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(out.data[i, j], table[idx[i, j]])


def test_layernorm_forward():
    ln = nn.LayerNorm(5, dtype=np.float64)
    np.testing.assert_array_equal(ln.weight.data, np.ones(5))
    np.testing.assert_array_equal(ln.bias.data, np.zeros(5))
    rng = np.random.default_rng(2)
    ln.weight.data[...] = rng.standard_normal(5)
    ln.bias.data[...] = rng.standard_normal(5)
    x = rng.standard_normal((3, 4, 5)) * 3 + 1
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)  # biased variance, as PyTorch
    expected = (x - mu) / np.sqrt(var + 1e-5) * ln.weight.data + ln.bias.data
    np.testing.assert_allclose(ln(Tensor(x)).data, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, dict(elementwise_affine=False), dict(bias=False)])
def test_layernorm_over_several_dims_and_its_options_match_torch(kwargs):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    ours, theirs = nn.LayerNorm((4, 5), **kwargs), torch.nn.LayerNorm((4, 5), **kwargs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.normalized_shape == theirs.normalized_shape == (4, 5)
    assert ours.elementwise_affine == theirs.elementwise_affine
    x = np.random.default_rng(3).standard_normal((2, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(ours(Tensor(x)).data, theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_layer_attributes_and_keywords_have_pytorch_names():
    linear = nn.Linear(in_features=3, out_features=2)
    assert (linear.in_features, linear.out_features) == (3, 2)
    emb = nn.Embedding(num_embeddings=6, embedding_dim=4)
    assert (emb.num_embeddings, emb.embedding_dim) == (6, 4) and emb.weight.shape == (6, 4)
    ln = nn.LayerNorm(normalized_shape=5, eps=1e-6)
    assert ln.normalized_shape == (5,) and ln.eps == 1e-6


@pytest.mark.parametrize("name, args, kwargs, shape, output_size", [
    ("Conv3d", (4, 6, (3, 2, 2)), dict(stride=2, padding=1, groups=2, bias=False),
     (2, 4, 5, 6, 5), None),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2,
                                        dilation=2), (2, 4, 7), None),
    ("ConvTranspose2d", (4, 3, (3, 2)), dict(stride=(2, 3), padding=(1, 0)), (2, 4, 5, 6), None),
    ("ConvTranspose2d", (4, 3, 3), dict(stride=2, padding=1), (2, 4, 5, 6), [10, 12]),
    ("ConvTranspose2d", (4, 3, 3), dict(stride=3, bias=False), (4, 5, 6), [3, 15, 19]),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=2), (1, 2, 3, 4, 3), None),
])
def test_conv3d_and_transposed_convolutions_match_torch(name, args, kwargs, shape, output_size):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(nn, name)(*args, **kwargs, rng=np.random.default_rng(0))
    assert repr(ours) == repr(theirs)
    bound = 1 / math.sqrt(theirs.weight.shape[1] * math.prod(theirs.kernel_size))  # fan_in
    assert np.abs(ours.weight.data).max() <= bound
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    ours.astype(np.float64)
    x = np.random.default_rng(1).standard_normal(shape)
    x_ours, x_theirs = Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y_ours = ours(x_ours, output_size) if output_size else ours(x_ours)
    y_theirs = theirs(x_theirs, output_size) if output_size else theirs(x_theirs)
    np.testing.assert_allclose(y_ours.data, y_theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    (y_ours * y_ours).sum().backward()
    (y_theirs * y_theirs).sum().backward()
    np.testing.assert_allclose(x_ours.grad, x_theirs.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.weight.grad, theirs.weight.grad.numpy(), rtol=1e-10)


def test_transposed_convolution_refuses_an_output_size_it_cannot_make_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    for size in ([11, 11], [9]):  # past a stride beyond the smallest; too few dims
        with pytest.raises(ValueError):
            torch.nn.ConvTranspose2d(2, 3, 3, stride=2)(torch.zeros(1, 2, 4, 4), size)
        with pytest.raises(ValueError):
            nn.ConvTranspose2d(2, 3, 3, stride=2)(Tensor(np.zeros((1, 2, 4, 4))), size)


def _pretrained(lib, make, freeze):
    table = make(np.arange(12.0).reshape(4, 3))
    layer = lib.nn.Embedding.from_pretrained(table, freeze=freeze, padding_idx=1)
    out = layer(make(np.array([1, 2, 2])))
    if not freeze:
        out.sum().backward()
    table[0, 0] = 100.0  # shares the table's memory
    grad = layer.weight.grad
    return (repr(layer), layer.weight.requires_grad, float(out.detach().sum()),
            float(layer.weight.detach()[0, 0]),
            None if grad is None else np.asarray(grad).tolist())


@pytest.mark.parametrize("freeze", [True, False])
def test_embedding_from_pretrained_as_torch(freeze):
    import minigrad
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    assert _pretrained(minigrad, Tensor, freeze) == _pretrained(torch, torch.tensor, freeze)
    with pytest.raises(AssertionError):  # PyTorch's class
        nn.Embedding.from_pretrained(Tensor(np.ones(3)))


def test_embedding_from_pretrained_draws_no_table_of_its_own(monkeypatch):
    """Regression: it made a random N(0, 1) table (float64, then cast) the size of the one
    given, only to replace it: a transient of 12 bytes an entry for a pretrained vocabulary."""
    def no_drawing(rng):
        raise AssertionError("from_pretrained drew a random table")
    monkeypatch.setattr(nn.modules, "_default_rng", no_drawing)
    table = Tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    layer = nn.Embedding.from_pretrained(table, padding_idx=-1)
    assert layer.weight.data is table.data and layer.padding_idx == 2


def test_multihead_attention_takes_its_arguments_in_torchs_order():
    """The fifth positional argument is add_bias_kv, the ninth batch_first, as PyTorch's."""
    layer = nn.MultiheadAttention(8, 2, 0.0, True, True, False, None, None, True)
    assert layer.bias_k.shape == (1, 1, 8) and layer.batch_first and not layer.add_zero_attn


def test_multihead_attention_is_made_without_casting_garbage(monkeypatch):
    """Its in_proj_weight is allocated in its own dtype before being filled: a float64 buffer
    of leftover memory (here made to hold huge values) cast to float32 overflows, a
    RuntimeWarning (an error under -W error)."""
    import warnings
    monkeypatch.setattr(np, "empty", lambda shape, dtype=np.float64: np.full(
        shape, 1e300 if np.dtype(dtype) == np.float64 else 0, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.MultiheadAttention(8, 4)


def test_dropout_forward():
    x = np.random.default_rng(0).uniform(1, 2, (200, 50))
    drop = nn.Dropout(0.3, rng=np.random.default_rng(5))
    out = drop(Tensor(x)).data
    zero = out == 0
    np.testing.assert_allclose(out[~zero], x[~zero] / 0.7, rtol=1e-12)
    assert abs(zero.mean() - 0.3) < 0.02
    again = nn.Dropout(0.3, rng=np.random.default_rng(5))(Tensor(x)).data  # same seed, same mask
    np.testing.assert_array_equal(out, again)
    drop.eval()
    np.testing.assert_array_equal(drop(Tensor(x)).data, x)
    np.testing.assert_array_equal(nn.Dropout(0.0)(Tensor(x)).data, x)
    np.testing.assert_array_equal(nn.Dropout(1.0)(Tensor(x)).data, 0.0)  # as in PyTorch
    assert nn.Dropout().p == 0.5
    with pytest.raises(ValueError):
        nn.Dropout(1.5)


@pytest.mark.parametrize("make", [
    lambda rng: nn.Linear(4, 3, rng=rng),
    lambda rng: nn.Embedding(5, 3, rng=rng),
    lambda rng: GPT(GPTConfig(vocab_size=5, block_size=4, n_layer=1, n_head=2, n_embd=4),
                    seed=rng.integers(1 << 30)),
])
def test_seeded_init_is_reproducible(make):
    a = make(np.random.default_rng(7)).state_dict()
    b = make(np.random.default_rng(7)).state_dict()
    c = make(np.random.default_rng(8)).state_dict()
    assert a.keys() == b.keys() == c.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert any(not np.array_equal(a[k], c[k]) for k in a)


# ----------------------------------------------------------------------------------------------
# Optimizers: step-by-step against formulas written here
# ----------------------------------------------------------------------------------------------
def _problem(seed=0, steps=3):
    """Two hand-made parameters and a gradient for each of `steps` steps (float64)."""
    rng = np.random.default_rng(seed)
    p0 = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    grads = [[rng.standard_normal(p.shape) for p in p0] for _ in range(steps)]
    return p0, grads


def _run(make_opt, p0, grads):
    params = [nn.Parameter(p.copy(), dtype=np.float64) for p in p0]
    opt = make_opt(params)
    history = []
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = Tensor(g.copy())
        opt.step()
        history.append([p.data.copy() for p in params])
    return history


def _sgd_reference(p, grads, lr, momentum=0.0, weight_decay=0.0):
    p = p.copy()
    buf = None
    out = []
    for g in grads:
        d = g + weight_decay * p
        if momentum:
            buf = d.copy() if buf is None else momentum * buf + d
            d = buf
        p = p - lr * d
        out.append(p.copy())
    return out


def _adamw_reference(p, grads, lr, b1, b2, eps, weight_decay):
    p = p.copy()
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    out = []
    for t, g in enumerate(grads, start=1):
        p = p - lr * weight_decay * p  # decoupled decay, before the Adam step
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(p.copy())
    return out


def _check(history, p0, grads, reference):
    for i, p in enumerate(p0):
        expected = reference(p, [gs[i] for gs in grads])
        for step, (got, want) in enumerate(zip((h[i] for h in history), expected)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14,
                                       err_msg=f"param {i}, step {step + 1}")


@pytest.mark.parametrize("momentum,weight_decay", [(0.0, 0.0), (0.9, 0.0), (0.0, 0.1),
                                                   (0.8, 0.05)])
def test_sgd_follows_formula(momentum, weight_decay):
    p0, grads = _problem(1)
    history = _run(lambda ps: SGD(ps, lr=0.1, momentum=momentum, weight_decay=weight_decay),
                   p0, grads)
    _check(history, p0, grads,
           lambda p, gs: _sgd_reference(p, gs, 0.1, momentum, weight_decay))
    if momentum == weight_decay == 0:  # plain SGD, by hand: p - lr * (g1 + g2 + g3)
        np.testing.assert_allclose(history[-1][0], p0[0] - 0.1 * sum(g[0] for g in grads))


@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_adamw_follows_formula(weight_decay):
    p0, grads = _problem(2)
    history = _run(lambda ps: AdamW(ps, lr=0.01, betas=(0.8, 0.95), eps=1e-6,
                                    weight_decay=weight_decay), p0, grads)
    _check(history, p0, grads,
           lambda p, gs: _adamw_reference(p, gs, 0.01, 0.8, 0.95, 1e-6, weight_decay))


def test_adamw_first_step_is_lr_times_sign():
    # bias correction: after one step m_hat = g and v_hat = g^2, so the step is ~lr * sign(g)
    p = nn.Parameter(np.array([1.0, -2.0, 3.0]), dtype=np.float64)
    p.grad = Tensor(np.array([0.5, -3.0, 1e-3]))
    AdamW([p], lr=0.1, eps=1e-12, weight_decay=0.0).step()
    np.testing.assert_allclose(p.data, [0.9, -1.9, 2.9], rtol=1e-9)


def test_adamw_default_weight_decay():
    p0, grads = _problem(3)
    history = _run(lambda ps: AdamW(ps, lr=0.01), p0, grads)
    _check(history, p0, grads,
           lambda p, gs: _adamw_reference(p, gs, 0.01, 0.9, 0.999, 1e-8, 0.01))


def test_parameter_groups_use_their_own_settings():
    p0, grads = _problem(4)
    params = [nn.Parameter(p.copy(), dtype=np.float64) for p in p0]
    opt = AdamW([{"params": [params[0]], "weight_decay": 0.2},
                 {"params": [params[1]], "weight_decay": 0.0, "lr": 0.05}], lr=0.01)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = Tensor(g.copy())
        opt.step()
    np.testing.assert_allclose(
        params[0].data, _adamw_reference(p0[0], [g[0] for g in grads], 0.01, 0.9, 0.999, 1e-8,
                                         0.2)[-1], rtol=1e-12)
    np.testing.assert_allclose(
        params[1].data, _adamw_reference(p0[1], [g[1] for g in grads], 0.05, 0.9, 0.999, 1e-8,
                                         0.0)[-1], rtol=1e-12)

    params = [nn.Parameter(p.copy(), dtype=np.float64) for p in p0]
    opt = SGD([{"params": [params[0]], "lr": 0.5},
               {"params": [params[1]], "weight_decay": 0.3}], lr=0.1, momentum=0.9)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = Tensor(g.copy())
        opt.step()
    np.testing.assert_allclose(
        params[0].data, _sgd_reference(p0[0], [g[0] for g in grads], 0.5, 0.9, 0.0)[-1])
    np.testing.assert_allclose(
        params[1].data, _sgd_reference(p0[1], [g[1] for g in grads], 0.1, 0.9, 0.3)[-1])


@pytest.mark.parametrize("make", [
    lambda ps: SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
    lambda ps: AdamW(ps, lr=0.1, weight_decay=0.1),
    lambda ps: optim.RMSprop(ps, momentum=0.5, centered=True, weight_decay=0.1),
    lambda ps: optim.Adagrad(ps, weight_decay=0.1),
    lambda ps: optim.NAdam(ps, weight_decay=0.1, decoupled_weight_decay=True),
    lambda ps: optim.Rprop(ps),
    lambda ps: optim.ASGD(ps, weight_decay=0.1),
])
def test_params_without_grad_are_skipped(make):
    a = nn.Parameter(np.array([1.0, 2.0]), dtype=np.float64)
    b = nn.Parameter(np.array([3.0, 4.0]), dtype=np.float64)
    opt = make([a, b])
    a.grad = Tensor(np.array([0.5, -0.5]))
    for _ in range(2):
        opt.step()
    np.testing.assert_array_equal(b.data, [3.0, 4.0])  # not even weight decay touches it
    assert not np.array_equal(a.data, [1.0, 2.0])
    opt.zero_grad()
    assert a.grad is None and b.grad is None


@pytest.mark.parametrize("make", [
    lambda ps: SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    lambda ps: AdamW(ps, lr=0.01, weight_decay=0.1),
    lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.1, initial_accumulator_value=0.2),
    lambda ps: optim.NAdam(ps, lr=0.1),  # mu_product: one number per parameter
    lambda ps: optim.ASGD(ps, lr=0.1, lambd=0.1, t0=1),  # eta, mu and the average ax
    lambda ps: optim.Rprop(ps, lr=0.1),
])
def test_optimizer_state_dict_round_trip(make):
    p0, grads = _problem(5, steps=5)
    params_a = [nn.Parameter(p.copy(), dtype=np.float64) for p in p0]
    opt_a = make(params_a)
    for gs in grads[:2]:
        for p, g in zip(params_a, gs):
            p.grad = Tensor(g.copy())
        opt_a.step()
    state = opt_a.state_dict()
    assert int(state["step"]) == 2
    # a fresh optimizer on fresh parameters holding the same values continues identically
    params_b = [nn.Parameter(p.data.copy(), dtype=np.float64) for p in params_a]
    opt_b = make(params_b)
    opt_b.load_state_dict(state)
    for key, value in state.items():  # the state was copied in, not aliased
        if key != "step" and not key.startswith("param_groups."):
            assert not np.shares_memory(value, opt_b.state[key])
            assert not np.shares_memory(value, opt_a.state[key])
    for gs in grads[2:]:
        for pa, pb, g in zip(params_a, params_b, gs):
            pa.grad, pb.grad = Tensor(g.copy()), Tensor(g.copy())
        opt_a.step()
        opt_b.step()
        for pa, pb in zip(params_a, params_b):
            np.testing.assert_array_equal(pa.data, pb.data)
    # without the state the continuation differs (momentum / bias correction matter)
    params_c = [nn.Parameter(p.copy(), dtype=np.float64) for p in p0]
    history = _run(make, p0, grads)
    opt_c = make(params_c)
    for p, h in zip(params_c, history[1]):
        p.data[...] = h
    for p, g in zip(params_c, grads[2]):
        p.grad = Tensor(g.copy())
    opt_c.step()
    assert not np.allclose(params_c[0].data, history[2][0])


def test_optimizer_state_dict_keeps_group_settings_as_torch():
    """PyTorch's optimizer state holds each group's settings, lr included (what a scheduler
    changed), and load_state_dict restores them."""
    params = [nn.Parameter(np.zeros(2)), nn.Parameter(np.zeros(3))]
    opt = optim.Adam([{"params": params[:1]}, {"params": params[1:], "lr": 0.5}], lr=0.01,
                     betas=(0.8, 0.95), amsgrad=True)
    opt.param_groups[0]["lr"] = 0.002  # as a schedule would
    fresh = optim.Adam([{"params": params[:1]}, {"params": params[1:]}])
    fresh.load_state_dict(opt.state_dict())
    assert [{k: v for k, v in g.items() if k != "params"} for g in fresh.param_groups] == \
        [{"lr": 0.002, "betas": (0.8, 0.95), "eps": 1e-8, "weight_decay": 0.0, "amsgrad": True,
          "maximize": False, "decoupled_weight_decay": False},
         {"lr": 0.5, "betas": (0.8, 0.95), "eps": 1e-8, "weight_decay": 0.0, "amsgrad": True,
          "maximize": False, "decoupled_weight_decay": False}]
    with pytest.raises(ValueError, match="param_groups.2.lr names no parameter group"):
        fresh.load_state_dict({"step": np.array(0), "param_groups.2.lr": np.array(0.1)})


def test_optimizer_state_dict_round_trips_betas_given_as_a_list():
    """PyTorch takes betas as any sequence and keeps what it was given."""
    params = [nn.Parameter(np.ones(2))]
    opt = optim.Adam(params, betas=[0.8, 0.9])
    params[0].grad = Tensor(np.ones(2))
    opt.step()
    restored = optim.Adam([nn.Parameter(np.ones(2))], betas=[0.5, 0.5])
    restored.load_state_dict(opt.state_dict())
    assert restored.param_groups[0]["betas"] == [0.8, 0.9]


@pytest.mark.parametrize("name, settings", [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)), ("AdamW", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, decoupled_weight_decay=True,
                   weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("Adadelta", dict(rho=0.8)),
    ("Rprop", dict(lr=0.05, etas=(0.4, 1.3))),
    ("ASGD", dict(lr=0.05, lambd=0.01, t0=2)),
])
def test_optimizer_loads_pytorchs_state_dict_and_goes_on_as_torch(name, settings):
    """A torch optimizer's state dict, as it returns it, taken over after 4 steps: the next 4
    follow torch's (buffers, per-parameter counts and the second group's lr carried over)."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    p0, grads = _problem(6, steps=8)
    theirs = [torch.tensor(p.copy(), requires_grad=True) for p in p0]
    their_opt = getattr(torch.optim, name)([{"params": [theirs[0]]},
                                            {"params": [theirs[1]], "lr": 0.05}], **settings)
    for gs in grads[:4]:
        for p, g in zip(theirs, gs):
            p.grad = torch.tensor(g)
        their_opt.step()
    ours = [nn.Parameter(p.detach().numpy().copy()) for p in theirs]
    our_opt = getattr(optim, name)([{"params": [ours[0]]}, {"params": [ours[1]]}], **settings)
    our_opt.load_state_dict(their_opt.state_dict())
    assert our_opt.param_groups[1]["lr"] == 0.05
    for gs in grads[4:]:
        for p, q, g in zip(theirs, ours, gs):
            p.grad, q.grad = torch.tensor(g), Tensor(g.copy())
        their_opt.step()
        our_opt.step()
    for p, q in zip(theirs, ours):
        np.testing.assert_allclose(q.data, p.detach().numpy(), rtol=1e-12, atol=1e-14)
    ours_state = our_opt.state_dict()  # every buffer went on as torch's (ASGD's average too)
    for index, buffers in their_opt.state_dict()["state"].items():
        for buffer, value in buffers.items():
            key = f"{our_opt._torch_buffer_names.get(buffer, buffer)}.{index}"
            np.testing.assert_allclose(ours_state[key], value.numpy(), rtol=1e-12, atol=1e-14,
                                       err_msg=key)
    with pytest.raises(ValueError):  # groups of other sizes, as torch refuses
        getattr(optim, name)([ours[0], ours[1]], **settings).load_state_dict(
            their_opt.state_dict())


def test_optimizer_load_state_dict_rejects_bad_state():
    p = nn.Parameter(np.ones(3), dtype=np.float64)
    opt = AdamW([p])
    with pytest.raises(KeyError, match="step"):
        opt.load_state_dict({})
    with pytest.raises(ValueError, match="exp_avg.0"):
        opt.load_state_dict({"step": np.array(1), "exp_avg.0": np.zeros(4)})


def test_add_param_group_matches_torch():
    """A group added after some steps: its own settings, the defaults for the rest, and state
    from its first step on."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    p0, grads = _problem(6, steps=4)
    results = []
    for lib, make in ((None, lambda p: nn.Parameter(p.copy(), dtype=np.float64)),
                      (torch, lambda p: torch.tensor(p.copy(), requires_grad=True))):
        first, later = make(p0[0]), make(p0[1])
        opt = (optim if lib is None else torch.optim).AdamW([first], lr=0.05, weight_decay=0.1)
        for step, gs in enumerate(grads):
            if step == 2:
                opt.add_param_group({"params": later, "lr": 0.2})
            for p, g in zip([first, later], gs):
                p.grad = Tensor(g.copy()) if lib is None else torch.tensor(g)
            opt.step()
        assert opt.param_groups[1]["lr"] == 0.2 and opt.param_groups[1]["weight_decay"] == 0.1
        results.append([np.asarray(p.data if lib is None else p.detach().numpy())
                        for p in (first, later)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


@pytest.mark.parametrize("misuse", [
    lambda lib, p: lib.optim.SGD([p], lr=0.1).add_param_group({"params": [p]}),
    lambda lib, p: lib.optim.RMSprop([p], alpha=-0.5),
    lambda lib, p: lib.optim.Adagrad([p], lr_decay=-1.0),
    lambda lib, p: lib.optim.Adamax([p], betas=(0.9, 1.0)),
    lambda lib, p: lib.optim.Adamax([p], eps=-1e-8),
    lambda lib, p: lib.optim.NAdam([p], momentum_decay=-0.1),
    lambda lib, p: lib.optim.NAdam([p], betas=(-0.1, 0.9)),
    lambda lib, p: lib.optim.RAdam([p], weight_decay=-0.1),
    lambda lib, p: lib.optim.RAdam([p], lr=-1.0),
    lambda lib, p: lib.optim.Adadelta([p], rho=1.5),
    lambda lib, p: lib.optim.Adadelta([p], eps=-1.0),
    lambda lib, p: lib.optim.Rprop([p], etas=(1.0, 1.2)),
    lambda lib, p: lib.optim.Rprop([p], etas=(0.5, 1.0)),
    lambda lib, p: lib.optim.Rprop([p], lr=-0.1),
    lambda lib, p: lib.optim.ASGD([p], weight_decay=-0.1),
    lambda lib, p: lib.optim.ASGD([p], lr=-0.1),
])
def test_optimizers_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(lambda lib, F: misuse(lib, lib.nn.Parameter(lib.zeros(2))))


def test_empty_parameter_list_is_an_error():
    with pytest.raises(ValueError):
        SGD([], lr=0.1)


# ----------------------------------------------------------------------------------------------
# Against torch.optim, if torch is installed
# ----------------------------------------------------------------------------------------------
NO_TORCH = "PyTorch is not installed; pip install -e '.[compare]' to run this comparison"


def _torch_trajectory(torch, make_torch_opt, p0, grads):
    params = [torch.tensor(p.copy(), dtype=torch.float64, requires_grad=True) for p in p0]
    opt = make_torch_opt(params)
    history = []
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        history.append([p.detach().numpy().copy() for p in params])
    return history


# (class name, keyword arguments), the same for minigrad.optim and torch.optim
TORCH_OPTIMIZERS = {
    "adamw": ("AdamW", dict(lr=0.01, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.1)),
    "adamw_no_decay": ("AdamW", dict(lr=0.02, weight_decay=0.0)),
    "adamw_defaults": ("AdamW", {}),
    "adamw_amsgrad": ("AdamW", dict(lr=0.02, amsgrad=True)),
    "adam_defaults": ("Adam", {}),
    "adam_l2_decay": ("Adam", dict(lr=0.02, weight_decay=0.1, amsgrad=True)),
    "adam_decoupled": ("Adam", dict(lr=0.02, weight_decay=0.1, decoupled_weight_decay=True)),
    "sgd": ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=0.01)),
    "sgd_defaults": ("SGD", {}),
    "sgd_nesterov": ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=0.01, nesterov=True)),
    "sgd_dampening": ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3)),
    "sgd_maximize": ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=0.01, maximize=True)),
    "adam_maximize": ("Adam", dict(lr=0.02, weight_decay=0.1, amsgrad=True, maximize=True)),
    "adamw_maximize": ("AdamW", dict(lr=0.02, weight_decay=0.1, maximize=True)),
    "rmsprop_defaults": ("RMSprop", {}),
    "rmsprop_centered_momentum": ("RMSprop", dict(lr=0.01, alpha=0.9, weight_decay=0.1,
                                                  momentum=0.8, centered=True)),
    "rmsprop_maximize": ("RMSprop", dict(lr=0.01, momentum=0.5, maximize=True)),
    "adagrad_defaults": ("Adagrad", {}),
    "adagrad_all": ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1,
                                    initial_accumulator_value=0.3, eps=1e-6, maximize=True)),
    "adam_betas_eps": ("Adam", dict(lr=0.01, betas=(0.8, 0.9), eps=1e-4)),
    "adamw_all": ("AdamW", dict(lr=0.01, betas=(0.5, 0.7), eps=1e-3, weight_decay=0.3,
                                amsgrad=True, maximize=True)),
    "rmsprop_centered": ("RMSprop", dict(lr=0.01, alpha=0.8, eps=1e-4, centered=True)),
    "sgd_nesterov_maximize": ("SGD", dict(lr=0.05, momentum=0.5, nesterov=True, maximize=True,
                                          weight_decay=0.2)),
    "adamax_defaults": ("Adamax", {}),
    "adamax_all": ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), eps=1e-4, weight_decay=0.1,
                                  maximize=True)),
    "nadam_defaults": ("NAdam", {}),
    "nadam_l2_decay": ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    "nadam_decoupled": ("NAdam", dict(lr=0.01, betas=(0.8, 0.9), eps=1e-4, weight_decay=0.1,
                                      decoupled_weight_decay=True, maximize=True)),
    # b2 = 0.999: rho_t passes 5 at the 6th step, so both of RAdam's updates are taken
    "radam_defaults": ("RAdam", {}),
    "radam_l2_decay": ("RAdam", dict(lr=0.01, eps=1e-4, weight_decay=0.1)),
    # rho_inf = 4 for b2 = 0.6: never rectified, the momentum update throughout
    "radam_decoupled": ("RAdam", dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1,
                                      decoupled_weight_decay=True, maximize=True)),
    "adadelta_defaults": ("Adadelta", {}),
    "adadelta_all": ("Adadelta", dict(lr=0.5, rho=0.5, eps=1e-3, weight_decay=0.1,
                                      maximize=True)),
    "rprop_defaults": ("Rprop", {}),
    # a narrow step_sizes range so that both clamps bite
    "rprop_all": ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.1),
                                maximize=True)),
    "asgd_defaults": ("ASGD", {}),
    # t0 = 5: averaging starts within the 20 steps
    "asgd_all": ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1,
                              maximize=True)),
}
NEW_OPTIMIZERS = [k for k in TORCH_OPTIMIZERS if k.split("_")[0] in
                  ("adamax", "nadam", "radam", "adadelta", "rprop", "asgd")]


@pytest.mark.parametrize("which", list(TORCH_OPTIMIZERS))
def test_matches_torch_optim(which):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    p0, grads = _problem(6, steps=20)
    name, kwargs = TORCH_OPTIMIZERS[which]
    ours = lambda ps: getattr(optim, name)(ps, **kwargs)
    theirs = lambda ps: getattr(torch.optim, name)(ps, **kwargs)
    for step, (a, b) in enumerate(zip(_run(ours, p0, grads),
                                      _torch_trajectory(torch, theirs, p0, grads))):
        for x, y in zip(a, b):  # float64 both: equal to rounding
            np.testing.assert_allclose(x, y, rtol=1e-11, atol=1e-13, err_msg=f"step {step + 1}")


@pytest.mark.parametrize("which", NEW_OPTIMIZERS)
def test_optimizers_keep_float32_and_match_torch_in_it(which):
    """float32 parameters stay float32 and follow torch's float32 trajectory (to float32's
    rounding: the two round in different places)."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    p0, grads = _problem(8, steps=20)
    name, kwargs = TORCH_OPTIMIZERS[which]
    ours = [nn.Parameter(p.astype(np.float32)) for p in p0]
    theirs = [torch.tensor(p, dtype=torch.float32, requires_grad=True) for p in p0]
    our_opt = getattr(optim, name)(ours, **kwargs)
    their_opt = getattr(torch.optim, name)(theirs, **kwargs)
    for step, gs in enumerate(grads):
        for p, q, g in zip(ours, theirs, gs):
            p.grad = Tensor(g.astype(np.float32))
            q.grad = torch.tensor(g, dtype=torch.float32)
        our_opt.step()
        their_opt.step()
        for p, q in zip(ours, theirs):
            assert p.data.dtype == np.float32
            np.testing.assert_allclose(p.data, q.detach().numpy(), rtol=1e-6, atol=1e-6,
                                       err_msg=f"step {step + 1}")


@pytest.mark.parametrize("name", ["float64", "float16"])
@pytest.mark.parametrize("which", ["nadam_defaults", "asgd_all"])
def test_optimizers_keep_their_numbers_in_torchs_dtype_for_the_default_dtype(which, name):
    """NAdam's mu_product and ASGD's eta and mu are float32 tensors in PyTorch, float64 ones
    under a float64 default dtype (float32 under a float16 one); float32 parameters still
    follow torch's trajectory."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    p0, grads = _problem(4, steps=10)
    optimizer, kwargs = TORCH_OPTIMIZERS[which]
    with default_dtype(name, torch):
        ours = [nn.Parameter(p.astype(np.float32)) for p in p0]
        theirs = [torch.tensor(p, dtype=torch.float32, requires_grad=True) for p in p0]
        our_opt = getattr(optim, optimizer)(ours, **kwargs)
        their_opt = getattr(torch.optim, optimizer)(theirs, **kwargs)
        for gs in grads:
            for p, q, g in zip(ours, theirs, gs):
                p.grad = Tensor(g.astype(np.float32))
                q.grad = torch.tensor(g, dtype=torch.float32)
            our_opt.step()
            their_opt.step()
        numbers = {"nadam": ["mu_product"], "asgd": ["eta", "mu"]}[which.split("_")[0]]
        for i, (p, q) in enumerate(zip(ours, theirs)):
            for number in numbers:
                assert our_opt.state[f"{number}.{i}"].dtype == \
                    their_opt.state[q][number].numpy().dtype, number
            assert p.dtype == np.float32
            np.testing.assert_allclose(p.data, q.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("which", ["sgd", "adam_l2_decay", "adamw_amsgrad",
                                   "rmsprop_centered_momentum", "adagrad_all",
                                   *NEW_OPTIMIZERS])
def test_optimizers_update_zero_dim_parameters_as_torch(which):
    """A 0-d parameter (a learnt scale or temperature) follows torch's trajectory too."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    rng = np.random.default_rng(7)
    p0 = [np.array(rng.standard_normal())]
    grads = [[np.array(rng.standard_normal())] for _ in range(5)]
    name, kwargs = TORCH_OPTIMIZERS[which]
    ours = _run(lambda ps: getattr(optim, name)(ps, **kwargs), p0, grads)
    theirs = _torch_trajectory(torch, lambda ps: getattr(torch.optim, name)(ps, **kwargs), p0,
                               grads)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert a[0].shape == ()
        np.testing.assert_allclose(a[0], b[0], rtol=1e-12, err_msg=f"step {step + 1}")


def _closure_steps(lib, make_opt, p0):
    """Three steps of an optimizer given a closure (a quadratic loss), from inside no_grad as
    PyTorch allows: the losses it returned and the parameter after."""
    p = lib.nn.Parameter(lib.tensor(p0))
    opt = make_opt([p])
    target = lib.tensor(np.array([0.5, -1.0, 2.0]))

    def closure():
        opt.zero_grad()
        loss = ((p - target) ** 2).sum()
        loss.backward()
        return loss

    with lib.no_grad():
        losses = [float(opt.step(closure)) for _ in range(3)]
    return losses, p.detach().numpy() if lib.__name__ == "torch" else p.data


def test_optimizer_step_calls_a_closure_and_returns_its_loss_as_torch():
    import minigrad
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    p0 = np.array([1.0, 2.0, -3.0])
    ours = _closure_steps(minigrad, lambda ps: optim.Adam(ps, lr=0.1), p0)
    theirs = _closure_steps(torch, lambda ps: torch.optim.Adam(ps, lr=0.1), p0)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert optim.SGD([nn.Parameter(np.ones(1))], lr=0.1).step() is None


def _quadratic(lib, x):
    """A convex quadratic 0.5 x.A x - b.x with a non-diagonal A."""
    a = lib.tensor(np.array([[3.0, 0.5, 0.1], [0.5, 2.0, 0.3], [0.1, 0.3, 1.0]]))
    return 0.5 * (x @ (a @ x)) - (lib.tensor(np.array([1.0, -2.0, 0.5])) * x).sum()


def _rosenbrock(lib, x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def _squares(lib, x):
    return (x * x).sum()


def _closure(lib, opt, x, loss_of=_rosenbrock):
    """LBFGS's closure: the loss at x, with its gradient in x.grad."""
    def closure():
        opt.zero_grad()
        loss = loss_of(lib, x)
        loss.backward()
        return loss
    return closure


def _lbfgs_steps(lib, loss_of, x0, steps, **settings):
    """`steps` LBFGS steps of `lib` on loss_of(lib, x) from x0: (loss returned, x) after each."""
    x = lib.nn.Parameter(lib.tensor(x0.copy()))
    opt = lib.optim.LBFGS([x], **settings)
    closure = _closure(lib, opt, x, loss_of)
    return [(float(opt.step(closure).detach()), x.detach().numpy().copy())
            for _ in range(steps)], opt


@pytest.mark.parametrize("loss_of, x0", [
    (_quadratic, np.array([1.0, 2.0, -1.0])),
    (_rosenbrock, np.array([-1.2, 1.0])),
    (_rosenbrock, np.array([-1.2, 1.0, 0.5, -0.3])),
])
@pytest.mark.parametrize("settings", [
    {}, dict(line_search_fn="strong_wolfe"),
    # few iterations per step and a short history: the history is dropped from and carried
    # over between steps, and the trajectory is still far from the minimum when compared
    dict(lr=0.5, max_iter=3, history_size=2),
    dict(max_iter=4, history_size=3, line_search_fn="strong_wolfe"),
    dict(max_iter=6, max_eval=4, tolerance_change=1e-5),
])
def test_lbfgs_follows_torchs_trajectory(loss_of, x0, settings):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    ours, _ = _lbfgs_steps(minigrad, loss_of, x0, 5, **settings)
    theirs, their_opt = _lbfgs_steps(torch, loss_of, x0, 5, **settings)
    # to 1e-8, not float64's rounding: Rosenbrock's valley amplifies it (moving x0 by one ulp
    # moves torch's own x by ~1e-10 after 3 steps of lr 1 without a line search), and torch
    # rounds differently (fused multiply-adds in its add with alpha)
    for step, ((our_loss, our_x), (their_loss, their_x)) in enumerate(zip(ours, theirs)):
        assert our_loss == pytest.approx(their_loss, rel=1e-8, abs=1e-10), f"step {step + 1}"
        np.testing.assert_allclose(our_x, their_x, rtol=1e-8, atol=1e-9,
                                   err_msg=f"step {step + 1}")


def test_lbfgs_keeps_float32_and_goes_on_from_its_state_dict():
    """float32 parameters stay float32 near torch's; a fresh LBFGS given the state dict after
    two steps goes on as the first does (the curvature history carried over)."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    x0 = np.array([-1.2, 1.0, 0.5], dtype=np.float32)
    settings = dict(max_iter=3, line_search_fn="strong_wolfe")
    ours, opt = _lbfgs_steps(minigrad, _rosenbrock, x0, 2, **settings)
    theirs, _ = _lbfgs_steps(torch, _rosenbrock, x0, 2, **settings)
    assert ours[-1][1].dtype == np.float32
    np.testing.assert_allclose(ours[-1][1], theirs[-1][1], rtol=1e-4, atol=1e-5)
    # the history and the direction stay float32 too, as torch's (its state dict holds them)
    assert {name: np.asarray(value).dtype for name, value in opt.state.items()
            if np.asarray(value).ndim} == dict.fromkeys(
        ["d.0", "old_dirs.0", "old_stps.0", "ro.0", "prev_flat_grad.0"], np.float32)

    x = nn.Parameter(np.array([-1.2, 1.0, 0.5]))
    first = optim.LBFGS([x], max_iter=3)
    copy = nn.Parameter(np.zeros(3))
    second = optim.LBFGS([copy], max_iter=3)

    for _ in range(2):
        first.step(_closure(minigrad, first, x))
    copy.data[...] = x.data
    second.load_state_dict(first.state_dict())
    assert int(second.state["n_iter.0"]) == int(first.state["n_iter.0"]) > 2
    assert second.state["old_dirs.0"].shape[1] == 3
    for _ in range(2):
        first.step(_closure(minigrad, first, x))
        second.step(_closure(minigrad, second, copy))
    np.testing.assert_array_equal(copy.data, x.data)
    with pytest.raises(ValueError, match="d.0"):
        optim.LBFGS([nn.Parameter(np.zeros(4))]).load_state_dict(first.state_dict())
    idle = optim.LBFGS([x], max_iter=0)  # no iteration: x stays, as torch's, and no history
    before = x.data.copy()
    idle.step(_closure(minigrad, idle, x))
    np.testing.assert_array_equal(x.data, before)
    assert set(idle.state_dict()) >= {"step", "func_evals.0"}


@pytest.mark.parametrize("settings", [dict(max_iter=3),
                                      dict(max_iter=2, line_search_fn="strong_wolfe")])
def test_lbfgs_loads_pytorchs_state_dict_and_goes_on_as_torch(settings):
    """torch's LBFGS state after 2 steps (its history as lists of tensors) taken over: the
    next 3 steps follow torch's."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    x0 = np.array([-1.2, 1.0, 0.5])
    their_x = torch.nn.Parameter(torch.tensor(x0))
    their_opt = torch.optim.LBFGS([their_x], **settings)
    our_x = nn.Parameter(np.zeros(3))
    our_opt = optim.LBFGS([our_x], **settings)

    for _ in range(2):
        their_opt.step(_closure(torch, their_opt, their_x))
    our_x.data[...] = their_x.detach().numpy()
    our_opt.load_state_dict(their_opt.state_dict())
    for step in range(3):
        their_opt.step(_closure(torch, their_opt, their_x))
        our_opt.step(_closure(minigrad, our_opt, our_x))
        np.testing.assert_allclose(our_x.data, their_x.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=f"step {step + 1}")


def _lbfgs_with_unknown_line_search(lib, p):
    opt = lib.optim.LBFGS([p], line_search_fn="armijo")
    opt.step(_closure(lib, opt, p, _squares))


@pytest.mark.parametrize("misuse", [
    lambda lib, p: lib.optim.LBFGS([p], lr=-1.0),
    lambda lib, p: lib.optim.LBFGS([{"params": [p]}, {"params": [p * 1]}]),
    lambda lib, p: lib.optim.LBFGS([p]).step(),
    _lbfgs_with_unknown_line_search,
])
def test_lbfgs_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(lambda lib, F: misuse(lib, lib.nn.Parameter(lib.ones(2))))


def _hooked_optimizer_run(lib):
    """An SGD step with a closure under step, state-dict and load-state-dict hooks of `lib`:
    what the hooks saw and the parameter after. The pre-hook swaps the closure for one of a
    doubled loss; its handle removed, the next step runs without it."""
    p = lib.nn.Parameter(lib.tensor(np.array([1.0, -2.0])))
    opt = lib.optim.SGD([p], lr=0.1)
    seen = []

    def closure(scale=1.0):
        opt.zero_grad()
        loss = scale * (p * p).sum()
        loss.backward()
        return loss

    def pre(optimizer, args, kwargs):
        seen.append(("pre", optimizer is opt, len(args), args[0] is opt, dict(kwargs)))
        return (args[0], lambda: closure(2.0)), kwargs

    def post(optimizer, args, kwargs):
        seen.append(("post", optimizer is opt, len(args), float(args[1]().detach())))

    handles = [opt.register_step_pre_hook(pre), opt.register_step_post_hook(post)]
    first_loss = float(opt.step(closure).detach())
    handles[0].remove()
    second_loss = float(opt.step(closure).detach())
    handles[1].remove()
    opt.step(closure)
    opt.register_state_dict_pre_hook(lambda optimizer: seen.append("state_dict pre"))
    opt.register_state_dict_post_hook(lambda optimizer, state: seen.append("state_dict post"))
    opt.register_state_dict_pre_hook(lambda optimizer: seen.append("first"), prepend=True)
    state = opt.state_dict()
    opt.param_groups[0]["lr"] = 0.5
    opt.register_load_state_dict_pre_hook(lambda optimizer, given: seen.append("load pre"))
    opt.register_load_state_dict_post_hook(
        lambda optimizer: seen.append(("load post", optimizer.param_groups[0]["lr"])))
    opt.load_state_dict(state)
    return seen, first_loss, second_loss, p.detach().numpy().copy()


def test_optimizer_hooks_see_and_change_what_torchs_do():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    ours, theirs = _hooked_optimizer_run(minigrad), _hooked_optimizer_run(torch)
    assert ours[0] == theirs[0]
    assert ours[1:3] == pytest.approx(theirs[1:3], rel=1e-12)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12)


def test_optimizer_hooks_replace_the_state_dict_and_run_for_lbfgs():
    p = nn.Parameter(np.array([1.0, -2.0]))
    opt = optim.Adam([p], lr=0.1)
    opt.register_state_dict_post_hook(lambda optimizer, state: {**state, "note": 1})
    assert opt.state_dict()["note"] == 1
    opt.register_load_state_dict_pre_hook(
        lambda optimizer, state: {k: v for k, v in state.items() if k != "note"})
    opt.load_state_dict({"step": np.array(3), "note": np.array(1)})  # the hook drops "note"
    assert opt.step_count == 3
    with pytest.raises(RuntimeError, match="pre-hook"):  # as PyTorch: not (args, kwargs)
        handle = opt.register_step_pre_hook(lambda optimizer, args, kwargs: 1)
        opt.step()
    handle.remove()
    lbfgs = optim.LBFGS([p], max_iter=2)  # a subclass's own step runs them too, once
    calls = []
    lbfgs.register_step_post_hook(lambda optimizer, args, kwargs: calls.append(len(args)))
    lbfgs.step(_closure(minigrad, lbfgs, p, _squares))
    assert calls == [2]


def _extra_key_round_trip(lib):
    """An Adam state dict that a post-hook gave an extra top-level entry, loaded by a fresh
    optimizer twice: plainly, then with a pre-hook that takes the entry out."""
    def param(values):
        return (nn.Parameter(np.array(values)) if lib is minigrad
                else lib.nn.Parameter(lib.tensor(values, dtype=lib.float64)))
    p = param([1.0, -2.0])
    opt = lib.optim.Adam([p], lr=0.1)
    p.grad = (Tensor if lib is minigrad else lib.tensor)(np.array([0.5, 1.0]))
    opt.step()
    opt.register_state_dict_post_hook(lambda optimizer, state: state.update(epoch=7))
    saved = opt.state_dict()
    fresh = lib.optim.Adam([param([1.0, -2.0])], lr=0.1)
    fresh.load_state_dict(saved)
    reloaded = fresh.state_dict()
    taken = []
    fresh.register_load_state_dict_pre_hook(
        lambda optimizer, state: taken.append(state.pop("epoch")))
    fresh.load_state_dict(saved)
    return saved.get("epoch"), "epoch" in reloaded, taken, "epoch" in saved


def test_optimizer_load_state_dict_ignores_an_extra_top_level_entry_as_torch():
    """PyTorch's load_state_dict reads only the state and the groups: an entry a state-dict
    post-hook added is ignored (not loaded, not in the next state dict) unless a load pre-hook
    takes it, and that hook works on a copy, not on the caller's dict."""
    ours = _extra_key_round_trip(minigrad)
    assert ours == (7, False, [7], True)
    assert ours == _extra_key_round_trip(torch_or_skip())
    p = nn.Parameter(np.ones(3))
    opt = AdamW([p])
    p.grad = Tensor(np.ones(3))
    opt.step()
    fresh = AdamW([nn.Parameter(np.ones(3))])
    fresh.load_state_dict({**opt.state_dict(), "notes": "run 3", "scheduler": {"last_epoch": 1}})
    assert set(fresh.state) == set(opt.state)


def test_load_state_dict_argument_has_torchs_name():
    params = [nn.Parameter(np.ones(2))]
    opt = optim.SGD(params, lr=0.1, momentum=0.9)
    schedule = optim.lr_scheduler.StepLR(opt, step_size=2)
    params[0].grad = Tensor(np.ones(2))
    opt.step()
    schedule.step()
    opt.load_state_dict(state_dict=opt.state_dict())
    schedule.load_state_dict(state_dict=schedule.state_dict())
    assert schedule.last_epoch == 1


def _clip_both(torch, gs, max_norm, norm_type):
    """clip_grad_norm_ of minigrad and of torch on float64 copies of the gradients `gs`."""
    ours = [nn.Parameter(np.zeros_like(g), dtype=np.float64) for g in gs]
    theirs = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in gs]
    for p, t, g in zip(ours, theirs, gs):
        p.grad, t.grad = Tensor(g.copy()), torch.tensor(g)
    n1 = clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    n2 = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert n1 == pytest.approx(float(n2), rel=1e-12, nan_ok=True)
    for p, t in zip(ours, theirs):
        np.testing.assert_allclose(p.grad, t.grad.numpy(), rtol=1e-9)


@pytest.mark.parametrize("max_norm,norm_type", [
    (1.5, 2.0), (0.5, 1.0), (0.5, 3.0), (0.5, math.inf), (0.5, "inf"), (0.5, -math.inf),
    (1.0, 0.0), (5.0, 0.0), (0.5, -1.0)])
def test_clip_matches_torch(max_norm, norm_type):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    rng = np.random.default_rng(9)
    _clip_both(torch, [rng.standard_normal((3, 4)), rng.standard_normal(5), np.zeros(2)],
               max_norm, norm_type)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
@pytest.mark.parametrize("special", [math.nan, math.inf])
def test_clip_of_nonfinite_gradients_matches_torch(norm_type, special):
    """A NaN norm makes every gradient NaN; an inf norm zeroes the finite entries."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    rng = np.random.default_rng(9)
    gs = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    gs[1][2] = special
    _clip_both(torch, gs, 0.5, norm_type)


def test_clip_grad_norm_error_if_nonfinite_raises_as_torch():
    params = _params_with_grads([np.array([1.0, math.inf])])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    np.testing.assert_array_equal(params[0].grad, [1.0, math.inf])  # left as it was
    assert clip_grad_norm_([], 1.0) == 0.0  # no gradients: torch's tensor(0.)


def _leaf(m):
    return m.ones(2, requires_grad=True)


@pytest.mark.parametrize("misuse", [
    lambda m: m.optim.SGD([_leaf(m)], lr=-0.1),
    lambda m: m.optim.SGD([_leaf(m)], lr=0.1, momentum=-0.5),
    lambda m: m.optim.SGD([_leaf(m)], lr=0.1, weight_decay=-0.1),
    lambda m: m.optim.Adam([_leaf(m)], lr=-1e-3),
    lambda m: m.optim.Adam([_leaf(m)], eps=-1e-8),
    lambda m: m.optim.Adam([_leaf(m)], betas=(1.0, 0.999)),
    lambda m: m.optim.AdamW([_leaf(m)], betas=(0.9, -0.1)),
    lambda m: m.optim.AdamW([_leaf(m)], weight_decay=-0.01),
    lambda m: m.optim.SGD(_leaf(m), lr=0.1),  # a Tensor, not an iterable of them
    lambda m: m.optim.SGD([_leaf(m) * 2], lr=0.1),  # not a leaf
    lambda m: m.optim.SGD([_leaf(m), 2.0], lr=0.1),
    lambda m: (lambda p: m.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(_leaf(m)),
    lambda m: m.optim.lr_scheduler.StepLR([_leaf(m)], step_size=2),  # not an optimizer
    lambda m: m.optim.lr_scheduler.ConstantLR(m.optim.SGD([_leaf(m)], lr=0.1), factor=1.5),
    lambda m: m.optim.SGD([{"params": [_leaf(m)]}, _leaf(m)], lr=0.1),  # a group not a dict
    lambda m: m.optim.SGD([_leaf(m)]).add_param_group([_leaf(m)]),
    lambda m: m.optim.SGD([_leaf(m)]).add_param_group({"params": {_leaf(m)}}),  # unordered
    lambda m: m.optim.Adam([_leaf(m)], lr=m.tensor([0.1, 0.2])),  # a Tensor lr of two entries
])
def test_optimizer_misuse_raises_pytorchs_class(misuse):
    assert_raises_like_torch(lambda lib, F: misuse(lib))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizers_take_a_tensor_lr_and_foreach_as_torch(name):
    """A one-entry Tensor lr is read at each step, so changing it in place changes the next
    step; foreach is accepted. (float64 lr: PyTorch computes with a float32 one in float32,
    1 - lr * weight_decay for instance.)"""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    results = []
    for lib in (minigrad, torch):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0], dtype=lib.float64))
        lr = lib.tensor(0.1, dtype=lib.float64)
        opt = getattr(lib.optim, name)([p], lr=lr, foreach=False)
        for step in range(3):
            p.grad = lib.tensor([0.5, 1.5], dtype=lib.float64)
            opt.step()
            lr.fill_(0.05)
        results.append(p.data if lib is minigrad else p.detach().numpy())
    np.testing.assert_allclose(*results, rtol=1e-12)


def _parameters_as_written(function) -> list[tuple[str, object, object]]:
    """Each parameter's name, kind (positional or keyword-only) and default, in order."""
    return [(name, p.kind, p.default) for name, p in inspect.signature(function).parameters.items()
            if name != "self"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizer_signatures_are_torchs(name):
    """The same parameters, in the same order, positional or keyword-only as in PyTorch (its
    RMSprop takes maximize, and its Adagrad foreach, by position)."""
    torch = torch_or_skip()
    assert (_parameters_as_written(getattr(optim, name).__init__)
            == _parameters_as_written(getattr(torch.optim, name).__init__))


@pytest.mark.parametrize("name", optim.lr_scheduler.__all__)
def test_lr_scheduler_signatures_are_torchs(name):
    torch = torch_or_skip()
    assert (_parameters_as_written(getattr(optim.lr_scheduler, name).__init__)
            == _parameters_as_written(getattr(torch.optim.lr_scheduler, name).__init__))


@pytest.mark.parametrize("name, setting", [
    (name, setting) for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad")
    for setting in ("capturable", "differentiable", "fused")
    if setting != "capturable" or name in ("Adam", "AdamW", "RMSprop")
    if setting != "fused" or name != "RMSprop"])
def test_optimizers_refuse_what_they_cannot_do(name, setting):
    """capturable, differentiable and fused are accepted at their defaults; True is refused."""
    p = nn.Parameter(np.ones(2))
    getattr(optim, name)([p], **{setting: False})
    with pytest.raises(NotImplementedError, match=setting):
        getattr(optim, name)([p], **{setting: True})


def test_rmsprop_maximize_and_adagrad_foreach_by_position_as_torch():
    torch = torch_or_skip()
    import minigrad
    results = []
    for lib in (minigrad, torch):
        p, q = (lib.nn.Parameter(lib.tensor([1.0, -2.0], dtype=lib.float64)) for _ in range(2))
        rmsprop = lib.optim.RMSprop([p], 0.1, 0.9, 1e-8, 0, 0, False, False, None, True)
        adagrad = lib.optim.Adagrad([q], 0.1, 0, 0, 0, 1e-10, False)
        for opt, param in ((rmsprop, p), (adagrad, q)):
            gradient = np.array([0.5, -1.5])
            param.grad = lib.from_numpy(gradient)
            opt.step()
        results.append([t.detach().numpy() if lib is torch else t.data for t in (p, q)])
    np.testing.assert_allclose(*results, rtol=1e-12)


def test_optimizer_repr_as_torch():
    """PyTorch's layout, with its int 0 defaults (minigrad has no foreach, fused or
    differentiable settings to list)."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    shown = []
    for lib in (minigrad, torch):
        first, second = (lib.nn.Parameter(lib.zeros(2)) for _ in range(2))
        text = repr(lib.optim.SGD([{"params": [first]}, {"params": [second], "lr": 0.5}],
                                  lr=0.1, momentum=0.9))
        shown.append("\n".join(line for line in text.split("\n") if not any(
            line.startswith(f"    {key}:") for key in ("differentiable", "foreach", "fused"))))
    assert shown[0] == shown[1]


def test_parameter_group_may_hold_one_tensor_as_torch():
    p = nn.Parameter(np.array([1.0, 2.0]), dtype=np.float64)
    opt = SGD([{"params": p}], lr=0.5)
    assert opt.param_groups[0]["params"] == [p]
    p.grad = Tensor(np.array([1.0, -1.0]))
    opt.step()
    np.testing.assert_array_equal(p.data, [0.5, 2.5])


def test_sgd_rejects_nesterov_without_momentum_as_torch():
    with pytest.raises(ValueError):
        SGD([nn.Parameter(np.zeros(2))], lr=0.1, nesterov=True)


# ----------------------------------------------------------------------------------------------
# Gradient clipping
# ----------------------------------------------------------------------------------------------
def _params_with_grads(grads):
    params = []
    for g in grads:
        p = nn.Parameter(np.zeros_like(g), dtype=np.float64)
        p.grad = None if g is None else Tensor(g.copy())
        params.append(p)
    return params


def test_clip_grad_norm_scales_down_when_above():
    grads = [np.array([[3.0, 0.0], [0.0, 4.0]]), np.array([12.0])]  # global norm 13
    params = _params_with_grads(grads) + [nn.Parameter(np.ones(2))]  # one without grad
    norm = clip_grad_norm_(params, max_norm=1.0)
    assert norm == pytest.approx(13.0, rel=1e-12)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad, g / 13.0, rtol=1e-6)  # direction kept
    new_norm = math.sqrt(sum(float((p.grad ** 2).sum()) for p in params[:2]))
    assert new_norm == pytest.approx(1.0, rel=1e-6)
    assert params[2].grad is None


def test_clip_grad_norm_leaves_small_gradients_alone():
    grads = [np.array([0.3, -0.4]), np.array([[0.0]])]  # norm 0.5
    params = _params_with_grads(grads)
    norm = clip_grad_norm_(params, max_norm=2.0)
    assert norm == pytest.approx(0.5, rel=1e-12)
    for p, g in zip(params, grads):
        np.testing.assert_array_equal(p.grad, g)


def test_clip_grad_norm_of_one_tensor_as_torch():
    """Regression: one Parameter given alone was iterated by rows, which have no gradient, so
    nothing was clipped and the norm was 0."""
    torch = torch_or_skip()
    ours, theirs = nn.Parameter(np.zeros(3)), torch.zeros(3, dtype=torch.float64,
                                                           requires_grad=True)
    grad = np.array([3.0, 4.0, 12.0])
    ours.grad, theirs.grad = Tensor(grad.copy()), torch.tensor(grad)
    assert clip_grad_norm_(ours, 1.0) == pytest.approx(
        float(torch.nn.utils.clip_grad_norm_(theirs, 1.0)), rel=1e-12)
    np.testing.assert_allclose(ours.grad.data, theirs.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_float32_keeps_dtype():
    p = nn.Parameter(np.zeros(4, dtype=np.float32))
    p.grad = Tensor(np.full(4, 10.0, dtype=np.float32))  # norm 20
    assert clip_grad_norm_([p], 5.0) == pytest.approx(20.0, rel=1e-6)
    assert p.grad.dtype == np.float32
    np.testing.assert_allclose(p.grad, np.full(4, 2.5), rtol=1e-5)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, 0.0, -1.0, math.inf, "inf", -math.inf])
def test_get_total_norm_matches_torch(norm_type):
    """The norm of the tensors' norms, as a 0-d tensor of their dtype outside the graph (float32
    stays float32, float32 with float64 promotes); one tensor alone; no tensors: 0.0 float32.
    Regression: float16 tensors gave a float32 norm (Tensor() of a float16 array)."""
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal(5), np.zeros(2)]
    for dtypes in ((np.float64,) * 3, (np.float32,) * 3, (np.float32, np.float64, np.float32),
                   (np.float16,) * 3):
        ours = [minigrad.tensor(a.astype(d), requires_grad=True) for a, d in zip(arrays, dtypes)]
        theirs = [torch.tensor(a.astype(d)) for a, d in zip(arrays, dtypes)]
        total = nn.utils.get_total_norm(ours, norm_type)
        expected = torch.nn.utils.get_total_norm(theirs, norm_type)
        assert isinstance(total, Tensor) and total.shape == () and total.grad_fn is None
        assert total.dtype == np.dtype(str(expected.dtype).removeprefix("torch."))
        np.testing.assert_allclose(total.data, expected.numpy(), rtol=1e-6)
    one = nn.utils.get_total_norm(ours[0], norm_type)
    np.testing.assert_allclose(
        one.data, torch.nn.utils.get_total_norm(theirs[0], norm_type).numpy(), rtol=1e-6)
    empty = nn.utils.get_total_norm([], norm_type)
    assert empty.item() == 0.0 and empty.dtype == np.float32


def test_get_total_norm_of_integer_tensors_raises_as_torch():
    """Regression: an int64 tensor's 2-norm came back as an int64 tensor, truncated."""
    assert_raises_like_torch(lambda lib, F: lib.nn.utils.get_total_norm([lib.tensor([1, 1])]))


def test_get_total_norm_of_nonfinite_tensors_raises_only_if_asked_as_torch():
    torch = torch_or_skip()
    values = np.array([1.0, math.inf])
    assert math.isinf(nn.utils.get_total_norm([Tensor(values)]).item())
    assert_raises_like_torch(lambda lib, F: lib.nn.utils.get_total_norm(
        [lib.tensor(values)], error_if_nonfinite=True))
    with pytest.raises(RuntimeError, match="get_total_norm: the total norm of order 2.0"):
        nn.utils.get_total_norm([Tensor(values)], error_if_nonfinite=True, foreach=True)
    assert torch.nn.utils.get_total_norm([torch.tensor(values)], foreach=True).isinf()


@pytest.mark.parametrize("total_norm", [0.5, 20.0, math.inf, math.nan])
def test_clip_grads_with_norm_matches_torch(total_norm):
    """Gradients scaled by min(1, max_norm / (total_norm + 1e-6)), whatever their own norm:
    left alone below, scaled above, zeroed by an inf norm, NaN from a NaN one; a parameter
    without a gradient skipped, one tensor alone taken."""
    torch = torch_or_skip()
    rng = np.random.default_rng(4)
    grads = [rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(4)]
    ours = [nn.Parameter(np.zeros_like(g), dtype=g.dtype) for g in grads]
    for p, g in zip(ours, grads):
        p.grad = Tensor(g.copy())
    ours.append(nn.Parameter(np.ones(2)))
    theirs = [torch.zeros(g.shape, dtype=torch.float64 if g.dtype == np.float64 else
                          torch.float32, requires_grad=True) for g in grads]
    for t, g in zip(theirs, grads):
        t.grad = torch.tensor(g)
    nn.utils.clip_grads_with_norm_(ours, 2.0, Tensor(np.float32(total_norm)))
    torch.nn.utils.clip_grads_with_norm_(theirs, 2.0, torch.tensor(total_norm))
    for p, t in zip(ours, theirs):
        assert p.grad.dtype == t.grad.numpy().dtype
        np.testing.assert_allclose(p.grad.data, t.grad.numpy(), rtol=1e-6)
    assert ours[2].grad is None
    nn.utils.clip_grads_with_norm_(ours[0], 1.0, Tensor(4.0), foreach=False)
    torch.nn.utils.clip_grads_with_norm_(theirs[0], 1.0, torch.tensor(4.0), foreach=False)
    np.testing.assert_allclose(ours[0].grad.data, theirs[0].grad.numpy(), rtol=1e-6)

    # regression: the factor was computed in float64, not in total_norm's dtype as PyTorch's
    # 1 / (total_norm + 1e-6) * max_norm, so gradients differed in their last bits
    values = rng.uniform(-3, 3, 50)
    for dtype in (np.float32, np.float16, np.float64):
        ours = nn.Parameter(np.zeros(50, np.float32))
        theirs = torch.zeros(50, requires_grad=True)
        ours.grad, theirs.grad = Tensor(values.astype(np.float32)), torch.tensor(values).float()
        norm = np.array(total_norm * 7.3 + 3.1, dtype)
        nn.utils.clip_grads_with_norm_(ours, 2.7, minigrad.tensor(norm))
        torch.nn.utils.clip_grads_with_norm_(theirs, 2.7, torch.from_numpy(norm))
        # a float16 norm: PyTorch takes max_norm unrounded in its float32 arithmetic for
        # float16, minigrad rounds it to float16 first (one float16 rounding apart)
        np.testing.assert_allclose(ours.grad.data, theirs.grad.numpy(),
                                   rtol=1e-3 if dtype == np.float16 else 0)

    def number_for_total_norm(lib, F):  # PyTorch's clamp takes no Python number: TypeError
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.ones(2)
        lib.nn.utils.clip_grads_with_norm_([p], 1.0, 4.0)
    assert_raises_like_torch(number_for_total_norm)


def _batch_norm_pair(torch, features, dims):
    """The same evaluation-mode BatchNorm in minigrad and torch, with statistics and affine
    parameters far from their defaults."""
    theirs = {1: torch.nn.BatchNorm1d, 2: torch.nn.BatchNorm2d}[dims](features).double().eval()
    rng = np.random.default_rng(features * 10 + dims)
    values = {"running_mean": rng.uniform(-1, 1, features),
              "running_var": rng.uniform(0.5, 2, features),
              "weight": rng.uniform(0.5, 1.5, features), "bias": rng.uniform(-1, 1, features)}
    theirs.load_state_dict({**theirs.state_dict(), **{k: torch.tensor(v)
                                                      for k, v in values.items()}})
    ours = {1: nn.BatchNorm1d, 2: nn.BatchNorm2d}[dims](features).to(np.float64).eval()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("kind", ["conv", "conv_transpose", "linear", "linear_one_feature"])
def test_fuse_bn_eval_is_the_two_layers_in_one_as_torch(kind):
    torch = torch_or_skip()
    features = 1 if kind == "linear_one_feature" else 4
    theirs_layer = {"conv": lambda: torch.nn.Conv2d(3, 4, 3),
                    "conv_transpose": lambda: torch.nn.ConvTranspose2d(3, 4, 3),
                    "linear": lambda: torch.nn.Linear(5, 4),
                    "linear_one_feature": lambda: torch.nn.Linear(5, 4)}[kind]().double().eval()
    ours_layer = {"conv": lambda: nn.Conv2d(3, 4, 3),
                  "conv_transpose": lambda: nn.ConvTranspose2d(3, 4, 3),
                  "linear": lambda: nn.Linear(5, 4),
                  "linear_one_feature": lambda: nn.Linear(5, 4)}[kind]().to(np.float64).eval()
    ours_layer.load_state_dict({k: v.detach().numpy()
                                for k, v in theirs_layer.state_dict().items()})
    rng = np.random.default_rng(3)
    ours_bn, theirs_bn = _batch_norm_pair(torch, features, 1 if "linear" in kind else 2)
    if "linear" in kind:
        ours = nn.utils.fuse_linear_bn_eval(ours_layer, ours_bn)
        theirs = torch.nn.utils.fuse_linear_bn_eval(theirs_layer, theirs_bn)
        x = rng.standard_normal((6, 5))
    else:
        transpose = kind == "conv_transpose"
        ours = nn.utils.fuse_conv_bn_eval(ours_layer, ours_bn, transpose=transpose)
        theirs = torch.nn.utils.fuse_conv_bn_eval(theirs_layer, theirs_bn, transpose=transpose)
        x = rng.standard_normal((2, 3, 6, 6))
    assert ours is not ours_layer and isinstance(ours.weight, nn.Parameter)
    np.testing.assert_allclose(ours.weight.data, theirs.weight.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.bias.data, theirs.bias.detach().numpy(), rtol=1e-12,
                               atol=1e-15)
    if kind != "linear_one_feature":  # BatchNorm1d(1) takes no 4 features: only the fused can
        np.testing.assert_allclose(ours(Tensor(x)).data, ours_bn(ours_layer(Tensor(x))).data,
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["constant", "dirac", "eye", "kaiming_normal",
                                  "kaiming_uniform", "normal", "orthogonal", "sparse", "uniform",
                                  "xavier_normal", "xavier_uniform"])
def test_init_old_names_work_and_warn_as_torch(name):
    torch = torch_or_skip()
    shape = (3, 4, 1, 1) if name == "dirac" else (4, 4)
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(name, ())
    for init, tensor in ((nn.init, minigrad.zeros(*shape)), (torch.nn.init, torch.zeros(shape))):
        with pytest.warns(FutureWarning, match=f"{name}_"):
            assert getattr(init, name)(tensor, *args) is tensor
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        p = nn.Parameter(np.zeros(2))
        p.grad = Tensor(np.array([3.0, 4.0]))
        assert nn.utils.clip_grad_norm([p], 1.0) == pytest.approx(5.0)


def _tied_net(lib, dtype):
    """Linear, BatchNorm1d, Tanh, Linear, the two Linear layers sharing one weight parameter
    (0.weight and 3.weight: a tied weight)."""
    first, last = lib.nn.Linear(4, 4), lib.nn.Linear(4, 4)
    last.weight = first.weight
    return lib.nn.Sequential(first, lib.nn.BatchNorm1d(4), lib.nn.Tanh(), last).to(dtype)


def test_functional_call_uses_the_given_tensors_and_leaves_the_module_as_torch():
    torch = torch_or_skip()
    ours, theirs = _tied_net(minigrad, np.float64), _tied_net(torch, torch.float64)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    before = {k: np.array(v, copy=True) for k, v in ours.state_dict().items()}
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 4))
    weight, mean = rng.standard_normal((4, 4)), rng.standard_normal(4)
    results = []
    for lib, net, tensor in ((minigrad, ours, minigrad.tensor), (torch, theirs, torch.tensor)):
        w = tensor(weight, requires_grad=True)
        given = ({"0.weight": w}, {"1.running_mean": tensor(mean)})  # 3.weight is tied to it
        net.eval()
        out = lib.func.functional_call(net, given, (tensor(x),))
        out.sum().backward()
        results.append((out.detach().numpy(), w.grad.numpy(), net[0].weight.grad))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert results[0][2] is None and results[1][2] is None  # the module's own: untouched
    for name, value in ours.state_dict().items():
        np.testing.assert_array_equal(np.asarray(value), before[name])
    assert isinstance(ours[0].weight, nn.Parameter) and ours[3].weight is ours[0].weight
    for lib, net, tensor in ((minigrad, ours, minigrad.tensor), (torch, theirs, torch.tensor)):
        with pytest.raises(RuntimeError, match="Unexpected key.*'nope'"):
            lib.func.functional_call(net, {"nope": tensor(mean)}, (tensor(x),), strict=True)
        with pytest.raises(ValueError):  # two values for one tied parameter
            lib.func.functional_call(net, {"0.weight": tensor(weight), "3.weight":
                                           tensor(weight)}, (tensor(x),))
    with pytest.warns(FutureWarning, match="deprecated"):
        out = nn.utils.stateless.functional_call(ours, {"0.bias": minigrad.zeros(4)},
                                                 minigrad.tensor(x))
    assert out.shape == (5, 4)


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("kind, dim", [("linear", 0), ("conv", 0), ("conv", 1), ("conv", None),
                                       ("conv", -1)])
def test_weight_norm_is_torchs_g_and_v_and_gradients(kind, dim):
    torch = torch_or_skip()
    theirs = (torch.nn.Linear(3, 4) if kind == "linear" else torch.nn.Conv1d(2, 3, 4)).double()
    ours = (nn.Linear(3, 4) if kind == "linear" else nn.Conv1d(2, 3, 4)).to(np.float64)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    torch.nn.utils.weight_norm(theirs, dim=dim)
    assert nn.utils.weight_norm(ours, dim=dim) is ours
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name in ("weight_g", "weight_v"):
        np.testing.assert_allclose(getattr(ours, name).data,
                                   getattr(theirs, name).detach().numpy(), rtol=1e-12)
    x = np.random.default_rng(1).standard_normal((2, 3) if kind == "linear" else (2, 2, 6))
    ours(Tensor(x)).sum().backward()
    theirs(torch.tensor(x)).sum().backward()
    for name in ("weight_g", "weight_v", "bias"):
        np.testing.assert_allclose(getattr(ours, name).grad.numpy(),
                                   getattr(theirs, name).grad.numpy(), rtol=1e-10, atol=1e-12)
    with minigrad.no_grad():  # the optimizer changes g: the next forward's weight follows
        ours.weight_g.mul_(2.0)
    torch.nn.utils.remove_weight_norm(theirs)
    nn.utils.remove_weight_norm(ours)
    assert isinstance(ours.weight, nn.Parameter)
    np.testing.assert_allclose(ours.weight.data, 2 * theirs.weight.detach().numpy(), rtol=1e-12)


def test_weight_norm_refusals_and_warning_as_torch():
    layer = nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match="deprecated"):
        nn.utils.weight_norm(layer)
    with pytest.raises(RuntimeError, match="two weight_norm hooks"), \
            pytest.warns(FutureWarning):
        nn.utils.weight_norm(layer)
    with pytest.raises(ValueError, match="not found"):
        nn.utils.remove_weight_norm(nn.Linear(2, 2))


def test_fusion_refuses_modules_in_training_mode():
    with pytest.raises(AssertionError, match="eval"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2).eval())
    with pytest.raises(AssertionError, match="eval"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(3))


def test_clip_grad_norm_is_get_total_norm_then_clip_grads_with_norm_():
    """PyTorch's clip_grad_norm_ is its two halves; minigrad's gives the same gradients and
    norm (as a float), and takes `foreach` as PyTorch's does."""
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal((3, 3)) * 4, rng.standard_normal(7)]
    whole, halves = _params_with_grads(grads), _params_with_grads(grads)
    norm = clip_grad_norm_(whole, 1.0, norm_type=3.0, foreach=None)
    total = nn.utils.get_total_norm([p.grad for p in halves], 3.0)
    nn.utils.clip_grads_with_norm_(halves, 1.0, total)
    assert norm == pytest.approx(total.item(), rel=1e-12) and norm > 1.0
    for p, q in zip(whole, halves):
        np.testing.assert_allclose(p.grad.data, q.grad.data, rtol=1e-12)


def test_nn_import_paths_are_torchs_and_lead_to_the_same_objects():
    """`import minigrad.nn.functional as F` and the other torch.nn paths work in a fresh
    interpreter, each naming minigrad's own module or object, not a copy."""
    code = ("import minigrad.nn.functional as F\n"
            "import minigrad.nn.init as I\n"
            "from minigrad.nn import functional, init, utils\n"
            "from minigrad.nn.functional import relu\n"
            "from minigrad.nn.parameter import (Buffer, Parameter, UninitializedBuffer,\n"
            "                                   UninitializedParameter)\n"
            "from minigrad.nn.modules import Module, Linear\n"
            "import minigrad\n"
            "assert F is functional is minigrad.functional and relu is minigrad.functional.relu\n"
            "assert I is init is minigrad.init and minigrad.nn.init.xavier_uniform_ is "
            "minigrad.init.xavier_uniform_\n"
            "assert utils.clip_grad_norm_ is minigrad.optim.clip_grad_norm_\n"
            "assert Parameter is minigrad.nn.Parameter and Module is minigrad.nn.Module\n"
            "assert Buffer is minigrad.nn.Buffer and UninitializedBuffer is "
            "minigrad.nn.UninitializedBuffer\n"
            "assert UninitializedParameter is minigrad.nn.UninitializedParameter\n"
            "assert Linear is minigrad.nn.Linear\n")
    runs_in_a_fresh_interpreter(code)


def test_optim_submodule_import_paths_are_torchs():
    """`from minigrad.optim.swa_utils import AveragedModel` and the lr_scheduler import work in
    a fresh interpreter, as `from torch.optim.swa_utils import AveragedModel` does."""
    code = ("from minigrad.optim.swa_utils import SWALR, AveragedModel\n"
            "from minigrad.optim.lr_scheduler import StepLR\n"
            "import minigrad.optim.lr_scheduler as S\n"
            "import minigrad\n"
            "assert AveragedModel is minigrad.optim.swa_utils.AveragedModel and SWALR is "
            "minigrad.swa_utils.SWALR\n"
            "assert S is minigrad.lr_scheduler and StepLR is minigrad.lr_scheduler.StepLR\n")
    runs_in_a_fresh_interpreter(code)


def test_nn_utils_offers_what_torch_nn_utils_names():
    torch = torch_or_skip()
    for name in nn.utils.__all__:
        assert hasattr(torch.nn.utils, name), name
    assert not {"clip_grad_value_", "parameters_to_vector", "vector_to_parameters"} - set(
        vars(nn.utils))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_grad_value_clamps_each_gradient_as_torch(dtype):
    torch = torch_or_skip()
    grads = [np.array([[3.0, -0.2], [-7.0, math.nan]]), None, np.array([math.inf, 0.5])]
    ours = [nn.Parameter(np.zeros((2, 2) if g is None else g.shape), dtype=dtype) for g in grads]
    theirs = [torch.zeros(p.shape, dtype=getattr(torch, np.dtype(dtype).name),
                          requires_grad=True) for p in ours]
    for p, t, g in zip(ours, theirs, grads):
        if g is not None:
            p.grad, t.grad = Tensor(g.astype(dtype)), torch.tensor(g.astype(dtype))
    assert nn.utils.clip_grad_value_(ours, 1.5) is None
    torch.nn.utils.clip_grad_value_(theirs, 1.5)
    for p, t in zip(ours, theirs):
        assert (p.grad is None) == (t.grad is None)
        if p.grad is not None:
            assert p.grad.dtype == dtype
            np.testing.assert_array_equal(p.grad.data, t.grad.numpy())
    one = nn.Parameter(np.zeros(2))  # a single tensor, as torch's
    one.grad = Tensor(np.array([-4.0, 4.0]))
    nn.utils.clip_grad_value_(one, 2)
    np.testing.assert_array_equal(one.grad.data, [-2.0, 2.0])


def test_parameters_to_vector_and_back_as_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    shapes = [(2, 3), (4,), (1, 2, 2)]
    values = [rng.standard_normal(s) for s in shapes]
    ours = [nn.Parameter(v.copy()) for v in values]
    theirs = [torch.tensor(v, requires_grad=True) for v in values]
    vector = nn.utils.parameters_to_vector(ours)
    expected = torch.nn.utils.parameters_to_vector(theirs)
    np.testing.assert_array_equal(vector.data, expected.detach().numpy())
    weights = rng.standard_normal(vector.shape)
    (vector * Tensor(weights)).sum().backward()  # in the graph, as torch's
    (expected * torch.tensor(weights)).sum().backward()
    for p, t in zip(ours, theirs):
        np.testing.assert_array_equal(p.grad.data, t.grad.numpy())
    longer = rng.standard_normal(vector.numel() + 2).astype(np.float32)  # extra entries unused
    nn.utils.vector_to_parameters(Tensor(longer), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(longer), theirs)
    for p, t in zip(ours, theirs):
        assert p.dtype == np.float32 and t.dtype == torch.float32  # vec's dtype, as torch's
        np.testing.assert_array_equal(p.data, t.detach().numpy())
    assert_raises_like_torch(lambda lib, F: (lib.nn.utils.vector_to_parameters(
        lib.ones(3), [lib.nn.Parameter(lib.zeros(2, 2))])))
    with pytest.raises(TypeError):
        nn.utils.vector_to_parameters(np.ones(3), ours)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_pads_and_stacks_as_torch(batch_first, padding_side):
    torch = torch_or_skip()
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal((n, 2, 3)) for n in (3, 5, 1)]
    ours = [Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = nn.utils.rnn.pad_sequence(ours, batch_first, -1.5, padding_side)
    expected = torch.nn.utils.rnn.pad_sequence(theirs, batch_first, -1.5, padding_side)
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    weights = rng.standard_normal(out.shape)
    (out * Tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for p, t in zip(ours, theirs):
        np.testing.assert_array_equal(p.grad.data, t.grad.numpy())
    integers = [np.arange(2), np.arange(4)]
    padded = nn.utils.rnn.pad_sequence([Tensor(a) for a in integers])
    assert padded.dtype == np.int64
    np.testing.assert_array_equal(padded.data, torch.nn.utils.rnn.pad_sequence(
        [torch.tensor(a) for a in integers]).numpy())
    assert nn.utils.rnn.pad_sequence([Tensor(np.ones(2, np.float32))]).dtype == np.float32


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.nn.utils.rnn.pad_sequence([]),
    lambda lib, F: lib.nn.utils.rnn.pad_sequence([lib.ones(2, 3), lib.ones(2, 2)]),
    lambda lib, F: lib.nn.utils.rnn.pad_sequence([lib.ones(2)], padding_side="middle"),
    lambda lib, F: lib.nn.utils.rnn.pad_sequence([lib.ones(())]),
])
def test_pad_sequence_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


# ----------------------------------------------------------------------------------------------
# Learning-rate schedule
# ----------------------------------------------------------------------------------------------
def _expected_lr(step, lr, min_lr, warmup, total):
    """nanoGPT's get_lr: linear warm-up lr * (step + 1) / (warmup + 1), then a half cosine from lr
    at step `warmup` to min_lr at step `total`, then min_lr."""
    if step < warmup:
        return lr * (step + 1) / (warmup + 1)
    if step > total:
        return min_lr
    ratio = (step - warmup) / (total - warmup)
    return min_lr + (lr - min_lr) * (math.cos(math.pi * ratio) + 1) / 2


def test_cosine_lr_points():
    lr, min_lr, warmup, total = 1e-3, 1e-4, 10, 110
    for step in [0, 1, 5, 9, 10, 11, 35, 60, 85, 109, 110, 111, 500]:
        assert cosine_lr(step, lr, min_lr, warmup, total) == pytest.approx(
            _expected_lr(step, lr, min_lr, warmup, total), rel=1e-12), step
    # a few landmarks worked out by hand
    assert cosine_lr(warmup, lr, min_lr, warmup, total) == pytest.approx(lr)
    assert cosine_lr(60, lr, min_lr, warmup, total) == pytest.approx((lr + min_lr) / 2)
    assert cosine_lr(total, lr, min_lr, warmup, total) == pytest.approx(min_lr)
    assert cosine_lr(10 * total, lr, min_lr, warmup, total) == pytest.approx(min_lr)


def test_cosine_lr_shape():
    lr, min_lr, warmup, total = 6e-4, 6e-5, 20, 200
    lrs = [cosine_lr(s, lr, min_lr, warmup, total) for s in range(total + 50)]
    assert 0 < lrs[0] < lr / 10
    assert all(a < b for a, b in zip(lrs[:warmup], lrs[1:warmup + 1]))  # rising to the peak
    assert max(lrs) == pytest.approx(lr) and int(np.argmax(lrs)) == warmup
    assert all(a > b for a, b in zip(lrs[warmup:total], lrs[warmup + 1:total + 1]))  # decaying
    assert all(0 < x <= lr * (1 + 1e-12) for x in lrs)
    assert all(min_lr * (1 - 1e-12) <= x for x in lrs[warmup:])
    assert all(x == pytest.approx(min_lr) for x in lrs[total:])


def test_cosine_lr_without_warmup():
    assert cosine_lr(0, 1.0, 0.0, 0, 100) == pytest.approx(1.0)
    assert cosine_lr(50, 1.0, 0.0, 0, 100) == pytest.approx(0.5)
    assert cosine_lr(100, 1.0, 0.0, 0, 100) == pytest.approx(0.0)


def test_adamw_bias_correction_counts_each_parameters_own_updates():
    """A parameter whose first gradient arrives at the second step gets a first Adam update
    (t = 1): with no weight decay it moves by lr * g / (|g| + eps), i.e. almost exactly lr."""
    early = nn.Parameter(np.zeros(3))
    late = nn.Parameter(np.zeros(3))
    opt = AdamW([early, late], lr=0.1, weight_decay=0.0)
    early.grad = Tensor(np.ones(3))
    opt.step()
    early.grad, late.grad = Tensor(np.ones(3)), Tensor(np.full(3, 2.0))
    opt.step()
    np.testing.assert_allclose(late.data, -0.1 * 2.0 / (2.0 + 1e-8))
    restored = AdamW([early, late], lr=0.1, weight_decay=0.0)
    restored.load_state_dict(opt.state_dict())
    assert int(restored.state_dict()["updates.1"]) == 1


def test_load_state_dict_takes_tensors_and_parameters_as_torch():
    source, target = nn.Linear(3, 2, rng=np.random.default_rng(0)), nn.Linear(3, 2)
    target.load_state_dict({name: nn.Parameter(value.copy())
                            for name, value in source.state_dict().items()})
    for name, value in source.state_dict().items():
        np.testing.assert_array_equal(target.state_dict()[name], value)


# ----------------------------------------------------------------------------------------------
# nn.init
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("nonlinearity, param", [
    ("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
    ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain_matches_torch(nonlinearity, param):
    torch = pytest.importorskip("torch", reason="PyTorch not installed: not compared")
    assert nn.init.calculate_gain(nonlinearity, param) == pytest.approx(
        torch.nn.init.calculate_gain(nonlinearity, param), rel=1e-12)


# (function, its arguments, the standard deviation it draws with for a (64, 32, 3, 3) weight:
# fan_in = 32 * 9 = 288, fan_out = 64 * 9 = 576), from the papers' formulas
INIT_STD = [
    (nn.init.xavier_uniform_, dict(gain=2.0), 2.0 * math.sqrt(2 / (288 + 576))),
    (nn.init.xavier_normal_, dict(), math.sqrt(2 / (288 + 576))),
    (nn.init.kaiming_uniform_, dict(a=math.sqrt(5)), math.sqrt(2 / 6) / math.sqrt(288)),
    (nn.init.kaiming_normal_, dict(mode="fan_out", nonlinearity="relu"), math.sqrt(2 / 576)),
    (nn.init.normal_, dict(std=0.02), 0.02),
    (nn.init.trunc_normal_, dict(std=0.02, a=-0.04, b=0.04), 0.02 * 0.8796),  # truncated at 2 std
]


@pytest.mark.parametrize("init, kwargs, std", INIT_STD)
def test_init_draws_in_place_with_the_papers_spread(init, kwargs, std):
    weight = nn.Parameter(np.zeros((64, 32, 3, 3), dtype=np.float32))
    array = weight.data
    assert init(weight, **kwargs, generator=np.random.default_rng(0)) is weight
    assert weight.data is array and weight.dtype == np.float32 and weight.requires_grad
    assert weight.data.std() == pytest.approx(std, rel=0.02)
    again = nn.Parameter(np.zeros((64, 32, 3, 3), dtype=np.float32))
    init(again, **kwargs, generator=np.random.default_rng(0))
    np.testing.assert_array_equal(weight.data, again.data)


@pytest.mark.parametrize("name", nn.init.__all__)
def test_init_signatures_are_torchs(name):
    """The same parameters in the same order; generator last and positional, as in PyTorch."""
    torch = torch_or_skip()
    assert (_parameters_as_written(getattr(nn.init, name))
            == _parameters_as_written(getattr(torch.nn.init, name)))


def test_init_takes_the_generator_by_position():
    by_name, by_position = (nn.Parameter(np.zeros((4, 3))) for _ in range(2))
    nn.init.kaiming_uniform_(by_name, 0.0, "fan_in", "relu", generator=np.random.default_rng(0))
    nn.init.kaiming_uniform_(by_position, 0.0, "fan_in", "relu", np.random.default_rng(0))
    np.testing.assert_array_equal(by_name.data, by_position.data)


@pytest.mark.parametrize("shape", [(30, 50), (50, 30), (8, 4, 3, 3)])
def test_orthogonal_init_is_semi_orthogonal_times_gain_as_torch(shape):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    ours = nn.init.orthogonal_(nn.Parameter(np.zeros(shape, np.float32)), gain=2.0,
                               generator=np.random.default_rng(0))
    theirs = torch.nn.init.orthogonal_(torch.zeros(shape), gain=2.0).numpy()
    assert ours.dtype == np.float32 and ours.requires_grad
    for matrix in (ours.data.reshape(shape[0], -1), theirs.reshape(shape[0], -1)):
        gram = matrix @ matrix.T if matrix.shape[0] <= matrix.shape[1] else matrix.T @ matrix
        np.testing.assert_allclose(gram, 4 * np.eye(len(gram)), atol=1e-5)


def test_orthogonal_init_draws_uniformly_over_rotations():
    """The sign of each column follows R's diagonal (as PyTorch's): without it a QR
    decomposition's Q leans to one sign, and Q[0, 0] would not average 0."""
    rng = np.random.default_rng(0)
    corners = [nn.init.orthogonal_(Tensor(np.zeros((3, 3))), generator=rng).data[0, 0]
               for _ in range(3000)]
    assert abs(np.mean(corners)) < 4 * np.std(corners) / np.sqrt(3000)


@pytest.mark.parametrize("init", ["kaiming_uniform_", "kaiming_normal_"])
@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0, 2), (0,)])
def test_kaiming_init_of_an_empty_tensor_returns_it_as_torch(init, shape):
    """Of any shape, 1-D too (which has no fans): there is nothing to draw."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    for mode in ("fan_in", "fan_out"):
        with pytest.warns(UserWarning):  # PyTorch: "Initializing zero-element tensors is a no-op"
            assert getattr(torch.nn.init, init)(torch.zeros(shape), mode=mode).shape == shape
        assert getattr(nn.init, init)(Tensor(np.zeros(shape)), mode=mode).shape == shape


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")  # PyTorch's
def test_layers_without_inputs_are_made_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    for make in (lambda n: n.Linear(0, 3), lambda n: n.Conv1d(0, 2, 3), lambda n: n.Linear(3, 0)):
        ours, theirs = make(nn), make(torch.nn)
        for name, value in theirs.state_dict().items():
            assert ours.state_dict()[name].shape == tuple(value.shape)
            if value.numel() and not value.any():  # a bias of a layer without inputs: zeros
                assert not ours.state_dict()[name].any()


def test_eye_init_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    for shape in [(2, 3), (3, 2)]:
        np.testing.assert_array_equal(nn.init.eye_(Tensor(np.zeros(shape))).data,
                                      torch.nn.init.eye_(torch.zeros(shape)).numpy())
    for init in ("eye_", "orthogonal_"):
        with pytest.raises(ValueError):
            getattr(torch.nn.init, init)(torch.zeros(3))
        with pytest.raises(ValueError):
            getattr(nn.init, init)(Tensor(np.zeros(3)))


@pytest.mark.parametrize("shape, groups", [((4, 2, 3), 1), ((6, 4, 3, 3), 2),
                                           ((2, 5, 3, 4, 5), 1), ((6, 2, 3), 3),
                                           ((3, 6, 2, 2), 1), ((0, 2, 3), 1)])
def test_dirac_init_as_torch(shape, groups):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    ours = nn.init.dirac_(Tensor(np.full(shape, 7.0)), groups)
    np.testing.assert_array_equal(ours.data, torch.nn.init.dirac_(torch.full(shape, 7.0),
                                                                   groups).numpy())
    assert ours.dtype == np.float64


def test_dirac_init_keeps_a_convolutions_input():
    """What it is for: padded to keep the size, a convolution with it is the identity on the
    first min(out, in) channels."""
    import minigrad.functional as F
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3, 5, 6)).astype(np.float32))
    weight = nn.init.dirac_(Tensor(np.empty((4, 3, 3, 3), np.float32)))
    out = F.conv2d(x, weight, padding=1)
    np.testing.assert_array_equal(out.data[:, :3], x.data)
    assert not out.data[:, 3].any() and out.dtype == np.float32


@pytest.mark.parametrize("shape, sparsity", [((400, 30), 0.1), ((7, 50), 0.5), ((10, 3), 0.0),
                                             ((10, 3), 1.0), ((3, 0), 0.5), ((0, 3), 0.5)])
def test_sparse_init_zeroes_as_many_per_column_as_torch(shape, sparsity):
    """Exactly ceil(sparsity * rows) zeros in every column, as PyTorch; the rest drawn from
    N(0, std**2) (its spread checked where there are enough entries)."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    ours = nn.init.sparse_(Tensor(np.full(shape, np.nan)), sparsity, std=0.5,
                           generator=np.random.default_rng(1))
    theirs = torch.nn.init.sparse_(torch.full(shape, np.nan, dtype=torch.float64), sparsity,
                                   std=0.5)
    np.testing.assert_array_equal((ours.data == 0).sum(0), (theirs == 0).sum(0).numpy())
    assert ours.dtype == np.float64 and not np.isnan(ours.data).any()
    drawn = ours.data[ours.data != 0]
    if drawn.size > 1000:
        assert abs(drawn.mean()) < 0.05 and abs(drawn.std() - 0.5) < 0.03
    if min(shape) > 1 and 0 < sparsity < 1:  # the zeroed rows differ from column to column
        assert len({tuple(np.flatnonzero(column == 0)) for column in ours.data.T}) > 1


def test_init_bounds_and_constants():
    w = nn.Parameter(np.zeros((100, 50)))
    nn.init.xavier_uniform_(w)
    bound = math.sqrt(6 / 150)
    assert -bound <= w.data.min() and w.data.max() <= bound and w.data.max() > 0.9 * bound
    nn.init.trunc_normal_(w, mean=1.0, a=0.5, b=1.2)
    assert w.data.min() >= 0.5 and w.data.max() <= 1.2
    nn.init.constant_(w, 0.3)
    assert (w.data == 0.3).all()
    nn.init.ones_(w)
    assert (w.data == 1).all()
    nn.init.zeros_(w)
    assert not w.data.any()


@pytest.mark.parametrize("misuse", [
    lambda lib: lib.nn.init.xavier_uniform_(lib.zeros(5)),  # no fan in and out for 1-D
    lambda lib: lib.nn.init.kaiming_normal_(lib.zeros(3, 4), mode="fan_middle"),
    lambda lib: lib.nn.init.calculate_gain("swish"),
    lambda lib: lib.nn.init.dirac_(lib.zeros(4, 2)),
    lambda lib: lib.nn.init.dirac_(lib.zeros(5, 2, 3), groups=2),
    lambda lib: lib.nn.init.sparse_(lib.zeros(4, 2, 3), 0.5),
])
def test_init_refuses_what_torch_refuses(misuse):
    torch = pytest.importorskip("torch", reason="PyTorch not installed: not compared")
    with pytest.raises(Exception) as expected:
        misuse(torch)
    import minigrad
    with pytest.raises(expected.type):
        misuse(minigrad)


# ----------------------------------------------------------------------------------------------
# optim.lr_scheduler
# ----------------------------------------------------------------------------------------------
SCHEDULERS = {
    "lambda": ("LambdaLR", lambda lib: dict(lr_lambda=lambda epoch: 0.9 ** epoch + 0.1)),
    "lambda_per_group": ("LambdaLR", lambda lib: dict(
        lr_lambda=[lambda epoch: 1 / (1 + epoch), lambda epoch: 0.5 * epoch])),
    "step": ("StepLR", lambda lib: dict(step_size=3, gamma=0.5)),
    "multistep": ("MultiStepLR", lambda lib: dict(milestones=[8, 2, 5], gamma=0.3)),
    "exponential": ("ExponentialLR", lambda lib: dict(gamma=0.8)),
    "cosine": ("CosineAnnealingLR", lambda lib: dict(T_max=7, eta_min=0.001)),
    "linear_warmup": ("LinearLR", lambda lib: dict(start_factor=0.1, total_iters=4)),
    "linear_decay": ("LinearLR", lambda lib: dict(start_factor=1.0, end_factor=0.2,
                                                   total_iters=6)),
    "multiplicative": ("MultiplicativeLR", lambda lib: dict(lr_lambda=lambda e: 0.9 + 0.01 * e)),
    "multiplicative_per_group": ("MultiplicativeLR", lambda lib: dict(
        lr_lambda=[lambda epoch: 0.5, lambda epoch: 1 + 0.1 * epoch])),
    "warm_restarts": ("CosineAnnealingWarmRestarts", lambda lib: dict(T_0=3)),
    "warm_restarts_longer": ("CosineAnnealingWarmRestarts", lambda lib: dict(
        T_0=2, T_mult=2, eta_min=0.01)),
    "constant": ("ConstantLR", lambda lib: dict(factor=0.25, total_iters=4)),
    "constant_defaults": ("ConstantLR", lambda lib: {}),
    "polynomial": ("PolynomialLR", lambda lib: dict(total_iters=6, power=2.0)),
    "polynomial_defaults": ("PolynomialLR", lambda lib: {}),
}


def _scheduled_lrs(lib, which: str, last_epoch: int, epochs: int) -> list[list[float]]:
    """get_last_lr() once the scheduler is made and after each of `epochs` steps, for two
    parameter groups (the second with an lr of its own); made to resume at `last_epoch`, the
    groups hold the initial_lr a first scheduler would have left."""
    name, settings = SCHEDULERS[which]
    tensors = [nn.Parameter(np.zeros(n)) if lib.__name__ == "minigrad" else
               lib.zeros(n, requires_grad=True) for n in (2, 1)]
    groups = [{"params": [tensors[0]]}, {"params": [tensors[1]], "lr": 0.3}]
    if last_epoch >= 0:
        groups[0]["initial_lr"], groups[1]["initial_lr"] = 0.2, 0.4
    opt = lib.optim.SGD(groups, lr=0.1)
    schedule = getattr(lib.optim.lr_scheduler, name)(opt, **settings(lib), last_epoch=last_epoch)
    seen = [list(schedule.get_last_lr())]
    for _ in range(epochs):
        opt.step()
        schedule.step()
        seen.append(list(schedule.get_last_lr()))
        assert seen[-1] == [group["lr"] for group in opt.param_groups]
    return seen


@pytest.mark.parametrize("last_epoch", [-1, 3], ids=["new", "resumed at epoch 3"])
@pytest.mark.parametrize("which", list(SCHEDULERS))
def test_lr_schedulers_match_torch(which, last_epoch):
    """20 epochs (past T_max, milestones and total_iters). Made with last_epoch >= 0, PyTorch's
    smooth schedules keep the lr they find at their first step, the stepped ones apply that
    epoch's change."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    np.testing.assert_allclose(_scheduled_lrs(minigrad, which, last_epoch, 20),
                               _scheduled_lrs(torch, which, last_epoch, 20),
                               rtol=1e-12, atol=1e-15)


def _plateau(lib, settings, metrics, add_group_at=None):
    """get_last_lr() after each step(metric) of ReduceLROnPlateau over two parameter groups
    (a third added at step add_group_at), and its counters at the end."""
    import minigrad
    tensors = [nn.Parameter(np.zeros(2)) if lib is minigrad else
               lib.zeros(2, requires_grad=True) for _ in range(3)]
    opt = lib.optim.SGD([{"params": [tensors[0]]}, {"params": [tensors[1]], "lr": 0.5}], lr=1.0)
    schedule = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **settings)
    seen = []
    for step, metric in enumerate(metrics):
        if step == add_group_at:
            opt.add_param_group({"params": [tensors[2]], "lr": 0.7})
        schedule.step(metric)
        seen.append(schedule.get_last_lr())
    return seen, (schedule.num_bad_epochs, schedule.cooldown_counter, schedule.best,
                  schedule.last_epoch)


_METRICS = np.random.default_rng(3).standard_normal((3, 30))


@pytest.mark.parametrize("settings", [
    {}, dict(patience=2), dict(patience=1, cooldown=2, factor=0.5),
    dict(mode="max", patience=1, threshold=0.1),
    dict(mode="max", threshold_mode="abs", threshold=0.3, patience=0),
    dict(threshold_mode="abs", threshold=0.5, patience=1, min_lr=[0.1, 0.2]),
    dict(patience=0, min_lr=0.3, eps=0.05), dict(patience=0, factor=0.9, eps=0.2),
])
@pytest.mark.parametrize("metrics", [_METRICS[0], np.linspace(5, -5, 30) + _METRICS[1],
                                     np.ones(25), -np.abs(_METRICS[2])],
                         ids=["noise", "falling", "flat", "negative"])
def test_reduce_lr_on_plateau_matches_torch(settings, metrics):
    import minigrad
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    add_at = None if isinstance(settings.get("min_lr"), list) else 5
    ours = _plateau(minigrad, settings, list(metrics), add_at)
    theirs = _plateau(torch, settings, list(metrics), add_at)
    assert ours[1] == theirs[1]
    for step, (a, b) in enumerate(zip(ours[0], theirs[0])):
        np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=f"step {step + 1}")


@pytest.mark.parametrize("settings", [dict(factor=1.0), dict(mode="least"),
                                      dict(threshold_mode="relative"), dict(min_lr=[0.1])])
def test_reduce_lr_on_plateau_refuses_what_torch_refuses(settings):
    import minigrad
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    with pytest.raises(ValueError):
        _plateau(torch, settings, [1.0])
    with pytest.raises(ValueError):
        _plateau(minigrad, settings, [1.0])
    with pytest.raises(RuntimeError):  # a group added, and min_lr given per group
        _plateau(torch, dict(min_lr=[0.1, 0.1], patience=0), [1.0] * 3, add_group_at=1)
    with pytest.raises(RuntimeError):
        _plateau(minigrad, dict(min_lr=[0.1, 0.1], patience=0), [1.0] * 3, add_group_at=1)


def _restarts_by_fraction(lib, settings):
    """CosineAnnealingWarmRestarts stepped three times an epoch with the fractional epoch."""
    tensor = nn.Parameter(np.zeros(2)) if lib.__name__ == "minigrad" else \
        lib.zeros(2, requires_grad=True)
    schedule = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        lib.optim.SGD([tensor], lr=0.1), **settings)
    seen = []
    for epoch in range(12):
        for i in range(3):
            schedule.step(epoch + i / 3)
            seen.append([*schedule.get_last_lr(), schedule.last_epoch, schedule.T_cur])
    return seen


@pytest.mark.parametrize("settings", [dict(T_0=3), dict(T_0=2, T_mult=2, eta_min=0.01),
                                      dict(T_0=5, T_mult=3)])
def test_warm_restarts_take_fractional_epochs_as_torch(settings):
    import minigrad
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    np.testing.assert_allclose(_restarts_by_fraction(minigrad, settings),
                               _restarts_by_fraction(torch, settings), rtol=1e-12)


def _momentum_schedule(lib, optimizer, scheduler, settings, steps, kept):
    """lr and momentum (SGD's, or Adam's beta1) of two groups at each of `steps` steps of
    `scheduler` (OneCycleLR or CyclicLR), and the settings `kept` in the first group."""
    import minigrad
    tensors = [nn.Parameter(np.zeros(2)) if lib is minigrad else
               lib.zeros(2, requires_grad=True) for _ in range(2)]
    opt = getattr(lib.optim, optimizer)(
        [{"params": [tensors[0]]}, {"params": [tensors[1]], "lr": 0.3}], lr=0.1,
        **({"momentum": 0.9} if optimizer == "SGD" else {}))
    schedule = getattr(lib.optim.lr_scheduler, scheduler)(opt, **settings)
    seen = []
    for _ in range(steps):
        seen.append([*schedule.get_last_lr(), *(group["momentum"] if optimizer == "SGD" else
                                                group["betas"][0] for group in opt.param_groups)])
        opt.step()
        schedule.step()
    return seen, [opt.param_groups[0].get(key) for key in kept]


def _one_cycle(lib, optimizer, settings, steps):
    return _momentum_schedule(lib, optimizer, "OneCycleLR", settings, steps, (
        "initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum"))


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("settings, steps", [
    (dict(max_lr=1.0, total_steps=20), 20),
    (dict(max_lr=[1.0, 2.0], epochs=4, steps_per_epoch=5, pct_start=0.25,
          anneal_strategy="linear"), 20),
    (dict(max_lr=0.5, total_steps=30, three_phase=True, div_factor=10.0, final_div_factor=100.0,
          base_momentum=0.8, max_momentum=[0.9, 0.99]), 30),
    (dict(max_lr=0.5, total_steps=10, cycle_momentum=False), 10),
])
def test_one_cycle_matches_torch(optimizer, settings, steps):
    import minigrad
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    ours = _one_cycle(minigrad, optimizer, settings, steps)
    theirs = _one_cycle(torch, optimizer, settings, steps)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert ours[1] == pytest.approx(theirs[1], rel=1e-12)


@pytest.mark.parametrize("settings, steps", [
    (dict(max_lr=1.0), 1), (dict(max_lr=1.0, total_steps=0), 1),
    (dict(max_lr=1.0, total_steps=5, pct_start=1), 1),  # an int: PyTorch wants a float
    (dict(max_lr=1.0, total_steps=5, anneal_strategy="exp"), 1),
    (dict(max_lr=[1.0], total_steps=5), 1),  # one per group of two
    (dict(max_lr=1.0, total_steps=5), 8),  # stepped past total_steps
])
def test_one_cycle_refuses_what_torch_refuses(settings, steps):
    import minigrad
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    with pytest.raises(ValueError):
        _one_cycle(torch, "SGD", settings, steps)
    with pytest.raises(ValueError):
        _one_cycle(minigrad, "SGD", settings, steps)


def _cyclic(lib, optimizer, settings, steps=200):
    return _momentum_schedule(lib, optimizer, "CyclicLR", settings, steps,
                              ("max_momentum", "base_momentum"))


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("settings", [
    dict(base_lr=0.01, max_lr=0.1, step_size_up=7),
    dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.5], step_size_up=10, step_size_down=4,
         mode="triangular2", base_momentum=[0.7, 0.75], max_momentum=0.95),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=5, step_size_down=15, mode="exp_range",
         gamma=0.99),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=6, scale_fn=lambda x: 1 / (1 + x)),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=6, scale_fn=lambda x: 0.98 ** x,
         scale_mode="iterations"),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9,
         scale_mode="cycle"),  # ignored: the mode's own, iterations
    dict(base_lr=0.05, max_lr=0.2, step_size_up=4, cycle_momentum=False),
])
def test_cyclic_lr_matches_torch_over_200_steps(optimizer, settings):
    torch = torch_or_skip()
    import minigrad
    ours, theirs = (_cyclic(lib, optimizer, settings) for lib in (minigrad, torch))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert ours[1] == theirs[1]


def test_cyclic_lr_resumes_with_last_epoch_as_torch():
    """A scheduler made with last_epoch continues the cycle from the groups' saved settings."""
    torch = torch_or_skip()
    import minigrad
    lrs = []
    for lib in (minigrad, torch):
        p = nn.Parameter(np.zeros(2)) if lib is minigrad else torch.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        settings = dict(base_lr=0.01, max_lr=0.1, step_size_up=4, mode="triangular2")
        first = lib.optim.lr_scheduler.CyclicLR(opt, **settings)
        for _ in range(5):
            opt.step()
            first.step()
        again = lib.optim.lr_scheduler.CyclicLR(opt, **settings, last_epoch=first.last_epoch)
        lrs.append([])
        for _ in range(12):
            opt.step()
            again.step()
            lrs[-1].append([again.get_last_lr()[0], opt.param_groups[0]["momentum"]])
    np.testing.assert_allclose(*lrs, rtol=1e-12)


def test_cyclic_lr_state_dict_leaves_out_scale_fn_and_resumes():
    """As PyTorch's, the state holds no function: a scheduler made with the same scale_fn
    loads it and goes on as the saved one does."""
    def make():
        opt = optim.SGD([nn.Parameter(np.zeros(2))], lr=0.1, momentum=0.9)
        return opt, optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=lambda x: 0.5 ** x)
    opt, schedule = make()
    for _ in range(4):
        schedule.step()
    saved = schedule.state_dict()
    assert not any(callable(value) for value in saved.values())
    resumed_opt, resumed = make()
    resumed_opt.load_state_dict(opt.state_dict())
    resumed.load_state_dict(saved)
    for _ in range(5):
        schedule.step()
        resumed.step()
        assert resumed.get_last_lr() == schedule.get_last_lr()
        assert resumed_opt.param_groups[0]["momentum"] == opt.param_groups[0]["momentum"]


@pytest.mark.parametrize("optimizer, settings", [
    ("SGD", dict(base_lr=0.01, max_lr=0.1, mode="triangular3")),
    ("SGD", dict(base_lr=[0.01], max_lr=0.1)),  # one per group of two
    ("Adagrad", dict(base_lr=0.01, max_lr=0.1)),  # no momentum to cycle
])
def test_cyclic_lr_refuses_what_torch_refuses(optimizer, settings):
    torch = torch_or_skip()
    import minigrad
    for lib in (torch, minigrad):
        with pytest.raises(ValueError):
            _cyclic(lib, optimizer, settings, steps=1)


def test_lr_scheduler_resumes_from_its_state_dict():
    params = [nn.Parameter(np.zeros(2))]
    opt = optim.SGD(params, lr=0.1)
    schedule = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(4):
        schedule.step()
    saved, saved_opt = schedule.state_dict(), opt.state_dict()  # the lr is in the optimizer's
    resumed_opt = optim.SGD([nn.Parameter(np.zeros(2))], lr=0.1)
    resumed = optim.lr_scheduler.CosineAnnealingLR(resumed_opt, T_max=10)
    resumed_opt.load_state_dict(saved_opt)
    resumed.load_state_dict(saved)
    schedule.step()
    resumed.step()
    assert resumed.get_last_lr() == schedule.get_last_lr() == [
        pytest.approx(0.05 * (1 + math.cos(math.pi * 5 / 10)), rel=1e-12)]


# ----------------------------------------------------------------------------------------------
# minigrad.save and minigrad.load
# ----------------------------------------------------------------------------------------------
def test_save_and_load_round_trip_model_and_optimizer_state(tmp_path):
    import io
    import minigrad
    model = GPT(GPTConfig(vocab_size=7, block_size=4, n_layer=1, n_head=2, n_embd=8), seed=1)
    opt = AdamW(model.parameters(), lr=0.1)
    for p in model.parameters():
        p.grad = Tensor(np.ones_like(p.data))
    opt.step()
    minigrad.save(model.state_dict(), tmp_path / "model.npz")
    buffer = io.BytesIO()
    minigrad.save(opt.state_dict(), buffer)
    buffer.seek(0)
    copy = GPT(GPTConfig(vocab_size=7, block_size=4, n_layer=1, n_head=2, n_embd=8), seed=2)
    copy.load_state_dict(minigrad.load(tmp_path / "model.npz"))
    copy_opt = AdamW(copy.parameters(), lr=0.1)
    copy_opt.load_state_dict(minigrad.load(buffer))
    for (name, a), (_, b) in zip(model.named_parameters(), copy.named_parameters()):
        np.testing.assert_array_equal(a.data, b.data, err_msg=name)
    assert {k: v.tolist() for k, v in copy_opt.state_dict().items()} == \
        {k: v.tolist() for k, v in opt.state_dict().items()}
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]  # no temporary file left


def test_save_keeps_the_previous_file_when_writing_fails(tmp_path, monkeypatch):
    import minigrad
    path = tmp_path / "weights.npz"
    minigrad.save({"w": np.arange(3.0)}, path)

    def failing_write(f, arrays):
        f.write(b"half a file")
        raise OSError("No space left on device")

    monkeypatch.setattr(minigrad.serialization, "_write_npz", failing_write)
    with pytest.raises(OSError, match="No space"):
        minigrad.save({"w": np.zeros(3)}, path)
    monkeypatch.undo()
    np.testing.assert_array_equal(minigrad.load(path)["w"], [0.0, 1.0, 2.0])
    assert [p.name for p in tmp_path.iterdir()] == ["weights.npz"]


def test_save_refuses_what_is_not_a_state_dict_and_load_runs_no_pickle(tmp_path):
    import minigrad
    with pytest.raises(TypeError, match="dict with str keys"):
        minigrad.save([np.zeros(2)], tmp_path / "a.npz")
    with pytest.raises(TypeError, match="'w' is a dict"):
        minigrad.save({"w": {"nested": 1}}, tmp_path / "a.npz")
    np.savez(tmp_path / "pickled.npz", w=np.array([{"code": 1}], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle"):
        minigrad.load(tmp_path / "pickled.npz")


def test_lr_schedulers_chain_and_follow_a_changed_lr_as_torch():
    """PyTorch's schedules move the current lr on: two of them compose, and an lr set by hand
    carries on."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    lrs = []
    for lib, param in ((minigrad, nn.Parameter(np.zeros(2))),
                       (torch, torch.zeros(2, requires_grad=True))):
        opt = lib.optim.SGD([param], lr=0.1)
        schedules = [lib.optim.lr_scheduler.ExponentialLR(opt, 0.9),
                     lib.optim.lr_scheduler.StepLR(opt, 2, 0.5),
                     lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5),
                     lib.optim.lr_scheduler.LinearLR(opt, 0.5, total_iters=3)]
        seen = []
        for epoch in range(12):
            opt.step()
            for schedule in schedules:
                schedule.step()
            if epoch == 6:
                opt.param_groups[0]["lr"] = 0.05
            seen.append(opt.param_groups[0]["lr"])
        lrs.append(seen)
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-12)
    opt = optim.SGD([nn.Parameter(np.zeros(1))], lr=0.1)
    schedule = optim.lr_scheduler.LinearLR(opt, total_iters=0)  # torch: no division by zero
    schedule.step()
    assert schedule.get_last_lr() == [pytest.approx(0.1 / 3)]


# (scheduler, settings) lists for SequentialLR (with its milestones) and ChainedScheduler
COMPOSED_SCHEDULERS = {
    "warmup_then_cosine": ("SequentialLR", [("LinearLR", dict(start_factor=0.1, total_iters=10)),
                                            ("CosineAnnealingLR", dict(T_max=90))], [10]),
    "three_phases": ("SequentialLR", [("ConstantLR", dict(factor=0.5, total_iters=20)),
                                      ("ExponentialLR", dict(gamma=0.97)),
                                      ("MultiStepLR", dict(milestones=[0, 30], gamma=0.5))],
                     [15, 60]),
    # at a milestone a MultiplicativeLR goes on from the lr it finds, the others start over
    "multiplicative_at_milestones": ("SequentialLR", [
        ("StepLR", dict(step_size=3, gamma=0.9)),
        ("MultiplicativeLR", dict(lr_lambda=lambda epoch: 0.97)),
        ("LambdaLR", dict(lr_lambda=lambda epoch: 0.99 ** epoch))], [9, 40]),
    "restarts_and_polynomial": ("SequentialLR", [
        ("CosineAnnealingWarmRestarts", dict(T_0=5, T_mult=2)),
        ("PolynomialLR", dict(total_iters=30, power=2.0))], [50]),
    "one_cycle_first": ("SequentialLR", [("OneCycleLR", dict(max_lr=0.5, total_steps=300)),
                                         ("StepLR", dict(step_size=10))], [70]),
    "chained": ("ChainedScheduler", [("LinearLR", dict(start_factor=0.2, total_iters=8)),
                                     ("ExponentialLR", dict(gamma=0.98)),
                                     ("StepLR", dict(step_size=25, gamma=0.5))], None),
}


def _composed_lrs(lib, which, steps, restore_at=None):
    """lr and momentum of two parameter groups after making the composed scheduler and each of
    `steps` steps; with restore_at, the run goes on from there in a new optimizer and
    schedulers loaded from the state dicts."""
    import minigrad

    def make():
        tensors = [nn.Parameter(np.zeros(2)) if lib is minigrad else
                   lib.zeros(2, requires_grad=True) for _ in range(2)]
        opt = lib.optim.SGD([{"params": [tensors[0]]}, {"params": [tensors[1]], "lr": 0.03}],
                            lr=0.1, momentum=0.9)
        kind, parts, milestones = COMPOSED_SCHEDULERS[which]
        schedulers = [getattr(lib.optim.lr_scheduler, name)(opt, **settings)
                      for name, settings in parts]
        composed = getattr(lib.optim.lr_scheduler, kind)(
            *((opt, schedulers, milestones) if milestones else (schedulers,)))
        return opt, composed

    opt, composed = make()
    seen = []
    for step in range(steps + 1):
        if step:
            opt.step()
            composed.step()
        if step == restore_at:
            saved_opt, saved = opt.state_dict(), composed.state_dict()
            opt, composed = make()
            opt.load_state_dict(saved_opt)
            composed.load_state_dict(saved)
        seen.append([*composed.get_last_lr(),
                     *(group[key] for group in opt.param_groups for key in ("lr", "momentum"))])
    return seen


@pytest.mark.parametrize("which", list(COMPOSED_SCHEDULERS))
def test_sequential_and_chained_schedulers_match_torch(which):
    """120 steps, across the milestones; and resumed from the state dicts at step 47."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    theirs = _composed_lrs(torch, which, 120)
    np.testing.assert_allclose(_composed_lrs(minigrad, which, 120), theirs, rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_allclose(_composed_lrs(minigrad, which, 120, restore_at=47), theirs,
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("misuse", [
    lambda lib, opt, other: lib.SequentialLR(opt, [], milestones=[]),
    lambda lib, opt, other: lib.SequentialLR(opt, [lib.StepLR(opt, 2)], milestones=[3]),
    lambda lib, opt, other: lib.SequentialLR(opt, [lib.StepLR(opt, 2), lib.StepLR(other, 2)],
                                             milestones=[3]),
    lambda lib, opt, other: lib.SequentialLR(
        opt, [lib.StepLR(opt, 2), lib.ReduceLROnPlateau(opt)], milestones=[3]),
    lambda lib, opt, other: lib.ChainedScheduler([]),
    lambda lib, opt, other: lib.ChainedScheduler([lib.StepLR(opt, 2)], optimizer=other),
    lambda lib, opt, other: lib.ChainedScheduler([lib.StepLR(opt, 2), lib.ReduceLROnPlateau(opt)]),
])
def test_sequential_and_chained_schedulers_refuse_what_torch_refuses(misuse):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    for lib in (torch, minigrad):
        opt, other = (lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1) for _ in range(2))
        with pytest.raises(ValueError):
            misuse(lib.optim.lr_scheduler, opt, other)


def _tensor_lr_schedule(lib, name, settings):
    """A schedule of an SGD given lr as a float64 Tensor: whether the group keeps that very
    tensor, and its values, get_last_lr() and initial_lr at each step."""
    param = lib.nn.Parameter(lib.zeros(2, dtype=lib.float64))
    lr = lib.tensor(0.1, dtype=lib.float64)
    opt = lib.optim.SGD([param], lr=lr, momentum=0.9)
    schedule = getattr(lib.optim.lr_scheduler, name)(opt, **settings)
    seen, kept = [], True
    for _ in range(8):
        opt.step()
        schedule.step(*([1.0] if name == "ReduceLROnPlateau" else []))
        last = schedule.get_last_lr()[0]
        kept = kept and opt.param_groups[0]["lr"] is lr and last is not lr
        seen.append([float(lr), float(last), float(opt.param_groups[0].get("initial_lr", 0))])
    return kept, seen


@pytest.mark.parametrize("name, settings", [
    ("StepLR", dict(step_size=2)), ("CosineAnnealingLR", dict(T_max=5)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=10)), ("ReduceLROnPlateau", dict(patience=0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3)),
])
def test_lr_schedulers_fill_a_tensor_lr_in_place_as_torch(name, settings):
    """The optimizer's lr tensor follows the schedule (it was replaced by a new tensor, or by
    a float for OneCycleLR); get_last_lr() and initial_lr are copies, not that tensor."""
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    ours, theirs = (_tensor_lr_schedule(lib, name, settings) for lib in (minigrad, torch))
    assert ours[0] and theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


def test_trunc_normal_refuses_bounds_it_would_draw_from_endlessly():
    w = nn.Parameter(np.zeros((10, 10)))
    with pytest.raises(ValueError, match="at least 1%"):
        nn.init.trunc_normal_(w, std=1.0, a=6.0, b=7.0)
    nn.init.trunc_normal_(w, std=1.0, a=2.0, b=3.0)  # 2.1% of the distribution: drawn
    assert 2.0 <= w.data.min() and w.data.max() <= 3.0


def test_a_parameter_listed_twice_in_a_group_warns_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    p, t = nn.Parameter(np.zeros(2)), torch.zeros(2, requires_grad=True)
    with pytest.warns(UserWarning):
        torch.optim.SGD([t, t], lr=0.1)
    with pytest.warns(UserWarning, match="more than once"):
        optim.SGD([p, p], lr=0.1)


# ----------------------------------------------------------------------------------------------
# optim.swa_utils, against torch.optim.swa_utils
# ----------------------------------------------------------------------------------------------
def _small_net(lib, weights):
    """Linear(3, 4), BatchNorm1d(4), Linear(4, 2) of `lib`, its parameters set to `weights`."""
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    for p, w in zip(net.parameters(), weights):
        p.data[...] = lib.tensor(w) if lib.__name__ == "torch" else w
    return net


def _as_numpy(t):
    return t.detach().numpy() if hasattr(t, "detach") and not isinstance(t, Tensor) else t.data


def _averaged_run(lib, how, use_buffers):
    """An AveragedModel of `lib` over 4 versions of a small net (its weights moved and batch
    statistics gathered between updates): its parameters, buffers and n_averaged."""
    swa = lib.optim.swa_utils
    rng = np.random.default_rng(11)
    weights = [rng.standard_normal(s).astype(np.float32)
               for s in [(4, 3), (4,), (4,), (4,), (2, 4), (2,)]]
    net = _small_net(lib, weights)
    make = {"swa": {}, "ema": dict(avg_fn=swa.get_ema_avg_fn(0.9)),
            "ema_multi": dict(multi_avg_fn=swa.get_ema_multi_avg_fn(0.8)),
            "swa_multi": dict(multi_avg_fn=swa.get_swa_multi_avg_fn())}[how]
    averaged = swa.AveragedModel(net, use_buffers=use_buffers, **make)
    for version in range(4):
        with lib.no_grad():
            for p in net.parameters():
                p.mul_(0.5).add_(0.3 * version)
        # train mode: the batch moves the running statistics
        net(lib.tensor(rng.standard_normal((5, 3)).astype(np.float32)))
        averaged.update_parameters(net)
    return ([_as_numpy(p).copy() for p in averaged.parameters()],
            [_as_numpy(b).copy() for b in averaged.buffers()], int(averaged.n_averaged.item()))


@pytest.mark.parametrize("how", ["swa", "ema", "ema_multi", "swa_multi"])
@pytest.mark.parametrize("use_buffers", [False, True])
def test_averaged_model_averages_as_torch(how, use_buffers):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    ours = _averaged_run(minigrad, how, use_buffers)
    if how == "swa_multi" and use_buffers:  # torch's addcdiv refuses the integer buffer
        with pytest.raises(RuntimeError, match="Integer division"):
            _averaged_run(torch, how, use_buffers)
        how = "swa"  # the same running mean, one tensor at a time
    theirs = _averaged_run(torch, how, use_buffers)
    assert ours[2] == theirs[2] == 4
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # float32 both


def test_update_bn_recomputes_the_statistics_as_torch():
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    rng = np.random.default_rng(12)
    weights = [rng.standard_normal(s).astype(np.float32)
               for s in [(4, 3), (4,), (4,), (4,), (2, 4), (2,)]]
    batches = [rng.standard_normal((6, 3)).astype(np.float32) for _ in range(3)]
    results = []
    for lib in (minigrad, torch):
        net = _small_net(lib, weights)
        net.eval()
        net[1].momentum = 0.3
        loader = [(lib.tensor(b), None) for b in batches]  # (input, target) pairs
        lib.optim.swa_utils.update_bn(loader, net)
        assert not net.training and net[1].momentum == 0.3  # both put back
        results.append([_as_numpy(b).copy() for b in net.buffers()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("settings", [
    dict(swa_lr=0.05), dict(swa_lr=0.5, anneal_epochs=3, anneal_strategy="linear"),
    dict(swa_lr=[0.01, 0.2], anneal_epochs=0), dict(swa_lr=0.02, anneal_epochs=4),
])
def test_swalr_anneals_as_torch(settings):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    lrs = []
    for lib in (minigrad, torch):
        params = [lib.nn.Parameter(lib.tensor(np.ones(2))) for _ in range(2)]
        opt = lib.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.3}], lr=1.0)
        schedule = lib.optim.swa_utils.SWALR(opt, **settings)
        seen = []
        for step in range(8):
            seen.append([group["lr"] for group in opt.param_groups])
            if step == 5:
                opt.param_groups[0]["lr"] = 0.7  # set by hand: carries on
            opt.step()
            schedule.step()
        lrs.append(seen)
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-12)


@pytest.mark.parametrize("misuse", [
    lambda lib, p: lib.optim.swa_utils.SWALR(lib.optim.SGD([p]), 0.1, anneal_strategy="exp"),
    lambda lib, p: lib.optim.swa_utils.SWALR(lib.optim.SGD([p]), 0.1, anneal_epochs=-1),
    lambda lib, p: lib.optim.swa_utils.SWALR(lib.optim.SGD([p]), [0.1, 0.2]),
    lambda lib, p: lib.optim.swa_utils.get_ema_avg_fn(1.5),
    lambda lib, p: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1),
    lambda lib, p: lib.optim.swa_utils.AveragedModel(
        lib.nn.Linear(2, 2), avg_fn=lib.optim.swa_utils.get_ema_avg_fn(),
        multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn()),
])
def test_swa_utils_refuse_what_torch_refuses(misuse):
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import minigrad
    with pytest.raises(Exception) as expected:
        misuse(torch, torch.ones(2, requires_grad=True))
    with pytest.raises(expected.type):
        misuse(minigrad, nn.Parameter(np.ones(2)))


def test_layers_dtype_none_is_the_default_dtype_at_the_call_as_torch():
    """Every layer that takes a dtype defaults it to None, read as the default dtype when the
    layer is made (before, float32 was fixed in each signature); its parameters and buffers,
    and the empty Parameter and Buffer, then have torch's dtypes."""
    torch = torch_or_skip()
    for name in dir(nn):
        cls = getattr(nn, name)
        if isinstance(cls, type) and issubclass(cls, nn.Module):
            dtype = inspect.signature(cls.__init__).parameters.get("dtype")
            assert dtype is None or dtype.default is None, name
    makes = (lambda lib: lib.nn.Linear(2, 3), lambda lib: lib.nn.Linear(2, 3, dtype=None),
             lambda lib: lib.nn.BatchNorm1d(3), lambda lib: lib.nn.LSTM(2, 3),
             lambda lib: lib.nn.MultiheadAttention(4, 2), lambda lib: lib.nn.Embedding(5, 2))

    def dtypes(lib, make):
        module = make(lib)
        return [(n, np.dtype(str(t.dtype).removeprefix("torch."))) for n, t in
                [*module.named_parameters(), *module.named_buffers()]]

    for name in ("float64", "float16", "float32"):
        with default_dtype(name, torch):
            for make in makes:
                ours = dtypes(minigrad, make)
                assert ours == dtypes(torch, make)
                assert ours[0][1] == name
            for make in (lambda lib: lib.nn.Parameter(), lambda lib: lib.nn.Buffer(),
                         lambda lib: lib.nn.UninitializedParameter(),
                         lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(2)):
                assert np.dtype(make(minigrad).dtype) == name
                assert make(torch).dtype == getattr(torch, name)


def test_layers_take_torchs_device_keyword_the_cpu_only():
    """Every layer whose PyTorch constructor names `device` takes it: "cpu" builds the layer
    as without it, another device raises as PyTorch built without CUDA does."""
    torch = torch_or_skip()
    for name in dir(torch.nn):
        theirs = getattr(torch.nn, name)
        if isinstance(theirs, type) and issubclass(theirs, torch.nn.Module) and \
                hasattr(nn, name) and "device" in inspect.signature(theirs.__init__).parameters:
            assert "device" in inspect.signature(getattr(nn, name).__init__).parameters, name
    for make in (lambda lib, device: lib.nn.Linear(2, 3, device=device),
                 lambda lib, device: lib.nn.Conv2d(1, 2, 3, device=device),
                 lambda lib, device: lib.nn.Embedding(5, 2, device=device),
                 lambda lib, device: lib.nn.BatchNorm1d(3, device=device),
                 lambda lib, device: lib.nn.MultiheadAttention(4, 2, device=device)):
        ours, theirs = make(minigrad, "cpu"), make(torch, "cpu")
        assert [(n, p.shape) for n, p in ours.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
        assert_raises_like_torch(lambda lib, F: make(lib, "cuda"))
