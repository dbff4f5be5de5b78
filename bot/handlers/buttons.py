"""Inline buttons: Retry, Relink, Cancel — and every outdated button.

The id in the callback data is parsed before the store is touched. An unknown
or malformed payload, a legacy numeric id, an unknown download, or an action
that no longer fits the state is answered "this button is outdated" and the
message is refreshed to the current state: never silence, never a traceback.

A press is answered at once, however many come together (each is a lane of the
inbox of its own): an action that takes longer than ``ANSWER_WITHIN`` (qBittorrent
slow or frozen) is answered "working on it" and goes on; its outcome then shows in
the message and is said in the chat — as it is when Telegram no longer takes the
answer. A refusal (an ``AppError``) is answered by the bot's error boundary,
``bot/handlers/errors.py``.
"""

import asyncio
from html import escape

from aiogram import Router
from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, Message

from bot.callbacks import Action, DownloadAction, ReviewPick
from bot.inbox import Turn
from bot.keyboards import cancel_question_keyboard
from bot.sender import answer_query, send
from bot.texts import (
    cancel_question_text,
    downloaded_bytes,
    kept_text,
    outdated_text,
    title_label,
)
from bot.views import Views
from common.i18n import Texts
from common.logs import for_download, get_logger
from core.ids import parse_id
from core.models import Download
from core.states import ACTIVE, RETRYABLE, State
from store import Store
from store.inbox import Reply
from store.telegram import Role
from worker.actions import Actions

ANSWER_WITHIN = 1.5  # seconds: Telegram wants an answer soon, the person even sooner


def router() -> Router:
    buttons = Router(name="buttons")
    buttons.callback_query.register(on_download_action, DownloadAction.filter())
    buttons.callback_query.register(on_review_pick, ReviewPick.filter())
    buttons.callback_query.register(on_unknown_button)
    return buttons


async def on_download_action(
    query: CallbackQuery,
    callback_data: DownloadAction,
    tx: Texts,
    store: Store,
    actions: Actions,
    views: Views,
    turn: Turn,
) -> None:
    download_id = parse_id(callback_data.id)
    download = None if download_id is None else await store.downloads.find_download(download_id)
    if download is None:
        await on_unknown_button(query, tx, store, views)  # refresh by the message, if known
        return
    if not _fits(callback_data.action, download):
        await outdated(query, tx, store, views, download)
        if callback_data.action in (Action.KEEP, Action.CANCEL_SURE):
            await _drop_question(query)  # its download moved on: the question is moot
        return
    if callback_data.action == Action.CANCEL and downloaded_bytes(download) > 0:
        await _ask_cancel(query, tx, download, turn)
        return
    if callback_data.action == Action.KEEP:
        await _keep(query, tx)
        return
    for_download(download.id).info("telegram.button", action=callback_data.action)
    acting = asyncio.ensure_future(_act(callback_data.action, download, tx, actions))
    done, _ = await asyncio.wait({acting}, timeout=ANSWER_WITHIN)
    if not done:
        await answer_query(query, tx.plain("Working on it: the message will show how it went."))
        turn.button_answered = True  # from now on, the outcome is said in the chat
    answer = await acting  # a refusal goes to the bot's error boundary (bot/handlers/errors.py)
    await answer_button(query, turn, answer)
    if callback_data.action == Action.CANCEL_SURE:
        await _drop_question(query)  # the download's own message shows it cancelled
    else:
        await refresh(query, tx, store, views, download.id)


async def on_review_pick(
    query: CallbackQuery,
    callback_data: ReviewPick,
    tx: Texts,
    store: Store,
    actions: Actions,
    views: Views,
    turn: Turn,
) -> None:
    """A candidate tapped under the review message: decided as on the review page
    (``Actions.decide``), and the message shows the outcome. Decided elsewhere
    already, cancelled, gone, or a candidate no longer offered (recognized again):
    answered so, nothing changed, the message shows the current state."""
    download_id, candidate_id = parse_id(callback_data.id), parse_id(callback_data.candidate)
    download = None if download_id is None else await store.downloads.find_download(download_id)
    if download is None or candidate_id is None:
        await on_unknown_button(query, tx, store, views)
        return
    recognition = await store.recognitions.current(download.id)
    offered = [] if recognition is None else recognition.candidates
    candidate = next((c for c in offered if c.id == candidate_id), None)
    if download.state != State.REVIEW or candidate is None:
        await answer_query(
            query, tx.plain("This choice is no longer offered: here is the current state.")
        )
        await refresh(query, tx, store, views, download.id)
        return
    for_download(download.id).info("telegram.review_pick", candidate_id=candidate.id)
    await actions.decide(download.id, candidate.id)  # a refusal: the error boundary
    # The message first: the title it goes into, before "Done" may supersede it.
    await refresh(query, tx, store, views, download.id)
    await answer_button(
        query,
        turn,
        tx.plain("Got it: {title}.").format(
            title=title_label(candidate.candidate.title, candidate.candidate.year)
        ),
    )


