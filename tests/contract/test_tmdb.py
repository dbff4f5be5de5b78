"""The fake TMDB (tests/support/tmdb.py) held to TMDB's published API description.

jellybit's own client (worker/tmdb.py) makes its calls against the fake — search, details
with ``append_to_response``, ``/find`` by IMDb id, seasons, with a v3 key and with a v4
token — and every request is checked against the description (no parameter it lacks, the
required ones there), then asked again over HTTP and its answer checked field by field: no
field the description lacks, no value of the wrong JSON type, null only where the
description shows it null, and every field jellybit reads present. The errors are TMDB's
(``{"status_code", "status_message", "success"}`` with the documented codes), and the image
host serves the poster sizes TMDB's configuration lists.

``tests/data/tmdb/*.json`` hold the parts of the description jellybit uses, each with its
``_source`` (TMDB's ``tmdb-api.json``, where it was copied from, and the few corrections
and readings of it that the file explains).
"""

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from core.config import MetadataSettings
from core.posters import poster_url
from tests.support.tmdb import CATALOGUE, AltTitle, Entry, FakeTmdb
from worker.tmdb import TmdbClient

Json = dict[str, Any]
DATA = Path(__file__).parent.parent / "data" / "tmdb"
ENDPOINTS = ("search_movie", "search_tv", "movie_details", "tv_details", "find", "tv_season")
TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}
# The poster sizes jellybit builds URLs with (bot/views.py, web/pages.py).
POSTER_SIZES = ("w500", "w185")


@cache
def described(name: str) -> Json:
    loaded: Json = json.loads((DATA / f"{name}.json").read_text())
    return loaded


def problems(value: Any, description: Json, key: str = "") -> list[str]:
    """What in ``value`` the description does not allow: a field it lacks, a value of
    another JSON type, a null where it shows none. ``description`` has ``fields`` (a
    flat map: ``results[].id`` -> ``integer``) and ``nullable`` (such keys)."""
    name = key or "$"
    kind = description["fields"].get(name)
    if kind is None:
        return [f"{name}: not in the description"]
    if value is None:
        allowed = kind == "any" or name in description["nullable"]
        return [] if allowed else [f"{name}: null where the description has {kind}"]
    if kind != "any" and (
        not isinstance(value, TYPES[kind]) or (isinstance(value, bool) and kind != "boolean")
    ):
        return [f"{name}: {type(value).__name__} where the description has {kind}"]
    found: list[str] = []
    if isinstance(value, dict):
        for field, item in value.items():
            found += problems(item, description, f"{key}.{field}" if key else field)
    elif isinstance(value, list):
        for item in value:
            found += problems(item, description, f"{key}[]")
    return found


def holders(value: Any, key: str) -> tuple[int, list[str]]:
    """How many objects along ``key`` (``seasons[].name``) hold its last field, and where
    one lacks it."""
    *path, last = key.split(".")
    objects: list[Any] = [value]
    for part in path:
        step = part.removesuffix("[]")
        objects = [o.get(step) for o in objects if isinstance(o, dict)]
        if part.endswith("[]"):
            objects = [item for o in objects if isinstance(o, list) for item in o]
    objects = [o for o in objects if isinstance(o, dict)]
    field = last.removesuffix("[]")
    return len(objects), [key for o in objects if field not in o][:1]


def endpoint_of(path: str) -> str:
    """The description a request path (without ``/3``) belongs to."""
    for name in ENDPOINTS:
        pattern = re.sub(r"\{\w+\}", "[^/]+", described(name)["request"]["path"])
        if re.fullmatch(pattern.removeprefix("/3"), path):
            return name
    raise AssertionError(f"no described endpoint for {path}")


def catalogue() -> list[Entry]:
    """The built-in catalogue, with what some answers need to show every field jellybit
    reads: alternative titles, a network, IMDb and TVDB ids for shows."""
    more: dict[tuple[str, int], dict[str, Any]] = {
        ("movie", 438631): {"alternative_titles": (AltTitle("RU", "Дюна: Часть первая"),)},
        ("tv", 100088): {
            "imdb_id": "tt3581920",
            "tvdb_id": 392256,
            "networks": ("HBO",),
            "alternative_titles": (AltTitle("US", "TLOU", "short"),),
        },
        ("tv", 209867): {"alternative_titles": (AltTitle("JP", "Sousou no Frieren", "romaji"),)},
    }
    return [replace(e, **more.get((e.kind, e.id), {})) for e in CATALOGUE]


