"""pytest fixtures for real qBittorrent instances: import them into a test
module or a conftest (``from tests.support.fixtures import qbt, seeder``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox.qbittorrent import QbtInstance, new_qbittorrent


@pytest.fixture(scope="module")
def seeder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QbtInstance]:
    """A qBittorrent that serves the tests' torrents (see ``torrents.seed``)."""
    with new_qbittorrent(tmp_path_factory.mktemp("seeder")) as instance:
        yield instance


@pytest.fixture(scope="module")
def qbt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QbtInstance]:
    """The qBittorrent under test (jellybit's), downloading into ``downloads_dir``."""
    with new_qbittorrent(tmp_path_factory.mktemp("qbt")) as instance:
        yield instance
