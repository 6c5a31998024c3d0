"""Data parallelism on the CPU cores: split each batch across threads that run forward and
backward on the same parameters, then sum their gradients for one optimizer step.

Threads work here because numpy releases the GIL inside its array loops and BLAS calls, which is
where a step spends its time. Each worker gets its gradients from `minigrad.grad` (returned, not
accumulated into the shared `.grad`), and BLAS is pinned to one thread per worker so the workers
do not fight over the cores.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

import minigrad
from models import GPT


class DataParallel:
    """Computes the loss and gradients of a batch with `threads` workers, each on a shard of it.

    The result equals the single-thread step up to float32 summation order: the loss is the
    shard losses weighted by shard size, and so are the gradients (each shard's loss is a mean).
    """

    def __init__(self, model: GPT, threads: int) -> None:
        if model.config.dropout > 0:
            raise ValueError("data-parallel training with dropout is not supported: the workers "
                             "would draw dropout masks from one generator in a racy order; use "
                             "--threads 1 or --dropout 0")
        self.model = model
        self.threads = threads
        self.params = model.parameters()
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="minigrad-dp")
        self.blas = ThreadpoolController()

    def _shard(self, x: np.ndarray, y: np.ndarray) -> tuple[float, list[np.ndarray | None]]:
        _, loss = self.model(x, y)
        return loss.item(), minigrad.grad(loss, self.params)

    def backward(self, x: np.ndarray, y: np.ndarray) -> float:
        """The batch's mean loss; each parameter's `.grad` is set to the batch's gradient."""
        xs, ys = np.array_split(x, self.threads), np.array_split(y, self.threads)
        # one BLAS thread per worker, only while the workers run (the rest of the step keeps
        # BLAS's own threads)
        with self.blas.limit(limits=1, user_api="blas"):
            futures = [self.pool.submit(self._shard, xi, yi) for xi, yi in zip(xs, ys) if len(xi)]
            results = [f.result() for f in futures]
        weights = [len(xi) / len(x) for xi in xs if len(xi)]
        loss = sum(w * r[0] for w, r in zip(weights, results))
        for i, p in enumerate(self.params):
            total = None
            for w, (_, grads) in zip(weights, results):
                g = grads[i]
                if g is None:
                    continue
                g *= g.dtype.type(w)  # each worker's gradient array is its own
                total = g if total is None else np.add(total, g, out=total)
            p.grad = total
        return loss

    def close(self) -> None:
        self.pool.shutdown()

    def __enter__(self) -> DataParallel:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
