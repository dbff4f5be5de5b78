"""Review as a person does it on a phone: a real download lands in review; the bot's
one message offers the candidates (with the best one's poster) and a tap in the chat
decides, or Other… opens the review page in Chromium and one tap there does; the
files are laid out and the chat hears it is done."""

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from core.config import MetadataSettings
from core.states import State
from store import Store
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.fixtures import fake_qbt
from tests.support.house import House, eventually, house_settings, settings_for
from tests.support.telegram import FakeTelegram, FakeUser, Message
from tests.support.tmdb import FakeTmdb
from tests.support.torrents import magnet_for
from tests.web.test_browser import ARGS, CHROMIUM, PHONE, shoot
from tests.worker.test_import import torrent_of

ALICE = 111_111_111
__all__ = ["fake_qbt"]
DUNE_2021 = "/d5NXSklXo0qyIYkgV94XAgMIckC.jpg"  # the fake TMDB's poster of Dune (2021)


@dataclass
class Stack:
    store: Store
    tg: FakeTelegram
    tmdb: FakeTmdb
    alice: FakeUser
    public_url: str
    tmp_path: Path
    qbt: FakeQbittorrentServer
    seeder: FakeQbittorrentServer

    async def review_message(self, name: str) -> Message:
        """Send a magnet of a Dune release two TMDB titles match; its review message."""
        made = torrent_of(self.tmp_path, self.seeder, name, [f"{name}.mkv"])
        await self.alice.send_text(magnet_for(made))
        return await self.alice.wait_for(
            lambda m: m.from_bot and m.text.startswith("🤔 Which title is it?"), timeout=40
        )

    async def done(self) -> Message:
        return await self.alice.wait_for(
            lambda m: m.from_bot and m.text.startswith("🎬 Done"), timeout=30
        )


@asynccontextmanager
async def stack(
    qbt: FakeQbittorrentServer, seeder: FakeQbittorrentServer, tmp_path: Path, *, posters: bool
) -> AsyncIterator[Stack]:
    """jellybit as ``jellybit run`` builds it, against the fakes, its pages served."""
    async with FakeTelegram() as tg, FakeTmdb() as tmdb:
        metadata = MetadataSettings(
            provider="tmdb",
            tmdb_api_key=tmdb.api_key,
            tmdb_base=tmdb.base_url,
            tmdb_images=tmdb.images_url if posters else "",
            language="en-US",
        )
        settings = house_settings(
            tmp_path,
            qbittorrent=settings_for(qbt),
            telegram_api=tg.base_url,
            token=tg.token,
            allowed_users=(ALICE,),
            language="en",
            metadata=metadata,
            links_to_itself=True,
        )
        house = await House(settings).start()
        try:
            alice = tg.user(ALICE, language_code="en")
            yield Stack(house.store, tg, tmdb, alice, house.web_url, tmp_path, qbt, seeder)
        finally:
            await house.halt()


