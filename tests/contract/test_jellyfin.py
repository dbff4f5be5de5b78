"""The fake Jellyfin (tests/support/jellyfin.py) held to Jellyfin's published OpenAPI
description (``jellyfin-openapi-stable.json``).

jellybit's own client (worker/jellyfin.py) reports files and asks for the version against
the fake; its request is checked against the description (a ``MediaUpdateInfoDto`` body in
a described content type, the key in the described header), and the answers too: ``204``
for a good report, ``401`` without a token, a ``ProblemDetails`` ``400`` for a body that is
not a ``MediaUpdateInfoDto``, a ``503`` as the description gives it, and ``/System/Info``
with only ``SystemInfo``'s fields (and the ones Jellyfin always writes).

``tests/data/jellyfin/*.json`` hold the parts of the description jellybit uses, each with
its ``_source``.
"""

import json
import re
from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from core.config import JellyfinSettings
from tests.contract.test_tmdb import holders, problems
from tests.support.jellyfin import FakeJellyfin, parse_authorization
from worker.jellyfin import JellyfinClient, auth_header

Json = dict[str, Any]
DATA = Path(__file__).parent.parent / "data" / "jellyfin"
UPDATED = "/Library/Media/Updated"
# ProblemDetails come as application/json in the description (GET /System/Info's 403);
# ASP.NET Core itself writes application/problem+json.
PROBLEM_TYPES = ("application/json", "application/problem+json")
PATHS = ["/media/Movies/Dune (2021)/Dune (2021).mkv", "/media/Movies/Dune (2021)/Dune.ru.srt"]


@cache
def described(name: str) -> Json:
    loaded: Json = json.loads((DATA / f"{name}.json").read_text())
    return loaded


def always_written(description: Json) -> set[str]:
    """Top-level fields the description does not let be null: Jellyfin always writes them
    (its serializer leaves out only nulls)."""
    fields = description["fields"]
    return {k for k in fields if k != "$" and "." not in k and "[" not in k} - set(
        description["nullable"]
    )


@pytest.fixture
async def jellyfin() -> AsyncIterator[FakeJellyfin]:
    async with FakeJellyfin() as fake:
        yield fake


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
async def client(jellyfin: FakeJellyfin) -> AsyncIterator[JellyfinClient]:
    made = JellyfinClient(JellyfinSettings(url=jellyfin.url, api_key=jellyfin.api_key))
    yield made
    await made.close()


async def post(
    http: aiohttp.ClientSession,
    jellyfin: FakeJellyfin,
    data: bytes,
    content_type: str = "application/json",
    token: str | None = "",
) -> tuple[aiohttp.ClientResponse, bytes]:
    """A report as jellybit sends one (``token=""``: the fake's key, None: no header)."""
    headers = {"Content-Type": content_type}
    if token is not None:
        headers["Authorization"] = auth_header(token or jellyfin.api_key)
    async with http.post(jellyfin.url + UPDATED, data=data, headers=headers) as response:
        return response, await response.read()


def assert_problem_details(raw: bytes, status: int) -> None:
    """ASP.NET's ``ProblemDetails`` as the description has it (extra members allowed:
    ``errors``, ``traceId``)."""
    body = json.loads(raw)
    schema = described("media_updated")["problem_details"]
    assert isinstance(body, dict)
    described_only = {k: v for k, v in body.items() if k in schema["fields"]}
    assert problems(described_only, schema) == []
    assert body["status"] == status
    assert isinstance(body.get("title"), str)
    errors = body.get("errors", {})
    assert isinstance(errors, dict)
    assert all(isinstance(v, list) and all(isinstance(m, str) for m in v) for v in errors.values())


# ---- the description's files ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["media_updated", "system_info"])
def test_each_description_file_names_its_source(name: str) -> None:
    source = described(name)["_source"]
    assert "jellyfin-openapi-stable.json" in source["description"]
    assert re.search(r"commit [0-9a-f]{40}", source["copy"])


