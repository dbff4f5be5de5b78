"""Text from outside (torrent names, hints, another system's words) made safe to show.

Bidirectional controls (U+202A-202E, U+2066-2069) make a name display differently
from what it is ("gnp.exe" shown for "exe.png"): they are dropped wherever a name
is shown — in chat, on the pages (``web/rendering.py``) and on disk
(``core/naming.py``).
"""

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_DROP_BIDI = {ord(char): None for char in BIDI_CONTROLS}


def without_bidi_controls(text: str) -> str:
    return text.translate(_DROP_BIDI)
