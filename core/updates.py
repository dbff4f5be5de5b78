"""Telegram updates as the JSON Telegram sent: which kind, who sent it, in which chat,
whether it is sane, and its digest (a replay has the same id and the same digest).

Pure: the front door stores the update as received and parses it with aiogram only
when it is handled, so no shape Telegram sends can stop reception (docs/telegram.md).
"""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]

MAX_DEPTH = 48  # Telegram's deepest objects nest ~15 levels (a reply in a callback's message)
MAX_UPDATE_ID = 2**31 - 1  # update ids are positive 32-bit numbers
MAX_SAFE_INT = 2**53  # ids of users and chats fit in 52 bits; nothing is larger
MAX_UPDATE_BYTES = 1024 * 1024  # a message is at most 4 096 characters plus its entities

# Kinds whose object carries the sender as ``from`` and the chat as ``chat``, or (a
# callback query) the chat of the message its button is on.
_CHAT_OF_MESSAGE = ("callback_query",)


@dataclass(frozen=True)
class Sender:
    id: int
    language_code: str | None


def kind_of(update: Mapping[str, Any]) -> str:
    """The update's kind: its one field besides ``update_id`` ("message", …)."""
    return next((key for key in update if key != "update_id"), "")


def body_of(update: Mapping[str, Any]) -> Json:
    body = update.get(kind_of(update))
    return body if isinstance(body, dict) else {}


def sender_of(update: Mapping[str, Any]) -> Sender | None:
    """The person the update is from (None: a channel post, an anonymous admin…)."""
    sender = body_of(update).get("from")
    if not isinstance(sender, dict) or type(sender.get("id")) is not int:
        return None
    if sender.get("is_bot") is True:
        return None
    language = sender.get("language_code")
    return Sender(sender["id"], language if isinstance(language, str) else None)


def chat_of(update: Mapping[str, Any]) -> tuple[int, str] | None:
    """(chat id, chat type) of the update; a button press outside any chat (inline
    mode) is the presser's own private chat."""
    body = body_of(update)
    holder = body.get("message") if kind_of(update) in _CHAT_OF_MESSAGE else body
    chat = holder.get("chat") if isinstance(holder, dict) else None
    if isinstance(chat, dict) and type(chat.get("id")) is int:
        return chat["id"], str(chat.get("type") or "")
    sender = sender_of(update)
    if kind_of(update) in _CHAT_OF_MESSAGE and sender is not None:
        return sender.id, "private"
    return None


def digest(update: Mapping[str, Any]) -> str:
    """The content's fingerprint, the same for the same JSON whatever its key order."""
    canonical = json.dumps(update, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def insanity(update: object) -> str | None:
    """Why ``update`` is not an update Telegram could have sent, or None when it is
    one: an object with an ``update_id`` in range and one kind, no deeper than
    ``MAX_DEPTH``, and no number past what Telegram's ids use."""
    if not isinstance(update, dict):
        return "not an object"
    update_id = update.get("update_id")
    if type(update_id) is not int or not 0 <= update_id <= MAX_UPDATE_ID:
        return "update_id is not a number from 0 to 2^31-1"
    if len(update) != 2 or not isinstance(body_of(update), dict) or not body_of(update):
        return "not exactly one kind of update"
    return _deep_problem(update)


def _deep_problem(value: object) -> str | None:
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_SAFE_INT:
            return "a number out of range"
    return None


def loads(data: bytes | str) -> object:
    """JSON as an update may hold it; ValueError for anything else, too deep included
    (Python's parser would raise RecursionError)."""
    try:
        return json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number Telegram sends")
