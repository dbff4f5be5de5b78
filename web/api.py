"""The JSON API: a sub-app under ``/api`` (product.md §6).

Authorization is ``Bearer <web.api_token>``; an empty token disables the API
(404 ``api_disabled``). Every answer is JSON; every error is
``{"code", "message"}`` with a stable code (plus ``owner_id``/``infohash`` for
``infohash_taken`` and ``download`` for ``rejected`` when there is one). Ids in
paths and bodies go through ``parse_id`` first: an invalid path id is a 404
without a database query.

``GET /api/openapi.json`` (no auth) serves ``openapi_document()``, built here
from the same constants the handlers use: the one description of the API.
"""

import copy
import hmac
import json
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, Final

from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError
from multidict import MultiMapping

from common.logs import get_logger
from core.errors import (
    AppError,
    AuthFailedError,
    ConflictError,
    ExternalError,
    InfohashTakenError,
    InvalidInputError,
    InvalidTransitionError,
    NotFoundError,
    RejectedError,
    UnreachableError,
)
from core.ids import Id, parse_id
from core.models import Download, StateTransition
from core.numbers import ascii_int
from core.states import State
from core.torrent_file import MAX_TORRENT_BYTES
from web.app import DEPS, WebDeps
from worker.ingest import Created, Duplicate, IngestResult, Rejected

PREFIX: Final = "/api"
OPENAPI_PATH: Final = "/openapi.json"
OPENAPI_ROUTE: Final = "openapi"

DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 200
MAX_QUERY_CHARS: Final = 200
MAX_JSON_BYTES: Final = 64 * 1024
# A canonical id in either case (``core.ids.parse_id``): the first character
# keeps the 48-bit time range, Crockford base32 has no I, L, O, U.
ID_PATTERN: Final = "^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$"

JSON_TYPE: Final = "application/json"
MULTIPART_TYPE: Final = "multipart/form-data"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Json = dict[str, Any]


