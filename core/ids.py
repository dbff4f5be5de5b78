"""The one place where entity ids are made and parsed.

Ids are ULIDs in lowercase canonical form: 26 Crockford base32 characters,
sortable by creation time. Every id that comes from outside (URL, form,
callback data, CLI) goes through ``parse_id`` before it reaches the store.
"""

import re
import secrets
import threading
from typing import NewType

from ulid import ULID

from core import clock

Id = NewType("Id", str)

_CANONICAL = re.compile(r"[0-7][0-9a-hjkmnp-tv-z]{25}")
_MAX_RANDOM = (1 << 80) - 1


def parse_id(text: object) -> Id | None:
    """Normalize case and validate; None for anything that is not a ULID.

    Strict on purpose: no surrounding spaces, no Crockford aliases (i, l, o),
    no values past the 48-bit time range.
    """
    if not isinstance(text, str) or len(text) != 26:
        return None
    lowered = text.lower()
    if not _CANONICAL.fullmatch(lowered):
        return None
    return Id(lowered)


def id_timestamp_ms(entity_id: Id) -> int:
    """The creation time (ms since epoch) encoded in an id."""
    return ULID.from_str(entity_id.upper()).milliseconds


class _MonotonicIds:
    """ULIDs that strictly increase, also within one millisecond.

    Within a millisecond the random part of the previous id is incremented,
    so creation order equals id order.
    """

    def __init__(self) -> None:
        self._last: dict[int, int] = {}
        self._lock = threading.Lock()

    def at(self, ms: int, *, remember_all: bool) -> Id:
        with self._lock:
            if not remember_all and self._last:
                ms = max(ms, *self._last)  # a clock step back must not break the order
            previous = self._last.get(ms)
            random = secrets.randbits(80) if previous is None else previous + 1
            if random > _MAX_RANDOM:
                raise OverflowError("more than 2**80 ids in one millisecond")
            if not remember_all:
                self._last.clear()
            self._last[ms] = random
        raw = ms.to_bytes(6, "big") + random.to_bytes(10, "big")
        return Id(str(ULID.from_bytes(raw)).lower())


_live = _MonotonicIds()


def new_id() -> Id:
    """A new id for an entity created now."""
    return _live.at(clock.now_ms(), remember_all=False)


class BackfillIds:
    """Ids for rows created in the past (migrations).

    Each call gets the timestamp of its row; rows that share a millisecond,
    even when not consecutive, get increasing ids in call order.
    """

    def __init__(self) -> None:
        self._ids = _MonotonicIds()

    def at(self, ms: int) -> Id:
        return self._ids.at(ms, remember_all=True)
