"""The aiohttp application that ``jellybit run`` serves on ``web.listen``."""

from aiohttp import web


async def healthz(_request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


def build_web_app() -> web.Application:
    app = web.Application(client_max_size=2 * 1024 * 1024)
    app.router.add_get("/healthz", healthz)
    return app
