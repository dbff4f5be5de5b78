"""The fake Bot API (the sandbox's server and the tests' one) held to the Bot API's
published description, as aiogram's types hold it (tests/support/botapi_schema.py).

Every object the fakes answer with, for every method jellybit calls, and every update
they hand out, is checked field by field: no field the description lacks, no required
field missing, no value of the wrong type — and the fields Telegram fills in such an
object are there (a sent message with link preview options carries them, and so does
the message a button press brings). ``tests/data/botapi_fields.json`` records the
fields the description has for each of these types today: when aiogram brings one
more, the test names it, and whoever updates the file decides whether the fakes fill it.
"""

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiogram.types import (
    CallbackQuery,
    Chat,
    File,
    LinkPreviewOptions,
    Message,
    MessageEntity,
    PhotoSize,
    TelegramObject,
    Update,
    User,
    WebhookInfo,
)

from sandbox.botapi import Person
from tests.support import botapi_schema as schema
from tests.support.telegram import FakeTelegram
from tests.support.tmdb import FakeTmdb

Json = dict[str, Any]
FIELDS_FILE = Path(__file__).parent.parent / "data" / "botapi_fields.json"
CHECKED: tuple[type[TelegramObject], ...] = (
    Update, Message, User, Chat, CallbackQuery, MessageEntity, LinkPreviewOptions, PhotoSize,
    File, WebhookInfo,
)  # fmt: skip
USER = 42
# What Telegram fills in a message the bot sent with these options (the Bot API's
# description of each field says when it is there).
SENT_MESSAGE = {
    "message_id", "from", "chat", "date", "text", "entities", "link_preview_options",
    "reply_markup", "reply_to_message",
}  # fmt: skip


async def call(tg: FakeTelegram, method: str, **params: Any) -> Any:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{tg.base_url}/bot{tg.token}/{method}", json=params) as response,
    ):
        body = await response.json()
    assert body["ok"], body
    return body["result"]


def assert_valid(value: Any, model: type[TelegramObject]) -> None:
    assert schema.problems(value, model, model.__name__) == []


async def test_the_description_has_the_fields_the_fakes_were_checked_against() -> None:
    recorded = json.loads(FIELDS_FILE.read_text())
    now = {model.__name__: sorted(schema.fields_of(model)) for model in CHECKED}
    changed = {
        name: {
            "added": sorted(set(now[name]) - set(recorded.get(name, []))),
            "gone": sorted(set(recorded.get(name, [])) - set(now[name])),
        }
        for name in now
        if now[name] != recorded.get(name)
    }
    assert changed == {}, (
        "the Bot API's description changed: decide whether the fakes fill these fields, "
        f"then write {FIELDS_FILE.name} anew:\n{json.dumps(now, indent=1)}"
    )


async def test_what_jellybit_sends_comes_back_as_telegram_answers(tg: FakeTelegram) -> None:
    person = tg.user(USER, first_name="Ann", language_code="en", username="ann")
    asked = await person.send_text("/start")
    keyboard = {"inline_keyboard": [[{"text": "Cancel", "callback_data": "j1:cancel:x"}]]}
    sent = await call(
        tg,
        "sendMessage",
        chat_id=USER,
        text="✅ <b>Dune</b> accepted",
        parse_mode="HTML",
        link_preview_options={"is_disabled": True},
        reply_markup=keyboard,
        reply_parameters={"message_id": asked.message_id},
    )
    assert_valid(sent, Message)
    assert set(sent) == SENT_MESSAGE
    assert sent["link_preview_options"] == {"is_disabled": True}
    assert sent["entities"] == [{"type": "bold", "offset": 2, "length": 4}]
    edited = await call(
        tg,
        "editMessageText",
        chat_id=USER,
        message_id=sent["message_id"],
        text="⬇️ <b>Dune</b> 50%",
        parse_mode="HTML",
        link_preview_options={"is_disabled": True},
        reply_markup=keyboard,
    )
    assert_valid(edited, Message)
    assert set(edited) == SENT_MESSAGE | {"edit_date"}
    assert_valid(await call(tg, "getMe"), User)
    assert_valid(await call(tg, "getWebhookInfo"), WebhookInfo)


async def test_the_updates_handed_out_are_telegram_updates(tg: FakeTelegram) -> None:
    person = tg.user(USER, first_name="Ann", language_code="en")
    first = await person.send_text("/start")
    keyboard = {"inline_keyboard": [[{"text": "Cancel", "callback_data": "j1:cancel:x"}]]}
    sent = await call(
        tg,
        "sendMessage",
        chat_id=USER,
        text="hello",
        link_preview_options={"is_disabled": True},
        reply_markup=keyboard,
    )
    await person.send_text("a hint", reply_to=person.messages()[-1])
    await person.send_photo("a caption")
    await person.send_document("x.torrent", b"d4:infod4:name1:xee", caption="doc")
    pressed = next(m for m in person.messages() if m.message_id == sent["message_id"])
    await Person.press(person, pressed, "Cancel", timeout=0.01)  # nobody answers it here
    updates = await call(tg, "getUpdates", timeout=0)
    assert len(updates) == 5
    for update in updates:
        assert_valid(update, Update)
    assert updates[0]["message"]["message_id"] == first.message_id
    reply = updates[1]["message"]
    assert reply["reply_to_message"]["link_preview_options"] == {"is_disabled": True}
    assert {"photo", "caption"} <= set(updates[2]["message"])
    assert {"document", "caption"} <= set(updates[3]["message"])
    press = updates[4]["callback_query"]
    assert press["message"]["link_preview_options"] == {"is_disabled": True}  # as it is held
    file = await call(tg, "getFile", file_id=updates[3]["message"]["document"]["file_id"])
    assert_valid(file, File)


