"""The one place that reads the clock.

Stored timestamps are RFC 3339 UTC with a ``Z`` suffix at second precision:
fixed width, so TEXT order equals time order in SQLite.
"""

import re
import time
from datetime import UTC, datetime, timedelta

RFC3339 = "%Y-%m-%dT%H:%M:%SZ"
_CANONICAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
# What SQLite's datetime('now') wrote before the identity change.
_LEGACY_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S.%f")


def now() -> str:
    """The current time as a stored timestamp."""
    return format_time(datetime.now(UTC))


def now_ms() -> int:
    """Milliseconds since the Unix epoch (the ULID timestamp part)."""
    return time.time_ns() // 1_000_000


def monotonic() -> float:
    """Seconds on a clock that never goes back: for durations, not timestamps."""
    return time.monotonic()


def log_timestamp() -> str:
    """Millisecond-precision UTC time for log records."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def shifted(delta: timedelta, start: str | None = None) -> str:
    """A stored timestamp ``delta`` after ``start`` (default: now); negative is before."""
    return format_time(parse_time(start or now()) + delta)


def format_time(moment: datetime) -> str:
    """RFC 3339 UTC text of an aware datetime."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime: the time zone is unknown")
    return moment.astimezone(UTC).strftime(RFC3339)


def parse_time(text: str) -> datetime:
    """Parse a stored timestamp; anything but the canonical form is a ValueError."""
    if not _CANONICAL.fullmatch(text):
        raise ValueError(f"time data {text!r} does not match format {RFC3339!r}")
    # fromisoformat is ~10x faster than strptime: pages parse a time per row.
    return datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC)


def parse_legacy_time(text: object) -> datetime | None:
    """Parse a timestamp written by the legacy schema (UTC); None when unparsable."""
    if not isinstance(text, str):
        return None
    for fmt in (*_LEGACY_FORMATS, RFC3339):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def to_ms(moment: datetime) -> int:
    """Milliseconds since the Unix epoch of an aware datetime."""
    return int(moment.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def format_duration(seconds: float) -> str:
    """A short English duration for reasons and logs: "6 h", "1.5 h", "45 min", "2 s"."""
    if seconds >= 3600:
        return f"{seconds / 3600:.1f}".removesuffix(".0") + " h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"
