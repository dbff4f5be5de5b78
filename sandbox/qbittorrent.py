"""A real, isolated qbittorrent-nox: the sandbox runs two (jellybit's and the seeder).

Every instance lives under its own ``root`` (profile, downloads, log), listens on
127.0.0.1 only, has DHT/LSD/PeX/UPnP off and is stopped by its own PID. The tests'
instances (``tests/support/qbittorrent.py``) add a restart, a context manager and
qBittorrent 5.x.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import qbittorrentapi

from core import clock

QBITTORRENT_NOX = shutil.which("qbittorrent-nox") or "/usr/bin/qbittorrent-nox"
REQUEST_TIMEOUT = 10.0
_PROBE_TIMEOUT = 1.0
_POLL = 0.05

# Instances started by this process and not stopped yet: stopped at exit, so a
# crashed run does not leave qbittorrent-nox processes behind.
_RUNNING: set[QbtInstance] = set()


class QbtStartError(RuntimeError):
    """qbittorrent-nox did not come up as the process we started."""


def free_port() -> int:
    """A port free on 127.0.0.1 for both TCP and UDP (BitTorrent uses both)."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            tcp.bind(("127.0.0.1", 0))
            port: int = tcp.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                try:
                    udp.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    raise OSError("no free TCP+UDP port on 127.0.0.1")


def pbkdf2_password(password: str, salt: bytes | None = None) -> str:
    """The ``WebUI\\Password_PBKDF2`` value qBittorrent expects."""
    salt = secrets.token_bytes(16) if salt is None else salt
    key = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, 100_000, dklen=64)
    return f"@ByteArray({base64.b64encode(salt).decode()}:{base64.b64encode(key).decode()})"


def _listening_inodes(port: int) -> set[str]:
    """Socket inodes listening on TCP ``port`` (Linux /proc)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as fh:
            next(fh, None)
            for line in fh:
                cols = line.split()
                local, state, inode = cols[1], cols[3], cols[9]
                if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                    inodes.add(inode)
    return inodes


def pid_listens_on(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds a socket listening on TCP ``port``."""
    inodes = _listening_inodes(port)
    if not inodes:
        return False
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        links = [os.readlink(fd) for fd in fd_dir.iterdir()]
    except OSError:
        return False
    return any(link == f"socket:[{inode}]" for link in links for inode in inodes)


def pid_alive(pid: int) -> bool:
    """Whether a (non-zombie) process with this PID exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _is_our_qbittorrent(pid: int, profile_dir: Path) -> bool:
    """Whether ``pid`` runs qbittorrent-nox with ``--profile=profile_dir``."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return (
        pid_alive(pid)
        and Path(os.fsdecode(argv[0])).name == "qbittorrent-nox"
        and os.fsencode(f"--profile={profile_dir}") in argv
    )


