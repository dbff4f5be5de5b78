"""/start, /help, /list, /status <id>."""

from aiogram import Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot.links import Links
from bot.texts import display_name, help_text, list_text, not_found_text
from bot.views import Views
from core import clock
from core.ids import parse_id
from core.states import ACTIVE
from jellybit.i18n import Texts
from jellybit.logs import for_download
from store import Store

LIST_LIMIT = 20


def router() -> Router:
    commands = Router(name="commands")
    commands.message.register(cmd_start, CommandStart())
    commands.message.register(cmd_help, Command("help"))
    commands.message.register(cmd_list, Command("list"))
    commands.message.register(cmd_status, Command("status"))
    return commands


async def cmd_start(message: Message, tx: Texts) -> None:
    await message.answer(
        tx("Hello! I download what you send me into your Jellyfin library.")
        + "\n\n"
        + help_text(tx)
    )


async def cmd_help(message: Message, tx: Texts) -> None:
    await message.answer(help_text(tx))


async def cmd_list(message: Message, tx: Texts, store: Store, links: Links) -> None:
    downloads = await store.downloads.list_downloads(states=ACTIVE, limit=LIST_LIMIT)
    user_id = message.chat.id
    now = clock.now_ms() // 1000
    rows = [
        [
            InlineKeyboardButton(
                text=f"{number}. {display_name(d)}"[:60], url=links.download(d.id, user_id, now)
            )
        ]
        for number, d in enumerate(downloads, start=1)
    ]
    markup = InlineKeyboardMarkup(inline_keyboard=rows) if rows else None
    await message.answer(list_text(tx, downloads), reply_markup=markup)


async def cmd_status(
    message: Message, command: CommandObject, tx: Texts, store: Store, views: Views
) -> None:
    download_id = parse_id((command.args or "").strip())  # any case; garbage: no query
    download = None if download_id is None else await store.downloads.find_download(download_id)
    if download is None:
        await message.answer(not_found_text(tx))
        return
    for_download(download.id).info("telegram.status_requested")
    await views.send_status(tx, message.chat.id, message.chat.id, download, role="reply")
