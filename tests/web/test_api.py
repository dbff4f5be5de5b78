"""The JSON API (web/api.py) against a real migrated SQLite store and a real
Engine whose qBittorrent is unreachable (127.0.0.1:9): creates come back accepted
(the adder sends them in the background), a cancel is refused with 503."""

import asyncio
import json
import re
import secrets
import string
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
import schemathesis
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from schemathesis import Case, CheckContext, GenerationMode, Response
from schemathesis.checks import CheckFunction
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from ulid import ULID

from core.config import WebSettings
from core.errors import InvalidInputError
from core.ids import Id, new_id, parse_id
from core.magnet import parse_magnet
from core.reasons import reason
from core.states import State
from core.torrent_file import MAX_TORRENT_BYTES, TOO_LARGE_REASON
from recognition.candidates import Candidate
from recognition.identify import Status
from store import Store
from store.recognition import StoredCandidate
from tests.support.house import application
from tests.support.states import put_in_state
from tests.support.torrents import make_content, make_torrent
from tests.web.test_library_pages import a_library
from web.api import MAX_LIMIT, openapi_document
from web.api_models import ID_PATTERN
from worker.engine import Engine

TOKEN = "secret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
UNKNOWN_ID = "01arz3ndektsv4rrffq69g5fav"  # fixed: test ids must not change between workers


Client = TestClient[web.Request, web.Application]


@dataclass
class Api:
    client: Client
    store: Store
    engine: Engine


@asynccontextmanager
async def running_api(tmp_path: Path, token: str) -> AsyncIterator[Api]:
    async with application(tmp_path, web=WebSettings(api_token=token, secret="s" * 32)) as app:
        client = TestClient(TestServer(app.web))
        await client.start_server()
        try:
            yield Api(client, app.store, app.engine)
        finally:
            await client.close()


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    async with running_api(tmp_path, TOKEN) as running:
        yield running


def hybrid_magnet(name: str) -> tuple[str, str, str]:
    """A magnet with a v1 and a v2 hash: (magnet, v1, v2)."""
    v1, v2 = secrets.token_hex(20), secrets.token_hex(32)
    return f"magnet:?xt=urn:btih:{v1}&xt=urn:btmh:1220{v2}&dn={name}", v1, v2


async def create(api: Api, magnet: str) -> dict[str, Any]:
    response = await api.client.post("/api/downloads", json={"magnet": magnet}, headers=AUTH)
    assert response.status == 201, await response.text()
    body: dict[str, Any] = await response.json()
    return body


async def error_of(response: aiohttp.ClientResponse, status: int, code: str) -> dict[str, Any]:
    assert response.status == status, await response.text()
    assert response.content_type == "application/json"
    body: dict[str, Any] = await response.json()
    assert body["code"] == code
    assert isinstance(body["message"], str)
    assert body["message"]
    return body


async def row_count(store: Store, table: str) -> int:
    return int(
        await store.db.read(
            lambda conn: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        )
    )


