"""The JSON API: a sub-app under ``/api``.

Authorization is ``Bearer <web.api_token>``; an empty token disables the API
(404 ``api_disabled``). Every body in and out, errors included, is a model of
``web.api_models``; every error is ``{"code", "message"}`` with a stable code
(plus ``owner_id``/``infohash`` for ``infohash_taken``, ``reason`` and
``download`` for ``rejected``). Ids in paths go through ``parse_id`` first: an
invalid path id is a 404 without a database query.

``ROUTES`` at the end is the one list of operations: ``setup`` routes it, and
``openapi_document()`` (``GET /api/openapi.json``, no auth) describes it, with
the schemas generated from those models.
"""

import copy
import json
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar

from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError
from multidict import MultiMapping
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from common.logs import get_logger
from core import clock
from core.errors import (
    AppError,
    ConflictError,
    ExternalError,
    InfohashTakenError,
    InvalidInputError,
    NotFoundError,
    RejectedError,
    UnreachableError,
)
from core.ids import Id, parse_id
from core.numbers import ascii_int
from core.search import SORTS, Found, SortBy, traits_of
from core.states import State
from core.torrent_file import MAX_TORRENT_BYTES
from recognition.candidates import Candidate
from store.search import Marks, Search
from web import api_models as wire
from web.api_models import ID_PATTERN
from web.app import DEPS, WebDeps
from web.auth import bearer_matches
from worker.ingest import Created, Duplicate, IngestResult, InLibrary, Rejected
from worker.search import grouped

PREFIX: Final = "/api"
OPENAPI_PATH: Final = "/openapi.json"
PUBLIC_ROUTE: Final = "public"  # the aiohttp name of the one route without a token
REF_TEMPLATE: Final = "#/components/schemas/{model}"

DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 200
MAX_QUERY_CHARS: Final = 200
SEARCH_GRACE: Final = 5.0  # seconds past [search] timeout a search may take (TMDB, the store)
MAX_JSON_BYTES: Final = 64 * 1024

JSON_TYPE: Final = "application/json"
MULTIPART_TYPE: Final = "multipart/form-data"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Json = dict[str, Any]
Body = TypeVar("Body", bound=BaseModel)


