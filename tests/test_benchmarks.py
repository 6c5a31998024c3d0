"""The benchmarks' helpers: what they report about the machine, and the load they create."""
import os
import time

from benchmarks.machine import describe, machine_info
from benchmarks.train_step import busy_processes


def test_machine_info_names_the_cpu_cores_and_blas():
    info = machine_info()
    assert info["usable_cores"] == len(os.sched_getaffinity(0))
    assert info["cpu"] and info["numpy"]
    for blas in info["blas"]:
        assert set(blas) >= {"internal_api", "version", "architecture", "num_threads"}
    text = describe(info)
    assert f"{info['usable_cores']} usable cores" in text and info["numpy"] in text


def test_busy_processes_stop_when_the_block_ends():
    with busy_processes(1, seconds=60) as procs:
        assert len(procs) == 1 and procs[0].poll() is None  # spinning
    assert procs[0].poll() is not None


def test_busy_processes_stop_at_their_deadline_by_themselves():
    start = time.monotonic()
    with busy_processes(1, seconds=0.5) as procs:
        procs[0].wait(timeout=30)  # gone on its own, before the block ends
    assert time.monotonic() - start < 30
