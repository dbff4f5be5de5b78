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


class SearchButton(CallbackData, prefix="j1f"):
    """A button of a search's message: ``j1f:<action>:<id>:<n>``, at most 36 bytes.
    ``id`` is a search's or a result's ULID (``store/search.py``); a search deleted
    since is an outdated button. Actions: ``go`` (start an offered search), ``t``
    (a title), ``w`` (releases of the words), ``r`` (a release), ``p`` (page ``n``),
    ``s`` (sort ``n``), ``b`` (back to the titles)."""

    action: str
    id: str
    n: int = 0
