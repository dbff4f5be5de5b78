"""The bot end to end: jellybit built as ``jellybit run`` builds it, its real aiogram
dispatcher talking HTTP to the fake Telegram and the fake qBittorrent (downloading what
a test offers its peers)."""

import asyncio
import itertools
import re
import secrets
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path

import pytest

from bot.app import WEBHOOK_PATH, webhook_secret
from core.config import MetadataSettings
from core.ids import Id, new_id
from core.links import verify_user_token
from core.models import Download, NewDownload, SnapshotChange, Transition
from core.reasons import reason
from core.states import State
from jellybit.app import Tuning
from store import Store
from store.migrate import migrate
from store.outbox import enqueue
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.fixtures import fake_qbt
from tests.support.house import House, Qbittorrent, house_settings, settings_for
from tests.support.telegram import Button, FakeTelegram, FakeUser, Message
from tests.support.torrents import Kind, MadeTorrent, magnet_for, make_content, make_torrent

ALICE = 111_111_111
STRANGER = 999_999_999
SECRET = b"test-secret"
PUBLIC_URL = "http://127.0.0.1:8090"
_names = itertools.count()
__all__ = ["fake_qbt"]


class Running:
    """jellybit as ``jellybit run`` builds it, on one database; stoppable and restartable."""

    def __init__(
        self,
        tg: FakeTelegram,
        qbt: Qbittorrent,
        path: Path,
        mode: str = "polling",
        allowed_users: tuple[int, ...] = (ALICE,),
        metadata: MetadataSettings | None = None,
        tuning: Tuning | None = None,
    ) -> None:
        self.tg, self.qbt, self.path, self.mode = tg, qbt, path, mode
        self.allowed_users, self.metadata = allowed_users, metadata
        self.tuning = tuning or Tuning(full_resync_every=1.0)

    async def start(self) -> Store:
        settings = house_settings(
            self.path.parent,
            qbittorrent=settings_for(self.qbt),
            telegram_api=self.tg.base_url,
            token=self.tg.token,
            allowed_users=self.allowed_users,
            mode=self.mode,
            metadata=self.metadata,
        )
        self.house = await House(settings, self.tuning).start()
        if self.mode == "webhook":
            self.tg.webhook_target = self.house.web_url + WEBHOOK_PATH
        self.store, self.engine = self.house.store, self.house.engine
        return self.store

    async def halt(self) -> None:
        await self.house.halt()