# --- auth -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
        {"Authorization": "Bearer"},
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/downloads"),
        ("POST", "/api/downloads"),
        ("GET", f"/api/downloads/{UNKNOWN_ID}"),
        ("POST", "/api/downloads/garbage/cancel"),
        ("GET", "/api/no-such-route"),
    ],
)
async def test_a_missing_or_wrong_token_is_401(
    api: Api, headers: dict[str, str], method: str, path: str
) -> None:
    response = await api.client.request(method, path, headers=headers)
    await error_of(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"] == "Bearer"


async def test_the_scheme_is_case_insensitive(api: Api) -> None:
    response = await api.client.get("/api/downloads", headers={"Authorization": f"bearer {TOKEN}"})
    assert response.status == 200


async def test_an_empty_token_disables_the_api(tmp_path: Path) -> None:
    async with running_api(tmp_path, "") as disabled:
        for headers in ({}, {"Authorization": "Bearer "}, AUTH):
            response = await disabled.client.get("/api/downloads", headers=headers)
            await error_of(response, 404, "api_disabled")
        response = await disabled.client.post("/api/downloads", json={"magnet": "x"})
        await error_of(response, 404, "api_disabled")
        assert await row_count(disabled.store, "download") == 0


async def test_the_openapi_document_needs_no_token(api: Api) -> None:
    response = await api.client.get("/api/openapi.json")
    assert response.status == 200
    document = await response.json()
    assert document == json.loads(json.dumps(openapi_document()))
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


async def test_unknown_routes_and_methods_answer_json(api: Api) -> None:
    await error_of(await api.client.get("/api/nothing", headers=AUTH), 404, "not_found")
    response = await api.client.delete(f"/api/downloads/{new_id()}", headers=AUTH)
    await error_of(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


# --- list and search ------------------------------------------------------------------


async def test_list_pages_newest_first(api: Api) -> None:
    ids = [(await create(api, hybrid_magnet(f"Show.{n}")[0]))["download"]["id"] for n in range(5)]
    response = await api.client.get("/api/downloads", params={"limit": "2"}, headers=AUTH)
    assert response.status == 200
    first = await response.json()
    assert [d["id"] for d in first["items"]] == ids[:-3:-1]
    assert first["next_before"] == ids[3]
    seen = [d["id"] for d in first["items"]]
    before = first["next_before"]
    while before is not None:
        page = await (
            await api.client.get(
                "/api/downloads", params={"limit": "2", "before": before.upper()}, headers=AUTH
            )
        ).json()
        seen += [d["id"] for d in page["items"]]
        before = page["next_before"]
    assert seen == ids[::-1]


async def test_search_by_name_v2_hash_prefix_and_upper_case_id(api: Api) -> None:
    dune_magnet, dune_v1, dune_v2 = hybrid_magnet("Dune.Part.Two.2024.2160p")
    dune = (await create(api, dune_magnet))["download"]
    other = (await create(api, hybrid_magnet("Arrival.2016")[0]))["download"]

    async def search(q: str, **more: str) -> list[str]:
        response = await api.client.get("/api/downloads", params={"q": q, **more}, headers=AUTH)
        assert response.status == 200, await response.text()
        return [d["id"] for d in (await response.json())["items"]]

    assert await search("part.two") == [dune["id"]]
    assert await search(dune_v2[:12]) == [dune["id"]]
    assert await search(dune_v1[:12].upper()) == [dune["id"]]
    assert await search(dune["id"].upper()) == [dune["id"]]
    assert await search("nothing like it") == []
    assert await search("", state="accepted") == [other["id"], dune["id"]]
    assert await search("", state="done") == []


async def test_list_shows_every_field_and_both_hashes(api: Api) -> None:
    magnet, v1, v2 = hybrid_magnet("Both.Hashes")
    await create(api, magnet)
    items = (await (await api.client.get("/api/downloads", headers=AUTH)).json())["items"]
    (item,) = items
    assert item["infohashes"] == [{"infohash": v1, "kind": "v1"}, {"infohash": v2, "kind": "v2"}]
    expected = set(openapi_document()["components"]["schemas"]["Download"]["properties"])
    assert set(item) == expected
    assert item["name"] == "Both.Hashes"
    assert item["state"] == "accepted"
    assert item["source"] == "api"
    assert isinstance(item["id"], str)


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": str(MAX_LIMIT + 1)},
        {"limit": "ten"},
        {"limit": "1.5"},
        {"state": "sleeping"},
        {"before": "garbage"},
        {"q": "x" * 201},
        {"unknown": "1"},
        {"states": "failed"},
    ],
)
async def test_list_refuses_bad_parameters(api: Api, params: dict[str, str]) -> None:
    response = await api.client.get("/api/downloads", params=params, headers=AUTH)
    await error_of(response, 400, "invalid_input")