class ApiError(Exception):
    """An answer other than success, decided by the API layer itself."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        extra: Mapping[str, object] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})

    def response(self) -> web.Response:
        body = {"code": self.code, "message": self.message, **self.extra}
        return web.json_response(body, status=self.status, headers=self.headers)


def _invalid(message: str) -> ApiError:
    return ApiError(400, InvalidInputError.code, message)


def _not_found(what: str) -> ApiError:
    return ApiError(404, NotFoundError.code, f"{what} not found")


# --- setup, auth and error mapping ------------------------------------------------


def setup(app: web.Application) -> None:
    """Mount the API under ``/api``; it reads ``app[DEPS]`` through ``config_dict``."""
    api = web.Application(middlewares=[_api_middleware])
    api.router.add_get(OPENAPI_PATH, _openapi, name=OPENAPI_ROUTE)
    api.router.add_get("/downloads", _list_downloads)
    api.router.add_post("/downloads", _create_download)
    api.router.add_get("/downloads/{id}", _get_download)
    api.router.add_post("/downloads/{id}/retry", _retry)
    api.router.add_post("/downloads/{id}/relink", _relink)
    api.router.add_post("/downloads/{id}/cancel", _cancel)
    api.router.add_post("/downloads/{id}/review", _review)
    app.add_subapp(PREFIX, api)


@web.middleware
async def _api_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        if request.match_info.route.name != OPENAPI_ROUTE:
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
        return ApiError(500, "internal_error", "internal error").response()


def _authorize(request: web.Request) -> None:
    """Raise unless the request carries the configured bearer token."""
    deps = request.config_dict.get(DEPS)
    token = deps.settings.web.api_token if deps is not None else ""
    if not token:
        raise ApiError(404, "api_disabled", "the API is disabled (web.api_token is empty)")
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    expected = token.encode("utf-8")
    presented = given.strip().encode("utf-8", "surrogatepass")
    if scheme.lower() != "bearer" or not hmac.compare_digest(presented, expected):
        raise ApiError(
            401,
            "unauthorized",
            "missing or wrong bearer token",
            headers={"WWW-Authenticate": "Bearer"},
        )


def _app_error(error: AppError) -> ApiError:
    message = str(error) or error.code
    if isinstance(error, InvalidInputError):
        return ApiError(400, error.code, message)
    if isinstance(error, NotFoundError):
        return ApiError(404, error.code, message)
    if isinstance(error, InfohashTakenError):
        extra = {"owner_id": error.owner_id, "infohash": error.infohash}
        return ApiError(409, error.code, message, extra=extra)
    if isinstance(error, InvalidTransitionError | ConflictError):
        return ApiError(409, error.code, message)
    if isinstance(error, RejectedError):
        return ApiError(422, error.code, message)
    if isinstance(error, UnreachableError):
        return ApiError(503, error.code, message)
    if isinstance(error, AuthFailedError | ExternalError):
        return ApiError(502, error.code, message)
    return ApiError(500, error.code, message)


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
    return ApiError(status, code, error.reason, headers=headers)


def _deps(request: web.Request) -> WebDeps:
    deps = request.config_dict.get(DEPS)
    if deps is None:  # _authorize let it through: only when the app is built without deps
        raise ApiError(404, "api_disabled", "the API is disabled")
    return deps


# --- input --------------------------------------------------------------------------


def _path_id(request: web.Request) -> Id:
    """The ``{id}`` of the path; a 404 — before any query — when it is not an id."""
    download_id = parse_id(request.match_info["id"])
    if download_id is None:
        raise _not_found(f"download {request.match_info['id']!r}")
    return download_id


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
    """A string SQLite and the logs can take (JSON escapes may carry lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _invalid(f"{name} is not valid UTF-8 text") from None
    return value


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


async def _json_object(request: web.Request, fields: Collection[str]) -> Json:
    """A JSON object body with exactly ``fields``, each a string."""
    if request.content_type != JSON_TYPE:
        raise _invalid(f"the body must be {JSON_TYPE}")
    too_large = ApiError(413, "too_large", f"a JSON body is at most {MAX_JSON_BYTES} bytes")
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
    for name in body:
        if name not in fields:
            raise _invalid(f"unknown field {name!r}")
    for name in fields:
        if name not in body:
            raise _invalid(f"{name} is required")
        if not isinstance(body[name], str):
            raise _invalid(f"{name} must be a string")
        _text(body[name], name)
    return body


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


def download_dto(download: Download) -> Json:
    """A download as the API shows it: string id, ``infohashes`` as a list."""
    return {
        "id": download.id,
        "name": download.name,
        "state": download.state.value,
        "progress": download.progress,
        "size": download.total_size,
        "download_speed": download.download_speed,
        "eta": download.eta,
        "error": None if download.error is None else download.error.english(),
        "source": download.source,
        "infohashes": [{"infohash": h.value, "kind": h.kind} for h in download.infohashes],
        "save_path": download.save_path,
        "content_path": download.content_path,
        "created_at": download.created_at,
        "updated_at": download.updated_at,
        "completed_at": download.completed_at,
    }


def transition_dto(transition: StateTransition) -> Json:
    return {
        "id": transition.id,
        "from_state": None if transition.from_state is None else transition.from_state.value,
        "to_state": transition.to_state.value,
        "reason": transition.reason.english(),
        "created_at": transition.created_at,
    }


def _ingest_response(result: IngestResult) -> web.Response:
    if isinstance(result, Rejected):
        extra: Json = {"reason": result.reason.english()}
        if result.download is not None:
            extra["download"] = download_dto(result.download)
        raise ApiError(422, RejectedError.code, result.reason.english(), extra=extra)
    body: Json
    if isinstance(result, Created):
        body = {"result": "created", "queued": result.queued}
    else:
        assert isinstance(result, Duplicate)
        body = {"result": "duplicate", "queued": False}
    body["download"] = download_dto(result.download)
    return web.json_response(body, status=201)


# --- handlers -----------------------------------------------------------------------


async def _openapi(request: web.Request) -> web.Response:
    del request  # no token, and any query string: it is documentation
    return web.json_response(openapi_document())


async def _list_downloads(request: web.Request) -> web.Response:
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
    return web.json_response({"items": [download_dto(d) for d in page], "next_before": next_before})


async def _get_download(request: web.Request) -> web.Response:
    download_id = _path_id(request)
    _query(request)
    downloads = _deps(request).store.downloads
    download = await downloads.find_download(download_id)
    if download is None:
        raise _not_found(f"download {download_id}")
    history = await downloads.list_transitions(download.id)
    body = download_dto(download) | {"history": [transition_dto(t) for t in history]}
    return web.json_response(body)


async def _create_download(request: web.Request) -> web.Response:
    _query(request)
    ingest = _deps(request).cases.ingest
    if request.content_type == MULTIPART_TYPE:
        data = await _torrent_upload(request)
        return _ingest_response(await ingest.torrent_file(data, source="api"))
    if request.content_type != JSON_TYPE:
        raise _invalid(
            f"send {JSON_TYPE} with a magnet, or {MULTIPART_TYPE} with a torrent file part"
        )
    body = await _json_object(request, ("magnet",))
    return _ingest_response(await ingest.magnet(body["magnet"], source="api"))


async def _retry(request: web.Request) -> web.Response:
    download_id = _path_id(request)
    _query(request)
    result = await _deps(request).cases.actions.retry(download_id)
    return web.json_response(download_dto(result.download))


async def _relink(request: web.Request) -> web.Response:
    download_id = _path_id(request)
    _query(request)
    download = await _deps(request).cases.actions.relink(download_id)
    return web.json_response(download_dto(download))


async def _cancel(request: web.Request) -> web.Response:
    download_id = _path_id(request)
    _query(request)
    download = await _deps(request).cases.actions.cancel(download_id)
    return web.json_response(download_dto(download))


async def _review(request: web.Request) -> web.Response:
    download_id = _path_id(request)
    _query(request)
    body = await _json_object(request, ("candidate_id",))
    candidate_id = parse_id(body["candidate_id"])
    if candidate_id is None:
        raise _invalid("candidate_id must be an id")
    download = await _deps(request).cases.actions.decide(download_id, candidate_id)
    return web.json_response(download_dto(download))


# --- the OpenAPI document -------------------------------------------------------------


def _ref(name: str) -> Json:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: Json) -> Json:
    return {"anyOf": [schema, {"type": "null"}]}


