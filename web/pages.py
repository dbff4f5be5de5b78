"""The pages the bot links to: the list, a download's card, the review page.

Every id from a path or a form goes through ``parse_id`` before anything is
queried: a string that is not an id is a missing page, answered without
touching the database. Actions are POST forms (guarded by ``web.auth``) that
redirect back with a short code in the query (``?done=retry``,
``?error=unreachable``); the page turns the code into a message, so no text
from the query is ever shown as it is.
"""

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Literal
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import jinja2
from aiohttp import web
from markupsafe import Markup, escape

from common.explain import evidence_line, reason_text
from common.formatting import progress_text, relative_text, size_text
from common.i18n import Texts, state_labels
from common.logs import for_download
from core import clock
from core.errors import (
    AppError,
    ExternalError,
    InfohashTakenError,
    NotFoundError,
    UnreachableError,
)
from core.evidence import Candidate, MediaKind
from core.ids import Id, new_id, parse_id
from core.models import Download
from core.numbers import ascii_int
from core.reasons import Reason, reason
from core.recognize import OVERRIDE_FIELDS
from core.states import ACTIVE, RETRYABLE, State
from store.card import DownloadCard
from store.recognition import StoredCandidate, StoredRecognition
from web import auth, rendering
from web.app import DEPS, WebDeps
from web.auth import LANGUAGES, USER, render_refusal
from worker.tmdb import parse_tmdb_id

PAGE_SIZE = 25  # a phone screen or two; render time grows with it (bench/web_bench.py)
SEARCH_RESULTS = 10
OVERVIEW_CHARS = 160
STATIC = Path(__file__).resolve().parent / "static"
POSTER_BASE = "https://image.tmdb.org/t/p/w185"
TMDB_WEB = "https://www.themoviedb.org"
PICKABLE = frozenset({State.REVIEW, State.DONE})
KINDS: tuple[MediaKind, ...] = ("movie", "series")
# TMDB poster paths look like "/kqjL17yufvn9OVLyXYpvtyrFfak.jpg"; anything else is not shown.
_POSTER_PATH = re.compile(r"/[A-Za-z0-9_-]+\.(?:jpg|jpeg|png|webp)")
_LIMITS = {"year": (1800, 2200), "season": (0, 999), "episode_offset": (-9999, 9999)}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Action = Literal["retry", "relink", "cancel"]


def setup(app: web.Application) -> None:
    rendering.setup(app, app[DEPS].i18n, jinja2.PackageLoader("web", "templates"))
    auth.setup(app)
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/", list_page)
    app.router.add_get("/download/{id}", _with_card(card_page))
    app.router.add_post("/download/{id}/{action:retry|relink|cancel}", _with_download(act))
    app.router.add_get("/review/{id}", _with_card(review_page))
    app.router.add_post("/review/{id}", decide)
    app.router.add_post("/review/{id}/search-pick", _with_download(search_pick))
    app.router.add_post("/review/{id}/overrides", _with_download(save_overrides))


# --- how values read ------------------------------------------------------------


@dataclass(frozen=True)
class Moment:
    iso: str
    absolute: str
    relative: str


@dataclass(frozen=True)
class ListRow:
    """One row of the list, formatted in Python: a template call costs more."""

    id: Id
    name: str
    state: State
    state_label: str
    percent: int
    age: Moment | None


