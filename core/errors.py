"""Errors of the domain. Each has a stable ``code`` that texts are keyed by."""


class AppError(Exception):
    code = "error"


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