def test_the_check_refuses_what_jellyfin_would_not_take() -> None:
    body = described("media_updated")["request"]["body"]
    good = {"Updates": [{"Path": "/x", "UpdateType": None}]}
    assert problems(good, body) == []
    bad: Json
    for bad in (
        {"Updates": [{"Path": "/x", "Type": "Created"}]},
        {"Updates": [{"Path": 1}]},
        {"Updates": {"Path": "/x"}},
        {"updates": []},
    ):
        assert problems(bad, body) != [], bad
    info = described("system_info")["system_info"]
    assert problems({"Version": "10.11.0", "HasPendingRestart": None}, info) != []
    assert {"HasPendingRestart", "WebSocketPortNumber"} <= always_written(info)
    assert "Version" not in always_written(info)


# ---- reports --------------------------------------------------------------------------------


async def test_jellybits_report_is_a_described_media_update(
    jellyfin: FakeJellyfin, client: JellyfinClient
) -> None:
    description = described("media_updated")
    request = description["request"]
    await client.media_updated(PATHS)
    (call,) = jellyfin.calls
    assert (call.method, call.path, call.status) == (request["method"], request["path"], 204)
    assert "204" in description["responses"]
    assert problems(call.body, request["body"]) == []
    assert [u["UpdateType"] for u in call.body["Updates"]] == ["Created"] * len(PATHS)
    assert {u["UpdateType"] for u in call.body["Updates"]} <= set(request["update_types"])
    assert [u["Path"] for u in call.body["Updates"]] == PATHS
    content_type = call.headers["Content-Type"].split(";")[0].strip()
    assert content_type in request["content_types"]
    scheme, pairs = parse_authorization(call.headers[description["security"]["header"]])
    assert (scheme, pairs) == ("MediaBrowser", {"Token": jellyfin.api_key})


@pytest.mark.parametrize("content_type", described("media_updated")["request"]["content_types"])
@pytest.mark.parametrize(
    "body",
    [
        {"Updates": [{"Path": "/media/a.mkv", "UpdateType": "Created"}]},
        {"Updates": [{"Path": "/media/a.mkv", "UpdateType": "Modified"}]},
        {"Updates": [{"Path": "/media/a.mkv", "UpdateType": "Deleted"}]},
        {"Updates": [{"Path": "/media/a.mkv", "UpdateType": None}]},
        {"Updates": [{"Path": "/media/a.mkv"}]},
        {"Updates": []},
        {},
    ],
    ids=["created", "modified", "deleted", "null-type", "no-type", "empty", "no-updates"],
)
async def test_every_described_report_is_a_204(
    jellyfin: FakeJellyfin, http: aiohttp.ClientSession, content_type: str, body: Json
) -> None:
    """A ``MediaUpdateInfoDto`` (``Updates`` is optional, ``UpdateType`` nullable), in any
    content type the description lists, is taken: ``204``, an empty body."""
    assert problems(body, described("media_updated")["request"]["body"]) == []
    sent = content_type.replace("*", "vnd.jellybit")  # application/*+json
    response, raw = await post(http, jellyfin, json.dumps(body).encode(), sent)
    assert (response.status, raw) == (204, b"")
    assert jellyfin.updated_paths == [u["Path"] for u in body.get("Updates", [])]


@pytest.mark.parametrize(
    "data",
    [
        b'{"Updates": "nope"}',
        b'{"Updates": [{"Path": 5}]}',
        # Jellyfin does not look at UpdateType; the fake takes only the three values its
        # description names, to catch a report jellybit should not make.
        b'{"Updates": [{"Path": "/a.mkv", "UpdateType": "Renamed"}]}',
        b'{"Updates": [{"Path": "/a.mkv", "UpdateType": 1}]}',
        b'[{"Path": "/a.mkv"}]',
        b"{not json",
        b"",
    ],
)
async def test_a_bad_body_is_a_400_problem(
    jellyfin: FakeJellyfin, http: aiohttp.ClientSession, data: bytes
) -> None:
    response, raw = await post(http, jellyfin, data)
    assert response.status == 400
    assert response.content_type in PROBLEM_TYPES
    assert_problem_details(raw, 400)
    assert jellyfin.updated_paths == []