def _error_response(description: str, codes: Collection[str], schema: str = "Error") -> Json:
    return {
        "description": f"{description} (code: {', '.join(codes)})",
        "content": {JSON_TYPE: {"schema": _ref(schema)}},
    }


def _ok(description: str, schema: str) -> Json:
    return {"description": description, "content": {JSON_TYPE: {"schema": _ref(schema)}}}


_UNAUTHORIZED: Final[Json] = {
    "description": "missing or wrong bearer token (code: unauthorized)",
    "headers": {
        "WWW-Authenticate": {"schema": {"type": "string", "const": "Bearer"}, "required": True}
    },
    "content": {JSON_TYPE: {"schema": _ref("Error")}},
}
_BAD_INPUT = _error_response("bad input: unknown or malformed parameter or body", ["invalid_input"])
_NOT_FOUND_OR_DISABLED = _error_response(
    "no such download (an id that is not an id included), or the API is disabled",
    ["not_found", "api_disabled"],
)
_DISABLED = _error_response("the API is disabled (web.api_token is empty)", ["api_disabled"])
_CONFLICT = _error_response(
    "refused: another active download owns one of the hashes (owner_id names it),"
    " or the action does not apply to the download's state (not_recognized: a title"
    " is picked before the download was recognized)",
    ["infohash_taken", "invalid_transition", "not_recognized"],
    "ConflictError",
)
_QBT_REFUSED = _error_response("qBittorrent refused", ["rejected"])
_QBT_AUTH = _error_response("qBittorrent refused the credentials", ["auth_failed", "external"])
_QBT_DOWN = _error_response(
    "qBittorrent is unreachable; nothing changed, try again later", ["unreachable"]
)
_TOO_LARGE = _error_response("the body is too large", ["too_large"])

_ID_PARAMETER: Final[Json] = {
    "name": "id",
    "in": "path",
    "required": True,
    "description": "a download id (ULID, either case)",
    "schema": {"type": "string", "pattern": ID_PATTERN},
}

_NULLABLE_STRING = _nullable({"type": "string"})
_NULLABLE_COUNT = _nullable({"type": "integer", "minimum": 0})
_TIME: Final[Json] = {"type": "string", "format": "date-time"}