Use = Callable[[TmdbClient], Awaitable[object]]
# What jellybit asks, by the description it is answered from. Blade Runner has no
# backdrop and 1917 no alternative titles (nulls and empty lists); Frieren's original
# title is Japanese.
CALLS: dict[str, tuple[Use, ...]] = {
    "search_movie": (
        lambda c: c.search("movie", "Dune", 2021),
        lambda c: c.search("movie", "Blade Runner", None, language="en-US"),
    ),
    "search_tv": (
        lambda c: c.search("series", "The Last of Us", 2023),
        lambda c: c.search("series", "Frieren", None),
    ),
    "movie_details": (
        lambda c: c.details("movie", 438631),
        lambda c: c.details("movie", "78"),
        lambda c: c.details("movie", 530915),
    ),
    "tv_details": (
        lambda c: c.details("series", 100088),
        lambda c: c.details("series", 209867),
    ),
    "find": (
        lambda c: c.find("tt1160419"),
        lambda c: c.find("tt3581920"),
        lambda c: c.find("392256", "tvdb_id"),
    ),
    "tv_season": (lambda c: c.season(100088, 1), lambda c: c.season("209867", 1)),
}


@pytest.fixture
async def tmdb() -> AsyncIterator[FakeTmdb]:
    async with FakeTmdb.of(catalogue()) as fake:
        yield fake


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def run_jellybit(tmdb: FakeTmdb, uses: tuple[Use, ...]) -> None:
    """Each use with a v3 key and with a v4 read token, as jellybit's client makes it."""
    for key in (tmdb.api_key, tmdb.read_token):
        client = TmdbClient(MetadataSettings(tmdb_api_key=key, tmdb_base=tmdb.base_url))
        try:
            for use in uses:
                await use(client)
        finally:
            await client.close()


