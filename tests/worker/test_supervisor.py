"""The supervisor (worker/supervisor.py): a part that fails is logged once with its
traceback, restarted with backoff, shown failing, well again after it has run for a
while, and given up on (the process exits non-zero) when it keeps failing."""

import asyncio

import pytest
from structlog.testing import capture_logs

from tests.worker.test_pacing import until
from worker.supervisor import Part, PartGaveUpError, Supervisor


class Flaky:
    """A part that fails its first ``failures`` runs, then runs until stopped."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.runs = 0
        self.running = asyncio.Event()

    async def run(self, stop: asyncio.Event) -> None:
        self.runs += 1
        if self.runs <= self.failures:
            raise RuntimeError(f"boom {self.runs}")
        self.running.set()
        await stop.wait()


async def test_a_failing_part_is_restarted_logged_once_and_shown() -> None:
    flaky, steady = Flaky(3), Flaky(0)
    supervisor = Supervisor(
        [Part("flaky", flaky.run), Part("steady", steady.run)], stable_after=0.3, max_delay=0.1
    )
    stop = asyncio.Event()
    with capture_logs() as logs:
        task = asyncio.create_task(supervisor.run(stop))
        await asyncio.wait_for(flaky.running.wait(), 5)
        health = {h.name: h for h in supervisor.health()}
        assert health["flaky"].failing
        assert health["flaky"].restarts == 3
        assert health["flaky"].since is not None
        assert health["flaky"].reason == "RuntimeError: boom 3"
        assert not health["steady"].failing
        await asyncio.sleep(0.5)  # it has run stable_after: well again
        assert not {h.name: h for h in supervisor.health()}["flaky"].failing
        stop.set()
        await asyncio.wait_for(task, 5)
    failed = [e for e in logs if e["event"] == "part.failed"]
    assert len(failed) == 1  # once, with the traceback
    assert failed[0]["exc_info"] is not None
    assert [e["event"] for e in logs].count("part.failing_again") == 2
    assert [e["event"] for e in logs].count("part.recovered") == 1
    assert steady.runs == 1  # the others are not touched


async def test_a_part_that_ends_by_itself_is_restarted() -> None:
    ends = 0

    async def quits(stop: asyncio.Event) -> None:
        nonlocal ends
        ends += 1
        if ends > 2:
            await stop.wait()

    supervisor = Supervisor([Part("quits", quits)], max_delay=0.05)
    stop = asyncio.Event()
    with capture_logs() as logs:
        task = asyncio.create_task(supervisor.run(stop))
        await until(lambda: ends >= 3)
        stop.set()
        await asyncio.wait_for(task, 5)
    assert supervisor.health()[0].restarts == 2
    assert "PartEndedError" in str(next(e for e in logs if e["event"] == "part.failed")["reason"])


async def test_a_part_that_keeps_failing_ends_everything() -> None:
    always, steady = Flaky(10**6), Flaky(0)
    supervisor = Supervisor(
        [Part("always", always.run), Part("steady", steady.run)],
        give_up_after=0.3,
        max_delay=0.05,
    )
    stop = asyncio.Event()
    with capture_logs() as logs, pytest.raises(PartGaveUpError, match="always kept failing"):
        await asyncio.wait_for(supervisor.run(stop), 5)
    assert stop.is_set()  # the others were told to stop, and did
    assert steady.runs == 1
    assert [e["event"] for e in logs].count("part.gave_up") == 1


async def test_stopping_ends_every_part_and_nothing_is_restarted() -> None:
    steady = Flaky(0)
    supervisor = Supervisor([Part("steady", steady.run)])
    stop = asyncio.Event()
    task = asyncio.create_task(supervisor.run(stop))
    await asyncio.wait_for(steady.running.wait(), 5)
    assert supervisor.running() == ["steady"]
    stop.set()
    await asyncio.wait_for(task, 5)
    assert supervisor.running() == []
    assert supervisor.health()[0].restarts == 0
