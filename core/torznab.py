"""Torznab answers read, and Torznab queries built. Pure: no I/O.

Prowlarr and Jackett answer in XML: a ``<caps>`` document (what an indexer can search
by), an RSS 2.0 page of ``<item>``s with ``torznab:attr`` elements, or an ``<error
code=".." description=".."/>``. ``worker/torznab.py`` asks and hands the bytes here.

The answers are untrusted. Expat reads them with a handler that refuses any DOCTYPE
(so no entity is ever declared, let alone expanded: no billion laughs, no external
entity); a page is read as it arrives and reading stops at ``MAX_RESULTS`` releases or
``MAX_BODY_BYTES``; texts lose their control characters; an item that cannot be a
release (no title, no usable link, a bad magnet, a size no torrent has) is skipped and
counted, and the rest are kept. docs/search.md, "Torznab", tells the whole of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit
from xml.parsers import expat

from core.errors import InvalidInputError
from core.infohash import normalize_infohash
from core.magnet import MAX_MAGNET_BYTES, clean_name, parse_magnet
from core.reasons import Reason, reason
from core.search import MAX_RESULTS, Found, Terms
from core.torrent_file import MAX_CONTENT_BYTES

TORZNAB_NS = "http://torznab.com/schemas/2015/feed"
# A page of 1 000 releases as Jackett writes them is ~2 MB; past this the rest is not read.
MAX_BODY_BYTES = 8 * 1024 * 1024
# Jackett's "all" lists every category of every indexer (custom ones 100000+): ~100 KB.
MAX_CAPS_BYTES = 2 * 1024 * 1024
MAX_URL_CHARS = 8 * 1024
MAX_NAME_CHARS = 1000  # a release name longer than this is no name
MAX_DETAIL_CHARS = 300  # another system's words kept in a reason
_MAX_FIELD_CHARS = 64 * 1024  # text gathered for one element, at most
_MAX_COUNT = 100_000_000  # seeders/peers beyond this are nonsense, not numbers
_MAX_ID = 2_000_000_000
# Newznab's standard parent categories (every indexer maps its own onto them).
CATEGORY = {"movie": 2000, "tv": 5000}
MODES = ("search", "tv-search", "movie-search")
_TEXT_FIELDS = frozenset({"title", "link", "size", "pubDate", "jackettindexer", "prowlarrindexer"})
_INTEGER = re.compile(r"\s*\+?(-?\d{1,20})\s*")
_IMDB = re.compile(r"\s*(?:tt)?0*(\d{1,10})\s*", re.IGNORECASE)
_NOT_WORD = re.compile(r"[\W_]+")
_HTML_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html|head|body)\b", re.I)
_HTML_ANYWHERE = re.compile(rb"<html\b", re.I)  # XHTML: a declaration and a DOCTYPE first
_SNIFF_BYTES = 1024
_C0_FORBIDDEN = bytes(set(range(0x20)) - {0x09, 0x0A, 0x0D})


@dataclass(frozen=True, slots=True)
class Mode:
    """A search mode of the caps: ``<movie-search available="yes" supportedParams="q"/>``."""

    available: bool = False
    params: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Caps:
    modes: Mapping[str, Mode] = field(default_factory=dict)  # "search", "tv-search", …
    limit_max: int | None = None
    limit_default: int | None = None
    categories: frozenset[int] = frozenset()  # the ids of categories and their subcats

    def mode(self, name: str) -> Mode:
        return self.modes.get(name, Mode())

    def lists(self, mode: str, param: str) -> bool:
        """Whether ``mode`` is available and its ``supportedParams`` name ``param``."""
        found = self.mode(mode)
        return found.available and param in found.params


@dataclass(frozen=True, slots=True)
class Page:
    """What a results answer held: releases, or why there are none.

    ``skipped`` counts the items left out, by why ("no_title", "bad_magnet", …);
    ``cut`` is true when reading stopped early (``MAX_RESULTS`` releases read, or
    ``MAX_BODY_BYTES``) or the document broke off after some releases."""

    found: tuple[Found, ...] = ()
    problem: Reason | None = None
    skipped: Mapping[str, int] = field(default_factory=dict)
    cut: bool = False


@dataclass(frozen=True, slots=True)
class Query:
    """The parameters of one search, without the key; ``ids_used`` names the id
    parameters among them ("tmdbid")."""

    params: tuple[tuple[str, str], ...]
    ids_used: tuple[str, ...] = ()


# ---- queries -------------------------------------------------------------------------


def search_query(terms: Terms, caps: Caps) -> Query:
    """The one request for ``terms``: by ids where the caps list them (an id an indexer
    does not list gets nothing from Prowlarr and an error from Jackett), else by words;
    the kind's category where the caps have it; one page of the largest size allowed."""
    params: list[tuple[str, str]] = []
    ids: list[tuple[str, str]] = []
    if terms.kind == "movie":
        ids = _ids(terms, caps, "movie-search", ("imdbid", "tmdbid"))
        if ids:
            params = [("t", "movie"), *ids]
        else:
            words = f"{terms.title} {terms.year}" if terms.title and terms.year else terms.text
            params = [("t", _words_mode(caps, "movie")), ("q", words)]
    elif terms.kind == "tv":
        ids = _ids(terms, caps, "tv-search", ("tvdbid", "tmdbid", "imdbid"))
        season = (
            [("season", str(terms.season))]
            if terms.season is not None and caps.lists("tv-search", "season")
            else []
        )
        if ids:
            params = [("t", "tvsearch"), *ids, *season]
        elif season:
            params = [("t", "tvsearch"), ("q", terms.title or terms.text), *season]
        else:
            params = [("t", _words_mode(caps, "tvsearch")), ("q", terms.title or terms.text)]
    else:
        params = [("t", "search"), ("q", terms.text)]
    if terms.kind is not None and CATEGORY[terms.kind] in caps.categories:
        params.append(("cat", str(CATEGORY[terms.kind])))
    if caps.limit_max is not None:
        params.append(("limit", str(min(caps.limit_max, MAX_RESULTS))))
    return Query(tuple(params), tuple(name for name, _ in ids))


