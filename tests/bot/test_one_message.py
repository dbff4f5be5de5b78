"""One message per download, as a person scrolling back sees the chat: the accepted
reply, the question, the progress and "Done" are one message, edited in place, or
sent anew (and the older one deleted) where the person must hear of a change. The
fake Telegram holds the chat as Telegram does; these tests count its messages."""

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.ids import Id
from core.models import SnapshotChange, Transition
from core.reasons import reason
from core.states import State
from store import Store
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.fixtures import fake_qbt
from tests.support.house import House, eventually, house_settings, settings_for
from tests.support.telegram import FakeTelegram, FakeUser, Message
from tests.support.tmdb import FakeTmdb
from tests.support.torrents import magnet_for, make_content, make_torrent
from tests.worker.test_import import MiB, torrent_of

ALICE = 111_111_111
__all__ = ["fake_qbt"]


@dataclass
class Chat:
    store: Store
    tg: FakeTelegram
    alice: FakeUser
    tmp_path: Path
    seeder: FakeQbittorrentServer

    async def about(self, download_id: Id) -> list[Message]:
        """The bot's messages in the chat that jellybit knows as about the download."""
        held = []
        for message in self.alice.bot_messages():
            if await self.store.telegram.download_of_message(ALICE, message.message_id) == (
                download_id
            ):
                held.append(message)
        return held

    async def only_message(self, download_id: Id, starts: str, within: float = 30) -> Message:
        """Wait until the download's one message in the chat begins with ``starts``."""

        async def probe() -> Message | None:
            held = await self.about(download_id)
            if len(held) == 1 and held[0].text.startswith(starts):
                return held[0]
            return None

        try:
            return await eventually(probe, within=within, what=starts)
        except AssertionError:
            raise AssertionError(f"wanted one message {starts!r}:\n{self.alice.render()}") from None

    async def download(self) -> Id:
        """The one download of the test, once it exists."""

        async def first() -> Id | None:
            found = await self.store.downloads.list_downloads()
            return found[0].id if found else None

        return await eventually(first, within=10, what="a download")


@asynccontextmanager
async def chat(
    qbt: FakeQbittorrentServer, tmp_path: Path, *, tmdb: bool = True, **qbittorrent: object
) -> AsyncIterator[Chat]:
    async with FakeTelegram() as tg, FakeTmdb() as fake_tmdb:
        metadata = fake_tmdb.metadata() if tmdb else None
        settings = house_settings(
            tmp_path,
            qbittorrent=settings_for(qbt, **qbittorrent),
            telegram_api=tg.base_url,
            token=tg.token,
            language="en",
            metadata=metadata,
        )
        house = await House(settings).start()
        try:
            alice = tg.user(ALICE, language_code="en")
            yield Chat(house.store, tg, alice, tmp_path, qbt)
        finally:
            await house.halt()


@pytest.fixture(scope="module")
def qbt(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


async def test_accepted_review_tap_done_is_one_message(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path) as c:
        made = torrent_of(tmp_path, qbt, "Dune.2160p.WEB-DL", ["Dune.2160p.WEB-DL.mkv"])
        sent = await c.alice.send_text(magnet_for(made))
        accepted = await c.alice.wait_for(
            lambda m: m.from_bot and m.reply_to_message_id == sent.message_id
        )
        download = await c.download()
        assert await c.only_message(download, "✅") == accepted

        # The question is news: sent anew with the best candidate's poster, and the
        # accepted reply is gone from the chat.
        review = await c.only_message(download, "🤔 Which title is it?", within=40)
        assert review.photo
        assert accepted.message_id not in c.alice.chat.messages

        # A tap: the same message says where it goes, with the buttons that fit now.
        answer = await c.alice.press(review, "Dune (2021)")
        assert answer.text == "Got it: Dune (2021)."
        done = await c.only_message(download, "🎬 Done: Dune (2021)")
        assert done.photo
        assert done.button_texts == ["Open", "Relink"]
        assert review.message_id not in c.alice.chat.messages
        # Every message the bot left in the chat: the one about the download.
        assert c.alice.bot_messages() == [done]
        # Three sends (accepted, question, done), two deletions, no notice besides.
        sends = [*c.tg.calls_to("sendMessage"), *c.tg.calls_to("sendPhoto")]
        assert len([call for call in sends if call.status == 200]) == 3
        assert [call.status for call in c.tg.calls_to("deleteMessage")] == [200, 200]


async def test_accepted_stuck_retry_done_is_one_message(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path, tmdb=False, stuck_after=2) as c:
        name = "Caminandes.2013.1080p"
        content = make_content(tmp_path / "src", name, 3 * MiB, names=[f"{name}.mkv"], seed=7)
        made = make_torrent(content, "v1")  # nobody has it yet: no progress
        await c.alice.send_text(magnet_for(made) + "\nCaminandes 2013")
        await c.alice.wait_for(lambda m: m.from_bot and "Caminandes" in m.text)
        download = await c.download()
        stuck = await c.only_message(download, "⚠️", within=30)
        assert "Retry" in stuck.button_texts

        qbt.offer(made)
        await c.alice.press(stuck, "Retry")
        done = await c.only_message(download, "🎬 Done", within=40)
        assert c.alice.bot_messages() == [done]
        failed_sends = [c for c in c.tg.calls_to("sendMessage") if c.status != 200]
        assert failed_sends == []


async def test_a_failure_is_one_message_not_an_edit_and_a_notice(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path, tmdb=False) as c:
        qbt.set_down()  # the download waits in "accepted" for the adder's next try
        try:
            magnet = f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn=Heat.1995"
            await c.alice.send_text(magnet)
            download = await c.store.downloads.get_download(await c.download())
            await c.only_message(download.id, "✅")
            # The adder's refusal, as the poller's tick records it.
            move = Transition(State.ACCEPTED, State.FAILED, reason("qbt.refused", detail="Fails."))
            assert await c.store.tracking.apply_changes([SnapshotChange(download.id, {}, move)])
            failed = await c.only_message(download.id, "❌")
        finally:
            qbt.set_down(False)
        assert "Retry" in failed.button_texts
        assert c.alice.bot_messages() == [failed]


async def test_the_same_magnet_again_moves_the_message_down_and_an_old_one_points_to_it(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path, tmdb=False) as c:
        magnet = f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn=Heat.1995&x.pe=127.0.0.1:1"
        await c.alice.send_text(magnet)
        first = await c.alice.wait_for(lambda m: m.from_bot and "Heat.1995" in m.text)
        download = await c.download()
        again = await c.alice.send_text(magnet)
        duplicate = await c.only_message(download, "↩️")
        assert duplicate.reply_to_message_id == again.message_id
        assert first.message_id not in c.alice.chat.messages

        # /status shows it anew too. A message Telegram no longer lets the bot delete
        # (over 48 hours old) is edited to point below, without buttons.
        c.alice.chat.messages[duplicate.message_id].date -= 49 * 3600
        await c.alice.send_text(f"/status {download}")
        shown = await c.alice.wait_for(
            lambda m: m.from_bot and m.message_id > duplicate.message_id and "Heat" in m.text
        )
        old = await eventually(
            lambda: _pointing_below(c, duplicate.message_id), within=10, what="moved"
        )
        assert old.button_texts == []
        assert await c.about(download) == [old, shown]
        assert [call.status for call in c.tg.calls_to("deleteMessage")] == [200, 400]


async def _pointing_below(c: Chat, message_id: int) -> Message | None:
    message = c.alice.chat.messages.get(message_id)
    return message if message is not None and message.text.startswith("⤵️") else None
