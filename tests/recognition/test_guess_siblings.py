"""A season's files read from a sibling (``recognition.parsing.guess``): one guessit
call for the season, and the same read guessit itself gives each file."""

import random
import re

import pytest

from recognition.parsing.guess import Guess, MediaKind, clear_cache, guess
from tests.recognition_eval import DATA, load


def guessit_alone(text: str, kind: MediaKind | None) -> Guess:
    """What guessit reads in ``text`` with nothing read before."""
    clear_cache()
    found = guess(text, kind)
    clear_cache()
    return found


SEASONS = [
    ("Show.Name.S02E{:02d}.1080p.WEB.H264-GRP.mkv", "series"),
    ("Show Name (2019) Season 1 [1080p]/Show Name - S01E{:02d} - 1080p.mkv", "series"),
    ("[Group] Some Anime - {:02d} [1080p].mkv", None),
    ("Сериал.S01E{:02d}.WEB-DL.1080p.mkv", None),
    ("Serie.Staffel.2/Serie.S02E{:02d}.German.DL.720p.mkv", "series"),
]


@pytest.mark.parametrize(("pattern", "kind"), SEASONS)
def test_a_season_costs_one_guessit_call_and_reads_as_guessit_reads_each_file(
    pattern: str, kind: MediaKind | None, guessit_calls: list[str]
) -> None:
    names = [pattern.format(number) for number in range(1, 13)]
    read = [guess(name, kind) for name in names]
    assert guessit_calls == names[:1]
    assert [found.episodes for found in read] == [(n,) for n in range(1, 13)]
    assert read == [guessit_alone(name, kind) for name in names]


# Names guessit reads by the numbers' values, or whose numbers are not alone: each is
# read by guessit, never from the name before it.
NOT_SIBLINGS = [
    # a number beside the episode's: "E10.11" is episodes 10 and 11
    ("Show.S01E01.11.00.AM-12.00.PM.720p.mkv", "Show.S01E10.11.00.AM-12.00.PM.720p.mkv"),
    ("Show.S01E01-E02.720p.mkv", "Show.S01E01-E05.720p.mkv"),  # a range
    ("Blade.Runner.2049.1080p.mkv", "Blade.Runner.2050.1080p.mkv"),  # a year's digits
    ("01 Pilot.mkv", "12 Pilot.mkv"),  # a number opening the name
    ("Show.S01E01.Pilot.mkv", "Show.S01E02.Pilot.mkv.part"),  # another shape
    ("Show.2019.S01E01.mkv", "Show.2018.S01E01.mkv"),  # a digit outside the numbers
    # another bare number in the name: by its value an episode's to guessit or not
    (
        "[G]_Show_-_06_-_Showdown_in_Tokyo_3_[CBDB8577].mkv",
        "[G]_Show_-_02_-_Showdown_in_Tokyo_3_[CBDB8577].mkv",
    ),
    ("[DB]_Bleach_264_[012073FE].avi", "[DB]_Bleach_250_[012073FE].avi"),
    ("[G] Show - 29 (04) [5203142B].mkv", "[G] Show - 29 (50) [5203142B].mkv"),
    ("[G] Show - 01v2-03v2 (720p).mkv", "[G] Show - 12v2-03v2 (720p).mkv"),  # versions
    ("Show Season 1:11", "Show Season 9:11"),
    ("Show.Part.1.The.Phoenix.King.mkv", "Show.Part.0.The.Phoenix.King.mkv"),  # a 0
]


@pytest.mark.parametrize(("first", "second"), NOT_SIBLINGS)
def test_a_name_is_no_sibling_unless_it_differs_only_inside_lone_numbers(
    first: str, second: str, guessit_calls: list[str]
) -> None:
    guess(first, "series")
    assert guess(second, "series") == guessit_alone(second, "series")
    assert guessit_calls[:2] == [first, second]


def _names() -> list[str]:
    return sorted(
        {
            path
            for file in sorted((DATA / "regression").glob("*.json"))
            for case in load(file)[1]
            for path, _ in case.files
            if re.search(r"(?i)e[0-9]{2}|- [0-9]{2}", path)
        }
    )


def test_renumbered_names_read_from_a_sibling_as_guessit_reads_them(
    guessit_calls: list[str],
) -> None:
    """The measured claim on a sample of the regression sets' files, each renumbered:
    where a sibling is read, it is guessit's own read (the docstring of ``_Siblings``
    gives the whole measure)."""
    rng = random.Random(35)
    names = rng.sample(_names(), 20)
    read_from_a_sibling = 0
    for name in names:
        for kind in (None, "series"):
            clear_cache()
            guess(name, kind)
            for digits in ("01", "09", "10", "24"):
                renumbered = re.sub(r"(?i)(?<=e)[0-9]{2}|(?<=- )[0-9]{2}", digits, name, count=1)
                calls = len(guessit_calls)
                found = guess(renumbered, kind)
                if len(guessit_calls) == calls:  # read from the sibling
                    read_from_a_sibling += 1
                    assert found == guessit_alone(renumbered, kind), renumbered
    assert read_from_a_sibling >= 40