@pytest.fixture(scope="module")
def qbt(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


@pytest.fixture(scope="module")
def seeder(fake_qbt: FakeQbittorrentServer) -> FakeQbittorrentServer:
    return fake_qbt


def new_torrent(
    tmp_path: Path, seeder: FakeQbittorrentServer, kind: Kind, *, held: bool = False
) -> MadeTorrent:
    """A torrent of a 2 MiB film the fake's peers have (``held``: half of it)."""
    n = next(_names)
    content = make_content(
        tmp_path / f"src{n}", f"Movie.{n}.2021.1080p.mkv", 2 * 1024 * 1024, seed=n
    )
    made = make_torrent(content, kind)
    seeder.offer(made, held=held)
    return made


@pytest.fixture
async def running(
    tg: FakeTelegram, qbt: FakeQbittorrentServer, tmp_path: Path
) -> AsyncIterator[Running]:
    path = tmp_path / "jellybit.db"
    migrate(path)
    run = Running(tg, qbt, path)
    await run.start()
    yield run
    await run.halt()


@pytest.fixture
def alice(tg: FakeTelegram) -> FakeUser:
    return tg.user(ALICE, language_code="en")


def reply_to(sent: Message) -> Callable[[Message], bool]:
    return lambda m: m.from_bot and m.reply_to_message_id == sent.message_id


def after(sent: Message) -> Callable[[Message], bool]:
    return lambda m: m.from_bot and m.message_id > sent.message_id


def dead_magnet(name: str = "Some.Movie.2021") -> str:
    return f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn={name}&x.pe=127.0.0.1:1"


async def test_magnet_to_completion_in_the_chat(
    running: Running, alice: FakeUser, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = new_torrent(tmp_path, seeder, "hybrid")
    sent = await alice.send_text(magnet_for(made) + "\nthis is Dune 2021")

    reply = await alice.wait_for(reply_to(sent))
    (download,) = await running.store.downloads.list_downloads()
    assert made.name in reply.text
    assert reply.button_texts == ["Open", "Cancel"]
    url = reply.buttons[0][0].url or ""
    assert url.startswith(f"{PUBLIC_URL}/download/{download.id}?t=")
    assert verify_user_token(SECRET, url.split("?t=")[1], now=0) == ALICE
    assert await running.store.telegram.hints(download.id) == ["this is Dune 2021"]

    # The message is edited in place while it downloads; "Done" is sent anew (the
    # phone rings) and says where it went: the hint named the title. The accepted
    # reply is deleted: the chat shows the download once.
    done = await alice.wait_for(lambda m: m.from_bot and m.text.startswith("🎬 Done"), timeout=30)
    assert "Dune (2021)" in done.text
    assert done.button_texts == ["Open", "Relink"]
    await alice.wait_for(lambda _: reply.message_id not in alice.chat.messages)
    assert [m for m in alice.bot_messages() if m.text.startswith("🎬")] == [done]


async def test_two_magnets_in_one_message_then_a_duplicate(
    running: Running, alice: FakeUser
) -> None:
    first, second = dead_magnet("First"), dead_magnet("Second")
    sent = await alice.send_text(f"{first}\n{second}")
    await alice.wait_for(lambda _: len([m for m in alice.bot_messages() if reply_to(sent)(m)]) == 2)
    assert len(await running.store.downloads.list_downloads()) == 2

    again = await alice.send_text(first)
    duplicate = await alice.wait_for(reply_to(again))
    assert duplicate.text.startswith("↩️ Already here: First")
    assert len(await running.store.downloads.list_downloads()) == 2


async def test_torrent_document_is_ingested_with_its_caption_as_hint(
    running: Running, alice: FakeUser, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = new_torrent(tmp_path, seeder, "v2")
    sent = await alice.send_document("movie.torrent", made.data, caption="Dune 2021")
    reply = await alice.wait_for(reply_to(sent))
    assert made.name in reply.text
    (download,) = await running.store.downloads.list_downloads()
    assert download.state != State.FAILED, reply.text  # qBittorrent took the file
    assert await running.store.tracking.torrent_file(download.id) == made.data
    assert await running.store.telegram.hints(download.id) == ["Dune 2021"]


async def test_a_reply_to_the_bot_adds_a_hint(running: Running, alice: FakeUser) -> None:
    sent = await alice.send_text(dead_magnet())
    status = await alice.wait_for(reply_to(sent))
    await remembered(running.store, status)  # the bot notes its message right after sending
    hint = await alice.send_text("это Дюна 2021", reply_to=status)
    answer = await alice.wait_for(reply_to(hint))
    assert answer.text.startswith("📝 Hint for Some.Movie.2021: это Дюна 2021")
    (download,) = await running.store.downloads.list_downloads()
    assert await running.store.telegram.hints(download.id) == ["это Дюна 2021"]


async def remembered(store: Store, message: Message) -> None:
    for _ in range(100):
        if await store.telegram.download_of_message(message.chat_id, message.message_id):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"message #{message.message_id} was not remembered")


async def test_garbage_gets_the_reason_and_plain_text_gets_help(
    running: Running, alice: FakeUser
) -> None:
    bad = await alice.send_text("magnet:?xt=urn:btih:1234")
    answer = await alice.wait_for(reply_to(bad))
    assert answer.text == (
        "❌ This link has no valid torrent hash: it looks cut off.\n"
        "Copy the whole magnet link, or send the .torrent file."
    )
    plain = await alice.send_text("hello")
    assert "did not find a magnet link" in (await alice.wait_for(reply_to(plain))).text
    assert await running.store.downloads.list_downloads() == []


async def test_russian_speaker_reads_russian(running: Running, tg: FakeTelegram) -> None:
    tg.user(ALICE, language_code="ru")
    sent = await tg.user(ALICE, language_code="ru").send_text("привет")
    answer = await tg.user(ALICE, language_code="ru").wait_for(reply_to(sent))
    assert "Не нашёл здесь magnet-ссылки" in answer.text


async def test_a_stranger_is_refused_and_nothing_is_stored(
    running: Running, tg: FakeTelegram
) -> None:
    stranger = tg.user(STRANGER, language_code="en")
    await stranger.send_text(dead_magnet())
    refusal = await stranger.wait_for(lambda m: m.from_bot)
    assert str(STRANGER) in refusal.text
    assert "private bot" in refusal.text
    await asyncio.sleep(0.5)
    assert len(stranger.bot_messages()) == 1
    assert await running.store.downloads.list_downloads() == []


async def test_html_in_a_torrent_name_is_shown_literally(running: Running, alice: FakeUser) -> None:
    sent = await alice.send_text(dead_magnet("Some%20%3Cb%3EMovie%3C%2Fb%3E%20%26%20more"))
    reply = await alice.wait_for(reply_to(sent))
    assert "Some <b>Movie</b> & more" in reply.text


async def test_status_and_list_commands(running: Running, alice: FakeUser) -> None:
    sent = await alice.send_text(dead_magnet("Listed.Movie"))
    await alice.wait_for(reply_to(sent))
    (download,) = await running.store.downloads.list_downloads()

    status = await alice.send_text(f"/status {download.id.upper()}")
    shown = await alice.wait_for(after(status))
    assert "Listed.Movie" in shown.text
    garbage = await alice.send_text("/status abc!!!")
    assert (
        "No download with this id"
        in (await alice.wait_for(lambda m: m.from_bot and m.message_id > garbage.message_id)).text
    )
    listing = await alice.send_text("/list")
    listed = await alice.wait_for(after(listing))
    assert "Listed.Movie" in listed.text
    assert listed.buttons[0][0].url is not None


async def put_buttons(user: FakeUser, message: Message, *buttons: Button) -> None:
    """Make a bot message carry other buttons: as if an older jellybit had sent it."""
    stored = user.chat.messages[message.message_id]
    stored.buttons = [list(buttons)]
    stored.reply_markup = {
        "inline_keyboard": [[{"text": b.text, "callback_data": b.callback_data} for b in buttons]]
    }


@pytest.mark.parametrize(
    "data",
    [
        "retry:17",  # a legacy numeric id
        "j1:retry:{unknown}",  # a valid id that no download has
        "j1:retry",  # malformed
        "j1:retry:abc!!!",  # garbage id
        "j1:explode:{own}",  # an action this version does not know
        "j1:relink:{own}",  # an action that does not fit the state
    ],
)
async def test_stale_buttons_are_answered_outdated_and_the_message_refreshed(
    running: Running, alice: FakeUser, data: str
) -> None:
    sent = await alice.send_text(dead_magnet("Stale.Button"))
    status = await alice.wait_for(reply_to(sent))
    (download,) = await running.store.downloads.list_downloads()
    await put_buttons(
        alice, status, Button("Old", callback_data=data.format(unknown=new_id(), own=download.id))
    )

    answer = await alice.press(status, "Old")

    assert answer.text == "This button is outdated — here is the current state."
    refreshed = await alice.wait_for(
        lambda m: m.message_id == status.message_id and "Old" not in m.button_texts
    )
    assert "Stale.Button" in refreshed.text


async def test_retry_refused_by_the_guard_names_the_owner(
    running: Running, alice: FakeUser
) -> None:
    await say_hello(alice)
    store = running.store
    infohash = secrets.token_hex(20)
    new = NewDownload(name="Old.Try", origin="telegram", source_ref=dead_magnet(), chat_id=ALICE)
    old = (await store.downloads.create_download_if_no_active(new, [infohash])).download
    await store.downloads.move(old.id, State.FAILED, reason=reason("qbt.refused", detail="Fails."))
    owner = (await store.downloads.create_download_if_no_active(new, [infohash])).download
    await running_send_status(running, old)
    message = await alice.wait_for(lambda m: m.from_bot and "Retry" in m.button_texts)

    answer = await alice.press(message, "Retry")

    assert answer.text is not None
    assert owner.id in answer.text
    assert (await store.downloads.get_download(old.id)).state == State.FAILED


async def running_send_status(running: Running, download: Download) -> None:
    """The bot's message about a failed download, as the outbox sends it."""
    async with running.store.db.write() as conn:
        await enqueue(conn, download.id, "failed", {"reason": "add rejected"})


async def say_hello(user: FakeUser) -> None:
    """A chat exists once its person has written to the bot (Telegram: "chat not found")."""
    sent = await user.send_text("/start")
    await user.wait_for(after(sent))


async def announce(store: Store, download: Download) -> None:
    """A background change (accepted -> failed) that the outbox announces in the chat."""
    move = Transition(State.ACCEPTED, State.FAILED, reason("qbt.refused", detail="no seeds"))
    assert await store.tracking.apply_changes([SnapshotChange(download.id, {}, move)])


async def test_429_is_waited_out_and_resent(
    running: Running, alice: FakeUser, tg: FakeTelegram
) -> None:
    tg.fail_next("sendMessage", retry_after=1)
    sent = await alice.send_text(dead_magnet())
    await alice.wait_for(reply_to(sent), timeout=15)
    calls = tg.calls_to("sendMessage")
    assert [c.status for c in calls[-2:]] == [429, 200]
    assert calls[-1].at - calls[-2].at >= 1.0

    tg.fail_next("editMessageText", retry_after=1)
    (download,) = await running.store.downloads.list_downloads()
    await running.store.downloads.move(
        download.id, State.STUCK, reason=reason("qbt.no_progress", seconds=21600)
    )
    edited = await alice.wait_for(
        lambda m: m.from_bot and "Stuck: No progress for 6 hours." in m.text, timeout=15
    )
    assert edited.edits >= 1
    assert 429 in [c.status for c in tg.calls_to("editMessageText")]


async def waiting_downloads(store: Store, count: int) -> list[Download]:
    """Accepted downloads the poller leaves alone (their next add is far away)."""
    made = []
    for n in range(count):
        new = NewDownload(name=f"Waiting.{n}", origin="telegram", source_ref="", chat_id=ALICE)
        download = (
            await store.downloads.create_download_if_no_active(new, [secrets.token_hex(20)])
        ).download
        await store.tracking.record_add_attempt(download.id, next_add_at="2999-01-01T00:00:00Z")
        made.append(download)
    return made


def sent_texts(tg: FakeTelegram, prefix: str) -> list[str]:
    return [
        str(c.params.get("text"))
        for c in tg.calls_to("sendMessage")
        if c.status == 200 and str(c.params.get("text", "")).startswith(prefix)
    ]


async def test_outbox_delivers_everything_once_after_telegram_was_down(
    running: Running, alice: FakeUser, tg: FakeTelegram
) -> None:
    await say_hello(alice)
    downloads = await waiting_downloads(running.store, 3)
    tg.set_down(True)
    for download in downloads:
        await announce(running.store, download)
    await asyncio.sleep(2)
    tg.set_down(False)
    await alice.wait_for(lambda _: len(sent_texts(tg, "❌ Failed")) == 3, timeout=30)
    await asyncio.sleep(1.5)
    assert sorted(sent_texts(tg, "❌ Failed")) == sorted(
        f"❌ Failed: {d.name}\nReason: qBittorrent refused to add the torrent." for d in downloads
    )


async def test_a_restart_between_creation_and_sending_delivers_once(
    running: Running, alice: FakeUser, tg: FakeTelegram
) -> None:
    await say_hello(alice)
    (download,) = await waiting_downloads(running.store, 1)
    await running.halt()
    store = await Store.open(running.path)
    await announce(store, download)  # queued while jellybit is down
    await store.close()
    await running.start()
    await alice.wait_for(lambda _: len(sent_texts(tg, "❌ Failed")) == 1, timeout=15)
    await asyncio.sleep(1.5)
    assert len(sent_texts(tg, "❌ Failed")) == 1


async def test_webhook_mode_receives_updates_and_checks_the_secret(
    tg: FakeTelegram, qbt: FakeQbittorrentServer, tmp_path: Path, alice: FakeUser
) -> None:
    path = tmp_path / "jellybit.db"
    migrate(path)
    run = Running(tg, qbt, path, mode="webhook")
    await run.start()
    try:
        await _until(lambda: tg.webhook_url is not None)
        assert tg.webhook_url == f"https://jellybit.example.org{WEBHOOK_PATH}"
        assert tg.webhook_secret == webhook_secret(SECRET)
        sent = await alice.send_text("/help")
        assert "magnet" in (await alice.wait_for(after(sent))).text
        update = {
            "update_id": 10**6,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": ALICE, "type": "private"},
                "text": "/help",
            },
        }
        assert tg.webhook_target is not None
        status = await tg.deliver_webhook(tg.webhook_target, update, secret_token="wrong")
        assert status in (401, 403)
    finally:
        await run.halt()


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not within 10 s")


# Words a person understands (#33 item 3): each in Russian and English, as the chat reads.

# Latin a Russian reader meets in the bot's words: names, commands, and the name of a link.
LATIN_NAMES = {"qbittorrent", "telegram", "jellyfin", "tmdb", "magnet", "torrent", "id"}


def english_words(text: str, names: Iterable[str] = ()) -> set[str]:
    """Latin words of a message that are neither a name nor a command nor a given title."""
    words = set(re.findall(r"(?<![/\w.])[A-Za-z]{2,}", text))
    shown = {w.lower() for name in names for w in re.findall(r"[A-Za-z]{2,}", name)}
    return {w for w in words if w.lower() not in LATIN_NAMES | shown}


def person(tg: FakeTelegram, language: str) -> FakeUser:
    return tg.user(ALICE, language_code=language)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "❌ This link has no valid torrent hash: it looks cut off.\n"
               "Copy the whole magnet link, or send the .torrent file."),
        ("ru", "❌ В этой ссылке нет правильного хеша торрента — похоже, она обрезана.\n"
               "Скопируйте magnet-ссылку целиком или пришлите .torrent-файл."),
    ],
)  # fmt: skip
async def test_a_bad_magnet_says_whats_wrong_in_the_persons_words(
    running: Running, tg: FakeTelegram, language: str, expected: str
) -> None:
    user = person(tg, language)
    for bad in (
        "magnet:?xt=urn:btih:1234",
        "magnet:?xt=urn:btmh:1220abcd",
        "magnet:?dn=Film",
        f"magnet:?xt=urn:btih:{'a' * 40}&xt=urn:btih:{'b' * 40}",
    ):
        sent = await user.send_text(bad)
        answer = await user.wait_for(reply_to(sent))
        assert not re.search(r"infohash|hex|base32|btih|btmh|urn", answer.text, re.I), answer.text
        if language == "ru":
            assert english_words(answer.text) == set(), answer.text
        if bad.endswith("1234"):
            assert answer.text == expected
    assert await running.store.downloads.list_downloads() == []


