import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import clock
from core.ids import BackfillIds, id_timestamp_ms, new_id, parse_id


def test_new_ids_are_lowercase_and_strictly_increasing() -> None:
    ids = [new_id() for _ in range(2000)]  # many share a millisecond
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(i == i.lower() and parse_id(i) == i for i in ids)


def test_new_id_carries_the_current_time() -> None:
    before = clock.now_ms()
    made = new_id()
    assert before <= id_timestamp_ms(made) <= clock.now_ms()


def test_parse_normalizes_case() -> None:
    made = new_id()
    assert parse_id(made.upper()) == made


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc!!!",
        "01JZ",
        "0" * 27,
        "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",  # past the 48-bit time range
        "01jzaaaaaaaaaaaaaaaaaaaaai",  # i, l, o, u are not Crockford digits
        "01jzaaaaaaaaaaaaaaaaaaaaal",
        "01jzaaaaaaaaaaaaaaaaaaaaao",
        "01jzaaaaaaaaaaaaaaaaaaaaau",
        " 01jzaaaaaaaaaaaaaaaaaaaaa",
        "01jzaaaaaaaaaaaaaaaaaaaaa\n",
        "１２３４５６７８９０１２３４５６７８９０１２３４５６",
    ],
)
def test_parse_rejects_everything_else(text: str) -> None:
    assert parse_id(text) is None


@given(st.text(max_size=40))
def test_parse_never_crashes_and_is_idempotent(text: str) -> None:
    parsed = parse_id(text)
    if parsed is not None:
        assert parse_id(parsed) == parsed
        assert len(parsed) == 26


def test_backfill_orders_rows_within_one_millisecond_by_call_order() -> None:
    ids = BackfillIds()
    a, b, c = ids.at(1_000), ids.at(5_000), ids.at(1_000)
    assert a < c < b
    assert id_timestamp_ms(a) == id_timestamp_ms(c) == 1_000
