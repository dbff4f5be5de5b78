"""Graceful shutdown of the real ``jellybit run``: a real qbittorrent-nox, the
embedded Bot API server, SIGTERM while it works or while qBittorrent hangs, and
a second signal that exits at once; and the outbox's last send when stopping."""

import asyncio
import contextlib
import os
import secrets
import signal
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest

from bot.app import make_bot
from bot.links import Links
from bot.notifier import Notifier
from bot.views import Views
from common.i18n import I18n
from core import clock
from core.config import TelegramSettings
from core.models import NewDownload, SnapshotChange, Transition
from core.reasons import reason
from core.states import State
from store import Store
from store.migrate import migrate
from tests.support.jellybit_process import ForkServer, JellybitConfig, JellybitProcess
from tests.support.qbittorrent import QbtInstance
from tests.support.telegram import FakeTelegram, FakeUser
from tests.support.torrents import magnet_for, make_content, make_torrent, seed
from tests.support.torrents import seeder_peer as peer_of

ALICE = 111_111_111
KiB, MiB = 1024, 1024 * 1024
STOP_WITHIN = 10.0  # the requirement: exit 0 within 10 s of SIGTERM
AT_ONCE = 2.0  # a second signal: the process is gone within this


@pytest.fixture
async def jellybit(
    qbt: QbtInstance, fork_server: ForkServer, tmp_path: Path
) -> AsyncIterator[tuple[JellybitProcess, FakeUser]]:
    """``jellybit run`` started and healthy, talking to the embedded Bot API server;
    forked warm (a cold one is stopped in tests/jellybit/test_cli.py)."""
    async with FakeTelegram() as tg:
        config = JellybitConfig(
            directory=tmp_path / "jellybit",
            qbt=qbt,
            telegram_api_base=tg.base_url,
            telegram_token=tg.token,
            allowed_users=(ALICE,),
            category=f"shutdown-{secrets.token_hex(4)}",
            poll_interval=0.2,
        )
        process = JellybitProcess(config, fork_server=fork_server)
        try:
            await process.start()
            await process.wait_healthy()
            yield process, tg.user(ALICE, language_code="en")
        finally:
            await process.close()


def events_in(process: JellybitProcess) -> str:
    return process.log_path.read_text(errors="replace")


