"""qBittorrent's search API (its search plugins) as jellybit uses it: the same cases
against the fake (``tests/support/fake_qbittorrent.py``, as 4.5 and as 5.x) and against
real qbittorrent-nox 4.5.2 and 5.3.0, each with the tests' own plugin
(``tests/support/search_plugin.py``) asking the tests' tracker site on 127.0.0.1
(``tests/support/search_site.py``). Real qBittorrent runs the plugin with Python: the
host's for 4.5, the chroot's own for 5.x (``scripts/qbittorrent5`` installs it).

``tests/data/qbittorrent/<version>.json`` holds what the real versions answered (a
plugin, a job's status, a result row, the refusals): the real instances are held to it
here, and the fake answers from it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
import requests

from core.config import QbittorrentSettings
from core.search import Terms
from tests.support.fake_qbittorrent import FakeQbittorrentServer, Version, record
from tests.support.fixtures import contract_targets, qbittorrent_command
from tests.support.qbittorrent import WebUiCalls, new_qbittorrent
from tests.support.search_site import SearchSite, install_plugin, site_row
from worker.qbt import QbtClient
from worker.qbt_search import QbtSearchSource

MAGNET = "magnet:?xt=urn:btih:" + "a" * 40 + "&dn=Dune"
_words = itertools.count()


@dataclass
class Target(WebUiCalls):
    """A qBittorrent WebUI with the tests' plugin asking ``site``, real or fake."""

    version: Version
    url: str
    username: str
    password: str
    site: SearchSite

    def start(self, session: requests.Session, words: str, category: str = "all") -> int:
        answer = self.post(
            session, "search/start", pattern=words, plugins="enabled", category=category
        )
        assert answer.status_code == 200, answer.text
        search_id: int = answer.json()["id"]
        return search_id

    def stopped(self, session: requests.Session, search_id: int) -> dict[str, Any]:
        """The job's status once it stopped (the plugin's Python has ended)."""
        deadline = time.monotonic() + 20
        while True:
            answer = self.get(session, "search/status", id=search_id)
            assert answer.status_code == 200, answer.text
            status: dict[str, Any] = answer.json()[0]
            if status["status"] == "Stopped":
                return status
            assert time.monotonic() < deadline, f"search {search_id} still running"
            time.sleep(0.05)

    def rows(self, session: requests.Session, search_id: int) -> list[dict[str, Any]]:
        answer = self.post(session, "search/results", id=search_id)
        assert answer.status_code == 200, answer.text
        rows: list[dict[str, Any]] = answer.json()["results"]
        return rows

    def forget(self, session: requests.Session, search_id: int) -> None:
        self.post(session, "search/stop", id=search_id)
        self.post(session, "search/delete", id=search_id)


@pytest.fixture(scope="module", params=contract_targets())
def target(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Target]:
    name: str = request.param
    version: Version = "4.5" if name.endswith("4.5") else "5"
    root = tmp_path_factory.mktemp(name)
    with SearchSite() as site:
        if name.startswith("fake"):
            with FakeQbittorrentServer(root, version) as fake:
                fake.install_search_plugin(site)
                yield Target(version, fake.url, fake.username, fake.password, site)
        else:
            qbt = new_qbittorrent(root / "qbt", command=qbittorrent_command(version))
            install_plugin(qbt.profile_dir, site.url)  # qBittorrent lists plugins as it starts
            with qbt:
                yield Target(version, qbt.url, qbt.username, qbt.password, site)


def _words_for(target: Target) -> str:
    """Words of this test alone: the site answers by them."""
    return f"Dune {next(_words)} {target.version}"


def test_the_plugin_is_listed_as_the_version_lists_it(target: Target) -> None:
    session = target.session()
    answer = target.get(session, "search/plugins")
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("application/json")
    expected = {**record(target.version)["search_plugin"], "url": target.site.url}
    assert answer.json() == [expected]  # 4.5's version "1.0", 5.x's "1" for "#VERSION: 1.00"


