"""What a benchmark ran on, printed beside its results: the CPU model, the usable cores, numpy,
and the BLAS library with the kernel it picked for this CPU and its thread count.

The same code measures very differently on two CPUs of the same class (OpenBLAS's kernels for
AVX2 and AVX-512 differ, and so do the cores a process may use), so a number without these is
not comparable with another.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_info

from train.parallel import usable_cores  # the affinity mask, which containers and taskset narrow


def _cpuinfo() -> dict[str, str]:
    """The first processor's entries of /proc/cpuinfo (Linux); empty elsewhere."""
    info: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    for line in text.split("\n\n")[0].splitlines():
        key, _, value = line.partition(":")
        info[key.strip()] = value.strip()
    return info


def machine_info() -> dict[str, Any]:
    """CPU, cores, numpy and BLAS as a JSON-ready dict."""
    cpu = _cpuinfo()
    flags = set(cpu.get("flags", "").split())
    vector = next((f for f in ("avx512f", "avx2", "avx") if f in flags), None)
    blas = [{key: lib.get(key) for key in ("internal_api", "version", "architecture",
                                           "num_threads", "filepath")}
            for lib in threadpool_info() if lib.get("user_api") == "blas"]
    return {
        "cpu": cpu.get("model name") or platform.processor() or platform.machine(),
        "cpu_family_model": (f"{cpu['cpu family']}/{cpu['model']}"
                             if "cpu family" in cpu and "model" in cpu else None),
        "vector_extensions": vector,
        "usable_cores": usable_cores(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": blas,
        # set on some CPUs to steer old OpenBLAS builds; they change which kernel runs
        "openblas_env": {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS")},
    }


def describe(info: dict[str, Any]) -> str:
    """`machine_info()` as a few lines for the top of a benchmark's output."""
    cpu = info["cpu"] + (f" (family/model {info['cpu_family_model']})"
                         if info["cpu_family_model"] else "")
    if info["vector_extensions"]:
        cpu += f", {info['vector_extensions'].upper()}"
    blas = "; ".join(f"{b['internal_api']} {b['version']}, kernel {b['architecture']}, "
                     f"{b['num_threads']} threads" for b in info["blas"]) or "none found"
    lines = [f"machine: {cpu}; {info['usable_cores']} usable cores",
             f"python {info['python']}, numpy {info['numpy']}, BLAS: {blas}"]
    if info["openblas_env"]:
        lines.append("environment: " + " ".join(f"{k}={v}" for k, v in
                                                sorted(info["openblas_env"].items())))
    return "\n".join(lines)
