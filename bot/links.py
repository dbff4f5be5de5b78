"""URLs of the pages the bot links to, signed for the Telegram user who gets them."""

from core.ids import Id
from core.links import sign_user_token


class Links:
    def __init__(self, public_url: str, secret: bytes, *, search: bool = True) -> None:
        """``search``: the review page can search titles (a TMDB key is configured)."""
        self._base = public_url.rstrip("/")
        self._secret = secret
        self.search = search

    def download(self, download_id: Id, user_id: int, now: int) -> str:
        return self._signed(f"/download/{download_id}", user_id, now)

    def review(self, download_id: Id, user_id: int, now: int, *, part: str = "") -> str:
        """The review page; ``part``: a section of it ("correct": the title by hand)."""
        url = self._signed(f"/review/{download_id}", user_id, now)
        return f"{url}#{part}" if part else url

    def title(self, title_id: Id, user_id: int, now: int) -> str:
        return self._signed(f"/title/{title_id}", user_id, now)

    def _signed(self, path: str, user_id: int, now: int) -> str:
        return f"{self._base}{path}?t={sign_user_token(self._secret, user_id, now)}"
