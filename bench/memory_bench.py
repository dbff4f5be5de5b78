"""Memory and start benchmark: ``jellybit run`` as a person runs it, measured from outside.

It starts ``python -m jellybit run`` with a config against the tests' fakes — Telegram,
qBittorrent (as 5.x, listing 500 torrents of other programs), TMDB and a Torznab
indexer — with a ``/help`` waiting in Telegram, and prints:

- the seconds from exec to the first ``/healthz`` answer and to the answer in the chat;
- at idle once settled: PSS and RSS (``/proc/<pid>/smaps_rollup``) of every process of
  its tree and the total;
- after a busy evening (``--downloads`` magnets downloaded, recognized and laid out,
  ``--searches`` searches from the chat), and again after ``--idle`` seconds of idling;
- with ``--evenings N``, the idle total after each evening (a leak grows it);
- an idle qbittorrent-nox of its own (the isolated profile) in the same run, as the ratio.

Run: ``python -m bench.memory_bench`` (the issue's figures: ``--idle 300 --evenings 5``).
"""

import argparse
import asyncio
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import qbittorrentapi

from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.qbittorrent import free_port, new_qbittorrent
from tests.support.telegram import FakeTelegram, FakeUser
from tests.support.tmdb import FakeTmdb
from tests.support.torrents import MadeTorrent, magnet_for, make_content, make_torrent
from tests.support.torznab import FakeRelease, FakeTorznab

ALICE = 111_111_111
OTHERS = 500  # torrents of other programs in qBittorrent
# Names the fake TMDB knows (laid out in the library) and names it does not (asked).
KNOWN = ["Dune.2021.1080p.WEB-DL", "Heat.1995.720p.BluRay", "Arrival.2016.1080p.BluRay",
         "Blade.Runner.2049.2017.2160p.WEB-DL", "Oppenheimer.2023.1080p.BluRay"]  # fmt: skip


@dataclass
class Figures:
    processes: list[tuple[int, float, float, str]]  # pid, PSS MiB, RSS MiB, command

    @property
    def pss(self) -> float:
        return sum(p[1] for p in self.processes)

    @property
    def rss(self) -> float:
        return sum(p[2] for p in self.processes)

    def show(self, title: str) -> None:
        print(f"{title}: {self.pss:.1f} MiB PSS, {self.rss:.1f} MiB RSS in "
              f"{len(self.processes)} processes")  # fmt: skip
        for pid, pss, rss, command in self.processes:
            print(f"    {pid:>7}  PSS {pss:6.1f}  RSS {rss:6.1f}  {command}")


def tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def figures(root: int) -> Figures:
    rows = []
    for pid in tree(root):
        try:
            fields = {
                line.split()[0]: int(line.split()[1])
                for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
            }
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        label = command.decode(errors="replace").strip()
        label = label.replace(sys.executable, "python")[:70]
        rows.append((pid, fields["Pss:"] / 1024, fields["Rss:"] / 1024, label))
    return Figures(rows)


def config(directory: Path, port: int, qbt: FakeQbittorrentServer, tg: FakeTelegram,
           tmdb: FakeTmdb, indexer: FakeTorznab) -> Path:  # fmt: skip
    path = directory / "config.toml"
    path.write_text(f'''[general]
data_dir = "{directory / "var"}"
language = "en"

[telegram]
token = "{tg.token}"
allowed_users = [{ALICE}]
api_base = "{tg.base_url}"

[qbittorrent]
url = "{qbt.url}"
username = "{qbt.username}"
password = "{qbt.password}"
poll_interval = 1

[library]
movies = "{directory / "library" / "movies"}"
shows = "{directory / "library" / "shows"}"

[metadata]
tmdb_api_key = "{tmdb.api_key}"
tmdb_base = "{tmdb.base_url}"
tmdb_images = "{tmdb.images_url}"
language = "en-US"

[web]
listen = "127.0.0.1:{port}"

[search]
torznab = [{{ name = "indexer", url = "{indexer.url}", api_key = "{indexer.api_key}" }}]
timeout = 5
''')
    return path


async def until(probe: Callable[[], Awaitable[bool]], within: float, what: str) -> float:
    began = time.monotonic()
    while not await probe():
        if time.monotonic() - began > within:
            raise TimeoutError(what)
        await asyncio.sleep(0.02)
    return time.monotonic() - began


def other_programs(qbt: FakeQbittorrentServer) -> None:
    """Torrents jellybit does not own (another category): the poller still syncs them."""
    client = qbittorrentapi.Client(
        host=qbt.url, username=qbt.username, password=qbt.password, REQUESTS_ARGS={"timeout": 30}
    )
    for start in range(0, OTHERS, 100):
        magnets = [
            f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn=Other.{n}"
            for n in range(start, start + 100)
        ]
        client.torrents_add(urls="\n".join(magnets), category="other")


