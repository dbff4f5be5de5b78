"""Worker processes for CPU-bound work: name parsing (guessit, anitopy) and
``.torrent`` decoding.

Processes, not threads: guessit's long regular-expression calls and
fastbencode's decoder hold the GIL, so in a thread they stall the event loop
all the same (a 250 000-file ``.torrent`` took it for 0.3 s). Spawned, not
forked: the parent has threads (SQLite, qBittorrent) mid-call. They end by
themselves when jellybit dies without shutting them down (SIGKILL, OOM): each
holds both ends of its own task pipe, so it would otherwise wait for work
forever, and keep the resource tracker alive with it.
"""

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import TypeVar

from worker.parent import exit_with_parent

WORKERS = 2  # both cores: two downloads are parsed at once

T = TypeVar("T")


class CpuPool:
    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self._pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=get_context("spawn"),
            initializer=exit_with_parent,
            initargs=(os.getpid(),),
        )

    async def run(self, function: Callable[..., T], *args: object) -> T:
        """``function(*args)`` in a worker process; both must pickle."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, function, *args)

    async def close(self) -> None:
        await asyncio.to_thread(self._pool.shutdown, wait=True, cancel_futures=True)
