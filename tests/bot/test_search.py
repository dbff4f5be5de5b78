"""/find in the chat, as a person uses it: the titles first, a title's releases, one
tap downloads it as that title, and it all stays one message. Three Torznab indexers
are configured (a good one, one that hangs, one that refuses the key) and the fake
qBittorrent downloads what a release's magnet names."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from core.ids import Id
from store import Store
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.fixtures import fake_qbt
from tests.support.house import House, eventually, house_settings, settings_for
from tests.support.telegram import FakeTelegram, FakeUser, Message
from tests.support.tmdb import FakeTmdb
from tests.support.torznab import FakeRelease, FakeTorznab, good_refusing_hanging
from tests.worker.test_import import torrent_of

ALICE = 111_111_111
TIMEOUT = 3.0  # [search] timeout: the hanging indexer gives up after it
KEY = "k3y0f7h3g00d1nd3x3r"  # the good indexer's API key
__all__ = ["fake_qbt"]


@dataclass
class Chat:
    house: House
    tg: FakeTelegram
    alice: FakeUser
    good: FakeTorznab
    hanging: FakeTorznab

    @property
    def store(self) -> Store:
        return self.house.store

    async def answer_to(self, sent: Message, within: float = 2.0) -> Message:
        return await self.alice.wait_for(
            lambda m: m.from_bot and m.reply_to_message_id == sent.message_id, within
        )

    async def shows(self, message: Message, text: str, within: float = 15.0) -> Message:
        """``message`` once it was edited to hold ``text``."""

        async def probe() -> Message | None:
            now = self.alice.chat.messages.get(message.message_id)
            return now if now is not None and text in now.text else None

        try:
            return await eventually(probe, within=within, what=text)
        except AssertionError:
            raise AssertionError(f"wanted {text!r}:\n{self.alice.render()}") from None


@asynccontextmanager
async def chat(
    qbt: FakeQbittorrentServer,
    tmp_path: Path,
    *,
    language: str = "en",
    tmdb: bool = True,
    sources: bool = True,
) -> AsyncIterator[Chat]:
    async with (
        FakeTelegram() as tg,
        FakeTmdb() as fake_tmdb,
        good_refusing_hanging(KEY) as indexers,
    ):
        metadata = fake_tmdb.metadata() if tmdb else None
        search = indexers.settings(TIMEOUT)
        settings = house_settings(
            tmp_path,
            qbittorrent=settings_for(qbt),
            telegram_api=tg.base_url,
            token=tg.token,
            language="en",
            metadata=metadata,
            search=search if sources else None,
        )
        house = await House(settings).start()
        try:
            alice = tg.user(ALICE, language_code=language)
            yield Chat(house, tg, alice, indexers.good, indexers.hanging)
        finally:
            await house.halt()


@pytest.fixture(scope="module")
def qbt(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


def dune_release(tmp_path: Path, qbt: FakeQbittorrentServer, name: str) -> FakeRelease:
    """A release of Dune (2021) the indexer lists and the fake qBittorrent's peers seed."""
    made = torrent_of(tmp_path, qbt, name, [f"{name}.mkv"])
    assert made.v1 is not None
    return FakeRelease(
        title=name, infohash=made.v1, imdb_id="tt1160419", tmdb_id=438631, download="magnet",
        seeders=25, size=3 * 1024 * 1024,
    )  # fmt: skip