class Formats:
    """Values as the pages show them: in the person's language and ``general.timezone``."""

    def __init__(self, tx: Texts, zone: ZoneInfo, now: datetime) -> None:
        self._tx = tx
        self._zone = zone
        self._now = now
        self._states = state_labels(tx)  # once per page, not per row

    def state(self, state: State) -> str:
        return self._states[state]

    def reason(self, why: Reason | None) -> str:
        """A stored reason in the reader's words."""
        return reason_text(self._tx, why)

    def evidence(self, candidate: StoredCandidate | Candidate) -> str:
        return evidence_line(self._tx, candidate.evidence, candidate.title)

    def percent(self, progress: float) -> int:
        return max(0, min(100, int(progress * 100)))

    def size(self, size: float | None) -> str:
        if size is None:
            return "—"
        return size_text(self._tx, size)

    def when(self, text: str | None) -> Moment | None:
        try:
            moment = clock.parse_time(text or "")
        except ValueError:
            return None
        absolute = moment.astimezone(self._zone).strftime("%Y-%m-%d %H:%M")
        return Moment(text or "", absolute, self._relative(moment, absolute))

    def time_tag(self, text: str | None) -> Markup:
        """``<time>`` with the relative age, the absolute time as its title."""
        at = self.when(text)
        if at is None:
            return Markup("")
        # escape() and an f-string: Markup.format runs string.Formatter in Python, 5x slower.
        return Markup(
            f'<time datetime="{escape(at.iso)}" title="{escape(at.absolute)}">'
            f"{escape(at.relative)}</time>"
        )

    def copy_button(self, value: str) -> Markup:
        """A button that puts ``value`` on the clipboard (static/app.js)."""
        done, label = escape(self._tx.plain("Copied")), escape(self._tx.plain("Copy"))
        return Markup(
            f'<button type="button" class="copy" data-copy="{escape(value)}" '
            f'data-done="{done}">{label}</button>'
        )

    def _relative(self, moment: datetime, absolute: str) -> str:
        return relative_text(self._tx, moment, self._now) or absolute[:10]

    def kind(self, kind: str) -> str:
        tx = self._tx
        labels = {"movie": tx.plain("movie"), "series": tx.plain("series")}
        return labels.get(kind, tx.plain("unknown"))

    def method(self, method: str | None) -> str:
        tx = self._tx
        labels = {
            "hardlink": tx.plain("hardlink"),
            "symlink": tx.plain("symlink"),
            "copy": tx.plain("copy"),
        }
        return labels.get(method or "", tx.plain("not linked yet"))

    def poster(self, poster_path: str | None) -> str | None:
        if poster_path is None or not _POSTER_PATH.fullmatch(poster_path):
            return None
        return POSTER_BASE + poster_path

    def tmdb_url(self, candidate: StoredCandidate | Candidate) -> str | None:
        if candidate.provider != "tmdb" or parse_tmdb_id(candidate.provider_id) is None:
            return None
        section = "tv" if candidate.kind == "series" else "movie"
        return f"{TMDB_WEB}/{section}/{candidate.provider_id}"

    def line(self, text: str | None) -> str:
        """One line of an overview: its start, cut at a word."""
        flat = " ".join((text or "").split())
        if len(flat) <= OVERVIEW_CHARS:
            return flat
        return flat[:OVERVIEW_CHARS].rsplit(" ", 1)[0] + "…"


def field_labels(tx: Texts) -> dict[str, str]:
    """Names of the override fields (the form and the card's list of corrections)."""
    return {
        "kind": tx.plain("Kind"),
        "title": tx.plain("Title"),
        "year": tx.plain("Year"),
        "season": tx.plain("Season"),
        "episode_offset": tx.plain("Episode offset"),
    }


def display_name(download: Download) -> str:
    """The torrent's name, or its first hash before qBittorrent knows the name."""
    return download.name or (download.infohashes[0].value if download.infohashes else download.id)


# --- one request's page ---------------------------------------------------------


@dataclass(frozen=True)
class Page:
    request: web.Request
    deps: WebDeps
    tx: Texts
    fmt: Formats

    @classmethod
    async def of(cls, request: web.Request) -> "Page":
        deps = request.app[DEPS]
        tx = await request.app[LANGUAGES].of(request[USER])
        now = clock.from_ms(clock.now_ms())
        return cls(request, deps, tx, Formats(tx, deps.settings.general.zone, now))

    def render(self, template: str, **values: object) -> web.Response:
        context = {
            "csrf": auth.csrf_of(self.request),
            "fmt": self.fmt,
            "fields": field_labels(self.tx),
            "flash": flash(self.tx, self.request.query),
            **values,
        }
        return rendering.render(self.request, template, self.tx, context)


DownloadHandler = Callable[[Page, Download], Awaitable[web.StreamResponse]]


def _with_download(handler: DownloadHandler) -> Handler:
    """The download of the path's id. Not an id at all: 404 without a query."""

    async def with_download(request: web.Request) -> web.StreamResponse:
        download_id = parse_id(request.match_info["id"])
        if download_id is None:
            return await _not_an_id(request)
        page = await Page.of(request)
        download = await page.deps.store.downloads.find_download(download_id)
        if download is None:
            return await render_refusal(request, 404, page.tx)
        return await handler(page, download)

    return with_download


CardHandler = Callable[[Page, DownloadCard], Awaitable[web.StreamResponse]]