async def test_list_refuses_repeated_single_parameters(api: Api) -> None:
    response = await api.client.get("/api/downloads?limit=1&limit=2", headers=AUTH)
    await error_of(response, 400, "invalid_input")


# --- get --------------------------------------------------------------------------------


async def test_get_by_upper_case_id_has_the_history(api: Api) -> None:
    created = (await create(api, hybrid_magnet("History")[0]))["download"]
    response = await api.client.get(f"/api/downloads/{created['id'].upper()}", headers=AUTH)
    assert response.status == 200
    body = await response.json()
    assert body["id"] == created["id"]
    assert [(h["from_state"], h["to_state"]) for h in body["history"]] == [(None, "accepted")]
    assert body["history"][0]["reason"] == "Added through the API."


@pytest.mark.parametrize(
    "garbage",
    [
        "garbage",
        "01ARZ3NDEKTSV4RRFFQ69G5FA",  # 25 characters
        "01ARZ3NDEKTSV4RRFFQ69G5FAVV",  # 27
        "81ARZ3NDEKTSV4RRFFQ69G5FAV",  # past the 48-bit time range
        "01ARZ3NDEKTSV4RRFFQ69G5FAU",  # U is not Crockford base32
        "01arz3ndektsv4rrffq69g5fa%20",
        "%F0%9F%92%A9" * 7,
    ],
)
async def test_a_garbage_id_is_404_without_a_query(api: Api, garbage: str) -> None:
    queries: list[str] = []
    await api.store.db.set_trace_callback(queries.append)
    try:
        for path in (f"/api/downloads/{garbage}", f"/api/downloads/{garbage}/retry"):
            method = "GET" if path.count("/") == 3 else "POST"
            response = await api.client.request(method, path, headers=AUTH)
            await error_of(response, 404, "not_found")
    finally:
        await api.store.db.set_trace_callback(None)
    assert queries == []


async def test_an_unknown_id_is_404(api: Api) -> None:
    response = await api.client.get(f"/api/downloads/{new_id()}", headers=AUTH)
    await error_of(response, 404, "not_found")


# --- create -------------------------------------------------------------------------------


async def test_a_magnet_is_created_then_a_duplicate(api: Api) -> None:
    magnet, v1, _ = hybrid_magnet("Queued.Movie.2024")
    first = await create(api, magnet)
    assert first["result"] == "created"
    assert "queued" not in first  # the add is the adder's, in the background
    assert first["download"]["state"] == "accepted"
    assert parse_id(first["download"]["id"]) == first["download"]["id"]

    again = await create(api, f"magnet:?xt=urn:btih:{v1.upper()}&dn=Other")
    assert again["result"] == "duplicate"
    assert again["download"]["id"] == first["download"]["id"]
    assert await row_count(api.store, "download") == 1


