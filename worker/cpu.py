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

They run only while there is work: the workers start with the first call, and a
minute after the last one (``IDLE``) the pool shuts them down and stops their fork
server and resource tracker (``_stop_helpers``): ~75 MiB an idle jellybit does not hold. The next
call starts them again (a second or so, with a download's recognition, never with a
person's answer: magnets are not parsed here).

A worker that dies (killed, out of memory) breaks the whole executor: every later
call would fail. The call that meets the broken pool fails (its caller tries again
later, as after any error) and puts a new pool in its place; ``run`` (the part the
supervisor keeps) then ends with the error, so that it is logged and counted.
"""

import asyncio
import gc
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import forkserver, get_context, resource_tracker, util
from typing import TypeVar

from common.logs import get_logger
from core import clock
from worker.pacing import sleep_until
from worker.parent import exit_with_jellybit

WORKERS = 2  # both cores: two downloads are parsed at once
IDLE = 60.0  # seconds without a call after which the processes end
# What the fork server imports before it forks anything: what ``call`` runs, ready.
PRELOAD = ["worker.parsers_loaded"]

T = TypeVar("T")


class CpuPool:
    def __init__(self, workers: int = WORKERS, idle: float = IDLE) -> None:
        self.workers = workers
        self._idle = idle
        self._pool: ProcessPoolExecutor | None = None  # made by the first call
        self._broken = asyncio.Event()
        self._calls = 0  # in flight
        self._last = 0.0  # clock.monotonic() of the last call's end
        self._starting = False
        self._tasks: set[asyncio.Task[None]] = set()

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
        if self._pool is None:
            self._pool = self._new_pool()
        pool = self._pool
        self._calls += 1
        try:
            # Submitted from a thread: a submit that starts the processes waits for the
            # fork server to load the parsers (~1 s), which must not stall the loop.
            future = await asyncio.to_thread(pool.submit, function, *args)
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            if pool is self._pool:  # the first to see it replaces it (the next call)
                self._pool = None
                self._broken.set()
                pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            self._calls -= 1
            self._last = clock.monotonic()

    def prestart(self) -> None:
        """Work is coming (a download was accepted): start the processes now, in the
        background, so that its recognition does not wait for them."""
        if self._pool is None and not self._starting:
            self._starting = True
            task = asyncio.create_task(self._prestart())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _prestart(self) -> None:
        try:
            await asyncio.gather(*(self.call(os.getpid) for _ in range(self.workers)))
        except Exception:  # the first parse starts them instead
            get_logger().warning("cpu.prestart_failed", exc_info=True)
        finally:
            self._starting = False

    async def run(self, stop: asyncio.Event) -> None:
        """The supervisor's part: ends idle processes; a pool that broke (and was
        replaced) ends it with the error."""
        self._broken.clear()
        while not stop.is_set() and not self._broken.is_set():
            await sleep_until(max(1.0, self._idle / 4), stop, self._broken)
            idle = clock.monotonic() - self._last >= self._idle
            if self._pool is not None and not self._calls and idle:
                await self.rest()
        if self._broken.is_set():
            raise BrokenProcessPool("a CPU worker process died")

    async def rest(self) -> None:
        """End the processes until the next call, which starts them again: the workers,
        their fork server and the resource tracker (once the pool's semaphores, the
        only ones it tracks, are gone)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
        del pool
        gc.collect()  # the pool's queues' semaphores are unlinked and untracked now
        if self._pool is None:  # no call made a new pool meanwhile
            await asyncio.to_thread(_stop_helpers)
        get_logger().info("cpu.processes_ended", idle_s=self._idle)

    async def close(self) -> None:
        if self._pool is not None:
            await asyncio.to_thread(self._pool.shutdown, wait=True, cancel_futures=True)


def release_before_exit() -> None:
    """Before an ``os._exit``: unlink the pool's named semaphores (its queues' locks) as
    the interpreter's exit would. Otherwise the resource tracker, which outlives
    jellybit, unlinks them and prints "There appear to be 5 leaked semaphore objects".
    The workers end by themselves once jellybit is gone (``exit_with_jellybit``)."""
    util._run_finalizers(0)  # type: ignore[attr-defined]  # what atexit runs first


def _stop_helpers() -> None:
    """Stop multiprocessing's fork server (it holds the parsers, ~21 MiB) and its
    resource tracker (~8 MiB): both outlive every pool. The standard library has no
    public call for either; ``_stop`` (what CPython's own tests use) closes each one's
    pipe and reaps it, and the next pool starts new ones.
    ``tests/worker/test_parser_process.py`` fails loudly when a Python release changes it."""
    forkserver._forkserver._stop()  # type: ignore[attr-defined]
    resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