def _ids(terms: Terms, caps: Caps, mode: str, names: Iterable[str]) -> list[tuple[str, str]]:
    values = {
        "imdbid": terms.imdb_id,
        "tmdbid": None if terms.tmdb_id is None else str(terms.tmdb_id),
        "tvdbid": None if terms.tvdb_id is None else str(terms.tvdb_id),
    }
    return [
        (name, value)
        for name in names
        if (value := values[name]) is not None and caps.lists(mode, name)
    ]


def _words_mode(caps: Caps, kind_mode: str) -> str:
    """``search`` for words, unless the caps say only the kind's own mode is available."""
    own = "movie-search" if kind_mode == "movie" else "tv-search"
    if not caps.mode("search").available and caps.mode(own).available:
        return kind_mode
    return "search"


# ---- the readers ---------------------------------------------------------------------


class _Refused(Exception):
    """A DOCTYPE or an entity declaration: never read further."""


class _Enough(Exception):
    """Everything wanted has been read."""


class _Reader:
    """Expat without namespace processing (the spec's own example uses an undeclared
    prefix); the prefixes bound to the Torznab namespace are tracked here."""

    def __init__(self) -> None:
        parser = expat.ParserCreate()
        parser.buffer_text = True
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartDoctypeDeclHandler = self._refuse
        parser.EntityDeclHandler = self._refuse
        parser.ExternalEntityRefHandler = self._refuse_external
        parser.StartElementHandler = self._open
        parser.EndElementHandler = self._close
        parser.CharacterDataHandler = self._text
        self._parser = parser
        self.depth = 0
        self.root: str | None = None
        self.error: tuple[str, str] | None = None  # <error>'s code and description
        self.refused = False
        self.broken = False
        self._attr_names: frozenset[str] = frozenset()
        self._scopes: list[tuple[int, frozenset[str]]] = []

    def feed(self, data: bytes, final: bool) -> bool:
        """Read ``data``; False once nothing more is wanted (done, refused or broken)."""
        try:
            self._parser.Parse(data, final)
        except _Enough:
            return False
        except _Refused:
            self.refused = True
            return False
        except expat.ExpatError:
            self.broken = True
            return False
        return True

    def _refuse(self, *_args: Any) -> None:
        raise _Refused

    def _refuse_external(
        self, _context: str, _base: str | None, _system: str | None, _public: str | None
    ) -> int:
        raise _Refused

    def _open(self, name: str, attrs: dict[str, str]) -> None:
        self.depth += 1
        if attrs and any(key.startswith("xmlns") for key in attrs):
            self._declare(attrs)
        if self.depth == 1:
            self.root = name
            if name == "error":
                self.error = (attrs.get("code", ""), attrs.get("description", ""))
                raise _Enough
        self.open(name, attrs)

    def _close(self, name: str) -> None:
        self.close(name)
        if self._scopes and self._scopes[-1][0] == self.depth:
            self._attr_names = self._scopes.pop()[1]
        self.depth -= 1

    def _text(self, data: str) -> None:
        """Overridden where text is wanted."""

    def _declare(self, attrs: dict[str, str]) -> None:
        names = set(self._attr_names)
        for key, value in attrs.items():
            if key == "xmlns" or key.startswith("xmlns:"):
                qualified = "attr" if key == "xmlns" else f"{key[6:]}:attr"
                if value.strip() == TORZNAB_NS:
                    names.add(qualified)
                else:
                    names.discard(qualified)
        self._scopes.append((self.depth, self._attr_names))
        self._attr_names = frozenset(names)

    def is_torznab_attr(self, name: str) -> bool:
        return name in self._attr_names

    def open(self, name: str, attrs: dict[str, str]) -> None:
        raise NotImplementedError

    def close(self, name: str) -> None:
        raise NotImplementedError


