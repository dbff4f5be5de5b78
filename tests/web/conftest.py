"""Fixtures of the page tests: a real migrated store, a real engine whose
qBittorrent is unreachable (127.0.0.1:9: the pages must cope), and an aiohttp
test client on the application with the pages."""

import re
from collections.abc import AsyncIterator, Awaitable, Iterable
from dataclasses import replace
from typing import Protocol

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from common.i18n import I18n
from core import clock
from core.config import MetadataSettings, QbittorrentSettings, Settings, TelegramSettings
from core.links import sign_user_token
from core.models import Download, NewDownload
from core.states import State
from store import Store
from tests.hashes import v1
from tests.support.states import put_in_state
from web import auth, pages
from web.app import WebDeps, build_web_app
from worker.engine import Engine

SECRET = b"the web secret of the page tests"
USER = 111
UNREACHABLE = QbittorrentSettings(url="http://127.0.0.1:9")

Client = TestClient[web.Request, web.Application]


class MakeClient(Protocol):
    def __call__(
        self, settings: Settings, with_engine: Engine | None = None
    ) -> Awaitable[Client]: ...


_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def settings_for(*allowed: int, language: str = "en") -> Settings:
    base = Settings()
    return replace(
        base,
        general=replace(base.general, language=language),  # type: ignore[arg-type]
        telegram=replace(TelegramSettings(), allowed_users=allowed),
        web=replace(base.web, public_url="http://127.0.0.1:8090"),
    )


def now() -> int:
    return clock.now_ms() // 1000


def token(user: int = USER, at: int | None = None, secret: bytes = SECRET) -> str:
    return sign_user_token(secret, user, now() if at is None else at)


async def close_engine(engine: Engine) -> None:
    await engine.close()


@pytest.fixture
async def engine(store: Store) -> AsyncIterator[Engine]:
    built = Engine.build(store, UNREACHABLE)
    yield built
    await close_engine(built)


@pytest.fixture
async def make_client(store: Store, engine: Engine) -> AsyncIterator[MakeClient]:
    """Test clients of apps with the given settings over the same store (and by
    default the same engine): a config change is a new app, as after a restart."""
    clients: list[Client] = []

    async def make(settings: Settings, with_engine: Engine | None = None) -> Client:
        deps = WebDeps(
            store=store,
            cases=(with_engine or engine).cases,
            i18n=I18n(settings.general.language),
            settings=settings,
            secret=SECRET,
        )
        client: Client = TestClient(TestServer(build_web_app(deps, auth.setup, pages.setup)))
        await client.start_server()
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()


@pytest.fixture
async def anonymous(make_client: MakeClient) -> Client:
    """A browser that has not opened a bot link yet."""
    return await make_client(settings_for(USER))


@pytest.fixture
async def client(anonymous: Client) -> Client:
    """A browser signed in as USER through a bot link."""
    await sign_in(anonymous)
    return anonymous


async def sign_in(client: Client, user: int = USER) -> None:
    response = await client.get(f"/?t={token(user)}", allow_redirects=False)
    assert response.status == 303, await response.text()


def session_cookie(client: Client) -> str:
    cookies = client.session.cookie_jar.filter_cookies(client.make_url("/"))
    return cookies[auth.SESSION_COOKIE].value


async def csrf_of(client: Client, path: str) -> str:
    """The CSRF token of a page's forms, read from the page as a browser would."""
    page = await client.get(path)
    found = _CSRF.search(await page.text())
    assert found is not None, f"no form on {path}"
    return found.group(1)


async def new_download(
    store: Store,
    name: str = "Some.Movie.2021.1080p.WEB-DL",
    *,
    hashes: Iterable[str] | None = None,
    state: State = State.ACCEPTED,
) -> Download:
    """A download as ingest makes it, moved to ``state``."""
    wanted = tuple(hashes) if hashes is not None else (v1(),)
    created = await store.downloads.create_download_if_no_active(
        NewDownload(name=name, source="telegram", source_ref=f"magnet:?xt=urn:btih:{wanted[0]}"),
        wanted,
    )
    assert created.created
    download = created.download
    if state != State.ACCEPTED:
        download = await put_in_state(store, download.id, state, "test setup")
    return download


def csrf_for(client: Client) -> str:
    """The CSRF token of the client's session, computed as the server does."""
    return auth.csrf_token(SECRET, session_cookie(client))


def metadata_for(base_url: str, api_key: str) -> MetadataSettings:
    return MetadataSettings(tmdb_api_key=api_key, tmdb_base=base_url)


def card(download_id: str) -> str:
    return f"/download/{download_id}"
