"""Crash resilience: the real ``jellybit run`` is killed with SIGKILL at random
moments while magnets arrive through a fake Telegram, real downloads complete in
a real qbittorrent-nox and imports hardlink files into the library; it is
restarted each time. At the end nothing is lost, doubled or half-applied.

The randomness is seeded: the seed is printed, and ``JELLYBIT_CRASH_SEED=<seed>``
replays the same schedule (``JELLYBIT_CRASH_ITERATIONS`` changes the number of
kills). What it proves is in docs/resilience.md.
"""

import asyncio
import itertools
import json
import os
import random
import secrets
import signal
import sqlite3
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.app import WEBHOOK_PATH
from core import clock
from tests.support.jellybit_process import (
    ForkServer,
    JellybitConfig,
    JellybitProcess,
    start_time,
)
from tests.support.qbittorrent import QbtInstance
from tests.support.telegram import FakeTelegram, FakeUser, Message
from tests.support.torrents import (
    MadeTorrent,
    magnet_for,
    make_content,
    make_torrent,
    remind_of_the_seeder,
    seed,
)
from tests.support.torrents import seeder_peer as peer_of

ALICE = 111_111_111
KiB, MiB = 1024, 1024 * 1024
ITERATIONS = int(os.environ.get("JELLYBIT_CRASH_ITERATIONS") or 30)
# Against qBittorrent 5.x the short form: the 4.5 run covers the kill points in
# depth; this one shows they hold with 5.x's answers and polling as well.
SHORT_ITERATIONS = int(os.environ.get("JELLYBIT_CRASH_ITERATIONS") or 10)
SWARM_GRACE = 20.0
SETTLE_WITHIN = 100.0  # the re-add of a download killed between commit and add waits 30 s
ACTIVE = ("accepted", "downloading", "stuck", "review", "importing")
UNSETTLED = ("accepted", "downloading", "importing")
TERMINAL = ("failed", "removed")

# (content name, files inside it or None for a single file, bytes, seeder's upload limit)
# Slow ones are still downloading across several kills; the season packs make
# batches of several links (a kill can land between two of them); a movie
# without a year goes to review (its notification is "needs review").
POOL: list[tuple[str, list[str] | None, int, int | None]] = [
    ("Arrival.2016.1080p.BluRay.x264.mkv", None, 1 * MiB, None),
    ("Heat.1995.720p.BluRay.mkv", None, 2 * MiB, 512 * KiB),
    (
        "Dune.2021.1080p.WEB-DL",
        ["Dune.2021.1080p.WEB-DL.mkv", "Dune.2021.1080p.WEB-DL.en.srt"],
        2 * MiB,
        768 * KiB,
    ),
    (
        "Show.Name.S01.1080p.WEB",
        [f"Show.Name.S01E0{n}.1080p.WEB.mkv" for n in (1, 2, 3, 4)],
        2 * MiB,
        None,
    ),
    (
        "Other.Show.S02.720p.HDTV",
        [f"Other.Show.S02E{n:02d}.720p.HDTV.mkv" for n in range(1, 7)],
        3 * MiB,
        1 * MiB,
    ),
    ("Home.Video.Birthday.mkv", None, 1 * MiB, None),
    ("Alien.1979.Directors.Cut.1080p.mkv", None, 512 * KiB, None),
    ("Blade.Runner.1982.720p.BluRay.mkv", None, 3 * MiB, 1 * MiB),
]


@dataclass
class Sent:
    message: Message
    torrents: list[MadeTorrent]  # a message may carry several magnets


def make_pool(root: Path, seeder: QbtInstance) -> list[MadeTorrent]:
    made: list[MadeTorrent] = []
    for number, (name, names, size, up_limit) in enumerate(POOL):
        content = make_content(
            root, name, size, names=names, seed=secrets.randbits(32) + number
        )  # bytes of this run only: the seeder may be shared by the module
        torrent = make_torrent(content, "v1" if number % 2 else "hybrid")
        seed(seeder, torrent, up_limit=up_limit)
        made.append(torrent)
    return made


