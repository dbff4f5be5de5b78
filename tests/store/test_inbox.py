"""The inbox's table (store/inbox.py): replays, steps, order per chat."""

import json
from datetime import timedelta

from core import clock
from store import Store
from store.inbox import Received, Reply

ALICE, BOB = 111, 222


def message(update_id: int, chat_id: int, kind: str = "message") -> Received:
    return Received(update_id, chat_id, kind, json.dumps({"update_id": update_id}))


async def pending_ids(store: Store) -> list[int]:
    return [entry.update_id for entry in await store.inbox.pending(clock.now())]


async def test_a_replayed_update_is_stored_once(store: Store) -> None:
    await store.inbox.store([message(1, ALICE)])
    await store.inbox.store([message(1, ALICE), message(2, ALICE)])
    assert await pending_ids(store) == [1, 2]


async def test_a_step_queues_its_replies_and_the_last_one_ends_the_update(store: Store) -> None:
    await store.inbox.store([message(1, ALICE)])
    await store.inbox.step_done(1, ALICE, 1, [Reply("first")])
    (entry,) = await store.inbox.pending(clock.now())
    assert entry.done_steps == 1
    await store.inbox.step_done(1, ALICE, 2, [Reply("second")], handled=True)
    assert await pending_ids(store) == []
    rows = await store.db.reader.execute_fetchall(
        "SELECT kind, chat_id, payload FROM outbox ORDER BY id", {}
    )
    assert [(row[0], row[1]) for row in rows] == [("reply", ALICE), ("reply", ALICE)]
    assert ['"first"' in row[2] for row in rows] == [True, False]


async def test_a_chat_waits_behind_its_failed_message_but_not_others(store: Store) -> None:
    await store.inbox.store(
        [
            message(1, ALICE),
            message(2, ALICE),
            message(3, ALICE, "callback_query"),
            message(4, BOB),
        ]
    )
    later = clock.shifted(timedelta(minutes=1))
    await store.inbox.failed(1, "boom", later)
    assert await pending_ids(store) == [3, 4]  # 2 stays behind 1; a button press does not
    assert [e.update_id for e in await store.inbox.pending(later)] == [1, 2, 3, 4]


async def test_handled_updates_are_purged_after_a_while(store: Store) -> None:
    await store.inbox.store([message(1, ALICE), message(2, ALICE)])
    await store.inbox.handled(1)
    await store.inbox.purge(clock.shifted(timedelta(seconds=5)))
    rows = await store.db.reader.execute_fetchall("SELECT update_id FROM inbox", {})
    assert [row[0] for row in rows] == [2]