@pytest.mark.parametrize(
    "magnet",
    ["magnet:?xt=urn:btih:1234", "not a magnet", "", "magnet:?dn=NoHash"],
)
async def test_a_garbage_magnet_is_422_with_the_parsers_reason(api: Api, magnet: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        parse_magnet(magnet)
    response = await api.client.post("/api/downloads", json={"magnet": magnet}, headers=AUTH)
    body = await error_of(response, 422, "rejected")
    assert body["reason"] == str(refused.value)
    assert body["message"] == str(refused.value)
    assert "download" not in body
    assert await row_count(api.store, "download") == 0
    assert await row_count(api.store, "download_infohash") == 0


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (b"{not json", "application/json"),
        (b'["magnet:?xt=urn:btih:x"]', "application/json"),
        (b'{"magnet": 5}', "application/json"),
        (b'{"magnet": null}', "application/json"),
        (b"{}", "application/json"),
        (b'{"magnet": "magnet:?x", "name": "extra"}', "application/json"),
        (b'{"magnet": "\\ud800"}', "application/json"),
        (b"\xff\xfe\x00", "application/json"),
        (b"[" * 60_000, "application/json"),
        (b'{"magnet": 1' + b"0" * 5000 + b"}", "application/json"),
        (b"magnet=magnet:?xt", "application/x-www-form-urlencoded"),
        (b"magnet:?xt=urn:btih:" + b"a" * 40, "text/plain"),
        (b"--x\r\nbroken", "multipart/form-data"),
        (b"--x\r\nbroken", "multipart/form-data; boundary=x"),
    ],
)
async def test_bad_create_bodies_are_400(api: Api, data: bytes, content_type: str) -> None:
    headers = {**AUTH, "Content-Type": content_type}
    response = await api.client.post("/api/downloads", data=data, headers=headers)
    await error_of(response, 400, "invalid_input")
    assert await row_count(api.store, "download") == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [({"magnet": 5}, "magnet"), ({}, "magnet"), ({"magnet": "m", "name": "x"}, "name")],
)
async def test_a_bad_body_names_the_field(api: Api, body: dict[str, object], field: str) -> None:
    response = await api.client.post("/api/downloads", json=body, headers=AUTH)
    message = (await error_of(response, 400, "invalid_input"))["message"]
    assert message.startswith(f"{field}: "), message


async def test_a_large_json_body_is_413(api: Api) -> None:
    body = {"magnet": "magnet:?" + "x" * 70_000}
    response = await api.client.post("/api/downloads", json=body, headers=AUTH)
    await error_of(response, 413, "too_large")


async def test_a_torrent_upload_is_created_then_a_duplicate(api: Api, tmp_path: Path) -> None:
    made = make_torrent(make_content(tmp_path / "content", "Upload.2024.mkv", 70_000), "hybrid")

    async def upload(data: bytes) -> aiohttp.ClientResponse:
        form = aiohttp.FormData()
        form.add_field(
            "torrent", data, filename="x.torrent", content_type="application/x-bittorrent"
        )
        return await api.client.post("/api/downloads", data=form, headers=AUTH)

    response = await upload(made.data)
    assert response.status == 201, await response.text()
    body = await response.json()
    assert body["result"] == "created"
    assert body["download"]["name"] == made.name
    assert body["download"]["infohashes"] == [
        {"infohash": made.v1, "kind": "v1"},
        {"infohash": made.v2, "kind": "v2"},
    ]
    again = await (await upload(made.data)).json()
    assert again["result"] == "duplicate"
    assert again["download"]["id"] == body["download"]["id"]

    refused = await error_of(await upload(b"d4:spam"), 422, "rejected")
    assert refused["reason"] == "This is not a .torrent file, or it is damaged."
    assert await row_count(api.store, "download") == 1


async def test_a_torrent_larger_than_the_limit_is_422(api: Api) -> None:
    form = aiohttp.FormData()
    form.add_field("torrent", b"d" * (MAX_TORRENT_BYTES + 100_000), filename="big.torrent")
    response = await api.client.post("/api/downloads", data=form, headers=AUTH)
    body = await error_of(response, 422, "rejected")
    assert body["reason"] == TOO_LARGE_REASON.english()
    assert await row_count(api.store, "download") == 0


async def test_a_torrent_upload_refuses_other_parts(api: Api) -> None:
    form = aiohttp.FormData()
    form.add_field("torrent", b"d4:spami1ee", filename="x.torrent")
    form.add_field("name", "extra")
    response = await api.client.post("/api/downloads", data=form, headers=AUTH)
    await error_of(response, 400, "invalid_input")
    empty = aiohttp.FormData()
    empty.add_field("other", b"x", filename="x.bin")
    response = await api.client.post("/api/downloads", data=empty, headers=AUTH)
    await error_of(response, 400, "invalid_input")


# --- actions -------------------------------------------------------------------------------