@pytest.fixture(scope="module")
def qbt(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


@pytest.fixture(scope="module")
def seeder(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


def laid_out(stack: Stack, name: str) -> bool:
    folder = next((stack.tmp_path / "library" / "movies").iterdir())
    video = folder / f"{folder.name}.mkv"
    source = stack.qbt.downloads_dir / name / f"{name}.mkv"
    return os.stat(video).st_ino == os.stat(source).st_ino  # a hardlink


async def test_a_tap_in_the_chat_decides_and_the_message_shows_the_outcome(
    qbt: FakeQbittorrentServer, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with stack(qbt, seeder, tmp_path, posters=True) as s:
        review = await s.review_message("Dune.1080p.WEB-DL")
        assert review.photo  # the best candidate's poster, fetched by Telegram
        assert "Dune (2021)" in review.text
        assert review.button_texts[:2] == ["Dune (2021)", "Dune (1984)"]
        assert review.button_texts[-2:] == ["Other…", "Cancel"]
        answer = await s.alice.press(review, "Dune (2021)")
        assert answer.text == "Got it: Dune (2021)."
        # The same message says where it goes (its caption: the poster stays), the
        # choice made; "Done" is news: sent anew, and the question deleted.
        edit = await _edit_of(s, "editMessageCaption", review.message_id)
        assert str(edit["caption"]).startswith("✅ Dune (2021): putting it into the library.")
        assert "Dune (1984)" not in str(edit["reply_markup"])
        done = await s.done()
        assert done.photo  # the title's poster
        assert done.text.startswith("🎬 Done: Dune (2021)\n")
        assert "Dune (2021) [tmdbid-" in done.text
        assert done.button_texts == ["Open", "Relink"]
        await eventually(
            lambda: _gone(s, review.message_id), within=10, what="the question deleted"
        )
        (download,) = await s.store.downloads.list_downloads()
        status = await s.alice.send_text(f"/status {download.id}")
        shown = await s.alice.wait_for(
            lambda m: m.from_bot and m.message_id > status.message_id, timeout=10
        )
        assert shown.photo  # /status shows the download's message anew, poster and all
        assert shown.text == done.text
        await eventually(lambda: _gone(s, done.message_id), within=10, what="Done moved down")
        (download,) = await s.store.downloads.list_downloads()
        assert download.state == State.DONE
        assert laid_out(s, "Dune.1080p.WEB-DL")


async def test_a_poster_telegram_cannot_fetch_is_sent_as_text(
    qbt: FakeQbittorrentServer, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with stack(qbt, seeder, tmp_path, posters=True) as s:
        s.tmdb.missing_posters.add(DUNE_2021)
        review = await s.review_message("Dune.720p.WEB-DL")
        assert not review.photo
        assert review.button_texts[:2] == ["Dune (2021)", "Dune (1984)"]  # still one tap
        # A 502 on the answer and on the edit: both calls may be repeated, and are.
        methods = ("answerCallbackQuery", "editMessageText")
        before = {method: len(s.tg.calls_to(method)) for method in methods}  # status edits too
        s.tg.fail_next("answerCallbackQuery", status=502)
        s.tg.fail_next("editMessageText", status=502)
        answer = await s.alice.press(review, "Dune (2021)")
        assert answer.text == "Got it: Dune (2021)."
        edit = await _edit_of(s, "editMessageText", review.message_id)
        assert str(edit["text"]).startswith("✅ Dune (2021)")
        for method in methods:
            statuses = [c.status for c in s.tg.calls_to(method)][before[method] :]
            assert statuses[:2] == [502, 200], method


async def test_pick_on_the_review_page_lays_out_the_files_and_a_stale_tap_changes_nothing(
    qbt: FakeQbittorrentServer, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with stack(qbt, seeder, tmp_path, posters=False) as s:
        review = await s.review_message("Dune.1080p.WEB-DL")
        assert not review.photo  # no poster host: text and buttons
        pick_url = next(b.url for row in review.buttons for b in row if b.text == "Other…")
        assert pick_url is not None
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = await (await browser.new_context(viewport=PHONE)).new_page()
            await page.goto(pick_url)
            await shoot(page, "review-real")
            # "Done" waits out a 429: the question is still in the chat, a tap on it is stale.
            s.tg.fail_next("sendMessage", retry_after=5)
            await page.click("text=This is it")
            await page.wait_for_url(f"{s.public_url}/download/*")
            await browser.close()
        await eventually(lambda: _in_state(s, State.DONE), within=20, what="done")
        # The person's app still shows the question's buttons (the message may already
        # have been edited to the pick made on the page).
        stale = await s.alice.press(review, "Dune (1984)", as_seen=True)
        assert stale.text == "This choice is no longer offered: here is the current state."
        assert await _in_state(s, State.DONE)  # decided on the page: the tap changed nothing
        done = await s.done()
        assert "Dune (2021) [tmdbid-" in done.text
        assert laid_out(s, "Dune.1080p.WEB-DL")
        await eventually(lambda: _gone(s, review.message_id), within=10, what="the question gone")


async def test_429s_on_the_photo_the_answer_and_the_caption_edit_are_waited_out(
    qbt: FakeQbittorrentServer, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with stack(qbt, seeder, tmp_path, posters=True) as s:
        s.tg.fail_next("sendPhoto", retry_after=1)
        review = await s.review_message("Dune.2160p.WEB-DL")
        assert review.photo  # delivered after the wait, still as a photo
        refused = [c for c in s.tg.calls_to("sendPhoto") if c.status == 429]
        assert len(refused) == 1
        s.tg.fail_next("answerCallbackQuery", retry_after=1)
        s.tg.fail_next("editMessageCaption", retry_after=1)
        answer = await s.alice.press(review, "Dune (2021)")
        assert answer.text == "Got it: Dune (2021)."
        await s.done()
        assert [c.status for c in s.tg.calls_to("answerCallbackQuery")][:2] == [429, 200]
        # The caption's edit waited its second and went again; "Done" may have been
        # sent meanwhile, superseding the question (Telegram: "message to edit not found").
        edits = [c.status for c in s.tg.calls_to("editMessageCaption")]
        assert edits[0] == 429
        assert edits[1] in (200, 400)


async def _edit_of(s: Stack, method: str, message_id: int) -> dict[str, object]:
    """What the first accepted edit of a message asked for (the message may be gone
    since: a newer one of its download superseded it)."""

    async def first() -> dict[str, object] | None:
        calls = s.tg.calls_to(method)
        mine = [c for c in calls if str(c.params.get("message_id")) == str(message_id)]
        edits = [c for c in mine if c.status == 200]
        return edits[0].params if edits else None

    return await eventually(first, within=10, what=f"{method} of {message_id}")


async def _in_state(s: Stack, state: State) -> bool:
    (download,) = await s.store.downloads.list_downloads()
    return download.state == state


async def _gone(s: Stack, message_id: int) -> bool:
    return message_id not in s.alice.chat.messages
