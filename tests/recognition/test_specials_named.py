"""Specials found where the release names them (issue #35 'specials'): a one-word
show's special by its name ('Sherlock.Many.Happy.Returns', kept only when season 0
names the rest), a special by its air date ('Call.the.Midwife.2019.12.25'), a special
by its title inside a season pack ('Sherlock.S01.Unaired.Pilot.mkv')
(tests/data/regression/specials.json)."""

from tests.recognition_eval import REGRESSION, score_set
from tests.recognition_runner import identify


async def _outcomes(*cases: str) -> list[str]:
    score = await score_set(REGRESSION / "specials.json", identify, cases)
    return [v.outcome for v in score.verdicts]


async def test_a_one_word_show_followed_by_its_special_name_is_that_special() -> None:
    assert await _outcomes("ns01", "ns02") == ["correct"] * 2


async def test_a_special_named_by_its_air_date_is_the_one_aired_that_day() -> None:
    assert await _outcomes("ad01", "ad02") == ["correct"] * 2


async def test_a_special_named_by_its_title_in_a_season_pack_is_that_special() -> None:
    assert await _outcomes("pk02", "pk03") == ["correct"] * 2
