"""pytest fixtures for real qBittorrent instances: import them into a test
module or a conftest (``from tests.support.fixtures import qbt, seeder``).

``qbt`` — the qBittorrent under test — runs once per version a module is tested
against: Debian 12's 4.5 on the host and Debian 13's 5.x from the chroot that
``scripts/qbittorrent5`` makes (``make test`` makes it; ``JELLYBIT_QBITTORRENT5``
names another command). ``JELLYBIT_QBITTORRENT_VERSIONS=4.5`` (or ``5``) narrows
it for a quick local run; ``make test`` runs both.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.jellybit_process import ForkServer
from tests.support.qbittorrent import (
    QBITTORRENT5,
    QBITTORRENT5_ROOT,
    QBITTORRENT_NOX,
    QbtInstance,
    new_qbittorrent,
)
from tests.support.torrents import tracker_stand_in

VERSIONS = ("4.5", "5")


def qbittorrent_command(version: str) -> tuple[str, ...]:
    """How to run qbittorrent-nox of ``version``; a missing 5.x fails with the fix."""
    if version == "4.5":
        return (QBITTORRENT_NOX,)
    if custom := os.environ.get("JELLYBIT_QBITTORRENT5"):
        return tuple(custom.split())
    binary = QBITTORRENT5_ROOT / "usr" / "bin" / "qbittorrent-nox"
    if not binary.exists() or not _mounted(QBITTORRENT5_ROOT / "tmp"):
        pytest.fail(
            f"qBittorrent 5 is not set up at {QBITTORRENT5_ROOT}: run scripts/qbittorrent5 "
            "(make test does)",
            pytrace=False,
        )
    return QBITTORRENT5


def _mounted(path: Path) -> bool:
    """A mount point, bind mounts of the same file system included (``os.path.ismount``
    misses those)."""
    with open("/proc/self/mounts") as mounts:
        return any(line.split()[1] == str(path) for line in mounts)


def versions() -> list[str]:
    wanted = os.environ.get("JELLYBIT_QBITTORRENT_VERSIONS", ",".join(VERSIONS)).split(",")
    return [version for version in VERSIONS if version in wanted]


def contract_targets() -> list[str]:
    """What a contract suite runs against: the fake as 4.5 and as 5.x, and each real
    version (``fake4.5``, ``fake5``, ``real4.5``, ``real5``)."""
    return [f"fake{v}" for v in ("4.5", "5")] + [f"real{v}" for v in versions()]


@pytest.fixture(scope="module")
def seeder(qbt: QbtInstance, tmp_path_factory: pytest.TempPathFactory) -> Iterator[QbtInstance]:
    """A qBittorrent (the host's) that serves the tests' torrents (see
    ``torrents.seed``): one per ``qbt``, so the tests' torrents are new to it; ``qbt``
    is reminded of it as a tracker would (``tracker_stand_in``)."""
    with (
        new_qbittorrent(tmp_path_factory.mktemp("seeder")) as instance,
        tracker_stand_in(qbt, instance),
    ):
        yield instance


@pytest.fixture(scope="module", params=versions(), ids=lambda v: f"qbt{v}")
def qbt(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[QbtInstance]:
    """The qBittorrent under test (jellybit's), downloading into ``downloads_dir``."""
    command = qbittorrent_command(request.param)
    with new_qbittorrent(tmp_path_factory.mktemp("qbt"), command=command) as instance:
        yield instance


@pytest.fixture(scope="module")
def fake_qbt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeQbittorrentServer]:
    """The fake qBittorrent (as 5.x, what most people run), for behaviour that is not
    qBittorrent's; its peers have what a test ``offer``s."""
    with FakeQbittorrentServer(tmp_path_factory.mktemp("fake-qbt")) as server:
        yield server


@pytest.fixture(scope="module")
def fork_server() -> Iterator[ForkServer]:
    """jellybit imported once for a module's many ``jellybit run`` starts: a cold start
    imports aiogram's models (~9 s of CPU on a slow 2-core machine)."""
    server = ForkServer()
    yield server
    server.close()
