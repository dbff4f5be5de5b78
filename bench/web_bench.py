"""Web benchmark: pages and API over loopback with 10 000 downloads.

10 000 downloads (20 000 infohashes: v1 + v2 each) in a real SQLite file,
the real aiohttp application in a process of its own on a local port, and 8
concurrent clients in this one.
Each download is a title of the library (10 000 titles, a linked file each).
p50/p95 latency and requests per second of `/`, a search by infohash prefix,
`/download/{id}`, `/api/downloads`, `/library`, a library search, `/title/{id}`
and `/api/titles`; baseline in the same run: `/healthz`.
Targets: p95 < 50 ms for the lists, searches and the title page, < 20 ms for the card.

Run: ``make bench``.
"""

import asyncio
import multiprocessing
import secrets
import sqlite3
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import aiohttp
from aiohttp import web

from common.logs import configure_logging
from core import clock
from core.config import (
    GeneralSettings,
    QbittorrentSettings,
    Settings,
    TelegramSettings,
    WebSettings,
)
from core.ids import Id, new_id
from core.links import sign_user_token
from jellybit.app import build_application
from store.migrate import migrate
from tests.support.qbittorrent import free_port

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
        titles = [(new_id(), n, i) for n, (i, _, _) in enumerate(rows)]
        conn.executemany(
            "INSERT INTO title (id, kind, provider, provider_id, name, year, folder, created_at,"
            " updated_at) VALUES (?, 'movie', 'tmdb', ?, ?, 2021, ?, ?, ?)",
            [
                (t, str(n), f"Some Movie {n}", f"Some Movie {n} (2021) [tmdbid-{n}]", now, now)
                for t, n, _ in titles
            ],
        )
        conn.executemany(
            "UPDATE download SET title_id = ? WHERE id = ?", [(t, i) for t, _, i in titles]
        )
        conn.executemany(
            "INSERT INTO file_link (id, download_id, apply_batch_id, source_path, target_path,"
            " created_at, method, inode, device, linked_at)"
            " VALUES (?, ?, ?, 'Some.Movie.mkv', ?, ?, 'hardlink', 1, 1, ?)",
            [
                (new_id(), i, new_id(), f"/media/movies/Some Movie {n} (2021) [tmdbid-{n}]/"
                 f"Some Movie {n} (2021) [tmdbid-{n}].mkv", now, now)
                for t, n, i in titles
            ],
        )  # fmt: skip
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


def serve(path: Path, port: int, secret: bytes) -> None:
    """The application in a process of its own, as in production: the clients'
    work must not share its event loop (or its core)."""
    configure_logging(level="warning")

    async def app() -> web.Application:
        settings = replace(
            Settings(),
            general=replace(GeneralSettings(), data_dir=path.parent, language="en"),
            qbittorrent=QbittorrentSettings(url="http://127.0.0.1:9"),
            telegram=replace(TelegramSettings(), token="1:bench", allowed_users=(USER,)),
            web=replace(WebSettings(), api_token=TOKEN, secret=secret.decode()),
        )
        return (await build_application(settings)).web  # the pages only: no part runs

    web.run_app(app(), host="127.0.0.1", port=port, access_log=None, print=None)


async def wait_until_up(base: str) -> None:
    async with aiohttp.ClientSession() as session:
        for _ in range(200):
            try:
                async with session.get(f"{base}/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)
    raise TimeoutError("the web server did not start")


async def run(base: str, rows: list[tuple[Id, str, str]], secret: bytes) -> None:
    await wait_until_up(base)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        token = sign_user_token(secret, USER, int(time.time()))
        async with session.get(f"{base}/?t={token}") as response:  # the session cookie
            assert response.status == 200, response.status
        pick = [rows[n * 37 % DOWNLOADS] for n in range(REQUESTS)]
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        cases = [
            ("/healthz (baseline)", [f"{base}/healthz"] * REQUESTS, {}),
            ("/ (list)", [f"{base}/"] * REQUESTS, {}),
            ("search by infohash prefix", [f"{base}/?q={v2[:10]}" for _, _, v2 in pick], {}),
            ("/download/{id} (card)", [f"{base}/download/{i}" for i, _, _ in pick], {}),
            ("/api/downloads", [f"{base}/api/downloads"] * REQUESTS, bearer),
            ("/library", [f"{base}/library"] * REQUESTS, {}),
            (
                "library search",
                [f"{base}/library?q=Movie {n * 37 % DOWNLOADS}" for n in range(REQUESTS)],
                {},
            ),
            (
                "/title/{id} (inventory)",
                [f"{base}/title/{t}" for t in _titles(pick)],
                {},
            ),
            ("/api/titles", [f"{base}/api/titles"] * REQUESTS, bearer),
        ]
        baseline = 0.0
        for label, urls, headers in cases:
            await measure(session, urls[:40], headers)  # warm-up: templates compile once
            latencies, rps = await measure(session, urls, headers)
            cuts = statistics.quantiles(latencies, n=100)
            baseline = baseline or cuts[94]
            print(
                f"{label:<28} p50 {cuts[49]:6.1f} ms  p95 {cuts[94]:6.1f} ms  {rps:6.0f} req/s"
                f"  ({cuts[94] / baseline:.1f}x baseline p95)"
            )
    print("targets: p95 < 50 ms for lists, searches and the title page, < 20 ms for the card")


def _titles(pick: list[tuple[Id, str, str]]) -> list[str]:
    """The title ids of the picked downloads (read from the database file)."""
    conn = sqlite3.connect(DATABASE[0])
    try:
        return [
            conn.execute("SELECT title_id FROM download WHERE id = ?", (i,)).fetchone()[0]
            for i, _, _ in pick
        ]
    finally:
        conn.close()


DATABASE: list[Path] = []


def main() -> None:
    configure_logging(level="warning")
    secret = b"bench-secret"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "jellybit.db"
        migrate(path)
        rows = seed(path)
        DATABASE.append(path)
        port = free_port()
        server = multiprocessing.get_context("spawn").Process(
            target=serve, args=(path, port, secret), daemon=True
        )
        server.start()
        try:
            asyncio.run(run(f"http://127.0.0.1:{port}", rows, secret))
        finally:
            server.terminate()
            server.join(5)


if __name__ == "__main__":
    main()