class ApiError(Exception):
    """An answer other than success, decided by the API layer itself."""

    def __init__(
        self, status: int, body: wire.Error, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(body.message)
        self.status = status
        self.body = body
        self.headers = dict(headers or {})

    def response(self) -> web.Response:
        return _answer(self.body, self.status, self.headers)


def _error(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> ApiError:
    return ApiError(status, wire.Error(code=code, message=message), headers)


def _invalid(message: str) -> ApiError:
    return _error(400, InvalidInputError.code, message)


def _not_found(what: str) -> ApiError:
    return _error(404, NotFoundError.code, f"{what} not found")


def _answer(
    body: BaseModel, status: int = 200, headers: Mapping[str, str] | None = None
) -> web.Response:
    return web.json_response(body.model_dump(mode="json"), status=status, headers=headers)


# --- setup, auth and error mapping ------------------------------------------------


def setup(app: web.Application) -> None:
    """Mount the API under ``/api``; it reads ``app[DEPS]`` through ``config_dict``."""
    api = web.Application(middlewares=[_api_middleware])
    for route in ROUTES:
        name = PUBLIC_ROUTE if route.public else None
        api.router.add_route(route.method, route.path, route.handler, name=name)
    app.add_subapp(PREFIX, api)


@web.middleware
async def _api_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        if request.match_info.route.name != PUBLIC_ROUTE:
            _authorize(request)
        return await handler(request)
    except ApiError as error:
        return error.response()
    except AppError as error:
        return _app_error(error).response()
    except web.HTTPException as error:
        return _http_error(error).response()
    except Exception:  # a bug: still JSON, and logged with its traceback
        get_logger().exception("api.failed", method=request.method, path=request.path)
        return _error(500, "internal_error", "internal error").response()


def _authorize(request: web.Request) -> None:
    """Raise unless the request carries the configured bearer token."""
    token = request.config_dict[DEPS].settings.web.api_token
    if not token:
        raise _error(404, "api_disabled", "the API is disabled (web.api_token is empty)")
    if not bearer_matches(request, token):
        raise _error(
            401, "unauthorized", "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"}
        )


# The most specific first: rejected and unreachable are external errors too.
_STATUSES: Final[tuple[tuple[type[AppError], int], ...]] = (
    (InvalidInputError, 400),
    (NotFoundError, 404),
    (ConflictError, 409),
    (RejectedError, 422),
    (UnreachableError, 503),
    (ExternalError, 502),
)


def _app_error(error: AppError) -> ApiError:
    message = str(error) or error.code
    if isinstance(error, InfohashTakenError):
        conflict = wire.ConflictBody(
            code="infohash_taken",
            message=message,
            owner_id=Id(error.owner_id),
            infohash=error.infohash,
        )
        return ApiError(409, conflict)
    status = next((status for kind, status in _STATUSES if isinstance(error, kind)), 500)
    return _error(status, error.code, message)


_HTTP_CODES: Final[Mapping[int, str]] = {
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
}


def _http_error(error: web.HTTPException) -> ApiError:
    """aiohttp's own refusals (no route, wrong method, body too large) as JSON."""
    status = error.status
    code = _HTTP_CODES.get(status, "invalid_input" if status < 500 else "internal_error")
    headers = {"Allow": error.headers["Allow"]} if "Allow" in error.headers else {}
    return _error(status, code, error.reason, headers)


def _deps(request: web.Request) -> WebDeps:
    return request.config_dict[DEPS]


# --- input --------------------------------------------------------------------------


def _path_id(request: web.Request, what: str = "download") -> Id:
    """The ``{id}`` of the path; a 404 — before any query — when it is not an id."""
    found = parse_id(request.match_info["id"])
    if found is None:
        raise _not_found(f"{what} {request.match_info['id']!r}")
    return found


def _query(request: web.Request, allowed: Collection[str] = ()) -> MultiMapping[str]:
    """The query string, refusing parameters the operation does not know."""
    query = request.query
    unknown = sorted(set(query) - set(allowed))
    if unknown:
        raise _invalid(f"unknown query parameter {unknown[0]!r}")
    return query


def _single(query: MultiMapping[str], name: str) -> str | None:
    values = query.getall(name, [])
    if len(values) > 1:
        raise _invalid(f"{name} is given more than once")
    return _text(values[0], name) if values else None


def _text(value: str, name: str) -> str:
    try:
        return wire.utf8(value)
    except ValueError:
        raise _invalid(f"{name} is not valid UTF-8 text") from None


def _limit(text: str | None) -> int:
    if text is None:
        return DEFAULT_LIMIT
    limit = ascii_int(text, 6)
    if limit is None or not 1 <= limit <= MAX_LIMIT:
        raise _invalid(f"limit must be an integer from 1 to {MAX_LIMIT}")
    return limit


def _states(values: list[str]) -> tuple[State, ...]:
    known = {state.value: state for state in State}
    for value in values:
        if value not in known:
            raise _invalid(f"unknown state {value!r}; one of: {', '.join(known)}")
    return tuple(known[value] for value in values) or tuple(State)


async def _json_body(request: web.Request, model: type[Body]) -> Body:
    """A JSON object body that ``model`` accepts."""
    if request.content_type != JSON_TYPE:
        raise _invalid(f"the body must be {JSON_TYPE}")
    too_large = _error(413, "too_large", f"a JSON body is at most {MAX_JSON_BYTES} bytes")
    if (request.content_length or 0) > MAX_JSON_BYTES:
        raise too_large
    data = await request.read()
    if len(data) > MAX_JSON_BYTES:
        raise too_large
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):  # bad UTF-8, bad JSON, absurd numbers, deep nesting
        raise _invalid("the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise _invalid("the body must be a JSON object")
    try:
        return model.model_validate(body)
    except ValidationError as error:  # the first problem, named by its field
        problem = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise _invalid(f"{where}: {problem['msg']}") from None


async def _torrent_upload(request: web.Request) -> bytes:
    """The one ``torrent`` part of a multipart body, read up to just past the limit
    (ingest refuses a larger file with its own reason)."""
    data: bytes | None = None
    try:
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                raise _invalid("nested multipart bodies are not accepted")
            if part.name != "torrent":
                raise _invalid(f"unknown field {part.name!r}")
            if data is not None:
                raise _invalid("send one torrent file per request")
            data = await _read_part(part, MAX_TORRENT_BYTES + 1)
    except (ValueError, LookupError, HttpProcessingError) as error:  # aiohttp on a broken body
        raise _invalid(f"malformed multipart body: {error}") from None
    if data is None:
        raise _invalid("torrent is required")
    return data


async def _read_part(part: BodyPartReader, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit and (chunk := await part.read_chunk()):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[:limit]


# --- output -------------------------------------------------------------------------


_RESULTS: dict[type, Literal["created", "duplicate", "in_library"]] = {
    Created: "created",
    Duplicate: "duplicate",
    InLibrary: "in_library",
}


def _ingest_response(result: IngestResult) -> web.Response:
    if isinstance(result, Rejected):
        why = result.reason.english()
        raise ApiError(422, wire.RejectedBody(code="rejected", message=why, reason=why))
    body = wire.CreateResult(
        result=_RESULTS[type(result)],
        download=wire.Download.of(result.download),
    )
    return _answer(body, 201)


# --- handlers -----------------------------------------------------------------------


async def _openapi(request: web.Request) -> web.Response:
    """This document."""
    del request  # no token, and any query string: it is documentation
    return web.json_response(openapi_document())


async def _list_downloads(request: web.Request) -> web.Response:
    """List and search downloads, newest first."""
    query = _query(request, ("q", "state", "limit", "before"))
    text = _single(query, "q") or ""
    if len(text) > MAX_QUERY_CHARS:
        raise _invalid(f"q is at most {MAX_QUERY_CHARS} characters")
    states = _states(query.getall("state", []))
    limit = _limit(_single(query, "limit"))
    before_text = _single(query, "before")
    before = None if before_text is None else parse_id(before_text)
    if before_text is not None and before is None:
        raise _invalid("before must be a download id")
    found = await _deps(request).store.downloads.list_downloads(
        text, states=states, limit=limit + 1, before=before
    )
    page = found[:limit]
    next_before = page[-1].id if len(found) > limit else None
    return _answer(
        wire.DownloadPage(items=[wire.Download.of(d) for d in page], next_before=next_before)
    )


async def _list_titles(request: web.Request) -> web.Response:
    """List and search the library's titles, by name."""
    query = _query(request, ("q", "limit", "offset"))
    text = _single(query, "q") or ""
    if len(text) > MAX_QUERY_CHARS:
        raise _invalid(f"q is at most {MAX_QUERY_CHARS} characters")
    limit = _limit(_single(query, "limit"))
    offset_text = _single(query, "offset")
    offset = 0 if offset_text is None else ascii_int(offset_text, 9)
    if offset is None:
        raise _invalid("offset must be a whole number")
    found = await _deps(request).store.titles.list(text, offset=offset, limit=limit + 1)
    items = [wire.Title.of(row.title) for row in found[:limit]]
    more = offset + limit if len(found) > limit else None
    return _answer(wire.TitlePage(items=items, next_offset=more))


async def _search(request: web.Request) -> web.Response:
    """Search the configured sources (and TMDB for the titles): the releases grouped
    under the title each names. Answers when every source answered, or after
    ``[search] timeout`` and a few seconds with what came (``complete`` false)."""
    query = _query(request, ("q", "sort"))
    words = " ".join((_single(query, "q") or "").split())
    if not words or len(words) > MAX_QUERY_CHARS:
        raise _invalid(f"q is 1 to {MAX_QUERY_CHARS} characters")
    sort = _single(query, "sort") or "quality"
    if sort not in SORTS:
        raise _invalid(f"sort is one of {', '.join(SORTS)}")
    deps = _deps(request)
    finder = deps.cases.finder
    if not finder.enabled:
        raise _error(404, "search_disabled", "no source is configured ([search])")
    search_id = await finder.start(words)
    search = await finder.finished(search_id, deps.settings.search.timeout + SEARCH_GRACE)
    return _answer(search_answer(search, sort, await deps.store.searches.marks(search)))


def search_answer(search: Search, sort: SortBy, marks: Marks) -> wire.SearchAnswer:
    def title_of(title: Candidate | None) -> wire.SearchTitle | None:
        if title is None:
            return None
        return wire.SearchTitle(
            kind=title.kind,
            tmdb_id=title.provider_id,
            title=title.title,
            year=title.year,
            poster_path=title.poster_path,
            in_library=marks.in_library(title),
            downloading=marks.getting(title),
        )

    def release_of(result_id: Id, row: Found) -> wire.SearchRelease:
        traits = traits_of(row.name)
        return wire.SearchRelease(
            id=result_id,
            name=row.name,
            source=row.source,
            indexer=row.indexer,
            size=row.size,
            seeders=row.seeders,
            leechers=row.leechers,
            published=clock.format_time(row.published) if row.published else None,
            freeleech=row.freeleech,
            infohash=row.infohash,
            resolution=traits.resolution,
            quality=traits.source,
            season=traits.season,
            episode=traits.episode,
            pack=traits.pack,
            have=marks.of_release(row),
        )

    return wire.SearchAnswer(
        id=search.id,
        query=search.words,
        complete=not search.running,
        titles_problem=search.problem.english() if search.problem else None,
        sources=[
            wire.SearchSourceState(
                name=name,
                answered=state.answered,
                found=state.count,
                problem=state.problem.english() if state.problem else None,
            )
            for name, state in search.sources.items()
        ],
        groups=[
            wire.SearchGroup(
                title=title_of(title),
                releases=[release_of(result_id, row) for result_id, row in rows],
            )
            for title, rows in grouped(search, sort)
        ],
    )


async def _get_title(request: web.Request) -> web.Response:
    """One title with what the library holds of it."""
    title_id = _path_id(request, "title")
    _query(request)
    inventory = await _deps(request).store.titles.inventory(title_id)
    if inventory is None:
        raise _not_found(f"title {title_id}")
    return _answer(wire.TitleWithInventory.of_inventory(inventory))


async def _get_download(request: web.Request) -> web.Response:
    """One download with its history."""
    download_id = _path_id(request)
    _query(request)
    downloads = _deps(request).store.downloads
    download = await downloads.find_download(download_id)
    if download is None:
        raise _not_found(f"download {download_id}")
    history = await downloads.list_transitions(download.id)
    body = wire.DownloadWithHistory.of(download, history=[wire.Transition.of(t) for t in history])
    return _answer(body)


async def _create_download(request: web.Request) -> web.Response:
    """Add a magnet (JSON) or a .torrent file (multipart)."""
    _query(request)
    ingest = _deps(request).cases.ingest
    if request.content_type == MULTIPART_TYPE:
        data = await _torrent_upload(request)
        return _ingest_response(await ingest.torrent_file(data, origin="api"))
    if request.content_type != JSON_TYPE:
        raise _invalid(
            f"send {JSON_TYPE} with a magnet, or {MULTIPART_TYPE} with a torrent file part"
        )
    body = await _json_body(request, wire.MagnetBody)
    return _ingest_response(await ingest.magnet(body.magnet, origin="api"))


async def _retry(request: web.Request) -> web.Response:
    """Failed, stuck or removed: start again."""
    download_id = _path_id(request)
    _query(request)
    result = await _deps(request).cases.actions.retry(download_id)
    return _answer(wire.Download.of(result.download))


async def _download_again(request: web.Request) -> web.Response:
    """Failed or stuck because its files are gone from the disk: fetch it anew."""
    download_id = _path_id(request)
    _query(request)
    result = await _deps(request).cases.actions.download_again(download_id)
    return _answer(wire.Download.of(result.download))


async def _relink(request: web.Request) -> web.Response:
    """Done: lay out into the library again."""
    download_id = _path_id(request)
    _query(request)
    download = await _deps(request).cases.actions.relink(download_id)
    return _answer(wire.Download.of(download))


async def _cancel(request: web.Request) -> web.Response:
    """An active download: remove it (and its torrent from qBittorrent)."""
    download_id = _path_id(request)
    _query(request)
    download = await _deps(request).cases.actions.cancel(download_id)
    return _answer(wire.Download.of(download))


async def _review(request: web.Request) -> web.Response:
    """Pick the title of a download in review (or relink a done one with it)."""
    download_id = _path_id(request)
    _query(request)
    body = await _json_body(request, wire.ReviewBody)
    download = await _deps(request).cases.actions.decide(download_id, body.candidate_id)
    return _answer(wire.Download.of(download))


# --- the routes and the OpenAPI document ------------------------------------------------


def _ref(model: type[object]) -> Json:
    return {"$ref": REF_TEMPLATE.format(model=model.__name__)}


@dataclass(frozen=True)
class _Answer:
    """One documented answer; ``model`` is its body (None: any JSON object)."""

    description: str
    model: type[BaseModel] | None = wire.Error
    headers: Json = field(default_factory=dict)

    def describe(self) -> Json:
        schema = {"type": "object"} if self.model is None else _ref(self.model)
        described: Json = {"description": self.description}
        if self.headers:
            described["headers"] = self.headers
        return described | {"content": {JSON_TYPE: {"schema": schema}}}


def _refused(
    description: str, codes: Collection[str], model: type[BaseModel] = wire.Error
) -> _Answer:
    return _Answer(f"{description} (code: {', '.join(codes)})", model)


_BAD_INPUT = _refused("bad input: unknown or malformed parameter or body", ["invalid_input"])
_UNAUTHORIZED = _Answer(
    "missing or wrong bearer token (code: unauthorized)",
    headers={
        "WWW-Authenticate": {"schema": {"type": "string", "const": "Bearer"}, "required": True}
    },
)
_NOT_FOUND_OR_DISABLED = _refused(
    "no such download (an id that is not an id included), or the API is disabled",
    ["not_found", "api_disabled"],
)
_DISABLED = _refused("the API is disabled (web.api_token is empty)", ["api_disabled"])
_CONFLICT = _refused(
    "refused: another active download owns one of the hashes (owner_id names it),"
    " or the action does not apply to the download's state (not_recognized: a title"
    " is picked before the download was recognized)",
    ["infohash_taken", "invalid_transition", "not_recognized"],
    wire.ConflictBody,
)
_REJECTED = _refused(
    "nothing to download: the magnet or .torrent is not valid (reason), or"
    " qBittorrent refused it (download is the failed download)",
    ["rejected"],
    wire.RejectedBody,
)
_QBT_REFUSED = _refused("qBittorrent refused", ["rejected"])
_QBT_AUTH = _refused("qBittorrent refused the credentials", ["auth_failed", "external"])
_QBT_DOWN = _refused(
    "qBittorrent is unreachable; nothing changed, try again later", ["unreachable"]
)
_TOO_LARGE = _refused("the body is too large", ["too_large"])

_ID_STRING: Final[Json] = {"type": "string", "pattern": ID_PATTERN}
_ID_PARAMETER: Final[Json] = {
    "name": "id",
    "in": "path",
    "required": True,
    "description": "a download id (ULID, either case)",
    "schema": _ID_STRING,
}
_LIST_PARAMETERS: Final[tuple[Json, ...]] = (
    {
        "name": "q",
        "in": "query",
        "description": "a name substring, an infohash prefix (6+ hex) or an id",
        "schema": {"type": "string", "maxLength": MAX_QUERY_CHARS},
    },
    {
        "name": "state",
        "in": "query",
        "description": "only these states (repeat the parameter); all when absent",
        "style": "form",
        "explode": True,
        "schema": {"type": "array", "items": _ref(State)},
    },
    {
        "name": "limit",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
    },
    {
        "name": "before",
        "in": "query",
        "description": "only downloads older than this id (next_before of the previous page)",
        "schema": _ID_STRING,
    },
)


_TITLE_PARAMETERS: Final[tuple[Json, ...]] = (
    {
        "name": "q",
        "in": "query",
        "description": "a part of the name",
        "schema": {"type": "string", "maxLength": MAX_QUERY_CHARS},
    },
    {
        "name": "limit",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
    },
    {
        "name": "offset",
        "in": "query",
        "schema": {"type": "integer", "minimum": 0, "maximum": 999_999_999},
    },
)


@dataclass(frozen=True)
class _Route:
    """One operation: what ``setup`` routes and what the document says of it (the
    summary is the handler's docstring). Every operation but the document itself
    needs the token and may answer 400 and 401."""

    method: str
    path: str
    handler: Handler
    answers: Mapping[int, _Answer]
    query: tuple[Json, ...] = ()
    body: Mapping[str, type[BaseModel]] = field(default_factory=dict)
    public: bool = False

    def all_answers(self) -> Mapping[int, _Answer]:
        return (
            self.answers if self.public else {400: _BAD_INPUT, 401: _UNAUTHORIZED, **self.answers}
        )

    def describe(self) -> Json:
        operation: Json = {
            "summary": (self.handler.__doc__ or "").strip(),
            "parameters": [*([_ID_PARAMETER] if "{id}" in self.path else []), *self.query],
        }
        if self.public:
            operation["security"] = []
        if self.body:
            content = {kind: {"schema": _ref(model)} for kind, model in self.body.items()}
            operation["requestBody"] = {"required": True, "content": content}
        answers = self.all_answers().items()
        operation["responses"] = {str(status): answer.describe() for status, answer in answers}
        return operation


_SEARCH_PARAMETERS: Final[tuple[Json, ...]] = (
    {
        "name": "q",
        "in": "query",
        "required": True,
        "description": "what to look for: words (a year at the end narrows a film),"
        " tmdb:ID or imdb:ttID",
        "schema": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
    },
    {
        "name": "sort",
        "in": "query",
        "schema": {"type": "string", "enum": list(SORTS), "default": "quality"},
    },
)
_SEARCH_DISABLED = _refused(
    "the API is disabled, or no search source is configured", ["api_disabled", "search_disabled"]
)
_AFTER = _Answer("the download after the action", wire.Download)
_ACTION = {200: _AFTER, 404: _NOT_FOUND_OR_DISABLED, 409: _CONFLICT}

ROUTES: Final = (
    _Route(
        "GET", OPENAPI_PATH, _openapi, {200: _Answer("the OpenAPI document", None)}, public=True
    ),
    _Route(
        "GET",
        "/downloads",
        _list_downloads,
        {200: _Answer("a page of downloads", wire.DownloadPage), 404: _DISABLED},
        query=_LIST_PARAMETERS,
    ),
    _Route(
        "POST",
        "/downloads",
        _create_download,
        {
            201: _Answer("created, or the active download that has it", wire.CreateResult),
            404: _DISABLED,
            413: _TOO_LARGE,
            422: _REJECTED,
        },
        body={JSON_TYPE: wire.MagnetBody, MULTIPART_TYPE: wire.TorrentUpload},
    ),
    _Route(
        "GET",
        "/downloads/{id}",
        _get_download,
        {200: _Answer("the download", wire.DownloadWithHistory), 404: _NOT_FOUND_OR_DISABLED},
    ),
    _Route("POST", "/downloads/{id}/retry", _retry, {**_ACTION, 422: _QBT_REFUSED}),
    _Route("POST", "/downloads/{id}/relink", _relink, _ACTION),
    _Route(
        "POST",
        "/downloads/{id}/download-again",
        _download_again,
        {**_ACTION, 422: _QBT_REFUSED, 502: _QBT_AUTH, 503: _QBT_DOWN},
    ),
    _Route(
        "POST",
        "/downloads/{id}/cancel",
        _cancel,
        {**_ACTION, 422: _QBT_REFUSED, 502: _QBT_AUTH, 503: _QBT_DOWN},
    ),
    _Route(
        "GET",
        "/titles",
        _list_titles,
        {200: _Answer("a page of titles", wire.TitlePage), 404: _DISABLED},
        query=_TITLE_PARAMETERS,
    ),
    _Route(
        "GET",
        "/titles/{id}",
        _get_title,
        {
            200: _Answer("the title and its inventory", wire.TitleWithInventory),
            404: _NOT_FOUND_OR_DISABLED,
        },
    ),
    _Route(
        "GET",
        "/search",
        _search,
        {200: _Answer("the releases found, by title", wire.SearchAnswer), 404: _SEARCH_DISABLED},
        query=_SEARCH_PARAMETERS,
    ),
    _Route(
        "POST",
        "/downloads/{id}/review",
        _review,
        {**_ACTION, 413: _TOO_LARGE},
        body={JSON_TYPE: wire.ReviewBody},
    ),
)


def _schemas() -> Json:
    """The schemas of every body the routes name: answers as they are written,
    request bodies as they are read (and whatever those refer to)."""
    models: dict[tuple[type[BaseModel], JsonSchemaMode], None] = {}  # ordered, no repeats
    for route in ROUTES:
        for answer in route.all_answers().values():
            if answer.model is not None:
                models[answer.model, "serialization"] = None
        for model in route.body.values():
            models[model, "validation"] = None
    _, schemas = models_json_schema(list(models), ref_template=REF_TEMPLATE)
    return dict(schemas["$defs"])


def openapi_document() -> Json:
    """The OpenAPI 3.1 description of exactly what the handlers above do."""
    paths: Json = {}
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method.lower()] = route.describe()
    return copy.deepcopy(
        {
            "openapi": "3.1.0",
            "info": {
                "title": "jellybit API",
                "version": "1",
                "description": "Downloads: list, get, create, retry, relink, download again,"
                " cancel, review. Ids are lowercase ULID strings (either case is accepted).",
            },
            "servers": [{"url": PREFIX}],
            "security": [{"bearer": []}],
            "paths": paths,
            "components": {
                "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
                "schemas": _schemas(),
            },
        }
    )
