"""The Torznab source (worker/torznab.py) against the fake Prowlarr and Jackett
(tests/support/torznab.py): the query it builds from the caps, what it answers for each
thing an indexer can say, and the fetch of a release's link on a tap."""

import io
from collections.abc import AsyncIterator

import aiohttp
import pytest

from common.logs import configure_logging
from core.search import MAX_RESULTS, Terms
from core.torrent_file import TOO_LARGE_REASON
from tests.support.torznab import Download, FakeCaps, FakeRelease, FakeTorznab, Flavour
from worker.torznab import TorznabSource, fetch_release

DUNE = Terms(
    "Dune 2021", kind="movie", title="Dune", year=2021, tmdb_id=438631, imdb_id="tt1160419"
)
SHOW = Terms("Severance", kind="tv", title="Severance", season=2, tvdb_id=371980, tmdb_id=95396)
RELEASES = [
    FakeRelease("Dune.2021.1080p.BluRay.x264", imdb_id="tt1160419", tmdb_id=438631),
    FakeRelease("Dune.2021.2160p.WEB-DL", imdb_id="tt1160419", tmdb_id=438631, download="magnet"),
    FakeRelease("Dune.1984.1080p.BluRay", imdb_id="tt0087182", tmdb_id=841),
    FakeRelease(
        "Severance.S02.1080p.WEB", categories=(5040,), tvdb_id=371980, tmdb_id=95396, season=2
    ),
    FakeRelease(
        "Severance.S01.1080p.WEB", categories=(5040,), tvdb_id=371980, tmdb_id=95396, season=1
    ),
]


@pytest.fixture(params=["prowlarr", "jackett"])
def flavour(request: pytest.FixtureRequest) -> Flavour:
    chosen: Flavour = request.param
    return chosen


@pytest.fixture
async def fake(flavour: Flavour) -> AsyncIterator[FakeTorznab]:
    releases = [FakeRelease(**vars(release)) for release in RELEASES]
    async with FakeTorznab(flavour=flavour, releases=releases) as made:
        yield made


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def searches(fake: FakeTorznab) -> list[dict[str, str]]:
    return [call.params for call in fake.calls if call.params.get("t") != "caps"]


# ---- the query ----------------------------------------------------------------------------


