"""The page templates: one Jinja environment per language.

``_("literal")`` in a template is replaced by its translation when the
template compiles (``TranslatedLiterals``), so a page render makes no call
and escapes nothing for its labels: the card has ~25 of them, and a Jinja
call costs more than the work behind it.
"""

from collections.abc import Iterator, Mapping

import aiohttp_jinja2
import jinja2
from aiohttp import web
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from markupsafe import Markup

from common.i18n import LANGUAGES, I18n, Texts
from core.display import without_bidi_controls


class TranslatedLiterals(Extension):
    """``_("literal")`` → the translated literal, at compile time."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        translate = self.environment.translate  # type: ignore[attr-defined]
        tokens = list(stream)
        at = 0
        while at < len(tokens):
            window = tokens[at : at + 4]
            if [t.type for t in window] == ["name", "lparen", "string", "rparen"] and (
                window[0].value == "_"
            ):
                yield Token(window[2].lineno, "string", translate(window[2].value))
                at += 4
                continue
            yield tokens[at]
            at += 1


def _shown(value: object) -> object:
    """Every value a page shows, without bidi controls (names come from outside)."""
    if isinstance(value, Markup):
        return Markup(without_bidi_controls(value))
    if isinstance(value, str):
        return without_bidi_controls(value)
    return value


def _env_key(language: str) -> web.AppKey[jinja2.Environment]:
    return web.AppKey(f"jinja2_environment_{language}", jinja2.Environment)


_KEYS = {language: _env_key(language) for language in LANGUAGES}


def setup(app: web.Application, i18n: I18n, loader: jinja2.BaseLoader) -> None:
    for language, key in _KEYS.items():
        env = aiohttp_jinja2.setup(
            app,
            app_key=key,
            loader=loader,
            autoescape=True,
            auto_reload=False,  # templates ship with the code: no stat() per render
            # A misspelt name raises (and fails a test) instead of rendering as nothing.
            undefined=jinja2.StrictUndefined,
            default_helpers=False,
            extensions=[TranslatedLiterals],
            finalize=_shown,
        )
        env.extend(translate=i18n.texts(language).plain)


def render(
    request: web.Request,
    template: str,
    tx: Texts,
    context: Mapping[str, object],
    *,
    status: int = 200,
) -> web.Response:
    """``template`` in the language of ``tx`` (``_`` stays callable for
    non-literal texts)."""
    values = {"_": tx.plain, "lang": tx.language, **context}
    return aiohttp_jinja2.render_template(
        template, request, values, status=status, app_key=_KEYS[tx.language]
    )
