"""Which changes are announced in the chat (through the outbox).

Changes that a person caused and was answered about directly (ingest, retry,
cancel) are not announced again; background changes are.
"""

from core.states import State

# State reached in the background -> the notification's kind; None: not announced,
# the download's message shows it by an edit.
ANNOUNCED: dict[State, str | None] = {
    State.ACCEPTED: None,
    State.DOWNLOADING: None,
    State.STUCK: "stuck",
    State.REVIEW: "review",
    State.IMPORTING: None,
    State.DONE: "done",
    State.FAILED: "failed",
    State.REMOVED: "removed",
}
ADOPTED = "adopted"
# About jellybit itself, to every allowed user: qBittorrent unreachable for longer
# than ``OUTAGE_NOTICE`` seconds, and back.
QBITTORRENT_DOWN = "qbittorrent_down"
QBITTORRENT_BACK = "qbittorrent_back"
SYSTEM = frozenset({QBITTORRENT_DOWN, QBITTORRENT_BACK})
OUTAGE_NOTICE = 60.0
# A reply to what a person sent (rendered when the update was handled).
REPLY = "reply"