async def test_a_movie_by_the_ids_the_caps_list(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    answer = await TorznabSource(fake.endpoint(), http).search(DUNE)
    assert answer.problem is None
    assert {row.name for row in answer.found} == {
        "Dune.2021.1080p.BluRay.x264",
        "Dune.2021.2160p.WEB-DL",
    }
    assert answer.ids_used == ("imdbid", "tmdbid")
    (sent,) = searches(fake)
    assert {k: v for k, v in sent.items() if k != "apikey"} == {
        "t": "movie",
        "imdbid": "tt1160419",
        "tmdbid": "438631",
        "cat": "2000",
        "limit": "100",
    }


async def test_a_movie_by_words_where_no_id_is_listed(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    fake.caps = FakeCaps(movie=("q",), tv=("q", "season"))
    answer = await TorznabSource(fake.endpoint(), http).search(DUNE)
    assert answer.problem is None
    assert answer.ids_used == ()
    assert len(answer.found) == 2  # "Dune 2021": not the 1984 one
    (sent,) = searches(fake)
    assert (sent["t"], sent["q"], sent["cat"]) == ("search", "Dune 2021", "2000")
    assert "imdbid" not in sent
    assert "tmdbid" not in sent


async def test_a_show_by_its_listed_id_and_season(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    answer = await TorznabSource(fake.endpoint(), http).search(SHOW)
    assert [row.name for row in answer.found] == ["Severance.S02.1080p.WEB"]
    (sent,) = searches(fake)
    assert (sent["t"], sent["tvdbid"], sent["season"], sent["cat"]) == (
        "tvsearch",
        "371980",
        "2",
        "5000",
    )
    assert "q" not in sent
    # tmdbid is listed for tv in both samples' caps: sent along
    assert sent["tmdbid"] == "95396"


async def test_a_show_by_words_and_season_then_by_words(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    fake.caps = FakeCaps(tv=("q", "season"), categories=((2000, "Movies", ()),))
    source = TorznabSource(fake.endpoint(), http)
    assert [r.name for r in (await source.search(SHOW)).found] == ["Severance.S02.1080p.WEB"]
    assert searches(fake)[-1] | {"apikey": ""} == {
        "t": "tvsearch",
        "q": "Severance",
        "season": "2",
        "limit": "100",  # no cat: these caps have no 5000
        "apikey": "",
    }
    fake.caps = FakeCaps(tv=())
    answer = await TorznabSource(fake.endpoint(), http).search(SHOW)
    assert len(answer.found) == 2
    assert searches(fake)[-1]["t"] == "search"


async def test_one_page_of_at_most_max_results(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    fake.caps = FakeCaps(limit_max=5000)
    await TorznabSource(fake.endpoint(), http).search(DUNE)
    (sent,) = searches(fake)
    assert sent["limit"] == str(MAX_RESULTS)
    assert "offset" not in sent


async def test_ids_never_sent_unlisted_get_what_the_flavour_gives(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    """What the source avoids: Prowlarr's empty page, Jackett's error 203."""
    fake.caps = FakeCaps(movie=("q", "imdbid"))
    async with http.get(
        fake.url, params={"t": "movie", "tmdbid": "438631", "apikey": fake.api_key}
    ) as response:
        body = await response.read()
    if fake.flavour == "prowlarr":
        assert response.status == 200
        assert b"<item>" not in body
    else:
        assert response.status == 400
        assert b'code="203"' in body
    answer = await TorznabSource(fake.endpoint(), http).search(DUNE)
    assert answer.ids_used == ("imdbid",)
    assert len(answer.found) == 2


# ---- caps ---------------------------------------------------------------------------------


async def test_caps_are_asked_once_and_a_failure_is_not_kept(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    source = TorznabSource(fake.endpoint(), http)
    fake.fail_next(500)
    failed = await source.search(DUNE)
    assert failed.problem is not None
    assert failed.problem.code == "search.error"
    await source.search(DUNE)
    await source.search(SHOW)
    assert [call.params["t"] for call in fake.calls] == ["caps", "caps", "movie", "tvsearch"]


# ---- what an indexer can say --------------------------------------------------------------


async def test_a_refused_key(fake: FakeTorznab, http: aiohttp.ClientSession) -> None:
    answer = await TorznabSource(fake.endpoint(api_key="wrong"), http).search(DUNE)
    assert answer.problem is not None
    assert dict(answer.problem.params) == {"source": fake.flavour}
    assert answer.problem.code == "search.bad_api_key"


async def test_a_429_is_waited_out_without_asking(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    source = TorznabSource(fake.endpoint(), http)
    await source.caps()
    fake.fail_next(429, retry_after=30)
    answer = await source.search(DUNE)
    assert answer.problem is not None
    assert answer.problem.code == "search.rate_limited"
    assert answer.retry_after == 30
    asked = len(fake.calls)
    again = await source.search(DUNE)
    assert again.problem is not None
    assert again.problem.code == "search.rate_limited"
    assert again.retry_after is not None
    assert 0 < again.retry_after <= 30
    assert len(fake.calls) == asked


async def test_a_disabled_indexer(http: aiohttp.ClientSession) -> None:
    async with FakeTorznab(flavour="prowlarr") as fake:
        fake.fail_next(410)
        answer = await TorznabSource(fake.endpoint(), http).search(DUNE)
    assert answer.problem is not None
    assert answer.problem.code == "search.disabled"


@pytest.mark.parametrize("status", [200, 403])
async def test_a_web_page_is_a_blocked_indexer(
    fake: FakeTorznab, http: aiohttp.ClientSession, status: int
) -> None:
    source = TorznabSource(fake.endpoint(), http)
    await source.caps()
    fake.serve_html(status)
    answer = await source.search(DUNE)
    assert answer.problem is not None
    assert answer.problem.code == "search.blocked"


async def test_an_error_with_any_status_is_said_without_the_key(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    source = TorznabSource(fake.endpoint(), http)
    await source.caps()
    for status in (200, 400, 500):
        said = f'<error code="900" description="boom at /api?apikey={fake.api_key}"/>'
        fake.answer_next(said.encode(), status=status)
        answer = await source.search(DUNE)
        assert answer.problem is not None
        assert answer.problem.code == "search.error"
        assert answer.problem.params["detail"] == "boom at /api?apikey=…"
    fake.answer_next(b'<error code="101" description="Account suspended"/>', status=400)
    suspended = await source.search(DUNE)
    assert suspended.problem is not None
    assert suspended.problem.code == "search.bad_api_key"
    fake.answer_next(b"Internal Server Error", status=502, content_type="text/plain")
    failed = await source.search(DUNE)
    assert failed.problem is not None
    assert (failed.problem.code, failed.problem.params["detail"]) == ("search.error", "HTTP 502")


async def test_a_hanging_answer_times_out(fake: FakeTorznab, http: aiohttp.ClientSession) -> None:
    fake.set_delay(5)
    answer = await TorznabSource(fake.endpoint(), http, timeout=0.3).search(DUNE)
    assert answer.problem is not None
    assert (answer.problem.code, answer.problem.params["seconds"]) == ("search.timeout", 0.3)


async def test_an_indexer_that_is_down(fake: FakeTorznab, http: aiohttp.ClientSession) -> None:
    fake.set_down()
    answer = await TorznabSource(fake.endpoint(), http).search(DUNE)
    assert answer.problem is not None
    assert answer.problem.code == "search.unreachable"


async def test_a_flood_keeps_max_results(fake: FakeTorznab, http: aiohttp.ClientSession) -> None:
    fake.flood(10_000)
    answer = await TorznabSource(fake.endpoint(), http).search(Terms("Flood"))
    assert answer.problem is None
    assert len(answer.found) == MAX_RESULTS


async def test_hostile_items_are_skipped_and_the_rest_kept(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    fake.hostile_items = [
        "<item><title>&lt;b&gt;Dune 2021&lt;/b&gt;</title><link>http://x.invalid/1</link></item>",
        "<item><title>Dune 2021 bad magnet</title><link>magnet:?xt=urn:btih:12</link></item>",
        "<item><title>Dune 2021 nothing</title></item>",
        "<item><title>Dune 2021 script</title><link>javascript:alert(1)</link></item>",
    ]
    answer = await TorznabSource(fake.endpoint(), http).search(DUNE)
    assert sorted(row.name for row in answer.found) == [
        "<b>Dune 2021</b>",
        "Dune.2021.1080p.BluRay.x264",
        "Dune.2021.2160p.WEB-DL",
    ]


async def test_the_same_release_twice_in_a_page_is_kept_once(
    fake: FakeTorznab, http: aiohttp.ClientSession
) -> None:
    twin = FakeRelease(**vars(fake.releases[0]) | {"seeders": 99, "indexer": "Mirror"})
    fake.releases.append(twin)
    answer = await TorznabSource(fake.endpoint(), http).search(DUNE)
    same = [row for row in answer.found if row.infohash == twin.infohash]
    assert [row.seeders for row in same] == [99]


# ---- a release fetched on a tap -----------------------------------------------------------


async def fetch(fake: FakeTorznab, http: aiohttp.ClientSession, index: int) -> object:
    return await fetch_release(http, fake.download_url(fake.releases[index]), source="idx")


async def test_fetch_a_torrent_and_a_magnet(fake: FakeTorznab, http: aiohttp.ClientSession) -> None:
    torrent = await fetch(fake, http, 0)
    assert torrent == fake.releases[0].torrent
    magnet = await fetch(fake, http, 1)
    assert isinstance(magnet, str)
    assert fake.releases[1].infohash in magnet


async def test_fetch_a_release_that_is_gone(fake: FakeTorznab, http: aiohttp.ClientSession) -> None:
    fake.releases[0].download = "gone"  # Prowlarr 410, Jackett 404
    gone = await fetch(fake, http, 0)
    assert getattr(gone, "code", None) == "search.gone"
    assert fake.calls[-1].status == (410 if fake.flavour == "prowlarr" else 404)


@pytest.mark.parametrize(
    ("download", "code"),
    [
        ("huge", TOO_LARGE_REASON.code),
        ("loop", "search.not_a_torrent"),
        ("page", "search.not_a_torrent"),
    ],
)
async def test_fetch_refuses_what_is_no_torrent(
    http: aiohttp.ClientSession, download: Download, code: str
) -> None:
    async with FakeTorznab(releases=[FakeRelease("Odd", download=download)]) as fake:
        refused = await fetch(fake, http, 0)
        assert getattr(refused, "code", None) == code
        if download == "loop":
            assert len(fake.calls) == 6  # the link and five redirects


async def test_fetch_from_nowhere(http: aiohttp.ClientSession) -> None:
    async with FakeTorznab(releases=[FakeRelease("Dune")]) as fake:
        link = fake.download_url(fake.releases[0])
    refused = await fetch_release(http, link, source="idx")
    assert getattr(refused, "code", None) == "search.unreachable"
    assert getattr(await fetch_release(http, "ftp://x.invalid/a", source="idx"), "code", "") == (
        "search.not_a_torrent"
    )


# ---- the key stays out of the logs --------------------------------------------------------


async def test_the_api_key_is_never_logged(fake: FakeTorznab, http: aiohttp.ClientSession) -> None:
    stream = io.StringIO()
    configure_logging(level="debug", json=True, stream=stream)
    source = TorznabSource(fake.endpoint(), http, timeout=0.3)
    await source.search(DUNE)
    await fetch(fake, http, 0)
    await fetch(fake, http, 1)
    fake.hostile_items = ["<item><title>no link</title></item>"]
    await source.search(DUNE)
    fake.fail_next(500)
    await source.search(SHOW)
    fake.set_delay(5)
    await source.search(SHOW)
    await fetch_release(
        http, fake.download_url(fake.releases[0]), source="idx", request_timeout=0.2
    )
    fake.set_delay(0)
    fake.set_down()
    await TorznabSource(fake.endpoint(), http).search(DUNE)
    written = stream.getvalue()
    assert "external.call" in written
    assert "torznab.skipped" in written
    assert fake.api_key not in written
