"""Signed links from the bot to the pages: bound to a Telegram user, expiring.

A token is ``<user_id>.<expires>.<mac>``: HMAC-SHA256 over the first two parts
with the web secret, cut to 128 bits. The expiry is rounded to whole days so
that a status message re-rendered within a day keeps the same URL (Telegram
refuses an edit that changes nothing, and a new URL would be a change).
"""

import base64
import hashlib
import hmac

from core.numbers import ascii_int

DAY = 86_400
LINK_DAYS = 7
# Telegram user ids fit in 52 bits (16 digits); expiries are Unix seconds.
_MAX_DIGITS = 16


def sign_user_token(secret: bytes, user_id: int, now: int, days: int = LINK_DAYS) -> str:
    expires = (now // DAY + days + 1) * DAY
    return f"{user_id}.{expires}.{_mac(secret, user_id, expires)}"


def verify_user_token(secret: bytes, token: str, now: int) -> int | None:
    """The Telegram user id of a valid, unexpired token; None otherwise."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    user_id, expires = ascii_int(parts[0], _MAX_DIGITS), ascii_int(parts[1], _MAX_DIGITS)
    if user_id is None or expires is None or expires < now or not parts[2].isascii():
        return None
    # compare_digest raises on non-ASCII text, hence the check above.
    if not hmac.compare_digest(parts[2], _mac(secret, user_id, expires)):
        return None
    return user_id


def _mac(secret: bytes, user_id: int, expires: int) -> str:
    digest = hmac.new(secret, f"{user_id}.{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")
