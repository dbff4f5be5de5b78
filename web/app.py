"""The aiohttp application that ``jellybit run`` serves on ``web.listen``:
the pages the bot links to, the JSON API (a sub-app under ``/api``), health,
and in webhook mode the Telegram webhook (mounted by the composition root at /telegram/webhook)."""

from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

from common.i18n import I18n
from core.config import Settings
from store import Store
from worker.engine import UseCases
from worker.pacing import Loop
from worker.supervisor import PartHealth


@dataclass(frozen=True)
class WebDeps:
    """What the handlers use; built by the composition root, no globals."""

    store: Store
    cases: UseCases
    i18n: I18n
    settings: Settings
    secret: bytes  # signs bot links, sessions and CSRF tokens
    last_poll_age: Callable[[], float | None]  # seconds since qBittorrent answered
    loops: tuple[Loop, ...]  # the background loops, for /healthz
    parts: Callable[[], list[PartHealth]]  # the supervisor's view of each part


DEPS = web.AppKey("deps", WebDeps)
Setup = Callable[[web.Application], None]


async def healthz(request: web.Request) -> web.Response:
    deps = request.app[DEPS]
    try:
        await deps.store.downloads.list_downloads(limit=1)
        database = True
    except Exception:  # any failure here is what the monitor must see
        database = False
    age = deps.last_poll_age()
    loops = {
        health.name: {"failed_ticks": health.failed_ticks, "failing": health.failing}
        for health in (loop.health() for loop in deps.loops)
    }
    parts = {
        health.name: {
            "failing": health.failing,
            "since": health.since,
            "restarts": health.restarts,
            "reason": health.reason,
        }
        for health in deps.parts()
    }
    ok = database and not any(part["failing"] for part in parts.values())
    body = {
        "ok": ok,
        "database": database,
        "qbittorrent_last_poll_age_s": age,
        "parts": parts,
        "loops": loops,
    }
    return web.json_response(body, status=200 if ok else 503)


def build_web_app(deps: WebDeps, *parts: Setup) -> web.Application:
    """The root application; ``parts`` add the pages and the API (web/pages.py,
    web/api.py)."""
    app = web.Application(client_max_size=12 * 1024 * 1024)  # .torrent uploads: 10 MiB
    app[DEPS] = deps
    app.router.add_get("/healthz", healthz)
    for part in parts:
        part(app)
    return app
