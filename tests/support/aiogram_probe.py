"""Run as ``python -m tests.support.aiogram_probe lazy|eager`` by
``tests/bot/test_lazy_aiogram.py``: imports aiogram through ``bot`` (lazy) or alone
(eager, as upstream builds it), then prints as JSON how many of its types were built at
import and what it reads and writes: the least and the fullest shapes of each update
kind the bot takes, a method with nested types as the bot sends it, and the
replies a session reads back (``Response[…]``, aiogram/client/session/base.py)."""

import json
import sys
from typing import Any

if sys.argv[1:] == ["lazy"]:
    import bot

    assert bot.AIOGRAM_TYPES, "aiogram no longer rebuilds its types at import: bot/__init__.py"

import aiogram.types
from aiogram.methods import GetUpdates, SendMessage
from aiogram.methods.base import Response
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.inbox import ALLOWED_UPDATES


def built() -> int:
    types = (getattr(aiogram.types, name) for name in aiogram.types.__all__)
    return sum(1 for kind in types if getattr(kind, "__pydantic_complete__", False))


def main() -> None:
    at_import = built()
    from tests.support import botapi_schema as schema  # rebuilds what it describes

    read: list[Any] = []
    for kind in ALLOWED_UPDATES:  # every other kind: tests/bot/test_update_shapes.py
        (model,) = schema.alternatives(schema.fields_of(Update)[kind].annotation)
        for label, body in schema.shapes(model):
            if label.startswith(("minimal", "maximal")):  # maximal: every field, in turns
                update = Update.model_validate({"update_id": 1, kind: body})
                written = update.model_dump(mode="json", exclude_unset=True, by_alias=True)
                read.append([kind, label, written])
    button = InlineKeyboardButton(text="x", callback_data="c")
    markup = InlineKeyboardMarkup(inline_keyboard=[[button]])
    sent = SendMessage(chat_id=1, text="x", reply_markup=markup, parse_mode=None)
    read.append(["send", "", sent.model_dump(mode="json", exclude_unset=True)])
    message = {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}, "text": "x"}
    replies = ((sent, message), (GetUpdates(), [{"update_id": 1, "message": message}]))
    for method, result in replies:
        returning = method.__returning__
        answer = Response[returning].model_validate({"ok": True, "result": result})  # type: ignore[valid-type]
        read.append(["reply", str(returning), answer.model_dump(mode="json", exclude_unset=True)])
    print(json.dumps({"built_at_import": at_import, "read": read}))


main()
