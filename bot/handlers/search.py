"""/find and the buttons of a search's message (docs/search.md).

``/find WORDS`` (also ``tmdb:ID``, ``imdb:ttID``) answers at once with "Looking
for…": the search is stored with that reply, in one step, and found in the
background; its message is edited as the titles and the releases arrive
(``bot/search.py``). A text that is no magnet and no reply is offered as a search.
"""

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.callbacks import SearchButton
from bot.inbox import Turn
from bot.search import SearchMessages, offer_view, searching_text
from bot.sender import answer_query
from bot.texts import in_library_text, outdated_text, rejected_text
from bot.views import Views
from common.i18n import Texts
from core.ids import Id, new_id, parse_id
from core.search import SORTS
from store import Store
from store.inbox import Reply
from store.search import TITLES, NewSearch
from store.telegram import BotMessage, Role
from worker.ingest import Created, Duplicate, InLibrary, Rejected
from worker.search import Finder

MAX_WORDS = 200


def router() -> Router:
    search = Router(name="search")
    search.message.register(cmd_find, Command("find"))
    search.callback_query.register(on_search_button, SearchButton.filter())
    return search


def not_set_up_text(tx: Texts) -> str:
    return tx(
        "Search is not set up: add Torznab indexers (Prowlarr, Jackett) or qBittorrent's "
        "search to the [search] section of the config."
    )


async def cmd_find(
    message: Message,
    command: CommandObject,
    tx: Texts,
    finder: Finder,
    searches: SearchMessages,
    turn: Turn,
) -> None:
    words = " ".join((command.args or "").split())[:MAX_WORDS]
    if not finder.enabled:
        await turn.reply(Reply(not_set_up_text(tx), reply_to=message.message_id))
        return
    if not words:
        text = tx("Write what to look for after /find, for example: /find Dune 2021")
        await turn.reply(Reply(text, reply_to=message.message_id))
        return
    reply = Reply(
        searching_text(tx, words), reply_to=message.message_id, search=NewSearch(new_id(), words)
    )
    await turn.reply(reply)
    finder.wake.set()
    searches.keep_looking()


def offer(tx: Texts, words: str, reply_to: int) -> Reply:
    """A text that is neither a magnet nor a reply: "Search for …?", one tap."""
    words = " ".join(words.split())[:MAX_WORDS]
    search = NewSearch(new_id(), words, offered=True)
    view = offer_view(tx, words, search.id)
    markup = view.markup.model_dump_json(exclude_none=True) if view.markup else None
    return Reply(view.text, markup, reply_to=reply_to, search=search)


async def on_search_button(
    query: CallbackQuery,
    callback_data: SearchButton,
    tx: Texts,
    store: Store,
    finder: Finder,
    views: Views,
    searches: SearchMessages,
    turn: Turn,
) -> None:
    target = parse_id(callback_data.id)
    action = callback_data.action
    message = query.message
    if target is None or not isinstance(message, Message):
        await _outdated(query, tx, turn)
        return
    if action in ("t", "r"):
        found = await store.searches.result(target)
        search = None if found is None else found[0]
    else:
        search = await store.searches.find(target)
    if search is None or search.message_id not in (None, message.message_id):
        await _outdated(query, tx, turn)
        return
    if search.message_id is None:  # the reply's send was not recorded yet
        await store.searches.shown_in(search.id, message.message_id)
    if action == "r":
        await _take(query, tx, store, finder, views, target, turn)
        return
    await answer_query(query)
    if action == "go":
        await store.searches.change(search.id, running=1)
        finder.wake.set()
    elif action == "t":
        await finder.pick_title(target)
    elif action == "w":
        await finder.words_only(search.id)
    elif action == "p":
        await store.searches.change(search.id, page=max(0, callback_data.n))
    elif action == "s" and 0 <= callback_data.n < len(SORTS):
        await store.searches.change(search.id, sort=SORTS[callback_data.n], page=0)
    elif action == "b":
        await store.searches.change(search.id, phase=TITLES, running=0)
    now = await store.searches.find(search.id)
    if now is not None:
        await searches.show(now)
    searches.keep_looking()
    await turn.reply()


async def _take(
    query: CallbackQuery,
    tx: Texts,
    store: Store,
    finder: Finder,
    views: Views,
    result_id: Id,
    turn: Turn,
) -> None:
    """A release tapped: downloaded as the title picked, and the search's message
    becomes the download's one message."""
    await answer_query(query, tx.plain("⬇ Getting it…"))
    turn.button_answered = True
    message = query.message
    assert isinstance(message, Message)
    result = await finder.take(result_id, message.chat.id)
    if isinstance(result, Created | Duplicate):
        download = result.download
        await store.telegram.remember(
            BotMessage(message.chat.id, message.message_id, download.id, Role.STATUS)
        )
        await views.show(
            tx, message.chat.id, message.message_id, query.from_user.id, download,
            shown=None, photo=None,
        )  # fmt: skip
        await turn.reply()
    elif isinstance(result, InLibrary):
        title = result.title.candidate
        text = in_library_text(tx, result.download, title.title, title.year)
        await turn.reply(Reply(text, reply_to=message.message_id))
    elif isinstance(result, Rejected):
        await turn.reply(Reply(rejected_text(tx, result.reason), reply_to=message.message_id))


async def _outdated(query: CallbackQuery, tx: Texts, turn: Turn) -> None:
    await answer_query(query, outdated_text(tx))
    await turn.reply()
