"""Updates as the JSON Telegram sent (core/updates.py): kind, sender, chat, digest and
what a sane update is."""

import json

import pytest

from core import updates

ALICE = {"id": 7, "is_bot": False, "first_name": "A", "language_code": "ru"}
CHAT = {"id": 7, "type": "private"}


def test_the_sender_and_chat_of_each_kind() -> None:
    message = {"update_id": 1, "message": {"from": ALICE, "chat": CHAT, "text": "x"}}
    press = {
        "update_id": 2,
        "callback_query": {"id": "q", "from": ALICE, "message": {"chat": CHAT}},
    }
    inline = {"update_id": 3, "callback_query": {"id": "q", "from": ALICE}}
    channel = {"update_id": 4, "channel_post": {"chat": {"id": -100, "type": "channel"}}}
    assert updates.sender_of(message) == updates.Sender(7, "ru")
    assert updates.chat_of(message) == (7, "private")
    assert updates.chat_of(press) == (7, "private")
    assert updates.chat_of(inline) == (7, "private")  # a press outside a chat: the presser's
    assert updates.sender_of(channel) is None
    assert updates.kind_of(press) == "callback_query"


def test_the_digest_is_the_same_for_the_same_content_in_any_key_order() -> None:
    one = {"update_id": 1, "message": {"text": "x", "chat": CHAT}}
    other = json.loads(
        '{"message": {"chat": {"type": "private", "id": 7}, "text": "x"}, "update_id": 1}'
    )
    assert updates.digest(one) == updates.digest(other)
    assert updates.digest(one) != updates.digest({**one, "message": {"text": "y"}})


@pytest.mark.parametrize(
    "update",
    [
        [],
        {"message": {}},
        {"update_id": "1", "message": {"text": "x"}},
        {"update_id": True, "message": {"text": "x"}},
        {"update_id": 2**31, "message": {"text": "x"}},
        {"update_id": 1, "message": "x"},
        {"update_id": 1, "message": {}},
        {"update_id": 1, "message": {"x": 1}, "edited_message": {"x": 1}},
        {"update_id": 1, "message": {"chat": {"id": 2**60}}},
    ],
)
def test_what_is_not_an_update_is_said_why(update: object) -> None:
    assert updates.insanity(update) is not None


def test_nesting_is_bounded_and_deep_json_is_refused_before_parsing() -> None:
    deep: object = {"text": "x"}
    for _ in range(updates.MAX_DEPTH):
        deep = {"reply_to_message": deep}
    assert updates.insanity({"update_id": 1, "message": deep}) is not None
    with pytest.raises(ValueError, match="deeper"):
        updates.loads("[" * 10_000 + "]" * 10_000)
    with pytest.raises(ValueError, match="NaN"):
        updates.loads('{"update_id": NaN}')
    assert updates.insanity({"update_id": 1, "message": {"text": "x"}}) is None
