"""Candidate scoring (core.scoring) and the TMDB client against the fake TMDB."""

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from structlog.testing import capture_logs

from core.config import MetadataSettings
from core.errors import AuthFailedError, RejectedError, UnreachableError
from core.scoring import (
    MAX_CANDIDATES,
    Candidate,
    MediaKind,
    decide,
    normalize,
    score,
    title_similarity,
)
from tests.support.tmdb import FakeTmdb, make_read_token
from worker.tmdb import RetryLaterError, TmdbClient, auth_kind


def candidate(
    title: str,
    year: int | None,
    *,
    original: str | None = None,
    popularity: float = 10.0,
    provider_id: str = "1",
    kind: MediaKind = "movie",
) -> Candidate:
    return Candidate(
        provider="tmdb",
        provider_id=provider_id,
        kind=kind,
        title=title,
        original_title=original if original is not None else title,
        year=year,
        overview=None,
        poster_path=None,
        popularity=popularity,
    )


DUNE_2021 = candidate("Dune", 2021, popularity=120.5, provider_id="438631")
DUNE_1984 = candidate("Dune", 1984, popularity=35.2, provider_id="841")
DUNE_2 = candidate("Dune: Part Two", 2024, popularity=250.0, provider_id="693134")


# ---- scoring ---------------------------------------------------------------------------------


def test_normalize_drops_case_punctuation_accents_and_a_leading_article() -> None:
    assert normalize("The Office!") == "office"
    assert normalize("Amélie") == "amelie"
    assert normalize("Frieren: Beyond Journey's End") == "frieren beyond journey s end"
    assert normalize("Ёлки") == normalize("елки")
    assert normalize("The") == "the"  # a title that is only an article keeps it


def test_the_year_picks_dune_2021_over_dune_1984() -> None:
    ranked = score("Dune", None, 2021, [DUNE_1984, DUNE_2, DUNE_2021])
    assert [c.provider_id for c in ranked] == ["438631", "841", "693134"]
    assert decide(ranked, 0.85) == ranked[0]

    ranked = score("Dune", None, 1984, [DUNE_2021, DUNE_2, DUNE_1984])
    assert ranked[0].provider_id == "841"
    assert decide(ranked, 0.85) == ranked[0]


def test_without_a_year_two_dunes_go_to_review() -> None:
    ranked = score("Dune", None, None, [DUNE_1984, DUNE_2021, DUNE_2])
    assert {ranked[0].provider_id, ranked[1].provider_id} == {"438631", "841"}
    assert decide(ranked, 0.85) is None


def test_a_year_one_off_still_counts_and_a_far_one_costs() -> None:
    exact, near, far, unknown = (
        score("Blade Runner 2049", None, y, [candidate("Blade Runner 2049", 2017)])[0].score
        for y in (2017, 2018, 2010, None)
    )
    assert exact > near > unknown > far


def test_the_original_title_matches_as_well_as_the_localized_one() -> None:
    dark_ru = candidate("Тьма", 2017, original="Dark", kind="series")
    dark_en = candidate("Dark", 2017, original="Dark", kind="series")
    (by_original,) = score("Dark", None, 2017, [dark_ru])
    (by_title,) = score("Dark", None, 2017, [dark_en])
    assert by_original.score == by_title.score
    assert by_original.score >= 0.95


def test_the_cyrillic_alt_title_matches_the_ru_title() -> None:
    last_of_us = candidate("Одни из нас", 2023, original="The Last of Us", kind="series")
    other = candidate("Одни", 2023, original="Alone", popularity=30.0, kind="series")
    # A transliterated release name alone does not match the Russian title…
    (alone,) = score("Odni iz nas", None, 2023, [last_of_us])
    assert alone.score < 0.85
    # …its Cyrillic alternative does.
    ranked = score("Odni iz nas", "Одни из нас", 2023, [other, last_of_us])
    assert ranked[0].title == "Одни из нас"
    assert ranked[0].score >= 0.95
    assert decide(ranked, 0.85) == ranked[0]


def test_a_subtitle_in_the_candidate_does_not_sink_the_match() -> None:
    frieren = candidate(
        "Frieren: Beyond Journey's End", 2023, original="葬送のフリーレン", kind="series"
    )
    assert title_similarity("Frieren", frieren.title) >= 0.8
    (ranked,) = score("Frieren", None, 2023, [frieren])
    assert decide([ranked], 0.85) == ranked


def test_popularity_only_breaks_ties() -> None:
    us = candidate("The Office", 2005, popularity=200.1, provider_id="2316", kind="series")
    uk = candidate("The Office", 2001, popularity=30.5, provider_id="2996", kind="series")
    # Equal titles and no year: the more popular one leads, by too little to accept.
    ranked = score("The Office", None, None, [uk, us])
    assert [c.provider_id for c in ranked] == ["2316", "2996"]
    assert 0 < ranked[0].score - ranked[1].score <= 0.02
    assert decide(ranked, 0.85) is None
    # A year outweighs any popularity.
    ranked = score("The Office", None, 2001, [us, uk])
    assert ranked[0].provider_id == "2996"
    assert decide(ranked, 0.85) == ranked[0]
    # Even a huge popularity cannot beat a better title.
    famous = candidate("The Offer", 2022, popularity=100_000.0, provider_id="3")
    ranked = score("The Office", None, None, [famous, uk])
    assert ranked[0].provider_id == "2996"


