"""Releases written in other scripts: season and episode words of Korean, Thai, Hindi,
Persian, Chinese and Japanese names, numbers written as words or in other digits
(issue #35; the decisions are in tests/data/regression/scripts.json)."""

import pytest

from recognition.parsing.release import parse_release


@pytest.mark.parametrize(
    ("name", "title", "season", "episodes"),
    [
        ("주술회전 2기 05화 1080p", "주술회전", 2, (5,)),
        ("무빙 제5화 1080p WEB-DL", "무빙", None, (5,)),
        ("เด็กใหม่ ซีซั่น 2 ตอนที่ 5 1080p", "เด็กใหม่", 2, (5,)),
        ("पंचायत सीज़न 2 एपिसोड 5", "पंचायत", 2, (5,)),
        ("शहरज़ाद सीजन 3", "शहरज़ाद", 3, ()),
        ("شهرزاد فصل دوم قسمت ۵", "شهرزاد", 2, (5,)),
        ("الهيبة الموسم الثاني الحلقة ٥", "الهيبة", 2, (5,)),
        ("庆余年 第二季 第05集 4K", "庆余年", 2, (5,)),
        ("半沢直樹　第２期　第５話　１０８０ｐ", "半沢直樹", 2, (5,)),
        ("Maestro Κύκλος 2 Επεισόδιο 5 1080p", "Maestro", 2, (5,)),
    ],
)
def test_season_and_episode_words_of_other_scripts(
    name: str, title: str, season: int | None, episodes: tuple[int, ...]
) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.title, parsed.season, parsed.episodes) == (
        "series",
        title,
        season,
        episodes,
    )


@pytest.mark.parametrize(
    "name",
    ["기생충 2019 1080p BluRay", "ตอนจบ 2020 1080p", "فصل الصيف 2019 1080p"],
)
def test_a_word_without_its_number_is_no_season_or_episode(name: str) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.season, parsed.episodes) == ("movie", None, ())
