"""``QbtSearchSource`` on the fake qBittorrent (as 4.5 and as 5.x) with the tests' search
plugin and tracker site: what it finds, what it drops, what it says, and that the job
is stopped and deleted whatever happens. ``tests/contract/test_qbittorrent_search.py``
holds the fake's search to real 4.5 and 5.x; ``tests/integration/test_qbt_search.py``
runs the source against them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import qbittorrentapi

from core.config import QbittorrentSettings
from core.reasons import Reason
from core.search import MAX_RESULTS, Terms
from tests.support.fake_qbittorrent import FakeQbittorrent, Version
from tests.support.search_site import SearchSite, site_row
from worker.qbt import QbtClient
from worker.qbt_search import QbtSearchSource

V1 = "a" * 40
V2 = "c" * 64
MAGNET = f"magnet:?xt=urn:btih:{V1}&dn=Dune"
STOP, DELETE = "/api/v2/search/stop", "/api/v2/search/delete"


@pytest.fixture(params=["4.5", "5"], ids=lambda v: f"fake{v}")
async def fake(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[FakeQbittorrent]:
    version: Version = request.param
    with SearchSite() as site:
        async with FakeQbittorrent(version=version, root=tmp_path) as fake:
            fake.install_search_plugin(site)
            yield fake


@pytest.fixture
async def client(fake: FakeQbittorrent) -> AsyncIterator[QbtClient]:
    settings = QbittorrentSettings(url=fake.url, username=fake.username, password=fake.password)
    client = QbtClient(settings, timeout=5.0)
    yield client
    await client.close()


def _site(fake: FakeQbittorrent) -> SearchSite:
    assert fake.search_site is not None
    return fake.search_site


def _source(client: QbtClient, patience: float | None = None) -> QbtSearchSource:
    return QbtSearchSource(client, patience=patience, poll_s=0.05)


async def _until(probe: Callable[[], bool], what: str, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not probe():
        assert time.monotonic() < deadline, f"not within {within} s: {what}"
        await asyncio.sleep(0.02)


def _cleaned_up(fake: FakeQbittorrent) -> bool:
    return not fake.search_jobs() and bool(fake.calls_to(STOP)) and bool(fake.calls_to(DELETE))


async def test_rows_become_found_releases_and_unusable_rows_are_dropped(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    site = _site(fake)
    site.answer(
        "Dune 2021",
        [
            site_row("Dune.2021.2160p", MAGNET, size=40 << 30, seeds=50, leech=5,
                     desc_link=f"{site.url}/1", pub_date=1700000000),
            site_row("Dune.2021.1080p", f"{site.url}/dl/1.torrent?key=secret", seeds=-1),
            site_row("Dune.2021.v2", f"magnet:?xt=urn:btmh:1220{V2}", size=7),
            site_row("   ", MAGNET),  # no name
            site_row("Dune.2021.ftp", "ftp://example.org/1.torrent"),  # not a link we fetch
            site_row("Dune.2021.broken", "magnet:?xt=urn:btih:zzz"),  # an unusable magnet
            {**site_row("Tracker: login failed", site.url), "size": "-1"},  # a plugin's message
        ],
    )  # fmt: skip
    answer = await _source(client).search(Terms("Dune 2021", kind="movie"))
    assert (answer.source, answer.problem) == ("qbittorrent", None)
    assert [f.name for f in answer.found] == ["Dune.2021.2160p", "Dune.2021.1080p", "Dune.2021.v2"]
    first, second, third = answer.found
    indexer = "jellybit" if fake.version == "5" else "127.0.0.1"  # 4.x: the site's host
    assert (first.link, first.infohash, first.size, first.seeders, first.leechers) == (
        MAGNET, V1, 40 << 30, 50, 5
    )  # fmt: skip
    assert (first.source, first.indexer) == ("qbittorrent", indexer)
    published = datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC) if fake.version == "5" else None
    assert first.published == published  # 4.x has no pubDate
    assert (second.link, second.infohash, second.seeders) == (
        f"{site.url}/dl/1.torrent?key=secret", None, None
    )  # fmt: skip
    assert (third.infohash, third.size) == (V2, 7)
    assert site.queries == [("Dune 2021", "movies")]  # the plugin has "movies"
    assert _cleaned_up(fake)


async def test_a_plugin_whose_site_fails_finds_nothing_and_says_no_problem(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    """The plugin's error row (size -1) is its message, not a release."""
    _site(fake).fail("Dune")
    answer = await _source(client).search(Terms("Dune", kind="tv"))
    assert (answer.found, answer.problem) == ((), None)
    assert _site(fake).queries == [("Dune", "tv")]
    assert _cleaned_up(fake)