async def answer_button(query: CallbackQuery, turn: Turn, answer: str) -> None:
    """The outcome of a press (plain text): its answer, or a reply in the chat
    (HTML, so escaped) once the press was answered "working on it", or when
    Telegram no longer takes an answer to it."""
    if not turn.button_answered and await answer_query(query, answer):
        return
    message = query.message
    reply_to = None if message is None else message.message_id
    await turn.reply(Reply(escape(answer, quote=False), reply_to=reply_to))


async def _ask_cancel(query: CallbackQuery, tx: Texts, download: Download, turn: Turn) -> None:
    """Cancel deletes what was downloaded: asked once, in a message of its own under
    the pressed one; its buttons are Cancel and delete / Keep it."""
    await answer_query(query)
    message = query.message
    markup = cancel_question_keyboard(tx, download).model_dump_json(exclude_none=True)
    reply_to = None if message is None else message.message_id
    await turn.reply(Reply(cancel_question_text(tx, download), markup, reply_to=reply_to))


async def _keep(query: CallbackQuery, tx: Texts) -> None:
    """Keep it: nothing changes; the question goes away."""
    await answer_query(query, kept_text(tx))
    await _drop_question(query)


async def _drop_question(query: CallbackQuery) -> None:
    """The Cancel question is answered: it leaves the chat."""
    message = query.message
    if not isinstance(message, Message):
        return
    try:
        await send("delete_message", message.delete, chat_id=message.chat.id, idempotent=True)
    except TelegramAPIError as error:  # too old to delete: its buttons stay, pressing is harmless
        get_logger().info("telegram.question_not_deleted", reason=str(error)[:200])


def _fits(action: str, download: Download) -> bool:
    if action == Action.RETRY:
        return download.state in RETRYABLE
    if action in (Action.CANCEL, Action.CANCEL_SURE, Action.KEEP):
        return download.state in ACTIVE
    if action == Action.RELINK:
        return download.state == State.DONE
    if action == Action.DOWNLOAD_AGAIN:
        return download.files_gone()
    return False


async def _act(action: str, download: Download, tx: Texts, actions: Actions) -> str:
    if action == Action.RETRY:
        result = await actions.retry(download.id)
        if result.queued:
            return tx.plain("qBittorrent is not answering: I will add it as soon as it is back.")
        return tx.plain("Trying again.")
    if action == Action.DOWNLOAD_AGAIN:
        again = await actions.download_again(download.id)
        if again.queued:
            return tx.plain("qBittorrent is not answering: I will add it as soon as it is back.")
        return tx.plain("Downloading it again.")
    if action in (Action.CANCEL, Action.CANCEL_SURE):
        await actions.cancel(download.id)
        return tx.plain("Cancelled and deleted from qBittorrent.")
    await actions.relink(download.id)
    return tx.plain("Laying it out again.")


async def on_unknown_button(query: CallbackQuery, tx: Texts, store: Store, views: Views) -> None:
    """Buttons of an older jellybit (numeric ids) or forged data."""
    get_logger().info("telegram.outdated_button", data=(query.data or "")[:64])
    download = None
    message = query.message
    if isinstance(message, Message):
        download_id = await store.telegram.download_of_message(message.chat.id, message.message_id)
        download = None if download_id is None else await store.downloads.find_download(download_id)
    await outdated(query, tx, store, views, download)


async def outdated(
    query: CallbackQuery, tx: Texts, store: Store, views: Views, download: Download | None
) -> None:
    await answer_query(query, outdated_text(tx))
    if download is not None:
        await refresh(query, tx, store, views, download.id)


async def refresh(
    query: CallbackQuery, tx: Texts, store: Store, views: Views, download_id: str
) -> None:
    """The pressed message shows the download now, when it is the download's message
    (or a notice of an older jellybit). Any other message is left alone: one a newer
    message superseded is being deleted, a question is not the download's message,
    and the download shows once."""
    message = query.message
    download = await store.downloads.find_download(download_id)
    if not isinstance(message, Message) or download is None:
        return
    known = await store.telegram.message(message.chat.id, message.message_id)
    if known is None or known.role not in (Role.STATUS, Role.NOTIFICATION):
        return
    # A photo of an older jellybit was remembered without its poster: it stays a photo.
    photo = known.photo if known.photo is not None or not message.photo else ""
    try:
        await views.show(
            tx,
            message.chat.id,
            message.message_id,
            query.from_user.id,
            download,
            shown=None,
            photo=photo,
        )
    except TelegramAPIError as error:  # the status updater shows it later
        for_download(download.id).info("telegram.refresh_later", reason=str(error))
