"""Inline keyboards of the bot's messages about a download."""

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import Action, DownloadAction
from bot.links import Links
from common.i18n import Texts
from core import clock
from core.models import Download
from core.states import ACTIVE, RETRYABLE, State


def download_keyboard(
    tx: Texts, links: Links, download: Download, user_id: int
) -> InlineKeyboardMarkup:
    """Open (the card), plus what fits the state: Pick, Retry, Cancel or Relink."""
    now = clock.now_ms() // 1000
    row = [
        InlineKeyboardButton(text=tx.plain("Open"), url=links.download(download.id, user_id, now))
    ]
    if download.state == State.REVIEW:
        row.append(
            InlineKeyboardButton(text=tx.plain("Pick"), url=links.review(download.id, user_id, now))
        )
    if download.state in RETRYABLE:
        row.append(_action(tx.plain("Retry"), Action.RETRY, download))
    elif download.state == State.DONE:
        row.append(_action(tx.plain("Relink"), Action.RELINK, download))
    if download.state in ACTIVE:
        row.append(_action(tx.plain("Cancel"), Action.CANCEL, download))
    return InlineKeyboardMarkup(inline_keyboard=[row])


def _action(text: str, action: Action, download: Download) -> InlineKeyboardButton:
    data = DownloadAction(action=action, id=download.id).pack()
    return InlineKeyboardButton(text=text, callback_data=data)
