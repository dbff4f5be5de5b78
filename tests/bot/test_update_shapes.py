"""Every update shape the Bot API describes reaches the handlers and ends handled, by
polling and by webhook: none stops reception, none is set aside, and the chat is
answered afterwards. The shapes come from the Bot API's description as aiogram's types
hold it (tests/support/botapi_schema.py): each kind jellybit receives with only its
required fields, with every field filled (recursively, once per member of each union),
and with each optional field alone."""

import asyncio
import functools
import json
import secrets
from typing import Any

from aiogram.types import Update

from bot.inbox import ALLOWED_UPDATES
from tests.bot.conftest import ALICE, Door
from tests.support import botapi_schema as schema
from tests.support.telegram import FakeTelegram, FakeUser, Message

Json = dict[str, Any]
WITHIN = 2.0


@functools.cache
def shapes_of(kind: str) -> list[tuple[str, Json]]:
    (model,) = schema.alternatives(schema.fields_of(Update)[kind].annotation)
    return list(schema.shapes(model))


def personal(kind: str, body: Json, person: FakeUser) -> Json:
    """The shape as it would come from ``person`` in their private chat with the bot."""
    body = json.loads(json.dumps(body))
    chat = person.chat.to_json()
    body["from"] = person.to_json()  # a person's update in a private chat names them
    if kind == "callback_query":
        if isinstance(body.get("message"), dict):
            body["message"]["chat"] = chat
    else:
        body["chat"] = chat
    return body


async def handled(door: Door, count: int) -> list[tuple[str, str | None, int]]:
    """(kind, outcome, attempts) of every inbox row, once ``count`` rows are finished."""
    for _ in range(600):
        rows = await door.store.db.reader.execute_fetchall(
            "SELECT kind, outcome, attempts FROM inbox ORDER BY id", {}
        )
        if sum(1 for row in rows if row[1] is not None) >= count:
            return [(row[0], row[1], row[2]) for row in rows]
        await asyncio.sleep(0.1)
    raise AssertionError(f"not all {count} updates were handled: {[tuple(r) for r in rows]}")


async def answered(person: FakeUser, sent: Message, within: float = WITHIN) -> Message:
    return await person.wait_for(
        lambda m: m.from_bot and m.message_id > sent.message_id, timeout=within
    )


async def test_every_shape_of_every_kind_received_is_handled(door: Door, tg: FakeTelegram) -> None:
    alice = tg.user(ALICE, language_code="en")
    first = await alice.send_text("/help")
    await answered(alice, first, within=10)
    count = 1
    for kind in ALLOWED_UPDATES:
        for _, body in shapes_of(kind):
            tg.queue_update(kind, personal(kind, body, alice))
            count += 1
    rows = await handled(door, count)
    assert len(rows) == count
    assert [row for row in rows if row[1] != "handled" or row[2] != 0] == []
    assert {row[0] for row in rows} == set(ALLOWED_UPDATES)
    await answered(alice, await alice.send_text("/help"))  # and the bot still hears
    assert door.restarts() == {}


async def test_kinds_telegram_should_not_send_are_handled_too(
    webhook_door: Door, tg: FakeTelegram
) -> None:
    """A webhook set by another tool may carry any kind: each is stored and handled."""
    alice = tg.user(ALICE, language_code="en")
    await answered(alice, await alice.send_text("/help"), within=10)
    others = [k for k in schema.fields_of(Update) if k not in (*ALLOWED_UPDATES, "update_id")]
    secret = tg.webhook_secret
    for number, kind in enumerate(others, start=500_000):
        body = personal(kind, shapes_of(kind)[1][1], alice)
        assert tg.webhook_target is not None
        status = await tg.deliver_webhook(
            tg.webhook_target, {"update_id": number, kind: body}, secret_token=secret
        )
        assert status == 200, kind
    await answered(alice, await alice.send_text("/help"))
    rows = await webhook_door.store.db.reader.execute_fetchall(
        "SELECT kind, outcome FROM inbox", {}
    )
    assert {row[0] for row in rows} >= set(others)
    assert [tuple(row) for row in rows if row[1] != "handled"] == []


def _magnet(name: str) -> str:
    return f"magnet:?xt=urn:btih:{secrets.token_hex(20)}&dn={name}"


async def test_magnets_are_taken_wherever_a_person_puts_them(
    polling_door: Door, tg: FakeTelegram
) -> None:
    alice = tg.user(ALICE, language_code="en")
    linked = _magnet("Linked.Movie.2020")
    text = "this one, please"
    await alice.send_text(
        text, entities=[{"type": "text_link", "offset": 0, "length": 4, "url": linked}]
    )
    await alice.send_photo(f"poster and link {_magnet('Photo.Caption.2021')}")
    await alice.send_document(
        "notes.txt", b"hello", caption=f"the link: {_magnet('Document.Caption.2022')}"
    )
    forwarded = personal("message", shapes_of("message")[0][1], alice) | {
        "message_id": 9_001,
        "text": f"from a channel: {_magnet('Forwarded.Post.2023')}",
        "forward_origin": {"type": "hidden_user", "date": 1, "sender_user_name": "Someone"},
    }
    tg.queue_update("message", forwarded)
    names = {"Linked.Movie.2020", "Photo.Caption.2021", "Document.Caption.2022"}
    names.add("Forwarded.Post.2023")
    for _ in range(100):
        downloads = await polling_door.store.downloads.list_downloads()
        if {d.name for d in downloads} >= names:
            break
        await asyncio.sleep(0.1)
    assert {d.name for d in await polling_door.store.downloads.list_downloads()} == names


async def test_an_edited_message_adds_only_its_new_magnets(
    polling_door: Door, tg: FakeTelegram
) -> None:
    alice = tg.user(ALICE, language_code="en")
    first, second = _magnet("Before.The.Edit.2020"), _magnet("Added.By.The.Edit.2021")
    sent = await alice.send_text(first)
    await answered(alice, sent, within=10)
    edited = personal("message", shapes_of("message")[0][1], alice) | {
        "message_id": sent.message_id,
        "text": f"{first}\n{second}",
        "edit_date": 2,
    }
    tg.queue_update("edited_message", edited)
    typo = edited | {"text": f"{first}\n{second} (fixed a word)", "edit_date": 3}
    tg.queue_update("edited_message", typo)
    for _ in range(100):
        names = {d.name for d in await polling_door.store.downloads.list_downloads()}
        if len(names) == 2:
            break
        await asyncio.sleep(0.1)
    assert names == {"Before.The.Edit.2020", "Added.By.The.Edit.2021"}
    await answered(alice, await alice.send_text("/help"))
    replies = [m for m in alice.bot_messages() if m.reply_to_message_id == sent.message_id]
    assert len(replies) == 2  # the first magnet, then the one the edit added; the typo: none
