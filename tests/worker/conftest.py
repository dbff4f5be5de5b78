"""The worker's behaviour (import, recognition, layout) with jellybit built as
``jellybit run`` builds it, against the fake qBittorrent (``qbt``; ``seeder`` is the
same fake, whose peers have what a test offers) and real files."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.fixtures import fake_qbt
from tests.support.house import Running, start_house
from tests.support.telegram import FakeTelegram

__all__ = ["fake_qbt"]


@pytest.fixture(scope="module")
def qbt(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


@pytest.fixture(scope="module")
def seeder(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


@pytest.fixture
async def running(
    qbt: FakeQbittorrentServer, tg: FakeTelegram, tmp_path: Path
) -> AsyncIterator[Running]:
    run = await start_house(qbt, tg, tmp_path)
    yield run
    await run.house.halt()