def test_a_search_lists_the_plugins_rows_as_the_version_reads_them(target: Target) -> None:
    words = _words_for(target)
    site = target.site.url
    target.site.answer(
        words,
        [
            site_row("Dune.2021.1080p", MAGNET, size=5 << 30, desc_link=f"{site}/1",
                     pub_date=1700000000),
            site_row("Dune.2021.720p", f"{site}/dl/2.torrent", size=2 << 30, seeds=0, leech=-3),
            site_row("Dune|Part One", MAGNET.replace("a", "b"), size=123),
            site_row("Dune.2021.dated", MAGNET.replace("a", "c"), pub_date=1700000001),
        ],
    )  # fmt: skip
    session = target.session()
    search_id = target.start(session, words, "movies")
    assert 0 < search_id < 2**31
    status = target.stopped(session, search_id)
    expected_status = record(target.version)["search_status"]
    assert set(status) == set(expected_status)
    assert (status["id"], status["total"]) == (search_id, 4)
    if target.version == "5":  # 5.x also tells what the job is
        assert (status["pattern"], status["category"], status["plugins"]) == (
            words, "movies", ["jellybit"]
        )  # fmt: skip
    assert (words, "movies") in target.site.queries  # the words as they were, unquoted
    answer = target.post(session, "search/results", id=search_id)
    assert answer.headers["Content-Type"].startswith("application/json")
    listing = answer.json()
    assert (listing["status"], listing["total"]) == ("Stopped", 4)
    rows = listing["results"]
    assert all(set(row) == set(record(target.version)["search_result"]) for row in rows)
    first, second, third, dated = rows
    assert first | {"siteUrl": site} == {
        **record(target.version)["search_result"],
        "descrLink": f"{site}/1",
        "siteUrl": site,
    }
    assert (second["fileUrl"], second["fileSize"]) == (f"{site}/dl/2.torrent", 2 << 30)
    assert (second["nbSeeders"], second["nbLeechers"]) == (0, -1)  # a negative count is -1
    if target.version == "4.5":
        assert second["descrLink"] == dated["descrLink"] == ""
        assert third["fileName"] == "Dune Part One"  # 4.5's novaprinter drops the "|"
    else:
        # 5.x's SearchHandler skips empty parts of the line: the missing pub_date's -1
        # moves into descrLink.
        assert (second["descrLink"], second["pubDate"], second["engineName"]) == (
            "-1", -1, "jellybit"
        )  # fmt: skip
        assert third["fileName"] == "Dune|Part One"  # 5.x quotes the name: kept whole
        # So a date without a description link is lost: it is read as the link.
        assert (dated["descrLink"], dated["pubDate"]) == ("1700000001", -1)
    page = target.post(session, "search/results", id=search_id, offset=1, limit=1).json()
    assert ([row["fileName"] for row in page["results"]], page["total"]) == (
        ["Dune.2021.720p"], 4
    )  # fmt: skip
    past = target.post(session, "search/results", id=search_id, offset=4, limit=5).json()
    assert past["results"] == []
    beyond = target.post(session, "search/results", id=search_id, offset=5)
    assert (beyond.status_code, beyond.text) == (409, "Offset is out of range")
    target.forget(session, search_id)


def test_stop_and_delete_then_the_id_is_unknown(target: Target) -> None:
    words = _words_for(target)
    target.site.answer(words, [site_row("Dune.2021.1080p", MAGNET)])
    session = target.session()
    search_id = target.start(session, words)
    target.stopped(session, search_id)
    for verb in ("stop", "delete"):  # stop of a stopped job is fine too
        answer = target.post(session, f"search/{verb}", id=search_id)
        assert (answer.status_code, answer.text) == (200, "")
        assert answer.headers["Content-Type"].startswith("text/plain")
    for verb in ("stop", "delete", "results"):
        gone = target.post(session, f"search/{verb}", id=search_id)
        assert (gone.status_code, gone.text) == (404, "Not Found")
    unknown = target.get(session, "search/status", id=search_id)
    assert (unknown.status_code, unknown.text) == (404, "Not Found")
    assert search_id not in [job["id"] for job in target.get(session, "search/status").json()]


def test_a_plugins_error_is_a_row_of_minus_ones(target: Target) -> None:
    """What published plugins print when their site fails (Jackett's does): one row
    whose size, seeders and leechers are -1 and whose name is the message."""
    words = _words_for(target)
    target.site.fail(words)
    session = target.session()
    search_id = target.start(session, words)
    target.stopped(session, search_id)
    (row,) = target.rows(session, search_id)
    assert (row["fileSize"], row["nbSeeders"], row["nbLeechers"]) == (-1, -1, -1)
    assert row["fileName"] == "Jellybit test tracker: HTTP Error 503: Service Unavailable"
    assert row["fileUrl"] == target.site.url
    target.forget(session, search_id)


