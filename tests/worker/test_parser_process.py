"""The worker processes of worker/cpu.py, their fork server and the resource tracker
do not outlive a killed jellybit, leave a terminal's Ctrl-C to jellybit, and load
the parsers only."""

import asyncio
import os
import select
import signal
import subprocess
import sys
from multiprocessing import forkserver, resource_tracker
from pathlib import Path

import pytest

from core import clock
from tests.support.house import eventually
from tests.support.qbittorrent import pid_alive
from worker.cpu import PRELOAD, CpuPool

ROOT = Path(__file__).resolve().parents[2]

# A stand-in for jellybit: starts a worker process the way the engine does, prints
# its PID, then waits to be killed.
PARENT = """
import asyncio, os, sys
from worker.cpu import CpuPool
async def main():
    pool = CpuPool(workers=1)  # held: a pool collected as garbage shuts its workers down
    print(await pool.call(os.getpid), flush=True)
    sys.stdin.read()
asyncio.run(main())
"""


def test_the_parser_process_ends_when_its_parent_is_killed() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    worker: int | None = None
    try:
        assert parent.stdout is not None
        ready, _, _ = select.select([parent.stdout], [], [], 60)
        assert ready, "the parser process did not answer within 60 s"
        worker = int(parent.stdout.readline())
        assert worker != parent.pid
        assert pid_alive(worker)
        helpers = _children(parent.pid)  # the fork server, the resource tracker
        assert len(helpers) == 2, helpers

        os.kill(parent.pid, signal.SIGKILL)  # a crash: no shutdown of the pool
        parent.wait(timeout=10)
        deadline = clock.monotonic() + 10
        left = {worker, *helpers}
        while left and clock.monotonic() < deadline:
            left = {pid for pid in left if pid_alive(pid)}
            select.select([], [], [], 0.05)
        assert not left, "processes outlived their killed jellybit"
    finally:
        if parent.poll() is None:
            os.kill(parent.pid, signal.SIGKILL)
            parent.wait(timeout=10)
        if worker is not None and pid_alive(worker):
            os.kill(worker, signal.SIGKILL)


def test_the_parser_processes_import_the_parsers_only() -> None:
    """Every start of jellybit starts their fork server: aiohttp and structlog there
    cost it 0.5 s of CPU more, for nothing a parse uses."""
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, {', '.join(PRELOAD)}; print(*sys.modules)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    assert "guessit" in loaded
    heavy = {name.split(".")[0] for name in loaded} & {"aiohttp", "structlog", "aiogram"}
    assert not heavy, heavy


def _children(pid: int) -> set[int]:
    return {
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text().split()
    }


async def test_a_ctrl_c_in_the_terminal_is_left_to_jellybit() -> None:
    """Ctrl-C reaches the whole process group: a worker that took it died with a
    KeyboardInterrupt printed (and broke the pool); jellybit's own stop ends the pool."""
    pool = CpuPool(workers=1)
    try:
        worker = await pool.call(os.getpid)
        os.kill(worker, signal.SIGINT)
        assert await pool.call(os.getpid) == worker
    finally:
        await pool.close()


async def test_idle_processes_end_and_the_next_call_starts_them_again(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A minute (here half a second) after its last call the pool ends its workers,
    their fork server and the resource tracker, with nothing left for the tracker to
    clean up (it would say "leaked semaphore objects"). The next call works as the first."""
    before = _helpers()
    pool = CpuPool(workers=1, idle=0.5)
    assert _helpers() == before  # nothing starts before the first call
    stop = asyncio.Event()
    part = asyncio.create_task(pool.run(stop))
    try:
        first = await pool.call(os.getpid)
        server, tracker = _helpers()
        assert server is not None
        assert tracker is not None
        assert pid_alive(first)

        async def ended() -> bool:
            return not any(map(pid_alive, (first, server, tracker)))

        await eventually(ended, within=20, what="the idle worker and its helpers ended")
        again = await pool.call(os.getpid)
        assert again != first
        assert pid_alive(again)
        assert None not in _helpers()
        assert server not in _helpers()
    finally:
        stop.set()
        await part
        await pool.close()
    assert "leaked" not in capfd.readouterr().err


def _helpers() -> tuple[int | None, int | None]:
    """The fork server's and the resource tracker's PIDs (what ``_stop_helpers`` stops):
    the test fails here first when a Python release renames what it relies on."""
    server: int | None = forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]
    tracker: int | None = resource_tracker._resource_tracker._pid  # type: ignore[attr-defined]
    return server, tracker