@pytest.mark.parametrize(
    ("language", "heading", "gone"),
    [("en", "Which download? The recent ones:", "No download with this id."),
     ("ru", "Какая загрузка? Последние:", "Загрузки с таким ID нет.")],
)  # fmt: skip
async def test_status_without_an_id_lists_the_recent_ones_to_pick_from(
    running: Running, tg: FakeTelegram, language: str, heading: str, gone: str
) -> None:
    user = person(tg, language)
    for name in ("First.Film", "Second.Film"):
        sent = await user.send_text(dead_magnet(name))
        await user.wait_for(reply_to(sent))

    asked = await user.send_text("/status")
    listing = await user.wait_for(reply_to(asked))
    assert listing.text.splitlines()[0] == heading
    assert [b.text for row in listing.buttons for b in row] == ["1. Second.Film", "2. First.Film"]

    await user.press(listing, "1. Second.Film")
    status = await user.wait_for(lambda m: reply_to(listing)(m) and "Second.Film" in m.text)
    assert {"en": "Cancel", "ru": "Отменить"}[language] in status.button_texts
    if language == "ru":
        assert english_words(status.text, {"Second.Film"}) == set(), status.text

    again = await user.send_text("/status 01J00000000000000000000000")
    assert (await user.wait_for(after(again))).text == gone


