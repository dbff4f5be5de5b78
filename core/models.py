"""Domain records as the store returns them."""

from dataclasses import dataclass, field

from core.ids import Id
from core.infohash import Kind
from core.states import State


@dataclass(frozen=True)
class Infohash:
    value: str
    kind: Kind


@dataclass(frozen=True)
class NewDownload:
    """What ingest and adopt know about a download before it exists."""

    name: str
    source: str  # telegram | adopted | web | api
    source_ref: str  # the magnet as received, or btih:/btmh: of an adopted torrent
    state: State = State.ACCEPTED
    chat_id: int | None = None


@dataclass(frozen=True)
class Download:
    id: Id
    name: str
    state: State
    source: str
    source_ref: str
    chat_id: int | None
    message_id: int | None
    save_path: str | None
    content_path: str | None
    total_size: int | None
    progress: float
    error: str | None
    source_added_at: str | None
    completed_at: str | None
    created_at: str
    updated_at: str
    infohashes: tuple[Infohash, ...] = field(default=())


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
    reason: str
    created_at: str
