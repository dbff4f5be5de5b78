"""Name parsing on public test suites: guessit's own movie and episode tests and the
expectations of other parsers it ships (PTT, PTN, go-ptn, thcolin's scene-release
parser, anitomy), read from the installed guessit package (``guessit/test/``).

Each name is scored on the identity fields it expects — title (case and punctuation
folded, as guessit's cross-parser test compares it), year, season, episode and type —
for raw guessit and for jellybit's ``parse_release``; a name is right when every such
field is. Printed per suite, with the names jellybit breaks (guessit right, jellybit
wrong) and fixes.

    python -m tests.parsing_suites [--verbose] [--record]

Raw guessit's answers come from a record of the installed guessit's
(``tests/data/guessit_on_the_suites.json``, written by ``--record``); the suites' tests
check a sample of it against guessit itself on every run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anitopy
import guessit
import yaml  # type: ignore[import-untyped]  # pyyaml comes with schemathesis (dev lock)

from recognition.parsing.release import Parsed, parse_release

SUITES = Path(guessit.__file__).parent / "test"
GUESSIT_RECORD = Path(__file__).parent / "data" / "guessit_on_the_suites.json"
FIELDS = ("title", "year", "season", "episode", "type")
ANIME_SUITES = ("anitomy",)
_NON_WORD = re.compile(r"\W+")


@dataclass(frozen=True)
class Name:
    suite: str
    text: str
    expected: dict[str, Any]
    kind: str | None = None  # "movie" / "episode" when the test gives guessit --type


@dataclass
class Tally:
    suite: str
    names: int = 0
    guessit_right: int = 0
    jellybit_right: int = 0
    anitopy_right: int = 0  # anime suites only: anitopy alone, for comparison
    broken: list[str] = field(default_factory=list)  # guessit right, jellybit wrong
    fixed: list[str] = field(default_factory=list)  # the other way

    def line(self) -> str:
        anitopy_alone = (
            f", anitopy alone {self.anitopy_right} ({_pct(self.anitopy_right, self.names)})"
            if self.suite in ANIME_SUITES
            else ""
        )
        return (
            f"{self.suite}: {self.names} names — guessit {self.guessit_right} "
            f"({_pct(self.guessit_right, self.names)}), jellybit {self.jellybit_right} "
            f"({_pct(self.jellybit_right, self.names)}){anitopy_alone}; jellybit breaks "
            f"{len(self.broken)}, fixes {len(self.fixed)}"
        )


def _pct(part: int, total: int) -> str:
    return f"{100 * part / max(1, total):.1f} %"


def names() -> Iterator[Name]:
    """Every name of the suites that expects at least one identity field."""
    for file, default in (("movies.yml", "movie"), ("episodes.yml", "episode")):
        for text, expected in _yaml_cases(SUITES / file):
            options = str(expected.pop("options", ""))
            if options and not re.fullmatch(r"--type (movie|episode)|-t (movie|episode)", options):
                continue  # guessit's own tuning options: not how a name reaches jellybit
            kind = options.split()[-1] if options else None
            wanted = {k: v for k, v in {"type": default, **expected}.items() if k in FIELDS}
            if set(wanted) - {"type"}:
                yield Name(file.removesuffix(".yml"), text, wanted, kind)
    for path in sorted((SUITES / "cross_parser").glob("*.json")):
        if path.name == "baseline.json":
            continue
        for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]:
            wanted = {k: v for k, v in entry["expected"].items() if k in FIELDS}
            episodes = wanted.get("episode")
            if path.stem == "anitomy" and isinstance(episodes, list) and len(episodes) == 2:
                # anitomy writes a range as its two ends ("01-04" -> ["01", "04"])
                wanted["episode"] = list(range(episodes[0], episodes[1] + 1))
            if set(wanted) - {"type"}:
                yield Name(path.stem, entry["release_name"], wanted)


def _yaml_cases(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for key, value in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
        if key == "__default__" or not isinstance(value, dict):
            continue
        texts = key if isinstance(key, list) else [key]
        plain = {k: v for k, v in value.items() if not str(k).startswith(("-", "+"))}
        for text in texts:
            yield str(text), dict(plain)


def guessit_fields(name: Name) -> dict[str, Any]:
    options = {"type": name.kind} if name.kind else {}
    found = dict(guessit.guessit(name.text, options))
    return {k: found.get(k) for k in FIELDS} | {"date": found.get("date")}


def jellybit_fields(name: Name) -> dict[str, Any]:
    kind = {"movie": "movie", "episode": "series"}.get(name.kind or "")
    parsed: Parsed = parse_release(name.text, kind=kind)  # type: ignore[arg-type]
    seasons = list(getattr(parsed, "seasons", ())) or (
        [] if parsed.season is None else [parsed.season]
    )
    return {
        "title": parsed.title,
        "year": parsed.year,
        "season": seasons[0] if len(seasons) == 1 else seasons or None,
        "episode": list(parsed.episodes) if len(parsed.episodes) != 1 else parsed.episodes[0],
        "type": {"movie": "movie", "series": "episode"}.get(parsed.kind),
        "date": parsed.date,
    }


def anitopy_fields(name: Name) -> dict[str, Any]:
    found = anitopy.parse(name.text.rsplit("/", 1)[-1]) or {}
    numbers = found.get("episode_number")
    values = numbers if isinstance(numbers, list) else [numbers] if numbers else []
    episodes = [int(n) for n in values if str(n).isdigit()]
    if len(episodes) == 2 and episodes[0] < episodes[1]:
        episodes = list(range(episodes[0], episodes[1] + 1))
    year, season = str(found.get("anime_year") or ""), str(found.get("anime_season") or "")
    return {
        "title": found.get("anime_title"),
        "year": int(year) if year.isdigit() else None,
        "season": int(season) if season.isdigit() else None,
        "episode": episodes[0] if len(episodes) == 1 else episodes or None,
        "type": "episode" if episodes else "movie",
    }


def right(found: dict[str, Any], expected: dict[str, Any]) -> bool:
    return all(_matches(found, key, value) for key, value in expected.items())


def _matches(found: dict[str, Any], key: str, expected: Any) -> bool:
    got = found.get(key)
    if key == "title":
        return got is not None and _folded(got) == _folded(expected)
    if key == "year" and got is None and isinstance(found.get("date"), datetime.date):
        return bool(found["date"].year == int(expected))  # a daily show's date holds it
    if key in ("season", "episode"):
        return _as_set(got) == _as_set(expected)
    return str(got) == str(expected)


def _folded(value: Any) -> str:
    return " ".join(_NON_WORD.sub(" ", str(value).casefold()).split())


def _as_set(value: Any) -> set[Any]:
    if value is None:
        return set()
    return set(value) if isinstance(value, list | tuple) else {value}


def _key(name: Name) -> str:
    return f"{name.suite}\t{name.kind or ''}\t{name.text}"


def recorded_guessit() -> dict[str, bool]:
    """Whether raw guessit reads each name right, as recorded for the installed guessit
    (``--record`` writes it): computing it takes ~40 s of CPU in every test run, and
    it changes only with guessit. Another version, or no record: nothing recorded."""
    if not GUESSIT_RECORD.exists():
        return {}
    record = json.loads(GUESSIT_RECORD.read_text(encoding="utf-8"))
    return dict(record["right"]) if record["guessit"] == guessit.__version__ else {}


def record_guessit() -> None:
    right_by_name = {_key(n): right(guessit_fields(n), n.expected) for n in names()}
    text = json.dumps({"guessit": guessit.__version__, "right": right_by_name}, indent=0)
    GUESSIT_RECORD.write_text(text + "\n", encoding="utf-8")


def score(recorded: dict[str, bool] | None = None) -> dict[str, Tally]:
    """Each suite's tally; raw guessit's answers from ``recorded`` where it holds them."""
    known = recorded or {}
    tallies: dict[str, Tally] = {}
    for name in names():
        tally = tallies.setdefault(name.suite, Tally(name.suite))
        by_guessit = known.get(_key(name))
        if by_guessit is None:
            by_guessit = right(guessit_fields(name), name.expected)
        by_jellybit = right(jellybit_fields(name), name.expected)
        tally.names += 1
        tally.guessit_right += by_guessit
        tally.jellybit_right += by_jellybit
        if name.suite in ANIME_SUITES:
            tally.anitopy_right += right(anitopy_fields(name), name.expected)
        if by_guessit and not by_jellybit:
            tally.broken.append(name.text)
        elif by_jellybit and not by_guessit:
            tally.fixed.append(name.text)
    return tallies


def total(tallies: dict[str, Tally]) -> Tally:
    whole = Tally("all suites")
    for tally in tallies.values():
        whole.names += tally.names
        whole.guessit_right += tally.guessit_right
        whole.jellybit_right += tally.jellybit_right
        whole.broken += tally.broken
        whole.fixed += tally.fixed
    return whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--record", action="store_true", help="record raw guessit's answers")
    args = parser.parse_args()
    if args.record:
        record_guessit()
    tallies = score(recorded_guessit())
    for tally in [*tallies.values(), total(tallies)]:
        print(tally.line())
        if args.verbose and tally.suite != "all suites":
            for text in tally.broken:
                print(f"  broken: {text}")
            for text in tally.fixed:
                print(f"  fixed:  {text}")
    sys.exit(0)


if __name__ == "__main__":
    main()
