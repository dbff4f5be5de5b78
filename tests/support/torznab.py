"""A fake Torznab server for tests: Prowlarr or Jackett, over the releases a test gives it.

jellybit's :class:`worker.torznab.TorznabSource` is pointed at it by ``fake.endpoint()``
(a ``TorznabEndpoint`` with the fake's URL and key). It answers as the flavour it is:

- ``FakeTorznab(flavour="prowlarr")``: ``GET /{id}/api`` (the indexer ``indexer_id``,
  default 5). The key is ``apikey`` (or the ``X-Api-Key`` header); a wrong or missing one
  is a ``401`` with an empty body (Prowlarr's ApiKeyAuthenticationHandler). ``t`` missing
  is a ``400`` error 200, an imdbid that is no number a ``400`` error 201, an unknown
  function a ``400`` error 202. An id parameter the indexer's caps do not list gets an
  empty page (HttpIndexerBase: "search skipped due to unsupported capabilities").
  Download links ``/{id}/download?apikey=…&link=…&file=…``: a magnet is a ``301`` to it,
  a .torrent ``200`` ``application/x-bittorrent``, a release the tracker no longer has a
  ``410`` error 410. Every XML answer is ``application/rss+xml``.
- ``FakeTorznab(flavour="jackett")``: ``GET /api/v2.0/indexers/{id}/results/torznab/api``
  (``indexer_id``, default ``all``). A wrong ``apikey`` is a ``200`` error 100 "Invalid
  API Key" (``application/xml``). An imdbid where movie-search does not list it is a ``200``
  error 201 (``CanHandleQuery`` refuses the query); a tmdbid, or a tv imdbid, that the mode
  does not list a ``400`` error 203 "Function Not Available: …"; a tvdbid that tv-search
  does not list is ignored (Jackett searches without it). Download links
  ``/dl/{tracker}/?jackett_apikey=…&path=…&file=…``: a ``302`` to a magnet, a .torrent
  ``200``, anything that fails a ``404`` with no body. A tracker with magnets only has no
  download link at all: its magnet is the item's link and its ``magneturl``.

Both read ``q`` (every word in the title), ``cat`` (a parent category takes its subcats),
``imdbid``/``tmdbid``/``tvdbid``, ``season``, ``limit`` (at most the caps' max) and
``offset``, and write their caps and pages element for element as their code does
(``tests/data/torznab/``: ``tests/contract/test_torznab.py`` holds the fake to them).

Faults: ``fail_next(status, retry_after=None, times=1)`` — the flavour's error for the
status (a ``429`` is Prowlarr's error 429 or Jackett's error 900, with the ``Retry-After``
given; Prowlarr's ``401`` has no body); ``serve_html(status)`` — the next answer is a
web page (a login form, Cloudflare's challenge); ``answer_next(body, status, content_type)``
— the next answer is exactly these bytes (entity bombs, broken XML); ``flood(count)`` —
the next page has ``count`` generated releases (``limit`` ignored, as a broken indexer
does); ``hostile_items`` — XML fragments added to every page as they are;
``set_delay(seconds)`` (a hanging answer) and ``set_down(True)`` from ``HttpFake``. A
release's ``download`` says what its link gives: ``"torrent"``, ``"magnet"``, ``"gone"``,
and, as faults no real indexer has, ``"loop"`` (a redirect to itself, forever),
``"huge"`` (a body past ``MAX_TORRENT_BYTES``) and ``"page"`` (a web page).

``calls`` logs every request with its parameters and the status answered.
"""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from xml.sax.saxutils import escape, quoteattr

from aiohttp import web
from fastbencode import bencode  # type: ignore[attr-defined]  # no __all__

from core.config import SearchSettings, TorznabEndpoint
from core.magnet import magnet_uri
from core.torrent_file import MAX_TORRENT_BYTES
from tests.support.http_fake import Call as Call
from tests.support.http_fake import HttpFake

Flavour = Literal["prowlarr", "jackett"]
Download = Literal["torrent", "magnet", "gone", "loop", "huge", "page"]
TORZNAB_NS = "http://torznab.com/schemas/2015/feed"
ATOM_NS = "http://www.w3.org/2005/Atom"
DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
# The content types of each flavour's answers (their controllers' ContentResults).
RSS_TYPE = {"prowlarr": "application/rss+xml", "jackett": "application/rss+xml"}
LOGIN_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>Just a moment...</title></head>"
    "<body><form action='/login'><input name='password' type='password'></form></body></html>"
)
_WORD = re.compile(r"\w+")
PROWLARR_FAULTS = {
    410: "Indexer is disabled",
    429: "User configurable Indexer Query Limit of 100 in last 24 hour(s) reached.",
}


