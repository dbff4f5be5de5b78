"""The Jellyfin client against the fake Jellyfin."""

import time
from collections.abc import AsyncIterator, Callable

import aiohttp
import pytest
from structlog.testing import capture_logs

from core.config import JellyfinSettings
from core.errors import AuthFailedError, RejectedError, UnreachableError
from tests.support.jellyfin import FakeJellyfin, parse_authorization
from worker.jellyfin import JellyfinClient

MakeClient = Callable[..., JellyfinClient]
PATHS = [
    "/media/Movies/Dune (2021) [tmdbid-438631]/Dune (2021) [tmdbid-438631].mkv",
    "/media/Movies/Dune (2021) [tmdbid-438631]/Dune (2021) [tmdbid-438631].ru.srt",
]


@pytest.fixture
async def jellyfin() -> AsyncIterator[FakeJellyfin]:
    async with FakeJellyfin() as fake:
        yield fake


@pytest.fixture
async def make_client(jellyfin: FakeJellyfin) -> AsyncIterator[MakeClient]:
    made: list[JellyfinClient] = []

    def make(key: str | None = None, url: str | None = None, **kw: float) -> JellyfinClient:
        settings = JellyfinSettings(
            url=jellyfin.url if url is None else url,
            api_key=jellyfin.api_key if key is None else key,
        )
        client = JellyfinClient(settings, **kw)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        await client.close()


async def test_media_updated_reports_paths_with_the_token_header(
    jellyfin: FakeJellyfin, make_client: MakeClient
) -> None:
    client = make_client(url=jellyfin.url + "/")
    assert client.enabled
    with capture_logs() as logs:
        await client.media_updated(PATHS)
    (call,) = jellyfin.calls
    assert (call.method, call.path, call.status) == ("POST", "/Library/Media/Updated", 204)
    assert call.headers["Authorization"] == f'MediaBrowser Token="{jellyfin.api_key}"'
    assert parse_authorization(call.headers["Authorization"]) == (
        "MediaBrowser",
        {"Token": jellyfin.api_key},
    )
    assert "X-Emby-Token" not in call.headers
    assert call.params == {}
    assert call.body == {"Updates": [{"Path": p, "UpdateType": "Created"} for p in PATHS]}
    assert jellyfin.updated_paths == PATHS
    (record,) = [r for r in logs if r["event"] == "external.call"]
    assert (record["system"], record["operation"], record["outcome"]) == (
        "jellyfin",
        "media_updated",
        "ok",
    )
    assert jellyfin.api_key not in repr(logs)


async def test_disabled_or_empty_makes_no_call(
    jellyfin: FakeJellyfin, make_client: MakeClient
) -> None:
    disabled = make_client(url="")
    assert not disabled.enabled
    await disabled.media_updated(PATHS)
    await make_client().media_updated([])
    assert jellyfin.calls == []


async def test_a_wrong_key_fails_auth(jellyfin: FakeJellyfin, make_client: MakeClient) -> None:
    with pytest.raises(AuthFailedError) as raised:
        await make_client(key="wrong").media_updated(PATHS)
    assert raised.value.system == "jellyfin"
    assert [c.status for c in jellyfin.calls] == [401]
    assert jellyfin.updated_paths == []


async def test_an_outage_is_unreachable(jellyfin: FakeJellyfin, make_client: MakeClient) -> None:
    jellyfin.set_down()
    started = time.monotonic()
    with pytest.raises(UnreachableError) as raised:
        await make_client().media_updated(PATHS)
    assert time.monotonic() - started < 2.0
    assert raised.value.system == "jellyfin"


async def test_a_refused_connection_is_unreachable(
    jellyfin: FakeJellyfin, make_client: MakeClient
) -> None:
    client = make_client()
    await jellyfin.stop()
    with pytest.raises(UnreachableError, match="cannot connect"):
        await client.media_updated(PATHS)


async def test_a_slow_answer_times_out(jellyfin: FakeJellyfin, make_client: MakeClient) -> None:
    jellyfin.set_delay(3)
    started = time.monotonic()
    with pytest.raises(UnreachableError, match="no answer"):
        await make_client(timeout=0.3).media_updated(PATHS)
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (500, UnreachableError),
        (503, UnreachableError),
        (429, UnreachableError),
        (400, RejectedError),
        (404, RejectedError),
        (403, AuthFailedError),
    ],
)
async def test_error_answers_are_mapped(
    jellyfin: FakeJellyfin, make_client: MakeClient, status: int, error: type[Exception]
) -> None:
    jellyfin.fail_next(status)
    with pytest.raises(error, match=f"HTTP {status}"):
        await make_client().media_updated(PATHS)
    assert len(jellyfin.calls) == 1  # the caller retries later


async def test_the_fake_refuses_legacy_auth_by_default(jellyfin: FakeJellyfin) -> None:
    async with aiohttp.ClientSession() as session:
        body = {"Updates": [{"Path": "/x", "UpdateType": "Created"}]}
        url = f"{jellyfin.url}/Library/Media/Updated"
        async with session.post(
            url, json=body, headers={"X-Emby-Token": jellyfin.api_key}
        ) as answer:
            assert answer.status == 401
        async with session.post(url, json=body, params={"api_key": jellyfin.api_key}) as answer:
            assert answer.status == 401
        auth = {"Authorization": f'MediaBrowser Client="jellybit", Token="{jellyfin.api_key}"'}
        async with session.post(url, json={"Updates": "nope"}, headers=auth) as answer:
            assert answer.status == 400
        async with session.post(url, json=body, headers=auth) as answer:
            assert answer.status == 204
