"""Data parallelism on the CPU cores: split each batch across threads that run forward and
backward on the same parameters, then sum their gradients for one optimizer step.

Threads work here because numpy releases the GIL inside its array loops and BLAS calls, which is
where a step spends its time. Each worker gets its gradients from `minigrad.grad` (returned, not
accumulated into the shared `.grad`), BLAS is limited to one thread per worker, so workers plus
BLAS threads never outnumber the usable cores, and with one worker per usable core each worker
thread is bound to a core of its own (see `pin_thread`).

Each worker runs its own replica of the model: the same Parameter objects, but its own dropout
layers, whose masks it draws from a generator seeded by (seed, step, worker). What a step
computes then depends only on those three numbers, never on which thread ran first.
"""
from __future__ import annotations

import copy
import itertools
import os
import threading
from contextlib import AbstractContextManager
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np
from threadpoolctl import ThreadpoolController

import minigrad
from minigrad import Tensor, nn
from models import GPT


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), not all the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def limit_blas_to_usable_cores() -> ThreadpoolController:
    """Cap BLAS at one thread per usable core (OpenBLAS otherwise counts every core of the
    machine, and threads that wait for a core they do not get spin); returns the controller."""
    controller = ThreadpoolController()
    controller.limit(limits=usable_cores(), user_api="blas")
    return controller


def one_blas_thread() -> AbstractContextManager:
    """A context in which BLAS runs on one thread, for sampling: one token at a time, its
    products are too small to gain from a second thread, and while another process keeps a core
    busy, a second thread spins waiting for it (`python benchmarks/generate.py --load 1`)."""
    return ThreadpoolController().limit(limits=1, user_api="blas")


def pin_thread(cores: list[int], turn: itertools.count) -> None:
    """Bind the calling thread to `cores[next(turn)]` (a ThreadPoolExecutor initializer). Left
    free, the two workers of a step on two cores, woken together while another process kept one
    core busy, ran on the same core: the scheduler sees both cores busy either way and never
    separates them, so the workers had one core between them instead of one and a half (on 2
    cores of an Intel Xeon, forward and backward with one busy process took 1.46x their quiet
    time unbound, 1.26x bound; README, Performance)."""
    try:
        os.sched_setaffinity(threading.get_native_id(), {cores[next(turn)]})
    except OSError:  # not allowed here (some sandboxes): the workers run unbound
        pass


def cores_to_bind(threads: int) -> list[int]:
    """The cores to bind `threads` workers to, one each: this process's usable cores when the
    workers are exactly as many (the default), else none. With fewer workers, every process
    would bind its workers to the same first cores and leave the others idle; with more, two
    workers would share a core for good."""
    if not hasattr(os, "sched_setaffinity"):  # Linux only
        return []
    cores = sorted(os.sched_getaffinity(0))
    return cores if len(cores) == threads else []


def seed_dropout(model: nn.Module, seed: int, step: int, worker: int = 0) -> None:
    """Make every dropout layer of `model` draw this step's masks from one generator seeded by
    (seed, step, worker), so that a step's masks do not depend on what ran before it."""
    rng = np.random.default_rng([seed, step, worker])
    for _, module in model.named_modules():
        if isinstance(module, nn.Dropout):
            module.rng = rng


def replica(module: nn.Module, share_buffers: bool = True) -> nn.Module:
    """A copy of `module`'s tree of modules that shares its Parameter objects (and so its
    weights and their updates) but has layers of its own, dropout layers included. Its buffers
    (a BatchNorm's running statistics) are `module`'s own unless `share_buffers` is False: then
    copies, so that two workers never update one array at once."""
    clone = copy.copy(module)
    object.__setattr__(clone, "_parameters", dict(module._parameters))
    # assigning a buffer on a replica must not reach the original: a dict of its own
    buffers = dict(module._buffers) if share_buffers else {
        name: None if b is None else Tensor(b.data.copy()) for name, b in module._buffers.items()}
    object.__setattr__(clone, "_buffers", buffers)
    for name, buffer in buffers.items():  # a module's buffers are attributes too
        object.__setattr__(clone, name, buffer)
    object.__setattr__(clone, "_non_persistent_buffers", set(module._non_persistent_buffers))
    object.__setattr__(clone, "_modules", {})
    for name, child in module._modules.items():
        setattr(clone, name, replica(child, share_buffers))
    return clone


