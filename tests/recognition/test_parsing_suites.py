"""Name parsing on the public suites guessit ships (``tests/parsing_suites.py``), held
to issue 19's targets: at least as many names right as raw guessit, fewer broken than
fixed, and 85 % on anitomy's anime suite. ``make recognition`` prints the figures."""

import pytest

from tests.parsing_suites import score, total


def test_jellybit_reads_the_public_suites_at_least_as_well_as_guessit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tallies = score()
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
