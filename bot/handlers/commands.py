"""/start, /help, /list, /status [id], /library <words>, and any other /command."""

from aiogram import Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot.callbacks import ListPage, StatusOf
from bot.inbox import Turn
from bot.links import Links
from bot.sender import answer_query, send
from bot.texts import (
    display_name,
    help_text,
    library_text,
    list_text,
    not_found_text,
    outdated_text,
    recent_text,
    shorten,
    unknown_command_text,
)
from bot.views import Views
from common.i18n import Texts
from common.logs import for_download, get_logger
from core import clock
from core.ids import parse_id
from core.magnet import find_magnets
from core.models import Download
from core.states import ACTIVE, State
from store import Store
from store.inbox import Reply

PAGE = 10  # downloads a /list message shows; "More" shows the next ones
FINISHED = 5  # finished downloads /list offers when nothing is active
RECENT = 8  # downloads /status without an id offers
LIMIT = 1000  # downloads /list looks at, at most


def router() -> Router:
    commands = Router(name="commands")
    commands.message.register(cmd_start, CommandStart())
    commands.message.register(cmd_help, Command("help"))
    commands.message.register(cmd_list, Command("list"))
    commands.message.register(cmd_status, Command("status"))
    commands.message.register(cmd_library, Command("library"))
    commands.message.register(cmd_unknown, _unknown_command)
    commands.callback_query.register(on_list_page, ListPage.filter())
    commands.callback_query.register(on_status_of, StatusOf.filter())
    return commands


def _unknown_command(message: Message) -> bool:
    """A /command this router has no handler for (a magnet in it is still taken)."""
    text = message.text or ""
    return text[1:2].isalpha() and text.startswith("/") and not find_magnets(text)


async def cmd_unknown(message: Message, tx: Texts, turn: Turn) -> None:
    command = (message.text or "").split(maxsplit=1)[0]
    await turn.reply(Reply(unknown_command_text(tx, command), reply_to=message.message_id))


async def cmd_start(message: Message, tx: Texts, turn: Turn) -> None:
    text = tx("Hello! I download what you send me into your Jellyfin library.")
    await turn.reply(Reply(text + "\n\n" + help_text(tx)))


async def cmd_help(message: Message, tx: Texts, turn: Turn) -> None:
    await turn.reply(Reply(help_text(tx)))


async def cmd_list(message: Message, tx: Texts, store: Store, links: Links, turn: Turn) -> None:
    text, markup = await list_page(tx, store, links, message.chat.id, 0)
    await turn.reply(Reply(text, markup.model_dump_json(exclude_none=True) if markup else None))


async def on_list_page(
    query: CallbackQuery, callback_data: ListPage, tx: Texts, store: Store, links: Links
) -> None:
    """ "More": the message shows the next page of the list."""
    await answer_query(query)
    text, markup = await list_page(tx, store, links, query.from_user.id, callback_data.page)
    message = query.message
    if isinstance(message, Message):
        try:
            await send(
                "edit_message_text",
                lambda: message.edit_text(text, reply_markup=markup),
                chat_id=message.chat.id,
                idempotent=True,
            )
        except TelegramAPIError as error:  # the old page stays; pressing again works
            get_logger().info("telegram.list_page_not_shown", reason=str(error)[:200])


async def list_page(
    tx: Texts, store: Store, links: Links, user_id: int, page: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    """One page of the active downloads, as a text and a button per download; with
    none, the latest finished ones."""
    downloads = await store.downloads.list_downloads(states=ACTIVE, limit=LIMIT)
    if not downloads:
        return await _finished(tx, store, links, user_id)
    start = max(0, page) * PAGE
    shown = downloads[start : start + PAGE]
    now = clock.now_ms() // 1000
    rows = [
        [
            InlineKeyboardButton(
                text=f"{number}. {display_name(d)}"[:60], url=links.download(d.id, user_id, now)
            )
        ]
        for number, d in enumerate(shown, start=start + 1)
    ]
    if start + PAGE < len(downloads):
        more = ListPage(page=page + 1).pack()
        rows.append([InlineKeyboardButton(text=tx.plain("More"), callback_data=more)])
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    return list_text(tx, shown, first=start + 1, total=len(downloads)), markup


async def _finished(
    tx: Texts, store: Store, links: Links, user_id: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    finished = await store.downloads.list_downloads(states=(State.DONE,), limit=FINISHED)
    now = clock.now_ms() // 1000
    rows = [
        [
            InlineKeyboardButton(
                text=f"{number}. {display_name(d)}"[:60], url=links.download(d.id, user_id, now)
            )
        ]
        for number, d in enumerate(finished, start=1)
    ]
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    return list_text(tx, [], finished=finished), markup


async def cmd_library(
    message: Message, command: CommandObject, tx: Texts, store: Store, links: Links, turn: Turn
) -> None:
    """The library's titles whose name holds the words, a button to each one's page."""
    words = (command.args or "").strip()[:200]
    found = await store.titles.list(words, limit=PAGE + 1)
    now = clock.now_ms() // 1000
    rows = [
        [
            InlineKeyboardButton(
                text=shorten(
                    f"{row.title.name} ({row.title.year})" if row.title.year else row.title.name, 60
                ),
                url=links.title(row.title.id, message.chat.id, now),
            )
        ]
        for row in found[:PAGE]
    ]
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    text = library_text(tx, words, [row.title.name for row in found[:PAGE]], more=len(found) > PAGE)
    await turn.reply(Reply(text, markup.model_dump_json(exclude_none=True) if markup else None))


async def cmd_status(
    message: Message, command: CommandObject, tx: Texts, store: Store, views: Views, turn: Turn
) -> None:
    """/status ID: that download; /status alone: the recent ones to pick from."""
    words = (command.args or "").strip()
    if not words:
        await turn.reply(await _recent(tx, store, message.message_id))
        return
    download_id = parse_id(words)  # any case; garbage: no query
    download = None if download_id is None else await store.downloads.find_download(download_id)
    if download is None:
        await turn.reply(Reply(not_found_text(tx)))
        return
    for_download(download.id).info("telegram.status_requested")
    view = await views.view_of(tx, message.chat.id, download)
    await turn.reply(views.view_reply(download, view, reply_to=message.message_id))


async def _recent(tx: Texts, store: Store, reply_to: int) -> Reply:
    recent = await store.downloads.list_downloads(limit=RECENT)
    rows = [
        [
            InlineKeyboardButton(
                text=f"{number}. {display_name(d)}"[:60],
                callback_data=StatusOf(id=d.id).pack(),
            )
        ]
        for number, d in enumerate(recent, start=1)
    ]
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    return Reply(
        recent_text(tx, recent),
        markup.model_dump_json(exclude_none=True) if markup else None,
        reply_to=reply_to,
    )


async def on_status_of(
    query: CallbackQuery,
    callback_data: StatusOf,
    tx: Texts,
    store: Store,
    views: Views,
    turn: Turn,
) -> None:
    """A download picked from /status's list: its status, as /status ID shows it.
    One gone, or a forged id: answered as every outdated button."""
    download_id = parse_id(callback_data.id)
    download: Download | None = None
    if download_id is not None:
        download = await store.downloads.find_download(download_id)
    if download is None:
        await answer_query(query, outdated_text(tx))
        await turn.reply()
        return
    await answer_query(query)
    for_download(download.id).info("telegram.status_requested")
    message = query.message
    reply_to = message.message_id if isinstance(message, Message) else None
    view = await views.view_of(tx, query.from_user.id, download)
    await turn.reply(views.view_reply(download, view, reply_to=reply_to))
