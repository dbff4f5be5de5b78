"""Inline keyboards of the bot's messages about a download."""

from collections.abc import Sequence
from typing import Final, Literal

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import Action, DownloadAction, ReviewPick
from bot.links import Links
from common.i18n import Texts
from core import clock
from core.ids import Id
from core.models import Download
from core.reasons import N_
from core.states import State

PICK: Final = "pick"  # the review page: a link, not a callback
Button = Action | Literal["pick"]
# The buttons after Open in each state (bot/handlers/buttons.py ``_fits`` accepts
# exactly these actions in it; Download again goes under them when the files are gone).
BUTTONS: dict[State, tuple[Button, ...]] = {
    State.ACCEPTED: (Action.CANCEL,),
    State.DOWNLOADING: (Action.CANCEL,),
    State.STUCK: (Action.RETRY, Action.CANCEL),
    State.REVIEW: (PICK, Action.CANCEL),
    State.IMPORTING: (Action.CANCEL,),
    State.DONE: (Action.RELINK,),
    State.FAILED: (Action.RETRY,),
    State.REMOVED: (Action.RETRY,),
}
_LABELS = {Action.RETRY: N_("Retry"), Action.RELINK: N_("Relink"), Action.CANCEL: N_("Cancel")}


def download_keyboard(
    tx: Texts, links: Links, download: Download, user_id: int
) -> InlineKeyboardMarkup:
    """Open (the card), plus what fits the state (``BUTTONS``)."""
    now = clock.now_ms() // 1000
    row = [
        InlineKeyboardButton(text=tx.plain("Open"), url=links.download(download.id, user_id, now))
    ]
    for button in BUTTONS[download.state]:
        if isinstance(button, Action):
            row.append(_action(tx.plain(_LABELS[button]), button, download))
        else:
            row.append(_title_button(tx, links, download, user_id, tx.plain("Pick")))
    if not download.files_gone():
        return InlineKeyboardMarkup(inline_keyboard=[row])
    # Its files are gone: downloading them again brings them back; Retry stays for a
    # disk that was only away (unmounted), which a retry then finds again.
    again = _action(tx.plain("Download again"), Action.DOWNLOAD_AGAIN, download)
    return InlineKeyboardMarkup(inline_keyboard=[row, [again]])


MAX_OFFERED = 5  # candidates with a button of their own under the review message


def review_keyboard(
    tx: Texts,
    links: Links,
    download: Download,
    candidates: Sequence[tuple[str, str]],
    user_id: int,
) -> InlineKeyboardMarkup:
    """One button per candidate ((id, "Dune (2021)"), best first, at most 5), then
    Other… (the review page's search, or typing the title without one) and Cancel."""
    rows = [
        [
            InlineKeyboardButton(
                text=label, callback_data=ReviewPick(id=download.id, candidate=cid).pack()
            )
        ]
        for cid, label in candidates[:MAX_OFFERED]
    ]
    other = _title_button(tx, links, download, user_id, tx.plain("Other…"))
    rows.append([other, _action(tx.plain("Cancel"), Action.CANCEL, download)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _title_button(
    tx: Texts, links: Links, download: Download, user_id: int, label: str
) -> InlineKeyboardButton:
    """The review page, to pick or search a title (``label``); without a TMDB key
    search cannot work: the page's form to type the title instead."""
    now = clock.now_ms() // 1000
    if links.search:
        return InlineKeyboardButton(text=label, url=links.review(download.id, user_id, now))
    url = links.review(download.id, user_id, now, part="correct")
    return InlineKeyboardButton(text=tx.plain("Type the title"), url=url)


def cancel_question_keyboard(tx: Texts, download: Download) -> InlineKeyboardMarkup:
    """Under "Cancel and delete the 3.2 GB downloaded?"."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                _action(tx.plain("Cancel and delete"), Action.CANCEL_SURE, download),
                _action(tx.plain("Keep it"), Action.KEEP, download),
            ]
        ]
    )


def in_library_keyboard(
    tx: Texts, links: Links, download: Download, title_id: Id, user_id: int
) -> InlineKeyboardMarkup:
    """Under "Already in the library": the download's card and the title's page."""
    now = clock.now_ms() // 1000
    card = links.download(download.id, user_id, now)
    page = links.title(title_id, user_id, now)
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text=tx.plain("Open"), url=card),
                InlineKeyboardButton(text=tx.plain("Library page"), url=page),
            ]
        ]
    )


def _action(text: str, action: Action, download: Download) -> InlineKeyboardButton:
    data = DownloadAction(action=action, id=download.id).pack()
    return InlineKeyboardButton(text=text, callback_data=data)
