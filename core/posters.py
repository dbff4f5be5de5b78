"""TMDB poster URLs, for the pages and for Telegram (which fetches them itself)."""

import re

# TMDB poster paths look like "/kqjL17yufvn9OVLyXYpvtyrFfak.jpg"; anything else is not shown.
_POSTER_PATH = re.compile(r"/[A-Za-z0-9_-]+\.(?:jpg|jpeg|png|webp)")


def poster_url(images: str, size: str, poster_path: str | None) -> str | None:
    """``images``/``size``/``poster_path`` (``https://image.tmdb.org/t/p/w500/x.jpg``),
    or None without a path TMDB would give."""
    if not images or poster_path is None or not _POSTER_PATH.fullmatch(poster_path):
        return None
    return f"{images.rstrip('/')}/{size}{poster_path}"