@dataclass(slots=True)
class _Item:
    depth: int
    texts: dict[str, str] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)
    enclosure: dict[str, str] | None = None


class ResultsReader(_Reader):
    """A results page read as it arrives: ``feed`` chunks while it returns True, then
    ``page()``. ``parse_results`` does both for a whole body."""

    def __init__(self, source: str, limit: int = MAX_RESULTS) -> None:
        super().__init__()
        self.source = source
        self._limit = limit
        self._found: list[Found] = []
        self._skipped: dict[str, int] = {}
        self._item: _Item | None = None
        self._field: str | None = None
        self._field_depth = 0
        self._pieces: list[str] = []
        self._chars = 0
        self._head = b""  # the first bytes, until it is known not to be a web page
        self._sniffed = False
        self._utf16 = False
        self._html = False
        self._size = 0
        self._done = False
        self._cut = False

    def feed_chunk(self, chunk: bytes) -> bool:
        """Read the next part of the body; False when no more is wanted."""
        if self._done:
            return False
        room = MAX_BODY_BYTES - self._size
        if len(chunk) > room:
            chunk, self._cut = chunk[:room], True
        self._size += len(chunk)
        if not self._sniffed:
            self._head += chunk
            self._utf16 = _is_utf16(self._head)
            if len(self._head) < _SNIFF_BYTES and not self._cut:
                return True
            chunk = self._head
            if not self._sniff():
                return False
        if not self._utf16:
            chunk = _without_controls(chunk)
        self._done = not self.feed(chunk, final=False) or self._cut
        return not self._done

    def page(self) -> Page:
        """What was read; call once, after the last ``feed_chunk``."""
        if not self._done:
            if self._sniffed:
                self.feed(b"", final=True)
            elif self._sniff():
                self.feed(self._head if self._utf16 else _without_controls(self._head), True)
        return self._result()

    def _sniff(self) -> bool:
        """False for a web page (a login form, a proxy's or Cloudflare's page): not read."""
        self._sniffed = True
        if _HTML_START.match(self._head):
            self._html = self._done = True
            return False
        return True

    def _result(self) -> Page:
        problem = self._problem()
        found = () if problem else tuple(self._found)
        cut = self._cut or len(self._found) >= self._limit or (self.broken and bool(found))
        return Page(found, problem, dict(self._skipped), cut and not problem)

    def _problem(self) -> Reason | None:
        if self.error is not None:
            return error_reason(self.source, *self.error)
        if self._html or self.root in ("html", "HTML"):
            return reason("search.blocked", source=self.source)
        if self.refused or self.root != "rss" or (self.broken and not self._found):
            if _HTML_ANYWHERE.search(self._head[:_SNIFF_BYTES]):
                return reason("search.blocked", source=self.source)
            return reason("search.unreadable", source=self.source)
        return None

    def open(self, name: str, attrs: dict[str, str]) -> None:
        item = self._item
        if item is None:
            if name == "item" and self.root == "rss":
                self._item = _Item(self.depth)
            return
        if self._field is not None:
            return  # markup inside a text field: its text is the field's
        if self.is_torznab_attr(name):
            key = attrs.get("name", "").strip().lower()
            if key and key not in item.attrs and "value" in attrs:
                item.attrs[key] = attrs["value"]
        elif name == "enclosure":
            # The first, or the first a torrent client takes (the spec's types).
            if item.enclosure is None or (
                "bittorrent" in attrs.get("type", "")
                and "bittorrent" not in item.enclosure.get("type", "")
            ):
                item.enclosure = attrs
        elif name in _TEXT_FIELDS and self.depth == item.depth + 1 and name not in item.texts:
            self._field, self._field_depth = name, self.depth
            self._pieces, self._chars = [], 0

    def close(self, name: str) -> None:
        item = self._item
        if item is None:
            return
        if self._field is not None and self.depth == self._field_depth:
            item.texts[self._field] = "".join(self._pieces)
            self._field = None
        elif self.depth == item.depth:
            self._item = None
            made = release(item.texts, item.attrs, item.enclosure or {}, self.source)
            if isinstance(made, Found):
                self._found.append(made)
                if len(self._found) >= self._limit:
                    raise _Enough
            else:
                self._skipped[made] = self._skipped.get(made, 0) + 1

    def _text(self, data: str) -> None:
        if self._field is not None and self._chars < _MAX_FIELD_CHARS:
            self._pieces.append(data)
            self._chars += len(data)


