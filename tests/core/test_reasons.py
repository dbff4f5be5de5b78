"""Every reason code reads in English and in Russian, with no English left in
the Russian (core.reasons.TEMPLATES, common.explain)."""

import re
import string

import pytest

from common.explain import reason_text
from common.i18n import I18n
from core.reasons import TEMPLATES, Reason, fill, reason, text_reason

NUMBERS = {"seconds": 21600, "confidence": 0.42, "limit": 50000, "levels": 64, "count": 3}
# Names that stay as they are in a Russian sentence: products, formats, config keys.
KEPT = {
    "qBittorrent", "TMDB", "Jellyfin", "Telegram", "API", "BitTorrent", "magnet", "torrent",
    "bencode", "hex", "base32", "xt", "urn", "btih", "btmh", "KiB", "library", "cross_device",
    "copy", "v1", "v2", "info", "jellybit", "Python",
}  # fmt: skip
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,}")


def sample(code: str) -> Reason:
    """The code with a value for every placeholder: numbers where it counts one,
    a marker word otherwise (``Pzz0``, ``Pzz1`` …, removed before looking for English)."""
    names = [name for _, name, _, _ in string.Formatter().parse(TEMPLATES[code]) if name]
    params: dict[str, str | int | float] = {}
    for index, name in enumerate(names):
        if name == "percent":
            params["confidence"] = NUMBERS["confidence"]
        elif name == "duration":
            params["seconds"] = NUMBERS["seconds"]
        else:
            params[name] = NUMBERS.get(name, f"Pzz{index}")
    return reason(code, **params)


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_every_code_reads_in_both_languages(code: str) -> None:
    why = sample(code)
    english = reason_text(I18n("en").texts("en"), why)
    russian = reason_text(I18n("en").texts("ru"), why)
    assert english.startswith(why.english()[:8])  # the same sentence, numbers aside
    for text in (english, russian):
        assert "{" not in text, text
        assert all(
            str(value) in text or not isinstance(value, str) for value in why.params.values()
        )
    assert russian != english
    assert re.search("[а-яА-ЯёЁ]", russian), russian
    words = set(_LATIN_WORD.findall(re.sub(r"Pzz\d+", "", russian))) - KEPT
    assert not words, f"English in the Russian of {code}: {sorted(words)}"


def test_numbers_and_durations_read_in_the_readers_language() -> None:
    stalled = reason("qbt.no_progress", seconds=21600)
    assert reason_text(I18n("en").texts("ru"), stalled) == "6 часов без движения."
    assert stalled.english() == "No progress for 6 h."  # logs and the API: short
    assert reason_text(I18n("en").texts("en"), stalled) == "No progress for 6 hours."
    many = reason("torrent.too_many_files", limit=50000)
    assert reason_text(I18n("en").texts("ru"), many) == (
        "В этом торренте больше 50\xa0000 файлов — слишком много для медиатеки."
    )
    unsure = reason("review.unsure", confidence=0.42)
    assert "42" in reason_text(I18n("en").texts("ru"), unsure)


def test_words_without_a_code_are_shown_as_they_are() -> None:
    other = text_reason("Fails.")
    assert reason_text(I18n("en").texts("ru"), other) == "Fails."
    assert Reason.loads("plain words from an old row") == text_reason("plain words from an old row")


def test_an_unknown_code_is_refused_where_it_is_made() -> None:
    with pytest.raises(ValueError, match="unknown reason code"):
        reason("no.such.code")


def test_a_missing_parameter_stays_visible() -> None:
    assert fill("{a} and {b}", {"a": 1}) == "1 and {b}"


def test_an_empty_reason_reads_as_nothing_not_as_the_catalogue_header() -> None:
    assert reason_text(I18n("en").texts("ru"), text_reason("")) == ""


def test_sizes_read_in_the_readers_language() -> None:
    full = reason("qbt.disk_full", needed_bytes=62_491_774_156, free_bytes=13_314_398_617)
    assert "it needs 58.2 GB more, 12.4 GB free" in full.english()
    assert "it needs 58.2 GB more, 12.4 GB free" in reason_text(I18n("en").texts("en"), full)
    assert "нужно ещё 58,2 ГБ, свободно 12,4 ГБ" in reason_text(I18n("en").texts("ru"), full)
