"""The bot's one error boundary: a refusal (an ``AppError``) from any handler
becomes words in the person's language. A button's refusal answers the press (or
is said in the chat once the press was answered) and refreshes its message; a
message's refusal is the reply. Other errors are not refusals: the inbox tries
the update again later."""

from html import escape

from aiogram import Router
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import ErrorEvent

from bot.callbacks import DownloadAction
from bot.handlers.buttons import answer_button, outdated, refresh
from bot.inbox import Turn
from bot.texts import display_name, not_found_text, outdated_text, shorten
from bot.views import Views
from common.explain import reason_text
from common.i18n import Texts
from common.logs import get_logger
from core.errors import (
    AppError,
    ExternalError,
    InfohashTakenError,
    InvalidTransitionError,
    NotFoundError,
    NotRecognizedError,
    RejectedError,
    UnreachableError,
)
from core.ids import parse_id
from core.models import Download
from store import Store
from store.inbox import Reply

OWNER_CHARS = 60


def router() -> Router:
    errors = Router(name="errors")
    errors.errors.register(on_refusal, ExceptionTypeFilter(AppError))
    return errors


async def on_refusal(event: ErrorEvent, tx: Texts, store: Store, views: Views, turn: Turn) -> None:
    error = event.exception
    assert isinstance(error, AppError)  # the filter's promise
    get_logger().info("telegram.refused_action", code=error.code, reason=str(error))
    query, message = event.update.callback_query, event.update.message
    if query is not None:
        download = await _download_of(query.data, store)
        if isinstance(error, InvalidTransitionError) and not turn.button_answered:
            await outdated(query, tx, store, views, download)
            return
        await answer_button(query, turn, await refusal_text(tx, store, error))
        if download is not None:
            await refresh(query, tx, store, views, download.id)
    elif message is not None:
        text = escape(await refusal_text(tx, store, error), quote=False)
        await turn.reply(Reply(text, reply_to=message.message_id))


async def refusal_text(tx: Texts, store: Store, error: AppError) -> str:
    """What a refusal tells the person, as plain text (escape it for a message)."""
    if isinstance(error, InfohashTakenError):
        owner = await store.downloads.find_download(error.owner_id)
        # A button's answer holds 200 characters: the other download's name is cut short.
        name = shorten(display_name(owner), OWNER_CHARS) if owner is not None else error.owner_id
        return tx.plain("Refused: the active download {name} ({id}) has the same torrent.").format(
            name=name, id=error.owner_id
        )
    if isinstance(error, InvalidTransitionError):
        return outdated_text(tx)
    if isinstance(error, UnreachableError):
        return tx.plain("qBittorrent is not answering; nothing changed. Try again later.")
    if isinstance(error, RejectedError):  # its words are in the download's history
        return tx.plain("qBittorrent refused to add the torrent.")
    if isinstance(error, NotFoundError):
        return not_found_text(tx)
    if isinstance(error, NotRecognizedError):
        return tx.plain("It is not recognized yet: wait until it is downloaded.")
    if isinstance(error, ExternalError) or error.reason.code == "text":
        return tx.plain("That did not work; nothing changed.")  # no English in the chat
    return reason_text(tx, error.reason)


async def _download_of(data: str | None, store: Store) -> Download | None:
    """The download a button is about (only buttons that parsed get this far)."""
    try:
        download_id = parse_id(DownloadAction.unpack(data or "").id)
    except (TypeError, ValueError):
        return None
    return None if download_id is None else await store.downloads.find_download(download_id)