@pytest.mark.parametrize(
    ("language", "unknown", "commands", "no_link"),
    [("en", "I do not know the command /foo.", "Commands: /find",
      "I did not find a magnet link here."),
     ("ru", "Я не знаю команды /foo.", "Команды: /find", "Не нашёл здесь magnet-ссылки.")],
)  # fmt: skip
async def test_an_unknown_command_says_so_and_shows_the_commands(
    running: Running, tg: FakeTelegram, language: str, unknown: str, commands: str, no_link: str
) -> None:
    user = person(tg, language)
    sent = await user.send_text("/foo bar")
    answer = await user.wait_for(reply_to(sent))
    assert answer.text.splitlines()[0] == unknown
    assert answer.text.splitlines()[1].startswith(commands)
    plain = await user.send_text("just some words")
    assert (await user.wait_for(reply_to(plain))).text.startswith(no_link)  # as before
    if language == "ru":
        assert english_words(answer.text) == set(), answer.text


@pytest.mark.parametrize(
    ("language", "nothing", "finished", "library"),
    [("en", "Nothing is downloading now.", "Finished lately",
      "Everything in the library: /library."),
     ("ru", "Сейчас ничего не качается.", "Недавно готовые",
      "Всё, что есть в библиотеке: /library.")],
)  # fmt: skip
async def test_an_empty_list_offers_the_latest_finished_and_the_library(
    running: Running, tg: FakeTelegram, language: str, nothing: str, finished: str, library: str
) -> None:
    user = person(tg, language)
    store = running.store
    new = NewDownload(name="Old.Film.2020", origin="telegram", source_ref="", chat_id=ALICE)
    made = await store.downloads.create_download_if_no_active(new, [secrets.token_hex(20)])
    for state in (State.DOWNLOADING, State.IMPORTING, State.DONE):
        await store.downloads.move(made.download.id, state, reason=reason("qbt.seen"))

    sent = await user.send_text("/list")
    answer = await user.wait_for(after(sent))
    assert answer.text.splitlines()[0] == nothing
    assert finished in answer.text
    assert "1. Old.Film.2020" in answer.text
    assert answer.text.splitlines()[-1] == library
    assert answer.buttons[0][0].text == "1. Old.Film.2020"
    assert (answer.buttons[0][0].url or "").startswith(f"{PUBLIC_URL}/download/{made.download.id}")


