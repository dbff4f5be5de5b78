"""Ids that name a title exactly, in any text: an ``.nfo``, a magnet's ``dn``, a hint.

``imdb:tt0111161`` (an IMDb id, bare or in an ``imdb.com/title/…`` link) and
``tmdb:movie/550`` / ``tmdb:tv/1399`` (a ``themoviedb.org`` link).
"""

import re

# An id is ASCII digits only: ``\d`` also takes "٥٥٠" (Arabic-Indic) or "５５０"
# (full-width), which int() reads as 550. A digit of any script next to it means
# it is not an id at all.
_IMDB = re.compile(r"(?<![A-Za-z\d])(tt[0-9]{7,9})(?!\d)")
_TMDB = re.compile(r"themoviedb\.org/(?:[a-z]{2}(?:-[A-Z]{2})?/)?(movie|tv)/([0-9]{1,9})(?!\d)")
_LINK = re.compile(r"(?:https?://|www\.)\S+|(?<![A-Za-z\d])tt[0-9]{7,9}(?!\d)")


def find_identifiers(text: str) -> tuple[str, ...]:
    """Every id in ``text``, in order of appearance, each once."""
    found: list[tuple[int, str]] = [(m.start(), f"imdb:{m.group(1)}") for m in _IMDB.finditer(text)]
    found += [(m.start(), f"tmdb:{m.group(1)}/{int(m.group(2))}") for m in _TMDB.finditer(text)]
    return tuple(dict.fromkeys(ident for _, ident in sorted(found)))


def without_identifiers(text: str) -> str:
    """``text`` without links and bare ids: what is left is words."""
    return " ".join(_LINK.sub(" ", text).split())
