"""Integration tests: jellybit against a real qbittorrent-nox (``qbt``, ``seeder``);
``fork_server`` starts ``jellybit run`` processes warm."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.fixtures import fork_server, qbt, seeder
from tests.support.house import Running, eventually, library_in, settings_for, start_house
from tests.support.qbittorrent import QbtInstance
from tests.support.telegram import FakeTelegram

__all__ = ["eventually", "fork_server", "library_in", "qbt", "seeder", "settings_for"]


@pytest.fixture
async def running(
    qbt: QbtInstance, tg: FakeTelegram, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Running]:
    """jellybit on a fresh database, polling ``qbt``.

    ``@pytest.mark.qbt_settings(adopt="none", …)`` changes the qBittorrent settings."""
    marker = request.node.get_closest_marker("qbt_settings")
    run = await start_house(qbt, tg, tmp_path, qbittorrent=marker.kwargs if marker else {})
    yield run
    await run.house.halt()