def test_score_keeps_the_best_five_in_order() -> None:
    many = [candidate(f"Dune {n}", 2000 + n, provider_id=str(n)) for n in range(9)]
    ranked = score("Dune", None, 2003, [*many, DUNE_2021])
    assert len(ranked) == MAX_CANDIDATES
    assert [c.score for c in ranked] == sorted((c.score for c in ranked), reverse=True)


@given(
    title=st.text(max_size=40),
    alt=st.none() | st.text(max_size=40),
    year=st.none() | st.integers(1850, 2100),
    other=st.text(max_size=40),
    other_year=st.none() | st.integers(1850, 2100),
    popularity=st.floats(min_value=0, max_value=1e9),
)
def test_scores_stay_between_0_and_1(
    title: str,
    alt: str | None,
    year: int | None,
    other: str,
    other_year: int | None,
    popularity: float,
) -> None:
    (ranked,) = score(title, alt, year, [candidate(other, other_year, popularity=popularity)])
    assert 0.0 <= ranked.score <= 1.0


def test_decide_accepts_a_clear_leader_and_reviews_a_close_runner_up() -> None:
    top = replace(DUNE_2021, score=0.95)
    assert decide([top], 0.85) == top
    assert decide([top, replace(DUNE_1984, score=0.80)], 0.85) == top
    assert decide([top, replace(DUNE_1984, score=0.85)], 0.85) == top  # exactly the margin
    assert decide([top, replace(DUNE_1984, score=0.90)], 0.85) is None
    assert decide([top, replace(DUNE_1984, score=0.90)], 0.85, margin=0.05) == top
    assert decide([replace(DUNE_2021, score=0.84)], 0.85) is None
    assert decide([], 0.85) is None


# ---- TMDB client ---------------------------------------------------------------------------

MakeClient = Callable[..., TmdbClient]


@pytest.fixture
async def tmdb() -> AsyncIterator[FakeTmdb]:
    async with FakeTmdb() as fake:
        yield fake


@pytest.fixture
async def make_client(tmdb: FakeTmdb) -> AsyncIterator[MakeClient]:
    made: list[TmdbClient] = []

    def make(
        key: str | None = None, language: str = "ru-RU", base: str | None = None, **kw: float
    ) -> TmdbClient:
        settings = MetadataSettings(
            tmdb_api_key=tmdb.api_key if key is None else key,
            tmdb_base=tmdb.base_url if base is None else base,
            language=language,
        )
        client = TmdbClient(settings, **kw)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        await client.close()


def test_the_key_shape_decides_the_auth() -> None:
    assert auth_kind("0123456789abcdef0123456789abcdef") == "api_key"
    assert auth_kind(make_read_token()) == "bearer"
    assert auth_kind("") == "api_key"
    assert TmdbClient(MetadataSettings(tmdb_api_key="0" * 32)).enabled
    assert not TmdbClient(MetadataSettings(tmdb_api_key="")).enabled
    assert not TmdbClient(MetadataSettings(provider="none", tmdb_api_key="0" * 32)).enabled