async def test_sigkill_at_random_moments_loses_doubles_and_half_applies_nothing(
    qbt: QbtInstance, seeder: QbtInstance, fork_server: ForkServer, tmp_path: Path
) -> None:
    iterations = SHORT_ITERATIONS if qbt.client().app_version().startswith("v5") else ITERATIONS
    seed_value = int(os.environ.get("JELLYBIT_CRASH_SEED") or secrets.randbits(32))
    print(f"crash test: seed {seed_value} (JELLYBIT_CRASH_SEED={seed_value} to replay)")
    rng = random.Random(seed_value)
    pool = make_pool(tmp_path / "content", seeder)
    peer = peer_of(seeder)
    async with FakeTelegram() as tg:
        alice = tg.user(ALICE, language_code="en")
        config = JellybitConfig(
            directory=tmp_path / "jellybit",
            qbt=qbt,
            telegram_api_base=tg.base_url,
            telegram_token=tg.token,
            allowed_users=(ALICE,),
            category=f"crash-{seed_value}",
        )
        jellybit = JellybitProcess(config, fork_server=fork_server)  # warm: see docs
        sent: list[Sent] = []
        startups: list[float] = []
        left: dict[int, int] = {}  # children of killed instances (guessit process, …): start
        starts: list[float] = []  # when each run began (clock.monotonic); all but the last killed
        importing = 0  # kills that hit a download in `importing`
        mid_batch = 0  # kills that left a batch planned but not fully linked
        began = clock.monotonic()
        try:
            for _ in range(iterations):
                if rng.random() < 0.2:  # sent while jellybit is down: handled at the start
                    sent.append(await send_magnets(alice, rng, pool, peer))
                starts.append(clock.monotonic())
                await jellybit.start()
                if rng.random() < 0.15:  # killed while starting up
                    await asyncio.sleep(rng.uniform(0.0, 1.0))
                else:
                    startups.append(await jellybit.wait_healthy())
                    for _ in range(rng.randint(0, 3)):
                        await asyncio.sleep(rng.uniform(0.0, 0.3))
                        sent.append(await send_magnets(alice, rng, pool, peer))
                    if rng.random() < 0.3:  # aim at a batch: kill as soon as one is planned
                        await until_planned(config.database, within=2.5)
                    else:
                        await asyncio.sleep(rng.uniform(0.05, 1.5))
                left |= jellybit.children()
                await jellybit.kill()
                importing += bool(count(config.database, IMPORTING))
                mid_batch += bool(count(config.database, PLANNED))
            loop_seconds = clock.monotonic() - began
            # The last run is a cold `python -m jellybit run`, as a person starts it.
            jellybit.fork_server = None
            starts.append(clock.monotonic())
            await jellybit.start()
            cold_startup = await jellybit.wait_healthy()
            settle_seconds, waived = await settle(
                config, tg, within=SETTLE_WITHIN, jellybit=jellybit, qbt=qbt, peer=peer
            )
            assert await jellybit.stop() == 0, jellybit.log_tail()
            orphans = await still_alive(left, within=10.0)
        finally:
            await jellybit.close()
            for pid, started in left.items():
                if start_time(pid) == started:
                    os.kill(pid, signal.SIGKILL)
        print(
            f"crash test: {iterations} kills in {loop_seconds:.1f} s, {len(sent)} magnets sent, "
            f"settled in {settle_seconds:.1f} s; startup to /healthz: warm median "
            f"{statistics.median(startups):.2f} s, max {max(startups):.2f} s; "
            f"cold {cold_startup:.2f} s; kills during an import: {importing}, "
            f"in the middle of a batch: {mid_batch}"
        )
        assert orphans == set(), "processes of a killed jellybit are still running"
        check_invariants(config, qbt, tg, alice, sent, starts, waived)


