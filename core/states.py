"""States of a download and what is active."""

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


def is_active(state: State) -> bool:
    return state in ACTIVE
