"""The pages the bot links to: the list, a download's card, the review page.

Every id from a path or a form goes through ``parse_id`` before anything is
queried: a string that is not an id is a missing page, answered without
touching the database. Actions are POST forms (guarded by ``web.auth``) that
redirect back with a short code in the query (``?done=retry``,
``?error=unreachable``); the page turns the code into a message, so no text
from the query is ever shown as it is.
"""

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
from core import clock
from core.errors import (
    AppError,
    ExternalError,
    InfohashTakenError,
    UnreachableError,
)
from core.ids import Id, parse_id
from core.models import Download
from core.numbers import ascii_int
from core.posters import poster_url
from core.reasons import TEMPLATES, Reason
from core.search import SORTS, Found, traits_of
from core.states import ACTIVE, State
from recognition.candidates import Candidate, MediaKind
from recognition.overrides import OVERRIDE_FIELDS
from store.card import DownloadCard
from store.recognition import StoredRecognition
from store.search import Marks
from web import auth, rendering
from web.app import DEPS, WebDeps
from web.auth import LANGUAGES, USER, render_refusal
from worker.actions import PICKABLE
from worker.ingest import Rejected
from worker.search import Group, grouped
from worker.tmdb import parse_tmdb_id

PAGE_SIZE = 25  # a phone screen or two; render time grows with it (bench/web_bench.py)
SEARCH_RESULTS = 10
OVERVIEW_CHARS = 160
STATIC = Path(__file__).resolve().parent / "static"
# The pages show posters from TMDB's own host only (the Content-Security-Policy says so).
POSTER_IMAGES = "https://image.tmdb.org/t/p"
TMDB_WEB = "https://www.themoviedb.org"
KINDS: tuple[MediaKind, ...] = ("movie", "series")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Action = Literal["retry", "relink", "cancel", "again"]
# What the card offers in each state: the actions, Pick (the review page) and Cancel
# (asked for separately: it deletes). Download again replaces Retry when the files are gone.
CARD_OFFERS: dict[State, tuple[Literal["retry", "relink", "pick", "cancel"], ...]] = {
    State.ACCEPTED: ("cancel",),
    State.DOWNLOADING: ("cancel",),
    State.STUCK: ("retry", "cancel"),
    State.REVIEW: ("pick", "cancel"),
    State.IMPORTING: ("cancel",),
    State.DONE: ("relink", "pick"),  # a done download's title may be picked again
    State.FAILED: ("retry",),
    State.REMOVED: ("retry",),
}


def setup(app: web.Application) -> None:
    rendering.setup(app, app[DEPS].i18n, jinja2.PackageLoader("web", "templates"))
    auth.setup(app)
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/", list_page)
    app.middlewares.append(_refusals)
    app.router.add_get("/download/{id}", _with_card(card_page))
    app.router.add_post(
        "/download/{id}/{action:retry|relink|cancel|again}", _with_download(act, CARD)
    )
    app.router.add_post(
        "/download/{id}/duplicate/{choice:version|replace|skip}",
        _with_download(resolve_duplicate, CARD),
    )
    app.router.add_get("/live", live)
    app.router.add_get("/library", library_page)
    app.router.add_get("/search", search_page)
    app.router.add_post("/search/{id}/add/{result}", add_release)
    app.router.add_get("/title/{id}", title_page)
    app.router.add_post("/title/{id}/relink", title_action)
    app.router.add_post("/title/{id}/remove/{download}", title_action)
    app.router.add_get("/review/{id}", _with_card(review_page))
    app.router.add_post("/review/{id}", decide)
    app.router.add_post("/review/{id}/search-pick", _with_download(search_pick, REVIEW))
    app.router.add_post("/review/{id}/overrides", _with_download(save_overrides, REVIEW))


# The page an action's form is on: a refused action goes back there (``_refusals``).
_BACK = web.RequestKey("back", str)
CARD, REVIEW = "/download/{id}", "/review/{id}"


