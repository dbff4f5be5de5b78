"""Releases written in other scripts (issue #35; the decisions are in
tests/data/regression/scripts.json; their season and episode words are read in
test_local_names.py)."""

import pytest

from recognition.parsing.release import parse_release


@pytest.mark.parametrize(
    "name",
    ["기생충 2019 1080p BluRay", "ตอนจบ 2020 1080p", "فصل الصيف 2019 1080p"],
)
def test_a_word_without_its_number_is_no_season_or_episode(name: str) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.season, parsed.episodes) == ("movie", None, ())
