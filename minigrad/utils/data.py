"""torch.utils.data for minigrad: datasets, samplers and the DataLoader that batches them.

    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    for xb, yb in loader:   # a new order each pass, from the generator
        ...

Batches are made in the calling process (`num_workers` is accepted and changes nothing: numpy
releases no work to worker processes here). Shuffling draws from `generator` (a
minigrad.Generator or numpy Generator), else from the default one `minigrad.manual_seed` seeds.
"""
from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Callable

import numpy as np

from ..creation import _rng
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ..tensor_functions import stack

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
           "TensorDataset", "default_collate", "default_convert", "random_split"]


# --------------------------------------------------------------------------------------------
# Datasets
# --------------------------------------------------------------------------------------------
class Dataset:
    """A map from indices to samples: subclasses define __getitem__ (and __len__)."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses define __iter__; the DataLoader batches them in order."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class TensorDataset(Dataset):
    """Sample i is (t[i] for each tensor t); the tensors share their first dim."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):  # PyTorch's class for it
            raise AssertionError(f"TensorDataset: size mismatch between tensors: first dims "
                                 f"{[t.shape[0] for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index: int | list[int]) -> Any:
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """The samples of each dataset in turn."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:  # PyTorch's class for it
            raise AssertionError("ConcatDataset: datasets should not be an empty iterable")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: Any = None) -> list[Subset]:
    """`dataset` cut at random into Subsets of the given lengths, or of the given fractions of
    it (summing to 1; what rounding down leaves is dealt one by one from the first), as
    PyTorch's."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [math.floor(n * fraction) for fraction in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise InvalidArgumentError(f"random_split: sum of input lengths {sum(lengths)} does "
                                   f"not equal the length of the input dataset {n}")
    order = _rng("random_split", generator).permutation(n).tolist()
    bounds = list(itertools.accumulate(lengths))
    return [Subset(dataset, order[stop - length:stop]) for stop, length in zip(bounds, lengths)]


# --------------------------------------------------------------------------------------------
# Samplers: the order of the indices
# --------------------------------------------------------------------------------------------
class Sampler:
    """An iterable of dataset indices."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler):
    def __init__(self, data_source: Sequence[Any]) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new random order at each pass; with `replacement`, `num_samples` draws."""

    def __init__(self, data_source: Sequence[Any], replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        rng, n = _rng("RandomSampler", self.generator), len(self.data_source)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        passes = -(-self.num_samples // n) if n else 0
        order = [i for _ in range(passes) for i in rng.permutation(n).tolist()]
        return iter(order[:self.num_samples])

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """`indices` in a new random order at each pass."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        order = _rng("SubsetRandomSampler", self.generator).permutation(len(self.indices))
        return (self.indices[i] for i in order.tolist())

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """The indices of `sampler` in lists of `batch_size` (the last one shorter, or dropped)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# --------------------------------------------------------------------------------------------
# Collating samples into batches, and the DataLoader
# --------------------------------------------------------------------------------------------
def default_collate(batch: Sequence[Any]) -> Any:
    """Samples stacked into one batch, as PyTorch's: tensors and numpy arrays of numbers stacked
    along a new first dim (arrays of strings or objects raise TypeError), Python ints to an
    int64 tensor, floats to float64, bools to bool; strings kept in a list; tuples, lists and
    dicts collated field by field (a namedtuple stays one, other sequences become lists)."""
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch))
    if isinstance(first, (np.ndarray, np.generic)) and first.dtype.kind in "biuf":
        return Tensor(np.stack(batch))
    if isinstance(first, (bool, int, float)):
        dtype = bool if isinstance(first, bool) else np.int64 if isinstance(first, int) \
            else np.float64
        return Tensor(np.array(batch, dtype=dtype))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(first, Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(first).__name__}")


class DataLoader:
    """Batches of `dataset`, as PyTorch's: `batch_size` samples (None: one sample at a time,
    uncollated), in order or `shuffle`d anew at each pass (or in a `sampler`'s or
    `batch_sampler`'s order), joined by `collate_fn` (default_collate); `drop_last` drops a
    last short batch. An IterableDataset is batched in its own order."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Iterable[int] | None = None,
                 batch_sampler: Iterable[list[int]] | None = None, num_workers: int = 0,
                 collate_fn: Callable[[list[Any]], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if isinstance(dataset, IterableDataset) and (shuffle or sampler is not None or
                                                     batch_sampler is not None):
            raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle, "
                             "sampler and batch_sampler options")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
        self.dataset, self.num_workers, self.drop_last = dataset, num_workers, drop_last
        self.generator = generator
        if batch_sampler is not None:
            batch_size = None
        elif not isinstance(dataset, IterableDataset):
            if sampler is None:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else \
                    SequentialSampler(dataset)
            if batch_size is not None:
                batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.sampler, self.batch_sampler = batch_size, sampler, batch_sampler
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None or
                                         batch_size is not None else default_convert)

    def __iter__(self) -> Iterator[Any]:
        if isinstance(self.dataset, IterableDataset):
            samples = iter(self.dataset)
            if self.batch_size is None:
                yield from map(self.collate_fn, samples)
                return
            while batch := list(itertools.islice(samples, self.batch_size)):
                if len(batch) < self.batch_size and self.drop_last:
                    return
                yield self.collate_fn(batch)
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def default_convert(sample: Any) -> Any:
    """One sample as a DataLoader with batch_size=None gives it, as PyTorch's: numpy arrays
    and scalars as tensors, dicts and namedtuples field by field, other tuples and lists as
    lists of converted items; anything else (a tensor, a number, a string) as it is."""
    if isinstance(sample, (np.ndarray, np.generic)) and sample.dtype.kind in "biuf":
        return Tensor(np.asarray(sample))
    if isinstance(sample, Mapping):
        return {key: default_convert(value) for key, value in sample.items()}
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*(default_convert(field) for field in sample))
    if isinstance(sample, (tuple, list)):
        return [default_convert(item) for item in sample]
    return sample