_DOWNLOAD_PROPERTIES: Final[Json] = {
    "id": {"type": "string", "pattern": ID_PATTERN},
    "name": {"type": "string"},
    "state": {"type": "string", "enum": [s.value for s in State]},
    "progress": {"type": "number", "minimum": 0, "maximum": 1},
    "size": _NULLABLE_COUNT,
    "download_speed": _NULLABLE_COUNT,
    "eta": _nullable({"type": "integer"}),
    "error": _NULLABLE_STRING,
    "source": {"type": "string"},
    "infohashes": {"type": "array", "items": _ref("Infohash")},
    "save_path": _NULLABLE_STRING,
    "content_path": _NULLABLE_STRING,
    "created_at": _TIME,
    "updated_at": _TIME,
    "completed_at": _nullable(_TIME),
}

_SCHEMAS: Final[Json] = {
    "Infohash": {
        "type": "object",
        "required": ["infohash", "kind"],
        "additionalProperties": False,
        "properties": {
            "infohash": {"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$"},
            "kind": {"type": "string", "enum": ["v1", "v2"]},
        },
    },
    "Download": {
        "type": "object",
        "required": list(_DOWNLOAD_PROPERTIES),
        "additionalProperties": False,
        "properties": _DOWNLOAD_PROPERTIES,
    },
    "Transition": {
        "type": "object",
        "required": ["id", "from_state", "to_state", "reason", "created_at"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "pattern": ID_PATTERN},
            "from_state": _nullable({"type": "string", "enum": [s.value for s in State]}),
            "to_state": {"type": "string", "enum": [s.value for s in State]},
            "reason": {"type": "string"},
            "created_at": _TIME,
        },
    },
    "DownloadWithHistory": {
        "type": "object",
        "required": [*_DOWNLOAD_PROPERTIES, "history"],
        "additionalProperties": False,
        "properties": {
            **_DOWNLOAD_PROPERTIES,
            "history": {"type": "array", "items": _ref("Transition")},
        },
    },
    "DownloadPage": {
        "type": "object",
        "required": ["items", "next_before"],
        "additionalProperties": False,
        "properties": {
            "items": {"type": "array", "items": _ref("Download")},
            "next_before": {
                "description": "pass as `before` for the next page; null on the last page",
                **_nullable({"type": "string", "pattern": ID_PATTERN}),
            },
        },
    },
    "CreateResult": {
        "type": "object",
        "required": ["result", "queued", "download"],
        "additionalProperties": False,
        "properties": {
            "result": {
                "type": "string",
                "enum": ["created", "duplicate"],
                "description": "duplicate: an active download already has one of the hashes",
            },
            "queued": {
                "type": "boolean",
                "description": "qBittorrent is unreachable; the torrent is added when it is back",
            },
            "download": _ref("Download"),
        },
    },
    "MagnetBody": {
        "type": "object",
        "required": ["magnet"],
        "additionalProperties": False,
        "properties": {"magnet": {"type": "string", "description": "a magnet link"}},
    },
    "TorrentUpload": {
        "type": "object",
        "required": ["torrent"],
        "additionalProperties": False,
        "properties": {
            "torrent": {
                "type": "string",
                "format": "binary",
                "description": f"a .torrent file of at most {MAX_TORRENT_BYTES} bytes",
            }
        },
    },
    "ReviewBody": {
        "type": "object",
        "required": ["candidate_id"],
        "additionalProperties": False,
        "properties": {"candidate_id": {"type": "string", "pattern": ID_PATTERN}},
    },
    "Error": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {"type": "string", "description": "stable; texts and clients key on it"},
            "message": {"type": "string"},
        },
    },
    "ConflictError": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {
                "type": "string",
                "enum": ["infohash_taken", "invalid_transition", "not_recognized"],
            },
            "message": {"type": "string"},
            "owner_id": {
                "type": "string",
                "pattern": ID_PATTERN,
                "description": "infohash_taken: the active download that owns the hash",
            },
            "infohash": {"type": "string", "description": "infohash_taken: the hash"},
        },
    },
    "RejectedError": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {"type": "string", "const": "rejected"},
            "message": {"type": "string"},
            "reason": {"type": "string", "description": "why the input was refused"},
            "download": {
                **_ref("Download"),
                "description": "the failed download, when qBittorrent refused the torrent",
            },
        },
    },
}


