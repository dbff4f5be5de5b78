"""Name parsing on the public suites guessit ships (``tests/parsing_suites.py``), held
to issue 19's targets: at least as many names right as raw guessit, fewer broken than
fixed, and 85 % on anitomy's anime suite. ``make recognition`` prints the figures."""

import random

import guessit
import pytest

from tests.parsing_suites import (
    _key,
    guessit_fields,
    names,
    recorded_guessit,
    right,
    score,
    total,
)

SAMPLE = 60  # recorded answers checked against guessit itself on each run


def test_jellybit_reads_the_public_suites_at_least_as_well_as_guessit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tallies = score(recorded_guessit())
    assert {"movies", "episodes", "anitomy"} <= set(tallies)
    overall = total(tallies)
    with capsys.disabled():
        print()
        for tally in [*tallies.values(), overall]:
            print(tally.line())
    assert overall.names > 1000
    assert overall.jellybit_right >= overall.guessit_right, overall.line()
    assert len(overall.broken) < len(overall.fixed), overall.line()
    anime = tallies["anitomy"]
    assert anime.jellybit_right >= 0.85 * anime.names, anime.line()


def test_the_record_of_guessit_is_the_installed_guessit_and_says_what_it_says() -> None:
    recorded = recorded_guessit()
    assert recorded, (
        f"no record for guessit {guessit.__version__}: python -m tests.parsing_suites --record"
    )
    every = list(names())
    assert {_key(name) for name in every} == set(recorded)
    for name in random.sample(every, SAMPLE):
        assert right(guessit_fields(name), name.expected) == recorded[_key(name)], name.text