async def test_search_with_a_v3_key(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client()
    found = await client.search("movie", "Dune", 2021)
    assert [(c.provider, c.provider_id, c.kind, c.year) for c in found] == [
        ("tmdb", "438631", "movie", 2021)
    ]
    dune = found[0]
    assert (dune.title, dune.original_title) == ("Дюна", "Dune")
    assert dune.poster_path == "/d5NXSklXo0qyIYkgV94XAgMIckC.jpg"
    assert dune.popularity == 120.5
    assert dune.overview is not None
    assert "Атрейдес" in dune.overview
    (call,) = tmdb.calls
    assert call.path == "/search/movie"
    assert call.params == {
        "query": "Dune",
        "year": "2021",
        "language": "ru-RU",
        "include_adult": "false",
        "page": "1",
        "api_key": tmdb.api_key,
    }
    assert "Authorization" not in call.headers


async def test_search_with_a_v4_token(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client(key=tmdb.read_token, language="en-US")
    found = await client.search("movie", "dune", None)
    assert [c.provider_id for c in found] == ["693134", "438631", "841"]  # by popularity
    assert [c.title for c in found] == ["Dune: Part Two", "Dune", "Dune"]
    (call,) = tmdb.calls
    assert call.headers["Authorization"] == f"Bearer {tmdb.read_token}"
    assert "api_key" not in call.params
    assert "year" not in call.params


async def test_search_tv_by_first_air_year(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client(language="en-US")
    both = await client.search("series", "The Office", None)
    assert sorted(c.year or 0 for c in both) == [2001, 2005]
    (us,) = await client.search("series", "The Office", 2005)
    assert (us.provider_id, us.kind, us.title, us.year) == ("2316", "series", "The Office", 2005)
    assert tmdb.calls[-1].path == "/search/tv"
    assert tmdb.calls[-1].params["first_air_date_year"] == "2005"
    assert await client.search("series", "The Office", 1990) == []


async def test_ru_ru_titles_and_a_russian_query(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client(language="ru-RU")
    (dark,) = await client.search("series", "Тьма", 2017)
    assert (dark.title, dark.original_title, dark.provider_id) == ("Тьма", "Dark", "70523")
    (frieren,) = await client.search("series", "Frieren", None)
    assert frieren.title == "Провожающая в последний путь Фрирен"
    assert frieren.original_title == "葬送のフリーレン"
    # Scored with the Cyrillic alternative title, the localized answer is accepted.
    ranked = score("Tma", "Тьма", 2017, [dark])
    assert decide(ranked, 0.85) == ranked[0]


async def test_details_of_a_movie_and_a_show(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client(key=tmdb.read_token)
    movie = await client.details("movie", 335984)
    assert (movie.title, movie.original_title, movie.year) == (
        "Бегущий по лезвию 2049",
        "Blade Runner 2049",
        2017,
    )
    show = await client.details("series", "100088")
    assert (show.kind, show.title, show.original_title, show.year) == (
        "series",
        "Одни из нас",
        "The Last of Us",
        2023,
    )
    assert [c.path for c in tmdb.calls] == ["/movie/335984", "/tv/100088"]
    with pytest.raises(RejectedError, match="could not be found"):
        await client.details("movie", 999999999)


async def test_429_waits_for_retry_after(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    tmdb.fail_next(429, retry_after=1)
    found = await make_client().search("movie", "1917", 2019)
    assert [c.provider_id for c in found] == ["530915"]
    first, second = tmdb.calls
    assert (first.status, second.status) == (429, 200)
    assert second.at - first.at >= 1.0


async def test_5xx_is_retried(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    tmdb.fail_next(500, times=2)
    found = await make_client().search("movie", "Blade Runner", 1982)
    assert [c.provider_id for c in found] == ["78"]
    assert [c.status for c in tmdb.calls] == [500, 500, 200]


async def test_retries_end(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    tmdb.fail_next(503, times=5)
    with pytest.raises(UnreachableError, match="Service offline"):
        await make_client().search("movie", "Dune", None)
    assert [c.status for c in tmdb.calls] == [503, 503, 503]


async def test_a_retry_after_beyond_the_cap_is_not_waited_for(
    tmdb: FakeTmdb, make_client: MakeClient
) -> None:
    tmdb.fail_next(429, retry_after=120, times=3)
    started = time.monotonic()
    with pytest.raises(RetryLaterError) as raised:
        await make_client(max_retry_wait=30).search("movie", "Dune", None)
    assert time.monotonic() - started < 1.0
    assert raised.value.retry_after == 120
    assert len(tmdb.calls) == 1


async def test_an_outage_is_unreachable_at_once(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    tmdb.set_down()
    started = time.monotonic()
    with capture_logs() as logs, pytest.raises(UnreachableError) as raised:
        await make_client().search("movie", "Dune", 2021)
    assert time.monotonic() - started < 2.0
    assert raised.value.system == "tmdb"
    # One try of ours; aiohttp itself resends a GET once when the connection drops.
    assert len(tmdb.calls) <= 2
    assert tmdb.api_key not in str(raised.value)
    (record,) = [r for r in logs if r["event"] == "external.call"]
    assert (record["system"], record["outcome"], record["error"]) == (
        "tmdb",
        "error",
        "UnreachableError",
    )
    assert tmdb.api_key not in repr(logs)


async def test_a_refused_connection_is_unreachable(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client()
    await tmdb.stop()
    with pytest.raises(UnreachableError, match="cannot connect"):
        await client.search("movie", "Dune", 2021)


async def test_a_slow_answer_times_out(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    tmdb.set_delay(3)
    started = time.monotonic()
    with pytest.raises(UnreachableError, match="no answer"):
        await make_client(timeout=0.3).search("movie", "Dune", 2021)
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("which", ["v3", "v4"])
async def test_a_bad_key_fails_auth(tmdb: FakeTmdb, make_client: MakeClient, which: str) -> None:
    key = "0" * 32 if which == "v3" else make_read_token()
    with pytest.raises(AuthFailedError, match="Invalid API key"):
        await make_client(key=key).search("movie", "Dune", 2021)
    assert [c.status for c in tmdb.calls] == [401]  # not retried


async def test_calls_are_logged(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    with capture_logs() as logs:
        await make_client().search("series", "Dark", None)
    (record,) = [r for r in logs if r["event"] == "external.call"]
    assert (record["system"], record["operation"], record["outcome"]) == (
        "tmdb",
        "search_tv",
        "ok",
    )
    assert tmdb.api_key not in repr(logs)
