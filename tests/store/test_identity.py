"""Every scenario of the identity spec (docs/identity.md), against a real SQLite file."""

import pytest

from core.errors import InfohashTakenError
from core.ids import new_id, parse_id
from core.models import NewDownload
from core.reasons import reason
from core.states import RETRYABLE, State
from store import Store
from tests.hashes import v1, v2
from tests.support.states import put_in_state


def magnet(name: str = "Some.Movie.2021.1080p") -> NewDownload:
    return NewDownload(name=name, origin="telegram", source_ref=f"magnet:?dn={name}")


async def test_new_download_id_is_a_lowercase_valid_ulid(store: Store) -> None:
    result = await store.downloads.create_download_if_no_active(magnet(), [v1()])
    download_id = result.download.id
    assert result.created
    assert download_id == download_id.lower()
    assert parse_id(download_id) == download_id
    assert len(download_id) == 26


async def test_ids_are_unique_across_entities(store: Store) -> None:
    first = (await store.downloads.create_download_if_no_active(magnet(), [v1()])).download
    second = (await store.downloads.create_download_if_no_active(magnet(), [v1()])).download
    history = [t.id for d in (first, second) for t in await store.downloads.list_transitions(d.id)]
    every_id = [first.id, second.id, *history]
    assert len(set(every_id)) == len(every_id) == 4


async def test_creation_order_is_id_order(store: Store) -> None:
    created = [
        (await store.downloads.create_download_if_no_active(magnet(f"n{i}"), [v1()])).download.id
        for i in range(20)
    ]
    assert created == sorted(created)
    listed = await store.downloads.list_downloads()
    assert [d.id for d in listed] == created[::-1]


async def test_upper_case_id_resolves_to_the_same_download(store: Store) -> None:
    created = (await store.downloads.create_download_if_no_active(magnet(), [v1()])).download
    found = await store.downloads.find_download(created.id.upper())
    assert found is not None
    assert found.id == created.id


@pytest.mark.parametrize(
    "garbage",
    ["abc!!!", "", "0" * 25, "8" + "0" * 25, "01jz" + "l" * 22, " " + "0" * 26, "1", None, 42],
)
async def test_garbage_id_is_not_found_without_a_query(store: Store, garbage: object) -> None:
    statements: list[str] = []
    await store.db.set_trace_callback(statements.append)
    try:
        assert await store.downloads.find_download(garbage) is None
    finally:
        await store.db.set_trace_callback(None)
    assert statements == []


async def test_a_valid_but_unknown_id_does_query(store: Store) -> None:
    """The counter above can see queries: a well-formed id does reach SQLite."""
    statements: list[str] = []
    await store.db.set_trace_callback(statements.append)
    try:
        assert await store.downloads.find_download(new_id()) is None
    finally:
        await store.db.set_trace_callback(None)
    assert any("FROM download" in s for s in statements)


async def test_hybrid_download_gets_both_hashes(store: Store) -> None:
    h1, h2 = v1(), v2()
    result = await store.downloads.create_download_if_no_active(magnet(), [h1.upper(), h2])
    stored = {(h.value, h.kind) for h in result.download.infohashes}
    assert stored == {(h1, "v1"), (h2, "v2")}


async def test_matching_by_v2_alone(store: Store) -> None:
    h1, h2 = v1(), v2()
    created = (await store.downloads.create_download_if_no_active(magnet(), [h1, h2])).download
    found = await store.downloads.find_active_by_infohash([h2])
    assert found is not None
    assert found.id == created.id


async def test_hybrid_revealed_later_adds_the_second_hash(store: Store) -> None:
    h1, h2 = v1(), v2()
    created = (await store.downloads.create_download_if_no_active(magnet(), [h1])).download
    updated = await store.downloads.add_infohashes(created.id, [h1, h2])
    assert {(h.value, h.kind) for h in updated.infohashes} == {(h1, "v1"), (h2, "v2")}


async def test_repeat_ingest_while_active_returns_the_existing_one(store: Store) -> None:
    h1, h2 = v1(), v2()
    first = await store.downloads.create_download_if_no_active(magnet(), [h1])
    again = await store.downloads.create_download_if_no_active(magnet("again"), [h1, h2])
    assert not again.created
    assert again.download.id == first.download.id
    # The hash it lacked was added, not lost.
    assert {h.value for h in again.download.infohashes} == {h1, h2}
    assert len(await store.downloads.list_downloads()) == 1


