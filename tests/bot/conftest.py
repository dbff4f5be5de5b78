"""The bot's behaviour with jellybit's real front door (aiogram talking HTTP to the fake
Bot API) and worker on a real SQLite file. qBittorrent is unreachable here: nothing a
chat is answered with waits on it (adding a torrent is the adder's, in the background)."""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web

from bot.app import WEBHOOK_PATH, TelegramFrontDoor, warm_up_models
from bot.links import Links
from common.i18n import I18n
from core.config import QbittorrentSettings, TelegramSettings
from store import Store
from store.migrate import migrate
from tests.support.qbittorrent import free_port
from tests.support.telegram import FakeTelegram
from worker.engine import Engine
from worker.supervisor import Part, Supervisor

ALICE = 111_111_111
SECRET = b"test-secret"
UNREACHABLE = QbittorrentSettings(url="http://127.0.0.1:9", poll_interval=0.2)


@dataclass
class Door:
    """The front door and the worker, supervised as ``jellybit run`` does."""

    tg: FakeTelegram
    path: Path
    mode: str = "polling"
    fail_once: str = ""  # a part whose first run raises (the supervisor's to restart)
    store: Store = field(init=False)
    engine: Engine = field(init=False)
    door: TelegramFrontDoor = field(init=False)
    supervisor: Supervisor = field(init=False)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    _runner: web.AppRunner | None = None

    async def start(self) -> None:
        self.store = await Store.open(self.path)
        self.engine = Engine.build(self.store, UNREACHABLE)
        webhook = self.mode == "webhook"
        settings = TelegramSettings(
            token=self.tg.token,
            allowed_users=(ALICE,),
            api_base=self.tg.base_url,
            mode="webhook" if webhook else "polling",
        )
        public_url = "https://jellybit.example.org" if webhook else "http://127.0.0.1:8090"
        links = Links(public_url, SECRET)
        self.door = TelegramFrontDoor.build(
            settings, self.store, self.engine.cases, I18n("en"), links
        )
        if webhook:
            app = web.Application()
            self.door.mount_webhook(app, SECRET)
            self._runner = web.AppRunner(app)
            await self._runner.setup()
            port = free_port()
            await web.TCPSite(self._runner, "127.0.0.1", port).start()
            self.tg.webhook_target = f"http://127.0.0.1:{port}{WEBHOOK_PATH}"
        parts = [
            *self.engine.parts(),
            *self.door.parts(public_url=public_url, web_secret=SECRET),
        ]
        self.supervisor = Supervisor(
            [_failing_once(p) if p.name == self.fail_once else p for p in parts]
        )
        warm_up_models()
        self._task = asyncio.create_task(self.supervisor.run(self._stop))

    async def halt(self) -> None:
        self._stop.set()
        if self._task is not None:
            await asyncio.wait_for(self._task, timeout=15)
        await self.door.close()
        await self.engine.close()
        if self._runner is not None:
            await self._runner.cleanup()
        await self.store.close()

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