async def fetch(
    http: aiohttp.ClientSession,
    url: str,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[aiohttp.ClientResponse, Any]:
    async with http.get(url, params=params, headers=headers) as response:
        body = await response.json(content_type=None) if await response.read() else None
    return response, body


def assert_tmdb_error(body: Any, code: int) -> None:
    """TMDB's error body, with the code and message of TMDB's list of errors."""
    errors = described("errors")
    assert isinstance(body, dict)
    assert problems(body, {"fields": errors["fields"], "nullable": []}) == []
    assert set(body) == set(errors["example_401"]), body
    assert (body["status_code"], body["success"]) == (code, False)
    documented = errors["codes"][str(code)]["message"]
    pattern = re.escape(documented).replace("\\#", r"\d+")
    assert re.fullmatch(pattern, body["status_message"]), body["status_message"]


# ---- the description's files ---------------------------------------------------------------


@pytest.mark.parametrize("name", [*ENDPOINTS, "errors", "images", "auth"])
def test_each_description_file_names_its_source(name: str) -> None:
    source = described(name)["_source"]
    assert "developer.themoviedb.org/openapi/tmdb-api.json" in source["description"]
    assert re.search(r"commit [0-9a-f]{40}", source["copy"])


@pytest.mark.parametrize("name", ENDPOINTS)
def test_what_jellybit_reads_is_in_the_description(name: str) -> None:
    description = described(name)
    fields = description["fields"]
    assert set(description["read_by_jellybit"]) <= set(fields)
    assert set(description["nullable"]) <= set(fields)
    assert fields["$"] == "object"
    for key in fields:  # every field hangs from a described object or array
        parent = key.rsplit(".", 1)[0] if "." in key else "$"
        if key.endswith("[]"):
            assert fields[key.removesuffix("[]")] == "array", key
        elif key != "$":
            assert fields.get(parent) == "object", key


def test_the_check_refuses_what_tmdb_would_not_send() -> None:
    """The checks can fail: a field the description lacks, another type, a null it does
    not show, a bool for a number, a field jellybit reads gone."""
    description = described("search_movie")
    good = {"page": 1, "results": [{"id": 1, "title": "X", "poster_path": None}]}
    assert problems(good, description) == []
    for bad in (
        {**good, "no_such_field": 1},
        {**good, "page": "1"},
        {**good, "page": True},
        {**good, "total_pages": None},
        {"page": 1, "results": [{"id": 1.5}]},
        {"page": 1, "results": [{"id": 1, "genre_ids": ["x"]}]},
        [good],
    ):
        assert problems(bad, description) != [], bad
    assert holders(good, "results[].title") == (1, [])
    assert holders({"results": [{"id": 1}]}, "results[].title") == (1, ["results[].title"])
    assert holders({"results": []}, "results[].title") == (0, [])


# ---- requests and answers -------------------------------------------------------------------


@pytest.mark.parametrize("name", ENDPOINTS)
async def test_jellybit_asks_only_what_the_description_has(tmdb: FakeTmdb, name: str) -> None:
    await run_jellybit(tmdb, CALLS[name])
    auth = described("auth")
    parameters = described(name)["request"]["parameters"]
    query = {p: v for p, v in parameters.items() if v["in"] == "query"}
    assert len(tmdb.calls) == 2 * len(CALLS[name])
    for call in tmdb.calls:
        assert call.method == "GET"
        assert endpoint_of(call.path) == name, call.path
        asked = dict(call.params)
        header = call.headers.get(auth["header"])
        if "api_key" in asked:
            assert asked.pop(auth["query_parameter"]) == tmdb.api_key
            assert header is None
        else:
            assert header == f"Bearer {tmdb.read_token}"
        assert set(asked) <= set(query), f"{call.path}: {set(asked) - set(query)}"
        assert {p for p, v in query.items() if v.get("required")} <= set(asked)
        for param, value in asked.items():
            if "enum" in query[param]:
                assert value in query[param]["enum"], (param, value)
            if query[param]["type"] == "integer":
                assert value.isdigit(), (param, value)
            if query[param]["type"] == "boolean":
                assert value in ("true", "false"), (param, value)
        path_values = re.fullmatch(
            re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", described(name)["request"]["path"]),
            "/3" + call.path,
        )
        assert path_values is not None
        for param, value in path_values.groupdict().items():
            if parameters[param]["type"] == "integer":
                assert value.isdigit(), (param, value)
        assert call.headers.get("Accept") == "application/json"


@pytest.mark.parametrize("name", ENDPOINTS)
async def test_the_answers_are_tmdbs(
    tmdb: FakeTmdb, http: aiohttp.ClientSession, name: str
) -> None:
    """Each request jellybit made, asked again as it was: the answer holds only described
    fields of described types, and every field jellybit reads is there (in at least one
    object of each kind, so that none of these checks passes for want of data)."""
    await run_jellybit(tmdb, CALLS[name])
    description = described(name)
    seen = dict.fromkeys(description["read_by_jellybit"], 0)
    for call in list(tmdb.calls):
        headers = {k: v for k, v in call.headers.items() if k in ("Accept", "Authorization")}
        response, body = await fetch(http, tmdb.base_url + call.path, call.params, headers)
        assert (response.status, response.content_type) == (200, "application/json"), body
        assert problems(body, description) == [], call.path
        for key in seen:
            count, lacking = holders(body, key)
            assert lacking == [], f"{call.path}: {lacking}"
            seen[key] += count
    assert [key for key, count in seen.items() if count == 0] == []


async def test_appended_parts_are_only_those_asked(
    tmdb: FakeTmdb, http: aiohttp.ClientSession
) -> None:
    """``append_to_response`` adds the parts asked and no other."""
    url = f"{tmdb.base_url}/movie/438631"
    params = {"api_key": tmdb.api_key, "language": "en-US"}
    _, plain = await fetch(http, url, params)
    _, one = await fetch(http, url, {**params, "append_to_response": "external_ids"})
    assert not {"alternative_titles", "translations", "external_ids"} & set(plain)
    assert set(one) - set(plain) == {"external_ids"}
    assert problems(one, described("movie_details")) == []


# ---- errors ---------------------------------------------------------------------------------


async def test_a_bad_key_is_tmdbs_401_with_status_code_7(
    tmdb: FakeTmdb, http: aiohttp.ClientSession
) -> None:
    url = f"{tmdb.base_url}/search/movie"
    for params, headers in (
        ({"query": "Dune", "api_key": "0" * 32}, {}),
        ({"query": "Dune"}, {"Authorization": "Bearer a.b.c"}),
        ({"query": "Dune"}, {}),
    ):
        response, body = await fetch(http, url, params, headers)
        assert (response.status, response.content_type) == (401, "application/json")
        assert_tmdb_error(body, 7)
    assert body == described("errors")["example_401"]


@pytest.mark.parametrize(
    "path", ["/movie/1", "/tv/438631", "/tv/100088/season/99", "/movie/438631/nothing", "/nope"]
)
async def test_what_is_not_there_is_tmdbs_404_with_status_code_34(
    tmdb: FakeTmdb, http: aiohttp.ClientSession, path: str
) -> None:
    response, body = await fetch(http, tmdb.base_url + path, {"api_key": tmdb.api_key})
    assert (response.status, response.content_type) == (404, "application/json")
    assert_tmdb_error(body, 34)


async def test_a_rate_limit_is_tmdbs_429_with_retry_after(
    tmdb: FakeTmdb, http: aiohttp.ClientSession
) -> None:
    url = f"{tmdb.base_url}/search/movie"
    params = {"query": "Dune", "api_key": tmdb.api_key}
    tmdb.fail_next(429, retry_after=7)
    tmdb.fail_next(429)  # TMDB's documentation: a 429 comes with a Retry-After header
    for wait in ("7", None):
        response, body = await fetch(http, url, params)
        assert response.status == 429
        assert_tmdb_error(body, 25)
        retry_after = response.headers.get("Retry-After", "")
        assert retry_after.isdigit(), retry_after
        assert wait is None or retry_after == wait
    response, _ = await fetch(http, url, params)
    assert response.status == 200


@pytest.mark.parametrize("code", ["5", "9", "11"])
async def test_other_errors_are_tmdbs(
    tmdb: FakeTmdb, http: aiohttp.ClientSession, code: str
) -> None:
    """Invalid parameters (``/find`` from a source the description does not list), an
    outage, an internal error: the HTTP status and the code TMDB's list gives them."""
    status = described("errors")["codes"][code]["http"]
    params = {"api_key": tmdb.api_key, "external_source": "imdb_id"}
    if code == "5":
        params["external_source"] = "kinopoisk_id"
    else:
        tmdb.fail_next(status)
    response, body = await fetch(http, f"{tmdb.base_url}/find/tt1160419", params)
    assert response.status == status
    assert_tmdb_error(body, int(code))


async def test_find_by_another_described_source_finds_nothing_here(
    tmdb: FakeTmdb, http: aiohttp.ClientSession
) -> None:
    """Every source the description lists is a valid question (the fake knows IMDb ids
    and shows' TVDB ids, so the others find nothing)."""
    sources = described("find")["request"]["parameters"]["external_source"]["enum"]
    assert {"imdb_id", "tvdb_id"} <= set(sources)
    for source in sources:
        response, body = await fetch(
            http,
            f"{tmdb.base_url}/find/tt1160419",
            {"api_key": tmdb.api_key, "external_source": source},
        )
        assert response.status == 200, source
        assert problems(body, described("find")) == []
        assert bool(body["movie_results"]) == (source == "imdb_id")


async def test_find_by_a_tvdb_id_answers_the_show(
    tmdb: FakeTmdb, http: aiohttp.ClientSession
) -> None:
    """A show's TVDB id finds it in ``tv_results``, and its details' ``external_ids`` give
    the id back; the same number as an IMDb id finds nothing."""
    params = {"api_key": tmdb.api_key, "external_source": "tvdb_id"}
    _, body = await fetch(http, f"{tmdb.base_url}/find/392256", params)
    assert problems(body, described("find")) == []
    assert [r["id"] for r in body["tv_results"]] == [100088]
    assert body["movie_results"] == []
    _, ids = await fetch(http, f"{tmdb.base_url}/tv/100088/external_ids", {"api_key": tmdb.api_key})
    assert ids["tvdb_id"] == 392256
    params["external_source"] = "imdb_id"
    _, none = await fetch(http, f"{tmdb.base_url}/find/392256", params)
    assert none["tv_results"] == []


# ---- images ---------------------------------------------------------------------------------


async def test_the_image_host_serves_the_described_poster_sizes(
    tmdb: FakeTmdb, http: aiohttp.ClientSession
) -> None:
    images = described("images")
    assert set(POSTER_SIZES) <= set(images["poster_sizes"])
    assert images["secure_base_url"] == MetadataSettings().tmdb_images + "/"
    poster = "/d5NXSklXo0qyIYkgV94XAgMIckC.jpg"
    for size in images["poster_sizes"]:
        url = poster_url(tmdb.images_url, size, poster)
        assert url is not None
        async with http.get(url) as response:
            assert (response.status, response.content_type) == (200, "image/jpeg"), size
            assert (await response.read()).startswith(b"\xff\xd8")
    async with http.get(f"{tmdb.images_url}/w9999{poster}") as response:
        assert response.status == 404
