"""``jellybit run`` without a config file: the whole product on this machine, offline.

Two isolated qbittorrent-nox instances (jellybit's, and a seeder of the sample torrents),
an embedded Bot API server instead of Telegram, and the ``/sandbox`` page as the chat.
SQLite, the downloads and the library are under ``./var``. See docs/sandbox.md.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
from collections.abc import Mapping
from pathlib import Path

from common.logs import get_logger
from core.config import (
    GeneralSettings,
    Language,
    LibrarySettings,
    MetadataSettings,
    QbittorrentSettings,
    Settings,
    TelegramSettings,
    WebSettings,
)
from jellybit.app import Tuning, run_application
from sandbox.botapi import BotApiServer
from sandbox.page import SandboxChat
from sandbox.qbittorrent import (
    QBITTORRENT_NOX,
    QbtInstance,
    free_port,
    new_qbittorrent,
    stop_all_now,
)
from sandbox.samples import Sample, seed_samples
from store.migrate import migrate

TOKEN = "1000001:jellybit-sandbox"  # the embedded server's; no real bot has it
BOT_USERNAME = "jellybit_sandbox_bot"
PERSON_ID = 1000002  # the sandbox person, the only allowed user
WEB_PORT = 8090  # the configured default; another free port when it is taken


async def run_sandbox(data_dir: Path) -> int:
    """Run the sandbox until SIGINT or SIGTERM; stops both qbittorrent-nox by PID.
    ``data_dir`` is absolute (the logs and the banner name it)."""
    if shutil.which(QBITTORRENT_NOX) is None:
        print(
            f"jellybit run: no config file, so the sandbox; it needs {QBITTORRENT_NOX}: "
            "sudo apt-get install qbittorrent-nox (make run installs it)",
            file=sys.stderr,
        )
        return 1
    root = data_dir / "sandbox"
    started: list[QbtInstance] = []
    try:
        qbt, samples = await asyncio.to_thread(_start_qbittorrents, root, started)
        state = root / "telegram.json"  # update and message ids go on across restarts
        async with BotApiServer(token=TOKEN, bot_username=BOT_USERNAME, state=state) as telegram:
            language = _language(os.environ)
            person = telegram.user(PERSON_ID, first_name="Sandbox", language_code=language)
            settings = sandbox_settings(data_dir, qbt, telegram.base_url, language, web_port())
            migrate(settings.database_path)
            _announce(settings, data_dir)
            chat = SandboxChat(person, samples)
            tuning = Tuning(web_parts=(chat.setup,), before_exit_now=(stop_all_now,))
            return await run_application(settings, tuning=tuning)
    finally:
        await asyncio.to_thread(_stop, started)


def sandbox_settings(
    data_dir: Path, qbt: QbtInstance, api_base: str, language: Language, port: int
) -> Settings:
    # 127.0.0.1, not localhost: button URLs need a dotted host, as in real Telegram.
    url = f"http://127.0.0.1:{port}"
    return Settings(
        general=GeneralSettings(data_dir=data_dir, language=language),
        telegram=TelegramSettings(token=TOKEN, allowed_users=(PERSON_ID,), api_base=api_base),
        qbittorrent=QbittorrentSettings(
            url=qbt.url, username=qbt.username, password=qbt.password, poll_interval=1.0
        ),
        library=LibrarySettings(
            movies=data_dir / "library" / "movies", shows=data_dir / "library" / "shows"
        ),
        # No TMDB key here: the parsed name is the only candidate, so it works offline.
        metadata=MetadataSettings(provider="none"),
        web=WebSettings(listen=f"127.0.0.1:{port}", public_url=url),
    )


def _start_qbittorrents(root: Path, started: list[QbtInstance]) -> tuple[QbtInstance, list[Sample]]:
    """Blocking: start jellybit's instance and the seeder (added to ``started`` as they
    start, for ``_stop``), seed the samples; return jellybit's and the samples."""
    # jellybit's keeps its torrents between runs (so does the database); its config is
    # written anew because the ports and the password are new on every start.
    qbt = new_qbittorrent(root / "qbittorrent")
    qbt.stop_stale()
    qbt.write_config()
    started.append(qbt)
    qbt.start()
    # Its ports are taken only now: the seeder's free ports cannot be the same ones.
    seeder = new_qbittorrent(root / "seeder")
    seeder.stop_stale()
    # The seeder starts empty: its only torrents are the samples, added below.
    shutil.rmtree(seeder.profile_dir, ignore_errors=True)
    started.append(seeder)
    seeder.start()
    return qbt, seed_samples(seeder, root / "samples")


def _stop(instances: list[QbtInstance]) -> None:
    for instance in reversed(instances):
        instance.stop()


def _language(env: Mapping[str, str]) -> Language:
    """The sandbox person speaks the machine's language: Russian or English."""
    locale = env.get("LC_ALL") or env.get("LC_MESSAGES") or env.get("LANG") or ""
    return "ru" if locale.startswith("ru") else "en"


def web_port(preferred: int = WEB_PORT) -> int:
    """``preferred`` when no one listens on it, else a free port. The probe binds as the
    web server will (SO_REUSEADDR, as aiohttp does): the last run's connections waiting
    in TIME_WAIT do not take the port, so a restart keeps it and open tabs keep working."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", preferred))
        except OSError:
            return free_port()
    return preferred


def _announce(settings: Settings, data_dir: Path) -> None:
    url = f"{settings.web.public_url}/sandbox"
    get_logger().info("sandbox.started", url=url, data_dir=str(data_dir))
    rule = "=" * 72
    print(
        f"{rule}\n"
        f"SANDBOX: not connected to Telegram; open {url}\n"
        f"  no config file, so this is a sandbox: data, downloads and library in {data_dir}\n"
        f"  for the real thing: cp config.example.toml config.toml and fill it in\n"
        f"{rule}",
        file=sys.stderr,
        flush=True,
    )