@pytest.mark.parametrize(
    ("language", "waiting"),
    [("en", "⏳ Waiting for the list of files from peers: 1 minute so far."),
     ("ru", "⏳ Жду список файлов от раздающих — уже 1 минута.")],
)  # fmt: skip
async def test_a_download_at_zero_says_why_it_waits_and_how_long(
    running: Running, tg: FakeTelegram, language: str, waiting: str
) -> None:
    """Nobody has the torrent: qBittorrent waits for its metadata (metaDL)."""
    user = person(tg, language)
    sent = await user.send_text(dead_magnet("Nobody.Has.It"))
    status = await user.wait_for(reply_to(sent))
    shown = await user.wait_for(
        lambda m: m.message_id == status.message_id and waiting in m.text, timeout=15
    )
    assert shown.text.splitlines()[-1] == waiting


@pytest.mark.parametrize(
    ("language", "cancel", "question", "sure", "keep", "kept"),
    [("en", "Cancel", r"Cancel {name} and delete the 1(\.0)? MB downloaded\?", "Cancel and delete",
      "Keep it", "Not cancelled: it goes on."),
     ("ru", "Отменить", r"Отменить {name} и удалить уже скачанные 1(,0)? МБ\?",
      "Отменить и удалить", "Оставить", "Не отменяю: загрузка продолжается.")],
)  # fmt: skip
async def test_cancel_of_a_download_with_data_asks_once(
    running: Running,
    tg: FakeTelegram,
    seeder: FakeQbittorrentServer,
    tmp_path: Path,
    language: str,
    cancel: str,
    question: str,
    sure: str,
    keep: str,
    kept: str,
) -> None:
    """Half of a 2 MiB film is on disk (qBittorrent holds the rest back)."""
    user = person(tg, language)
    made = new_torrent(tmp_path, seeder, "v1", held=True)
    sent = await user.send_text(magnet_for(made))
    status = await user.wait_for(reply_to(sent))
    (download,) = await running.store.downloads.list_downloads()
    await _until_half(running.store, download.id)
    asked = re.compile(question.format(name=re.escape(made.name)))

    await user.press(status, cancel)
    asking = await user.wait_for(lambda m: reply_to(status)(m) and bool(asked.fullmatch(m.text)))
    assert asking.button_texts == [sure, keep]
    assert (await running.store.downloads.get_download(download.id)).state == State.DOWNLOADING

    answer = await user.press(asking, keep)
    assert answer.text == kept
    await _until(lambda: asking.message_id not in user.chat.messages)  # the question is gone
    assert (await running.store.downloads.get_download(download.id)).state == State.DOWNLOADING

    await user.press(status, cancel)
    asking = await user.wait_for(
        lambda m: (
            reply_to(status)(m)
            and bool(asked.fullmatch(m.text))
            and m.message_id > asking.message_id
        )
    )
    await user.press(asking, sure)
    await _until_removed(running.store, download.id)
    # The question leaves the chat; the download's own message shows it cancelled,
    # without Cancel: the chat holds it once.
    await _until(lambda: asking.message_id not in user.chat.messages)
    shown = await user.wait_for(
        lambda m: m.message_id == status.message_id and cancel not in m.button_texts
    )
    assert shown.text.startswith("🗑")
    assert [m.message_id for m in user.bot_messages() if made.name in m.text] == [status.message_id]


async def _until_half(store: Store, download_id: Id) -> None:
    for _ in range(200):
        if (await store.downloads.get_download(download_id)).progress >= 0.5:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not half downloaded within 10 s")


async def _until_removed(store: Store, download_id: Id) -> None:
    for _ in range(200):
        if (await store.downloads.get_download(download_id)).state == State.REMOVED:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not cancelled within 10 s")


async def test_no_english_reaches_a_russian_reader_of_a_refusal(
    running: Running, tg: FakeTelegram
) -> None:
    """qBittorrent's own words ("Fails.") stay on the card: the chat reads Russian."""
    user = person(tg, "ru")
    await say_hello(user)
    (download,) = await waiting_downloads(running.store, 1)
    move = Transition(State.ACCEPTED, State.FAILED, reason("qbt.refused", detail="Fails."))
    assert await running.store.tracking.apply_changes([SnapshotChange(download.id, {}, move)])
    failed = await user.wait_for(lambda m: m.from_bot and "qBittorrent не принял торрент" in m.text)
    assert "Fails" not in failed.text
    assert english_words(failed.text, {download.name}) == set(), failed.text
    for message in user.bot_messages():
        assert english_words(message.text, {download.name}) == set(), message.text
