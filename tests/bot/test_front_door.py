"""The front door never drops or stalls: the inbox, the outbox and their bounds, with
the fake Bot API injecting faults and the fake qBittorrent (frozen, for some: its
requests wait unanswered, as a SIGSTOPped qbittorrent-nox's do)."""

import asyncio
import contextlib
import functools
import hashlib
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest
from fastbencode import bencode  # type: ignore[attr-defined]  # no __all__
from structlog.testing import capture_logs

from core.config import MetadataSettings
from core.errors import InvalidInputError
from core.torrent_file import parse_torrent_file
from store.migrate import migrate
from tests.bot.test_chat import ALICE, Running, dead_magnet, new_torrent, qbt, reply_to, seeder
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.fixtures import fake_qbt
from tests.support.house import eventually
from tests.support.telegram import FakeTelegram, FakeUser, Message
from tests.support.tmdb import FakeTmdb
from tests.support.torrents import magnet_for

BOB = 222_222_222
WITHIN = 2.0  # seconds: an answer from a bot that is not deaf
__all__ = ["fake_qbt", "qbt", "seeder"]


@pytest.fixture
async def running(
    tg: FakeTelegram, qbt: FakeQbittorrentServer, tmp_path: Path
) -> AsyncIterator[Running]:
    path = tmp_path / "jellybit.db"
    migrate(path)
    run = Running(tg, qbt, path, allowed_users=(ALICE, BOB))
    await run.start()
    yield run
    await run.halt()


async def answered_within(user: FakeUser, sent: Message, seconds: float) -> Message:
    started = time.monotonic()
    answer = await user.wait_for(reply_or_after(sent), timeout=10)
    assert time.monotonic() - started <= seconds, (
        f"answered after {time.monotonic() - started:.1f} s"
    )
    return answer


class Lag:
    worst = 0.0


@contextlib.contextmanager
def loop_lag(every: float = 0.005) -> Iterator[Lag]:
    """The longest the running loop took to come back to a task that sleeps ``every``."""
    lag = Lag()

    async def probe() -> None:
        while True:
            started = time.monotonic()
            await asyncio.sleep(every)
            lag.worst = max(lag.worst, time.monotonic() - started - every)

    task = asyncio.get_running_loop().create_task(probe())
    try:
        yield lag
    finally:
        task.cancel()


def reply_or_after(sent: Message) -> Callable[[Message], bool]:
    return lambda m: m.from_bot and m.message_id > sent.message_id


@pytest.mark.parametrize(("status", "times"), [(502, 1), (429, 4)])
async def test_a_telegram_error_on_a_reply_loses_no_magnet(
    running: Running, tg: FakeTelegram, status: int, times: int
) -> None:
    alice = tg.user(ALICE, language_code="en")
    magnets = [dead_magnet(f"Movie.{n}.2021") for n in range(5)]
    sent = await alice.send_text("\n".join(magnets))
    await alice.wait_for(reply_to(sent))  # the first reply went out
    tg.fail_next(
        "sendMessage", status=status, times=times, retry_after=1 if status == 429 else None
    )
    await eventually(lambda: _replies(alice, sent, 5), within=30, what="five replies")
    downloads = await running.store.downloads.list_downloads()
    assert sorted(d.name for d in downloads) == [f"Movie.{n}.2021" for n in range(5)]
    replies = [m for m in alice.bot_messages() if m.reply_to_message_id == sent.message_id]
    assert len(replies) == 5  # each once


async def _replies(user: FakeUser, sent: Message, count: int) -> bool:
    return (
        len([m for m in user.bot_messages() if m.reply_to_message_id == sent.message_id]) >= count
    )


async def test_a_frozen_qbittorrent_does_not_make_the_bot_deaf_in_the_same_chat(
    running: Running, tg: FakeTelegram, qbt: FakeQbittorrentServer
) -> None:
    """A home server has one person in one chat: their magnet, then /help, /list and a
    button, each answered at once while qBittorrent is frozen; the magnet becomes a
    download once it is back."""
    alice = tg.user(ALICE, language_code="en")
    first = await alice.send_text(dead_magnet("Before.The.Freeze.2020"))
    status = await alice.wait_for(reply_to(first))
    qbt.freeze()
    try:
        frozen_out = await answered_within(
            alice, await alice.send_text(dead_magnet("Frozen.Out.2021")), WITHIN
        )
        assert "Frozen.Out.2021" in frozen_out.text
        await answered_within(alice, await alice.send_text("/help"), WITHIN)
        listing = await answered_within(alice, await alice.send_text("/list"), WITHIN)
        assert "Before.The.Freeze.2020" in listing.text
        started = time.monotonic()
        answer = await alice.press(status, "Cancel")
        assert time.monotonic() - started <= WITHIN
        assert "Working on it" in (answer.text or "")
    finally:
        qbt.freeze(False)
    await eventually(
        lambda: _removed(running, "Before.The.Freeze.2020"), within=40, what="cancelled"
    )
    await eventually(
        lambda: _in_state(running, "Frozen.Out.2021", "downloading"), within=40, what="added"
    )