@pytest.mark.parametrize("model", CHECKED, ids=lambda m: m.__name__)
def test_the_schema_check_refuses_what_telegram_would_not_send(
    model: type[TelegramObject],
) -> None:
    """The check itself can fail: a field the description lacks, a required one gone."""
    good = schema.build(model, full=False)
    assert schema.problems(good, model) == []
    assert schema.problems({**good, "no_such_field": 1}, model) != []
    required = [name for name, f in schema.fields_of(model).items() if f.required]
    if required:
        missing = {k: v for k, v in good.items() if k != required[0]}
        assert schema.problems(missing, model) != []


async def test_a_photo_and_its_edits_come_back_as_telegram_answers(tg: FakeTelegram) -> None:
    """sendPhoto (by an uploaded file: the fakes fetch URLs as Telegram does, and
    tests/integration/test_web_review.py sends them), editMessageCaption and
    editMessageReplyMarkup: a photo message has ``photo`` sizes and a ``caption``, no
    ``text``; a caption past 1 024 characters and an unfetchable URL are refused."""
    tg.user(USER, first_name="Ann", language_code="en")
    await tg.user(USER, first_name="Ann").send_text("/start")
    keyboard = {"inline_keyboard": [[{"text": "Dune (2021)", "callback_data": "j1p:a:b"}]]}
    async with aiohttp.ClientSession() as http:
        form = aiohttp.FormData()
        form.add_field("chat_id", str(USER))
        form.add_field("caption", "🤔 <b>Dune</b> (2021)")
        form.add_field("parse_mode", "HTML")
        form.add_field("reply_markup", json.dumps(keyboard))
        form.add_field("photo", b"\xff\xd8\xff\xd9", filename="poster.jpg")
        async with http.post(f"{tg.base_url}/bot{tg.token}/sendPhoto", data=form) as response:
            sent = (await response.json())["result"]
    assert_valid(sent, Message)
    assert set(sent) == {"message_id", "from", "chat", "date", "photo", "caption",
                         "caption_entities", "reply_markup"}  # fmt: skip
    for size in sent["photo"]:
        assert_valid(size, PhotoSize)
    captioned = await call(
        tg, "editMessageCaption", chat_id=USER, message_id=sent["message_id"],
        caption="✅ Dune (2021)", reply_markup={"inline_keyboard": []},
    )  # fmt: skip
    assert_valid(captioned, Message)
    assert captioned["caption"] == "✅ Dune (2021)"
    assert "text" not in captioned
    assert "edit_date" in captioned
    assert_valid(
        await call(
            tg, "editMessageReplyMarkup", chat_id=USER, message_id=sent["message_id"],
            reply_markup=keyboard,
        ),
        Message,
    )  # fmt: skip
    async with aiohttp.ClientSession() as http:
        for params in (
            {"chat_id": USER, "photo": "https://image.example.invalid/x.jpg"},
            {"chat_id": USER, "photo": "AgAC-not-a-file", "caption": "x"},
            {"chat_id": USER, "message_id": sent["message_id"], "caption": "x" * 1025},
        ):
            method = "editMessageCaption" if "message_id" in params else "sendPhoto"
            async with http.post(f"{tg.base_url}/bot{tg.token}/{method}", json=params) as answer:
                body = await answer.json()
            assert (answer.status, body["ok"]) == (400, False), params


async def test_a_text_becomes_a_photo_and_a_message_is_deleted_as_telegram_does(
    tg: FakeTelegram,
) -> None:
    """editMessageMedia replaces a text message by a photo with a caption (the Bot API
    allows it since 2025: "or to replace a text … with a media"); deleteMessage answers
    ``true``, a message gone with "message to delete not found", and one sent over 48
    hours ago with "message can't be deleted for everyone"."""
    person = tg.user(USER, first_name="Ann", language_code="en")
    await person.send_text("/start")
    sent = await call(tg, "sendMessage", chat_id=USER, text="⬇️ <b>Dune</b>", parse_mode="HTML")
    async with FakeTmdb() as tmdb:
        photo = f"{tmdb.images_url}/w500/d5NXSklXo0qyIYkgV94XAgMIckC.jpg"
        media = {"type": "photo", "media": photo, "caption": "🤔 <b>Dune</b>", "parse_mode": "HTML"}
        edited = await call(tg, "editMessageMedia", chat_id=USER, message_id=sent["message_id"],
                            media=media)  # fmt: skip
    assert_valid(edited, Message)
    assert edited["caption"] == "🤔 Dune"
    assert "text" not in edited
    assert edited["photo"]
    assert await call(tg, "deleteMessage", chat_id=USER, message_id=sent["message_id"]) is True
    async with aiohttp.ClientSession() as http:
        url = f"{tg.base_url}/bot{tg.token}/deleteMessage"
        gone = {"chat_id": USER, "message_id": sent["message_id"]}
        async with http.post(url, json=gone) as answer:
            assert (answer.status, (await answer.json())["description"]) == (
                400, "Bad Request: message to delete not found"
            )  # fmt: skip
        old = await call(tg, "sendMessage", chat_id=USER, text="old")
        person.chat.messages[old["message_id"]].date -= 49 * 3600
        async with http.post(url, json={"chat_id": USER, "message_id": old["message_id"]}) as a:
            assert (await a.json())["description"] == (
                "Bad Request: message can't be deleted for everyone"
            )
