"""The inbox's table (store/inbox.py): replays, reused ids, steps, order."""

import json
from datetime import timedelta

from core import clock, updates
from store import Store
from store.inbox import Entry, Received, Reply

ALICE, BOB = 111, 222


def message(update_id: int, chat_id: int, kind: str = "message", text: str = "hi") -> Received:
    body = {"update_id": update_id, kind: {"text": text, "chat": {"id": chat_id}}}
    return Received(update_id, updates.digest(body), chat_id, kind, json.dumps(body))


async def pending(store: Store, at: str | None = None) -> list[Entry]:
    return await store.inbox.pending(at or clock.now())


async def pending_ids(store: Store, at: str | None = None) -> list[int]:
    return [entry.update_id for entry in await pending(store, at)]


async def test_a_replayed_update_is_stored_once(store: Store) -> None:
    await store.inbox.store([message(1, ALICE)])
    stored = await store.inbox.store([message(1, ALICE), message(2, ALICE)])
    assert [u.update_id for u in stored.replays] == [1]
    assert [u.update_id for u in stored.new] == [2]
    assert await pending_ids(store) == [1, 2]


async def test_an_id_seen_again_with_other_content_is_a_new_update(store: Store) -> None:
    """A new bot token, a week without updates, or a restarted sandbox server: Telegram's
    ids start again, and the new updates are not replays."""
    first = await pending_ids(store)
    await store.inbox.store([message(100_001, ALICE, text="before")])
    (entry,) = await pending(store)
    await store.inbox.handled(entry.id)
    stored = await store.inbox.store([message(100_001, ALICE, text="after the restart")])
    assert first == []
    assert stored.replays == []
    assert [u.update_id for u in stored.reused_ids] == [100_001]
    (again,) = await pending(store)
    assert "after the restart" in again.body
    assert again.id > entry.id


async def test_a_step_queues_its_replies_and_the_last_one_ends_the_update(store: Store) -> None:
    await store.inbox.store([message(1, ALICE)])
    (entry,) = await pending(store)
    await store.inbox.step_done(entry.id, ALICE, 1, [Reply("first")])
    (entry,) = await pending(store)
    assert entry.done_steps == 1
    await store.inbox.step_done(entry.id, ALICE, 2, [Reply("second")], handled=True)
    assert await pending_ids(store) == []
    rows = await store.db.reader.execute_fetchall(
        "SELECT kind, chat_id, payload FROM outbox ORDER BY id", {}
    )
    assert [(row[0], row[1]) for row in rows] == [("reply", ALICE), ("reply", ALICE)]
    assert ['"first"' in row[2] for row in rows] == [True, False]


async def test_a_failed_update_waits_for_its_retry_and_holds_nothing_up(store: Store) -> None:
    await store.inbox.store(
        [message(1, ALICE), message(2, ALICE), message(3, ALICE, "callback_query"), message(4, BOB)]
    )
    first = (await pending(store))[0]
    later = clock.shifted(timedelta(minutes=1))
    await store.inbox.failed(first.id, "boom", later)
    assert await pending_ids(store) == [2, 3, 4]  # its chat's next message goes on
    assert await pending_ids(store, later) == [1, 2, 3, 4]  # in order of arrival


async def test_an_update_set_aside_is_never_pending_again_and_says_so(store: Store) -> None:
    await store.inbox.store([message(1, ALICE)])
    (entry,) = await pending(store)
    await store.inbox.set_aside(entry.id, ALICE, 0, [Reply("sorry")], "ValueError: bad")
    assert await pending_ids(store, clock.shifted(timedelta(days=1))) == []
    assert await store.inbox.set_aside_count() == 1
    rows = await store.db.reader.execute_fetchall("SELECT outcome, last_error FROM inbox", {})
    assert [tuple(row) for row in rows] == [("set_aside", "ValueError: bad")]


async def test_handled_updates_are_purged_after_a_while(store: Store) -> None:
    await store.inbox.store([message(1, ALICE), message(2, ALICE)])
    await store.inbox.handled((await pending(store))[0].id)
    await store.inbox.purge(clock.shifted(timedelta(seconds=5)))
    rows = await store.db.reader.execute_fetchall("SELECT update_id FROM inbox", {})
    assert [row[0] for row in rows] == [2]
