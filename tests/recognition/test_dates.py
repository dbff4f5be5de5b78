"""Episodes named only by their air date, in every form trackers use (issue #35
'dates'): YYMMDD of Korean and Japanese rips, written dates, a day and a month that
could be either, a number and a date that must agree, two episodes on one day
(tests/data/regression/dates.json)."""

import datetime

import pytest

from recognition.candidates import Season
from recognition.parsing.dates import read_dates
from recognition.parsing.release import parse_release
from recognition.placement import placed, unplaceable
from recognition.recognize import RecognizedFile

DAY = datetime.date(2024, 5, 12)


@pytest.mark.parametrize(
    ("name", "title", "day"),
    [
        ("Running.Man.E702.240512.1080p-NEXT", "Running Man", DAY),  # guessit: 2012-05-24
        ("런닝맨.240512.720p-NEXT", "런닝맨", DAY),
        ("[예능] 놀면 뭐하니 240511", "놀면 뭐하니", datetime.date(2024, 5, 11)),
        ("[TV] 世界の果てまでイッテQ! 240512", "世界の果てまでイッテQ!", DAY),
        ("有吉の壁 2024年05月15日", "有吉の壁", datetime.date(2024, 5, 15)),
        ("Вечерний Ургант. Выпуск от 20 мая 2021", "Вечерний Ургант", datetime.date(2021, 5, 20)),
        ("Вечерний Ургант от 12.05.2024", "Вечерний Ургант", DAY),
        ("Jimmy.Kimmel.2024.05.12.Guest.Name.720p", "Jimmy Kimmel", DAY),
    ],
)
def test_every_form_of_an_air_date_is_read(name: str, title: str, day: datetime.date) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.title, parsed.date, parsed.date_doubt) == (
        "series",
        title,
        day,
        False,
    )


def test_six_digits_that_are_something_else_are_no_date() -> None:
    for text in ("[Group] Show - 05 [1080p][24051211]", "Show 1440x1080", "Show.E05-[123456]"):
        assert read_dates(text) == (text, False)
    assert parse_release("[Erai-raws] Sousou no Frieren - 05 [1080p][24051211]").date is None


def test_a_day_and_a_month_that_could_be_either_are_read_by_the_names_country() -> None:
    assert parse_release("Jeopardy.05.06.2024.720p.HDTV.x264-NTb").date_doubt
    # a Russian name or a German tag writes the day first; a day past 12 says it
    assert not parse_release("Пусть говорят 05.06.2024").date_doubt
    assert not parse_release("Markus.Lanz.07.05.2024.GERMAN.720p.WEB.h264-GRP").date_doubt
    assert parse_release("Jeopardy.05.13.2024.720p").date == datetime.date(2024, 5, 13)


def test_a_date_in_doubt_is_asked_with_its_reason() -> None:
    video = RecognizedFile("J.05.06.2024.mkv", "video", None, (), None, ("two_dates",), date=DAY)
    why = unplaceable("series", placed([video], None), None)
    assert why is not None
    assert why.code == "review.date_two_ways"


def test_a_number_and_a_date_must_agree() -> None:
    seasons = (Season(1, 25, 2010, None), Season(2, 658, 2011, None), Season(3, 22, 2024, None))
    path = "Running.Man.E702.240512.mkv"
    numbered = RecognizedFile(path, "video", None, (702,), None, (), date=DAY, absolute=True)
    # 702 counted over the seasons before it: season 3's episode 19, TMDB's on that day
    (agreed,) = placed([numbered], seasons, listed=[(path, 3, 19)])
    assert (agreed.season, agreed.episodes) == (3, (19,))
    assert unplaceable("series", [agreed], seasons) is None
    (other,) = placed([numbered], seasons, listed=[(path, 3, 20)])
    why = unplaceable("series", [other], seasons)
    assert why is not None
    assert why.code == "review.date_disagrees"


def test_a_number_its_season_holds_is_that_episode_whatever_the_date() -> None:
    seasons = (Season(1, 16, 2022, None),)
    path = "이상한 변호사 우영우.E05.220713.mkv"
    numbered = RecognizedFile(path, "video", None, (5,), None, (), date=DAY)
    (video,) = placed([numbered], seasons, listed=[(path, 1, 3)])
    assert (video.season or 1, video.episodes) == (1, (5,))
    assert unplaceable("series", [video], seasons) is None
