"""Texts of the bot's photo messages: captions within Telegram's 1 024 characters,
the seasons a download added, in Russian and English."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.keyboards import download_keyboard, review_keyboard
from bot.links import Links
from bot.sender import ChatPacer
from bot.texts import (
    CAPTION_CHARS,
    cancel_question_text,
    done_caption,
    fit_caption,
    rejected_text,
    seasons_added,
    status_text,
)
from common.explain import reason_text
from common.i18n import I18n
from core import clock
from core.magnet import BTIH_REASON
from core.models import Download
from core.reasons import DETAILS, TEMPLATES, Reason, Value, reason
from core.states import State
from tests.core.test_live import download as a_download


def download(name: str) -> Download:
    return a_download(name=name)


def test_the_seasons_a_download_added_in_both_languages() -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    assert seasons_added(en, {2: 8}) == "season 2, 8 episodes"
    assert seasons_added(en, {1: 1, 3: 10}) == "season 1, 1 episode; season 3, 10 episodes"
    assert seasons_added(ru, {2: 8, 4: 21}) == "сезон 2, 8 серий; сезон 4, 21 серия"


def test_a_done_caption_names_the_title_and_fits_a_caption() -> None:
    en = I18n("en").texts("en")
    caption = done_caption(
        en, download("Dark.S02.<i>"), "Dark", 2017, seasons_added(en, {2: 8}), "In the library."
    )
    assert caption.splitlines()[:2] == ["📺 Done: Dark — season 2, 8 episodes", "In the library."]
    assert "&lt;i&gt;" in caption  # the torrent's name, escaped
    long = fit_caption("x" * 5000)
    assert len(long) == CAPTION_CHARS


def test_a_chat_gets_a_burst_then_one_message_a_second() -> None:
    pacer = ChatPacer(burst=3, per_second=1.0)
    assert [pacer.delay(7, now=100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert pacer.delay(7, now=100.0) == 1.0  # the fourth waits a second
    assert pacer.delay(8, now=100.0) == 0.0  # another chat is not held up
    assert pacer.delay(7, now=110.0) == 0.0  # refilled meanwhile (capped at the burst)
    assert [pacer.delay(7, now=110.0) for _ in range(2)] == [0.0, 0.0]
    assert pacer.delay(7, now=110.0) == 1.0


def test_a_shows_done_says_the_season_and_episodes_in_words() -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    name = download("Caminandes.S01.720p.WEB-DL")
    assert done_caption(
        en, name, "Caminandes", 2013, seasons_added(en, {1: 3}), "In the library."
    ).startswith("📺 Done: Caminandes — season 1, 3 episodes\n")
    assert done_caption(
        ru, name, "Caminandes", 2013, seasons_added(ru, {1: 3}), "В библиотеке."
    ).startswith("📺 Готово: Caminandes — сезон 1, 3 серии\n")
    # Russian counts: 1 серия, 3 серии, 5 серий, 21 серия
    assert (
        seasons_added(ru, {1: 1, 2: 5, 3: 21})
        == "сезон 1, 1 серия; сезон 2, 5 серий; сезон 3, 21 серия"
    )
    assert seasons_added(en, {2: 1}) == "season 2, 1 episode"
    movie = done_caption(en, download("Dune.2021"), "Dune", 2021, "", "In the library.")
    assert movie.startswith("🎬 Done: Dune (2021)\n")


MINUTES_AGO = 3 * 60 + 20


def waiting(qbt_state: str) -> Download:
    created = clock.format_time(datetime.now(UTC) - timedelta(seconds=MINUTES_AGO))
    return a_download(
        name="Some.Movie", progress=0.0, download_speed=0, qbt_state=qbt_state, created_at=created,
        progress_at=created,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("qbt_state", "english", "russian"),
    [
        ("metaDL", "Waiting for the list of files from peers: 3 minutes so far.",
         "Жду список файлов от раздающих — уже 3 минуты."),
        ("queuedDL", "Queued in qBittorrent behind other downloads: 3 minutes so far.",
         "В очереди qBittorrent за другими загрузками — уже 3 минуты."),
        ("stalledDL", "Stalled: no peer sends anything, 3 minutes so far.",
         "Загрузка стоит: никто не раздаёт — уже 3 минуты."),
        ("downloading", "No peers to download from yet: 3 minutes so far.",
         "Пока не у кого качать — уже 3 минуты."),
    ],
)  # fmt: skip
def test_a_download_at_zero_says_why_and_how_long(
    qbt_state: str, english: str, russian: str
) -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    assert status_text(en, waiting(qbt_state)).endswith("\n⏳ " + english)
    assert status_text(ru, waiting(qbt_state)).endswith("\n⏳ " + russian)


def test_the_wait_counts_from_the_last_start_not_from_the_first_send() -> None:
    """A download retried today after it was sent three days ago has waited minutes."""
    en = I18n("en").texts("en")
    retried = a_download(
        name="Some.Movie", progress=0.0, download_speed=0, qbt_state="metaDL",
        created_at=clock.format_time(datetime.now(UTC) - timedelta(days=3)),
        progress_at=clock.format_time(datetime.now(UTC) - timedelta(seconds=MINUTES_AGO)),
    )  # fmt: skip
    assert status_text(en, retried).endswith(": 3 minutes so far.")


def test_a_download_under_way_has_no_waiting_line() -> None:
    en = I18n("en").texts("en")
    assert "⏳" not in status_text(en, download("Some.Movie"))  # 50 %, 10 B/s


def test_a_bad_magnet_is_refused_in_the_persons_words() -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    assert rejected_text(en, BTIH_REASON) == (
        "❌ This link has no valid torrent hash: it looks cut off.\n"
        "Copy the whole magnet link, or send the .torrent file."
    )
    assert rejected_text(ru, BTIH_REASON) == (
        "❌ В этой ссылке нет правильного хеша торрента — похоже, она обрезана.\n"
        "Скопируйте magnet-ссылку целиком или пришлите .torrent-файл."
    )
    for tx in (en, ru):
        for code in [c for c in TEMPLATES if c.startswith(("magnet.", "torrent."))]:
            text = rejected_text(tx, reason(code, limit=50_000, levels=64, detail="Bad Request"))
            assert not DEVELOPER_WORDS.search(text), text


DEVELOPER_WORDS = re.compile(
    r"infohash|\bhex\b|base32|bencode|btih|btmh|urn:|KiB|MiB|PiB|Bad Request", re.I
)


def test_another_systems_words_are_a_detail_never_the_readers_reason() -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    refused = reason("qbt.refused", detail="Fails.")
    assert reason_text(ru, refused) == "qBittorrent не принял торрент."
    assert reason_text(en, refused) == "qBittorrent refused to add the torrent."
    assert refused.detail() == "Fails."  # on the card
    assert refused.english() == "qBittorrent refused to add the torrent. (Fails.)"  # logs, API
    for code in TEMPLATES:
        for tx in (en, ru):
            assert "Fails." not in reason_text(tx, Reason(code, {k: "Fails." for k in DETAILS}))


# Latin a Russian reader may meet: names of systems, commands, settings, placeholders' values.
NAMES = {
    "qbittorrent", "telegram", "tmdb", "jellyfin", "jellybit", "magnet", "torrent", "api", "id",
    "library", "cross_device", "copy", "webui", "sync", "maindata", "python",
}  # fmt: skip
SAMPLE: dict[str, Value] = {
    "folder": "Фильмы/Дюна (2021)", "name": "фильм.mkv", "path": "/данные/фильм.mkv",
    "target": "/библиотека/Дюна.mkv", "source": "/загрузки/Дюна.mkv", "file": "серия.mkv",
    "title": "Дюна", "words": "Часть два", "hint": "Дюна", "date": "2021-01-01",
    "episode": "S01E02", "what": "S02", "label": "4К", "other": "Дюна.2021", "root": "/библиотека",
    "first": "а.mkv", "second": "б.mkv", "system": "qbittorrent", "source_fs": "ext4",
    "target_fs": "btrfs", "limit": 50_000, "levels": 64, "count": 2, "confidence": 0.5,
    "seconds": 3600, **{key: "Permission denied" for key in DETAILS},
}  # fmt: skip


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_every_reason_reads_in_russian_without_english_words(code: str) -> None:
    ru = I18n("en").texts("ru")
    # A placeholder SAMPLE has no value for stays "{name}": not a word a reader meets.
    text = re.sub(r"\{\w+\}", "", reason_text(ru, Reason(code, SAMPLE)))
    latin = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_]+", text)}
    sample_words = {w.lower() for v in SAMPLE.values() for w in re.findall(r"[A-Za-z_]+", str(v))}
    assert latin <= NAMES | sample_words - {"permission", "denied"}, text


def test_other_is_offered_only_where_search_works() -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    review = a_download(name="Sintel.1080p", state=State.REVIEW)
    candidates = [("01J0000000000000000000000A", "Sintel (2010)")]
    searching = review_keyboard(en, Links("https://j.example", b"s"), review, candidates, 7)
    assert [b.text for b in searching.inline_keyboard[-1]] == ["Other…", "Cancel"]
    offline = Links("https://j.example", b"s", search=False)
    for tx, label in ((en, "Type the title"), (ru, "Ввести название")):
        keyboard = review_keyboard(tx, offline, review, candidates, 7)
        typing = keyboard.inline_keyboard[-1][0]
        assert typing.text == label
        assert (typing.url or "").endswith("#correct")  # the review page's title form, open
        row = download_keyboard(tx, offline, review, 7).inline_keyboard[0]
        assert label in [b.text for b in row]


def test_the_cancel_question_names_what_would_be_deleted() -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    half = a_download(name="Big.Movie", total_size=6_871_947_674, progress=0.5)
    assert cancel_question_text(en, half) == "Cancel Big.Movie and delete the 3.2 GB downloaded?"
    assert cancel_question_text(ru, half) == "Отменить Big.Movie и удалить уже скачанные 3,2 ГБ?"
