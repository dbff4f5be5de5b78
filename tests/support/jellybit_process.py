"""The real ``jellybit run`` as a child process: a config in a temp directory, a
wait for ``/healthz``, and a stop by PID (SIGTERM, or SIGKILL for a crash).

Used by tests that need jellybit as a person runs it (the crash test, shutdown
tests). Every wait is bounded; only the process started here is signalled.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from core import clock
from tests.support.qbittorrent import QbtInstance, free_port, pid_alive

ROOT = Path(__file__).resolve().parent.parent.parent
ZYGOTE_TIMEOUT = 120.0  # importing jellybit on a loaded machine; each answer after that is quick


@dataclass(frozen=True)
class JellybitConfig:
    """What a test chooses; the rest of the config is fixed by ``write``."""

    directory: Path  # holds config.toml, data_dir ("var") and the library
    qbt: QbtInstance
    telegram_api_base: str
    telegram_token: str
    allowed_users: tuple[int, ...]
    category: str = "jellybit"
    poll_interval: float = 0.3
    telegram_mode: str = "polling"
    public_url: str = ""  # default: web_url (the fake Telegram wants https for a webhook)
    web_port: int = field(default_factory=free_port)

    @property
    def path(self) -> Path:
        return self.directory / "config.toml"

    @property
    def data_dir(self) -> Path:
        return self.directory / "var"

    @property
    def database(self) -> Path:
        return self.data_dir / "jellybit.db"

    @property
    def movies(self) -> Path:
        return self.directory / "library" / "movies"

    @property
    def shows(self) -> Path:
        return self.directory / "library" / "shows"

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def write(self) -> Path:
        """Write ``config.toml`` (offline recognition: ``metadata.provider = "none"``)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        users = ", ".join(str(user) for user in self.allowed_users)
        self.path.write_text(
            f"""[general]
data_dir = {_toml(self.data_dir)}
language = "en"

[telegram]
token = {_toml(self.telegram_token)}
allowed_users = [{users}]
api_base = {_toml(self.telegram_api_base)}
mode = {_toml(self.telegram_mode)}

[qbittorrent]
url = {_toml(self.qbt.url)}
username = {_toml(self.qbt.username)}
password = {_toml(self.qbt.password)}
category = {_toml(self.category)}
poll_interval = {self.poll_interval}

[library]
movies = {_toml(self.movies)}
shows = {_toml(self.shows)}

[metadata]
provider = "none"

[web]
listen = "127.0.0.1:{self.web_port}"
public_url = {_toml(self.public_url or self.web_url)}
secret = "jellybit-process-test-secret"
"""
        )
        return self.path


# A fork server for warm starts: imports jellybit once (aiogram alone takes seconds
# of CPU to import), then forks one child per "start" request, which runs the very
# ``jellybit.cli.main(["run", ...])`` that ``python -m jellybit run`` runs. It holds
# no thread and no event loop when it forks. Requests and answers are JSON lines.
_ZYGOTE = """
import json, os, sys
import jellybit.app, jellybit.cli
print(json.dumps({"ready": os.getpid()}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "wait":
        _, status = os.waitpid(request["pid"], 0)
        print(json.dumps({"code": os.waitstatus_to_exitcode(status)}), flush=True)
        continue
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            os.dup2(log, 1)
            os.dup2(log, 2)
            os.chdir(request["cwd"])
            code = jellybit.cli.main(["run", "--config", request["config"]])
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else 1
        finally:
            os._exit(code)
    print(json.dumps({"pid": pid}), flush=True)
"""


class ForkServer:
    """The fork server process, started on first use; one request at a time.

    It may serve several ``JellybitProcess`` (of any config) one after the other,
    e.g. from a module-scoped fixture; ``close`` stops it by its PID."""

    def __init__(self) -> None:
        self._zygote: subprocess.Popen[str] | None = None

    async def ask(self, request: dict[str, object]) -> dict[str, int]:
        if self._zygote is None or self._zygote.poll() is not None:
            self._zygote = await asyncio.to_thread(_spawn_zygote)
            await self._answer(self._zygote)  # {"ready": pid} once jellybit is imported
        zygote = self._zygote
        assert zygote.stdin is not None
        zygote.stdin.write(json.dumps(request) + "\n")
        zygote.stdin.flush()
        return await self._answer(zygote)

    @staticmethod
    async def _answer(zygote: subprocess.Popen[str]) -> dict[str, int]:
        assert zygote.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(zygote.stdout.readline), ZYGOTE_TIMEOUT)
        if not line:
            raise RuntimeError(f"the fork server ended (exit code {zygote.poll()})")
        answer: dict[str, int] = json.loads(line)
        return answer

    def close(self) -> None:
        zygote, self._zygote = self._zygote, None
        if zygote is not None and zygote.poll() is None:
            zygote.terminate()
            zygote.wait(10)


