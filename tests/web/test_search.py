"""Search on the pages (``/search``) and in the API (``GET /api/search``): the releases
under the titles they name, Add with CSRF, the bearer token, bad input. jellybit is
built (not run) with a Torznab fake and the fake TMDB; its Finder's loop runs in the
test, as ``jellybit run`` runs it."""

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from core.config import MetadataSettings, SearchSettings, TelegramSettings, WebSettings
from jellybit.app import Application
from tests.support.house import TOKEN as BOT_TOKEN
from tests.support.house import application
from tests.support.tmdb import FakeTmdb
from tests.support.torznab import FakeRelease, FakeTorznab
from tests.web.conftest import USER, token

TOKEN = "search-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')
_ADD = re.compile(r'action="(/search/[0-9a-z]+/add/[0-9a-z]+)"')

Client = TestClient[web.Request, web.Application]


@dataclass
class Site:
    app: Application
    client: Client
    indexer: FakeTorznab


@asynccontextmanager
async def site(tmp_path: Path) -> AsyncIterator[Site]:
    async with FakeTmdb() as tmdb, FakeTorznab(flavour="jackett") as indexer:
        indexer.releases += [
            FakeRelease(title="Dune 2021 1080p BluRay x264", seeders=50),
            FakeRelease(title="Dune 1984 720p DVDRip", seeders=5),
            FakeRelease(title="Dune 2021 2160p WEB-DL <b>HDR</b>", seeders=9),
            FakeRelease(title="Dune World Documentary 2023", seeders=3),
        ]
        metadata = MetadataSettings(
            tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url, language="en-US"
        )
        search = SearchSettings(torznab=(indexer.endpoint("jackett"),), timeout=5)
        web_settings = WebSettings(api_token=TOKEN, secret="s" * 32)
        telegram = TelegramSettings(token=BOT_TOKEN, allowed_users=(USER,))
        async with application(
            tmp_path, metadata=metadata, search=search, web=web_settings, telegram=telegram
        ) as app:
            stop = asyncio.Event()
            finder = asyncio.create_task(app.engine.finder.run(stop))
            client: Client = TestClient(TestServer(app.web))
            await client.start_server()
            try:
                yield Site(app, client, indexer)
            finally:
                await client.close()
                stop.set()
                await finder


async def test_the_page_groups_releases_under_titles_and_adds_one(tmp_path: Path) -> None:
    async with site(tmp_path) as s:
        signed = await s.client.get(f"/?t={token(USER, secret=b's' * 32)}", allow_redirects=False)
        assert signed.status == 303
        started = await s.client.get("/search", params={"q": "Dune"}, allow_redirects=False)
        assert started.status == 303
        location = started.headers["Location"]
        assert location.startswith("/search?id=")
        search_id = location.split("=", 1)[1]
        await s.app.engine.finder.finished(search_id, 10)  # type: ignore[arg-type]
        page = await (await s.client.get(location)).text()
        assert page.index("Dune (2021)") < page.index("Dune 2021 1080p BluRay x264")
        assert page.index("Dune (1984)") < page.index("Dune 1984 720p DVDRip")
        assert page.index("Другие раздачи") < page.index("Dune World Documentary 2023")
        assert "&lt;b&gt;HDR&lt;/b&gt;" in page  # a hostile name is shown as text
        assert s.indexer.api_key not in page
        # Filtered to 2160p: only that release is listed.
        only = await (await s.client.get(location, params={"res": "2160"})).text()
        assert "2160p WEB-DL" in only
        assert "1080p BluRay" not in only
        # Add, without and with the form's token.
        add = _ADD.findall(page)[0]
        refused = await s.client.post(add, data={}, allow_redirects=False)
        assert refused.status == 403
        assert await s.app.store.downloads.list_downloads() == []
        csrf = _CSRF.findall(page)[0]
        added = await s.client.post(add, data={"csrf": csrf}, allow_redirects=False)
        assert added.status == 303, await added.text()
        assert added.headers["Location"].startswith("/download/")
        (download,) = await s.app.store.downloads.list_downloads()
        assert download.origin == "api"
        hints = await s.app.store.telegram.hints(download.id)
        assert hints == ["https://www.themoviedb.org/movie/438631"]


async def test_the_api_answers_the_grouped_releases(tmp_path: Path) -> None:
    async with site(tmp_path) as s:
        response = await s.client.get("/api/search", params={"q": "Dune"}, headers=AUTH)
        assert response.status == 200, await response.text()
        body = await response.json()
        assert body["complete"] is True
        assert body["sources"] == [
            {"name": "jackett", "answered": True, "found": 4, "problem": None}
        ]
        groups = [
            (g["title"]["title"] if g["title"] else None, [r["name"] for r in g["releases"]])
            for g in body["groups"]
        ]
        assert groups == [
            ("Dune", ["Dune 2021 2160p WEB-DL <b>HDR</b>", "Dune 2021 1080p BluRay x264"]),
            ("Dune", ["Dune 1984 720p DVDRip"]),
            (None, ["Dune World Documentary 2023"]),
        ]
        first = body["groups"][0]["releases"][0]
        assert (first["resolution"], first["quality"], first["seeders"]) == (2160, "WEB-DL", 9)
        assert s.indexer.api_key not in await response.text()
        by_seeders = await s.client.get(
            "/api/search", params={"q": "Dune", "sort": "seeders"}, headers=AUTH
        )
        names = [r["name"] for r in (await by_seeders.json())["groups"][0]["releases"]]
        assert names == ["Dune 2021 1080p BluRay x264", "Dune 2021 2160p WEB-DL <b>HDR</b>"]
        bad = (({"q": "Dune"}, 401), ({"q": ""}, 400), ({"q": "x", "sort": "y"}, 400))
        for params, status in bad:
            headers = {} if status == 401 else AUTH
            answer = await s.client.get("/api/search", params=params, headers=headers)
            assert answer.status == status
