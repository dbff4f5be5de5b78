"""The composition root: ``build_application`` builds every part from the settings;
``Application.run`` runs them on one loop; ``run_application`` adds the signals.
Nothing else wires parts (tests/test_conventions.py holds that): the sandbox, the
tests and the benches build through here too, changing only ``Tuning``."""

import asyncio
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from aiohttp import web

from bot.app import TelegramFrontDoor, warm_up_models
from common.i18n import I18n
from common.logs import get_logger
from core.config import Settings
from core.notifications import OUTAGE_NOTICE
from jellybit import version
from jellybit.secrets import web_secret
from store import Store
from web import api, metrics, pages
from web.app import Setup, WebDeps, build_web_app
from worker.cpu import release_before_exit
from worker.engine import Engine, UseCases
from worker.poller import FULL_RESYNC_EVERY
from worker.supervisor import Part, Supervisor

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
# (the first pool's fork server loads them: slow on a busy machine) finishes that first.
CLIENTS_CLOSE_WITHIN = 2.5
EXIT_PART_FAILED = 3  # a part kept failing: systemd restarts jellybit (Restart=on-failure)


@dataclass(frozen=True)
class Tuning:
    """What the sandbox, the tests and the benches change; ``jellybit run`` uses the
    defaults."""

    full_resync_every: float = FULL_RESYNC_EVERY  # seconds between the poller's full listings
    outage_notice: float = OUTAGE_NOTICE  # seconds of qBittorrent silence before people are told
    web_parts: tuple[Setup, ...] = ()  # more routes (the sandbox's /sandbox page)
    # Run (quickly) before an exit that skips the cleanup: the sandbox's qbittorrent-nox.
    before_exit_now: tuple[Callable[[], None], ...] = ()
    # Each background part passes through this (tests: a part whose first run fails).
    wrap_part: Callable[[Part], Part] = field(default=lambda part: part)


@dataclass
class Application:
    """jellybit built: every part, not running yet. ``run`` once, then ``close``."""

    settings: Settings
    store: Store
    engine: Engine
    telegram: TelegramFrontDoor
    web: web.Application  # the pages, the API, /metrics, /healthz (and the webhook)
    supervisor: Supervisor
    secret: bytes
    serving: asyncio.Event = field(default_factory=asyncio.Event)  # the web server listens
    _late: list[str] = field(default_factory=list)  # parts abandoned on the way out

    @property
    def cases(self) -> UseCases:
        return self.engine.cases

    async def run(self, stop: asyncio.Event) -> int:
        """Serve the web app on ``web.listen`` and run the parts until ``stop`` (0), or
        until a part kept failing for ``GIVE_UP_AFTER`` s (EXIT_PART_FAILED)."""
        runner = web.AppRunner(self.web, access_log=None, shutdown_timeout=WEB_STOP_WITHIN)
        await runner.setup()
        running = asyncio.create_task(self.supervisor.run(stop), name="parts")
        try:
            web_settings = self.settings.web
            await web.TCPSite(runner, web_settings.host, web_settings.port).start()
            self.serving.set()
            warm_up_models()
            get_logger().info(
                "jellybit.started",
                version=version(),
                database=str(self.settings.database_path),
                web=web_settings.listen,
            )
            await self._until_stopped(stop, running)
        finally:
            if not running.done():
                running.cancel()
                await asyncio.wait([running], timeout=CANCEL_WITHIN)
            await runner.cleanup()  # bounded by its shutdown_timeout
        if not running.cancelled() and running.exception() is not None:
            get_logger().error("jellybit.exit_part_failed", reason=str(running.exception()))
            return EXIT_PART_FAILED
        return 0

    async def close(self) -> list[str]:
        """Close the clients and the store, each bounded; returns what was abandoned."""
        try:
            async with asyncio.timeout(CLIENTS_CLOSE_WITHIN):
                await self.telegram.close()
                await self.engine.close()
        except TimeoutError:
            self._late.append("clients")
        try:
            async with asyncio.timeout(STORE_CLOSE_WITHIN):
                await self.store.close()  # after the write in flight: it holds the writer lock
        except TimeoutError:
            self._late.append("store")
        return self._late

    async def _until_stopped(self, stop: asyncio.Event, running: asyncio.Task[None]) -> None:
        """Until ``stop`` or the end of the supervisor (a part gave up); then the parts
        get PARTS_STOP_WITHIN seconds to end by themselves, and are cancelled if late."""
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait([running, stopped], return_when=asyncio.FIRST_COMPLETED)
        stop.set()
        stopped.cancel()
        done, _ = await asyncio.wait([running], timeout=PARTS_STOP_WITHIN)
        if not done:
            self._late.extend(self.supervisor.running())


async def build_application(settings: Settings, *, tuning: Tuning = Tuning()) -> Application:
    """Every part of jellybit from ``settings``; the database is already migrated."""
    store = await Store.open(settings.database_path)
    secret = web_secret(settings)
    engine = Engine.build(
        store,
        settings,
        full_resync_every=tuning.full_resync_every,
        outage_notice=tuning.outage_notice,
    )
    i18n = I18n(settings.general.language)
    telegram = TelegramFrontDoor.build(settings, store, engine.cases, i18n, secret)
    parts = [*engine.parts(), *telegram.parts()]
    supervisor = Supervisor([tuning.wrap_part(part) for part in parts])
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
    app = build_web_app(deps, pages.setup, api.setup, metrics.setup, *tuning.web_parts)
    if settings.telegram.mode == "webhook":
        telegram.mount_webhook(app)
    return Application(settings, store, engine, telegram, app, supervisor, secret)


class _Signals:
    """The first SIGINT/SIGTERM sets ``stop``; a second one exits at once."""

    def __init__(self, stop: asyncio.Event, before_exit: tuple[Callable[[], None], ...]) -> None:
        self.stop = stop
        self.before_exit = before_exit
        self.backstop: threading.Timer | None = None

    def handle(self, signum: signal.Signals) -> None:
        if self.stop.is_set():
            # The person wants out now: os._exit skips the cleanup still running
            # and the interpreter's join of busy threads. Nothing to save: every
            # accepted change is committed, and SQLite's WAL survives an abrupt exit.
            get_logger().warning("jellybit.exit_now", signal=signum.name)
            self._exit(128 + signum)
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

    def _abandon(self) -> None:
        get_logger().warning("jellybit.stop_forced", after_s=STOP_WITHIN)
        self._exit(0)

    def _exit(self, code: int) -> NoReturn:
        """os._exit, after what must not outlive jellybit: the sandbox's qbittorrent-nox
        (``Tuning.before_exit_now``) and the CPU pool's named semaphores."""
        try:
            for hook in self.before_exit:
                hook()
            release_before_exit()
        finally:
            os._exit(code)


async def run_application(settings: Settings, *, tuning: Tuning = Tuning()) -> int:
    """Run until SIGINT or SIGTERM (0), or until a part kept failing for
    ``GIVE_UP_AFTER`` seconds (EXIT_PART_FAILED: systemd starts jellybit anew); the
    database is already migrated."""
    log = get_logger()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = _Signals(stop, tuning.before_exit_now)
    for signum in SIGNALS:
        loop.add_signal_handler(signum, signals.handle, signum)
    application = await build_application(settings, tuning=tuning)
    try:
        return await application.run(stop)
    finally:
        late = await application.close()
        if late:
            log.warning("jellybit.stop_late", abandoned=late)
        else:
            signals.disarm()  # nothing left behind: the process exits by itself
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)
        log.info("jellybit.stopped")
