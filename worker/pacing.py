"""Background loops: one runner for all of them (the poller, the importer, the
bot's inbox, outbox and status updater), and waiting until a timeout or an event.

A loop ticks every ``interval`` seconds, or at once when woken. A failing tick is
logged once, with its error and traceback, as ``loop.failing``; the loop keeps
ticking, waiting longer each time (``interval`` doubled per failure, at most
``max_backoff``; a cheap ``probe`` cuts the wait short when the other side answers
again), and says ``loop.recovered`` once when a tick succeeds again.
``/healthz`` shows each loop's failed ticks and whether it is failing now.
"""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from common.logs import get_logger
from common.metrics import LOOP_FAILED_TICKS, LOOP_TICK_SECONDS
from core import clock
from core.errors import AppError

MAX_BACKOFF = 60.0


async def sleep_until(seconds: float | None, *events: asyncio.Event) -> None:
    """Until ``seconds`` pass (None: forever) or one of ``events`` is set."""
    waits = [asyncio.create_task(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()


@dataclass(frozen=True)
class LoopHealth:
    name: str
    failed_ticks: int  # since the start
    failing: bool  # the last tick failed


class Loop:
    def __init__(
        self,
        name: str,
        tick: Callable[[], Awaitable[object]],
        *,
        interval: float | Callable[[], float],  # a callable: read at every wait
        wake: asyncio.Event | None = None,
        max_backoff: float = MAX_BACKOFF,
        on_failure: Callable[[Exception, int], Awaitable[None]] | None = None,
        on_recovery: Callable[[int], Awaitable[None]] | None = None,
        probe: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.name = name
        self._log = get_logger(loop=name)
        self._tick = tick
        self._interval: Callable[[], float] = (
            interval if callable(interval) else lambda: float(interval)
        )
        self.wake = wake or asyncio.Event()
        self._max_backoff = max_backoff
        self._on_failure = on_failure
        self._on_recovery = on_recovery
        self._probe = probe
        self._failures = 0  # in a row
        self._failed_ticks = 0
        self._failing_since = 0.0
        self._failing_with: type[Exception] | None = None

    def health(self) -> LoopHealth:
        return LoopHealth(self.name, self._failed_ticks, self._failures > 0)

    async def run(self, stop: asyncio.Event) -> None:
        """Tick until ``stop``; never ends on an error."""
        while not stop.is_set():
            await self.once()
            await self._wait(stop)
            self.wake.clear()

    async def _wait(self, stop: asyncio.Event) -> None:
        """The interval, or the backoff after a failure. While backing off, a loop
        with a ``probe`` asks it every interval whether the other side answers
        again, and ticks as soon as it does: recovery is seen within an interval."""
        delay = self._delay()
        if not self._failures or self._probe is None:
            await sleep_until(delay, stop, self.wake)
            return
        deadline = clock.monotonic() + delay
        while not stop.is_set() and not self.wake.is_set():
            step = min(self._interval(), deadline - clock.monotonic())
            if step <= 0:
                return
            await sleep_until(step, stop, self.wake)
            if await self._probe_answers():
                return

    async def _probe_answers(self) -> bool:
        assert self._probe is not None
        try:
            return await self._probe()
        except Exception:  # a probe that fails says "not yet"
            return False

    async def once(self) -> None:
        """One tick, its failure or recovery told (``on_failure``/``on_recovery``
        are the loop's own: the poller tells the person qBittorrent is down)."""
        log = self._log
        started = clock.monotonic()
        try:
            await self._tick()
        except Exception as error:
            LOOP_FAILED_TICKS.labels(self.name).inc()
            self._failures += 1
            self._failed_ticks += 1
            if self._failures == 1:
                self._failing_since = clock.monotonic()
            if self._failures == 1 or type(error) is not self._failing_with:
                # Once per run of failures, and again when another error takes
                # over (a bug behind an outage must still show its traceback).
                self._failing_with = type(error)
                log.warning(
                    "loop.failing",
                    reason=f"{type(error).__name__}: {error}"[:300],
                    exc_info=not isinstance(error, AppError),  # a bug's traceback, not an outage's
                )
            if self._on_failure is not None:
                await self._quietly(self._on_failure(error, self._failures))
            return
        finally:
            LOOP_TICK_SECONDS.labels(self.name).observe(clock.monotonic() - started)
        if self._failures:
            failed_for = round(clock.monotonic() - self._failing_since, 1)
            log.info("loop.recovered", after_failures=self._failures, failed_for_s=failed_for)
            failures, self._failures = self._failures, 0
            if self._on_recovery is not None:
                await self._quietly(self._on_recovery(failures))

    def _delay(self) -> float:
        interval = self._interval()
        if not self._failures:
            return interval
        backoff = interval * float(2 ** min(self._failures, 6))
        return min(backoff, max(self._max_backoff, interval))

    async def _quietly(self, hook: Awaitable[None]) -> None:
        try:
            await hook
        except Exception:  # a hook's failure must not end the loop
            self._log.warning("loop.hook_failed", exc_info=True)