@dataclass
class FakeCaps:
    """An indexer's caps; a mode's params with "q" first, empty when the mode is off.
    The defaults are those of ``tests/data/torznab/<flavour>_caps.xml``."""

    search: bool = True
    tv: tuple[str, ...] = ("q", "season", "ep", "imdbid", "tvdbid", "tmdbid")
    movie: tuple[str, ...] = ("q", "imdbid", "tmdbid")
    limit_max: int = 100
    limit_default: int = 100
    categories: tuple[tuple[int, str, tuple[tuple[int, str], ...]], ...] = (
        (2000, "Movies", ((2040, "Movies/HD"), (2045, "Movies/UHD"))),
        (5000, "TV", ((5040, "TV/HD"),)),
        (100001, "Movies", ()),
        (100002, "TV", ()),
    )
    tags: tuple[tuple[str, str], ...] = (("freeleech", "Download doesn't count toward ratio"),)

    @classmethod
    def of(cls, flavour: Flavour) -> FakeCaps:
        if flavour == "jackett":  # TvSearchImdbAvailable is off in Jackett (#8107)
            return cls(tv=("q", "season", "ep", "tvdbid", "tmdbid"))
        return cls()

    def lists(self, t: str, param: str) -> bool:
        return param in (self.movie if t == "movie" else self.tv if t == "tvsearch" else ())


@dataclass
class FakeRelease:
    title: str
    size: int | None = 1_500_000_000
    seeders: int | None = 10
    peers: int | None = 12
    infohash: str = field(default_factory=lambda: secrets.token_hex(20))
    categories: tuple[int, ...] = (2000,)
    imdb_id: str | None = None  # "tt1160419"
    tmdb_id: int | None = None
    tvdb_id: int | None = None
    season: int | None = None
    published: datetime = datetime(2024, 3, 16, 10, 4, 11, tzinfo=UTC)
    freeleech: bool = False
    indexer: str = "ExampleTracker"
    download: Download = "torrent"
    torrent_file: bytes | None = None  # a real .torrent's bytes (None: a made-up one)

    @property
    def magnet(self) -> str:
        return magnet_uri([self.infohash], name=self.title)

    @property
    def torrent(self) -> bytes:
        if self.torrent_file is not None:
            return self.torrent_file
        info = {
            b"name": self.title.encode(),
            b"length": self.size or 1,
            b"piece length": 262144,
            b"pieces": bytes.fromhex(self.infohash),
        }
        made: bytes = bencode({b"announce": b"http://tracker.invalid/announce", b"info": info})
        return made

    @property
    def tracker_id(self) -> str:
        return re.sub(r"[^a-z0-9]", "", self.indexer.lower()) or "tracker"


@dataclass(frozen=True)
class _Xml:
    text: str
    content_type: str


