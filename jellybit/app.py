"""The composition root: builds every part from the settings and runs them on one loop."""

import asyncio
import signal

from aiohttp import web

from bot.app import TelegramFrontDoor
from bot.links import Links
from core.config import Settings
from jellybit.i18n import I18n
from jellybit.logs import get_logger
from jellybit.secrets import web_secret
from store import Store
from web import api, pages
from web.app import WebDeps, build_web_app
from worker.engine import Engine


async def run_application(settings: Settings) -> int:
    """Run until SIGINT or SIGTERM; the database is already migrated."""
    log = get_logger()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    store = await Store.open(settings.database_path)
    secret = web_secret(settings)
    engine = Engine.build(
        store,
        settings.qbittorrent,
        library=settings.library,
        metadata=settings.metadata,
        jellyfin=settings.jellyfin,
    )
    i18n = I18n(settings.general.language)
    links = Links(settings.web.public_url, secret)
    telegram = TelegramFrontDoor.build(settings.telegram, store, engine, i18n, links)
    deps = WebDeps(
        store=store,
        engine=engine,
        i18n=i18n,
        settings=settings,
        secret=secret,
        last_poll_age=engine.poller.last_answer_age,
    )
    app = build_web_app(deps, pages.setup, api.setup)
    if settings.telegram.mode == "webhook":
        telegram.mount_webhook(app, secret)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, settings.web.host, settings.web.port).start()
    log.info("jellybit.started", database=str(settings.database_path), web=settings.web.listen)
    try:
        await asyncio.gather(
            engine.run(stop),
            telegram.run(stop, public_url=settings.web.public_url, web_secret=secret),
        )
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        await runner.cleanup()
        await store.close()
        log.info("jellybit.stopped")
    return 0
