"""Ingest latency through the bot, with a real qbittorrent-nox.

From the moment the fake Telegram hands a magnet message to the bot's waiting
getUpdates until the bot's reply arrives: p50/p95 over 200 messages, then the
same while 20 downloads progress (status messages being edited), and the
event loop's worst lag during the run. Baseline in the same run: /help round
trips of a plain text (answered with help; no ingest work). Targets: p95 < 150 ms, loop lag < 50 ms.

Run: ``make bench``.
"""

import asyncio
import json
import secrets
import statistics
import tempfile
import time
from pathlib import Path

from bot import sender
from common.logs import configure_logging
from core.config import QbittorrentSettings
from jellybit.app import Tuning
from tests.support.house import House, house_settings
from tests.support.qbittorrent import QbtInstance, leecher_and_seeder
from tests.support.telegram import Call, FakeTelegram, FakeUser, Message
from tests.support.torrents import magnet_for, make_content, make_torrent, seed, seeder_peer

USER = 42
MESSAGES = 200
PROGRESSING = 20


class LoopLag:
    """Delays of a 10 ms sleep: how long the loop was blocked (worst and p99)."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def worst(self) -> float:
        return max(self.samples, default=0.0)

    def p99(self) -> float:
        return statistics.quantiles(self.samples, n=100)[98] if len(self.samples) > 100 else 0.0

    def start(self) -> None:
        self._task = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        while True:
            started = time.monotonic()
            await asyncio.sleep(0.01)
            self.samples.append(max(0.0, time.monotonic() - started - 0.01))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


async def round_trip_ms(tg: FakeTelegram, user: FakeUser, text: str) -> float:
    """Hand a message to the bot; the time until its answer reaches the fake server.
    The chat's pacing is reset first: a person never sends hundreds of messages in a few
    minutes, and the bench measures the answer's own time, not Telegram's per-chat limit
    (bot/sender.py ``ChatPacer``), which would otherwise hold the 31st answer a second."""
    sender.PACER = sender.ChatPacer()
    seen = len(tg.calls)
    sent = await user.send_text(text)
    handed = time.monotonic()
    for _ in range(2500):
        answer = _answer_at(tg.calls[seen:], sent)
        if answer is not None:
            return (answer - handed) * 1000
        seen = max(seen, len(tg.calls) - 50)  # only new calls: cheap polling
        await asyncio.sleep(0.002)
    raise TimeoutError(f"no answer to {text[:40]!r}")


def _answer_at(calls: list[Call], sent: Message) -> float | None:
    """When the bot's reply to ``sent`` reached the fake server (its arrival time)."""
    for call in calls:
        if call.method != "sendMessage" or call.status != 200:
            continue
        raw = call.params.get("reply_parameters")
        parsed = json.loads(raw) if isinstance(raw, str) else raw
        target = (
            parsed.get("message_id")
            if isinstance(parsed, dict)
            else call.params.get("reply_to_message_id")
        )
        if target is not None and int(target) == sent.message_id:
            return call.at
    return None


def summary(values: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(values, n=100)
    return cuts[49], cuts[94]


async def run(qbt: QbtInstance, seeder: QbtInstance, tmp: Path) -> None:
    async with FakeTelegram() as tg:
        qbittorrent = QbittorrentSettings(url=qbt.url, username=qbt.username, password=qbt.password)
        settings = house_settings(
            tmp / "jellybit",
            qbittorrent=qbittorrent,
            telegram_api=tg.base_url,
            token=tg.token,
            allowed_users=(USER,),
            language="en",
        )
        house = await House(settings, Tuning()).start()
        user = tg.user(USER, language_code="en")
        lag = LoopLag()
        lag.start()
        try:
            baseline = [await round_trip_ms(tg, user, "hello") for _ in range(50)]
            lag.samples = []
            idle = [await round_trip_ms(tg, user, dead_magnet()) for _ in range(MESSAGES)]
            idle_lag = (lag.worst, lag.p99())
            await start_progressing(tg, user, seeder, tmp)  # setup: not measured
            edits_before = len(tg.calls_to("editMessageText"))
            lag.samples = []
            busy = [await round_trip_ms(tg, user, dead_magnet()) for _ in range(MESSAGES)]
            busy_lag = (lag.worst, lag.p99())
            edits = len(tg.calls_to("editMessageText")) - edits_before
        finally:
            lag.stop()
            await house.halt()
    b50, b95 = summary(baseline)
    print(f"plain text round trip (baseline):          p50 {b50:6.1f} ms  p95 {b95:6.1f} ms")
    for label, values in [("magnet, idle", idle), (f"magnet, {PROGRESSING} progressing", busy)]:
        p50, p95 = summary(values)
        print(
            f"{label + ':':<38}p50 {p50:6.1f} ms  p95 {p95:6.1f} ms"
            f"  ({p95 / b95:.1f}x baseline p95; target p95 < 150 ms)"
        )
    print(f"status edits during the busy phase: {edits}")
    for phase, (worst, p99) in [("idle", idle_lag), ("busy", busy_lag)]:
        print(
            f"event loop lag, {phase} phase:          worst {worst * 1000:5.1f} ms"
            f"  p99 {p99 * 1000:5.1f} ms (target < 50 ms; the fake Telegram shares the loop)"
        )


def dead_magnet() -> str:
    return f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn=Bench&x.pe=127.0.0.1:1"


async def start_progressing(
    tg: FakeTelegram, user: FakeUser, seeder: QbtInstance, tmp: Path
) -> None:
    """20 real downloads, slowed by the seeder so they progress during the measurement."""
    for n in range(PROGRESSING):
        content = await asyncio.to_thread(
            make_content, tmp / f"src{n}", f"Progressing.{n}.mkv", 4 * 1024 * 1024, seed=n
        )
        made = await asyncio.to_thread(make_torrent, content, "v1")
        await asyncio.to_thread(seed, seeder, made, up_limit=48 * 1024)
        await user.send_text(magnet_for(made, peer=seeder_peer(seeder)))
    await asyncio.sleep(3)


def main() -> None:
    configure_logging(level="warning")
    with tempfile.TemporaryDirectory() as tmp, leecher_and_seeder(Path(tmp)) as (qbt, seeder):
        asyncio.run(run(qbt, seeder, Path(tmp)))


if __name__ == "__main__":
    main()
