"""Numbers, sizes and times as a reader of the language writes them (Babel):
"1.2 GB" and "1,2 ГБ", "3 hours ago" and "3 часа назад". The bot and the pages
format through here."""

from datetime import datetime, timedelta

from babel.dates import format_timedelta
from babel.units import format_unit

from common.i18n import Texts
from core.models import Download
from core.states import State

_UNITS = ("digital-byte", "digital-kilobyte", "digital-megabyte", "digital-gigabyte")
_LARGEST = "digital-terabyte"
RECENT = timedelta(days=7)  # older moments read as a date


def size_text(tx: Texts, size: float) -> str:
    """Bytes in binary multiples, one decimal above a kilobyte: "1.2 GB"."""
    value, units = float(size), [*_UNITS, _LARGEST]
    unit = units.pop(0)
    while value >= 1024 and units:
        value, unit = value / 1024, units.pop(0)
    pattern = "#,##0" if unit == _UNITS[0] else "#,##0.0"
    return format_unit(value, unit, length="short", format=pattern, locale=tx.language)


def speed_text(tx: Texts, bytes_per_second: float) -> str:
    return tx.plain("{speed}/s").format(speed=size_text(tx, bytes_per_second))


def duration_text(tx: Texts, seconds: float) -> str:
    """ "6 hours", "45 seconds": the largest unit that fits, rounded."""
    return format_timedelta(timedelta(seconds=seconds), threshold=1.0, locale=tx.language)


def eta_text(tx: Texts, seconds: float) -> str:
    """ "~2 min", "~3 h": short, it is an estimate."""
    short = format_timedelta(
        timedelta(seconds=seconds), threshold=1.0, format="short", locale=tx.language
    )
    return "~" + short


def relative_text(tx: Texts, moment: datetime, now: datetime) -> str | None:
    """ "just now", "5 minutes ago", "2 days ago"; None past ``RECENT`` (the caller
    shows a date)."""
    age = now - moment
    if age < timedelta(minutes=1):
        return tx.plain("just now")
    if age >= RECENT:
        return None
    return format_timedelta(-age, add_direction=True, threshold=1.0, locale=tx.language)


def age_text(tx: Texts, moment: datetime, now: datetime) -> str:
    """ "5 hours ago", "3 weeks ago", "2 years ago": how old a release is, however old."""
    age = max(now - moment, timedelta(minutes=1))
    return format_timedelta(-age, add_direction=True, threshold=1.0, locale=tx.language)


def progress_text(tx: Texts, download: Download) -> str:
    """ "62% · 1.2 GB / 2.0 GB · 8.4 MB/s · ~2 min": speed and time left while it
    downloads."""
    parts = [f"{download.progress * 100:.0f}%"]
    if download.total_size:
        done = size_text(tx, download.total_size * download.progress)
        parts.append(f"{done} / {size_text(tx, download.total_size)}")
    if download.state == State.DOWNLOADING and download.download_speed:
        parts.append(speed_text(tx, download.download_speed))
    if download.state == State.DOWNLOADING and download.eta:
        parts.append(eta_text(tx, download.eta))
    return " · ".join(parts)
