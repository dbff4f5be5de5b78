"""Every long-running part of jellybit runs under the supervisor: an exception in any
of them is logged, the part restarted, and the bot still answers; a CPU worker that
dies is replaced."""

import asyncio
import os
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from store.migrate import migrate
from tests.bot.conftest import ALICE, Door
from tests.support.telegram import FakeTelegram

PARTS = [
    "poller", "importer", "adder", "cpu", "search",
    "telegram", "inbox", "outbox", "status", "search_messages",
]  # fmt: skip


async def test_the_supervisor_runs_every_part(polling_door: Door) -> None:
    assert [part.name for part in polling_door.supervisor.parts] == PARTS
    assert sorted(polling_door.supervisor.running()) == sorted(PARTS)


@pytest.mark.parametrize("part", PARTS)
async def test_an_exception_in_a_part_restarts_it_and_the_bot_still_answers(
    tg: FakeTelegram, tmp_path: Path, part: str
) -> None:
    path = tmp_path / "jellybit.db"
    migrate(path)
    door = Door(tg, path, fail_once=part)
    with capture_logs() as logs:
        await door.start()
        try:
            alice = tg.user(ALICE, language_code="en")
            sent = await alice.send_text("/help")
            await alice.wait_for(lambda m: m.from_bot and m.message_id > sent.message_id, 10)
            for _ in range(50):
                if part in door.supervisor.running() and door.restarts() == {part: 1}:
                    break
                await asyncio.sleep(0.1)
            assert door.restarts() == {part: 1}
            assert part in door.supervisor.running()
        finally:
            await door.halt()
    failed = [e for e in logs if e["event"] == "part.failed"]
    assert [(e["part"], e["reason"]) for e in failed] == [(part, f"RuntimeError: {part} broke")]


async def test_a_cpu_worker_that_dies_is_replaced(polling_door: Door) -> None:
    cpu = polling_door.engine.cpu
    with capture_logs(), pytest.raises(BrokenProcessPool):
        await cpu.call(os._exit, 1)  # the worker process dies under the call
    assert await cpu.call(os.getpid) != os.getpid()  # a new pool answers at once
    for _ in range(50):
        if polling_door.restarts().get("cpu") == 1:
            break
        await asyncio.sleep(0.1)
    assert polling_door.restarts() == {"cpu": 1}  # logged and counted
