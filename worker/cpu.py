"""Worker processes for CPU-bound work: name parsing (guessit, anitopy) and
``.torrent`` decoding.

Processes, not threads: guessit's long regular-expression calls and
fastbencode's decoder hold the GIL, so in a thread they stall the event loop
all the same (a 250 000-file ``.torrent`` took it for 0.3 s). Forked from a fork
server, not from jellybit: the parent has threads (SQLite, qBittorrent)
mid-call, while the fork server is a fresh single-threaded process that imported
the parsers once (``PRELOAD``), so a new pool's workers start at once and share
those imports (a spawned worker paid ~1 s of CPU for them, every time). They end
by themselves when jellybit dies without shutting them down (SIGKILL, OOM): each
holds both ends of its own task pipe, so it would otherwise wait for work
forever, and keep the fork server and the resource tracker alive with it
(each worker holds their pipes too; they end once no one does).

A worker that dies (killed, out of memory) breaks the whole executor: every later
call would fail. The call that meets the broken pool fails (its caller tries again
later, as after any error) and puts a new pool in its place; ``run`` (the part the
supervisor keeps) then ends with the error, so that it is logged and counted.
"""

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context, util
from typing import TypeVar

from worker.pacing import sleep_until
from worker.parent import exit_with_jellybit

WORKERS = 2  # both cores: two downloads are parsed at once
# What the fork server imports before it forks anything: what ``call`` runs, ready.
PRELOAD = ["worker.parsers_loaded"]

T = TypeVar("T")


class CpuPool:
    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self._pool = self._new_pool()
        self._broken = asyncio.Event()

    def _new_pool(self) -> ProcessPoolExecutor:
        context = get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)  # no effect once the server runs
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=exit_with_jellybit,
            initargs=(os.getpid(),),
        )

    async def call(self, function: Callable[..., T], *args: object) -> T:
        """``function(*args)`` in a worker process; both must pickle."""
        pool = self._pool
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, function, *args)
        except BrokenProcessPool:
            if pool is self._pool:  # the first to see it replaces it
                self._pool = self._new_pool()
                self._broken.set()
                pool.shutdown(wait=False, cancel_futures=True)
            raise

    async def run(self, stop: asyncio.Event) -> None:
        """The supervisor's part: a pool that broke (and was replaced) ends it with the
        error."""
        self._broken.clear()
        await sleep_until(None, stop, self._broken)
        if self._broken.is_set():
            raise BrokenProcessPool("a CPU worker process died")

    async def close(self) -> None:
        await asyncio.to_thread(self._pool.shutdown, wait=True, cancel_futures=True)


def release_before_exit() -> None:
    """Before an ``os._exit``: unlink the pool's named semaphores (its queues' locks) as
    the interpreter's exit would. Otherwise the resource tracker, which outlives
    jellybit, unlinks them and prints "There appear to be 5 leaked semaphore objects".
    The workers end by themselves once jellybit is gone (``exit_with_jellybit``)."""
    util._run_finalizers(0)  # type: ignore[attr-defined]  # what atexit runs first
