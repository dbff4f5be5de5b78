"""The TMDB client against the fake TMDB: search, details, /find, seasons, faults."""

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

import pytest
from structlog.testing import capture_logs

from core.config import MetadataSettings
from core.errors import AuthFailedError, RejectedError, UnreachableError
from recognition.candidates import MediaKind, Season
from recognition.identify import Release, identify_download, parse_release_of
from recognition.lookups import Lookup
from recognition.recognize import Recognized, TorrentFile
from tests.support.tmdb import Entry, FakeTmdb, make_read_token
from worker.tmdb import RetryLaterError, TmdbClient, auth_kind, parse_tmdb_id

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
    # The language of one search may differ from the configured one.
    (dark,) = await client.search("series", "Тьма", 2017, language="en-US")
    assert dark.title == "Dark"
    assert tmdb.calls[-1].params["language"] == "en-US"


async def test_details_of_a_movie_and_a_show(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client(key=tmdb.read_token)
    movie = await client.details("movie", 335984)
    assert (movie.title, movie.original_title, movie.year, movie.imdb_id) == (
        "Бегущий по лезвию 2049",
        "Blade Runner 2049",
        2017,
        "tt1856101",
    )
    show = await client.details("series", "100088")
    assert (show.kind, show.title, show.original_title, show.year) == (
        "series",
        "Одни из нас",
        "The Last of Us",
        2023,
    )
    assert show.seasons == (
        Season(1, 9, 2023, air_date="2023-01-15"),
        Season(2, 9, 2023, air_date="2023-01-15"),
    )
    assert show.countries == ("US",)
    assert "The Last of Us" not in show.names  # already the original title
    assert [c.path for c in tmdb.calls] == ["/movie/335984", "/tv/100088"]
    assert {c.params["append_to_response"] for c in tmdb.calls} == {
        "alternative_titles,translations,external_ids"
    }
    with pytest.raises(RejectedError, match="could not be found"):
        await client.details("movie", 999999999)


async def test_details_carry_every_name_tmdb_knows(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    tmdb.catalogue.append(
        Entry.from_json(
            {
                "kind": "tv",
                "id": 1429,
                "title": "Attack on Titan",
                "original_title": "進撃の巨人",
                "date": "2013-04-07",
                "popularity": 150,
                "origin_country": ["JP"],
                "seasons": [{"season_number": 1, "episode_count": 25, "air_date": "2013-04-07"}],
                "alternative_titles": [{"iso_3166_1": "JP", "title": "Shingeki no Kyojin"}],
                "translations": {"ru": "Атака титанов"},
            }
        )
    )
    client = make_client(language="ru-RU")
    (found,) = await client.search("series", "Shingeki no Kyojin", None, language="en-US")
    assert found.title == "Attack on Titan"  # the search matched an alternative title
    show = await client.details("series", found.provider_id or "")
    assert show.title == "Атака титанов"
    assert {"Shingeki no Kyojin", "Attack on Titan"} <= set(show.names)


async def test_find_by_imdb_id_and_a_season(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    client = make_client()
    (dune,) = await client.find("tt1160419")
    assert (dune.kind, dune.provider_id) == ("movie", "438631")
    assert tmdb.calls[-1].params["external_source"] == "imdb_id"
    assert await client.find("tt0000001") == []
    episodes = await client.season(70523, 2)
    assert [episode.number for episode in episodes] == list(range(1, 11))
    assert (episodes[0].season, episodes[0].air_date) == (2, "2017-12-01")
    assert episodes[0].name == "Episode 1"
    with pytest.raises(RejectedError):
        await client.season(70523, 9)


@pytest.mark.parametrize("bad", ["12abc", "-5", "0", "", "١٢", "\u00b2", True, 3.5, None, "9" * 40])
async def test_an_id_that_is_not_a_tmdb_id_goes_nowhere(
    tmdb: FakeTmdb, make_client: MakeClient, bad: object
) -> None:
    assert parse_tmdb_id(bad) is None
    with pytest.raises(RejectedError, match="not a TMDB id"):
        await make_client().details("movie", bad)  # type: ignore[arg-type]
    assert tmdb.calls == []


async def test_results_with_a_bad_id_are_dropped(tmdb: FakeTmdb, make_client: MakeClient) -> None:
    tmdb.catalogue[:] = [replace(e, id=0) if e.id == 841 else e for e in tmdb.catalogue]
    found = await make_client().search("movie", "Dune", None)
    assert "0" not in [c.provider_id for c in found]
    assert "438631" in [c.provider_id for c in found]


async def test_a_candidate_whose_details_are_gone_is_dropped_and_the_rest_decide(
    tmdb: FakeTmdb, make_client: MakeClient
) -> None:
    """Search lists an entry whose details answer 404 (deleted, merged): recognition
    goes on with the others instead of waiting as if TMDB were down."""
    (deleted,) = [e for e in tmdb.catalogue if e.kind == "movie" and e.id == 841]  # Dune 1984
    tmdb.gone.add((deleted.kind, deleted.id))
    source = Release("Dune.2021.1080p.WEB-DL", (TorrentFile("Dune.2021.1080p.WEB-DL.mkv", 1),))
    lookup = Lookup(make_client())
    found = await identify_download(source, _parse, lookup, auto_accept=0.85, language="ru-RU")
    assert found.chosen is not None
    assert found.chosen.provider_id == "438631"
    assert "841" not in [c.provider_id for c in found.candidates]
    assert ("GET", "/movie/841") in [(c.method, c.path) for c in tmdb.calls]


async def _parse(source: Release, kind: MediaKind | None) -> Recognized:
    return parse_release_of(source, kind)


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
