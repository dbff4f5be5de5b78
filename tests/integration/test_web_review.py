"""The whole way through the review page, as a person does it on a phone: a real
download lands in review, the bot's Pick link opens the page in Chromium, one
tap lays the files out in the library, and the chat hears that it is done."""

import asyncio
import os
from pathlib import Path

from aiohttp import web
from playwright.async_api import async_playwright

from bot.app import TelegramFrontDoor
from bot.links import Links
from common.i18n import I18n
from core.config import MetadataSettings, Settings, TelegramSettings, WebSettings
from core.states import State
from store import Store
from store.migrate import migrate
from tests.integration.conftest import library_in, settings_for
from tests.integration.test_import import torrent_of
from tests.support.qbittorrent import QbtInstance, free_port
from tests.support.telegram import FakeTelegram
from tests.support.tmdb import FakeTmdb
from tests.support.torrents import magnet_for
from tests.support.torrents import seeder_peer as peer_of
from tests.web.test_browser import ARGS, CHROMIUM, PHONE, shoot
from web import api, pages
from web.app import WebDeps, build_web_app
from worker.engine import Engine

ALICE = 111_111_111
SECRET = b"review-test-secret"


async def test_pick_on_the_review_page_lays_out_the_files_and_tells_the_chat(
    qbt: QbtInstance, seeder: QbtInstance, tmp_path: Path
) -> None:
    async with FakeTelegram() as tg, FakeTmdb() as tmdb:
        port = free_port()
        public_url = f"http://127.0.0.1:{port}"
        path = tmp_path / "jellybit.db"
        migrate(path)
        store = await Store.open(path)
        metadata = MetadataSettings(
            provider="tmdb", tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url, language="en-US"
        )
        engine = Engine.build(
            store,
            settings_for(qbt),
            library=library_in(tmp_path),
            metadata=metadata,
            full_resync_every=1.0,
        )
        telegram = TelegramSettings(token=tg.token, allowed_users=(ALICE,), api_base=tg.base_url)
        i18n = I18n("en")
        door = TelegramFrontDoor.build(
            telegram, store, engine.cases, i18n, Links(public_url, SECRET)
        )
        settings = Settings(telegram=telegram, web=WebSettings(public_url=public_url))
        deps = WebDeps(store=store, cases=engine.cases, i18n=i18n, settings=settings, secret=SECRET)
        runner = web.AppRunner(build_web_app(deps, pages.setup, api.setup))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        stop = asyncio.Event()
        tasks = [
            asyncio.create_task(engine.run(stop)),
            asyncio.create_task(door.run(stop, public_url=public_url, web_secret=SECRET)),
        ]
        try:
            alice = tg.user(ALICE, language_code="en")
            made = torrent_of(tmp_path, seeder, "Dune.1080p.WEB-DL", ["Dune.1080p.WEB-DL.mkv"])
            await alice.send_text(magnet_for(made, peer=peer_of(seeder)))
            notice = await alice.wait_for(
                lambda m: m.from_bot and m.text.startswith("🤔 Downloaded"), timeout=40
            )
            pick_url = next(b.url for row in notice.buttons for b in row if b.text == "Pick")
            assert pick_url is not None

            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = await (await browser.new_context(viewport=PHONE)).new_page()
                await page.goto(pick_url)
                await shoot(page, "review-real")
                await page.click("text=This is it")
                await page.wait_for_url(f"{public_url}/download/*")
                await browser.close()

            done = await alice.wait_for(
                lambda m: m.from_bot and m.text.startswith("🎬 Done"), timeout=30
            )
            assert "Dune (2021) [tmdbid-" in done.text
            (download,) = await store.downloads.list_downloads()
            assert download.state == State.DONE
            folder = next((tmp_path / "library" / "movies").iterdir())
            video = folder / f"{folder.name}.mkv"
            source = qbt.downloads_dir / "Dune.1080p.WEB-DL" / "Dune.1080p.WEB-DL.mkv"
            assert os.stat(video).st_ino == os.stat(source).st_ino  # a hardlink
        finally:
            stop.set()
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=15)
            await runner.cleanup()
            await store.close()
