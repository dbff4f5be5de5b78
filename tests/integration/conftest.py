"""Integration tests: jellybit's worker against a real qbittorrent-nox."""

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import pytest

from core.config import LibrarySettings, QbittorrentSettings
from store import Store
from store.migrate import migrate
from tests.support.fixtures import qbt, seeder
from tests.support.qbittorrent import QbtInstance
from worker.engine import Engine

__all__ = ["qbt", "seeder"]  # module-scoped fixtures of a real qBittorrent

T = TypeVar("T")
_categories = itertools.count()


def settings_for(qbt: QbtInstance, **changes: object) -> QbittorrentSettings:
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
    qbt: QbtInstance


@pytest.fixture
async def running(
    qbt: QbtInstance, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Running]:
    """jellybit's store and worker on a fresh database, polling ``qbt``.

    ``@pytest.mark.qbt_settings(adopt="none", …)`` changes the settings."""
    marker = request.node.get_closest_marker("qbt_settings")
    settings = settings_for(qbt, **(marker.kwargs if marker else {}))
    path = tmp_path / "jellybit.db"
    migrate(path)
    store = await Store.open(path)
    engine = Engine.build(store, settings, library=library_in(tmp_path), full_resync_every=1.0)
    stop = asyncio.Event()
    task = asyncio.create_task(engine.run(stop))
    yield Running(store, engine, settings, qbt)
    stop.set()
    await asyncio.wait_for(task, timeout=10)
    await store.close()


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
