"""Every text in the code exists in Russian, with the same placeholders."""

import re
import string
from functools import cache
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from common.i18n import I18n
from sandbox.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "common" / "locales" / "ru" / "LC_MESSAGES" / "jellybit.po"
KEYWORDS = {"tx": None, "plain": None, "ngettext": (1, 2), "N_": None}


TEMPLATE_TEXT = re.compile(r"""_\(\s*"([^"]+)"\s*\)""")  # {{ _("…") }} in a template


@cache
def code_messages() -> frozenset[str]:
    """The texts of the code and the templates, and the sandbox's sample labels
    (data the sandbox page translates)."""
    found: set[str] = {sample.label for sample in SAMPLES}
    for package in ("core", "bot", "web", "worker", "common", "jellybit", "sandbox"):
        for _, _, message, _, _ in extract_from_dir(
            ROOT / package, method_map=[("**.py", "python")], keywords=KEYWORDS
        ):
            found.update([message] if isinstance(message, str) else message)
        for template in (ROOT / package).rglob("templates/*.html"):
            found.update(TEMPLATE_TEXT.findall(template.read_text()))
    return frozenset(found)


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@cache
def russian() -> dict[str, str]:
    """Every msgid with its Russian; both ids of a plural with its last form."""
    with CATALOG.open("rb") as source:
        catalog = read_po(source)
    found: dict[str, str] = {}
    for m in catalog:
        if isinstance(m.id, tuple):
            forms = m.string if isinstance(m.string, tuple | list) else (m.string,)
            found.update(dict.fromkeys(m.id, str(forms[-1])))
        elif m.id:
            found[str(m.id)] = str(m.string)
    return found


def test_the_code_has_texts_to_translate() -> None:
    assert len(code_messages()) > 40


def test_every_text_has_a_russian_translation() -> None:
    """One test for all texts (one per text cost 0.6 s of CPU in every worker's
    collection); each text missing or with other placeholders is listed."""
    translations = russian()
    assert [m for m in sorted(code_messages()) if not translations.get(m)] == []
    assert [
        (m, translations[m])
        for m in sorted(code_messages())
        if placeholders(translations[m]) != placeholders(m)
    ] == []


def test_language_follows_telegram_and_falls_back_to_the_default() -> None:
    i18n = I18n("ru")
    assert i18n.texts("en-US").plain("Open") == "Open"
    assert i18n.texts("ru").plain("Open") == "Открыть"
    assert i18n.texts("de").plain("Open") == "Открыть"
    assert I18n("en").texts(None).plain("Open") == "Open"


def test_values_are_html_escaped() -> None:
    tx = I18n("en").texts("en")
    assert (
        tx("🎬 Done: {name}", name="<b>Tom & Jerry</b>")
        == "🎬 Done: &lt;b&gt;Tom &amp; Jerry&lt;/b&gt;"
    )


def test_the_catalogue_holds_no_text_the_code_no_longer_has() -> None:
    assert sorted(set(russian()) - code_messages()) == []