@web.middleware
async def _refusals(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The pages' one error boundary: an action refused with an ``AppError`` goes
    back to its page with the refusal's code, which the page says in the reader's
    words (``flash``). Any other request lets it through (the API has its own)."""
    try:
        return await handler(request)
    except AppError as error:
        back = request.get(_BACK)
        if back is None:
            raise
        owner = error.owner_id if isinstance(error, InfohashTakenError) else None
        raise _redirect(back, error=_error_code(error), owner=owner) from None


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

    def detail(self, why: Reason | None) -> str:
        """What another system said about it, verbatim (qBittorrent's "Fails.")."""
        return "" if why is None else why.detail()

    def evidence(self, candidate: Candidate) -> str:
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
        return poster_url(POSTER_IMAGES, "w185", poster_path)

    def tmdb_url(self, candidate: Candidate) -> str | None:
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
            "active_states": ACTIVE,
            "flash": flash(self.tx, self.request.query),
            **values,
        }
        return rendering.render(self.request, template, self.tx, context)


DownloadHandler = Callable[[Page, Download], Awaitable[web.StreamResponse]]


def _with_download(handler: DownloadHandler, back: str) -> Handler:
    """An action on the download of the path's id, whose form is on the page
    ``back``. Not an id at all: 404 without a query."""

    async def with_download(request: web.Request) -> web.StreamResponse:
        download_id = parse_id(request.match_info["id"])
        if download_id is None:
            return await _not_an_id(request)
        page = await Page.of(request)
        download = await page.deps.store.downloads.find_download(download_id)
        if download is None:
            return await render_refusal(request, 404, page.tx)
        request[_BACK] = back.format(id=download.id)
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
        "again": tx.plain("Downloading it again."),
        "removed": tx.plain("Removed from the library; the torrent stays in qBittorrent."),
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
    if code not in messages and "{" not in TEMPLATES.get(code, "{"):  # a reason without values
        return reason_text(tx, Reason(code))
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


# --- live progress --------------------------------------------------------------

LIVE_IDS = 25  # a list page's rows


async def live(request: web.Request) -> web.StreamResponse:
    """The state and progress of the downloads a page shows (``ids``, comma
    separated, at most 25), for ``static/app.js`` to refresh them while any is
    active: ``{id: {state, label, percent, numbers, active}}``. Ids that are not ids,
    or no download's, are left out."""
    page = await Page.of(request)
    wanted = [parse_id(part) for part in request.query.get("ids", "").split(",")[:LIVE_IDS]]
    answer: dict[str, object] = {}
    found = await page.deps.store.downloads.find_downloads(i for i in wanted if i is not None)
    for download in found:
        answer[download.id] = {
            "state": download.state.value,
            "label": page.fmt.state(download.state),
            "percent": page.fmt.percent(download.progress),
            "numbers": progress_text(page.tx, download),
            "active": download.state in ACTIVE,
        }
    return web.json_response(answer, headers={"Cache-Control": "no-store"})


# --- the library ----------------------------------------------------------------


async def library_page(request: web.Request) -> web.StreamResponse:
    """The titles the library holds, by name, searchable, a page at a time."""
    page = await Page.of(request)
    query = request.query.get("q", "").strip()[:200]
    offset = ascii_int(request.query.get("from", "0"), 9) or 0
    found = await page.deps.store.titles.list(query, offset=offset, limit=PAGE_SIZE + 1)
    params = {"q": query} if query else {}
    more = urlencode({**params, "from": offset + PAGE_SIZE}) if len(found) > PAGE_SIZE else None
    return page.render(
        "library.html",
        rows=found[:PAGE_SIZE],
        query=query,
        more=f"/library?{more}" if more else None,
        first=f"/library?{urlencode(params)}" if offset else None,
    )


RESOLUTIONS = (2160, 1080, 720)


async def search_page(request: web.Request) -> web.StreamResponse:
    """``?q=`` starts a search and shows it at ``?id=`` (a reload does not search
    again); the releases under the titles they name, sorted and filtered by the
    query (``sort``, ``res``), each with Add. It reloads itself while sources answer."""
    page = await Page.of(request)
    finder = page.deps.cases.finder
    words = " ".join(request.query.get("q", "").split())[:200]
    search_id = parse_id(request.query.get("id", ""))
    if search_id is None and words and finder.enabled:
        raise _redirect("/search", id=await finder.start(words))
    search = None if search_id is None else await page.deps.store.searches.find(search_id)
    sort = request.query.get("sort", "quality")
    sort = sort if sort in SORTS else "quality"
    resolution = ascii_int(request.query.get("res", ""), 4)
    groups: list[Group] = []
    marks = Marks()
    if search is not None:
        groups = [
            (title, [(rid, row) for rid, row in rows if _at(resolution, row)])
            for title, rows in grouped(search, sort)
        ]
        marks = await page.deps.store.searches.marks(search)
    return page.render(
        "search.html",
        enabled=finder.enabled,
        search=search,
        query=search.words if search else words,
        groups=groups,
        sort=sort,
        sorts=SORTS,
        resolution=resolution,
        resolutions=RESOLUTIONS,
        marks=marks,
        traits=traits_of,
        iso=clock.format_time,
    )


def _at(resolution: int | None, row: Found) -> bool:
    return resolution is None or traits_of(row.name).resolution == resolution


async def add_release(request: web.Request) -> web.StreamResponse:
    """Add: the release downloaded as the title it is listed under; to its card."""
    search_id = parse_id(request.match_info["id"])
    result_id = parse_id(request.match_info["result"])
    if search_id is None or result_id is None:
        return await _not_an_id(request)
    page = await Page.of(request)
    back = f"/search?id={search_id}"
    try:
        result = await page.deps.cases.finder.take(result_id, None, origin="api")
    except AppError as error:
        code = error.reason.code if error.reason.code.startswith("search.") else _error_code(error)
        raise web.HTTPSeeOther(f"{back}&{urlencode({'error': code})}") from None
    if isinstance(result, Rejected):
        raise web.HTTPSeeOther(f"{back}&{urlencode({'error': result.reason.code})}")
    raise _card(result.download.id, done="added")


async def title_page(request: web.Request) -> web.StreamResponse:
    """One title: its versions, or its seasons' episodes (present, missing, held
    twice), and the downloads that supplied it."""
    title_id = parse_id(request.match_info["id"])
    if title_id is None:
        return await _not_an_id(request)
    page = await Page.of(request)
    inventory = await page.deps.store.titles.inventory(title_id)
    if inventory is None:
        return await render_refusal(request, 404, page.tx)
    grid = inventory.episodes()
    seasons = [
        (
            season.number,
            [(n, grid.get(season.number, {}).get(n, [])) for n in range(1, season.episodes + 1)],
        )
        for season in inventory.seasons
        if season.number > 0 or grid.get(0)
    ]
    counted = {number for number, _ in seasons}
    seasons += [(n, sorted(grid[n].items())) for n in sorted(grid) if n not in counted]
    return page.render(
        "title.html",
        t=inventory.title,
        poster=page.fmt.poster(inventory.title.candidate.poster_path),
        files=inventory.files,
        seasons=seasons,
        downloads=inventory.downloads,
    )


async def title_action(request: web.Request) -> web.StreamResponse:
    """Relink every done download of the title, or remove one download's files
    from the library (only jellybit's links); back to the title page."""
    title_id = parse_id(request.match_info["id"])
    if title_id is None:
        return await _not_an_id(request)
    page = await Page.of(request)
    actions = page.deps.cases.actions
    back = f"/title/{title_id}"
    try:
        if "download" in request.match_info:
            download_id = parse_id(request.match_info["download"])
            if download_id is None:
                return await _not_an_id(request)
            await actions.remove_from_library(download_id)
            raise _redirect(back, done="removed")
        await actions.relink_title(title_id)
    except AppError as error:
        raise _redirect(back, error=_error_code(error)) from None
    raise _redirect(back, done="relink")


# --- the card -------------------------------------------------------------------


async def card_page(page: Page, card: DownloadCard) -> web.StreamResponse:
    download, recognition = card.download, card.recognition
    asked = card.history[-1].reason if card.history else None
    in_review = download.state == State.REVIEW
    duplicate = asked if in_review and asked and asked.code == "layout.in_library" else None
    offers = CARD_OFFERS[download.state]
    return page.render(
        "card.html",
        d=download,
        name=display_name(download),
        numbers=progress_text(page.tx, download),
        actions=_actions(page.tx, download),
        can_cancel="cancel" in offers,
        can_review="pick" in offers and duplicate is None,
        duplicate=duplicate,
        duplicate_choices=_duplicate_choices(page.tx),
        links=card.links,
        rec=recognition,
        chosen=chosen.candidate if recognition and (chosen := recognition.chosen()) else None,
        hints=card.hints,
        overrides=card.overrides,
        history=card.history,
        title=card.title,
        category=page.deps.settings.qbittorrent.category,
    )


def _actions(tx: Texts, download: Download) -> list[tuple[Action, str]]:
    """The card's buttons that post an action (``CARD_OFFERS``)."""
    actions: list[tuple[Action, str]] = []
    offers = CARD_OFFERS[download.state]
    if download.files_gone():  # Retry would find them gone again
        actions.append(("again", tx.plain("Download again")))
    elif "retry" in offers:
        actions.append(("retry", tx.plain("Retry")))
    if "relink" in offers:
        actions.append(("relink", tx.plain("Relink")))
    return actions


def _duplicate_choices(tx: Texts) -> list[tuple[str, str]]:
    return [
        ("version", tx.plain("Keep both")),
        ("replace", tx.plain("Replace it")),
        ("skip", tx.plain("Skip this copy")),
    ]


async def resolve_duplicate(page: Page, download: Download) -> web.StreamResponse:
    """The library already has it: the person's answer (``Actions.resolve_duplicate``)."""
    await page.deps.cases.actions.resolve_duplicate(download.id, page.request.match_info["choice"])
    raise _card(download.id, done="decide")


async def act(page: Page, download: Download) -> web.StreamResponse:
    actions = page.deps.cases.actions
    action = page.request.match_info["action"]
    if action == "retry":
        done = "retry_queued" if (await actions.retry(download.id)).queued else "retry"
    elif action == "relink":
        await actions.relink(download.id)
        done = "relink"
    elif action == "again":
        queued = (await actions.download_again(download.id)).queued
        done = "retry_queued" if queued else "again"
    else:
        await actions.cancel(download.id)
        done = "cancel"
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
    catalogue = page.deps.cases.catalogue
    prefill = text or (recognition.title if recognition and recognition.title else "")
    search = Search(catalogue.enabled, text, prefill, kind, year, [])
    if not search.enabled or not text:
        return search
    try:
        found = await catalogue.search(kind, text, ascii_int(year, 4))
    except ExternalError:
        return replace(search, problem=_error_message(page.tx, "tmdb"))
    return replace(search, results=found[:SEARCH_RESULTS])


def _kind(text: str | None) -> MediaKind | None:
    return next((kind for kind in KINDS if kind == text), None)


async def decide(request: web.Request) -> web.StreamResponse:
    """The person picked a candidate. Both ids are parsed before any query."""
    candidate_id = parse_id((await request.post()).get("candidate_id"))
    if candidate_id is None:
        return await _not_an_id(request)

    async def pick(page: Page, download: Download) -> web.StreamResponse:
        await page.deps.cases.actions.decide(download.id, candidate_id)
        raise _card(download.id, done="decide")

    return await _with_download(pick, REVIEW)(request)


async def search_pick(page: Page, download: Download) -> web.StreamResponse:
    """A title the person found by searching is picked."""
    form = await page.request.post()
    kind, tmdb_id = _kind(_text(form.get("kind"))), parse_tmdb_id(_text(form.get("tmdb_id")))
    if kind is None or tmdb_id is None:
        raise _review(download.id, error="invalid_input")
    await page.deps.cases.actions.pick_found(download.id, kind, tmdb_id)
    raise _card(download.id, done="decide")


async def save_overrides(page: Page, download: Download) -> web.StreamResponse:
    """Fields set by the person; the download is recognized again with them."""
    form = await page.request.post()
    values = {field: _text(form.get(field)).strip() for field in sorted(OVERRIDE_FIELDS)}
    again = await page.deps.cases.actions.correct(download.id, values)
    raise _card(download.id, done="overrides" if again else "overrides_saved")


def _text(value: object) -> str:
    """A form field as text; a file upload or a missing field is empty."""
    return value if isinstance(value, str) else ""