def _operation(
    summary: str,
    responses: Mapping[str, Json],
    *,
    parameters: list[Json] | None = None,
    body: Json | None = None,
) -> Json:
    operation: Json = {"summary": summary, "parameters": parameters or []}
    if body is not None:
        operation["requestBody"] = body
    operation["responses"] = {"400": _BAD_INPUT, "401": _UNAUTHORIZED, **responses}
    return operation


def _action(summary: str, extra: Mapping[str, Json] | None = None) -> Json:
    responses = {
        "200": _ok("the download after the action", "Download"),
        "404": _NOT_FOUND_OR_DISABLED,
        "409": _CONFLICT,
        **(extra or {}),
    }
    return {"post": _operation(summary, responses, parameters=[_ID_PARAMETER])}


def openapi_document() -> Json:
    """The OpenAPI 3.1 description of exactly what the handlers above do."""
    rejected = _error_response(
        "nothing to download: the magnet or .torrent is not valid (reason), or"
        " qBittorrent refused it (download is the failed download)",
        ["rejected"],
        "RejectedError",
    )
    list_parameters: list[Json] = [
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
            "schema": {
                "type": "array",
                "items": {"type": "string", "enum": [s.value for s in State]},
            },
        },
        {
            "name": "limit",
            "in": "query",
            "schema": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
            },
        },
        {
            "name": "before",
            "in": "query",
            "description": "only downloads older than this id (next_before of the previous page)",
            "schema": {"type": "string", "pattern": ID_PATTERN},
        },
    ]
    create_body: Json = {
        "required": True,
        "content": {
            JSON_TYPE: {"schema": _ref("MagnetBody")},
            MULTIPART_TYPE: {"schema": _ref("TorrentUpload")},
        },
    }
    review_body: Json = {"required": True, "content": {JSON_TYPE: {"schema": _ref("ReviewBody")}}}
    document: Json = {
        "openapi": "3.1.0",
        "info": {
            "title": "jellybit API",
            "version": "1",
            "description": "Downloads: list, get, create, retry, relink, cancel, review."
            " Ids are lowercase ULID strings (either case is accepted).",
        },
        "servers": [{"url": PREFIX}],
        "security": [{"bearer": []}],
        "paths": {
            OPENAPI_PATH: {
                "get": {
                    "summary": "This document",
                    "security": [],
                    "parameters": [],
                    "responses": {
                        "200": {
                            "description": "the OpenAPI document",
                            "content": {JSON_TYPE: {"schema": {"type": "object"}}},
                        },
                    },
                }
            },
            "/downloads": {
                "get": _operation(
                    "List and search downloads, newest first",
                    {"200": _ok("a page of downloads", "DownloadPage"), "404": _DISABLED},
                    parameters=list_parameters,
                ),
                "post": _operation(
                    "Add a magnet (JSON) or a .torrent file (multipart)",
                    {
                        "201": _ok("created, or the active download that has it", "CreateResult"),
                        "404": _DISABLED,
                        "413": _TOO_LARGE,
                        "422": rejected,
                    },
                    body=create_body,
                ),
            },
            "/downloads/{id}": {
                "get": _operation(
                    "One download with its history",
                    {
                        "200": _ok("the download", "DownloadWithHistory"),
                        "404": _NOT_FOUND_OR_DISABLED,
                    },
                    parameters=[_ID_PARAMETER],
                ),
            },
            "/downloads/{id}/retry": _action(
                "failed, stuck or removed: start again", {"422": _QBT_REFUSED}
            ),
            "/downloads/{id}/relink": _action("done: lay out into the library again"),
            "/downloads/{id}/cancel": _action(
                "an active download: remove it (and its torrent from qBittorrent)",
                {"422": _QBT_REFUSED, "502": _QBT_AUTH, "503": _QBT_DOWN},
            ),
            "/downloads/{id}/review": {
                "post": _operation(
                    "Pick the title of a download in review (or relink a done one with it)",
                    {
                        "200": _ok("the download after the choice", "Download"),
                        "404": _NOT_FOUND_OR_DISABLED,
                        "409": _CONFLICT,
                        "413": _TOO_LARGE,
                    },
                    parameters=[_ID_PARAMETER],
                    body=review_body,
                )
            },
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": _SCHEMAS,
        },
    }
    return copy.deepcopy(document)  # the module's constants stay as they are