async def test_twelve_presses_at_once_are_all_answered_while_qbittorrent_hangs(
    running: Running, tg: FakeTelegram, qbt: FakeQbittorrentServer
) -> None:
    alice = tg.user(ALICE, language_code="en")
    statuses = []
    for n in range(12):
        sent = await alice.send_text(dead_magnet(f"Pressed.{n}.2020"))
        statuses.append(await alice.wait_for(reply_to(sent), timeout=20))
    for n in range(12):
        added = functools.partial(_in_state, running, f"Pressed.{n}.2020", "downloading")
        await eventually(added, what="added")
    qbt.freeze()
    try:
        started = time.monotonic()
        answers = await asyncio.gather(*(alice.press(s, "Cancel") for s in statuses))
        assert time.monotonic() - started <= WITHIN + 1
        assert all("Working on it" in (a.text or "") for a in answers)
    finally:
        qbt.freeze(False)
    for n in range(12):
        told = functools.partial(_settled_press, running, alice, n)
        await eventually(told, within=60, what="told")


async def _in_state(running: Running, name: str, state: str) -> bool:
    downloads = await running.store.downloads.list_downloads(name)
    return bool(downloads) and downloads[0].state == state


async def _settled_press(running: Running, alice: FakeUser, n: int) -> bool:
    """Cancelled, or the chat was told qBittorrent did not answer: never "could not
    handle"."""
    assert not [m for m in alice.bot_messages() if "could not handle" in m.text]
    return await _in_state(running, f"Pressed.{n}.2020", "removed") or any(
        "not answering" in m.text for m in alice.bot_messages()
    )


