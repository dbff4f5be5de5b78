"""The fake Torznab server (tests/support/torznab.py) held to what Prowlarr and Jackett
answer, and jellybit's reader (core/torznab.py) held to every published answer.

``tests/data/torznab/`` holds the samples, each saying in its first comment where it came
from: the Torznab specification's own examples (caps, a results page, an error), and
Prowlarr's and Jackett's caps, results and error answers as their source code writes them.
``answers.json`` lists, per flavour, each answer's status, media type, required headers
and body. The fake is asked for each over HTTP and must answer alike: the same status and
type, the caps document itself, a results page with the same root, namespaces and channel,
whose items have the sample's elements and attributes in the sample's order, the same
``<error>``, the same download redirect or file.
"""

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from core.reasons import Reason
from core.torznab import Caps, parse_caps, parse_results
from tests.support.torznab import FakeCaps, FakeRelease, FakeTorznab, Flavour

DATA = Path(__file__).parent.parent / "data" / "torznab"
FLAVOURS: tuple[Flavour, ...] = ("prowlarr", "jackett")
TORZNAB_ATTR = "{http://torznab.com/schemas/2015/feed}attr"
# What each flavour writes in every item (the rest only when the release has it).
ALWAYS = {
    "prowlarr": ["title", "description", "guid", "prowlarrindexer", "pubDate", "size", "link"],
    "jackett": ["title", "guid", "jackettindexer", "type", "pubDate", "description", "link"],
}


@cache
def answers() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((DATA / "answers.json").read_text())
    return loaded


def sample(name: str) -> bytes:
    return (DATA / name).read_bytes()


def releases_of_the_sample(flavour: Flavour) -> list[FakeRelease]:
    """The releases of ``<flavour>_results.xml``, given to the fake."""
    return [
        FakeRelease(
            "Dune.Part.Two.2024.2160p.WEB-DL.DDP5.1.Atmos.DV.HDR.H.265-FLUX",
            size=25769803776,
            seeders=312,
            peers=340,
            infohash="5f1b2c9e0d4a7f3b8c6e1d2a9b0c7e4f3a2d1c0b",
            categories=(2000, 2045, 100001) if flavour == "prowlarr" else (2000, 100001),
            imdb_id="tt15239678",
            tmdb_id=693134,
            freeleech=True,
        ),
        FakeRelease(
            "Dune (2021) [1080p] [BluRay] [5.1]",
            size=2684354560,
            seeders=87,
            peers=95,
            infohash="0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c",
            categories=(2000, 2040) if flavour == "prowlarr" else (2000, 100002),
            imdb_id="tt1160419" if flavour == "prowlarr" else None,
            published=datetime(2022, 1, 11, 22, 41, tzinfo=UTC),
            indexer="ExampleTracker" if flavour == "prowlarr" else "ExamplePublic",
            download="magnet",
        ),
        FakeRelease("Gone.2020.1080p", download="gone"),
    ]


@pytest.fixture(params=FLAVOURS)
async def fake(request: pytest.FixtureRequest) -> AsyncIterator[FakeTorznab]:
    flavour: Flavour = request.param
    indexer = "5" if flavour == "prowlarr" else "exampletracker"
    made = FakeTorznab(
        flavour=flavour, releases=releases_of_the_sample(flavour), indexer_id=indexer
    )
    async with made:
        yield made


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def ask(
    http: aiohttp.ClientSession, url: str, params: dict[str, str]
) -> tuple[aiohttp.ClientResponse, bytes]:
    async with http.get(url, params=params, allow_redirects=False) as response:
        return response, await response.read()