class JellybitProcess:
    """One ``jellybit run`` at a time for ``config``; ``start`` again after a stop or a kill.

    Cold (no ``fork_server``): ``python -m jellybit run --config …``, exactly as a
    person runs it. Warm: forked from ``fork_server``, which has imported jellybit
    once, for tests that start it many times. stdout and stderr of every run are
    appended to ``log_path`` (the JSON log lines), so a failing test can show what
    jellybit said.
    """

    def __init__(self, config: JellybitConfig, *, fork_server: ForkServer | None = None) -> None:
        self.config = config
        self.fork_server = fork_server
        self.log_path = config.directory / "jellybit.log"
        self.pid: int | None = None
        self.starts = 0
        self._cold: subprocess.Popen[bytes] | None = None
        self._warm: ForkServer | None = None  # the server that forked the running one

    @property
    def running(self) -> bool:
        return self.pid is not None and pid_alive(self.pid)

    def children(self) -> dict[int, int]:
        """The running process's children (its parser process, …): PID -> start time,
        so that a later check or kill never mistakes a reused PID for one of them."""
        if self.pid is None:
            return {}
        found: dict[int, int] = {}
        for task in Path(f"/proc/{self.pid}/task").glob("*"):
            with contextlib.suppress(OSError):
                for pid in (int(text) for text in (task / "children").read_text().split()):
                    started = start_time(pid)
                    if started is not None:
                        found[pid] = started
        return found

    async def start(self) -> None:
        if self.running:
            raise RuntimeError("jellybit is already running")
        await asyncio.to_thread(self._prepare)
        if self.fork_server is not None:
            self._warm = self.fork_server
            answer = await self._warm.ask(
                {
                    "op": "start",
                    "config": str(self.config.path),
                    "cwd": str(self.config.directory),
                    "log": str(self.log_path),
                }
            )
            self.pid = answer["pid"]
        else:
            self._cold = await asyncio.to_thread(self._spawn_cold)
            self.pid = self._cold.pid
        self.starts += 1

    def _prepare(self) -> None:
        self.config.write()
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts + 1}\n".encode())

    def _spawn_cold(self) -> subprocess.Popen[bytes]:
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(
                [sys.executable, "-m", "jellybit", "run", "--config", str(self.config.path)],
                cwd=self.config.directory,
                env=_environment(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    async def wait_healthy(self, timeout: float = 60.0) -> float:  # noqa: ASYNC109
        """Wait until ``/healthz`` answers 200; returns the seconds waited.

        Raises if the process ends first or ``timeout`` passes."""
        began = clock.monotonic()
        deadline = began + timeout
        request_timeout = aiohttp.ClientTimeout(total=1.0)
        async with aiohttp.ClientSession(timeout=request_timeout) as session:
            while True:
                if not self.running:
                    raise RuntimeError(f"jellybit exited\n{self.log_tail()}")
                try:
                    async with session.get(f"{self.config.web_url}/healthz") as response:
                        if response.status == 200:
                            return clock.monotonic() - began
                except (aiohttp.ClientError, TimeoutError):
                    pass
                if clock.monotonic() > deadline:
                    raise TimeoutError(f"no /healthz within {timeout} s\n{self.log_tail()}")
                await asyncio.sleep(0.05)

    async def kill(self) -> int | None:
        """SIGKILL by PID (a crash: no cleanup at all), reap it; the exit code."""
        return await self._signal(signal.SIGKILL, within=10.0)

    async def stop(self, timeout: float = 20.0) -> int | None:  # noqa: ASYNC109
        """SIGTERM by PID and wait; the exit code. SIGKILL and TimeoutError if it
        outlives ``timeout``."""
        if not self.running:
            return await self._reap()
        os.kill(self._pid(), signal.SIGTERM)
        if not await self._gone(timeout):
            await self.kill()
            raise TimeoutError(f"jellybit did not stop within {timeout} s\n{self.log_tail()}")
        return await self._reap()

    async def close(self) -> None:
        """Kill the process if it still runs (by its PID)."""
        if self.running:
            await self.kill()

    async def _signal(self, signum: signal.Signals, *, within: float) -> int | None:
        if self.running:
            os.kill(self._pid(), signum)
            if not await self._gone(within):
                raise TimeoutError(f"jellybit {self.pid} outlived signal {signum.name}")
        return await self._reap()

    async def _gone(self, within: float) -> bool:
        deadline = clock.monotonic() + within
        while True:
            if not self.running:
                return True
            if clock.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)

    async def _reap(self) -> int | None:
        """Collect the exit code of the ended process (a zombie until then)."""
        pid, self.pid = self.pid, None
        if pid is None:
            return None
        if self._cold is not None:
            cold, self._cold = self._cold, None
            return await asyncio.to_thread(cold.wait, 10)
        assert self._warm is not None
        return (await self._warm.ask({"op": "wait", "pid": pid}))["code"]

    def _pid(self) -> int:
        assert self.pid is not None
        return self.pid

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), None if it is gone or a
    zombie: with the PID, it names one process even after the PID is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] == "Z" else int(fields[19])


def _spawn_zygote() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _ZYGOTE],
        cwd=ROOT,
        env=_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _toml(value: object) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(str(value))


def _environment() -> dict[str, str]:
    """This process's environment without JELLYBIT_* (the config file says it all)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("JELLYBIT_")}
