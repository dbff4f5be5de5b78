"""The states of a download, its sets, and the moves between them.

``MOVES`` is the whole state machine: every change of a download's state in
the store goes through ``store.transitions.move``, which refuses a move that is
not here (docs/architecture.md).
"""

from collections.abc import Mapping
from enum import StrEnum


class State(StrEnum):
    ACCEPTED = "accepted"
    DOWNLOADING = "downloading"
    STUCK = "stuck"
    REVIEW = "review"
    IMPORTING = "importing"
    DONE = "done"
    FAILED = "failed"
    REMOVED = "removed"


TERMINAL: frozenset[State] = frozenset({State.DONE, State.FAILED, State.REMOVED})
ACTIVE: frozenset[State] = frozenset(State) - TERMINAL
# A person may try these again (Retry).
RETRYABLE: frozenset[State] = frozenset({State.FAILED, State.STUCK, State.REMOVED})
# States whose reason is kept on the download (``download.error``): why it is not
# going forward.
TROUBLE: frozenset[State] = frozenset({State.STUCK, State.FAILED, State.REMOVED})

MOVES: Mapping[State, frozenset[State]] = {
    # seen in qBittorrent, an error there, complete at once, refused, cancelled
    State.ACCEPTED: frozenset(
        {State.DOWNLOADING, State.STUCK, State.IMPORTING, State.FAILED, State.REMOVED}
    ),
    # stalled, complete, refused (its metadata contradicts the magnet), cancelled or gone
    State.DOWNLOADING: frozenset({State.STUCK, State.IMPORTING, State.FAILED, State.REMOVED}),
    # progress again, complete, Retry, refused, cancelled or gone
    State.STUCK: frozenset(
        {State.DOWNLOADING, State.IMPORTING, State.ACCEPTED, State.FAILED, State.REMOVED}
    ),
    # a title picked or overrides saved, cancelled
    State.REVIEW: frozenset({State.IMPORTING, State.REMOVED}),
    # asks, laid out, cannot be laid out, cancelled
    State.IMPORTING: frozenset({State.REVIEW, State.DONE, State.FAILED, State.REMOVED}),
    State.DONE: frozenset({State.IMPORTING}),  # Relink
    # Retry, or the torrent is back in qBittorrent
    State.FAILED: frozenset({State.ACCEPTED, State.DOWNLOADING}),
    State.REMOVED: frozenset({State.ACCEPTED, State.DOWNLOADING}),
}


def may_move(from_state: State, to_state: State) -> bool:
    return to_state in MOVES[from_state]


def reactivates(from_state: State, to_state: State) -> bool:
    """A terminal download becoming active again: allowed only while no other
    active download owns one of its hashes (the identity guard)."""
    return from_state in TERMINAL and to_state in ACTIVE