async def test_repeat_ingest_after_done_creates_a_new_download(store: Store) -> None:
    h = v1()
    first = (await store.downloads.create_download_if_no_active(magnet(), [h])).download
    await put_in_state(store, first.id, State.DONE, "imported")
    second = await store.downloads.create_download_if_no_active(magnet(), [h])
    assert second.created
    assert second.download.id != first.id
    assert [h.value for h in second.download.infohashes] == [h]
    active = await store.downloads.find_active_by_infohash([h])
    assert active is not None
    assert active.id == second.download.id


async def test_retry_with_a_hash_owned_by_another_active_download_is_refused(
    store: Store,
) -> None:
    h = v1()
    one = (await store.downloads.create_download_if_no_active(magnet(), [h])).download
    await store.downloads.move(one.id, State.FAILED, reason=reason("qbt.refused", detail="Fails."))
    two = (await store.downloads.create_download_if_no_active(magnet(), [h])).download

    with pytest.raises(InfohashTakenError) as refused:
        await store.downloads.move(
            one.id, State.ACCEPTED, reason=reason("person.retry"), expected=RETRYABLE
        )
    assert refused.value.owner_id == two.id
    assert refused.value.infohash == h
    assert (await store.downloads.get_download(one.id)).state == State.FAILED
    assert (await store.downloads.get_download(two.id)).state == State.ACCEPTED
    assert len(await store.downloads.list_transitions(one.id)) == 2


async def test_retry_of_a_stuck_download_is_not_blocked_by_itself(store: Store) -> None:
    h = v1()
    one = (await store.downloads.create_download_if_no_active(magnet(), [h])).download
    await store.downloads.move(one.id, State.STUCK, reason=reason("qbt.no_progress", seconds=21600))
    retried = await store.downloads.move(one.id, State.ACCEPTED, reason=reason("person.retry"))
    assert retried.state == State.ACCEPTED
    assert retried.error is None


async def test_retry_after_the_other_finished_succeeds(store: Store) -> None:
    h = v1()
    one = (await store.downloads.create_download_if_no_active(magnet(), [h])).download
    await store.downloads.move(one.id, State.FAILED, reason=reason("qbt.refused", detail="Fails."))
    two = (await store.downloads.create_download_if_no_active(magnet(), [h])).download
    await store.downloads.move(two.id, State.REMOVED, reason=reason("person.cancel"))
    retried = await store.downloads.move(one.id, State.ACCEPTED, reason=reason("person.retry"))
    assert retried.state == State.ACCEPTED


async def test_add_infohashes_refuses_a_hash_of_another_active_download(store: Store) -> None:
    h1, h2 = v1(), v2()
    one = (await store.downloads.create_download_if_no_active(magnet(), [h1])).download
    two = (await store.downloads.create_download_if_no_active(magnet(), [h2])).download
    with pytest.raises(InfohashTakenError) as refused:
        await store.downloads.add_infohashes(one.id, [h2, v2()])
    assert refused.value.owner_id == two.id
    unchanged = await store.downloads.get_download(one.id)
    assert [h.value for h in unchanged.infohashes] == [h1]


async def test_every_state_change_is_recorded(store: Store) -> None:
    d = (await store.downloads.create_download_if_no_active(magnet(), [v1()])).download
    await store.downloads.move(d.id, State.DOWNLOADING, reason=reason("qbt.seen"))
    await store.downloads.move(d.id, State.STUCK, reason=reason("qbt.no_progress", seconds=600))
    history = await store.downloads.list_transitions(d.id)
    stalled = reason("qbt.no_progress", seconds=600)
    assert [(t.from_state, t.to_state, t.reason) for t in history] == [
        (None, State.ACCEPTED, reason("created.telegram")),
        (State.ACCEPTED, State.DOWNLOADING, reason("qbt.seen")),
        (State.DOWNLOADING, State.STUCK, stalled),
    ]
    assert all(t.created_at.endswith("Z") and len(t.created_at) == 20 for t in history)
    assert (await store.downloads.get_download(d.id)).error == stalled
