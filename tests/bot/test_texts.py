"""Texts of the bot's photo messages: captions within Telegram's 1 024 characters,
the seasons a download added, in Russian and English."""

from bot.sender import ChatPacer
from bot.texts import CAPTION_CHARS, done_caption, fit_caption, seasons_added
from common.i18n import I18n
from core.models import Download
from tests.core.test_live import download as a_download


def download(name: str) -> Download:
    return a_download(name=name)


def test_the_seasons_a_download_added_in_both_languages() -> None:
    en, ru = I18n("en").texts("en"), I18n("en").texts("ru")
    assert seasons_added(en, {2: 8}) == "S02, episodes: 8"
    assert seasons_added(en, {1: 1, 3: 10}) == "S01, episodes: 1; S03, episodes: 10"
    assert seasons_added(ru, {2: 8, 4: 21}) == "S02, серий: 8; S04, серий: 21"


def test_a_done_caption_names_the_title_and_fits_a_caption() -> None:
    en = I18n("en").texts("en")
    caption = done_caption(
        en, download("Dark.S02.<i>"), "Dark", 2017, seasons_added(en, {2: 8}), "In the library."
    )
    assert caption.splitlines()[:3] == [
        "🎬 Done: Dark (2017)",
        "S02, episodes: 8",
        "In the library.",
    ]
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
