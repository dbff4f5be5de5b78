"""Fixtures of the page tests: a real migrated store, and aiohttp test clients on
jellybit built by ``build_application`` (not run) on the same database, its
qBittorrent unreachable (127.0.0.1:9: the pages must cope)."""

import re
from collections.abc import AsyncIterator, Awaitable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from core import clock
from core.config import MetadataSettings, QbittorrentSettings, Settings, TelegramSettings
from core.links import sign_user_token
from core.models import Download, NewDownload
from core.states import State
from jellybit.app import Application
from store import Store
from tests.hashes import v1
from tests.support.house import TOKEN, built
from tests.support.states import put_in_state
from web import auth

SECRET = b"the web secret of the page tests"
USER = 111
UNREACHABLE = QbittorrentSettings(url="http://127.0.0.1:9")

Client = TestClient[web.Request, web.Application]


class MakeClient(Protocol):
    def __call__(self, settings: Settings) -> Awaitable[Client]: ...


_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def settings_for(*allowed: int, language: str = "en") -> Settings:
    """The settings of a test's pages (``make_client`` puts them on the test's data dir)."""
    base = Settings()
    return replace(
        base,
        general=replace(base.general, language=language),  # type: ignore[arg-type]
        qbittorrent=UNREACHABLE,
        telegram=replace(TelegramSettings(), token=TOKEN, allowed_users=allowed),
        web=replace(base.web, public_url="http://127.0.0.1:8090", secret=SECRET.decode()),
    )


def now() -> int:
    return clock.now_ms() // 1000


def token(user: int = USER, at: int | None = None, secret: bytes = SECRET) -> str:
    return sign_user_token(secret, user, now() if at is None else at)


def _on(settings: Settings, db_path: Path) -> Settings:
    return replace(settings, general=replace(settings.general, data_dir=db_path.parent))


@pytest.fixture
async def application(db_path: Path) -> AsyncIterator[Application]:
    """jellybit built with ``settings_for(USER)`` (not run) on the test's database."""
    app = await built(_on(settings_for(USER), db_path))
    yield app
    await app.close()


@pytest.fixture
def store(application: Application) -> Store:
    """The store of ``application``: one per process, as in jellybit (it caches)."""
    return application.store


@pytest.fixture
async def make_client(application: Application, db_path: Path) -> AsyncIterator[MakeClient]:
    """Test clients of jellybit built with the given settings (not run) on the test's
    database: ``settings_for(USER)`` is ``application``; other settings are a new
    app, as after a config change and a restart."""
    clients: list[Client] = []
    apps: list[Application] = []

    async def make(settings: Settings) -> Client:
        app = application
        if _on(settings, db_path) != application.settings:
            app = await built(_on(settings, db_path))
            apps.append(app)
        client: Client = TestClient(TestServer(app.web))
        await client.start_server()
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()
    for app in apps:
        await app.close()


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
        NewDownload(name=name, origin="telegram", source_ref=f"magnet:?xt=urn:btih:{wanted[0]}"),
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