async def test_a_hanging_tmdb_does_not_make_the_bot_deaf_in_the_same_chat(
    tg: FakeTelegram, qbt: FakeQbittorrentServer, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with FakeTmdb() as tmdb:
        tmdb.set_delay(60)  # every answer held longer than the client waits
        metadata = MetadataSettings(tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url)
        path = tmp_path / "jellybit.db"
        migrate(path)
        running = Running(tg, qbt, path, allowed_users=(ALICE, BOB), metadata=metadata)
        await running.start()
        try:
            alice = tg.user(ALICE, language_code="en")
            first = await alice.send_text(dead_magnet("Waiting.For.Peers.2020"))
            status = await alice.wait_for(reply_to(first))
            made = new_torrent(tmp_path, seeder, "v1")
            await alice.send_text(magnet_for(made))
            await eventually(lambda: _asked(tmdb), within=30, what="a TMDB call")
            await answered_within(alice, await alice.send_text("/help"), WITHIN)
            listing = await answered_within(alice, await alice.send_text("/list"), WITHIN)
            assert "Waiting.For.Peers.2020" in listing.text
            started = time.monotonic()
            await alice.press(status, "Cancel")
            assert time.monotonic() - started <= WITHIN
            await eventually(
                lambda: _removed(running, "Waiting.For.Peers.2020"), within=10, what="cancelled"
            )
        finally:
            await running.halt()


async def _asked(tmdb: FakeTmdb) -> bool:
    return bool(tmdb.calls)


async def _removed(running: Running, name: str) -> bool:
    downloads = await running.store.downloads.list_downloads(name)
    return bool(downloads) and downloads[0].state == "removed"


async def test_a_long_retry_after_is_queued_not_slept_on(
    running: Running, tg: FakeTelegram
) -> None:
    alice, bob = tg.user(ALICE, language_code="en"), tg.user(BOB, language_code="en")
    tg.fail_next("sendMessage", status=429, retry_after=90, chat_id=ALICE)
    with capture_logs() as logs:
        held = await alice.send_text("/help")
        await asyncio.sleep(0.5)
        await answered_within(bob, await bob.send_text("/help"), WITHIN)
        await eventually(
            lambda: _logged(logs, "notification.delayed"), within=5, what="the delay logged"
        )
    delayed = next(e for e in logs if e["event"] == "notification.delayed")
    assert delayed["retry_in_s"] == 91  # retry_after, and the second cut off the stored time
    assert not [m for m in alice.bot_messages() if m.message_id > held.message_id]
    async with running.store.db.write() as conn:  # time passes: the queued reply goes out
        await conn.execute("UPDATE outbox SET next_attempt_at = '2000-01-01T00:00:00Z'")
    await alice.wait_for(reply_or_after(held), timeout=5)


async def _logged(logs: list[MutableMapping[str, Any]], event: str) -> bool:
    return any(entry["event"] == event for entry in logs)


async def test_the_longest_names_fit_every_message(running: Running, tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, language_code="ru")
    long = "Очень.Длинное.Название." * 200  # 4 600 characters: a message holds 4 096
    magnet = f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn={long[:3900]}&x.pe=127.0.0.1:1"
    sent = await alice.send_text(magnet)
    status = await alice.wait_for(reply_to(sent))
    assert "…" in status.text
    for n in range(25):
        await running.engine.cases.ingest.magnet(
            f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn=Длинный.{n}.{'x' * 2000}",
            origin="telegram",
            chat_id=ALICE,
        )
    listing = await alice.send_text("/list")
    page = await alice.wait_for(reply_or_after(listing))
    assert len(page.text) <= 4096
    await alice.press(page, "Ещё")
    await eventually(lambda: _edited(alice, page), within=5, what="the next page")
    info = {b"name": ("Имя" * 34_000).encode(), b"length": 1, b"piece length": 16384}
    info[b"pieces"] = hashlib.sha1(b"x").digest()
    document = await alice.send_document("long.torrent", bencode({b"info": info}))
    accepted = await alice.wait_for(reply_to(document))
    assert "…" in accepted.text
    hint = await alice.send_text("это " + "очень длинная подсказка " * 160, reply_to=status)
    answer = await alice.wait_for(reply_to(hint))
    assert len(answer.text) <= 4096
    assert [m for m in alice.bot_messages() if len(m.text) > 4096] == []


async def _edited(user: FakeUser, message: Message) -> bool:
    return any(m.message_id == message.message_id and m.edits for m in user.bot_messages())


async def test_a_torrent_of_250_000_files_is_refused_off_the_loop(
    running: Running, tg: FakeTelegram
) -> None:
    """The largest .torrent a person may send (under 10 MiB) is decoded in a worker
    process: the loop that answers everyone else does not stop for it."""
    lengths = [1 + n % 7 for n in range(250_000)]
    files = [{b"length": length, b"path": [b"%02d" % (n // 10_000), b"%06d.bin" % n]}
             for n, length in enumerate(lengths)]  # fmt: skip
    total = sum(lengths)
    info = {b"files": files, b"name": b"Everything", b"piece length": 1 << 22}
    info[b"pieces"] = b"\x01" * 20 * -(-total // (1 << 22))
    data = bytes(bencode({b"info": info}))
    assert 8_000_000 < len(data) < 10 * 1024 * 1024
    alice, bob = tg.user(ALICE, language_code="en"), tg.user(BOB, language_code="en")
    with loop_lag() as quiet:  # the same exchange with a small file: what this machine does
        small = await alice.send_document("small.torrent", b"not a torrent")
        await answered_within(bob, await bob.send_text("/help"), WITHIN)
        await alice.wait_for(reply_to(small), timeout=20)
    started = time.monotonic()  # what decoding it on the loop would hold the loop for, now
    with contextlib.suppress(InvalidInputError):
        parse_torrent_file(data)
    on_loop = time.monotonic() - started
    with loop_lag() as lag:
        document = await alice.send_document("everything.torrent", data)
        await answered_within(bob, await bob.send_text("/help"), WITHIN)
        refusal = await alice.wait_for(reply_to(document), timeout=20)
    assert "50,000 files" in refusal.text
    # Decoded on the loop, it stands still for ``on_loop``; off it, for what the small
    # exchange took plus moving the 8 MB through the fake on this same loop. Both grow
    # with the machine's load, so the bound is measured now, not fixed.
    assert lag.worst < quiet.worst + on_loop / 2, (
        f"the loop stood still for {lag.worst * 1000:.0f} ms ({quiet.worst * 1000:.0f} ms "
        f"quiet; decoding on the loop takes {on_loop * 1000:.0f} ms)"
    )
    assert await running.store.downloads.list_downloads() == []
