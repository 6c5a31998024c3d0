"""Keep freed memory for reuse instead of handing it back to the operating system.

A training step allocates and frees hundreds of temporary arrays of a few megabytes. glibc's
malloc serves blocks that large with fresh mmap()s and returns them on free(), so every new
temporary page-faults its way in again, page by page: that zero-filling cost a third of a
baby-GPT step here. Raising malloc's mmap and trim thresholds makes freed blocks stay in the heap
and get reused (like PyTorch's caching CPU allocator), for a modestly larger resident size.

This is process-wide, so the library never does it by itself: `python -m train` and the
benchmarks opt in by calling `keep_freed_memory()`. It only applies on glibc systems.
"""
from __future__ import annotations

import ctypes
import ctypes.util

_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3  # from glibc's malloc.h


def keep_freed_memory() -> bool:
    """Tune glibc's malloc as above; returns False where it does not apply (not glibc)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)  # glibc's largest allowed threshold
                and mallopt(_M_TRIM_THRESHOLD, 1 << 30)
                and mallopt(_M_TOP_PAD, 64 << 20))