def _is_utf16(head: bytes) -> bool:
    return head[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in head[:4]


def _without_controls(data: bytes) -> bytes:
    """The C0 control characters XML 1.0 forbids, dropped: some indexers write them in
    titles, and expat would refuse the whole page for one. Bytes of UTF-8 (and of the
    8-bit encodings) below 0x20 are these characters and nothing else."""
    return data.translate(None, _C0_FORBIDDEN)


def is_web_page(body: bytes) -> bool:
    """Whether an answer is an HTML page (a login form, a proxy's or Cloudflare's page)."""
    head = body[:_SNIFF_BYTES]
    return bool(_HTML_START.match(head) or _HTML_ANYWHERE.search(head))


def parse_results(body: bytes, source: str) -> Page:
    """A whole results answer (any HTTP status: an ``<error>`` is read whatever it came
    with). ``source`` is the configured name the reasons and the rows carry."""
    reader = ResultsReader(source)
    reader.feed_chunk(body)
    return reader.page()


def error_reason(source: str, code: str, description: str) -> Reason:
    """An ``<error>``: codes 100–199 are the account's (Newznab's "Incorrect user
    credentials", Jackett's "Invalid API Key"); the others are said as they are."""
    number = _integer(code)
    if number is not None and 100 <= number <= 199:
        return reason("search.bad_api_key", source=source)
    detail = clean_name(description)[:MAX_DETAIL_CHARS]
    return reason("search.error", source=source, detail=detail, torznab_code=number or 0)


class _CapsReader(_Reader):
    def __init__(self) -> None:
        super().__init__()
        self.modes: dict[str, Mode] = {}
        self.limits: dict[str, str] = {}
        self.categories: set[int] = set()
        self._section: str | None = None

    def open(self, name: str, attrs: dict[str, str]) -> None:
        if self.root != "caps":
            return
        if self.depth == 2:
            self._section = name
            if name == "limits":
                self.limits = attrs
        elif self.depth == 3 and self._section == "searching" and name in MODES:
            params = attrs.get("supportedParams", "")
            self.modes[name] = Mode(
                available=attrs.get("available", "").strip().lower() == "yes",
                params=frozenset(p.strip().lower() for p in params.split(",") if p.strip()),
            )
        elif self._section == "categories" and name in ("category", "subcat"):
            number = _integer(attrs.get("id", ""))
            if number is not None and 0 < number <= _MAX_ID:
                self.categories.add(number)

    def close(self, name: str) -> None:
        if self.depth == 2:
            self._section = None


def parse_caps(body: bytes, source: str) -> Caps | Reason:
    """A ``t=caps`` answer, or why it is none (an ``<error>``, a web page, not caps)."""
    if _HTML_START.match(body[:_SNIFF_BYTES]):
        return reason("search.blocked", source=source)
    if len(body) > MAX_CAPS_BYTES:
        return reason("search.unreadable", source=source)
    reader = _CapsReader()
    reader.feed(_without_controls(body), final=True)
    if reader.error is not None:
        return error_reason(source, *reader.error)
    if reader.refused or reader.broken or reader.root != "caps":
        code = "search.blocked" if is_web_page(body) else "search.unreadable"
        return reason(code, source=source)
    return Caps(
        modes=reader.modes,
        limit_max=_limit(reader.limits.get("max")),
        limit_default=_limit(reader.limits.get("default")),
        categories=frozenset(reader.categories),
    )


def _limit(text: str | None) -> int | None:
    number = None if text is None else _integer(text)
    return number if number is not None and number > 0 else None


# ---- one release ---------------------------------------------------------------------


def release(
    texts: Mapping[str, str], attrs: Mapping[str, str], enclosure: Mapping[str, str], source: str
) -> Found | str:
    """One ``<item>`` as a release, or why it is skipped ("no_title", "bad_magnet", …).

    ``texts`` are the item's own elements (``title``, ``link``, ``size``, ``pubDate``,
    ``jackettindexer``/``prowlarrindexer``), ``attrs`` its ``torznab:attr``s by name
    (the first of each), ``enclosure`` its enclosure's attributes."""
    name = clean_name(texts.get("title", ""))
    if not name:
        return "no_title"
    if len(name) > MAX_NAME_CHARS:
        return "bad_title"
    link = _link(attrs.get("magneturl", ""), enclosure.get("url", ""), texts.get("link", ""))
    if isinstance(link, str):
        return link
    uri, magnet_hash = link
    size = _size(attrs.get("size"), texts.get("size"), enclosure.get("length"))
    if isinstance(size, str):
        return "bad_size"
    seeders = _count(attrs.get("seeders"))
    peers = _count(attrs.get("peers"))
    leechers = _count(attrs.get("leechers"))
    # Torznab's peers are seeders and leechers together: any two tell the third.
    if leechers is None and peers is not None and seeders is not None:
        leechers = max(peers - seeders, 0)
    if seeders is None and peers is not None and leechers is not None:
        seeders = max(peers - leechers, 0)
    indexer = clean_name(texts.get("prowlarrindexer") or texts.get("jackettindexer") or "")
    return Found(
        name=name,
        link=uri,
        source=source,
        size=size,
        seeders=seeders,
        leechers=leechers,
        # The magnet's own hash is what would be downloaded; the attribute is a claim.
        infohash=magnet_hash or _infohash(attrs.get("infohash")),
        indexer=indexer[:200] or None,
        published=_published(texts.get("pubDate")),
        freeleech=_float(attrs.get("downloadvolumefactor")) == 0.0,
        imdb_id=_imdb(attrs.get("imdbid")) or _imdb(attrs.get("imdb")),
        tmdb_id=_positive(attrs.get("tmdbid")),
        tvdb_id=_positive(attrs.get("tvdbid")),
    )


def _link(*candidates: str) -> tuple[str, str | None] | str:
    """The first usable of the magnet attribute, the enclosure and ``<link>``: a magnet
    (checked, with its hash) or an http(s) URL; else why there is none."""
    why = "no_link"
    for raw in candidates:
        text = raw.strip()
        if not text:
            continue
        if text[:7].lower() == "magnet:":
            if len(text.encode()) > MAX_MAGNET_BYTES:
                why = "bad_magnet"
                continue
            try:
                magnet = parse_magnet(text)
            except InvalidInputError:
                why = "bad_magnet"
                continue
            return magnet.uri, magnet.infohashes[0]
        parts = urlsplit(text) if len(text) <= MAX_URL_CHARS else None
        if parts is not None and parts.scheme.lower() in ("http", "https") and parts.netloc:
            return text, None
        if why == "no_link":
            why = "bad_link"
    return why


def _size(*candidates: str | None) -> int | str | None:
    """The size attribute, else ``<size>``, else the enclosure's length (which may be
    the .torrent's own size: the last resort); 0 or empty is unknown."""
    for text in candidates:
        number = None if text is None else _integer(text)
        if number is None or number == 0:
            continue
        if number < 0 or number > MAX_CONTENT_BYTES:
            return "bad"
        return number
    return None


def _integer(text: str) -> int | None:
    match = _INTEGER.fullmatch(text)
    return int(match.group(1)) if match else None


def _count(text: str | None) -> int | None:
    number = None if text is None else _integer(text)
    return number if number is not None and 0 <= number <= _MAX_COUNT else None


def _positive(text: str | None) -> int | None:
    number = None if text is None else _integer(text)
    return number if number is not None and 0 < number <= _MAX_ID else None


def _float(text: str | None) -> float | None:
    try:
        return None if text is None else float(text.strip())
    except ValueError:
        return None


def _infohash(text: str | None) -> str | None:
    try:
        return None if text is None else normalize_infohash(text)[0]
    except InvalidInputError:
        return None


def _imdb(text: str | None) -> str | None:
    """``tt0039689``, ``0039689`` or ``39689`` as ``tt0039689`` (7 digits or more)."""
    match = None if text is None else _IMDB.fullmatch(text)
    number = int(match.group(1)) if match else 0
    return f"tt{number:07d}" if 0 < number <= _MAX_ID else None


def _published(text: str | None) -> datetime | None:
    """RFC 822 (``Sat, 14 Mar 2015 17:10:42 -0400``) as an aware UTC time."""
    if not text or len(text) > 100:
        return None
    try:
        moment = parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # "-0000": UTC, origin unknown
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
