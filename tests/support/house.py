"""jellybit as ``jellybit run`` builds it (``jellybit.app.build_application``), run in a
test's loop against fakes or real services: started, stopped, started again on the
same database as after a restart. No test wires parts itself (tests/test_conventions.py)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from core.config import (
    GeneralSettings,
    JellyfinSettings,
    Language,
    LibrarySettings,
    MetadataSettings,
    QbittorrentSettings,
    SearchSettings,
    Settings,
    TelegramSettings,
    WebSettings,
)
from core.ids import Id
from core.live import hashes_of
from jellybit.app import Application, Tuning, build_application
from sandbox.qbittorrent import free_port
from store import Store
from store.migrate import migrate
from tests.support.telegram import FakeTelegram
from worker.engine import Engine

SECRET = "test-secret"
TOKEN = "123456:TEST-token"


def house_settings(
    data_dir: Path,
    *,
    qbittorrent: QbittorrentSettings,
    telegram_api: str,
    allowed_users: tuple[int, ...] = (111_111_111,),
    language: Language = "ru",
    mode: str = "polling",
    library: LibrarySettings | None = None,
    metadata: MetadataSettings | None = None,
    jellyfin: JellyfinSettings | None = None,
    search: SearchSettings | None = None,
    token: str = TOKEN,
    links_to_itself: bool = False,
) -> Settings:
    """Settings of a jellybit under test: its own data dir, a free web port, the given
    services; ``mode="webhook"`` gets a public https URL as Telegram requires, and
    ``links_to_itself`` a public URL that is its own web server (a browser opens it)."""
    port = free_port()
    public = "https://jellybit.example.org" if mode == "webhook" else "http://127.0.0.1:8090"
    if links_to_itself:
        public = f"http://127.0.0.1:{port}"
    return Settings(
        general=GeneralSettings(data_dir=data_dir, language=language),
        telegram=TelegramSettings(
            token=token,
            allowed_users=allowed_users,
            api_base=telegram_api,
            mode="webhook" if mode == "webhook" else "polling",
        ),
        qbittorrent=qbittorrent,
        library=library
        or LibrarySettings(
            movies=data_dir / "library" / "movies", shows=data_dir / "library" / "shows"
        ),
        metadata=metadata or MetadataSettings(provider="none"),
        jellyfin=jellyfin or JellyfinSettings(),
        web=WebSettings(listen=f"127.0.0.1:{port}", public_url=public, secret=SECRET),
        search=search or SearchSettings(),
    )


@dataclass
class House:
    """One jellybit: ``start`` builds and runs it, ``halt`` stops it as SIGTERM would."""

    settings: Settings
    tuning: Tuning = field(default_factory=lambda: Tuning(full_resync_every=1.0))
    app: Application | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[int] | None = None

    async def start(self) -> House:
        migrate(self.settings.database_path)
        self._stop = asyncio.Event()
        self.app = await build_application(self.settings, tuning=self.tuning)
        self._task = asyncio.create_task(self.app.run(self._stop))
        serving = asyncio.create_task(self.app.serving.wait())
        await asyncio.wait([serving, self._task], return_when=asyncio.FIRST_COMPLETED)
        serving.cancel()
        if self._task.done():
            self._task.result()  # it did not start: say why
        return self

    async def halt(self) -> int:
        assert self.app is not None, "not started"
        assert self._task is not None
        self._stop.set()
        try:
            code = await asyncio.wait_for(self._task, timeout=15)
        finally:
            await self.app.close()
        return code

    def changed(self, **changes: Any) -> House:
        """The same house with other settings (as after editing config.toml)."""
        return House(replace(self.settings, **changes), self.tuning)

    @property
    def store(self) -> Store:
        assert self.app is not None, "not started"
        return self.app.store

    @property
    def engine(self) -> Engine:
        assert self.app is not None, "not started"
        return self.app.engine

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.settings.web.port}"


T = TypeVar("T")


class Qbittorrent(Protocol):
    """A qBittorrent WebUI: a real instance, or the fake's server."""

    @property
    def url(self) -> str: ...
    @property
    def username(self) -> str: ...
    @property
    def password(self) -> str: ...


