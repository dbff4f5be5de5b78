"""What a person sets on a download (its kind, title, year, season, episode offset,
and what to do with a copy the library holds), checked before anything reads it."""

from collections.abc import Mapping
from dataclasses import dataclass

from core.errors import InvalidInputError
from recognition.parsing.guess import MediaKind

OVERRIDE_FIELDS = frozenset({"kind", "title", "year", "season", "episode_offset", "duplicates"})
# What the person chose for a copy of what the library holds (read by the importer).
DUPLICATE_CHOICES = ("version", "replace", "skip")
_OVERRIDE_RANGES = {"year": (1800, 2200), "season": (0, 999), "episode_offset": (-9999, 9999)}
MAX_TITLE_OVERRIDE = 300


@dataclass(frozen=True)
class Overrides:
    kind: MediaKind | None = None
    title: str | None = None
    year: int | None = None
    season: int | None = None
    episode_offset: int = 0


def check_overrides(values: Mapping[str, str]) -> None:
    """Raises ``InvalidInputError`` for fields a person may not set (an empty value
    removes the field, and is always fine)."""
    read_overrides({field: value for field, value in values.items() if value.strip()})


def read_overrides(overrides: Mapping[str, str]) -> Overrides:
    unknown = sorted(set(overrides) - OVERRIDE_FIELDS)
    if unknown:
        raise InvalidInputError(f"unknown override field {unknown[0]!r}")
    kind = overrides.get("kind")
    if kind is not None and kind not in ("movie", "series"):
        raise InvalidInputError(f"kind must be movie or series, got {kind!r}")
    duplicates = overrides.get("duplicates")
    if duplicates is not None and duplicates not in DUPLICATE_CHOICES:
        raise InvalidInputError(
            f"duplicates must be one of {DUPLICATE_CHOICES}, got {duplicates!r}"
        )
    title = overrides.get("title")
    if title is not None and len(title) > MAX_TITLE_OVERRIDE:
        raise InvalidInputError(f"title is longer than {MAX_TITLE_OVERRIDE} characters")
    return Overrides(
        kind="movie" if kind == "movie" else "series" if kind == "series" else None,
        title=title.strip() or None if title is not None else None,
        year=_int_override(overrides, "year"),
        season=_int_override(overrides, "season"),
        episode_offset=_int_override(overrides, "episode_offset") or 0,
    )


def _int_override(overrides: Mapping[str, str], field: str) -> int | None:
    value = overrides.get(field)
    if value is None or not value.strip():
        return None
    try:
        number = int(value.strip())
    except ValueError:
        raise InvalidInputError(f"{field} must be a whole number, got {value!r}") from None
    lowest, highest = _OVERRIDE_RANGES[field]
    if not lowest <= number <= highest:
        raise InvalidInputError(f"{field} must be from {lowest} to {highest}, got {number}")
    return number
