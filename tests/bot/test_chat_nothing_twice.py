"""Nothing twice, in the chat (#33): a torrent sent again — a magnet in any form, a
.torrent, after a restart when the chat starts empty — whose files are all in the
library gets one answer, "Already in the library", with its card and its library
page, and nothing is downloaded; a magnet of two known torrents is refused in the
person's words; a download whose files are gone is fetched anew by its Download
again button. jellybit as ``jellybit run`` builds it, through the inbox, against the
fake Telegram and the fake qBittorrent (real files, real hardlinks)."""

import secrets
import shutil
from pathlib import Path

from core.links import verify_user_token
from core.models import Download
from core.states import State
from store import Store
from tests.bot.test_chat import (
    ALICE,
    SECRET,
    Running,
    alice,
    fake_qbt,
    new_torrent,
    qbt,
    reply_to,
    running,
    seeder,
)
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import eventually
from tests.support.telegram import FakeTelegram, FakeUser, Message
from tests.support.torrents import MadeTorrent, magnet_for
from tests.worker.test_nothing_twice import library_files

__all__ = ["alice", "fake_qbt", "qbt", "running", "seeder"]  # fixtures of test_chat


async def done_in_library(running: Running, user: FakeUser, made: MadeTorrent) -> Download:
    sent = await user.send_text(magnet_for(made))
    await user.wait_for(reply_to(sent))
    (download,) = await running.store.downloads.list_downloads()
    return await eventually(
        lambda: _in(running.store, download, State.DONE), within=30, what="done"
    )


async def _in(store: Store, download: Download, state: State) -> Download | None:
    now = await store.downloads.get_download(download.id)
    return now if now.state == state else None


def in_library(answer: Message, download: Download, name: str) -> None:
    """The one answer: the title, the card and the library page."""
    assert answer.text.startswith(f"📚 Already in the library: {name}"), answer.text
    assert answer.button_texts == ["Open", "Library page"]
    card, page = (button.url or "" for button in answer.buttons[0])
    assert f"/download/{download.id}?t=" in card
    assert "/title/" in page
    assert verify_user_token(SECRET, page.split("?t=")[1], now=0) == ALICE


async def test_a_done_movie_sent_again_is_answered_once_and_nothing_is_downloaded(
    running: Running, alice: FakeUser, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = new_torrent(tmp_path, seeder, "hybrid")
    done = await done_in_library(running, alice, made)
    files = library_files(tmp_path)
    assert len(files) == 1
    name = "Movie"  # the file's name read as the title: "Movie 3 (2021)"

    again = await alice.send_text(magnet_for(made))
    in_library(await alice.wait_for(reply_to(again)), done, name)
    document = await alice.send_document("movie.torrent", made.data)
    in_library(await alice.wait_for(reply_to(document)), done, name)

    await running.halt()  # the chat starts empty after a restart: the store remembers
    await running.start()
    v2_only = await alice.send_text(magnet_for(made, hashes="v2"))
    last = await alice.wait_for(reply_to(v2_only))
    in_library(last, done, name)

    assert [d.id for d in await running.store.downloads.list_downloads()] == [done.id]
    assert library_files(tmp_path) == files
    # Each answer is the download's message anew: the chat shows the download once.
    await alice.wait_for(
        lambda _: [m for m in alice.bot_messages() if made.name in m.text] == [last]
    )


async def test_the_russian_reader_reads_it_in_russian_and_the_refusal_too(
    running: Running, tg: FakeTelegram, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    ivan = tg.user(ALICE, language_code="ru")
    made = new_torrent(tmp_path, seeder, "hybrid")
    await done_in_library(running, ivan, made)
    again = await ivan.send_text(magnet_for(made, hashes="v1"))
    answer = await ivan.wait_for(reply_to(again))
    assert answer.text.startswith("📚 Уже в библиотеке: Movie")
    assert "Повторно ничего не скачиваю" in answer.text
    assert answer.button_texts == ["Открыть", "Страница в библиотеке"]

    other = new_torrent(tmp_path, seeder, "hybrid")
    mixed = f"magnet:?xt=urn:btih:{made.v1}&xt=urn:btmh:1220{other.v2 or secrets.token_hex(32)}"
    refused = await ivan.send_text(mixed)
    refusal = await ivan.wait_for(reply_to(refused))
    assert "сразу на два разных торрента" in refusal.text
    assert len(await running.store.downloads.list_downloads()) == 1


async def test_download_again_fetches_the_files_a_relink_could_not_find(
    running: Running, alice: FakeUser, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = new_torrent(tmp_path, seeder, "v1")
    done = await done_in_library(running, alice, made)
    for video in (tmp_path / "library").rglob("*.mkv"):
        video.unlink()
    qbittorrent_copy = seeder.downloads_dir / made.name  # the same fake
    qbittorrent_copy.unlink() if qbittorrent_copy.is_file() else shutil.rmtree(qbittorrent_copy)
    await running.house.engine.cases.actions.relink(done.id)

    failed = await alice.wait_for(
        lambda m: m.from_bot and "Download again" in m.button_texts, timeout=20
    )
    assert "no longer on the disk" in failed.text
    answer = await alice.press(failed, "Download again")
    assert answer.text == "Downloading it again."
    await eventually(lambda: _in(running.store, done, State.DONE), within=30, what="done again")
    assert len(library_files(tmp_path)) == 1
