"""The tests' qbittorrent-nox: the sandbox's isolated instance (``sandbox/qbittorrent.py``)
with a restart and a context manager, and qBittorrent 5.x from a chroot.

Every instance lives under its own ``root`` (profile, downloads, log), listens on
127.0.0.1 only, has DHT/LSD/PeX/UPnP off and is stopped by its own PID, also at exit
when a test run crashes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import requests

from sandbox import qbittorrent as sandbox_qbittorrent
from sandbox.qbittorrent import QBITTORRENT_NOX, QbtStartError, free_port, pid_alive, pid_listens_on

__all__ = [
    "QBITTORRENT5",
    "QBITTORRENT5_ROOT",
    "QBITTORRENT_NOX",
    "QbtInstance",
    "QbtStartError",
    "free_port",
    "leecher_and_seeder",
    "new_qbittorrent",
    "pid_alive",
    "pid_listens_on",
]

# qBittorrent 5.x of the tests: Debian 13's, run from the chroot scripts/qbittorrent5
# makes (a command, split on spaces; JELLYBIT_QBITTORRENT5 overrides it).
QBITTORRENT5_ROOT = Path("/var/lib/jellybit/qbittorrent5")
QBITTORRENT5 = ("chroot", str(QBITTORRENT5_ROOT), "/usr/bin/qbittorrent-nox")


class QbtInstance(sandbox_qbittorrent.QbtInstance):
    """One qbittorrent-nox process with its own profile under ``root``; ``with`` starts
    it (unless running) and stops it."""

    def restart(self, timeout: float = 15) -> None:
        """Stop and start again on the same profile and ports (state kept)."""
        self.stop()
        self.start(timeout)

    def __enter__(self) -> Self:
        if not self.running:
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def new_qbittorrent(root: Path, *, command: tuple[str, ...] = (QBITTORRENT_NOX,)) -> QbtInstance:
    """An instance under ``root`` with fresh ports, not started yet."""
    ports = sandbox_qbittorrent.new_qbittorrent(root)
    return QbtInstance(root, ports.webui_port, ports.torrent_port, command=command)


@contextlib.contextmanager
def leecher_and_seeder(root: Path) -> Iterator[tuple[QbtInstance, QbtInstance]]:
    """Two started instances under ``root`` (jellybit's and a seeder), both
    stopped by their PIDs on exit (benchmarks; tests use the module fixtures)."""
    with new_qbittorrent(root / "qbt") as qbt, new_qbittorrent(root / "seeder") as seeder:
        yield qbt, seeder


class WebUiCalls:
    """Raw WebUI API calls to a contract suite's target, real or fake (``url``,
    ``username`` and ``password`` are the target's), as qbittorrent-api makes them."""

    url: str
    username: str
    password: str
    timeout: float = 10.0

    def session(self) -> requests.Session:
        """A logged-in session."""
        session = requests.Session()
        answer = self.post(session, "auth/login", username=self.username, password=self.password)
        assert answer.status_code in (200, 204), answer.text
        return session

    def get(self, session: requests.Session, path: str, **params: Any) -> requests.Response:
        return session.get(f"{self.url}/api/v2/{path}", params=params, timeout=self.timeout)

    def post(
        self, session: requests.Session, path: str, files: Any = None, **data: Any
    ) -> requests.Response:
        url = f"{self.url}/api/v2/{path}"
        return session.post(url, data=data, files=files, timeout=self.timeout)
