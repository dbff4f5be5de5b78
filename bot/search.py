"""A search's one message in the chat: the titles, then a title's releases, edited
in place as the sources answer (docs/search.md).

The message is a text (a poster is its link preview), so it can become every
later view, and at last the message of the download a tapped release became.
``SearchMessages`` edits what changed, at most one message per chat a second and
each every ``MIN_INTERVAL`` seconds, like the status messages.
"""

import asyncio
from html import escape

from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramRetryAfter
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions

from bot.callbacks import SearchButton
from bot.sender import is_not_modified, send
from bot.texts import shorten, title_label
from bot.views import Views
from common.explain import reason_text
from common.formatting import age_text, size_text
from common.i18n import Texts
from common.logs import get_logger
from core import clock
from core.posters import poster_url
from core.search import SORTS, Found, arranged, traits_of
from recognition.candidates import Candidate
from store import Store
from store.search import TITLES, Marks, ReleaseMark, Search
from worker.pacing import Loop

PAGE = 8  # releases a page shows
TICK = 1.0  # while a search shown in a chat changes
IDLE_TICK = 30.0  # while none does: woken by /find and the buttons
MIN_INTERVAL = 2.0  # seconds between two edits of one search's message
POSTER_SIZE = "w342"
RELEASE_MARKS: dict[ReleaseMark | None, str] = {
    "library": "✓ ", "downloading": "⬇ ", "version": "≈ ", None: "",
}  # fmt: skip


class SearchView:
    def __init__(self, text: str, markup: InlineKeyboardMarkup | None, poster: str | None) -> None:
        self.text = text
        self.markup = markup
        self.poster = poster

    def key(self) -> str:
        markup = self.markup.model_dump_json(exclude_none=True) if self.markup else ""
        return f"{self.text}\x00{markup}\x00{self.poster or ''}"

    @property
    def preview(self) -> LinkPreviewOptions:
        if self.poster is None:
            return LinkPreviewOptions(is_disabled=True)
        return LinkPreviewOptions(url=self.poster, prefer_large_media=True, show_above_text=True)


def searching_text(tx: Texts, words: str) -> str:
    return tx("🔎 Looking for “{words}”…", words=shorten(words, 200))


def offer_view(tx: Texts, words: str, search_id: str) -> SearchView:
    button = InlineKeyboardButton(
        text=tx.plain("🔎 Search"), callback_data=SearchButton(action="go", id=search_id).pack()
    )
    text = tx("🔎 Search for “{words}”?", words=shorten(words, 200))
    return SearchView(text, InlineKeyboardMarkup(inline_keyboard=[[button]]), None)


def search_view(
    tx: Texts,
    search: Search,
    *,
    posters: str,
    marks: Marks,
) -> SearchView:
    """The message for the search as it stands; ``marks``: its titles the library
    holds or a download is getting."""
    if search.phase == TITLES:
        if search.running:
            return SearchView(searching_text(tx, search.words), None, None)
        return _titles(tx, search, posters, marks)
    return _releases(tx, search, posters, marks)


def _mark(title: Candidate, marks: Marks) -> str:
    return " ✓" if marks.in_library(title) else " ⬇" if marks.getting(title) else ""


def _titles(
    tx: Texts,
    search: Search,
    posters: str,
    marks: Marks,
) -> SearchView:
    rows = [
        [
            InlineKeyboardButton(
                text=shorten(
                    f"{'📺' if title.kind == 'series' else '🎬'} "
                    f"{title_label(title.title, title.year)}{_mark(title, marks)}",
                    60,
                ),
                callback_data=SearchButton(action="t", id=result_id).pack(),
            )
        ]
        for result_id, title in search.titles
    ]
    words_button = InlineKeyboardButton(
        text=tx.plain("🔎 Releases named “{words}”").format(words=shorten(search.words, 30)),
        callback_data=SearchButton(action="w", id=search.id).pack(),
    )
    rows.append([words_button])
    if search.problem is not None:
        text = tx(
            "🔎 “{words}”: TMDB could not be asked ({reason}). Search the releases by these words:",
            words=shorten(search.words, 200),
            reason=reason_text(tx, search.problem),
        )
    elif not search.titles:
        text = tx("🔎 No title matches “{words}”.", words=shorten(search.words, 200))
    else:
        text = tx("🔎 “{words}”: which one?", words=shorten(search.words, 200))
        if any(_mark(title, marks) for _, title in search.titles):
            text += "\n" + tx("✓ in the library · ⬇ downloading")
    best = search.titles[0][1] if search.titles else None
    poster = poster_url(posters, POSTER_SIZE, best.poster_path) if best and posters else None
    return SearchView(text, InlineKeyboardMarkup(inline_keyboard=rows), poster or None)


