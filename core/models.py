"""Domain records as the store returns them."""

from dataclasses import dataclass, field
from typing import Literal

from core.ids import Id
from core.infohash import Kind
from core.reasons import Reason
from core.states import State

# Why a download's files are gone: a layout that cannot find them (a relink after
# they were deleted), qBittorrent that cannot find them.
FILES_GONE = frozenset({"layout.missing", "qbt.missing_files"})


@dataclass(frozen=True)
class Infohash:
    value: str
    kind: Kind


# Where a download came from (the database column is ``download.source``).
Origin = Literal["telegram", "api", "adopted"]


@dataclass(frozen=True)
class NewDownload:
    """What ingest and adopt know about a download before it exists."""

    name: str
    origin: Origin
    source_ref: str  # the magnet as received; for an adopted torrent one built from its full hashes
    state: State = State.ACCEPTED
    chat_id: int | None = None


@dataclass(frozen=True)
class Download:
    id: Id
    name: str
    state: State
    origin: str  # an ``Origin``, as stored (column ``source``)
    source_ref: str
    chat_id: int | None
    message_id: int | None
    save_path: str | None
    content_path: str | None
    total_size: int | None
    progress: float
    error: Reason | None  # why it is failed, stuck or removed
    source_added_at: str | None
    completed_at: str | None
    created_at: str
    updated_at: str
    qbt_state: str | None = None
    download_speed: int | None = None
    eta: int | None = None
    progress_at: str | None = None
    add_attempts: int = 0
    next_add_at: str | None = None
    free_space: int | None = None  # qBittorrent's free disk space, while the rest does not fit
    infohashes: tuple[Infohash, ...] = field(default=())

    def hash_values(self) -> tuple[str, ...]:
        return tuple(h.value for h in self.infohashes)

    def files_gone(self) -> bool:
        """Its files are gone from the disk (deleted, moved away): only downloading
        it again brings them back (Download again)."""
        return (
            self.state in (State.FAILED, State.STUCK)
            and self.error is not None
            and self.error.code in FILES_GONE
        )


@dataclass(frozen=True)
class CreateResult:
    """``created`` is False when an active download already owned a hash."""

    download: Download
    created: bool


@dataclass(frozen=True)
class StateTransition:
    id: Id
    download_id: Id
    from_state: State | None
    to_state: State
    reason: Reason
    created_at: str


@dataclass(frozen=True)
class Transition:
    """A state change the caller saw as valid from ``from_state``."""

    from_state: State
    to_state: State
    reason: Reason


@dataclass(frozen=True)
class SnapshotChange:
    """What one poll tick learned about one download: changed snapshot columns
    (see ``store.tracking.SNAPSHOT_COLUMNS``) and maybe a state change."""

    download_id: Id
    fields: dict[str, object]
    transition: Transition | None = None


@dataclass(frozen=True)
class Notification:
    """An outbox row: what to tell a chat about a download."""

    id: Id
    chat_id: int | None
    download_id: Id | None
    kind: str
    payload: dict[str, object]
    attempts: int
    created_at: str
