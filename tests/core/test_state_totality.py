"""Every download state has every piece: its traits and moves, a label in English
and Russian, whether the chat hears of it, the bot's status message, message and
buttons, the card's actions and the pages' badge. A state added half-way fails
here, naming what it lacks (docs/architecture.md, "One path for a state change")."""

from collections.abc import Mapping
from pathlib import Path

import pytest

from bot.callbacks import Action
from bot.handlers.buttons import _fits
from bot.keyboards import BUTTONS, PICK, download_keyboard
from bot.links import Links
from bot.texts import OUTCOME_HEAD, STATUS, status_text
from bot.views import VIEWS, Views
from common.i18n import LANGUAGES, STATE_LABELS, I18n, state_labels
from core.notifications import ANNOUNCED
from core.states import MOVES, TRAITS, State
from tests.core.test_live import download
from web.pages import CARD_OFFERS
from worker.actions import PICKABLE

ROOT = Path(__file__).resolve().parents[2]
STYLE = ROOT / "web" / "static" / "style.css"
# Every table keyed by State, by where it is.
TABLES: Mapping[str, Mapping[State, object]] = {
    "core/states.py TRAITS": TRAITS,
    "core/states.py MOVES": MOVES,
    "core/notifications.py ANNOUNCED": ANNOUNCED,
    "common/i18n.py STATE_LABELS": STATE_LABELS,
    "bot/texts.py STATUS": STATUS,
    "bot/views.py VIEWS": VIEWS,
    "bot/keyboards.py BUTTONS": BUTTONS,
    "web/pages.py CARD_OFFERS": CARD_OFFERS,
}
# The views whose message is bot/texts.py outcome_text (in review and done when there
# is no poster to show).
OUTCOME_VIEWS = (Views._outcome, Views._review, Views._done)
FIRST = State.ACCEPTED  # where a download starts


def missing_pieces(state: State) -> list[str]:
    missing = [f"a row in {where}" for where, table in TABLES.items() if state not in table]
    label = STATE_LABELS.get(state)
    if label is not None and I18n("en").texts("ru").plain(label) == label:
        missing.append(f"the Russian of its label {label!r} in common/locales/ru")
    if VIEWS.get(state) in OUTCOME_VIEWS and state not in OUTCOME_HEAD:
        missing.append("a row in bot/texts.py OUTCOME_HEAD (its view is outcome_text)")
    if state != FIRST and not any(state in targets for targets in MOVES.values()):
        missing.append("a move into it in core/states.py MOVES")
    if not MOVES.get(state):
        missing.append("a move out of it in core/states.py MOVES")
    if f".state-{state.value}" not in STYLE.read_text():
        missing.append(f"its badge's colour (.state-{state.value}) in web/static/style.css")
    return missing


@pytest.mark.parametrize("state", list(State), ids=str)
def test_every_state_has_every_piece(state: State) -> None:
    missing = missing_pieces(state)
    assert not missing, f"State.{state.name} lacks: " + "; ".join(missing)


@pytest.mark.parametrize("state", list(State), ids=str)
def test_every_state_is_shown_in_both_languages(state: State) -> None:
    links = Links("https://j.example", b"s")
    for language in LANGUAGES:
        tx = I18n("en").texts(language)
        shown = download(name="Dune.2021", state=state)
        assert "Dune.2021" in status_text(tx, shown)
        assert state_labels(tx)[state]
        first = download_keyboard(tx, links, shown, 7).inline_keyboard[0]
        assert len(first) == 1 + len(BUTTONS[state])  # Open, then the state's buttons


@pytest.mark.parametrize("state", list(State), ids=str)
def test_a_button_in_the_chat_is_one_its_handler_takes(state: State) -> None:
    shown = download(state=state)
    for action in (Action.RETRY, Action.RELINK, Action.CANCEL):
        assert (action in BUTTONS[state]) == _fits(action, shown), (state, action)


@pytest.mark.parametrize("state", list(State), ids=str)
def test_the_card_offers_what_the_chat_does(state: State) -> None:
    """Retry, Relink and Cancel alike; Pick on the card wherever a title may be
    picked (``PICKABLE``), in the chat only while it waits for one."""
    chat = {str(button) for button in BUTTONS[state]}
    card = set(CARD_OFFERS[state])
    assert chat - {PICK} == card - {"pick"}
    assert ("pick" in card) == (state in PICKABLE)
    assert (PICK in chat) == (state == State.REVIEW)
