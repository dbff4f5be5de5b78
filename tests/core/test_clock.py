from datetime import UTC, datetime, timedelta, timezone

import pytest

from core import clock


def test_now_is_rfc3339_utc_seconds() -> None:
    text = clock.now()
    assert len(text) == 20
    assert text.endswith("Z")
    assert clock.parse_time(text) <= datetime.now(UTC)


def test_format_converts_to_utc() -> None:
    moscow = timezone(timedelta(hours=3))
    assert clock.format_time(datetime(2026, 1, 2, 3, 4, 5, tzinfo=moscow)) == "2026-01-02T00:04:05Z"


def test_format_refuses_a_naive_datetime() -> None:
    with pytest.raises(ValueError, match="naive"):
        clock.format_time(datetime(2026, 1, 2))


@pytest.mark.parametrize("text", ["2026-01-02 03:04:05", "2026-01-02T03:04:05Z", "garbage"])
def test_parse_time_accepts_only_the_canonical_form(text: str) -> None:
    if text.endswith("Z"):
        assert clock.parse_time(text).hour == 3
    else:
        with pytest.raises(ValueError, match="does not match"):
            clock.parse_time(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-01-05 10:00:00", "2025-01-05T10:00:00Z"),
        ("2025-01-05T10:00:00", "2025-01-05T10:00:00Z"),
        ("2025-01-05 10:00:00.123", "2025-01-05T10:00:00Z"),
        ("2025-01-05T10:00:00Z", "2025-01-05T10:00:00Z"),
        ("yesterday", None),
        (None, None),
        (12, None),
    ],
)
def test_legacy_times(text: object, expected: str | None) -> None:
    parsed = clock.parse_legacy_time(text)
    assert (None if parsed is None else clock.format_time(parsed)) == expected


@pytest.mark.parametrize(
    ("seconds", "text"), [(21600, "6 h"), (5400, "1.5 h"), (2700, "45 min"), (2, "2 s")]
)
def test_format_duration(seconds: float, text: str) -> None:
    assert clock.format_duration(seconds) == text


def test_shifted_moves_a_stored_timestamp() -> None:
    assert clock.shifted(timedelta(seconds=90), "2026-01-01T00:00:00Z") == "2026-01-01T00:01:30Z"
    assert clock.shifted(-timedelta(hours=1), "2026-01-01T00:00:00Z") == "2025-12-31T23:00:00Z"
    assert clock.parse_time(clock.shifted(timedelta(0))) <= datetime.now(UTC)
