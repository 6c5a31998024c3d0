"""minigrad.utils.data (datasets, samplers, DataLoader) against torch.utils.data: the same
batches in order, the same collated structures and dtypes, the same lengths and errors; the
shuffled order is minigrad's own (numpy's generator), checked for what it must be."""
from collections import namedtuple

import numpy as np
import pytest

import minigrad
from minigrad import Tensor
from minigrad.utils import data
from tests.helpers import assert_raises_like_torch, torch_or_skip


def _as_lists(batch):
    """A batch's values as plain Python lists, whatever library made it."""
    if isinstance(batch, dict):
        return {key: _as_lists(value) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_as_lists(item) for item in batch) if not hasattr(batch, "_fields") \
            else [_as_lists(item) for item in batch]
    if hasattr(batch, "tolist"):
        return (batch.tolist(), str(batch.dtype).removeprefix("torch."))
    return batch


@pytest.mark.parametrize("settings", [
    dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=None),
    dict(batch_size=3, sampler=[9, 0, 4, 4, 1]),
    dict(batch_sampler=[[1, 2], [7], [0, 3, 5]]),
])
def test_a_data_loader_gives_torchs_batches_in_order(settings):
    torch = torch_or_skip()
    features, labels = np.arange(20.0).reshape(10, 2), np.arange(10) % 3
    ours = data.DataLoader(data.TensorDataset(Tensor(features), Tensor(labels)), **settings)
    theirs = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
        torch.tensor(features), torch.tensor(labels)), **settings)
    assert [_as_lists(b) for b in ours] == [_as_lists(b) for b in theirs]
    assert len(ours) == len(theirs)


Point = namedtuple("Point", "x y")


@pytest.mark.parametrize("samples", [
    [1, 2, 3], [0.5, 1.5], [True, False], ["a", "b"],
    [np.ones(2, dtype=np.float32), np.zeros(2, dtype=np.float32)],
    [(1, 2.0), (3, 4.0)], [[1, 2], [3, 4]],
    [{"id": 1, "pair": (0.5, np.ones(3))}, {"id": 2, "pair": (1.5, np.zeros(3))}],
    [Point(1, 2.0), Point(3, 4.0)],
])
def test_default_collate_batches_samples_as_torch(samples):
    torch = torch_or_skip()
    from torch.utils.data import default_collate
    ours, theirs = data.default_collate(samples), default_collate(samples)
    assert _as_lists(ours) == _as_lists(theirs)
    assert type(ours) is type(theirs) or isinstance(ours, Tensor)


def test_default_collate_refuses_numpy_arrays_of_strings_as_torch():
    """PyTorch raises a TypeError for arrays it can't make a tensor of; before, minigrad made
    a Tensor of dtype '<U1'."""
    assert_raises_like_torch(lambda lib, F: (data if lib is minigrad else lib.utils.data)
                             .default_collate([np.array(["a"]), np.array(["b"])]))


def test_shuffling_visits_every_sample_once_per_pass_in_a_new_order_from_the_generator():
    dataset = data.TensorDataset(Tensor(np.arange(12)))
    loader = data.DataLoader(dataset, batch_size=5, shuffle=True,
                             generator=minigrad.Generator().manual_seed(3))
    passes = [[int(i) for (batch,) in loader for i in batch.tolist()] for _ in range(2)]
    assert all(sorted(order) == list(range(12)) for order in passes)
    assert passes[0] != passes[1] and passes[0] != list(range(12))
    again = data.DataLoader(dataset, batch_size=5, shuffle=True,
                            generator=minigrad.Generator().manual_seed(3))
    assert [int(i) for (batch,) in again for i in batch.tolist()] == passes[0]


def test_random_split_and_subsets_and_concatenation_have_torchs_sizes():
    torch = torch_or_skip()
    for lengths in ([3, 7], [0.25, 0.25, 0.5], [0.3, 0.3, 0.4]):
        ours = data.random_split(data.TensorDataset(Tensor(np.arange(10))), lengths)
        theirs = torch.utils.data.random_split(torch.utils.data.TensorDataset(
            torch.arange(10)), lengths)
        assert [len(s) for s in ours] == [len(s) for s in theirs]
        assert sorted(int(s[i][0]) for s in ours for i in range(len(s))) == list(range(10))
    joined = data.TensorDataset(Tensor(np.arange(3))) + data.TensorDataset(Tensor(np.arange(5)))
    assert len(joined) == 8 and int(joined[4][0]) == 1 and int(joined[-1][0]) == 4
    assert int(data.Subset(joined, [7, 0])[0][0]) == 4


class Count(data.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_an_iterable_dataset_is_batched_in_its_own_order_as_torch():
    torch = torch_or_skip()

    class TheirCount(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    for settings in (dict(batch_size=3), dict(batch_size=3, drop_last=True)):
        ours, theirs = data.DataLoader(Count(7), **settings), torch.utils.data.DataLoader(
            TheirCount(), **settings)
        assert [_as_lists(b) for b in ours] == [_as_lists(b) for b in theirs]
        assert len(ours) == len(theirs)


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.utils.data.TensorDataset(lib.ones(3), lib.ones(4)),
    lambda lib, F: lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.ones(3)),
                                             sampler=[0, 1], shuffle=True),
    lambda lib, F: lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.ones(3)),
                                             batch_sampler=[[0]], batch_size=2),
    lambda lib, F: lib.utils.data.BatchSampler([0, 1], 0, False),
    lambda lib, F: lib.utils.data.RandomSampler([0, 1], num_samples=0),
    lambda lib, F: lib.utils.data.random_split(lib.utils.data.TensorDataset(lib.ones(3)),
                                               [1, 1]),
])
def test_data_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)
