"""URLs of the pages the bot links to, signed for the Telegram user who gets them."""

from core.ids import Id
from core.links import sign_user_token


class Links:
    def __init__(self, public_url: str, secret: bytes) -> None:
        self._base = public_url.rstrip("/")
        self._secret = secret

    def download(self, download_id: Id, user_id: int, now: int) -> str:
        return self._signed(f"/download/{download_id}", user_id, now)

    def review(self, download_id: Id, user_id: int, now: int) -> str:
        return self._signed(f"/review/{download_id}", user_id, now)

    def title(self, title_id: Id, user_id: int, now: int) -> str:
        return self._signed(f"/title/{title_id}", user_id, now)

    def _signed(self, path: str, user_id: int, now: int) -> str:
        return f"{self._base}{path}?t={sign_user_token(self._secret, user_id, now)}"