async def send_magnets(
    alice: FakeUser, rng: random.Random, pool: list[MadeTorrent], peer: str
) -> Sent:
    """One message with one magnet, or (a third of the time) two to four."""
    torrents = rng.sample(pool, rng.randint(2, 4)) if rng.random() < 0.33 else [rng.choice(pool)]
    text = "\n".join(magnet_for(torrent, peer=peer) for torrent in torrents)
    return Sent(await alice.send_text(text), torrents)


IMPORTING = "SELECT count(*) FROM download WHERE state = 'importing'"
PLANNED = "SELECT count(*) FROM file_link WHERE linked_at IS NULL AND removed_at IS NULL"


def count(database: Path, query: str) -> int:
    if not database.exists():
        return 0
    with closing_db(database) as db:
        try:
            return int(db.execute(query).fetchone()[0])
        except sqlite3.OperationalError as error:
            if "no such" not in str(error):
                raise
            return 0  # killed while its first start migrated the database: no rows yet


async def until_planned(database: Path, *, within: float) -> None:
    """Return once a batch is planned and not fully linked, or after ``within`` s."""
    deadline = clock.monotonic() + within
    while True:
        if count(database, PLANNED) or clock.monotonic() > deadline:
            return
        await asyncio.sleep(0.005)


async def still_alive(pids: dict[int, int], *, within: float) -> set[int]:
    """The ones of ``pids`` (PID -> start time) still running after ``within`` seconds."""
    deadline = clock.monotonic() + within
    while True:
        alive = {pid for pid, started in pids.items() if start_time(pid) == started}
        if not alive or clock.monotonic() > deadline:
            return alive
        await asyncio.sleep(0.1)


async def settle(
    config: JellybitConfig,
    tg: FakeTelegram,
    *,
    within: float,
    jellybit: JellybitProcess,
    qbt: QbtInstance,
    peer: str,
) -> tuple[float, set[str]]:
    """Wait until every update is handled, no download is on its way, the outbox is empty.
    After SWARM_GRACE, a `downloading` download whose torrent qBittorrent itself holds
    stalled short of complete is waived (returned): this one-seeder swarm sometimes stops
    feeding a torrent for minutes (seen on 5.x under load, the seeder re-added every
    0.5 s); jellybit follows it as it should, which check_invariants still checks."""
    began = clock.monotonic()
    last = ""
    waived: set[str] = set()
    while clock.monotonic() - began < within:
        if not qbt.running:
            # qBittorrent 5.x itself died under the kills (its own crash, rarely, about 1
            # run in 10 here): started again on its profile, as its service manager
            # would; jellybit must ride that outage too and still lose nothing.
            print(f"crash test: qbittorrent-nox exited ({qbt.process and qbt.process.poll()})")
            qbt.start()
        remind_of_the_seeder(qbt.client(), peer)
        with closing_db(config.database) as db:
            if clock.monotonic() - began > SWARM_GRACE:
                waived = stalled_in_qbittorrent(db, qbt)
            rows = db.execute(f"SELECT * FROM download WHERE state IN {UNSETTLED}").fetchall()
            unsettled = [dict(row) for row in rows if row["id"] not in waived]
            moving = len(unsettled)
            unsent = db.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0]
            unhandled = db.execute(
                "SELECT count(*) FROM inbox WHERE handled_at IS NULL"
            ).fetchone()[0]
        pending = len(tg.pending_updates)
        last = (
            f"{moving} downloads moving, {unsent} notifications unsent, {pending} updates "
            f"at Telegram, {unhandled} in the inbox\nmoving: {unsettled}"
        )
        if moving == unsent == pending == unhandled == 0:
            if waived:
                print(f"crash test: waived as the swarm's, stalled in qBittorrent: {waived}")
            return clock.monotonic() - began, waived
        await asyncio.sleep(0.5)
    seen = [(t.hash, t.state, t.progress, t.category) for t in qbt.client().torrents_info()]
    raise AssertionError(
        f"not settled within {within} s: {last}\nqBittorrent: {seen}\n{jellybit.log_tail()}"
    )