@dataclass
class FakeTorznab(HttpFake):
    flavour: Flavour = "prowlarr"
    releases: list[FakeRelease] = field(default_factory=list)
    caps: FakeCaps | None = None
    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    indexer_id: str = ""
    hostile_items: list[str] = field(default_factory=list)
    _html: list[int] = field(default_factory=list, repr=False)
    _raw: list[tuple[bytes, int, str]] = field(default_factory=list, repr=False)
    _flood: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        if self.caps is None:
            self.caps = FakeCaps.of(self.flavour)
        if not self.indexer_id:
            self.indexer_id = "5" if self.flavour == "prowlarr" else "all"

    @property
    def indexer_caps(self) -> FakeCaps:
        assert self.caps is not None
        return self.caps

    # ---- where it is ---------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The Torznab URL, as a person configures it."""
        if self.flavour == "prowlarr":
            return f"{self._origin}/{self.indexer_id}/api"
        return f"{self._origin}/api/v2.0/indexers/{self.indexer_id}/results/torznab/api"

    def endpoint(self, name: str = "", api_key: str | None = None) -> TorznabEndpoint:
        return TorznabEndpoint(
            name=name or self.flavour,
            url=self.url,
            api_key=self.api_key if api_key is None else api_key,
        )

    def download_url(self, release: FakeRelease) -> str:
        """The release's download link as the flavour writes it (the key in it)."""
        index = next((i for i, known in enumerate(self.releases) if known is release), -1)
        token = base64.urlsafe_b64encode(str(index).encode()).decode()
        token = token.rstrip("=")
        if self.flavour == "prowlarr":
            return (
                f"{self._origin}/{self.indexer_id}/download?apikey={self.api_key}"
                f"&link={token}&file={release.title}"
            )
        return (
            f"{self._origin}/dl/{release.tracker_id}/?jackett_apikey={self.api_key}"
            f"&path={token}&file={release.title}"
        )

    # ---- faults --------------------------------------------------------------------------
    def serve_html(self, status: int = 200, times: int = 1) -> None:
        self._html += [status] * times

    def answer_next(
        self, body: bytes, status: int = 200, content_type: str = "application/xml"
    ) -> None:
        self._raw.append((body, status, content_type))

    def flood(self, count: int) -> None:
        self._flood = count

    # ---- routes --------------------------------------------------------------------------
    def _routes(self, app: web.Application) -> None:
        if self.flavour == "prowlarr":
            app.router.add_get("/{indexer:\\d+}/api", self._api)
            app.router.add_get("/{indexer:\\d+}/download", self._download)
        else:
            base = "/api/v2.0/indexers/{indexer}/results/torznab"
            app.router.add_get(base, self._api)
            app.router.add_get(base + "/", self._api)
            app.router.add_get(base + "/{ignored}", self._api)
            app.router.add_get("/dl/{indexer}/", self._download)
        app.router.add_route("*", "/{tail:.*}", self._unknown)

    def _authorized(self, request: web.Request) -> bool:
        if self.flavour == "prowlarr":
            given = request.query.get("apikey") or request.headers.get("X-Api-Key") or ""
        elif request.path.startswith("/dl/"):
            given = request.query.get("jackett_apikey", "")
        else:
            given = request.query.get("apikey") or request.query.get("passkey") or ""
        return secrets.compare_digest(given, self.api_key)

    def _unauthorized(self, call: Call) -> web.Response:
        if self.flavour == "jackett" and not call.path.startswith("/dl/"):
            return self._answer(call, _error(100, "Invalid API Key"), 200)
        return self._answer(call, None, 401)

    def _fault_body(self, status: int) -> Any:
        if self.flavour == "prowlarr":
            if status in (401, 403):
                return None  # the authentication handler's: no body
            return _prowlarr_error(status, PROWLARR_FAULTS.get(status, "Fault"))
        if status == 429:
            return _error(900, "Exception (exampletracker): Too Many Requests", charset=True)
        return _error(900, "Exception (exampletracker): fault", charset=True)

    def _answer(
        self, call: Call, body: Any, status: int = 200, headers: dict[str, str] | None = None
    ) -> web.Response:
        if isinstance(body, _Xml):
            call.status = status
            response = web.Response(status=status, text=body.text, headers=headers)
            response.headers["Content-Type"] = body.content_type
            return response
        return super()._answer(call, body, status, headers)

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request, auth=False)
        return early or self._answer(call, None, 404)

    async def _api(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        if self._raw:
            body, status, content_type = self._raw.pop(0)
            call.status = status
            return web.Response(status=status, body=body, headers={"Content-Type": content_type})
        if self._html:
            status = self._html.pop(0)
            return self._answer(call, _Xml(LOGIN_PAGE, "text/html; charset=utf-8"), status)
        if request.match_info["indexer"] != self.indexer_id:
            return self._answer(call, None, 404)
        query = {key.lower(): value for key, value in request.query.items()}
        refuse = self._prowlarr_refusal if self.flavour == "prowlarr" else self._jackett_refusal
        refusal = refuse(query)
        if refusal is not None:
            return self._answer(call, refusal[0], refusal[1])
        if query.get("t") == "caps":
            return self._answer(call, _Xml(self._caps_xml(), self._rss_type()))
        return self._answer(call, _Xml(self._page(query), self._rss_type()))

    def _rss_type(self) -> str:
        return RSS_TYPE[self.flavour] + ("; charset=utf-8" if self.flavour == "jackett" else "")

    def _prowlarr_refusal(self, query: dict[str, str]) -> tuple[_Xml, int] | None:
        t = query.get("t", "")
        if not t.strip():
            return _prowlarr_error(200, "Missing parameter (t)"), 400
        imdb = query.get("imdbid", "").lstrip("t")
        if imdb and (not imdb.isdigit() or int(imdb) == 0):
            return _prowlarr_error(201, "Incorrect parameter (imdbid)"), 400
        if t not in ("caps", "search", "tvsearch", "music", "book", "movie"):
            return _prowlarr_error(202, f"No such function ({t})"), 400
        return None

    def _jackett_refusal(self, query: dict[str, str]) -> tuple[_Xml, int] | None:
        t = query.get("t", "search")
        if t == "caps":
            return None
        caps = self.indexer_caps
        handles = {"search": caps.search, "tvsearch": bool(caps.tv), "movie": bool(caps.movie)}
        if ("imdbid" in query and "imdbid" not in caps.movie) or not handles.get(t, False):
            description = (
                f"{self.indexer_id} does not support the requested query. Please check the"
                " capabilities (t=caps) and make sure the search mode and parameters are"
                " supported."
            )
            return _error(201, description), 200
        kind = "movie" if t == "movie" else "TV"
        for param in ("imdbid", "tmdbid"):
            if param in query and t in ("movie", "tvsearch") and not caps.lists(t, param):
                description = (
                    f"Function Not Available: {param} is not supported for {kind} search by"
                    " this indexer"
                )
                return _error(203, description, charset=True), 400
        return None

    # ---- answers -------------------------------------------------------------------------
    def _caps_xml(self) -> str:
        caps = self.indexer_caps
        server = "Prowlarr" if self.flavour == "prowlarr" else "Jackett"

        def mode(name: str, params: tuple[str, ...]) -> str:
            available = "yes" if params else "no"
            supported = ",".join(params) or "q"
            return f'    <{name} available="{available}" supportedParams="{supported}" />'

        lines = [
            "<caps>",
            f'  <server title="{server}" />',
            f'  <limits default="{caps.limit_default}" max="{caps.limit_max}" />',
            "  <searching>",
            mode("search", ("q",) if caps.search else ()),
            mode("tv-search", caps.tv),
            mode("movie-search", caps.movie),
            mode("music-search", ()),
            mode("audio-search", ()),
            mode("book-search", ()),
            "  </searching>",
            "  <categories>",
        ]
        for number, name, subcats in caps.categories:
            if not subcats:
                lines.append(f'    <category id="{number}" name={quoteattr(name)} />')
                continue
            lines.append(f'    <category id="{number}" name={quoteattr(name)}>')
            lines += [f'      <subcat id="{i}" name={quoteattr(n)} />' for i, n in subcats]
            lines.append("    </category>")
        lines.append("  </categories>")
        if self.flavour == "prowlarr":  # Jackett writes no tags
            lines.append("  <tags>")
            lines += [
                f"    <tag name={quoteattr(name)} description={quoteattr(text)} />"
                for name, text in caps.tags
            ]
            lines.append("  </tags>")
        lines.append("</caps>")
        return DECLARATION + "\n".join(lines)

    def _page(self, query: dict[str, str]) -> str:
        chosen = self._chosen(query)
        if self._flood:
            chosen = [
                FakeRelease(f"Flood.{n}.2024.1080p.WEB-DL", infohash=f"{n:040x}")
                for n in range(self._flood)
            ]
            self._flood = 0
        items = [self._item(release) for release in chosen] + self.hostile_items
        if self.flavour == "prowlarr":
            head = [
                '<rss version="1.0" xmlns:atom="http://www.w3.org/2005/Atom"'
                ' xmlns:torznab="http://torznab.com/schemas/2015/feed">',
                "  <channel>",
                '    <atom:link rel="self" type="application/rss+xml" />',
                "    <title>Prowlarr</title>",
            ]
        else:
            head = [
                '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"'
                ' xmlns:torznab="http://torznab.com/schemas/2015/feed">',
                "  <channel>",
                f'    <atom:link href="{self._origin}/" rel="self" type="application/rss+xml" />',
                "    <title>AggregateSearch</title>",
                "    <description>This feed includes all configured trackers</description>",
                "    <link>http://127.0.0.1/</link>",
                "    <language>en-US</language>",
                "    <category>search</category>",
            ]
        return DECLARATION + "\n".join([*head, *items, "  </channel>", "</rss>"])

    def _chosen(self, query: dict[str, str]) -> list[FakeRelease]:
        caps = self.indexer_caps
        t = query.get("t", "search")
        ids: dict[str, str] = {p: query[p] for p in ("imdbid", "tmdbid", "tvdbid") if p in query}
        unlisted = any(not caps.lists(t, param) for param in ids)
        if self.flavour == "prowlarr" and t in ("movie", "tvsearch") and unlisted:
            return []  # "search skipped due to unsupported capabilities"
        if self.flavour == "jackett" and "tvdbid" in ids and not caps.lists(t, "tvdbid"):
            del ids["tvdbid"]  # searched without it
        words = set(_WORD.findall(query.get("q", "").casefold()))
        cats = {int(c) for c in query.get("cat", "").split(",") if c.strip().isdigit()}
        chosen = [
            release
            for release in self.releases
            if words <= set(_WORD.findall(release.title.casefold()))
            and _ids_match(release, ids)
            and ("season" not in query or str(release.season) == query["season"])
            and (not cats or any(_in_category(c, cats) for c in release.categories))
        ]
        limit = caps.limit_default
        if query.get("limit", "").isdigit():
            limit = min(int(query["limit"]), caps.limit_max)
        offset = int(query["offset"]) if query.get("offset", "").isdigit() else 0
        return chosen[offset : offset + limit]

    def _item(self, release: FakeRelease) -> str:
        if self.flavour == "prowlarr":
            return self._prowlarr_item(release)
        return self._jackett_item(release)

    def _prowlarr_item(self, r: FakeRelease) -> str:
        link = escape(self.download_url(r))
        size = "" if r.size is None else str(r.size)
        lines = [
            "    <item>",
            f"      <title>{escape(r.title)}</title>",
            "      <description />",
            f"      <guid>https://example-tracker.org/torrent/{r.infohash[:8]}/</guid>",
            f'      <prowlarrindexer id="{self.indexer_id}" type="public">'
            f"{escape(r.indexer)}</prowlarrindexer>",
            f"      <pubDate>{_rfc822(r.published)}</pubDate>",
            f"      <size>{size}</size>" if size else "      <size />",
            f"      <link>{link}</link>",
            *(f"      <category>{c}</category>" for c in r.categories),
            f'      <enclosure url="{link}"'
            + (f' length="{size}"' if size else "")
            + ' type="application/x-bittorrent" />',
            *(_attr("category", c) for c in r.categories),
            _attr("tvdbid", r.tvdb_id),
            _attr("imdb", r.imdb_id[2:] if r.imdb_id else None),
            _attr("tmdbid", r.tmdb_id),
            _attr("seeders", r.seeders),
            _attr("peers", r.peers),
            _attr("infohash", r.infohash),
            _attr("downloadvolumefactor", 0 if r.freeleech else 1),
            _attr("uploadvolumefactor", 1),
            "    </item>",
        ]
        return "\n".join(line for line in lines if line)

    def _jackett_item(self, r: FakeRelease) -> str:
        magnet_only = r.download == "magnet"
        link = escape(r.magnet if magnet_only else self.download_url(r))
        size = None if r.size is None else str(r.size)
        lines = [
            "    <item>",
            f"      <title>{escape(r.title)}</title>",
            f"      <guid>https://example-tracker.org/torrent/{r.infohash[:8]}/</guid>",
            f'      <jackettindexer id="{r.tracker_id}">{escape(r.indexer)}</jackettindexer>',
            "      <type>public</type>",
            f"      <pubDate>{_rfc822(r.published)}</pubDate>",
            f"      <size>{size}</size>" if size else "",
            "      <description />",
            f"      <link>{link}</link>",
            *(f"      <category>{c}</category>" for c in r.categories),
            f'      <enclosure url="{link}"'
            + (f' length="{size}"' if size else "")
            + ' type="application/x-bittorrent" />',
            *(_attr("category", c) for c in r.categories),
            _attr("tvdbid", r.tvdb_id),
            _attr("imdb", r.imdb_id[2:] if r.imdb_id else None),
            _attr("imdbid", r.imdb_id),
            _attr("tmdbid", r.tmdb_id),
            _attr("seeders", r.seeders),
            _attr("peers", r.peers),
            _attr("infohash", r.infohash),
            _attr("magneturl", escape(r.magnet) if magnet_only else None),
            _attr("downloadvolumefactor", 0 if r.freeleech else 1),
            _attr("uploadvolumefactor", 1),
            "    </item>",
        ]
        return "\n".join(line for line in lines if line)

    # ---- downloads -----------------------------------------------------------------------
    async def _download(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        token = request.query.get("link" if self.flavour == "prowlarr" else "path", "")
        release = self._release_of(token)
        if release is None or release.download == "gone":
            if self.flavour == "prowlarr":
                return self._answer(call, _prowlarr_error(410, "Release not found"), 410)
            return self._answer(call, None, 404)
        if release.download == "magnet":
            call.status = 301 if self.flavour == "prowlarr" else 302
            return web.Response(status=call.status, headers={"Location": release.magnet})
        if release.download == "loop":
            call.status = 302
            return web.Response(status=302, headers={"Location": str(request.rel_url)})
        if release.download == "page":
            return self._answer(call, _Xml(LOGIN_PAGE, "text/html; charset=utf-8"))
        call.status = 200
        body = release.torrent
        if release.download == "huge":
            body = b"d4:info" + b"d" * (MAX_TORRENT_BYTES + 1024)
        return web.Response(
            body=body,
            headers={
                "Content-Type": "application/x-bittorrent",
                "Content-Disposition": f'attachment; filename="{release.tracker_id}.torrent"',
            },
        )

    def _release_of(self, token: str) -> FakeRelease | None:
        try:
            index = int(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        except ValueError:
            return None
        return self.releases[index] if 0 <= index < len(self.releases) else None


def _ids_match(release: FakeRelease, ids: dict[str, str]) -> bool:
    wanted_imdb = ids.get("imdbid", "").lower().lstrip("t").lstrip("0")
    have_imdb = (release.imdb_id or "").lower().lstrip("t").lstrip("0")
    return (
        ("imdbid" not in ids or wanted_imdb == have_imdb)
        and ("tmdbid" not in ids or ids["tmdbid"] == str(release.tmdb_id))
        and ("tvdbid" not in ids or ids["tvdbid"] == str(release.tvdb_id))
    )


def _in_category(category: int, wanted: set[int]) -> bool:
    return category in wanted or (category < 100000 and category // 1000 * 1000 in wanted)


def _attr(name: str, value: object) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) and name == "magneturl" else escape(str(value))
    return f'      <torznab:attr name="{name}" value="{text}" />'


def _rfc822(moment: datetime) -> str:
    """``Sat, 14 Mar 2015 17:10:42 -0400``, as both flavours write pubDate."""
    return moment.strftime("%a, %d %b %Y %H:%M:%S %z")


def _error(code: int, description: str, *, charset: bool = False) -> _Xml:
    """Jackett's CreateErrorXML: ``application/xml`` (with the charset from GetErrorXML)."""
    attributes = f"code={quoteattr(str(code))} description={quoteattr(description)}"
    text = f"{DECLARATION}<error {attributes} />"
    return _Xml(text, "application/xml; charset=utf-8" if charset else "application/xml")


def _prowlarr_error(code: int, description: str) -> _Xml:
    """Prowlarr's CreateErrorXML, answered as ``application/rss+xml`` (CreateResponse)."""
    return _Xml(_error(code, description).text, RSS_TYPE["prowlarr"])


@dataclass
class Indexers:
    """The indexers a search test configures together: a good one (Prowlarr), one that
    refuses its key (Jackett) and one that hangs (Prowlarr, answering after a minute)."""

    good: FakeTorznab
    refusing: FakeTorznab
    hanging: FakeTorznab

    def settings(self, timeout: float, *, qbittorrent: bool = False) -> SearchSettings:
        return SearchSettings(
            torznab=(
                self.good.endpoint("prowlarr"),
                TorznabEndpoint("jackett", self.refusing.url, "wrong-key"),
                self.hanging.endpoint("slow"),
            ),
            qbittorrent=qbittorrent,
            timeout=timeout,
        )


@asynccontextmanager
async def good_refusing_hanging(good_key: str | None = None) -> AsyncIterator[Indexers]:
    async with (
        FakeTorznab(flavour="prowlarr", api_key=good_key or secrets.token_hex(16)) as good,
        FakeTorznab(flavour="jackett") as refusing,
        FakeTorznab(flavour="prowlarr") as hanging,
    ):
        hanging.set_delay(60)
        yield Indexers(good, refusing, hanging)
