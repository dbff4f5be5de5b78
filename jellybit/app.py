"""The composition root: builds every part from the settings and runs them on one loop."""

import asyncio
import os
import signal
import threading
from collections.abc import Sequence

from aiohttp import web

from bot.app import TelegramFrontDoor, warm_up_models
from bot.links import Links
from common.i18n import I18n
from common.logs import get_logger
from core.config import Settings
from jellybit import version
from jellybit.secrets import web_secret
from store import Store
from web import api, metrics, pages
from web.app import Setup, WebDeps, build_web_app
from worker.engine import Engine
from worker.supervisor import Supervisor

SIGNALS = (signal.SIGINT, signal.SIGTERM)
# The first signal stops gracefully within STOP_WITHIN seconds (10 s promised,
# deploy/jellybit.service waits 15): the loops end their current step (the
# outbox flushes what it can), the web server finishes its requests, the store
# closes after the write in flight. What is late is abandoned: safe, since
# everything jellybit accepted is already committed (one transaction per write).
STOP_WITHIN = 8.5
PARTS_STOP_WITHIN = 4.5
CANCEL_WITHIN = 0.5
WEB_STOP_WITHIN = 2.0
STORE_CLOSE_WITHIN = 1.0
# The clients, the CPU pool last: a worker process still importing its parsers
# (spawned at start, slow on a busy machine) finishes that first.
CLIENTS_CLOSE_WITHIN = 2.5
EXIT_PART_FAILED = 3  # a part kept failing: systemd restarts jellybit (Restart=on-failure)


class _Signals:
    """The first SIGINT/SIGTERM sets ``stop``; a second one exits at once."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.backstop: threading.Timer | None = None

    def handle(self, signum: signal.Signals) -> None:
        if self.stop.is_set():
            # The person wants out now: os._exit skips the cleanup still running
            # and the interpreter's join of busy threads. Nothing to save: every
            # accepted change is committed, and SQLite's WAL survives an abrupt exit.
            get_logger().warning("jellybit.exit_now", signal=signum.name)
            os._exit(128 + signum)
        get_logger().info("jellybit.stopping", signal=signum.name)
        self.stop.set()
        # A thread, not the loop: it fires even when exit waits on a thread busy
        # with a late call (a hung qBittorrent request keeps its thread).
        self.backstop = threading.Timer(STOP_WITHIN, self._abandon)
        self.backstop.daemon = True
        self.backstop.start()

    def disarm(self) -> None:
        if self.backstop is not None:
            self.backstop.cancel()

    @staticmethod
    def _abandon() -> None:
        get_logger().warning("jellybit.stop_forced", after_s=STOP_WITHIN)
        os._exit(0)


async def run_application(settings: Settings, *, web_parts: Sequence[Setup] = ()) -> int:
    """Run until SIGINT or SIGTERM (0), or until a part kept failing for
    ``GIVE_UP_AFTER`` seconds (EXIT_PART_FAILED: systemd starts jellybit anew); the
    database is already migrated.

    ``web_parts`` add routes to the web app (the sandbox's ``/sandbox`` page)."""
    log = get_logger()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = _Signals(stop)
    for signum in SIGNALS:
        loop.add_signal_handler(signum, signals.handle, signum)
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
    metadata = settings.metadata
    tmdb = metadata.provider == "tmdb" and bool(metadata.tmdb_api_key)
    telegram = TelegramFrontDoor.build(
        settings.telegram, store, engine.cases, i18n, links,
        posters=metadata.tmdb_images if tmdb else "",
    )  # fmt: skip
    supervisor = Supervisor(
        [
            *engine.parts(),
            *telegram.parts(public_url=settings.web.public_url, web_secret=secret),
        ]
    )
    deps = WebDeps(
        store=store,
        cases=engine.cases,
        i18n=i18n,
        settings=settings,
        secret=secret,
        last_poll_age=engine.poller.last_answer_age,
        loops=(*engine.loops, *telegram.loops),
        parts=supervisor.health,
    )
    app = build_web_app(deps, pages.setup, api.setup, metrics.setup, *web_parts)
    if settings.telegram.mode == "webhook":
        telegram.mount_webhook(app, secret)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=WEB_STOP_WITHIN)
    await runner.setup()
    await web.TCPSite(runner, settings.web.host, settings.web.port).start()
    warm_up_models()
    log.info(
        "jellybit.started",
        version=version(),
        database=str(settings.database_path),
        web=settings.web.listen,
    )
    running = asyncio.create_task(supervisor.run(stop), name="parts")
    late: list[str] = []
    try:
        await _run_until_stopped(stop, running, supervisor, late)
    finally:
        await runner.cleanup()  # bounded by its shutdown_timeout
        await _close(engine, telegram, late)
        try:
            async with asyncio.timeout(STORE_CLOSE_WITHIN):
                await store.close()  # after the write in flight: it holds the writer lock
        except TimeoutError:
            late.append("store")
        if late:
            log.warning("jellybit.stop_late", abandoned=late)
        else:
            signals.disarm()  # nothing left behind: the process exits by itself
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)
        log.info("jellybit.stopped")
    if running.done() and not running.cancelled() and running.exception() is not None:
        log.error("jellybit.exit_part_failed", reason=str(running.exception()))
        return EXIT_PART_FAILED
    return 0


async def _run_until_stopped(
    stop: asyncio.Event, running: asyncio.Task[None], supervisor: Supervisor, late: list[str]
) -> None:
    """Until ``stop`` or the end of the supervisor (a part gave up); then the parts
    get PARTS_STOP_WITHIN seconds to end by themselves, and are cancelled if late."""
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait([running, stopped], return_when=asyncio.FIRST_COMPLETED)
    stop.set()
    stopped.cancel()
    done, _ = await asyncio.wait([running], timeout=PARTS_STOP_WITHIN)
    if not done:
        late.extend(supervisor.running())
        running.cancel()
        await asyncio.wait([running], timeout=CANCEL_WITHIN)


async def _close(engine: Engine, telegram: TelegramFrontDoor, late: list[str]) -> None:
    try:
        async with asyncio.timeout(CLIENTS_CLOSE_WITHIN):
            await telegram.close()
            await engine.close()
    except TimeoutError:
        late.append("clients")