def stalled_in_qbittorrent(db: sqlite3.Connection, qbt: QbtInstance) -> set[str]:
    """`downloading` downloads whose torrent qBittorrent lists stalled, short of complete."""
    stalled = {
        h
        for info in qbt.client().torrents_info()
        if info.get("state") == "stalledDL" and info.progress < 1
        for h in (info.get("infohash_v1"), info.get("infohash_v2"))
        if h
    }
    rows = db.execute(
        "SELECT i.download_id, i.infohash FROM download_infohash AS i "
        "JOIN download AS d ON d.id = i.download_id WHERE d.state = 'downloading'"
    )
    return {row["download_id"] for row in rows if row["infohash"] in stalled}


class closing_db:
    """A read-only sqlite3 connection to jellybit's database, closed on exit."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        self.conn.row_factory = sqlite3.Row

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *_: object) -> None:
        self.conn.close()


def check_invariants(
    config: JellybitConfig,
    qbt: QbtInstance,
    tg: FakeTelegram,
    alice: FakeUser,
    sent: list[Sent],
    starts: list[float],
    waived: set[str],
) -> None:
    with closing_db(config.database) as db:
        assert [tuple(row) for row in db.execute("PRAGMA integrity_check")] == [("ok",)]
        assert [tuple(row) for row in db.execute("PRAGMA foreign_key_check")] == []
        downloads = {row["id"]: row for row in db.execute("SELECT * FROM download")}
        hashes: dict[str, set[str]] = {}
        for row in db.execute("SELECT download_id, infohash FROM download_infohash"):
            hashes.setdefault(row["download_id"], set()).add(row["infohash"])
        links = db.execute("SELECT * FROM file_link").fetchall()
        done_why = {
            row["download_id"]: json.loads(row["reason"])["code"]
            for row in db.execute(
                "SELECT download_id, reason FROM state_transition "
                "WHERE to_state = 'done' ORDER BY id"
            )
        }
        outbox = db.execute("SELECT * FROM outbox").fetchall()
        status_rows = db.execute(
            "SELECT download_id, count(*) AS n FROM telegram_message "
            "WHERE role = 'status' GROUP BY download_id"
        ).fetchall()
    assert downloads, "no magnet was ever accepted: the schedule did nothing"
    states = Counter(row["state"] for row in downloads.values())
    print(
        f"crash test: downloads {dict(states)}, {len(links)} file_link rows, "
        f"{len(outbox)} notifications"
    )

    # Every magnet sent is a download (an update is acknowledged only once handled).
    known = set().union(*hashes.values())
    lost = [t.name for s in sent for t in s.torrents if not hashes_of(t) & known]
    assert not lost, f"magnets sent but never ingested: {lost}"

    # Every accepted magnet is in qBittorrent, or terminal with a reason.
    listed = qbt.client().torrents_info()
    in_qbt = {h for info in listed for h in (info.get("infohash_v1"), info.get("infohash_v2")) if h}
    for download_id, row in downloads.items():
        if row["state"] in TERMINAL:
            assert row["error"], f"{download_id} is {row['state']} without a reason"
        else:
            allowed = ("done", "review") + (("downloading",) if download_id in waived else ())
            assert row["state"] in allowed, f"{download_id} still {row['state']}"
            assert hashes[download_id] & in_qbt, f"{download_id} ({row['name']}) not in qBittorrent"

    # Nothing in jellybit's category of qBittorrent is unknown to jellybit.
    strays = [
        info["name"]
        for info in listed
        if info.get("category") == config.category
        and not {info.get("infohash_v1"), info.get("infohash_v2")} & known
    ]
    assert strays == []

    # No infohash has two active downloads.
    owners = Counter(
        h
        for download_id, row in downloads.items()
        if row["state"] in ACTIVE
        for h in hashes[download_id]
    )
    assert [h for h, n in owners.items() if n > 1] == []

    # No batch is half-applied: the library is exactly what the file_link rows say.
    current = [row for row in links if row["removed_at"] is None]
    assert [row["target_path"] for row in current if row["linked_at"] is None] == []
    for row in current:
        save_path = downloads[row["download_id"]]["save_path"]
        target, source = Path(row["target_path"]), Path(save_path) / row["source_path"]
        assert target.exists(), f"linked but missing: {target}"
        assert target.stat().st_ino == source.stat().st_ino == row["inode"], target
    explained = {row["target_path"] for row in current}
    in_library = {
        str(path) for root in (config.movies, config.shows) for path in root.rglob("*")
        if not path.is_dir()
    }  # fmt: skip
    assert sorted(in_library - explained) == [], "library files that no file_link row explains"
    # Every done download has its files in the library: linked by itself, or (kept) a
    # torrent sent again after its first copy was done, whose files the library holds.
    done = {d for d, row in downloads.items() if row["state"] == "done"}
    linked = {row["download_id"] for row in current}
    assert linked <= done
    kept = done - linked
    assert [d for d in kept if done_why.get(d) != "import.kept"] == []
    linked_names = {downloads[d]["name"] for d in linked}
    assert [downloads[d]["name"] for d in kept if downloads[d]["name"] not in linked_names] == []

    # At most one status message per download.
    assert [row["download_id"] for row in status_rows if row["n"] > 1] == []

    # Every reply and notification was delivered exactly once: each outbox row became
    # one message in the chat, and the chat has no other message from the bot, except
    # the one documented gap (docs/resilience.md): a copy that Telegram accepted right
    # before a SIGKILL, before jellybit could record it, is sent again.
    assert [
        row["id"] for row in outbox if row["sent_at"] is None or row["message_id"] is None
    ] == []
    recorded = Counter(row["message_id"] for row in outbox)
    assert [message_id for message_id, n in recorded.items() if n > 1] == []
    # Every message the bot sent, those a newer message of their download superseded
    # (deleted from the chat) too.
    messages = alice.bot_messages(deleted=True)
    accepted = [call for call in tg.calls_to("sendMessage") if call.status == 200]
    assert len(accepted) == len(messages)  # the k-th accepted sendMessage is the k-th message
    calls = dict(zip((m.message_id for m in messages), accepted, strict=True))
    arrived = {message_id: call.at for message_id, call in calls.items()}
    # As sent: a status message is edited later, so its text now is not what was sent.
    sent_as = {message_id: call.params.get("text") for message_id, call in calls.items()}
    assert recorded.keys() <= {m.message_id for m in messages}
    unrecorded = [m for m in messages if m.message_id not in recorded]

    def resent(m: Message) -> bool:
        """Telegram took ``m``, a kill stopped jellybit before it recorded that, and
        the next run sent it again and recorded the copy: ``m`` came from a run that was
        killed (it arrived after that run began and before the next one did — a request
        in flight may arrive just after the SIGKILL), its copy from a later run."""
        twins = [
            r
            for r in messages
            if r.message_id > m.message_id
            and r.message_id in recorded
            and sent_as[r.message_id] == sent_as[m.message_id]
            and r.reply_to_message_id == m.reply_to_message_id
        ]
        if not twins:
            return False
        runs = itertools.pairwise(starts)  # every run but the last was killed
        copy = arrived[twins[0].message_id]
        return any(
            began <= arrived[m.message_id] < next_began <= copy for began, next_began in runs
        )

    in_the_gap = [m for m in unrecorded if resent(m)]
    assert unrecorded == in_the_gap, f"messages sent more than once:\n{alice.render()}"
    print(f"crash test: {len(in_the_gap)} messages sent again after a kill in the gap")

    # Every magnet of every message was answered once (its twin in the gap aside).
    twins = Counter(m.reply_to_message_id for m in in_the_gap)
    for each in sent:
        replies = [m for m in messages if m.reply_to_message_id == each.message.message_id]
        expected_replies = len(each.torrents) + twins[each.message.message_id]
        assert len(replies) == expected_replies, (
            f"message {each.message.message_id} with {len(each.torrents)} magnets got "
            f"{len(replies)} replies\n{alice.render()}"
        )

    announced = Counter(
        (row["download_id"], row["kind"]) for row in outbox if row["kind"] != "reply"
    )
    assert [key for key, n in announced.items() if n > 1] == []
    expected = {(d, "done") for d in done} | {
        (d, "review") for d, row in downloads.items() if row["state"] == "review"
    }
    assert expected <= set(announced)


def hashes_of(torrent: MadeTorrent) -> set[str]:
    return {h for h in (torrent.v1, torrent.v2) if h is not None}


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_a_magnet_is_not_lost_when_jellybit_dies_right_after_confirming_it(
    qbt: QbtInstance, fork_server: ForkServer, tmp_path: Path, mode: str
) -> None:
    """jellybit confirms an update to Telegram (polling: the next getUpdates'
    offset; webhook: the answer to the POST) only once it is stored in the inbox:
    killed at that moment, the magnet becomes a download after the restart.
    (aiogram's defaults handle updates in the background and confirm them at
    once; a crash in between lost the message.)"""
    async with FakeTelegram() as tg:
        alice = tg.user(ALICE, language_code="en")
        config = JellybitConfig(
            directory=tmp_path / "jellybit",
            qbt=qbt,
            telegram_api_base=tg.base_url,
            telegram_token=tg.token,
            allowed_users=(ALICE,),
            category=f"crash-confirm-{mode}",
            telegram_mode=mode,
            public_url="https://jellybit.example.org" if mode == "webhook" else "",
        )
        tg.webhook_target = f"{config.web_url}{WEBHOOK_PATH}" if mode == "webhook" else None
        jellybit = JellybitProcess(config, fork_server=fork_server)
        infohash = secrets.token_hex(20)
        try:
            await jellybit.start()
            await jellybit.wait_healthy()
            if mode == "webhook":
                await eventually(lambda: tg.webhook_url is not None, "setWebhook")
            await alice.send_text(f"magnet:?xt=urn:btih:{infohash}&dn=Lost&x.pe=127.0.0.1:1")
            update_id = tg.pending_updates[-1]["update_id"]

            def confirmed() -> bool:
                if mode == "webhook":
                    return (update_id, 200) in tg.webhook_deliveries
                return any(
                    int(call.params.get("offset") or 0) > update_id
                    for call in tg.calls_to("getUpdates")
                )

            deadline = clock.monotonic() + 20
            while not confirmed():
                assert clock.monotonic() < deadline, "the update was never confirmed"
                await asyncio.sleep(0)
            await jellybit.kill()  # the moment Telegram hears "handled"

            await jellybit.start()
            await jellybit.wait_healthy()
            await eventually(
                lambda: known_infohash(config.database, infohash), "the magnet ingested"
            )
            assert await jellybit.stop() == 0
        finally:
            await jellybit.close()


async def eventually(probe: Callable[[], bool], what: str, within: float = 20.0) -> None:
    deadline = clock.monotonic() + within
    while not probe():
        assert clock.monotonic() < deadline, f"not within {within} s: {what}"
        await asyncio.sleep(0.05)


def known_infohash(database: Path, infohash: str) -> bool:
    with closing_db(database) as db:
        row = db.execute(
            "SELECT count(*) FROM download_infohash WHERE infohash = ?", (infohash,)
        ).fetchone()
    return bool(row[0])