async def test_retry_refused_by_another_active_owner_names_it(api: Api) -> None:
    magnet, _, _ = hybrid_magnet("Owned")
    old = (await create(api, magnet))["download"]
    await put_in_state(api.store, Id(old["id"]), State.FAILED)
    new = (await create(api, magnet))["download"]
    assert new["id"] != old["id"]

    response = await api.client.post(f"/api/downloads/{old['id'].upper()}/retry", headers=AUTH)
    body = await error_of(response, 409, "infohash_taken")
    assert body["owner_id"] == new["id"]
    assert (await api.store.downloads.get_download(Id(old["id"]))).state == State.FAILED


async def test_retry_of_a_failed_download_queues_it(api: Api) -> None:
    created = (await create(api, hybrid_magnet("Again")[0]))["download"]
    await put_in_state(api.store, Id(created["id"]), State.FAILED)
    response = await api.client.post(f"/api/downloads/{created['id']}/retry", headers=AUTH)
    assert response.status == 200, await response.text()
    assert (await response.json())["state"] == "accepted"
    response = await api.client.post(f"/api/downloads/{created['id']}/retry", headers=AUTH)
    await error_of(response, 409, "invalid_transition")


async def test_cancel_with_qbittorrent_unreachable_is_503_and_changes_nothing(api: Api) -> None:
    created = (await create(api, hybrid_magnet("Cancel.Me")[0]))["download"]
    path = f"/api/downloads/{created['id']}"
    before = await (await api.client.get(path, headers=AUTH)).json()

    response = await api.client.post(f"{path}/cancel", headers=AUTH)
    await error_of(response, 503, "unreachable")

    after = await (await api.client.get(path, headers=AUTH)).json()
    assert after == before
    assert after["state"] == "accepted"


async def test_cancel_and_relink_refuse_the_wrong_state(api: Api) -> None:
    created = (await create(api, hybrid_magnet("Wrong.State")[0]))["download"]
    await put_in_state(api.store, Id(created["id"]), State.REMOVED)
    for action in ("cancel", "relink"):
        response = await api.client.post(f"/api/downloads/{created['id']}/{action}", headers=AUTH)
        await error_of(response, 409, "invalid_transition")


async def test_relink_of_a_done_download(api: Api) -> None:
    created = (await create(api, hybrid_magnet("Relink.Me")[0]))["download"]
    await put_in_state(api.store, Id(created["id"]), State.DONE)
    response = await api.client.post(f"/api/downloads/{created['id']}/relink", headers=AUTH)
    assert response.status == 200, await response.text()
    assert (await response.json())["state"] == "importing"


async def in_review(api: Api, name: str) -> tuple[Id, Id]:
    """A download in review with one candidate: (download id, candidate id)."""
    download_id = Id((await create(api, hybrid_magnet(name)[0]))["download"]["id"])
    await put_in_state(api.store, download_id, State.REVIEW)
    candidate = StoredCandidate(
        id=new_id(),
        selected=False,
        candidate=Candidate(
            provider="local",
            provider_id=None,
            kind="movie",
            title=name,
            original_title=None,
            year=2024,
            overview=None,
            poster_path=None,
            popularity=0.0,
            score=0.5,
        ),
    )
    await api.store.recognitions.save(
        download_id,
        kind="movie",
        title=name,
        year=2024,
        season=None,
        status=Status.NEEDS_REVIEW,
        reason=reason("review.ambiguous", count=1),
        files=[],
        candidates=[candidate],
    )
    return download_id, candidate.id


async def test_review_picks_a_candidate(api: Api) -> None:
    download_id, candidate_id = await in_review(api, "Reviewed")
    path = f"/api/downloads/{download_id.upper()}/review"
    response = await api.client.post(
        path, json={"candidate_id": candidate_id.upper()}, headers=AUTH
    )
    assert response.status == 200, await response.text()
    assert (await response.json())["state"] == "importing"
    response = await api.client.post(path, json={"candidate_id": candidate_id}, headers=AUTH)
    await error_of(response, 409, "invalid_transition")


