"""The state machine (core.states.MOVES) through the store's one transition path
(store.transitions.move): every allowed move works, every other one is refused
and changes nothing."""

import itertools

import pytest

from core.errors import InfohashTakenError, InvalidTransitionError
from core.models import NewDownload, SnapshotChange, Transition
from core.notifications import ANNOUNCED
from core.reasons import reason
from core.states import MOVES, TROUBLE, State, may_move, reactivates
from store import Store
from tests.hashes import v1
from tests.support.states import path_to, put_in_state

PAIRS = list(itertools.product(State, State))
WHY = reason("qbt.error", qbt_state="test")


def new() -> NewDownload:
    return NewDownload(name="Movie", origin="telegram", source_ref="magnet:?")


async def outbox_kinds(store: Store, download_id: str) -> list[str]:
    rows = await store.db.reader.execute_fetchall(
        "SELECT kind FROM outbox WHERE download_id = :id ORDER BY id", {"id": download_id}
    )
    return [row[0] for row in rows]


def test_every_state_is_reachable_and_has_a_way_on() -> None:
    for state in State:
        assert path_to(State.ACCEPTED, state)[-1:] in ([state], [])
        assert MOVES[state], f"{state} is a dead end"


@pytest.mark.parametrize(("start", "goal"), PAIRS, ids=lambda s: str(s))
async def test_a_move_applies_exactly_when_the_table_allows_it(
    store: Store, start: State, goal: State
) -> None:
    created = await store.downloads.create_download_if_no_active(new(), [v1()])
    download = await put_in_state(store, created.download.id, start, "setup")
    history = await store.downloads.list_transitions(download.id)
    if may_move(start, goal):
        moved = await store.downloads.move(download.id, goal, reason=WHY)
        assert moved.state == goal
        assert moved.error == (WHY if goal in TROUBLE else None)
        last = (await store.downloads.list_transitions(download.id))[-1]
        assert (last.from_state, last.to_state, last.reason) == (start, goal, WHY)
    else:
        with pytest.raises(InvalidTransitionError):
            await store.downloads.move(download.id, goal, reason=reason("qbt.seen"))
        assert (await store.downloads.get_download(download.id)) == download
        assert await store.downloads.list_transitions(download.id) == history


@pytest.mark.parametrize(
    ("start", "goal"), [p for p in PAIRS if reactivates(*p) and may_move(*p)], ids=str
)
async def test_becoming_active_again_waits_for_no_other_active_owner(
    store: Store, start: State, goal: State
) -> None:
    h = v1()
    first = (await store.downloads.create_download_if_no_active(new(), [h])).download
    await put_in_state(store, first.id, start)
    other = (await store.downloads.create_download_if_no_active(new(), [h])).download
    with pytest.raises(InfohashTakenError) as refused:
        await store.downloads.move(first.id, goal, reason=reason("person.retry"))
    assert refused.value.owner_id == other.id
    assert (await store.downloads.get_download(first.id)).state == start
    await store.downloads.move(other.id, State.REMOVED, reason=reason("person.cancel"))
    assert (await store.downloads.move(first.id, goal, reason=reason("person.retry"))).state == goal


async def test_a_stale_view_is_refused(store: Store) -> None:
    d = (await store.downloads.create_download_if_no_active(new(), [v1()])).download
    await store.downloads.move(d.id, State.DOWNLOADING, reason=reason("qbt.seen"))
    with pytest.raises(InvalidTransitionError):
        await store.downloads.move(
            d.id, State.REMOVED, reason=reason("qbt.seen"), expected={State.ACCEPTED}
        )
    stale = SnapshotChange(d.id, {}, Transition(State.ACCEPTED, State.STUCK, reason("qbt.seen")))
    assert await store.tracking.apply_changes([stale]) == []
    assert (await store.downloads.get_download(d.id)).state == State.DOWNLOADING


@pytest.mark.parametrize("goal", sorted(s for s, kind in ANNOUNCED.items() if kind), ids=str)
async def test_a_background_move_is_announced_and_a_persons_is_not(
    store: Store, goal: State
) -> None:
    told = (await store.downloads.create_download_if_no_active(new(), [v1()])).download
    start = min(state for state in State if may_move(state, goal))
    await put_in_state(store, told.id, start)
    change = SnapshotChange(told.id, {}, Transition(start, goal, WHY))
    assert await store.tracking.apply_changes([change]) == [change]
    assert await outbox_kinds(store, told.id) == [ANNOUNCED[goal]]
    quiet = (await store.downloads.create_download_if_no_active(new(), [v1()])).download
    await put_in_state(store, quiet.id, goal)
    assert await outbox_kinds(store, quiet.id) == []
