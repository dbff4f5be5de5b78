"""Who may see the pages: bot links become sessions; forms carry CSRF tokens.

A link from the bot carries ``?t=<token>`` (``core.links``), bound to a
Telegram user and expiring in days. The first visit turns it into a session
cookie and redirects to the same URL without the token, so the token does not
stay in the address bar or the browser history. The session is signed with a
key derived for sessions only: a link token is not a session and a session is
not a link token. Access is checked against ``telegram.allowed_users`` on
every request, so removing a user from the config ends their sessions.

Only the pages are guarded here; ``/api`` has its own bearer token, and
``/healthz``, ``/telegram/webhook`` and ``/static`` need nothing.
"""

import hashlib
import hmac
from collections.abc import Awaitable, Callable

from aiohttp import web

from common.i18n import Texts
from common.logs import get_logger
from core import clock
from core.links import DAY, sign_user_token, verify_user_token
from web import rendering
from web.app import DEPS, WebDeps

SESSION_COOKIE = "jellybit_session"
SESSION_DAYS = 30
CSRF_FIELD = "csrf"
CSP = (
    "default-src 'self'; img-src 'self' https://image.tmdb.org data:; script-src 'self'; "
    "style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

USER = web.RequestKey("user_id", int)
SESSION = web.RequestKey("session", str)
_INSTALLED = web.AppKey("auth_installed", bool)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Languages:
    """The language of each person: their Telegram chat's, else ``general.language``.

    ``last_known`` answers without a query (a page refused for an invalid id):
    the store keeps the languages it has read.
    """

    def __init__(self, deps: WebDeps) -> None:
        self._deps = deps

    async def of(self, user_id: int | None) -> Texts:
        stored = None if user_id is None else await self._deps.store.telegram.chat_language(user_id)
        return self._deps.i18n.texts(stored or self._deps.settings.general.language)

    def last_known(self, user_id: int | None) -> Texts:
        known = None if user_id is None else self._deps.store.telegram.known_language(user_id)
        return self._deps.i18n.texts(known or self._deps.settings.general.language)


LANGUAGES = web.AppKey("languages", Languages)


def setup(app: web.Application) -> None:
    """Guard the pages and add the security headers; safe to call twice
    (``web.pages.setup`` calls it so the pages are never served unguarded)."""
    if app.get(_INSTALLED):
        return
    app[_INSTALLED] = True
    app[LANGUAGES] = Languages(app[DEPS])
    app.middlewares.append(_guard)
    app.on_response_prepare.append(_add_security_headers)


def session_key(secret: bytes) -> bytes:
    """A key of its own for sessions, so link tokens and sessions never verify as each other."""
    return hmac.new(secret, b"jellybit session key", hashlib.sha256).digest()


def make_session(secret: bytes, user_id: int, now: int) -> str:
    return sign_user_token(session_key(secret), user_id, now, days=SESSION_DAYS)


def session_user(secret: bytes, session: str, now: int) -> int | None:
    return verify_user_token(session_key(secret), session, now)


def csrf_token(secret: bytes, session: str) -> str:
    return hmac.new(secret, f"csrf:{session}".encode(), hashlib.sha256).hexdigest()


def csrf_of(request: web.Request) -> str:
    """The CSRF token the forms of this request's page carry."""
    return csrf_token(request.app[DEPS].secret, request[SESSION])


def bearer_matches(request: web.Request, token: str) -> bool:
    """The request's ``Authorization: Bearer <token>`` is ``token`` (compared in
    constant time; any byte the header may hold is compared, never an error)."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    presented = given.strip().encode("utf-8", "surrogatepass")
    return scheme.lower() == "bearer" and hmac.compare_digest(presented, token.encode("utf-8"))


def is_page(path: str) -> bool:
    return path in ("/", "/library", "/live", "/search") or path.startswith(
        ("/download/", "/review/", "/title/", "/search/")
    )


async def render_refusal(request: web.Request, status: int, tx: Texts) -> web.Response:
    """The 401/403/404 page: what happened and what to do, in the person's language."""
    messages = {
        401: tx.plain("This page opens from the bot. Open the link from the bot again."),
        403: tx.plain("The form has expired. Reload the page and try again."),
        404: tx.plain("No download with this id."),
    }
    context = {"status": status, "message": messages[status]}
    return rendering.render(request, "error.html", tx, context, status=status)


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Pages need a session of an allowed user, and their POSTs a CSRF token."""
    if not is_page(request.path):
        return await handler(request)
    deps = request.app[DEPS]
    languages = request.app[LANGUAGES]
    now = clock.now_ms() // 1000
    session = request.cookies.get(SESSION_COOKIE, "")
    user_id = session_user(deps.secret, session, now)
    token = request.query.get("t")
    if token is not None and request.method in ("GET", "HEAD"):
        signed_in = user_id is not None and _allowed(deps, user_id)
        return await _sign_in(request, token, now, has_session=signed_in)
    if user_id is None or not _allowed(deps, user_id):
        _log_refusal(request, "no session" if user_id is None else "not allowed", user_id)
        return await render_refusal(request, 401, await languages.of(user_id))
    request[USER] = user_id
    request[SESSION] = session
    if request.method == "POST" and not await _csrf_ok(request, deps.secret, session):
        _log_refusal(request, "bad csrf token", user_id)
        return await render_refusal(request, 403, await languages.of(user_id))
    return await handler(request)


async def _sign_in(
    request: web.Request, token: str, now: int, *, has_session: bool
) -> web.StreamResponse:
    """A bot link: a session for its user, then the same page without the token.

    A bad token with a good session still opens the page (an old message's
    link, opened by someone already signed in); without one it is refused.
    """
    deps = request.app[DEPS]
    user_id = verify_user_token(deps.secret, token, now)
    clean = web.Response(
        status=303, headers={"Location": str(request.rel_url.without_query_params("t"))}
    )
    if user_id is not None and _allowed(deps, user_id):
        _set_session_cookie(clean, deps, make_session(deps.secret, user_id, now))
        return clean
    if has_session:
        return clean
    _log_refusal(request, "bad link token" if user_id is None else "not allowed", user_id)
    return await render_refusal(request, 401, await request.app[LANGUAGES].of(user_id))


def _allowed(deps: WebDeps, user_id: int) -> bool:
    # Read on every request: a user removed from the config loses every session at once.
    return user_id in deps.settings.telegram.allowed_users


def _set_session_cookie(response: web.StreamResponse, deps: WebDeps, session: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        session,
        max_age=SESSION_DAYS * DAY,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=deps.settings.web.public_url.lower().startswith("https://"),
    )


async def _csrf_ok(request: web.Request, secret: bytes, session: str) -> bool:
    form = await request.post()  # cached: the handler reads the same form again
    sent = form.get(CSRF_FIELD)
    # compare_digest raises on non-ASCII text: such a token is simply wrong.
    return (
        isinstance(sent, str)
        and sent.isascii()
        and hmac.compare_digest(sent, csrf_token(secret, session))
    )


def _log_refusal(request: web.Request, reason: str, user_id: int | None) -> None:
    # The path only: the query may hold a token.
    get_logger().info(
        "web.refused", reason=reason, path=request.path, method=request.method, user_id=user_id
    )


async def _add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(SECURITY_HEADERS)