@pytest.mark.parametrize(
    "body",
    [{"candidate_id": "garbage"}, {"candidate_id": 5}, {}, {"candidate_id": "x", "more": 1}],
)
async def test_review_refuses_a_bad_candidate_id(api: Api, body: dict[str, object]) -> None:
    download_id, _ = await in_review(api, "Bad.Candidate")
    response = await api.client.post(
        f"/api/downloads/{download_id}/review", json=body, headers=AUTH
    )
    await error_of(response, 400, "invalid_input")


async def test_review_of_an_unknown_candidate_is_404(api: Api) -> None:
    download_id, _ = await in_review(api, "Unknown.Candidate")
    response = await api.client.post(
        f"/api/downloads/{download_id}/review", json={"candidate_id": new_id()}, headers=AUTH
    )
    await error_of(response, 404, "not_found")


# --- the document ---------------------------------------------------------------------------


ULIDS = st.integers(0, 2**128 - 1).map(lambda n: str(ULID.from_int(n)))


@settings(max_examples=300, deadline=None)
@given(st.text(string.digits + string.ascii_letters, min_size=25, max_size=27) | ULIDS)
def test_the_id_pattern_agrees_with_parse_id(text: str) -> None:
    for variant in (text, text.lower()):
        matches = re.fullmatch(ID_PATTERN, variant) is not None
        assert matches == (parse_id(variant) is not None)


# --- schemathesis -----------------------------------------------------------------------------

DEPENDS_ON_QBITTORRENT_DOWN = 503


def _documented_statuses(case: Case[Any]) -> set[str]:
    operation = openapi_document()["paths"][case.operation.path][case.method.lower()]
    return set(operation["responses"])


def no_server_error(ctx: CheckContext, response: Response, case: Case[Any]) -> bool | None:
    """Like ``not_a_server_error``, except a 503 ``unreachable`` where the document
    says so: qBittorrent is down in these tests on purpose."""
    del ctx
    if response.status_code < 500:
        return None
    expected = (
        response.status_code == DEPENDS_ON_QBITTORRENT_DOWN
        and "503" in _documented_statuses(case)
        and json.loads(response.content).get("code") == "unreachable"
    )
    assert expected, (
        f"{case.method} {case.formatted_path}: {response.status_code} {response.content!r}"
    )
    return None