async def test_another_content_type_is_a_415_problem(
    jellyfin: FakeJellyfin, http: aiohttp.ClientSession
) -> None:
    body = json.dumps({"Updates": [{"Path": "/a.mkv"}]}).encode()
    response, raw = await post(http, jellyfin, body, "text/plain")
    assert response.status == 415
    assert response.content_type in PROBLEM_TYPES
    assert_problem_details(raw, 415)


@pytest.mark.parametrize("token", [None, "wrong"], ids=["no-token", "wrong-token"])
async def test_without_the_key_a_report_is_an_empty_401(
    jellyfin: FakeJellyfin, http: aiohttp.ClientSession, token: str | None
) -> None:
    """The description's 401 has no content."""
    assert "content" not in described("media_updated")["responses"]["401"]
    body = json.dumps({"Updates": [{"Path": "/a.mkv"}]}).encode()
    response, raw = await post(http, jellyfin, body, token=token)
    assert (response.status, raw) == (401, b"")
    assert jellyfin.updated_paths == []


async def test_a_starting_server_is_the_described_503(
    jellyfin: FakeJellyfin, http: aiohttp.ClientSession
) -> None:
    """``503``: text/html, with an integer ``Retry-After`` when the server gives one."""
    described_503 = described("media_updated")["responses"]["503"]
    jellyfin.fail_next(503, retry_after=5)
    jellyfin.fail_next(503)
    body = json.dumps({"Updates": [{"Path": "/a.mkv"}]}).encode()
    for retry_after in ("5", None):
        response, _ = await post(http, jellyfin, body)
        assert response.status == 503
        assert response.content_type in described_503["content"]
        assert set(response.headers) & {"Retry-After", "Message"} <= set(described_503["headers"])
        assert response.headers.get("Retry-After") == retry_after
    response, _ = await post(http, jellyfin, body)
    assert response.status == 204


# ---- system info ----------------------------------------------------------------------------


async def test_system_info_is_jellyfins(
    jellyfin: FakeJellyfin, client: JellyfinClient, http: aiohttp.ClientSession
) -> None:
    """What jellybit asks (``version()``), asked again as it was: only ``SystemInfo``'s
    fields, of their types, the ones Jellyfin always writes there, and ``Version``."""
    description = described("system_info")["system_info"]
    assert await client.version() != "?"
    (call,) = jellyfin.calls
    assert (call.method, call.path, call.status) == ("GET", description["path"], 200)
    headers = {"Authorization": call.headers["Authorization"]}
    async with http.get(jellyfin.url + call.path, headers=headers) as response:
        assert (response.status, response.content_type) == (200, "application/json")
        body = await response.json()
    assert problems(body, description) == []
    assert always_written(description) <= set(body)
    for key in description["read_by_jellybit"]:
        assert holders(body, key) == (1, [])
    assert isinstance(body["Version"], str)


async def test_public_system_info_is_jellyfins(
    jellyfin: FakeJellyfin, http: aiohttp.ClientSession
) -> None:
    description = described("system_info")["public_system_info"]
    async with http.get(jellyfin.url + description["path"]) as response:
        assert response.status == 200
        body = await response.json()
    assert problems(body, description) == []
    assert "Version" in body


async def test_system_info_without_the_key_is_an_empty_401(
    jellyfin: FakeJellyfin, http: aiohttp.ClientSession
) -> None:
    description = described("system_info")["system_info"]
    assert "401" in description["responses"]
    async with http.get(jellyfin.url + description["path"]) as response:
        assert (response.status, await response.read()) == (401, b"")
