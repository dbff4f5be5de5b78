"""Web benchmark: pages and API over loopback with 10 000 downloads.

10 000 downloads (20 000 infohashes: v1 + v2 each) in a real SQLite file,
the real aiohttp application on a local port, 8 concurrent clients.
p50/p95 latency and requests per second of `/`, a search by infohash prefix,
`/download/{id}` and `/api/downloads`; baseline in the same run: `/healthz`.
Targets: p95 < 50 ms for the list and search, < 20 ms for the card.

Run: ``make bench``.
"""

import asyncio
import secrets
import sqlite3
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import aiohttp
from aiohttp import web

from core import clock
from core.config import QbittorrentSettings, Settings, TelegramSettings, WebSettings
from core.ids import Id, new_id
from core.links import sign_user_token
from jellybit.i18n import I18n
from jellybit.logs import configure_logging
from store import Store
from store.migrate import migrate
from tests.support.qbittorrent import free_port
from web import api, pages
from web.app import WebDeps, build_web_app
from worker.engine import Engine

DOWNLOADS = 10_000
CLIENTS = 8
REQUESTS = 400  # per endpoint
USER = 111
TOKEN = "bench-token"


def seed(path: Path) -> list[tuple[Id, str, str]]:
    now = clock.now()
    rows = [(new_id(), secrets.token_hex(20), secrets.token_hex(32)) for _ in range(DOWNLOADS)]
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO download (id, name, state, source, source_ref, created_at, updated_at)"
            " VALUES (?, ?, 'done', 'telegram', '', ?, ?)",
            [
                (i, f"Some.Movie.{n}.2021.1080p.WEB-DL", now, now)
                for n, (i, _, _) in enumerate(rows)
            ],
        )
        conn.executemany(
            "INSERT INTO download_infohash (download_id, infohash, kind, created_at)"
            " VALUES (?, ?, ?, ?)",
            [(i, h, "v1", now) for i, h, _ in rows] + [(i, h, "v2", now) for i, _, h in rows],
        )
    conn.close()
    return rows


async def measure(
    session: aiohttp.ClientSession, urls: list[str], headers: dict[str, str]
) -> tuple[list[float], float]:
    latencies: list[float] = []
    queue = list(urls)

    async def client() -> None:
        while queue:
            url = queue.pop()
            started = time.monotonic()
            async with session.get(url, headers=headers) as response:
                await response.read()
                assert response.status == 200, (url, response.status)
            latencies.append((time.monotonic() - started) * 1000)

    started = time.monotonic()
    await asyncio.gather(*(client() for _ in range(CLIENTS)))
    return latencies, len(urls) / (time.monotonic() - started)


async def run(tmp: Path) -> None:
    path = tmp / "bench.db"
    migrate(path)
    rows = seed(path)
    store = await Store.open(path)
    settings = replace(
        Settings(),
        telegram=replace(TelegramSettings(), allowed_users=(USER,)),
        web=replace(WebSettings(), api_token=TOKEN),
    )
    engine = Engine.build(store, QbittorrentSettings(url="http://127.0.0.1:9"))
    secret = b"bench-secret"
    deps = WebDeps(store=store, engine=engine, i18n=I18n("en"), settings=settings, secret=secret)
    app = build_web_app(deps, pages.setup, api.setup)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            token = sign_user_token(secret, USER, int(time.time()))
            async with session.get(f"{base}/?t={token}") as response:  # the session cookie
                assert response.status == 200, response.status
            pick = [rows[n * 37 % DOWNLOADS] for n in range(REQUESTS)]
            cases = [
                ("/healthz (baseline)", [f"{base}/healthz"] * REQUESTS, {}),
                ("/ (list)", [f"{base}/"] * REQUESTS, {}),
                ("search by infohash prefix", [f"{base}/?q={v2[:10]}" for _, _, v2 in pick], {}),
                ("/download/{id} (card)", [f"{base}/download/{i}" for i, _, _ in pick], {}),
                (
                    "/api/downloads",
                    [f"{base}/api/downloads"] * REQUESTS,
                    {"Authorization": f"Bearer {TOKEN}"},
                ),
            ]
            baseline = 0.0
            for label, urls, headers in cases:
                latencies, rps = await measure(session, urls, headers)
                cuts = statistics.quantiles(latencies, n=100)
                baseline = baseline or cuts[94]
                print(
                    f"{label:<28} p50 {cuts[49]:6.1f} ms  p95 {cuts[94]:6.1f} ms  {rps:6.0f} req/s"
                    f"  ({cuts[94] / baseline:.1f}x baseline p95)"
                )
    finally:
        await runner.cleanup()
        await engine.qbt.close()
        await store.close()
    print("targets: p95 < 50 ms for list and search, < 20 ms for the card")


def main() -> None:
    configure_logging(level="warning")
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(Path(tmp)))


if __name__ == "__main__":
    main()
