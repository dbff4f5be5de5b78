"""Free heap pages of a long-running jellybit given back to the system.

glibc's malloc keeps the pages a process freed (in the arenas of the threads that
used them: ``asyncio.to_thread``'s, SQLite's, the qBittorrent client's) for its next
allocations, so a busy spell's peak stays in jellybit's resident memory after it.
``give_back``, at the CPU pool's rest after a busy spell (worker/cpu.py), returns
them. Elsewhere than glibc (musl, macOS) it only collects garbage.
"""

import ctypes
import ctypes.util
import gc
from functools import cache


@cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim  # noqa: B018  # glibc only: AttributeError elsewhere
    except (OSError, AttributeError):
        return None
    return libc


def give_back() -> bool:
    """Collect garbage, then return the heap's free pages to the system (True if any)."""
    gc.collect()
    libc = _glibc()
    return libc is not None and libc.malloc_trim(0) == 1
