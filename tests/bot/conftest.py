"""The bot's behaviour on jellybit as ``jellybit run`` builds it (aiogram talking HTTP to
the fake Bot API, the worker on a real SQLite file). qBittorrent is unreachable here: nothing a
chat is answered with waits on it (adding a torrent is the adder's, in the background)."""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.app import WEBHOOK_PATH, TelegramFrontDoor
from core.config import QbittorrentSettings
from jellybit.app import Tuning
from store import Store
from store.migrate import migrate
from tests.support.house import House, house_settings
from tests.support.telegram import FakeTelegram
from worker.engine import Engine
from worker.supervisor import Part, Supervisor

ALICE = 111_111_111
SECRET = b"test-secret"
UNREACHABLE = QbittorrentSettings(url="http://127.0.0.1:9", poll_interval=0.2)


@dataclass
class Door:
    """jellybit as ``jellybit run`` builds and runs it, qBittorrent unreachable."""

    tg: FakeTelegram
    path: Path
    mode: str = "polling"
    fail_once: str = ""  # a part whose first run raises (the supervisor's to restart)
    house: House = field(init=False)

    async def start(self) -> None:
        settings = house_settings(
            self.path.parent,
            qbittorrent=UNREACHABLE,
            telegram_api=self.tg.base_url,
            token=self.tg.token,
            allowed_users=(ALICE,),
            language="en",
            mode=self.mode,
        )
        self.house = House(settings, Tuning(wrap_part=self._wrap))
        await self.house.start()
        if self.mode == "webhook":
            self.tg.webhook_target = self.house.web_url + WEBHOOK_PATH

    async def halt(self) -> None:
        await self.house.halt()

    def _wrap(self, part: Part) -> Part:
        return _failing_once(part) if part.name == self.fail_once else part

    @property
    def store(self) -> Store:
        return self.house.store

    @property
    def engine(self) -> Engine:
        return self.house.engine

    @property
    def door(self) -> TelegramFrontDoor:
        assert self.house.app is not None
        return self.house.app.telegram

    @property
    def supervisor(self) -> Supervisor:
        assert self.house.app is not None
        return self.house.app.supervisor

    def restarts(self) -> dict[str, int]:
        return {h.name: h.restarts for h in self.supervisor.health() if h.restarts}


def _failing_once(part: Part) -> Part:
    runs = 0

    async def run(stop: asyncio.Event) -> None:
        nonlocal runs
        runs += 1
        if runs == 1:
            raise RuntimeError(f"{part.name} broke")
        await part.run(stop)

    return Part(part.name, run)


@pytest.fixture(params=["polling", "webhook"])
async def door(
    tg: FakeTelegram, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Door]:
    """jellybit's front door receiving by polling, then by webhook."""
    async for running in _door(tg, tmp_path, request.param):
        yield running


async def _door(tg: FakeTelegram, tmp_path: Path, mode: str) -> AsyncIterator[Door]:
    path = tmp_path / "jellybit.db"
    migrate(path)
    running = Door(tg, path, mode)
    await running.start()
    yield running
    await running.halt()


@pytest.fixture
async def polling_door(tg: FakeTelegram, tmp_path: Path) -> AsyncIterator[Door]:
    async for running in _door(tg, tmp_path, "polling"):
        yield running


@pytest.fixture
async def webhook_door(tg: FakeTelegram, tmp_path: Path) -> AsyncIterator[Door]:
    async for running in _door(tg, tmp_path, "webhook"):
        yield running