async def test_find_a_title_a_release_and_it_is_in_the_library_as_that_title(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    with capture_logs() as logs:
        await _find_tap_and_done(qbt, tmp_path)
    # The indexers' URLs carry their key: never in a log line.
    assert logs
    assert not [event for event in logs if KEY in repr(event)]


async def _find_tap_and_done(qbt: FakeQbittorrentServer, tmp_path: Path) -> None:
    async with chat(qbt, tmp_path) as c:
        # A name that does not say which Dune: the tap says it, so nobody is asked.
        c.good.releases.append(dune_release(tmp_path, qbt, "Dune.2160p.WEB-DL.DDP5.1-GRP"))
        c.good.releases.append(FakeRelease(title="Dune 2021 720p HDTV", seeders=0))
        sent = await c.alice.send_text("/find Dune")
        first = await c.answer_to(sent)
        assert first.text == "🔎 Looking for “Dune”…"
        titles = await c.shows(first, "which one?")
        assert titles.button_texts[:2] == ["🎬 Dune (2021)", "🎬 Dune (1984)"]
        assert titles.button_texts[-1] == "🔎 Releases named “Dune”"

        answer = await c.alice.press(titles, "🎬 Dune (2021)")
        assert answer.text in (None, "")
        asking = await c.shows(first, "asking")
        assert "slow" in asking.text
        # The hanging indexer holds nothing else: the chat answers meanwhile.
        help_sent = await c.alice.send_text("/help")
        helped = await c.alice.wait_for(
            lambda m: m.from_bot and m.message_id > help_sent.message_id, timeout=2.0
        )
        assert "/find" in helped.text

        slow = f"⚠️ slow did not answer within {TIMEOUT:.0f} seconds."
        releases = await c.shows(first, slow, within=TIMEOUT + 10)
        assert "1 of 3 sources answered\n" in releases.text  # nothing asked any more
        assert "⚠️ jackett: the API key was refused." in releases.text
        assert "Dune.2160p.WEB-DL.DDP5.1-GRP" in releases.text
        assert "Dune 2021 720p HDTV" not in releases.text  # no seeders, and others have
        assert releases.button_texts[0].startswith("1. 2160p WEB-DL")
        assert releases.button_texts[-1] == "◀ Titles"

        got = await c.alice.press(releases, releases.button_texts[0])
        assert got.text == "⬇ Getting it…"
        # The search's message is the download's now: its progress, then "Done", which is
        # news and sent anew in its place (docs/telegram.md, one message per download).
        (download,) = await eventually(c.store.downloads.list_downloads, what="a download")
        assert await c.store.telegram.download_of_message(ALICE, first.message_id) == download.id

        async def done() -> Message | None:
            last = c.alice.last_bot_message()
            return last if last.text.startswith("🎬 Done: Dune (2021)") else None

        await eventually(done, within=40, what="Done")
        (download,) = await c.store.downloads.list_downloads()
        assert download.state == "done"
        assert download.chat_id == ALICE
        card = await c.store.card(download.id)
        assert card is not None
        assert card.title is not None
        assert (card.title.candidate.provider_id, card.title.year) == ("438631", 2021)
        assert "themoviedb.org/movie/438631" in " ".join(await c.store.telegram.hints(download.id))

        # One message for the search and the download, one for /help; nothing else (the
        # message "Done" replaces is deleted right after "Done" is sent).
        async def settled() -> bool:
            return len(c.alice.bot_messages()) <= 2

        await eventually(settled, within=5, what="the message Done replaces deleted")
        assert [m.text.split("\n")[0] for m in c.alice.bot_messages()] == [
            "Send me a magnet link or a .torrent file: I add it to qBittorrent, follow it and"
            " put the finished files into the Jellyfin library.",
            "🎬 Done: Dune (2021)",
        ]
        # Searched again: the title and its release say the library has them, and
        # another 2160p release of it is a version the library has.
        c.good.releases.append(FakeRelease(
            title="Dune.2021.2160p.BluRay.REMUX-OTHER", imdb_id="tt1160419", tmdb_id=438631,
        ))  # fmt: skip
        again = await c.alice.send_text("/find Dune")
        second = await c.answer_to(again)
        titles = await c.shows(second, "which one?")
        assert titles.button_texts[0] == "🎬 Dune (2021) ✓"
        await c.alice.press(titles, "🎬 Dune (2021) ✓")
        listed = await c.shows(second, slow, within=TIMEOUT + 10)
        assert [b[:2] for b in listed.button_texts[:2]] == ["≈ ", "✓ "], listed.button_texts
        assert "✓ in the library · ⬇ downloading · ≈ a version you have" in listed.text
        # The indexers' key never reached the chat.
        assert all(c.good.api_key not in m.text for m in c.alice.chat.messages.values())


async def test_a_plain_text_is_offered_as_a_search(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path, language="ru") as c:
        sent = await c.alice.send_text("Дюна 2021")
        offer = await c.answer_to(sent)
        assert offer.text == "🔎 Поискать «Дюна 2021»?"
        assert offer.button_texts == ["🔎 Искать"]
        await c.alice.press(offer, "🔎 Искать")
        titles = await c.shows(offer, "что именно?")
        assert titles.button_texts[0] == "🎬 Dune (2021)"
        assert len(c.alice.bot_messages()) == 1


async def test_old_buttons_are_outdated_and_a_restart_finishes_the_search(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path) as c:
        sent = await c.alice.send_text("/find Dune")
        first = await c.answer_to(sent)
        titles = await c.shows(first, "which one?")
        await c.alice.press(titles, "🎬 Dune (2021)")
        await c.shows(first, "asking")
        search_id = await _search_of(c.store)
        # jellybit stops while the slow indexer is asked, and starts again.
        await c.house.halt()
        await c.house.start()
        finished = await c.shows(first, "⚠️ slow did not answer", within=TIMEOUT + 10)
        # The good indexer has no release: not "Nothing found." while two sources failed.
        assert "Nothing found by the sources that answered." in finished.text
        # A deleted search (older than two days): its buttons answer as outdated ones.
        async with c.store.db.write() as conn:
            await conn.execute("DELETE FROM search WHERE id = :id", {"id": search_id})
        answer = await c.alice.press(c.alice.chat.messages[first.message_id], "◀ Titles")
        assert answer.text is not None
        assert "outdated" in answer.text


async def test_without_sources_or_words_find_says_what_to_do(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path, sources=False) as c:
        sent = await c.alice.send_text("/find Dune")
        assert (await c.answer_to(sent)).text.startswith("Search is not set up: add Torznab")
        text = await c.alice.send_text("Dune 2021")  # no offer: the usual help
        assert (await c.answer_to(text)).text.startswith("I did not find a magnet link here.")
    async with chat(qbt, tmp_path / "again") as c:
        sent = await c.alice.send_text("/find")
        assert (await c.answer_to(sent)).text.startswith("Write what to look for after /find")


async def test_without_tmdb_the_words_are_searched_and_pages_turn(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path, tmdb=False) as c:
        c.hanging.set_delay(0)
        for n in range(11):
            c.good.releases.append(
                FakeRelease(title=f"Caminandes {n:02d} 1080p WEB-DL", seeders=100 - n)
            )
        sent = await c.alice.send_text("/find Caminandes")
        first = await c.answer_to(sent)
        listed = await c.shows(first, "2 of 3 sources answered", within=10)
        assert listed.text.startswith("🔎 Releases named “Caminandes”")
        assert "Next ▶" in listed.button_texts
        await c.alice.press(listed, "Next ▶")
        second = await c.shows(first, "9. ")
        assert "◀ Prev" in second.button_texts
        await c.alice.press(second, "Seeders")
        by_seeders = await c.shows(first, "1. Caminandes 00")
        assert "• Seeders" in by_seeders.button_texts


async def _search_of(store: Store) -> Id:
    async def one() -> Id | None:
        rows = await store.db.read(lambda conn: conn.execute("SELECT id FROM search").fetchall())
        return Id(rows[0]["id"]) if rows else None

    return await eventually(one, what="a search")


async def test_find_answers_at_once_while_a_source_hangs(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path, tmdb=False) as c:
        start = asyncio.get_running_loop().time()
        sent = await c.alice.send_text("/find Sintel")
        await c.answer_to(sent, within=2.0)
        assert asyncio.get_running_loop().time() - start < 2.0


async def test_a_show_lists_its_seasons_first_a_torrent_link_is_fetched_and_a_gone_one_said(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path) as c:
        c.hanging.set_delay(0)
        name = "Dark.S01.1080p.NF.WEB-DL.DDP5.1.x264-GRP"
        made = torrent_of(tmp_path, qbt, name, [f"{name}/Dark.S01E0{n}.mkv" for n in (1, 2)])
        assert made.v1 is not None
        c.good.releases += [
            FakeRelease(title="Dark.S01E01.720p.HDTV.x264", tmdb_id=70523, seeders=300,
                        categories=(5000,)),
            FakeRelease(title=name, tmdb_id=70523, infohash=made.v1, download="torrent",
                        torrent_file=made.data, seeders=40, categories=(5000,)),
            FakeRelease(title="Dark.S02.2160p.WEB-DL", tmdb_id=70523, download="gone",
                        seeders=80, categories=(5000,)),
        ]  # fmt: skip
        sent = await c.alice.send_text("/find Dark")
        first = await c.answer_to(sent)
        titles = await c.shows(first, "which one?")
        await c.alice.press(titles, "📺 Dark (2017)")
        listed = await c.shows(first, "2 of 3 sources answered", within=10)
        # The season packs first (by season), then the single episode.
        assert [b.split(" ")[1] for b in listed.button_texts[:3]] == ["S01", "S02", "S01E01"]
        # A release its indexer no longer has: said, and the list stays to pick another.
        gone = next(b for b in listed.button_texts if " S02 " in b)
        await c.alice.press(listed, gone)
        said = await c.alice.wait_for(lambda m: m.from_bot and "is gone" in m.text)
        assert said.text == "This release is gone: pick another."
        assert c.alice.chat.messages[first.message_id].button_texts == listed.button_texts
        assert await c.store.downloads.list_downloads() == []
        # The pack's link is the indexer's: jellybit fetches the .torrent itself.
        pack = next(b for b in listed.button_texts if " S01 " in b)
        await c.alice.press(listed, pack)
        (download,) = await eventually(c.store.downloads.list_downloads, what="a download")
        assert download.source_ref == ""  # a .torrent, not the indexer's URL
        assert [h.value for h in download.infohashes] == [made.v1]
        hints = await c.store.telegram.hints(download.id)
        assert hints == ["https://www.themoviedb.org/tv/70523"]

        async def done() -> bool:
            return (await c.store.downloads.get_download(download.id)).state == "done"

        await eventually(done, within=40, what="done")
        season = tmp_path / "library" / "shows" / "Dark (2017) [tmdbid-70523]" / "Season 01"
        assert sorted(p.name for p in season.iterdir()) == [
            "Dark S01E01.mkv", "Dark S01E02.mkv",
        ]  # fmt: skip


async def test_a_title_is_found_by_its_tmdb_or_imdb_id(
    qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    async with chat(qbt, tmp_path) as c:
        for words in ("tmdb:movie/438631", "imdb:tt1160419"):
            sent = await c.alice.send_text(f"/find {words}")
            first = await c.answer_to(sent)
            titles = await c.shows(first, "which one?")
            assert titles.button_texts == ["🎬 Dune (2021)", f"🔎 Releases named “{words}”"]