async def test_every_page_is_read_up_to_the_limit(fake: FakeQbittorrent, client: QbtClient) -> None:
    site = _site(fake)
    rows = [site_row(f"Dune.{n}", f"magnet:?xt=urn:btih:{n:040x}") for n in range(MAX_RESULTS + 50)]
    site.answer("Dune", rows)
    answer = await _source(client).search(Terms("Dune"))
    assert [f.name for f in answer.found] == [f"Dune.{n}" for n in range(MAX_RESULTS)]
    asked = [call.params for call in fake.calls_to("/api/v2/search/results")]
    assert len(asked) == 5  # pages of 200
    assert _site(fake).queries == [("Dune", "all")]


async def test_no_enabled_plugin_is_said_and_nothing_is_started(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    person = qbittorrentapi.Client(host=fake.url, username=fake.username, password=fake.password)
    # As a person disables it in qBittorrent (a thread: the fake answers on this loop).
    await asyncio.to_thread(person.search_enable_plugin, plugins=["jellybit"], enable=False)
    answer = await _source(client).search(Terms("Dune"))
    assert answer.problem == Reason("search.qbt_no_plugins", {"source": "qbittorrent"})
    assert not fake.calls_to("/api/v2/search/start")


async def test_qbittorrents_409_is_said_plainly(fake: FakeQbittorrent, client: QbtClient) -> None:
    site = _site(fake)
    site.hold("busy")
    running = [await client.search_start("busy", ["jellybit"], "all") for _ in range(5)]
    answer = await _source(client).search(Terms("Dune"))
    detail = "Unable to create more than 5 concurrent searches."
    assert answer.problem == Reason("search.qbt_busy", {"source": "qbittorrent", "detail": detail})
    for search_id in running:
        await client.search_delete(search_id)
    site.release("busy")
    fake.python = False
    answer = await _source(client).search(Terms("Dune"))
    assert answer.problem is not None
    assert answer.problem.code == "search.qbt_busy"
    assert answer.problem.params["detail"] == "Python must be installed to use the Search Engine."


async def test_a_cancelled_search_still_stops_and_deletes_its_job(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    """The orchestrator's timeout cancels the search: the job goes all the same, and the
    canceller does not wait for it."""
    _site(fake).hold("Dune")
    search = asyncio.ensure_future(_source(client).search(Terms("Dune")))
    await _until(lambda: bool(fake.search_jobs()), "the job started")
    await asyncio.sleep(0.2)  # a few status polls
    began = time.monotonic()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(search, 0.01)
    assert time.monotonic() - began < 0.5
    await _until(lambda: _cleaned_up(fake), "the job stopped and deleted")
    _site(fake).release("Dune")


async def test_a_search_cancelled_while_qbittorrent_starts_it_is_deleted_once_started(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    await client.server()  # logged in already: only the search's calls are held
    fake.set_delay(0.2)
    search = asyncio.ensure_future(_source(client).search(Terms("Dune")))
    await _until(lambda: bool(fake.calls_to("/api/v2/search/start")), "the start asked")
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await search
    fake.set_delay(0)
    await _until(lambda: _cleaned_up(fake), "the job stopped and deleted")


async def test_patience_takes_what_was_found_and_ends_the_job(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    _site(fake).hold("Dune")
    began = time.monotonic()
    answer = await _source(client, patience=0.3).search(Terms("Dune"))
    assert time.monotonic() - began < 3
    assert (answer.found, answer.problem) == ((), None)
    assert _cleaned_up(fake)
    _site(fake).release("Dune")


async def test_qbittorrent_down_or_refusing_the_login_is_said(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    fake.set_down()
    answer = await _source(client).search(Terms("Dune"))
    assert answer.problem is not None
    assert answer.problem.code == "search.unreachable"
    fake.set_down(False)
    wrong = QbittorrentSettings(url=fake.url, username=fake.username, password="wrong")
    refused = QbtClient(wrong)
    try:
        answer = await _source(refused).search(Terms("Dune"))
    finally:
        await refused.close()
    assert answer.problem is not None
    assert answer.problem.code == "search.error"
    assert "password" in str(answer.problem.params["detail"])


async def test_a_job_qbittorrent_no_longer_knows_is_an_error_and_still_deleted(
    fake: FakeQbittorrent, client: QbtClient
) -> None:
    """4.5 keeps jobs per WebUI session: after a restart the client logs in anew and
    the job's id is unknown (404)."""
    _site(fake).hold("Dune")
    search = asyncio.ensure_future(_source(client).search(Terms("Dune")))
    await _until(lambda: bool(fake.search_jobs()), "the job started")
    fake.restart()
    answer = await search
    assert answer.problem is not None
    assert answer.problem.code == "search.error"
    assert fake.calls_to(DELETE)
    _site(fake).release("Dune")
