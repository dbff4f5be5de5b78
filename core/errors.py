"""Errors of the domain. Each has a stable ``code`` that texts are keyed by, and
the ``reason`` a person reads (``core.reasons``); ``str()`` is its English."""

from core.reasons import Reason, text_reason


class AppError(Exception):
    code = "error"

    def __init__(self, why: str | Reason) -> None:
        self.reason = why if isinstance(why, Reason) else text_reason(why)
        super().__init__(self.reason.english())


class InvalidInputError(AppError):
    code = "invalid_input"


class NotFoundError(AppError):
    code = "not_found"

    def __init__(self, entity: str, entity_id: str) -> None:
        super().__init__(f"{entity} {entity_id} not found")
        self.entity = entity
        self.entity_id = entity_id


class ConflictError(AppError):
    code = "conflict"


class InfohashTakenError(ConflictError):
    """Another active download owns a hash: the one-active-per-hash invariant."""

    code = "infohash_taken"

    def __init__(self, infohash: str, owner_id: str) -> None:
        super().__init__(f"infohash {infohash} belongs to active download {owner_id}")
        self.infohash = infohash
        self.owner_id = owner_id


class InvalidTransitionError(ConflictError):
    code = "invalid_transition"

    def __init__(self, download_id: str, from_state: str, to_state: str) -> None:
        super().__init__(f"download {download_id}: {from_state} -> {to_state} is not allowed")
        self.download_id = download_id
        self.from_state = from_state
        self.to_state = to_state


class NotRecognizedError(ConflictError):
    """A title is picked for a download that has no recognition yet."""

    code = "not_recognized"

    def __init__(self, download_id: str) -> None:
        super().__init__(f"download {download_id} is not recognized yet")
        self.download_id = download_id


class SearchOffError(AppError):
    """A title search without a metadata provider (no TMDB key)."""

    code = "search_off"

    def __init__(self) -> None:
        super().__init__("search is off: no TMDB key is configured")


class ExternalError(AppError):
    """An external system (qBittorrent, Telegram, TMDB, Jellyfin) did not do it."""

    code = "external"

    def __init__(self, system: str, detail: str) -> None:
        super().__init__(f"{system}: {detail}")
        self.system = system
        self.detail = detail


class UnreachableError(ExternalError):
    """Down, refusing connections or not answering in time: worth retrying later."""

    code = "unreachable"


class AuthFailedError(ExternalError):
    """Credentials refused: retrying will not help until the config changes."""

    code = "auth_failed"


class RejectedError(ExternalError):
    """The system answered and said no (qBittorrent's "Fails.", a 4xx)."""

    code = "rejected"