def _with_card(handler: CardHandler) -> Handler:
    """``_with_download`` for the pages that show it: all its data in one read."""

    async def with_card(request: web.Request) -> web.StreamResponse:
        download_id = parse_id(request.match_info["id"])
        if download_id is None:
            return await _not_an_id(request)
        page = await Page.of(request)
        card = await page.deps.store.card(download_id)
        if card is None:
            return await render_refusal(request, 404, page.tx)
        return await handler(page, card)

    return with_card


async def _not_an_id(request: web.Request) -> web.Response:
    return await render_refusal(request, 404, request.app[LANGUAGES].last_known(request[USER]))


# --- messages after an action ---------------------------------------------------


@dataclass(frozen=True)
class Flash:
    ok: bool
    message: str
    owner: Id | None = None  # the other active download of a refused action


def flash(tx: Texts, query: Mapping[str, str]) -> Flash | None:
    done = _done_messages(tx).get(query.get("done", ""))
    if done is not None:
        return Flash(True, done)
    error = query.get("error")
    if error is None:
        return None
    return Flash(False, _error_message(tx, error), parse_id(query.get("owner")))


def _done_messages(tx: Texts) -> dict[str, str]:
    return {
        "retry": tx.plain("Trying again."),
        "retry_queued": tx.plain(
            "qBittorrent is not answering: I will add it as soon as it is back."
        ),
        "relink": tx.plain("Laying it out again."),
        "cancel": tx.plain("Cancelled and deleted from qBittorrent."),
        "decide": tx.plain("Got it: putting it into the library."),
        "overrides": tx.plain("Saved: recognizing it again with your fields."),
        "overrides_saved": tx.plain("Saved: your fields are used when it is recognized."),
    }


def _error_message(tx: Texts, code: str) -> str:
    messages = {
        "invalid_transition": tx.plain("This button is outdated — here is the current state."),
        "infohash_taken": tx.plain("Refused: another active download has the same torrent."),
        "unreachable": tx.plain("qBittorrent is not answering; nothing changed. Try again later."),
        "rejected": tx.plain("qBittorrent refused it; the reason is in the history."),
        "not_found": tx.plain("This title is no longer offered: pick again."),
        "invalid_input": tx.plain(
            "Check the fields: year, season and episode offset are whole numbers."
        ),
        "search_off": tx.plain("Search is off: no TMDB key is configured."),
        "tmdb": tx.plain("TMDB is not answering; try again later."),
        "not_recognized": tx.plain("It is not recognized yet: wait until it is downloaded."),
    }
    return messages.get(code, tx.plain("That did not work; nothing changed."))


def _error_code(error: AppError) -> str:
    """The code a redirect carries; TMDB's own, so its trouble is not told as qBittorrent's."""
    if isinstance(error, ExternalError) and error.system == "tmdb":
        return "tmdb" if isinstance(error, UnreachableError) else "external"
    return error.code


def _redirect(path: str, **params: str | None) -> web.HTTPSeeOther:
    query = urlencode({key: value for key, value in params.items() if value})
    return web.HTTPSeeOther(f"{path}?{query}" if query else path)


def _card(download_id: Id, **params: str | None) -> web.HTTPSeeOther:
    return _redirect(f"/download/{download_id}", **params)


def _review(download_id: Id, **params: str | None) -> web.HTTPSeeOther:
    return _redirect(f"/review/{download_id}", **params)


# --- the list -------------------------------------------------------------------


async def list_page(request: web.Request) -> web.StreamResponse:
    page = await Page.of(request)
    query = request.query.get("q", "").strip()[:200]
    state = request.query.get("state", "")
    before = parse_id(request.query.get("before"))
    found = await page.deps.store.downloads.list_downloads(
        query, states=_filter(state), limit=PAGE_SIZE + 1, before=before
    )
    shown = found[:PAGE_SIZE]
    older = _list_url(query, state, shown[-1].id) if len(found) > PAGE_SIZE else None
    fmt = page.fmt
    rows = [
        ListRow(
            d.id,
            display_name(d),
            d.state,
            fmt.state(d.state),
            fmt.percent(d.progress),
            fmt.when(d.created_at),
        )
        for d in shown
    ]
    return page.render(
        "list.html",
        rows=rows,
        query=query,
        state=state,
        states=_filter_options(page.tx),
        older=older,
        newest=_list_url(query, state, None) if before else None,
    )


def _filter(state: str) -> frozenset[State]:
    if state == "active":
        return ACTIVE
    if state in {known.value for known in State}:
        return frozenset({State(state)})
    return frozenset(State)


