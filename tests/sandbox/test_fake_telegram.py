"""The fake Telegram (the sandbox's Bot API server and the tests' additions) answers
jellybit's real aiogram Bot the way Telegram does."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramConflictError,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.filters import Command, CommandStart
from aiogram.methods import SendMessage
from aiogram.types import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)
from aiogram.types import Message as TgMessage
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiohttp import web

from sandbox.botapi import (
    NOT_MODIFIED,
    QUERY_TOO_OLD,
    BotApiServer,
    Button,
    CallbackAnswer,
    HtmlParseError,
    NoSuchButton,
    parse_html,
)
from tests.support.telegram import FakeTelegram, FakeUser

USER_ID = 42
PARSE = "Bad Request: can't parse entities: "


def make_bot(tg: BotApiServer, token: str | None = None) -> Bot:
    api = TelegramAPIServer.from_base(tg.base_url)
    return Bot(token or tg.token, session=AiohttpSession(api=api))


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    bot = make_bot(tg)
    yield bot
    await bot.session.close()


@pytest.fixture
async def user(tg: FakeTelegram) -> FakeUser:
    """A person who has written to the bot, so the bot may write to them."""
    person = tg.user(USER_ID)
    await person.send_text("/start")
    return person


def keyboard(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    row = [InlineKeyboardButton(text=text, callback_data=data) for text, data in buttons]
    return InlineKeyboardMarkup(inline_keyboard=[row])


async def test_get_me(tg: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (bot.id, "jellybit_test_bot", True)
    assert tg.calls_to("getMe")[0].status == 200


async def test_wrong_token_and_unknown_method(tg: FakeTelegram) -> None:
    other = make_bot(tg, "654321:other-token")
    with pytest.raises(TelegramUnauthorizedError, match="Unauthorized"):
        await other.get_me()
    await other.session.close()
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{tg.base_url}/bot{tg.token}/sendPigeon", data={"chat_id": "1"}) as resp,
    ):
        assert resp.status == 404
        assert await resp.json() == {"ok": False, "error_code": 404, "description": "Not Found"}


async def test_chat_must_have_written_first(tg: FakeTelegram, bot: Bot) -> None:
    person = tg.user(7)
    with pytest.raises(TelegramBadRequest) as refused:
        await bot.send_message(7, "hello")
    assert refused.value.message == "Bad Request: chat not found"
    await person.send_text("hi")
    await bot.send_message(7, "hello")
    person.block()
    with pytest.raises(TelegramForbiddenError, match="bot was blocked by the user"):
        await bot.send_message(7, "still there?")


async def test_html_is_shown_as_plain_text(bot: Bot, user: FakeUser) -> None:
    html = "<b>Dune</b> &lt;2021&gt; R&D > 4K &amp; <i>HDR</i>"
    sent = await bot.send_message(USER_ID, html, parse_mode="HTML")
    seen = user.last_bot_message()
    assert seen.text == sent.text == "Dune <2021> R&D > 4K & HDR"
    assert seen.html == html
    assert [(e.type, e.offset, e.length) for e in sent.entities or []] == [
        ("bold", 0, 4),
        ("italic", 23, 3),
    ]


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("Dune <2021>.mkv", 'Unsupported start tag "2021" at byte offset 5'),
        ("a < b", 'Unsupported start tag "" at byte offset 2'),
        ("Фильм <b", "Unclosed start tag at byte offset 11"),
        ("<b>bold", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<br>", 'Unsupported start tag "br" at byte offset 0'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ],
)
async def test_html_telegram_refuses(bot: Bot, user: FakeUser, html: str, error: str) -> None:
    with pytest.raises(TelegramBadRequest) as refused:
        await bot.send_message(USER_ID, html, parse_mode="HTML")
    assert refused.value.message == PARSE + error
    assert user.bot_messages() == []


@pytest.mark.parametrize(
    ("html", "plain", "entities"),
    [  # cases from tdlib's own tests (test/message_entities.cpp)
        ("&lt;&gt;&amp;&quot;&laquo;&#12345678;", '<>&"&laquo;&#12345678;', []),
        ("🏟 🏟<i>🏟 &lt🏟</i>", "🏟 🏟🏟 <🏟", [("italic", 5, 6)]),
        ("🏟 🏟<i>🏟 &gt;<b aba = caba>&lt🏟</b></i>", "🏟 🏟🏟 ><🏟", [("italic", 5, 7), ("bold", 9, 3)]),
        ("<a href=telegram.org> </a>", " ", [("text_link", 0, 1)]),
        ('<pre><code class="language-py">x</code></pre>', "x", [("pre", 0, 1)]),
        ("<blockquote expandable>q</blockquote>", "q", [("expandable_blockquote", 0, 1)]),
    ],
)
def test_parse_html_matches_tdlib(
    html: str, plain: str, entities: list[tuple[str, int, int]]
) -> None:
    text, parsed = parse_html(html)
    assert (text, [(e["type"], e["offset"], e["length"]) for e in parsed]) == (plain, entities)


def test_parse_html_errors_count_utf8_bytes() -> None:
    with pytest.raises(HtmlParseError, match=r"^Unclosed start tag at byte offset 13$"):
        parse_html("🏟 🏟&lt;<abacaba")


async def test_text_length_counts_parsed_text(bot: Bot, user: FakeUser) -> None:
    await bot.send_message(USER_ID, "x" * 4096)
    await bot.send_message(USER_ID, "&amp;" * 4096, parse_mode="HTML")
    assert user.last_bot_message().text == "&" * 4096
    for text, mode, error in [
        ("x" * 4097, None, "Bad Request: message is too long"),
        ("  \n ", None, "Bad Request: message text is empty"),
        ("<b> </b>", "HTML", "Bad Request: message text is empty"),
    ]:
        with pytest.raises(TelegramBadRequest) as refused:
            await bot.send_message(USER_ID, text, parse_mode=mode)
        assert refused.value.message == error


async def test_inline_keyboard_rules(bot: Bot, user: FakeUser) -> None:
    await bot.send_message(USER_ID, "64 bytes", reply_markup=keyboard(("ok", "я" * 32)))
    assert user.last_bot_message().buttons == [[Button("ok", "я" * 32)]]
    for markup, error in [
        (keyboard(("too long", "я" * 32 + "x")), "Bad Request: BUTTON_DATA_INVALID"),
        (keyboard(("empty", "")), "Bad Request: BUTTON_DATA_INVALID"),
        (
            InlineKeyboardMarkup(
                inline_keyboard=[[InlineKeyboardButton(text="web", url="http://localhost:8096")]]
            ),
            "Bad Request: BUTTON_URL_INVALID",
        ),
    ]:
        with pytest.raises(TelegramBadRequest) as refused:
            await bot.send_message(USER_ID, "refused", reply_markup=markup)
        assert refused.value.message == error
    link = InlineKeyboardButton(text="Open", url="https://jellyfin.example/web")
    await bot.send_message(
        USER_ID, "link", reply_markup=InlineKeyboardMarkup(inline_keyboard=[[link]])
    )
    assert user.last_bot_message().buttons == [[Button("Open", url="https://jellyfin.example/web")]]


async def test_edits(bot: Bot, user: FakeUser) -> None:
    sent = await bot.send_message(USER_ID, "Pick one", reply_markup=keyboard(("A", "a")))
    with pytest.raises(TelegramBadRequest) as refused:
        await bot.edit_message_text(
            "Pick one",
            chat_id=USER_ID,
            message_id=sent.message_id,
            reply_markup=keyboard(("A", "a")),
        )
    assert refused.value.message == NOT_MODIFIED
    # Same text and no reply_markup: Telegram removes the keyboard, so it is a change.
    await bot.edit_message_text("Pick one", chat_id=USER_ID, message_id=sent.message_id)
    seen = user.last_bot_message()
    assert (seen.text, seen.buttons, seen.edits) == ("Pick one", [], 1)
    with pytest.raises(TelegramBadRequest) as refused:
        await bot.edit_message_text("x", chat_id=USER_ID, message_id=999)
    assert refused.value.message == "Bad Request: message to edit not found"


async def test_429_is_raised_with_retry_after(tg: FakeTelegram, bot: Bot, user: FakeUser) -> None:
    tg.fail_next("sendMessage", retry_after=7)
    with pytest.raises(TelegramRetryAfter) as limited:
        await bot.send_message(USER_ID, "hello")
    assert limited.value.retry_after == 7
    assert isinstance(limited.value.method, SendMessage)
    assert "Too Many Requests: retry after 7" in limited.value.message
    await bot.send_message(USER_ID, "hello")  # the resend, which aiogram leaves to the caller
    first, resend = tg.calls_to("sendMessage")
    assert (first.status, resend.status) == (429, 200)
    assert resend.at >= first.at
    assert [m.text for m in user.bot_messages()] == ["hello"]


async def test_server_error(tg: FakeTelegram, bot: Bot) -> None:
    tg.fail_next("getMe", status=502)
    with pytest.raises(TelegramServerError, match="Bad Gateway"):
        await bot.get_me()


async def test_down_closes_connections(tg: FakeTelegram, bot: Bot) -> None:
    held = asyncio.create_task(bot.get_updates(timeout=10))
    await asyncio.sleep(0.1)
    tg.set_down(True)
    with pytest.raises(TelegramNetworkError):
        await asyncio.wait_for(held, 2)  # a held long poll is cut too
    with pytest.raises(TelegramNetworkError, match="Server disconnected"):
        await bot.get_me()
    tg.set_down(False)
    assert (await bot.get_me()).username == "jellybit_test_bot"


async def test_long_polling_returns_promptly(tg: FakeTelegram, bot: Bot) -> None:
    person = tg.user(USER_ID, first_name="Ann", username="ann")
    poll = asyncio.create_task(bot.get_updates(timeout=10, allowed_updates=["message"]))
    await asyncio.sleep(0.2)
    assert not poll.done()
    started = time.monotonic()
    await person.send_text("magnet:?xt=urn:btih:abc")
    updates = await asyncio.wait_for(poll, 2)
    assert time.monotonic() - started < 1.5
    [update] = updates
    assert update.message is not None
    assert update.message.from_user is not None
    assert update.message.text == "magnet:?xt=urn:btih:abc"
    assert (update.message.chat.id, update.message.chat.type) == (USER_ID, "private")
    assert (update.message.from_user.first_name, update.message.from_user.language_code) == (
        "Ann",
        "ru",
    )
    assert await bot.get_updates(offset=update.update_id) != []  # not acknowledged yet
    assert await bot.get_updates(offset=update.update_id + 1, timeout=0) == []
    assert tg.pending_updates == []


async def test_document_round_trip(tg: FakeTelegram, bot: Bot, user: FakeUser) -> None:
    data = b"d8:announce0:4:infod4:name4:Dunee" * 100
    await bot.get_updates(offset=-1)  # skip /start
    sent = await user.send_document("Dune.torrent", data, caption="this one")
    [update] = await bot.get_updates(offset=tg.pending_updates[-1]["update_id"], timeout=1)
    message = update.message
    assert message is not None
    assert message.document is not None
    assert (message.caption, message.document.file_name) == ("this one", "Dune.torrent")
    assert message.document.mime_type == "application/x-bittorrent"
    file = await bot.get_file(message.document.file_id)
    assert file.file_size == len(data)
    downloaded = await bot.download(message.document)
    assert isinstance(downloaded, io.BytesIO)
    assert downloaded.getvalue() == data
    assert sent.document is not None
    assert sent.text == "this one"


async def test_press_reaches_the_bot_and_back(tg: FakeTelegram, bot: Bot, user: FakeUser) -> None:
    await bot.get_updates(offset=-1)
    sent = await bot.send_message(USER_ID, "Download?", reply_markup=keyboard(("Yes", "dl:1")))
    press = asyncio.create_task(user.press(user.last_bot_message(), "Yes"))
    updates = await bot.get_updates(offset=tg.pending_updates[-1]["update_id"], timeout=5)
    query = updates[-1].callback_query
    assert query is not None
    assert query.data == "dl:1"
    assert query.from_user.id == USER_ID
    assert isinstance(query.message, TgMessage)
    assert query.message.message_id == sent.message_id
    await bot.answer_callback_query(query.id, text="Queued", show_alert=True)
    assert await press == CallbackAnswer("Queued", show_alert=True)
    with pytest.raises(TelegramBadRequest) as refused:
        await bot.answer_callback_query(query.id)
    assert refused.value.message == QUERY_TOO_OLD
    with pytest.raises(AssertionError, match="did not answer"):
        await user.press(user.last_bot_message(), "Yes", timeout=0.2)
    with pytest.raises(AssertionError, match="no button 'No'"):
        await user.press(user.last_bot_message(), "No")


async def test_the_sandbox_person_presses_without_assertions() -> None:
    """The sandbox's own server and person (what the /sandbox page uses): a press the bot
    does not answer is None, a press that cannot happen is NoSuchButton."""
    async with BotApiServer(token="1000001:sandbox", bot_username="sandbox_bot") as server:
        bot = make_bot(server)
        try:
            person = server.user(USER_ID, first_name="Ann", language_code="en")
            await person.send_text("/start")
            link = InlineKeyboardButton(text="Open", url="https://jellybit.example.org/x")
            yes = InlineKeyboardButton(text="Yes", callback_data="yes")
            await bot.send_message(
                USER_ID, "Pick", reply_markup=InlineKeyboardMarkup(inline_keyboard=[[yes, link]])
            )
            message = person.messages()[-1]
            assert await person.press(message, "Yes", timeout=0.2) is None
            for button in ("No", "Open"):
                with pytest.raises(NoSuchButton):
                    await person.press(message, button)
            with pytest.raises(TelegramNotFound):
                await bot.get_webhook_info()  # jellybit check's: a tests' method
        finally:
            await bot.session.close()


async def test_the_sandbox_server_answers_a_command_that_names_the_bot() -> None:
    """aiogram's Command filter asks getMe for ``/help@<bot>``: the sandbox person can type
    it (updates fed to the dispatcher as jellybit's inbox does, not by start_polling)."""
    async with BotApiServer(token="1000001:sandbox", bot_username="sandbox_bot") as server:
        bot = make_bot(server)
        router = Router()

        @router.message(Command("help"))
        async def help_(message: TgMessage) -> None:
            await message.answer("Help")

        dp = Dispatcher()
        dp.include_router(router)
        try:
            person = server.user(USER_ID, first_name="Ann", language_code="en")
            await person.send_text("/help@sandbox_bot")
            for update in await bot.get_updates(timeout=1):
                await dp.feed_update(bot, update)
            assert [m.text for m in person.messages()] == ["/help@sandbox_bot", "Help"]
        finally:
            await bot.session.close()


async def test_dispatcher_polling_end_to_end(tg: FakeTelegram, bot: Bot) -> None:
    router = Router()

    @router.message(CommandStart())
    async def start(message: TgMessage) -> None:
        await message.answer("Pick", reply_markup=keyboard(("A", "pick:a"), ("B", "pick:b")))

    @router.callback_query(F.data.startswith("pick:"))
    async def pick(callback: CallbackQuery) -> None:
        assert isinstance(callback.message, TgMessage)
        await callback.message.edit_text(f"Picked {callback.data}")
        await callback.answer("ok")

    dp = Dispatcher()
    dp.include_router(router)
    polling = asyncio.create_task(
        dp.start_polling(bot, handle_signals=False, close_bot_session=False, polling_timeout=5)
    )
    person = tg.user(USER_ID)
    await person.send_text("/start")
    menu = await person.wait_for(lambda m: m.from_bot and m.text == "Pick")
    assert menu.button_texts == ["A", "B"]
    assert await person.press(menu, "B") == CallbackAnswer("ok")
    picked = person.last_bot_message()
    assert (picked.message_id, picked.text, picked.buttons, picked.edits) == (
        menu.message_id,
        "Picked pick:b",
        [],
        1,
    )
    await dp.stop_polling()
    await polling


async def test_webhook_delivery(tg: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()

    @dp.message(CommandStart())
    async def start(message: TgMessage) -> SendMessage:
        return message.answer("hi from a webhook answer")  # Telegram runs the returned method

    app = web.Application()
    SimpleRequestHandler(dp, bot, handle_in_background=False, secret_token="s3cret").register(
        app, path="/tg"
    )
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    local = f"http://127.0.0.1:{runner.addresses[0][1]}/tg"
    try:
        with pytest.raises(TelegramBadRequest, match="An HTTPS URL must be provided"):
            await bot.set_webhook(local)
        await bot.set_webhook("https://jellybit.example/tg", secret_token="s3cret")
        assert (await bot.get_webhook_info()).url == "https://jellybit.example/tg"
        assert tg.webhook_secret == "s3cret"
        with pytest.raises(TelegramConflictError, match="webhook is active"):
            await bot.get_updates()

        person = tg.user(USER_ID)
        tg.webhook_target = local  # where "https://jellybit.example/tg" really is
        await person.send_text("/start")
        reply = await person.wait_for(lambda m: m.from_bot)
        assert reply.text == "hi from a webhook answer"
        assert [status for _, status in tg.webhook_deliveries] == [200]

        update = {
            "update_id": 900,
            "message": {
                "message_id": 900,
                "date": int(time.time()),
                "chat": {"id": USER_ID, "type": "private", "first_name": "Test"},
                "from": {"id": USER_ID, "is_bot": False, "first_name": "Test"},
                "text": "/start",
            },
        }
        assert await tg.deliver_webhook(local, update) == 401
        assert await tg.deliver_webhook(local, update, secret_token="wrong") == 401
        assert await tg.deliver_webhook(local, update, secret_token="s3cret") == 200
        assert len(person.bot_messages()) == 2
    finally:
        await runner.cleanup()


async def test_group_chat(tg: FakeTelegram, bot: Bot) -> None:
    person = tg.user(USER_ID)
    in_group = tg.group(person, -1001234567890, title="Family")
    await in_group.send_text("/start@jellybit_test_bot")
    [update] = await bot.get_updates()
    assert update.message is not None
    assert update.message.chat.type == "supergroup"
    assert update.message.from_user is not None
    assert update.message.from_user.id == USER_ID
    await bot.send_message(-1001234567890, "hello, family")
    assert in_group.last_bot_message().text == "hello, family"
    assert person.messages() == []  # the private chat is another chat


async def test_the_sandbox_server_numbers_on_across_restarts(tmp_path: Path) -> None:
    """Like Telegram, a restarted sandbox never hands out an update or message id again."""
    state = tmp_path / "telegram.json"
    ids = []
    for _ in range(2):
        async with BotApiServer(token="1:x", bot_username="b", state=state) as server:
            person = server.user(5, first_name="P", language_code="en")
            sent = await person.send_text("hi")
            ids.append((server._updates[-1]["update_id"], sent.message_id))
    assert ids[1][0] == ids[0][0] + 1
    assert ids[1][1] == ids[0][1] + 1
