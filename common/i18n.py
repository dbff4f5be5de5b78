"""Texts people read, in Russian and English.

Standard gettext catalogs (``common/locales/<lang>/LC_MESSAGES/jellybit.po``),
compiled in memory with Babel at start, so the repository holds only the
reviewable ``.po`` text. Source strings are English; ``tests/test_i18n.py``
checks that every string in the code has a Russian translation with the same
placeholders.
"""

import gettext
import html
import io
from functools import cache
from importlib import resources
from typing import Literal

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from core.reasons import N_
from core.states import State

Language = Literal["ru", "en"]
LANGUAGES: tuple[Language, ...] = ("ru", "en")
DOMAIN = "jellybit"


class Raw(str):
    """A value that is already HTML: not escaped again."""


class Texts:
    """Translate-and-format for one language. Values are HTML-escaped (bot texts
    are HTML; torrent names contain ``<`` and ``&``) unless wrapped in ``Raw``."""

    def __init__(self, language: Language, translations: gettext.NullTranslations) -> None:
        self.language = language
        self._translations = translations

    def __call__(self, message: str, **values: object) -> str:
        return self._format(self._translations.gettext(message), values)

    def ngettext(self, singular: str, plural: str, n: int, **values: object) -> str:
        return self._format(self._translations.ngettext(singular, plural, n), {"n": n, **values})

    def plain(self, message: str) -> str:
        """The translation alone, for texts that are not HTML (button labels)."""
        return self._translations.gettext(message)

    @staticmethod
    def _format(template: str, values: dict[str, object]) -> str:
        if not values:
            return template
        safe = {
            k: v if isinstance(v, Raw) else html.escape(str(v), quote=False)
            for k, v in values.items()
        }
        return template.format(**safe)


class I18n:
    def __init__(self, default: Language) -> None:
        self.default = default
        self._texts = {language: Texts(language, _load(language)) for language in LANGUAGES}

    def texts(self, language_code: str | None) -> Texts:
        """Texts for a Telegram ``language_code`` ("ru", "en-GB"…), else the default."""
        return self._texts[self.language_of(language_code)]

    def language_of(self, language_code: str | None) -> Language:
        base = (language_code or "").split("-")[0].lower()
        for language in LANGUAGES:
            if language == base:
                return language
        return self.default


@cache  # read-only once built: every I18n of the process shares it (~15 ms a build)
def _load(language: Language) -> gettext.NullTranslations:
    catalog_file = resources.files("common") / "locales" / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not catalog_file.is_file():
        return gettext.NullTranslations()  # English: the source strings themselves
    with catalog_file.open("rb") as source:
        catalog = read_po(source, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


# The states as people read them, shared by the bot and the pages (the Russian in
# the catalogue).
STATE_LABELS: dict[State, str] = {
    State.ACCEPTED: N_("accepted"),
    State.DOWNLOADING: N_("downloading"),
    State.STUCK: N_("stuck"),
    State.REVIEW: N_("needs review"),
    State.IMPORTING: N_("importing"),
    State.DONE: N_("done"),
    State.FAILED: N_("failed"),
    State.REMOVED: N_("removed"),
}


def state_labels(tx: Texts) -> dict[State, str]:
    return {state: tx.plain(label) for state, label in STATE_LABELS.items()}
