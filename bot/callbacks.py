"""Callback data of the inline buttons: a short versioned prefix and the ULID.

``j1:<action>:<26-char id>`` is at most 39 bytes (Telegram allows 64). A new
incompatible layout gets a new prefix; anything that does not unpack as the
current one is an outdated button and is answered as such.
"""

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class Action(StrEnum):
    RETRY = "retry"
    RELINK = "relink"
    DOWNLOAD_AGAIN = "again"  # its files are gone from the disk
    CANCEL = "cancel"  # asks first when data was downloaded (``CANCEL_SURE``, ``KEEP``)
    CANCEL_SURE = "cancel!"  # the question's "Cancel and delete"
    KEEP = "keep"  # the question's "Keep it"


class DownloadAction(CallbackData, prefix="j1"):
    action: str  # an Action; kept a str so an unknown one is "outdated", not an error
    id: str  # parsed with core.ids.parse_id before the store sees it


class ReviewPick(CallbackData, prefix="j1p"):
    """A candidate's button under the review message: ``j1p:<download>:<candidate>``,
    57 bytes. A candidate no longer offered is an outdated button."""

    id: str
    candidate: str


class StatusOf(CallbackData, prefix="j1s"):
    """A download picked from the list /status shows without an id: its status."""

    id: str


class ListPage(CallbackData, prefix="j1l"):
    """ "More" under /list: the page to show."""

    page: int