EXAMPLES_PER_OPERATION = 25
REQUEST_LINE_LIMIT = 8_000  # aiohttp's max_line_size is 8 190 bytes, path included
CHECKS: list[CheckFunction] = [
    no_server_error,
    ignored_auth,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


_HEX20 = st.binary(min_size=20, max_size=20).map(bytes.hex)
_HEX32 = st.binary(min_size=32, max_size=32).map(bytes.hex)
FRESH_MAGNETS = st.builds(
    lambda v1, v2: f"magnet:?xt=urn:btih:{v1}&xt=urn:btmh:1220{v2}&dn=Fuzz.New", _HEX20, _HEX32
)


@dataclass
class Fuzzer:
    """Runs schemathesis cases against the served document; in a thread, as
    schemathesis calls the server synchronously. In positive cases real values
    (ids of existing downloads, a candidate, magnets, a .torrent) sometimes
    replace generated ones, so the cases get past 404 and 422."""

    base_url: str
    ids: list[str]
    candidate_ids: list[str]
    magnets: list[str]
    torrents: list[bytes]
    calls: int = 0

    def run(self) -> None:
        schema = schemathesis.openapi.from_url(f"{self.base_url}/api/openapi.json")
        for result in schema.get_all_operations():
            assert isinstance(result, Ok), result
            operation = result.ok()
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                self.operation(operation.as_strategy(generation_mode=mode), mode)

    def operation(self, cases: st.SearchStrategy[Case[Any]], mode: GenerationMode) -> None:
        checks = [*CHECKS, negative_data_rejection] if mode.is_negative else CHECKS

        def maybe(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
            return st.none() | values

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(
            case=cases,
            download_id=maybe(st.sampled_from(self.ids)),
            candidate_id=maybe(st.sampled_from(self.candidate_ids)),
            magnet=maybe(st.sampled_from(self.magnets) | FRESH_MAGNETS),
            torrent=maybe(st.sampled_from(self.torrents)),
        )
        def one(
            case: Case[Any],
            download_id: str | None,
            candidate_id: str | None,
            magnet: str | None,
            torrent: bytes | None,
        ) -> None:
            if mode.is_positive:
                if download_id and case.path_parameters and "id" in case.path_parameters:
                    case.path_parameters["id"] = download_id
                if isinstance(case.body, dict):
                    real: dict[str, Any] = {
                        "candidate_id": candidate_id,
                        "magnet": magnet,
                        "torrent": torrent,
                    }
                    for name, value in real.items():
                        if value is not None and name in case.body:
                            case.body[name] = value
            # aiohttp itself refuses a request line over 8 190 bytes, in plain text and
            # before any handler: the HTTP server's limit, not the API's answer.
            assume(len(urlencode(case.query or {}, doseq=True)) < REQUEST_LINE_LIMIT)
            case.call_and_validate(base_url=f"{self.base_url}/api", headers=AUTH, checks=checks)
            self.calls += 1

        one()


async def test_schemathesis_finds_no_server_error_and_no_mismatch(api: Api, tmp_path: Path) -> None:
    ids: list[str] = []
    magnets: list[str] = []
    for n, state in enumerate([State.ACCEPTED, State.FAILED, State.DONE, State.STUCK]):
        magnet = hybrid_magnet(f"Fuzz.{n}")[0]
        created = (await create(api, magnet))["download"]
        ids.append(created["id"])
        magnets.append(magnet)
        if state != State.ACCEPTED:
            await put_in_state(api.store, Id(created["id"]), state)
    reviewed, candidate = await in_review(api, "Fuzz.Review")
    ids += [reviewed, reviewed.upper()]
    made = make_torrent(make_content(tmp_path / "content", "Fuzz.Upload.mkv", 40_000), "v1")

    base_url = str(api.client.make_url("")).rstrip("/")
    fuzzer = Fuzzer(base_url, ids, [candidate], magnets, [made.data])
    await asyncio.to_thread(fuzzer.run)
    assert fuzzer.calls >= EXAMPLES_PER_OPERATION * 7


async def test_titles_are_listed_and_one_shows_its_inventory(api: Api) -> None:
    dark, dune = await a_library(api.store)
    listed = await (await api.client.get("/api/titles?limit=1", headers=AUTH)).json()
    assert [t["id"] for t in listed["items"]] == [dark]
    assert listed["next_offset"] == 1
    rest = await (await api.client.get("/api/titles?offset=1", headers=AUTH)).json()
    assert ([t["name"] for t in rest["items"]], rest["next_offset"]) == (["Dune"], None)
    show = await (await api.client.get(f"/api/titles/{dark}", headers=AUTH)).json()
    assert show["folder"] == "Dark (2017) [tmdbid-70523]"
    assert show["seasons"] == [
        {"season": 1, "episodes": 4, "present": [1, 2, 4]},
        {"season": 2, "episodes": 3, "present": []},
    ]
    assert sorted(f["label"] for f in show["files"]) == ["", "", "", "720p"]
    movie = await (await api.client.get(f"/api/titles/{dune}", headers=AUTH)).json()
    assert [f["label"] for f in movie["files"]] == ["", "2160p BluRay"]
    assert (await api.client.get(f"/api/titles/{new_id()}", headers=AUTH)).status == 404
    assert (await api.client.get("/api/titles?offset=-1", headers=AUTH)).status == 400