async def answer_of(
    case: str, fake: FakeTorznab, http: aiohttp.ClientSession
) -> tuple[aiohttp.ClientResponse, bytes]:
    """Make the fake give the answer ``case`` of ``answers.json``."""
    key = {"apikey": fake.api_key}
    if case == "caps":
        return await ask(http, fake.url, {"t": "caps", **key})
    if case == "results":
        return await ask(http, fake.url, {"t": "search", "q": "dune", **key})
    if case == "bad_api_key":
        return await ask(http, fake.url, {"t": "search", "q": "dune", "apikey": "wrong"})
    if case in ("disabled", "rate_limited"):
        fake.fail_next(410 if case == "disabled" else 429, retry_after=30)
        return await ask(http, fake.url, {"t": "search", "q": "dune", **key})
    if case in ("unlisted_id", "unhandled_query"):
        fake.caps = FakeCaps(movie=("q",))
        param = {"tmdbid": "693134"} if case == "unlisted_id" else {"imdbid": "tt15239678"}
        return await ask(http, fake.url, {"t": "movie", **param, **key})
    if case == "bad_imdbid":
        return await ask(http, fake.url, {"t": "movie", "imdbid": "ttabc", **key})
    release = {"download_torrent": 0, "download_magnet": 1, "download_gone": 2}[case]
    async with http.get(fake.download_url(fake.releases[release]), allow_redirects=False) as r:
        return r, await r.read()


def cases() -> list[tuple[Flavour, str]]:
    return [(flavour, case) for flavour in FLAVOURS for case in answers()[flavour]]


# ---- every sample is read ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.xml")))
def test_each_sample_says_where_it_came_from(name: str) -> None:
    head = sample(name).decode()[:1200]
    assert re.search(r"github:\S+/\S+.*commit [0-9a-f]{40}", head, re.S), name


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*caps.xml")))
def test_the_reader_reads_every_caps_sample(name: str) -> None:
    caps = parse_caps(sample(name), "indexer")
    assert isinstance(caps, Caps)
    assert caps.mode("search").available
    assert caps.limit_max == 100
    assert {2000, 5000} <= caps.categories


@pytest.mark.parametrize(
    "name", ["spec_tvsearch.xml", "prowlarr_results.xml", "jackett_results.xml"]
)
def test_the_reader_reads_every_results_sample(name: str) -> None:
    body = sample(name)
    page = parse_results(body, "indexer")
    assert page.problem is None
    assert len(page.found) == body.count(b"<item>") == 2
    assert all(row.name and row.link and row.size and row.published for row in page.found)


def test_the_reader_reads_what_each_flavour_writes_in_an_item() -> None:
    prowlarr = parse_results(sample("prowlarr_results.xml"), "p").found
    jackett = parse_results(sample("jackett_results.xml"), "j").found
    for rows in (prowlarr, jackett):
        assert rows[0].imdb_id == "tt15239678"
        assert rows[0].tmdb_id == 693134
        assert (rows[0].seeders, rows[0].leechers) == (312, 28)
        assert rows[0].freeleech
        assert not rows[1].freeleech
        assert rows[0].infohash == "5f1b2c9e0d4a7f3b8c6e1d2a9b0c7e4f3a2d1c0b"
    assert prowlarr[0].indexer == jackett[0].indexer == "ExampleTracker"
    assert "/5/download?apikey=" in prowlarr[1].link  # Prowlarr's magnets are its links too
    assert jackett[1].link.startswith("magnet:?xt=urn:btih:0b1c2d3e")


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("spec_error.xml", "search.bad_api_key"),
        ("jackett_bad_api_key.xml", "search.bad_api_key"),
        ("jackett_unsupported_tmdbid.xml", "search.error"),
        ("jackett_unsupported_query.xml", "search.error"),
        ("jackett_rate_limited.xml", "search.error"),
        ("prowlarr_disabled.xml", "search.error"),
        ("prowlarr_rate_limited.xml", "search.error"),
        ("prowlarr_bad_imdbid.xml", "search.error"),
    ],
)
def test_the_reader_reads_every_error_sample(name: str, code: str) -> None:
    page = parse_results(sample(name), "indexer")
    assert page.problem is not None
    assert page.problem.code == code
    described = ET.fromstring(sample(name)).get("description", "")
    assert code == "search.bad_api_key" or page.problem.params["detail"] == described


# ---- the fake answers as each flavour ----------------------------------------------------