_categories = itertools.count()


def settings_for(qbt: Qbittorrent, **changes: object) -> QbittorrentSettings:
    """Fast polling, and a category of its own per test: torrents that other
    tests of the module left in the shared qBittorrent are not adopted."""
    base = QbittorrentSettings(
        url=qbt.url,
        username=qbt.username,
        password=qbt.password,
        category=f"jellybit-{next(_categories)}",
        poll_interval=0.2,
        stuck_after=3600,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def library_in(root: Path, **changes: object) -> LibrarySettings:
    """Library roots of a test's own (hardlinks need the downloads' filesystem: /tmp)."""
    library = LibrarySettings(movies=root / "library" / "movies", shows=root / "library" / "shows")
    return replace(library, **changes)  # type: ignore[arg-type]


@dataclass
class Running:
    store: Store
    engine: Engine
    settings: QbittorrentSettings
    qbt: Any  # the real instance or the fake's server
    house: House


async def start_house(
    qbt: Qbittorrent, tg: FakeTelegram, tmp_path: Path, **changes: Any
) -> Running:
    """jellybit, built as ``jellybit run`` builds it, on ``tmp_path``'s database, polling
    ``qbt``; ``changes`` go to ``house_settings`` (library, metadata, jellyfin, …)."""
    settings = settings_for(qbt, **changes.pop("qbittorrent", {}))
    changes.setdefault("library", library_in(tmp_path))
    house = House(
        house_settings(tmp_path, qbittorrent=settings, telegram_api=tg.base_url, **changes)
    )
    await house.start()
    return Running(house.store, house.engine, settings, qbt, house)


async def eventually(
    probe: Callable[[], Awaitable[T | None]], *, within: float = 20, what: str = ""
) -> T:
    """Poll ``probe`` until it returns something truthy; fail after ``within`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    last: T | None = None
    while loop.time() < deadline:
        last = await probe()
        if last:
            return last
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {within} s: {what} (last: {last!r})")


async def history(store: Store, download_id: Id) -> list[str]:
    """The states a download went through, in order."""
    return [t.to_state for t in await store.downloads.list_transitions(download_id)]


def listed_hashes(running: Running) -> list[tuple[str, ...]]:
    """The hashes of every torrent qBittorrent lists: what a test sees change, or not."""
    return sorted(hashes_of(t) for t in running.qbt.client().torrents_info())


UNREACHABLE = QbittorrentSettings(url="http://127.0.0.1:9", poll_interval=0.2)


def plain_settings(data_dir: Path, **sections: Any) -> Settings:
    """``Settings()`` on ``data_dir``, with qBittorrent unreachable, a bot token and the
    test secret; ``sections`` replace whole sections (``web=WebSettings(...)``)."""
    base = Settings()
    defaults: dict[str, Any] = {
        "general": replace(base.general, data_dir=data_dir),
        "qbittorrent": UNREACHABLE,
        "telegram": replace(base.telegram, token=TOKEN),
        "web": replace(base.web, secret=SECRET),
    }
    return replace(base, **(defaults | sections))


async def built(settings: Settings) -> Application:
    """jellybit built and not run (a test of the pages, the API or one use case): its
    ``web`` served by a test client, its ``engine`` driven by hand; ``close`` it."""
    migrate(settings.database_path)
    return await build_application(settings)


@contextlib.asynccontextmanager
async def application(data_dir: Path, **sections: Any) -> AsyncIterator[Application]:
    """``built`` on ``plain_settings(data_dir, **sections)``, closed on the way out."""
    app = await built(plain_settings(data_dir, **sections))
    try:
        yield app
    finally:
        await app.close()
