"""The states of a download, its sets, and the moves between them.

``MOVES`` is the whole state machine: every change of a download's state in
the store goes through ``store.transitions.move``, which refuses a move that is
not here (docs/architecture.md). Every table keyed by ``State`` here and in the
front doors has a row for every state: tests/core/test_state_totality.py.
"""

from collections.abc import Mapping
from enum import StrEnum
from typing import NamedTuple


class State(StrEnum):
    ACCEPTED = "accepted"
    DOWNLOADING = "downloading"
    STUCK = "stuck"
    REVIEW = "review"
    IMPORTING = "importing"
    DONE = "done"
    FAILED = "failed"
    REMOVED = "removed"


class Traits(NamedTuple):
    """What a state is, decided for every state (``TRAITS``); the sets below are
    read from it."""

    terminal: bool  # goes nowhere by itself; the others are active (one per hash)
    retryable: bool  # a person may try it again (Retry)
    trouble: bool  # its reason is kept (``download.error``): why it is not going forward


TRAITS: Mapping[State, Traits] = {
    State.ACCEPTED: Traits(terminal=False, retryable=False, trouble=False),
    State.DOWNLOADING: Traits(terminal=False, retryable=False, trouble=False),
    State.STUCK: Traits(terminal=False, retryable=True, trouble=True),
    State.REVIEW: Traits(terminal=False, retryable=False, trouble=False),
    State.IMPORTING: Traits(terminal=False, retryable=False, trouble=False),
    State.DONE: Traits(terminal=True, retryable=False, trouble=False),
    State.FAILED: Traits(terminal=True, retryable=True, trouble=True),
    State.REMOVED: Traits(terminal=True, retryable=True, trouble=True),
}

TERMINAL: frozenset[State] = frozenset(s for s, traits in TRAITS.items() if traits.terminal)
ACTIVE: frozenset[State] = frozenset(s for s, traits in TRAITS.items() if not traits.terminal)
RETRYABLE: frozenset[State] = frozenset(s for s, traits in TRAITS.items() if traits.retryable)
TROUBLE: frozenset[State] = frozenset(s for s, traits in TRAITS.items() if traits.trouble)

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
