"""The JSON API's wire format: pydantic models of every body it reads and
writes, errors included.

``web.api`` validates request bodies with them, builds every answer from them,
and generates the ``components/schemas`` of its OpenAPI document from them:
request bodies in validation mode, answers in serialization mode.
"""

from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from core import models as stored
from core.ids import Id, parse_id
from core.infohash import Kind
from core.states import State
from core.torrent_file import MAX_TORRENT_BYTES
from store import titles as library

# A canonical id in either case (``core.ids.parse_id``): the first character
# keeps the 48-bit time range, Crockford base32 has no I, L, O, U.
ID_PATTERN = "^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$"


def _canonical(text: str) -> Id:
    parsed = parse_id(text)
    if parsed is None:  # ID_PATTERN let it through; the two are tested to agree
        raise ValueError("not an id")
    return parsed


def utf8(text: str) -> str:
    """A string SQLite and the logs can take (JSON escapes may carry lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid UTF-8 text") from None
    return text


def _is_none(value: object) -> bool:
    return value is None


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def _optional(description: str) -> Any:
    """A field left out of the body (never null) when there is nothing to say."""
    return Field(None, description=description, exclude_if=_is_none, json_schema_extra=_no_default)


ApiId = Annotated[Id, Field(pattern=ID_PATTERN), AfterValidator(_canonical)]
Text = Annotated[str, AfterValidator(utf8)]
Count = Annotated[int, Field(ge=0)]
Time = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


class _Body(BaseModel):
    """A body with exactly these fields (``additionalProperties: false``)."""

    model_config = ConfigDict(extra="forbid")


# --- answers --------------------------------------------------------------------------


class Infohash(_Body):
    infohash: Annotated[str, Field(pattern="^([0-9a-f]{40}|[0-9a-f]{64})$")]
    kind: Kind


class Transition(_Body):
    id: ApiId
    from_state: State | None
    to_state: State
    reason: str
    created_at: Time

    @classmethod
    def of(cls, transition: stored.StateTransition) -> Self:
        return cls(
            id=transition.id,
            from_state=transition.from_state,
            to_state=transition.to_state,
            reason=transition.reason.english(),
            created_at=transition.created_at,
        )


class Download(_Body):
    """A download. `infohashes` is a list: a hybrid torrent shows both hashes."""

    id: ApiId
    name: str
    state: State
    progress: Annotated[float, Field(ge=0, le=1)]
    size: Count | None
    download_speed: Count | None
    eta: int | None
    error: str | None
    source: str
    infohashes: list[Infohash]
    save_path: str | None
    content_path: str | None
    created_at: Time
    updated_at: Time
    completed_at: Time | None

    @classmethod
    def of(cls, download: stored.Download, **more: object) -> Self:
        """``more``: the fields a subclass adds."""
        return cls.model_validate(
            {
                "id": download.id,
                "name": download.name,
                "state": download.state,
                "progress": download.progress,
                "size": download.total_size,
                "download_speed": download.download_speed,
                "eta": download.eta,
                "error": None if download.error is None else download.error.english(),
                "source": download.origin,
                "infohashes": [{"infohash": h.value, "kind": h.kind} for h in download.infohashes],
                "save_path": download.save_path,
                "content_path": download.content_path,
                "created_at": download.created_at,
                "updated_at": download.updated_at,
                "completed_at": download.completed_at,
                **more,
            }
        )


class DownloadWithHistory(Download):
    history: list[Transition]


class DownloadPage(_Body):
    items: list[Download]
    next_before: ApiId | None = Field(
        description="pass as `before` for the next page; null on the last page"
    )


class Title(_Body):
    """A title the library holds: one folder, whatever TMDB calls it today."""

    id: ApiId
    kind: Literal["movie", "series"]
    provider: str
    provider_id: str
    name: str
    year: int | None
    folder: str
    poster_path: str | None

    @classmethod
    def of(cls, title: library.LibraryTitle, **more: object) -> Self:
        record = title.candidate
        return cls.model_validate(
            {
                "id": title.id,
                "kind": title.kind,
                "provider": record.provider,
                "provider_id": record.provider_id or title.folder,  # a local title: its folder
                "name": title.name,
                "year": title.year,
                "folder": title.folder,
                "poster_path": record.poster_path,
            }
            | more
        )


class TitlePage(_Body):
    items: list[Title]
    next_offset: Count | None = Field(
        description="pass as `offset` for the next page; null on the last page"
    )


class HeldFile(_Body):
    path: str
    size: Count | None
    download_id: ApiId
    season: int | None
    episodes: list[int]
    label: str = Field(description='the version\'s label ("2160p BluRay"); "" for the first copy')


class SeasonCount(_Body):
    season: int
    episodes: Count = Field(description="how many episodes TMDB lists")
    present: list[int] = Field(description="the episodes the library holds")


class TitleWithInventory(Title):
    files: list[HeldFile]
    seasons: list[SeasonCount]

    @classmethod
    def of_inventory(cls, inventory: library.Inventory) -> Self:
        grid = inventory.episodes()
        files = [
            HeldFile(
                path=f.target_path,
                size=f.size,
                download_id=f.download_id,
                season=f.season,
                episodes=list(f.episodes),
                label=f.label,
            )
            for f in inventory.files
        ]
        seasons = [
            SeasonCount(
                season=s.number, episodes=s.episodes, present=sorted(grid.get(s.number, {}))
            )
            for s in inventory.seasons
        ]
        return cls.of(inventory.title, files=files, seasons=seasons)


class CreateResult(_Body):
    result: Literal["created", "duplicate", "in_library"] = Field(
        description="created: accepted, added to qBittorrent in the background (follow its "
        "state); duplicate: an active download already has one of the hashes; in_library: "
        "a done download of the torrent still has every file in the library, nothing is "
        "downloaded again (``download`` is that one)"
    )
    download: Download


# --- errors (open: a code may add fields) -----------------------------------------------


class Error(BaseModel):
    code: str = Field(description="stable; texts and clients key on it")
    message: str


# The JSON bodies of a 409 and a 422, named apart from the errors they answer
# (core.errors.ConflictError, RejectedError).
class ConflictBody(Error):
    code: Literal["infohash_taken", "invalid_transition", "not_recognized"]
    owner_id: ApiId | SkipJsonSchema[None] = _optional(
        "infohash_taken: the active download that owns the hash"
    )
    infohash: str | SkipJsonSchema[None] = _optional("infohash_taken: the hash")


class RejectedBody(Error):
    code: Literal["rejected"]
    reason: str | SkipJsonSchema[None] = _optional("why the input was refused")


# --- request bodies -----------------------------------------------------------------------


class MagnetBody(_Body):
    magnet: Text = Field(description="a magnet link")


class TorrentUpload(_Body):
    # Documents the multipart body only: web.api streams the part itself.
    torrent: bytes = Field(description=f"a .torrent file of at most {MAX_TORRENT_BYTES} bytes")


class ReviewBody(_Body):
    candidate_id: ApiId


class SearchTitle(_Body):
    """A title TMDB found for the words."""

    kind: Literal["movie", "series"]
    tmdb_id: str | None
    title: str
    year: int | None
    poster_path: str | None
    in_library: bool
    downloading: bool


class SearchRelease(_Body):
    """A release a source offers; its link stays with jellybit (it may carry a key):
    add it with ``POST /search/{id}`` on the page, or find its magnet elsewhere."""

    id: ApiId
    name: str
    source: str
    indexer: str | None
    size: Count | None
    seeders: Count | None
    leechers: Count | None
    published: str | None = Field(description="RFC 3339, UTC")
    freeleech: bool
    infohash: str | None
    resolution: int | None = Field(description="2160, 1080, 720… read from the name")
    quality: str | None = Field(description="Remux, BluRay, WEB-DL, WEBRip, HDTV, DVD, CAM")
    season: int | None
    episode: int | None
    pack: bool = Field(description="a whole season, or several")
    have: Literal["library", "downloading", "version"] | None = Field(
        description="this torrent is in the library, or on its way; or the library holds"
        " the title in this resolution already"
    )


class SearchSourceState(_Body):
    name: str
    answered: bool
    found: Count
    problem: str | None = Field(description="why it has nothing, in English")


class SearchGroup(_Body):
    title: SearchTitle | None = Field(description="null: releases that name no title found")
    releases: list[SearchRelease]


class SearchAnswer(_Body):
    id: ApiId
    query: str
    complete: bool = Field(description="every source answered (false: one timed out here)")
    titles_problem: str | None = Field(description="why TMDB gave no titles, in English")
    sources: list[SearchSourceState]
    groups: list[SearchGroup]