def _filter_options(tx: Texts) -> list[tuple[str, str]]:
    labels = state_labels(tx)
    return [("", tx.plain("all")), ("active", tx.plain("active"))] + [
        (state.value, labels[state]) for state in State
    ]


def _list_url(query: str, state: str, before: Id | None) -> str:
    params = {"q": query, "state": state, "before": before or ""}
    text = urlencode({key: value for key, value in params.items() if value})
    return f"/?{text}" if text else "/"


# --- the card -------------------------------------------------------------------


async def card_page(page: Page, card: DownloadCard) -> web.StreamResponse:
    download, recognition = card.download, card.recognition
    return page.render(
        "card.html",
        d=download,
        name=display_name(download),
        numbers=progress_text(page.tx, download),
        actions=_actions(page.tx, download.state),
        can_cancel=download.state in ACTIVE,
        can_review=download.state in PICKABLE,
        links=card.links,
        rec=recognition,
        chosen=recognition.chosen() if recognition else None,
        hints=card.hints,
        overrides=card.overrides,
        history=card.history,
        category=page.deps.settings.qbittorrent.category,
    )


def _actions(tx: Texts, state: State) -> list[tuple[Action, str]]:
    """The actions that fit the state (cancel is asked for separately: it deletes)."""
    actions: list[tuple[Action, str]] = []
    if state in RETRYABLE:
        actions.append(("retry", tx.plain("Retry")))
    if state == State.DONE:
        actions.append(("relink", tx.plain("Relink")))
    return actions


async def act(page: Page, download: Download) -> web.StreamResponse:
    actions = page.deps.engine.actions
    action = page.request.match_info["action"]
    try:
        if action == "retry":
            done = "retry_queued" if (await actions.retry(download.id)).queued else "retry"
        elif action == "relink":
            await actions.relink(download.id)
            done = "relink"
        else:
            await actions.cancel(download.id)
            done = "cancel"
    except InfohashTakenError as error:
        raise _card(download.id, error=error.code, owner=error.owner_id) from None
    except AppError as error:
        raise _card(download.id, error=_error_code(error)) from None
    raise _card(download.id, done=done)


# --- review ---------------------------------------------------------------------


@dataclass(frozen=True)
class Search:
    enabled: bool
    text: str  # what was searched; empty: no search yet
    prefill: str
    kind: MediaKind
    year: str
    results: list[Candidate]
    problem: str | None = None


async def review_page(page: Page, card: DownloadCard) -> web.StreamResponse:
    download, recognition = card.download, card.recognition
    candidates = list(recognition.candidates) if recognition else []
    return page.render(
        "review.html",
        d=download,
        name=display_name(download),
        rec=recognition,
        best=candidates[0] if candidates else None,
        others=candidates[1:],
        pickable=download.state in PICKABLE,
        hints=card.hints,
        overrides=card.overrides,
        search=await _search(page, recognition),
        kinds=KINDS,
    )


async def _search(page: Page, recognition: StoredRecognition | None) -> Search:
    query = page.request.query
    text = query.get("search", "").strip()[:200]
    kind = _kind(query.get("kind")) or _kind(recognition.kind if recognition else None) or "movie"
    year = query.get("year", "").strip()[:4]
    tmdb = page.deps.engine.tmdb
    prefill = text or (recognition.title if recognition and recognition.title else "")
    search = Search(tmdb is not None and tmdb.enabled, text, prefill, kind, year, [])
    if tmdb is None or not search.enabled or not text:
        return search
    try:
        found = await tmdb.search(kind, text, ascii_int(year, 4))
    except ExternalError:
        return replace(search, problem=_error_message(page.tx, "tmdb"))
    return replace(search, results=found[:SEARCH_RESULTS])


def _kind(text: str | None) -> MediaKind | None:
    return next((kind for kind in KINDS if kind == text), None)


async def decide(request: web.Request) -> web.StreamResponse:
    """The person picked a candidate. Both ids are parsed before any query."""
    form = await request.post()
    download_id = parse_id(request.match_info["id"])
    candidate_id = parse_id(form.get("candidate_id"))
    if download_id is None or candidate_id is None:
        return await _not_an_id(request)
    try:
        await request.app[DEPS].engine.actions.decide(download_id, candidate_id)
    except NotFoundError as error:
        if error.entity == "download":
            tx = await request.app[LANGUAGES].of(request[USER])
            return await render_refusal(request, 404, tx)
        raise _review(download_id, error=error.code) from None
    except AppError as error:
        raise _review(download_id, error=_error_code(error)) from None
    raise _card(download_id, done="decide")