@dataclass(eq=False)
class QbtInstance:
    """One qbittorrent-nox process with its own profile under ``root``."""

    root: Path
    webui_port: int
    torrent_port: int
    username: str = "admin"
    password: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    # How to run qbittorrent-nox: the host's (the tests also run 5.x from a chroot).
    command: tuple[str, ...] = (QBITTORRENT_NOX,)
    process: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = field(default=None, init=False, repr=False)

    # ---- paths -------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.webui_port}"

    @property
    def profile_dir(self) -> Path:
        return self.root / "profile"

    @property
    def config_path(self) -> Path:
        return self.profile_dir / "qBittorrent" / "config" / "qBittorrent.conf"

    @property
    def downloads_dir(self) -> Path:
        return self.root / "downloads"

    @property
    def log_path(self) -> Path:
        """stdout/stderr of qbittorrent-nox (its own log is under the profile)."""
        return self.root / "qbittorrent-nox.out"

    @property
    def pid_path(self) -> Path:
        """The PID of the running process: SIGKILL skips atexit, so whoever starts on
        this root next can stop a process left behind (``stop_stale``)."""
        return self.root / "qbittorrent-nox.pid"

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    # ---- config ------------------------------------------------------------
    def write_config(self) -> None:
        """Write the isolated profile config (done by ``start`` when absent)."""
        self.config_path.parent.mkdir(parents=True, exist_ok=True)
        self.downloads_dir.mkdir(parents=True, exist_ok=True)
        lines = [
            "[LegalNotice]",
            "Accepted=true",
            "",
            "[Network]",
            "PortForwardingEnabled=false",
            "",
            "[BitTorrent]",
            f"Session\\Port={self.torrent_port}",
            "Session\\Interface=lo",
            "Session\\InterfaceName=lo",
            "Session\\InterfaceAddress=127.0.0.1",
            "Session\\DHTEnabled=false",
            "Session\\LSDEnabled=false",
            "Session\\PeXEnabled=false",
            "Session\\AddTrackersEnabled=false",
            "Session\\QueueingSystemEnabled=false",
            f"Session\\DefaultSavePath={self.downloads_dir}",
            "Session\\TempPathEnabled=false",
            "Session\\RefreshInterval=200",
            "",
            "[Preferences]",
            "WebUI\\Address=127.0.0.1",
            f"WebUI\\Port={self.webui_port}",
            "WebUI\\UseUPnP=false",
            "WebUI\\LocalHostAuth=true",
            f"WebUI\\Username={self.username}",
            f'WebUI\\Password_PBKDF2="{pbkdf2_password(self.password)}"',
            "WebUI\\MaxAuthenticationFailCount=0",
            # The WebUI's refresh interval (default 1500 ms): faster tests, and the
            # setting under which 5.x's sync/maindata crash shows every time.
            "General\\RefreshInterval=200",
            "Connection\\ResolvePeerCountries=false",
            "",
        ]
        self.config_path.write_text("\n".join(lines))

    # ---- lifecycle ---------------------------------------------------------
    def start(self, timeout: float = 15) -> None:
        """Start qbittorrent-nox and wait until *our* process serves the WebUI."""
        if self.running:
            raise QbtStartError(f"already running as PID {self.pid}")
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.config_path.exists():
            self.write_config()
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        try:
            self.process = subprocess.Popen(
                [
                    *self.command,
                    f"--profile={self.profile_dir}",
                    f"--webui-port={self.webui_port}",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=self.root,
            )
        except BaseException:
            log.close()
            raise
        self._log = log
        _RUNNING.add(self)
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        self.pid_path.write_text(f"{self.process.pid}\n")

    def _wait_ready(self, timeout: float) -> None:
        assert self.process is not None
        deadline = clock.monotonic() + timeout
        last_error: Exception | None = None
        probe = self._new_client(_PROBE_TIMEOUT)
        while True:
            code = self.process.poll()
            if code is not None:
                hint = " (another instance owns this profile)" if code == 0 else ""
                raise QbtStartError(
                    f"qbittorrent-nox PID {self.process.pid} exited with {code}{hint}"
                    f"{self._log_tail()}"
                )
            try:
                probe.auth_log_in()
                probe.app_version()
            except qbittorrentapi.APIConnectionError as exc:
                last_error = exc
            else:
                # Something answers: it must be our process, not another instance.
                if self.process.poll() is None and pid_listens_on(
                    self.process.pid, self.webui_port
                ):
                    return
                last_error = QbtStartError(
                    f"port {self.webui_port} answers but not from PID {self.process.pid}"
                )
            if clock.monotonic() > deadline:
                raise QbtStartError(
                    f"qbittorrent-nox PID {self.process.pid} not ready after {timeout}s: "
                    f"{last_error!r}{self._log_tail()}"
                )
            time.sleep(_POLL)

    def _log_tail(self, size: int = 2000) -> str:
        try:
            text = self.log_path.read_bytes()[-size:].decode(errors="replace")
        except OSError:
            return ""
        return f"\n--- {self.log_path} ---\n{text}" if text.strip() else ""

    def stop(self, timeout: float = 5) -> None:
        """SIGTERM our PID, wait, SIGKILL if needed. Idempotent."""
        proc = self.process
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout)
        log = self._log
        self._log = None
        if log is not None:
            log.close()
        if proc is not None and self._recorded_pid() == proc.pid:
            self.pid_path.unlink(missing_ok=True)
        _RUNNING.discard(self)

    def stop_stale(self, timeout: float = 5) -> None:
        """Stop the process recorded in ``pid_path`` if it is still qbittorrent-nox on
        this very profile (a PID may have been reused by anything else since). Call it
        before ``start`` where a killed parent may have left one (the sandbox does);
        ``start`` itself refuses to run beside a live instance on the same profile."""
        pid = self._recorded_pid()
        if pid is None or (self.running and pid == self.pid):
            return
        if _is_our_qbittorrent(pid, self.profile_dir):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            deadline = clock.monotonic() + timeout
            while pid_alive(pid) and clock.monotonic() < deadline:
                time.sleep(_POLL)
            if pid_alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self.pid_path.unlink(missing_ok=True)

    def _recorded_pid(self) -> int | None:
        try:
            return int(self.pid_path.read_text())
        except (OSError, ValueError):
            return None

    # ---- API ---------------------------------------------------------------
    def _new_client(self, request_timeout: float) -> qbittorrentapi.Client:
        return qbittorrentapi.Client(
            host=self.url,
            username=self.username,
            password=self.password,
            REQUESTS_ARGS={"timeout": request_timeout},
        )

    def client(self) -> qbittorrentapi.Client:
        """A new client, already logged in."""
        client = self._new_client(REQUEST_TIMEOUT)
        client.auth_log_in()
        return client


def new_qbittorrent(root: Path) -> QbtInstance:
    """An instance under ``root`` with fresh ports, not started yet."""
    webui_port = free_port()
    torrent_port = free_port()
    while torrent_port == webui_port:
        torrent_port = free_port()
    return QbtInstance(root=root, webui_port=webui_port, torrent_port=torrent_port)


@atexit.register
def _stop_all() -> None:
    for instance in list(_RUNNING):
        instance.stop()


def stop_all_now(within: float = 3.0) -> None:
    """Before an exit that skips atexit (``os._exit``: a second Ctrl-C): SIGTERM every
    instance this process started, all at once, wait up to ``within`` s for them
    together, then SIGKILL the rest."""
    instances = list(_RUNNING)
    processes = [i.process for i in instances if i.process is not None]
    for process in processes:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
    deadline = clock.monotonic() + within
    while any(p.poll() is None for p in processes) and clock.monotonic() < deadline:
        time.sleep(_POLL)
    for instance in instances:
        instance.stop(timeout=1)  # SIGKILL if still there; reaped, its PID file gone