@pytest.mark.parametrize(("flavour", "case"), cases())
async def test_the_fake_answers_each_case_as_the_flavour_does(
    flavour: Flavour, case: str, http: aiohttp.ClientSession
) -> None:
    expected = answers()[flavour][case]
    indexer = "5" if flavour == "prowlarr" else "exampletracker"
    releases = releases_of_the_sample(flavour)
    async with FakeTorznab(flavour=flavour, releases=releases, indexer_id=indexer) as fake:
        response, body = await answer_of(case, fake, http)
    assert response.status == expected["status"]
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip() or None
    if "type" in expected and (expected["type"] or body):
        assert media_type == expected["type"]
    for header in expected.get("headers", []):
        assert response.headers.get(header)
    if "location" in expected:
        assert response.headers["Location"].startswith(expected["location"])
        return
    kind = expected["body"]
    if kind == "empty":
        assert body == b""
    elif kind == "empty_page":
        assert ET.fromstring(body).tag == "rss"
        assert b"<item>" not in body
    elif kind == "torrent":
        assert body.startswith(b"d")
        assert b"4:info" in body
    elif kind.startswith("error "):
        assert ET.fromstring(body).attrib.keys() == {"code", "description"}
        assert ET.fromstring(body).get("code") == kind.split()[1]
    elif kind.endswith("_caps.xml"):
        assert canonical(body) == canonical(sample(kind))
    elif kind.endswith("_results.xml"):
        assert_same_page(body, sample(kind), flavour)
    else:
        assert canonical(body) == canonical(sample(kind))


def canonical(xml: bytes) -> str:
    return ET.canonicalize(xml.decode(), strip_text=True, with_comments=False)


def item_keys(item: ET.Element) -> list[str]:
    """An item's children in order: element names, ``torznab:<name>`` for attributes,
    a repeated one once."""
    keys: list[str] = []
    for child in item:
        key = f"torznab:{child.get('name')}" if child.tag == TORZNAB_ATTR else child.tag
        if not keys or keys[-1] != key:
            keys.append(key)
    return keys


def is_subsequence(part: list[str], whole: list[str]) -> bool:
    remaining = iter(whole)
    return all(key in remaining for key in part)


def assert_same_page(answer: bytes, published: bytes, flavour: Flavour) -> None:
    ours, theirs = ET.fromstring(answer), ET.fromstring(published)
    assert (ours.tag, ours.attrib) == (theirs.tag, theirs.attrib)
    namespaces = re.compile(rb'xmlns:\w+="[^"]+"')
    assert namespaces.findall(answer) == namespaces.findall(published)
    channel, their_channel = ours.find("channel"), theirs.find("channel")
    assert channel is not None
    assert their_channel is not None
    heads = [
        [(child.tag, sorted(child.attrib)) for child in c if child.tag != "item"]
        for c in (channel, their_channel)
    ]
    assert heads[0] == heads[1]
    theirs_by_title = {item.findtext("title"): item for item in their_channel.iter("item")}
    items = list(channel.iter("item"))
    assert len(items) == len(theirs_by_title)
    for item in items:
        their = theirs_by_title[item.findtext("title")]
        keys = item_keys(item)
        assert is_subsequence(keys, item_keys(their)), (keys, item_keys(their))
        assert [key for key in ALWAYS[flavour] if key in keys] == ALWAYS[flavour]
        for child in item:
            if child.tag != TORZNAB_ATTR:
                counterpart = their.find(child.tag)
                assert counterpart is not None
                assert sorted(child.attrib) == sorted(counterpart.attrib), child.tag
        link, their_link = item.findtext("link", ""), their.findtext("link", "")
        assert urlsplit(link).scheme == urlsplit(their_link).scheme
        if link.startswith("http"):  # a magnet's own parameters are the tracker's
            assert (
                parse_qs(urlsplit(link).query).keys() == parse_qs(urlsplit(their_link).query).keys()
            )
        assert parse_results(ET.tostring(ours), flavour).found  # and it is read


async def test_the_fake_caps_read_as_the_published_caps(fake: FakeTorznab) -> None:
    async with aiohttp.ClientSession() as http:
        _, body = await ask(http, fake.url, {"t": "caps", "apikey": fake.api_key})
    ours = parse_caps(body, "x")
    assert not isinstance(ours, Reason)
    assert ours == parse_caps(sample(f"{fake.flavour}_caps.xml"), "x")
