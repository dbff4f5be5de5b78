"""Fansub names (tests/data/anime.tsv): guessit alone, anitopy alone, and jellybit's
reading (anitopy for anime-shaped names, guessit for the rest), side by side.

The set was written from how groups name their releases, without running either
parser on it; it is what decided that anime-shaped names go to anitopy first.
"""

import csv
from collections.abc import Callable
from pathlib import Path

import anitopy
import pytest

from recognition.folding import fold
from recognition.parsing.guess import clear_cache, guess
from recognition.parsing.release import parse_release

SET = Path(__file__).parent.parent / "data" / "anime.tsv"
Reading = tuple[str | None, tuple[int, ...]]


def rows() -> list[dict[str, str]]:
    with SET.open(encoding="utf-8", newline="") as source:
        return list(csv.DictReader(source, delimiter="\t", quoting=csv.QUOTE_NONE))


def expected_episodes(text: str) -> tuple[int, ...]:
    episodes: list[int] = []
    for part in filter(None, text.split(",")):
        if "-" in part:
            first, last = part.split("-")
            episodes += range(int(first), int(last) + 1)
        elif part.isdigit():
            episodes.append(int(part))
    return tuple(episodes)


def by_guessit(name: str) -> Reading:
    found = guess(name, None)
    return found.title, found.episodes


def by_anitopy(name: str) -> Reading:
    found = anitopy.parse(name.rsplit("/", 1)[-1]) or {}
    number = found.get("episode_number")
    numbers = number if isinstance(number, list) else [number] if number else []
    whole = [int(n) for n in numbers if str(n).isdigit()]
    if len(whole) == 2 and whole[0] < whole[1]:
        whole = list(range(whole[0], whole[1] + 1))
    return found.get("anime_title"), tuple(whole)


def by_jellybit(name: str) -> Reading:
    found = parse_release(name)
    return found.title, found.episodes


def right(reader: Callable[[str], Reading]) -> int:
    correct = 0
    for row in rows():
        title, episodes = reader(row["name"])
        wanted = expected_episodes(row["episodes"])
        correct += fold(title or "") == fold(row["title"]) and tuple(episodes) == wanted
    return correct


def test_the_anime_reading_beats_either_parser_alone(capsys: pytest.CaptureFixture[str]) -> None:
    clear_cache()
    total = len(rows())
    scores = {
        name: right(reader)
        for name, reader in [
            ("guessit", by_guessit),
            ("anitopy", by_anitopy),
            ("jellybit", by_jellybit),
        ]
    }
    with capsys.disabled():
        print(
            "\nanime names, title and episodes right: "
            + ", ".join(f"{name} {n}/{total} = {n / total:.0%}" for name, n in scores.items())
        )
    assert total >= 120
    assert scores["jellybit"] >= max(scores["guessit"], scores["anitopy"])
    assert scores["jellybit"] / total >= 0.85