class DataParallel:
    """Computes the loss and gradients of a batch with `threads` workers, each on a shard of it.

    Without dropout the result equals the single-thread step up to float32 summation order: the
    loss is the shard losses weighted by shard size, and so are the gradients (each shard's loss
    is a mean). Buffers are as in PyTorch's DataParallel: the first worker runs on the model's
    own (a BatchNorm's running statistics follow its shard), the others on copies of them made
    at each step."""

    def __init__(self, model: GPT, threads: int, seed: int = 0) -> None:
        self.model = model
        self.threads = threads
        self.seed = seed
        self.replicas = [replica(model, share_buffers=worker == 0) for worker in range(threads)]
        cores = cores_to_bind(threads)
        binding = {"initializer": pin_thread, "initargs": (cores, itertools.count())} \
            if cores else {}
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="minigrad-dp",
                                       **binding)
        self.blas = ThreadpoolController()

    def _on_shards(self, x: np.ndarray, y: np.ndarray,
                   work: Callable[[int, np.ndarray, np.ndarray, float], Any]) -> list[Any]:
        """work(worker, x shard, y shard, the shard's share of the batch) for each non-empty
        shard, run by the workers; the results in worker order, whichever finished first."""
        for replica_model in self.replicas:
            replica_model.train(self.model.training)
        self._copy_buffers()
        xs, ys = np.array_split(x, self.threads), np.array_split(y, self.threads)
        # one BLAS thread per worker, only while the workers run (the rest of the step keeps
        # BLAS's own threads)
        with self.blas.limit(limits=1, user_api="blas"):
            futures = [self.pool.submit(work, w, xi, yi, len(xi) / len(x))
                       for w, (xi, yi) in enumerate(zip(xs, ys)) if len(xi)]
            return [f.result() for f in futures]

    def backward(self, x: np.ndarray, y: np.ndarray, step: int = 0) -> float:
        """The batch's mean loss; each parameter's `.grad` is set to the batch's gradient.
        `step` seeds the dropout masks."""
        fused = minigrad.is_fused_enabled()  # the switch is per thread: carry it over
        params = [p for p in self.model.parameters() if p.requires_grad]  # frozen ones: no grad

        def shard(worker: int, x: np.ndarray, y: np.ndarray, weight: float) -> tuple[float, tuple]:
            # the loss and gradients scaled by the shard's share of the batch: backward starts
            # from `weight` instead of 1, which costs nothing
            model = self.replicas[worker]
            seed_dropout(model, self.seed, step, worker)
            with minigrad.fused(fused):
                _, loss = model(x, y)
                return loss.item() * weight, minigrad.grad(loss, params, grad_outputs=weight,
                                                           allow_unused=True)

        results = self._on_shards(x, y, shard)
        for i, p in enumerate(params):
            total = None
            for _, grads in results:  # in worker order, whichever finished first
                g = grads[i]
                if g is not None:  # each worker's gradient is its own: add in place
                    total = g if total is None else total.add_(g)
            p.grad = total
        return sum(loss for loss, _ in results)

    def loss(self, x: np.ndarray, y: np.ndarray) -> float:
        """The batch's mean loss alone, for evaluation: the workers share it as in backward, so
        that it too runs one BLAS thread per core (with BLAS on every core, a busy process made
        an evaluation wait for it)."""
        fused = minigrad.is_fused_enabled()

        def shard(worker: int, x: np.ndarray, y: np.ndarray, weight: float) -> float:
            with minigrad.fused(fused), minigrad.no_grad():
                return self.replicas[worker](x, y)[1].item() * weight

        return sum(self._on_shards(x, y, shard))

    def _copy_buffers(self) -> None:
        """The model's buffer values into the copies the workers after the first run on."""
        originals = [m._buffers for _, m in self.model.named_modules(remove_duplicate=False)]
        for replica_model in self.replicas[1:]:
            copies = [m._buffers for _, m in replica_model.named_modules(remove_duplicate=False)]
            for own, original in zip(copies, originals):
                for name, buffer in original.items():
                    if buffer is not None:
                        np.copyto(own[name].data, buffer.data)

    def close(self) -> None:
        self.pool.shutdown()

    def __enter__(self) -> DataParallel:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