async def evening(root: Path, number: int, qbt: FakeQbittorrentServer, alice: FakeUser,
                  indexer: FakeTorznab, downloads: int, searches: int) -> None:  # fmt: skip
    """Magnets sent, downloaded, recognized and laid out (or asked about), and searches."""
    made: list[MadeTorrent] = []
    for n in range(downloads):
        base = KNOWN[n % len(KNOWN)] if n % 4 == 0 else f"Home.Video.{number}.{n}"
        name = f"{base}.{number}-{n}"
        content = make_content(root / f"src{number}", f"{name}.mkv", 64 * 1024, seed=n)
        torrent = make_torrent(content, "v1")
        qbt.offer(torrent)
        made.append(torrent)
    for start in range(0, len(made), 5):
        await alice.send_text("\n".join(magnet_for(t) for t in made[start : start + 5]))
        await asyncio.sleep(0.05)
    indexer.releases[:] = [FakeRelease(title=f"Dune 2021 1080p WEB-DL {n}") for n in range(30)]
    for n in range(searches):
        await alice.send_text(f"/find Dune {n % 3 + 2019}")
        await asyncio.sleep(0.2)


async def settled(database: Path) -> bool:
    def read() -> bool:
        import sqlite3  # the bench's own read-only look

        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            busy = conn.execute(
                "SELECT count(*) FROM download WHERE state IN ('accepted', 'downloading',"
                " 'importing')"
            ).fetchone()[0]
            running = conn.execute("SELECT count(*) FROM search WHERE running = 1").fetchone()[0]
            return bool(busy == 0 and running == 0)
        finally:
            conn.close()

    return await asyncio.to_thread(read)


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="jellybit-memory-") as temp:
        root = Path(temp)
        with FakeQbittorrentServer(root / "qbt") as qbt, new_qbittorrent(root / "qbt-real") as real:
            await asyncio.to_thread(other_programs, qbt)
            async with FakeTelegram() as tg, FakeTmdb() as tmdb, FakeTorznab() as indexer:
                alice = tg.user(ALICE, language_code="en")
                port = free_port()
                path = config(root, port, qbt, tg, tmdb, indexer)
                waiting = await alice.send_text("/help")
                began = time.monotonic()
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "jellybit", "run", "--config", str(path),
                    cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
                try:
                    async with aiohttp.ClientSession() as session:

                        async def healthy() -> bool:
                            try:
                                async with session.get(
                                    f"http://127.0.0.1:{port}/healthz",
                                    timeout=aiohttp.ClientTimeout(total=1),
                                ) as response:
                                    return response.status == 200
                            except (aiohttp.ClientError, TimeoutError):
                                return False

                        healthz = await until(healthy, 60, "/healthz")
                    await until(
                        lambda: _answered(alice, waiting.message_id), 60, "the first answer"
                    )
                    answer = time.monotonic() - began
                    healthz_s = healthz
                    print(f"start: /healthz {healthz_s:.2f} s after exec, "
                          f"the waiting /help answered {answer:.2f} s after exec")  # fmt: skip
                    await asyncio.sleep(args.settle)
                    idle = figures(process.pid)
                    idle.show("idle")
                    assert real.pid is not None
                    qbt_idle = figures(real.pid)
                    qbt_idle.show("qbittorrent-nox, idle")
                    print(
                        f"ratio jellybit / qbittorrent-nox at idle: {idle.pss / qbt_idle.pss:.2f}x"
                    )
                    totals = [idle.pss]
                    database = root / "var" / "jellybit.db"
                    for number in range(1, args.evenings + 1):
                        await evening(
                            root, number, qbt, alice, indexer, args.downloads, args.searches
                        )
                        await until(lambda: settled(database), 600, "the evening's work")
                        busy = figures(process.pid)
                        busy.show(f"evening {number}: just after")
                        await asyncio.sleep(args.idle)
                        after = figures(process.pid)
                        after.show(f"evening {number}: after {args.idle:.0f} s idle")
                        totals.append(after.pss)
                    if args.evenings:
                        growth = (totals[-1] - totals[1]) / totals[1] * 100
                        print("idle totals (MiB PSS): " + ", ".join(f"{t:.1f}" for t in totals))
                        print(f"growth from the first evening to the last: {growth:+.1f} %")
                finally:
                    process.send_signal(signal.SIGTERM)
                    try:
                        await asyncio.wait_for(process.wait(), 30)
                    except TimeoutError:
                        process.kill()


async def _answered(alice: FakeUser, after: int) -> bool:
    return any(m.from_bot and m.message_id > after for m in alice.messages())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--settle", type=float, default=10.0, help="seconds before idle figures")
    parser.add_argument("--downloads", type=int, default=200)
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--idle", type=float, default=75.0, help="seconds idle after an evening")
    parser.add_argument("--evenings", type=int, default=1)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