def test_jobs_are_per_session_in_4_5_and_shared_in_5(target: Target) -> None:
    """jellybit's client logs in again when its session is gone: a 4.5 job is then
    unknown (404) to it."""
    words = _words_for(target)
    session, other = target.session(), target.session()
    search_id = target.start(session, words)
    seen = target.get(other, "search/status", id=search_id)
    if record(target.version)["search_jobs_per_session"]:
        assert (seen.status_code, seen.text) == (404, "Not Found")
    else:
        assert [job["id"] for job in seen.json()] == [search_id]
    target.forget(session, search_id)


def test_a_start_with_no_plugin_enabled_runs_and_finds_nothing(target: Target) -> None:
    session = target.session()
    answer = target.post(session, "search/enablePlugin", names="jellybit", enable="false")
    assert (answer.status_code, answer.text) == (200, "")
    try:
        (plugin,) = target.get(session, "search/plugins").json()
        assert plugin["enabled"] is False
        words = _words_for(target)
        search_id = target.start(session, words)
        status = target.stopped(session, search_id)
        assert status["total"] == 0
        if target.version == "5":
            assert status["plugins"] == []
        assert words not in [asked for asked, _ in target.site.queries]
        target.forget(session, search_id)
    finally:
        target.post(session, "search/enablePlugin", names="jellybit", enable="true")
    missing = target.post(session, "search/start", pattern="Dune")
    refusal = record(target.version)["search_refusals"]["missing_params"]
    assert (missing.status_code, missing.text) == (400, refusal)


def test_a_sixth_running_search_is_refused_with_409(target: Target) -> None:
    words = _words_for(target)
    target.site.hold(words)  # each job waits for the site
    session = target.session()
    running = [target.start(session, words) for _ in range(5)]
    try:
        sixth = target.post(session, "search/start", pattern=words, plugins="enabled",
                            category="all")  # fmt: skip
        refusal = record(target.version)["search_refusals"]["too_many"]
        assert (sixth.status_code, sixth.text) == (409, refusal)
        assert sixth.headers["Content-Type"].startswith("text/plain")
        stop = target.post(session, "search/stop", id=running[0])
        assert stop.status_code == 200
        if target.version == "5":
            # 5.x counts a stopped job until its plugins' Python has ended; 4.5 at once.
            target.stopped(session, running[0])
        running.append(target.start(session, words))
    finally:
        for search_id in running:
            target.forget(session, search_id)
        target.site.release(words)


async def test_the_source_finds_the_plugins_releases_and_leaves_no_job(target: Target) -> None:
    """``QbtSearchSource`` end to end, through ``QbtClient`` and qbittorrent-api."""
    words = _words_for(target)
    site = target.site.url
    target.site.answer(
        words,
        [
            site_row("Dune.2021.2160p", MAGNET, size=40 << 30, seeds=50, leech=5,
                     desc_link=f"{site}/1", pub_date=1700000000),
            site_row("Dune.2021.1080p", f"{site}/dl/1.torrent"),
            {**site_row("Tracker: login failed", site), "size": "-1"},  # the plugin's message
        ],
    )  # fmt: skip
    settings = QbittorrentSettings(
        url=target.url, username=target.username, password=target.password
    )
    client = QbtClient(settings)
    try:
        answer = await QbtSearchSource(client, poll_s=0.1).search(Terms(words, kind="movie"))
    finally:
        await client.close()
    assert answer.problem is None
    assert [(f.name, f.link) for f in answer.found] == [
        ("Dune.2021.2160p", MAGNET),
        ("Dune.2021.1080p", f"{site}/dl/1.torrent"),
    ]
    best = answer.found[0]
    assert (best.infohash, best.size, best.seeders, best.leechers) == ("a" * 40, 40 << 30, 50, 5)
    if target.version == "5":
        assert best.indexer == "jellybit"
        assert best.published == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    else:
        assert (best.indexer, best.published) == ("127.0.0.1", None)
    assert (words, "movies") in target.site.queries
    if not record(target.version)["search_jobs_per_session"]:  # 4.5: only its session sees
        assert target.get(target.session(), "search/status").json() == []
