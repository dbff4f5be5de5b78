"""The one runner of background loops: a failure is told once, a recovery once,
the waits grow while it fails, and the counts reach /healthz."""

import asyncio
from collections.abc import Callable
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer
from structlog.testing import capture_logs

from core.config import QbittorrentSettings
from core.errors import UnreachableError
from jellybit.app import Tuning, build_application
from store.migrate import migrate
from tests.support.house import built, plain_settings
from worker.pacing import Loop
from worker.supervisor import Part, Supervisor

UNREACHABLE = QbittorrentSettings(url="http://127.0.0.1:9")


async def until(condition: Callable[[], bool], within: float = 5.0) -> None:
    for _ in range(int(within / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not within {within} s")


class Flaky:
    """A tick that fails ``failures`` times, then works."""

    def __init__(self, failures: int, error: Exception) -> None:
        self.left = failures
        self.error = error
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.left:
            self.left -= 1
            raise self.error


async def test_a_failing_loop_says_so_once_and_once_when_it_recovers() -> None:
    tick = Flaky(5, RuntimeError("database is locked"))
    failures: list[int] = []
    recoveries: list[int] = []

    async def failed(error: Exception, count: int) -> None:
        failures.append(count)

    async def recovered(count: int) -> None:
        recoveries.append(count)

    loop = Loop("test", tick, interval=1.0, on_failure=failed, on_recovery=recovered)
    with capture_logs() as logs:
        for _ in range(8):
            await loop.once()
    events = [(entry["event"], entry.get("loop")) for entry in logs]
    assert events == [("loop.failing", "test"), ("loop.recovered", "test")]
    failing = logs[0]
    assert failing["reason"] == "RuntimeError: database is locked"
    assert failing["exc_info"] is True  # a bug: its traceback is kept
    assert logs[1]["after_failures"] == 5
    assert (failures, recoveries) == ([1, 2, 3, 4, 5], [5])
    assert tick.calls == 8
    health = loop.health()
    assert (health.name, health.failed_ticks, health.failing) == ("test", 5, False)


async def test_an_outage_is_told_without_a_traceback_and_shows_while_it_lasts() -> None:
    loop = Loop("poller", Flaky(2, UnreachableError("qbittorrent", "refused")), interval=1.0)
    with capture_logs() as logs:
        await loop.once()
    assert logs[0]["exc_info"] is False
    assert loop.health().failing


async def test_the_wait_doubles_while_failing_up_to_the_bound() -> None:
    loop = Loop("test", Flaky(10, RuntimeError("x")), interval=2.0, max_backoff=30.0)
    waits = []
    with capture_logs():
        for _ in range(6):
            await loop.once()
            waits.append(loop._delay())
    assert waits == [4.0, 8.0, 16.0, 30.0, 30.0, 30.0]


async def test_a_failing_hook_does_not_end_the_loop() -> None:
    async def broken(error: Exception, count: int) -> None:
        raise OSError("disk full")

    flaky, fifth = Flaky(3, RuntimeError("x")), asyncio.Event()

    async def tick() -> None:
        await flaky()
        if flaky.calls >= 5:
            fifth.set()

    loop = Loop("test", tick, interval=0.001, on_failure=broken)
    stop = asyncio.Event()
    with capture_logs() as logs:
        running = asyncio.create_task(loop.run(stop))
        await asyncio.wait_for(fifth.wait(), timeout=5)
        stop.set()
        loop.wake.set()
        await asyncio.wait_for(running, timeout=5)
    assert [entry["event"] for entry in logs].count("loop.hook_failed") == 3
    assert "loop.recovered" in [entry["event"] for entry in logs]


async def test_healthz_counts_the_failed_ticks_of_each_loop(tmp_path: Path) -> None:
    app = await built(plain_settings(tmp_path))
    engine = app.engine
    client = TestClient(TestServer(app.web))
    await client.start_server()
    try:
        with capture_logs():
            await engine.poller.loop.once()  # qBittorrent is not there
            await engine.poller.loop.once()
        body = await (await client.get("/healthz")).json()
    finally:
        await client.close()
        await app.close()
    steady = {"failed_ticks": 0, "failing": False}
    assert body["loops"] == {
        "poller": {"failed_ticks": 2, "failing": True},
        **dict.fromkeys(
            ["importer", "adder", "search", "inbox", "outbox", "status", "search_messages"], steady
        ),
    }


async def test_another_error_behind_an_outage_is_told_with_its_traceback() -> None:
    errors: list[Exception] = [UnreachableError("qbittorrent", "refused")] * 2 + [KeyError("x")] * 2

    async def tick() -> None:
        if errors:
            raise errors.pop(0)

    loop = Loop("poller", tick, interval=1.0)
    with capture_logs() as logs:
        for _ in range(5):
            await loop.once()
    assert [(e["event"], e.get("exc_info")) for e in logs] == [
        ("loop.failing", False),
        ("loop.failing", True),
        ("loop.recovered", None),
    ]


async def test_a_loop_backing_off_ticks_as_soon_as_its_probe_says_the_other_side_is_back() -> None:
    """qBittorrent back after a long outage is seen within an interval, not after the
    backoff (up to a minute)."""
    tick = Flaky(6, UnreachableError("qbittorrent", "refused"))
    back = asyncio.Event()

    async def probe() -> bool:
        return back.is_set()

    loop = Loop("probed", tick, interval=0.05, max_backoff=60.0, probe=probe)
    stop = asyncio.Event()
    with capture_logs():
        running = asyncio.create_task(loop.run(stop))
        await until(lambda: tick.calls >= 6)  # the sixth wait is 0.05 * 64 = 3.2 s
        tick.left = 0
        back.set()
        began = asyncio.get_running_loop().time()
        await until(lambda: not loop.health().failing)
        waited = asyncio.get_running_loop().time() - began
        stop.set()
        await asyncio.wait_for(running, timeout=5)
    assert waited < 1.0  # one interval and a tick, not the 3.2 s backoff


async def test_healthz_shows_each_part_and_fails_while_one_keeps_failing(tmp_path: Path) -> None:
    async def broken(stop: asyncio.Event) -> None:
        raise OSError("disk full")

    def breaking_the_importer(part: Part) -> Part:
        return Part(part.name, broken) if part.name == "importer" else part

    settings = plain_settings(tmp_path)
    migrate(settings.database_path)
    app = await build_application(settings, tuning=Tuning(wrap_part=breaking_the_importer))
    supervisor = app.supervisor
    client = TestClient(TestServer(app.web))
    await client.start_server()
    stop = asyncio.Event()
    try:
        with capture_logs():
            running = asyncio.create_task(supervisor.run(stop))
            await until(lambda: _restarts(supervisor, "importer") >= 2, within=10)
            response = await client.get("/healthz")
            body = await response.json()
            stop.set()
            await asyncio.wait_for(running, timeout=10)
    finally:
        await client.close()
        await app.close()
    assert response.status == 503
    assert body["ok"] is False
    assert body["parts"]["importer"]["failing"] is True
    assert body["parts"]["importer"]["restarts"] >= 2
    assert body["parts"]["importer"]["reason"] == "OSError: disk full"
    assert body["parts"]["outbox"] == {
        "failing": False, "since": None, "restarts": 0, "reason": None
    }  # fmt: skip


def _restarts(supervisor: Supervisor, name: str) -> int:
    return next((h.restarts for h in supervisor.health() if h.name == name), 0)