def integrity_of(database: Path) -> str:
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def states_in(database: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        return [row[0] for row in conn.execute("SELECT state FROM download")]
    finally:
        conn.close()


async def until(probe: Callable[[], Awaitable[bool]], what: str, within: float = 20) -> None:
    deadline = clock.monotonic() + within
    while not await probe():
        if clock.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        await asyncio.sleep(0.05)


async def last_poll_age(process: JellybitProcess) -> float:
    """Seconds since qBittorrent last answered jellybit's poller (its /healthz);
    infinite before the first answer."""
    timeout = aiohttp.ClientTimeout(total=2.0)
    url = f"{process.config.web_url}/healthz"
    async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as response:
        age = (await response.json())["qbittorrent_last_poll_age_s"]
    return float("inf") if age is None else float(age)


@contextlib.asynccontextmanager
async def hung(qbt: QbtInstance, process: JellybitProcess) -> AsyncIterator[None]:
    """qbittorrent-nox frozen (SIGSTOP to the PID we started) until the poller,
    which asks every 0.2 s, has waited 1 s: jellybit is in the middle of a call.
    Resumed on exit: the module's other tests use it."""
    assert qbt.pid is not None

    async def answered() -> bool:
        return await last_poll_age(process) < 1.0

    async def waiting() -> bool:
        return not await answered()

    await until(answered, "a first answer from qBittorrent")
    os.kill(qbt.pid, signal.SIGSTOP)
    try:
        await until(waiting, "a poll waiting on qBittorrent")
        yield
    finally:
        os.kill(qbt.pid, signal.SIGCONT)


async def test_sigterm_while_downloading_exits_0_within_10_s(
    jellybit: tuple[JellybitProcess, FakeUser], seeder: QbtInstance, tmp_path: Path
) -> None:
    process, alice = jellybit
    content = make_content(tmp_path / "content", "Heat.1995.720p.mkv", 4 * MiB, seed=7)
    torrent = make_torrent(content, "v1")
    seed(seeder, torrent, up_limit=256 * KiB)  # still downloading when the signal comes
    await alice.send_text(magnet_for(torrent, peer=peer_of(seeder)))
    database = process.config.database

    async def downloading() -> bool:
        return states_in(database) == ["downloading"]

    await until(downloading, "the download is downloading")

    began = clock.monotonic()
    code = await process.stop(timeout=STOP_WITHIN)
    print(f"stopped in {clock.monotonic() - began:.2f} s")

    assert code == 0, process.log_tail()
    log = events_in(process)
    assert '"event": "jellybit.stopping"' in log
    assert '"signal": "SIGTERM"' in log
    assert '"event": "jellybit.stopped"' in log
    late = [line for line in log.splitlines() if "jellybit.stop_late" in line]
    assert late == [], late  # everything ended by itself
    assert integrity_of(database) == "ok"
    assert states_in(database) == ["downloading"]  # resumes on the next start


async def test_sigterm_while_qbittorrent_hangs_still_exits_0_within_10_s(
    jellybit: tuple[JellybitProcess, FakeUser], qbt: QbtInstance
) -> None:
    process, _ = jellybit
    async with hung(qbt, process):
        code = await process.stop(timeout=STOP_WITHIN)
    assert code == 0, process.log_tail()
    log = events_in(process)
    assert '"event": "jellybit.stop_late"' in log
    assert '"poller"' in log  # waiting for qBittorrent
    assert '"event": "jellybit.stopped"' in log
    assert integrity_of(process.config.database) == "ok"


async def test_a_second_signal_exits_at_once_with_128_plus_its_number(
    jellybit: tuple[JellybitProcess, FakeUser], qbt: QbtInstance
) -> None:
    process, _ = jellybit
    assert process.pid is not None
    async with hung(qbt, process):  # the graceful stop takes seconds: time for a second signal
        os.kill(process.pid, signal.SIGTERM)

        async def stopping() -> bool:
            return "jellybit.stopping" in events_in(process)

        await until(stopping, "the stop began")
        code = await process.stop(timeout=AT_ONCE)  # the second SIGTERM
    assert code == 128 + signal.SIGTERM, process.log_tail()
    log = events_in(process)
    assert '"event": "jellybit.exit_now"' in log
    assert "jellybit.stopped" not in log
    assert integrity_of(process.config.database) == "ok"


async def test_the_outbox_sends_what_is_due_when_stopping(tmp_path: Path) -> None:
    """A notification queued by the last moves before the stop still goes out."""
    path = tmp_path / "jellybit.db"
    migrate(path)
    store = await Store.open(path)
    async with FakeTelegram() as tg:
        alice = tg.user(ALICE, language_code="en")
        await alice.send_text("/start")  # Telegram lets a bot write only to people who wrote
        new = NewDownload(name="Heat.1995", origin="telegram", source_ref="", chat_id=ALICE)
        created = await store.downloads.create_download_if_no_active(new, [secrets.token_hex(20)])
        refused = reason("qbt.refused", detail="Fails.")  # the adder's last tick: announced
        move = Transition(State.ACCEPTED, State.FAILED, refused)
        assert await store.tracking.apply_changes([SnapshotChange(created.download.id, {}, move)])
        settings = TelegramSettings(token=tg.token, allowed_users=(ALICE,), api_base=tg.base_url)
        bot = make_bot(settings)
        links = Links("http://127.0.0.1:8090", b"secret")
        notifier = Notifier(store, Views(bot, store, links, I18n("en")), (ALICE,))
        stop = asyncio.Event()
        stop.set()  # stopping already: the loop never ticks, only the last send runs
        try:
            await asyncio.wait_for(notifier.run(stop), timeout=STOP_WITHIN)
        finally:
            await bot.session.close()
            await store.close()
        assert [int(call.params["chat_id"]) for call in tg.calls_to("sendMessage")] == [ALICE]
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone() == (0,)
    finally:
        db.close()