def _releases(tx: Texts, search: Search, posters: str, marks: Marks) -> SearchView:
    title = search.title
    show = title is not None and title.kind == "series"
    if title is None:
        head = tx("🔎 Releases named “{words}”", words=shorten(search.words, 200))
    else:
        label = escape(title_label(title.title, title.year), quote=False)
        head = f"{'📺' if show else '🎬'} <b>{label}</b>"
    by_id = {id(row): result_id for result_id, row in search.releases}
    rows_found = arranged([row for _, row in search.releases], search.sort, show=show)
    pages = max(1, -(-len(rows_found) // PAGE))
    page = min(max(search.page, 0), pages - 1)
    shown = rows_found[page * PAGE : (page + 1) * PAGE]
    lines = [head, _sources_line(tx, search)]
    lines += [
        f"{page * PAGE + number}. {_release_line(tx, row)}" for number, row in enumerate(shown, 1)
    ]
    if any(marks.of_release(row) for row in shown):
        lines.append(tx("✓ in the library · ⬇ downloading · ≈ a version you have"))
    if not rows_found and not search.running:
        failed = any(state.problem for state in search.sources.values())
        # Never "nothing found" while a source failed: it may have had it.
        lines.append(
            tx("Nothing found by the sources that answered.") if failed else tx("Nothing found.")
        )
    buttons = [
        [
            InlineKeyboardButton(
                text=shorten(
                    f"{RELEASE_MARKS[marks.of_release(row)]}{page * PAGE + number}. "
                    f"{_release_label(tx, row)}",
                    60,
                ),
                callback_data=SearchButton(action="r", id=by_id[id(row)]).pack(),
            )
        ]
        for number, row in enumerate(shown, 1)
    ]
    nav = []
    if page > 0:
        nav.append(_button(tx.plain("◀ Prev"), "p", search.id, page - 1))
    if page + 1 < pages:
        nav.append(_button(tx.plain("Next ▶"), "p", search.id, page + 1))
    if nav:
        buttons.append(nav)
    if len(rows_found) > 1:
        buttons.append(
            [
                _button(_sort_label(tx, sort, sort == search.sort), "s", search.id, n)
                for n, sort in enumerate(SORTS)
            ]
        )
    buttons.append([_button(tx.plain("◀ Titles"), "b", search.id, 0)])
    poster = None
    if title is not None and posters and title.poster_path:
        poster = poster_url(posters, POSTER_SIZE, title.poster_path)
    return SearchView("\n".join(lines), InlineKeyboardMarkup(inline_keyboard=buttons), poster)


def _button(text: str, action: str, search_id: str, n: int) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text=text, callback_data=SearchButton(action=action, id=search_id, n=n).pack()
    )


def _sort_label(tx: Texts, sort: str, chosen: bool) -> str:
    labels = {
        "quality": tx.plain("Quality"),
        "size": tx.plain("Size"),
        "seeders": tx.plain("Seeders"),
    }
    return ("• " if chosen else "") + labels[sort]


def _sources_line(tx: Texts, search: Search) -> str:
    states = search.sources
    answered = sum(1 for state in states.values() if state.answered and state.problem is None)
    line = tx.ngettext(
        "{answered} of {n} source answered",
        "{answered} of {n} sources answered",
        len(states),
        answered=answered,
    )
    problems = [reason_text(tx, state.problem) for state in states.values() if state.problem]
    waiting = [name for name, state in states.items() if not state.answered]
    if waiting:
        line += " · " + tx("asking {names}…", names=", ".join(waiting))
    return "\n".join([f"<i>{line}</i>", *(f"⚠️ {problem}" for problem in problems)])


def _release_label(tx: Texts, row: Found) -> str:
    traits = traits_of(row.name)
    parts = [
        str(traits.resolution) + "p" if traits.resolution else "",
        traits.source or "",
        size_text(tx, row.size) if row.size else "",
        f"⬆{row.seeders}" if row.seeders is not None else "",
    ]
    if traits.episode is not None:
        parts.insert(0, f"S{traits.season:02d}E{traits.episode:02d}")
    elif traits.pack:
        parts.insert(0, f"S{traits.season:02d}" if traits.season else tx.plain("all seasons"))
    label = " ".join(part for part in parts if part)
    return label or shorten(row.name, 40)


def _release_line(tx: Texts, row: Found) -> str:
    """The release's whole name, then its age, indexer and a freeleech mark."""
    details = []
    if row.published is not None:
        details.append(age_text(tx, row.published, clock.from_ms(clock.now_ms())))
    if row.indexer:
        details.append(row.indexer)
    if row.freeleech:
        details.append(tx.plain("freeleech"))
    extra = f" <i>({escape(' · '.join(details), quote=False)})</i>" if details else ""
    return escape(shorten(row.name, 120), quote=False) + extra


class SearchMessages:
    """Edits each search's message to what it shows now."""

    def __init__(self, store: Store, views: Views, posters: str) -> None:
        self._store = store
        self._views = views
        self._posters = posters
        self._edited_at: dict[str, float] = {}
        self._busy = True  # a search may be changing: look every second
        self.wake = asyncio.Event()
        self.loop = Loop("search_messages", self.tick, interval=self._interval, wake=self.wake)

    def _interval(self) -> float:
        return TICK if self._busy else IDLE_TICK

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop.run(stop)

    def keep_looking(self) -> None:
        """A search was started or a button pressed: its message changes soon."""
        self._busy = True
        self.wake.set()

    async def tick(self) -> None:
        chats: set[int] = set()
        now = clock.monotonic()
        due = await self._store.searches.due()
        self._busy = bool(due) or await self._store.searches.any_running()
        for search in due:
            if search.chat_id is None or search.message_id is None or search.chat_id in chats:
                continue
            if now - self._edited_at.get(search.id, 0.0) < MIN_INTERVAL:
                continue
            chats.add(search.chat_id)
            await self.show(search)

    async def show(self, search: Search) -> None:
        """Edit the message now (a button pressed, or a change the tick found)."""
        chat_id, message_id = search.chat_id, search.message_id
        if chat_id is None or message_id is None:
            return
        tx = await self._views.texts_for(chat_id)
        marks = await self._store.searches.marks(search)
        view = search_view(tx, search, posters=self._posters, marks=marks)
        key = view.key()
        self._edited_at[search.id] = clock.monotonic()
        if key == search.shown:
            await self._store.searches.mark_shown(search.id, None)
            return
        try:
            await send(
                "edit_message_text",
                lambda: self._views.bot.edit_message_text(
                    view.text,
                    chat_id=chat_id,
                    message_id=message_id,
                    reply_markup=view.markup,
                    link_preview_options=view.preview,
                ),
                chat_id=chat_id,
                idempotent=True,
                max_wait=0,
            )
        except TelegramRetryAfter:
            return  # shown at a later tick
        except TelegramBadRequest as error:
            if not is_not_modified(error):
                get_logger(search_id=search.id).info("search.edit_refused", reason=str(error)[:200])
        except TelegramAPIError as error:
            get_logger(search_id=search.id).info("search.edit_failed", reason=str(error)[:200])
            return
        await self._store.searches.mark_shown(search.id, key)