async def search_pick(page: Page, download: Download) -> web.StreamResponse:
    """A title found by hand becomes a candidate of a new recognition (a copy of
    the current one: same files and parse), then it is picked like any other."""
    form = await page.request.post()
    kind, tmdb_id = _kind(_text(form.get("kind"))), _text(form.get("tmdb_id"))
    tmdb = page.deps.engine.tmdb
    if kind is None or parse_tmdb_id(tmdb_id) is None:
        raise _review(download.id, error="invalid_input")
    if tmdb is None or not tmdb.enabled:
        raise _review(download.id, error="search_off")
    if download.state not in PICKABLE:
        raise _review(download.id, error="invalid_transition")
    recognition = await page.deps.store.recognitions.current(download.id)
    if recognition is None:
        raise _review(download.id, error="not_recognized")
    try:
        found = await tmdb.details(kind, tmdb_id)
        candidate_id = await _with_candidate(page.deps, recognition, found)
        await page.deps.engine.actions.decide(download.id, candidate_id)
    except AppError as error:
        raise _review(download.id, error=_error_code(error)) from None
    raise _card(download.id, done="decide")


async def _with_candidate(deps: WebDeps, recognition: StoredRecognition, found: Candidate) -> Id:
    """The id of ``found`` among the current candidates, or of it in a new
    recognition that holds it beside them (one transaction: ``save``)."""
    for candidate in recognition.candidates:
        same = (candidate.provider, candidate.kind, candidate.provider_id)
        if same == (found.provider, found.kind, found.provider_id):
            return candidate.id
    picked = StoredCandidate(
        id=new_id(),
        provider=found.provider,
        provider_id=found.provider_id,
        kind=found.kind,
        title=found.title,
        original_title=found.original_title,
        year=found.year,
        overview=found.overview,
        poster_path=found.poster_path,
        popularity=found.popularity,
        score=1.0,  # the person's own pick: nothing is surer
        selected=False,
        seasons=found.seasons,
    )
    kept = [replace(c, id=new_id(), selected=False) for c in recognition.candidates]
    saved = await deps.store.recognitions.save(
        recognition.download_id,
        kind=recognition.kind,
        title=recognition.title,
        year=recognition.year,
        season=recognition.season,
        status="needs_review",
        reason=reason("picked"),
        files=recognition.files,
        candidates=[picked, *kept],
    )
    for_download(recognition.download_id).info(
        "recognition.found_by_hand", recognition_id=saved, candidate_id=picked.id
    )
    return picked.id


async def save_overrides(page: Page, download: Download) -> web.StreamResponse:
    """Fields set by the person; the download is recognized again with them."""
    form = await page.request.post()
    values = {field: _text(form.get(field)).strip() for field in sorted(OVERRIDE_FIELDS)}
    if not _valid_overrides(values):
        raise _review(download.id, error="invalid_input")
    store = page.deps.store
    await store.recognitions.set_overrides(download.id, values)
    set_fields = sorted(field for field, value in values.items() if value)
    for_download(download.id).info("download.overrides_set", fields=set_fields)
    recognition = await store.recognitions.current(download.id)
    if recognition is None or download.state not in PICKABLE | {State.IMPORTING}:
        raise _card(download.id, done="overrides_saved")
    await store.recognitions.set_status(recognition.id, "waiting", reason("person.corrected"))
    try:
        if download.state == State.REVIEW:
            await store.downloads.move(
                download.id,
                State.IMPORTING,
                reason=reason("person.corrected"),
                expected={State.REVIEW},
            )
        elif download.state == State.DONE:
            await page.deps.engine.actions.relink(download.id)
    except AppError as error:
        raise _card(download.id, error=_error_code(error)) from None
    page.deps.engine.importer.wake.set()
    raise _card(download.id, done="overrides")


def _valid_overrides(values: Mapping[str, str]) -> bool:
    if values.get("kind", "") not in ("", *KINDS) or len(values.get("title", "")) > 300:
        return False
    return all(_in_range(values.get(field, ""), *limits) for field, limits in _LIMITS.items())


def _in_range(text: str, lowest: int, highest: int) -> bool:
    if text == "":
        return True
    try:
        return lowest <= int(text) <= highest
    except ValueError:
        return False


def _text(value: object) -> str:
    """A form field as text; a file upload or a missing field is empty."""
    return value if isinstance(value, str) else ""
