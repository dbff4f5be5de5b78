"""One supervisor for every long-running part of ``jellybit run``: the Telegram
receiver (long polling or the webhook), the background loops and the CPU pool.

A part runs until ``stop``. One that ends before — with an error, or by itself — is
logged with its traceback (``part.failed``; once per run of failures, then
``part.failing_again`` without it), restarted after a backoff (1 s doubling up to
``MAX_DELAY``), counted, and shown on ``/healthz`` and ``/metrics``. A part that has
run ``STABLE_AFTER`` seconds since its last restart is well again (``part.recovered``).
One that keeps failing for ``GIVE_UP_AFTER`` seconds ends the supervisor with
``PartGaveUpError``: ``jellybit run`` exits non-zero and systemd starts it anew
(deploy/jellybit.service has ``Restart=``) — never half-alive.
"""

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from common.logs import get_logger
from common.metrics import PART_FAILING, PART_RESTARTS
from core import clock
from worker.pacing import sleep_until

GIVE_UP_AFTER = 300.0  # seconds of failing before the process exits
STABLE_AFTER = 60.0  # seconds a restarted part must run to count as well
MAX_DELAY = 30.0


@dataclass(frozen=True)
class Part:
    name: str
    run: Callable[[asyncio.Event], Awaitable[None]]


@dataclass(frozen=True)
class PartHealth:
    name: str
    failing: bool
    since: str | None  # when it started failing (RFC 3339), None while well
    restarts: int  # since the start
    reason: str | None  # the last failure


class PartGaveUpError(Exception):
    def __init__(self, name: str, seconds: float) -> None:
        super().__init__(f"{name} kept failing for {seconds:.0f} s")
        self.name = name


class PartEndedError(Exception):
    """A part returned while jellybit was not stopping: a part ends only when told."""


class _State:
    def __init__(self) -> None:
        self.restarts = 0
        self.failures = 0  # in a row
        self.failing_since: float | None = None  # monotonic
        self.failing_since_text: str | None = None
        self.reason: str | None = None


class Supervisor:
    def __init__(
        self,
        parts: Sequence[Part],
        *,
        give_up_after: float = GIVE_UP_AFTER,
        stable_after: float = STABLE_AFTER,
        max_delay: float = MAX_DELAY,
    ) -> None:
        names = [part.name for part in parts]
        if len(set(names)) != len(names):
            raise ValueError(f"parts with the same name: {names}")
        self.parts = tuple(parts)
        self._give_up_after = give_up_after
        self._stable_after = stable_after
        self._max_delay = max_delay
        self._states = {part.name: _State() for part in parts}
        self._tasks: list[asyncio.Task[None]] = []

    def health(self) -> list[PartHealth]:
        return [
            PartHealth(
                name,
                state.failing_since is not None,
                state.failing_since_text,
                state.restarts,
                state.reason,
            )
            for name, state in self._states.items()
        ]

    def running(self) -> list[str]:
        """The parts that have not ended (at a stop: the late ones)."""
        return [task.get_name() for task in self._tasks if not task.done()]

    async def run(self, stop: asyncio.Event) -> None:
        """Every part until ``stop``; raises ``PartGaveUpError`` (after stopping the
        others) when one kept failing ``give_up_after`` seconds."""
        tasks = self._tasks = [
            asyncio.create_task(self._keep(part, stop), name=part.name) for part in self.parts
        ]
        try:
            for finished in asyncio.as_completed(tasks):
                await finished  # a PartGaveUpError ends all
        except PartGaveUpError:
            stop.set()
            await asyncio.wait(tasks)
            raise
        finally:
            for task in tasks:
                task.cancel()

    async def _keep(self, part: Part, stop: asyncio.Event) -> None:
        state = self._states[part.name]
        log = get_logger(part=part.name)
        while not stop.is_set():
            error = await self._run_once(part, stop, state)
            if error is None:
                return
            if stop.is_set():
                log.warning("part.failed_while_stopping", reason=str(error)[:300], exc_info=error)
                return
            state.failures += 1
            state.restarts += 1
            state.reason = f"{type(error).__name__}: {error}"[:300]
            PART_RESTARTS.labels(part.name).inc()
            PART_FAILING.labels(part.name).set(1)
            if state.failing_since is None:
                state.failing_since = clock.monotonic()
                state.failing_since_text = clock.now()
                log.error("part.failed", reason=state.reason, exc_info=error)
            else:
                log.warning("part.failing_again", reason=state.reason, restarts=state.restarts)
            failing_for = clock.monotonic() - state.failing_since
            if failing_for >= self._give_up_after:
                log.error("part.gave_up", failing_for_s=round(failing_for), reason=state.reason)
                raise PartGaveUpError(part.name, failing_for)
            await sleep_until(min(2.0 ** (state.failures - 1), self._max_delay), stop)

    async def _run_once(self, part: Part, stop: asyncio.Event, state: _State) -> Exception | None:
        """Run the part once: None when it ended because of ``stop``, else its error.
        A restarted part that runs ``stable_after`` seconds is marked well."""
        task = asyncio.ensure_future(part.run(stop))
        try:
            if state.failing_since is not None:
                done, _ = await asyncio.wait({task}, timeout=self._stable_after)
                if not done:
                    self._recovered(part.name, state)
            await task
        except asyncio.CancelledError:
            task.cancel()
            raise
        except Exception as error:
            return error
        return None if stop.is_set() else PartEndedError("it ended by itself")

    def _recovered(self, name: str, state: _State) -> None:
        get_logger(part=name).info("part.recovered", after_restarts=state.failures)
        state.failures = 0
        state.failing_since = state.failing_since_text = None
        PART_FAILING.labels(name).set(0)
