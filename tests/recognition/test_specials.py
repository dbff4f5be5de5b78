"""Specials TMDB lists as a film too (issue #35 'specials'): named as a film (title and
year) it is the film, named as the show's episode (S00Exx) the special; the other
entry is the decoy (tests/data/regression/specials.json)."""

from tests.recognition_eval import REGRESSION, score_set
from tests.recognition_runner import identify


async def test_a_special_named_as_a_film_is_the_film_and_as_an_episode_the_special() -> None:
    cases = ("fs01", "fs02", "fs03", "fs04", "fs07", "fs08")
    score = await score_set(REGRESSION / "specials.json", identify, cases)
    assert [v.outcome for v in score.verdicts] == ["correct"] * len(cases), score.line()
