"""A fake TMDB API (v3) for tests, answering like the real one over a catalogue.

jellybit's :class:`worker.tmdb.TmdbClient` is pointed at it by ``metadata.tmdb_base =
fake.base_url`` (which ends in ``/3``, as the real one does). Answers have TMDB's own shapes
and field names, and its errors are TMDB's JSON (``{"status_code": N, "status_message": …,
"success": false}``). The catalogue is the built-in ``CATALOGUE`` or any list of entries
(``Entry.from_json`` reads the entries of ``tests/data/decisions-format.md``).

- **Auth** as TMDB: a v3 key in the ``api_key`` parameter (``fake.api_key``, 32 hex digits)
  or a v4 read access token as ``Authorization: Bearer …`` (``fake.read_token``, a JWT).
  Anything else is a 401 with status_code 7.
- **Search** (``/search/movie``: ``query``, ``year``/``primary_release_year``;
  ``/search/tv``: ``query``, ``first_air_date_year``/``year``): as TMDB, the query is
  matched against every name of an entry — title, original title, alternative titles and
  translations — word by word (accents, case and punctuation ignored; the last word may be
  the start of a word), or as the start of the name written without spaces ("spiderman").
  Results are ordered by popularity, 20 a page, with ``total_results``/``total_pages``:
  the decoys come first whenever they are more popular.
- **Details** ``/movie/{id}``, ``/tv/{id}`` with ``append_to_response`` (any of
  ``alternative_titles``, ``translations``, ``external_ids``, and a show's ``season/N``
  answered as ``/tv/{id}/season/{n}`` is, in the request's language), the same three as their own
  endpoints, ``/tv/{id}/season/{n}`` (episodes with numbers and air dates), and
  ``/find/{external_id}?external_source=imdb_id`` or ``tvdb_id`` (a show's TVDB id: its
  ``tv_results``; the other sources of TMDB's description find nothing here; a source it
  lacks is TMDB's 422 with status_code 5).
- **Shapes** are held to TMDB's published OpenAPI description by
  ``tests/contract/test_tmdb.py`` (the parts jellybit uses: ``tests/data/tmdb/``).
- **Language**: ``language=ru-RU`` (or ``ru``) answers the Russian translation where the
  catalogue has one, English otherwise (TMDB's fallback); a season's episodes too (an
  episode's ``translations`` in the set: ``de-DE`` answers its German name), and a
  season's own name (its ``translations``: TMDB's ``ru-RU`` "Шабаш" for "Coven").
- **Faults**: ``fail_next(status, retry_after=None, times=1)`` answers the next request(s)
  with TMDB's error for that status (and a ``Retry-After`` header: the one given, for a 429
  ``RETRY_AFTER`` seconds otherwise);
  ``set_down(True)`` closes every connection without an answer; ``set_delay(seconds)``
  holds every answer that long (for client timeouts).

``calls`` logs every request with its arrival time (``time.monotonic()``) and the status
answered (None when the connection was dropped).

    async with FakeTmdb() as tmdb:
        settings = MetadataSettings(tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url)
        ...
"""

from __future__ import annotations

import base64
import datetime
import json
import re
import secrets
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from aiohttp import web

from core.config import MetadataSettings
from tests.support.http_fake import Call as Call
from tests.support.http_fake import HttpFake

Json = dict[str, Any]
TmdbKind = Literal["movie", "tv"]

PAGE_SIZE = 20
_NON_WORD = re.compile(r"[\W_]+")
_APOSTROPHES = re.compile(r"['’`ʼ]")
_PLAIN = str.maketrans({"ı": "i", "ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D"})

INVALID_KEY: Json = {
    "status_code": 7,
    "status_message": "Invalid API key: You must be granted a valid key.",
    "success": False,
}
NOT_FOUND: Json = {
    "success": False,
    "status_code": 34,
    "status_message": "The resource you requested could not be found.",
}
INVALID_PARAMETERS: Json = {
    "success": False,
    "status_code": 5,
    "status_message": "Invalid parameters: Your request parameters are incorrect.",
}
_ERRORS: dict[int, Json] = {
    401: INVALID_KEY,
    404: NOT_FOUND,
    422: INVALID_PARAMETERS,
    429: {
        "status_code": 25,
        "status_message": "Your request count (41) is over the allowed limit of (40).",
        "success": False,
    },
    500: {
        "status_code": 11,
        "status_message": "Internal error: Something went wrong, contact TMDB.",
        "success": False,
    },
    503: {
        "status_code": 9,
        "status_message": "Service offline: This service is temporarily offline, try again later.",
        "success": False,
    },
}
# TMDB's genre names (/genre/movie/list and /genre/tv/list, en-US).
GENRES = {
    12: "Adventure",
    14: "Fantasy",
    16: "Animation",
    18: "Drama",
    27: "Horror",
    28: "Action",
    35: "Comedy",
    36: "History",
    37: "Western",
    53: "Thriller",
    80: "Crime",
    99: "Documentary",
    878: "Science Fiction",
    9648: "Mystery",
    10402: "Music",
    10749: "Romance",
    10751: "Family",
    10752: "War",
    10759: "Action & Adventure",
    10762: "Kids",
    10763: "News",
    10764: "Reality",
    10765: "Sci-Fi & Fantasy",
    10766: "Soap",
    10767: "Talk",
    10768: "War & Politics",
    10770: "TV Movie",
}
# ``/find``'s ``external_source`` values in TMDB's description (IMDb and a show's TVDB ids
# are known here).
EXTERNAL_SOURCES = frozenset(
    {"imdb_id", "facebook_id", "instagram_id", "tvdb_id", "tiktok_id", "twitter_id",
     "wikidata_id", "youtube_id"}
)  # fmt: skip
RETRY_AFTER = 1  # seconds: TMDB's 429 always says how long to wait
_LANGUAGE_NAMES = {"ru": ("Pусский", "Russian"), "en": ("English", "English")}


@dataclass(frozen=True)
class Episode:
    number: int
    name: str  # English
    air_date: str = ""
    translations: Mapping[str, str] = field(default_factory=dict)  # iso_639_1 -> name

    def localized(self, language: str) -> str:
        """The name in ``language``; English where there is no translation."""
        return self.translations.get(language.lower().split("-")[0]) or self.name


@dataclass(frozen=True)
class Season:
    number: int
    episode_count: int
    air_date: str = ""
    name: str = ""  # TMDB's: "Season 2", "Specials", or the season's own name
    episodes: tuple[Episode, ...] = ()  # when the set gives them; else numbered weekly
    translations: Mapping[str, str] = field(default_factory=dict)  # iso_639_1 -> its name

    @property
    def shown_name(self) -> str:
        return self.name or ("Specials" if self.number == 0 else f"Season {self.number}")

    def localized(self, language: str) -> str:
        """Its name in ``language``: a translation the set gives, else the English one."""
        return self.translations.get(language.lower().split("-")[0]) or self.shown_name


@dataclass(frozen=True)
class AltTitle:
    country: str  # iso_3166_1
    title: str
    type: str = ""


@dataclass(frozen=True)
class Entry:
    """One movie or show of the catalogue."""

    kind: TmdbKind
    id: int
    title: str  # English
    original_title: str
    date: str  # release_date / first_air_date, "YYYY-MM-DD" or ""
    overview: str
    popularity: float
    original_language: str = "en"
    translations: Mapping[str, str] = field(default_factory=dict)  # iso_639_1 -> title
    translated_overviews: Mapping[str, str] = field(default_factory=dict)
    alternative_titles: tuple[AltTitle, ...] = ()
    poster_path: str | None = None
    backdrop_path: str | None = None
    genre_ids: tuple[int, ...] = ()
    vote_average: float = 7.0
    vote_count: int = 1000
    origin_country: tuple[str, ...] = ("US",)
    imdb_id: str | None = None
    tvdb_id: int | None = None  # shows: TheTVDB's id
    runtime: int | None = None  # movies, minutes
    type: str = "Scripted"  # shows
    seasons: tuple[Season, ...] = ()  # shows; number 0 = specials
    networks: tuple[str, ...] = ()  # shows: "Netflix", "BBC One"

    @property
    def year(self) -> int | None:
        return int(self.date[:4]) if self.date[:4].isdigit() else None

    def names(self) -> list[str]:
        """Every name TMDB's search looks at."""
        return [
            self.title,
            self.original_title,
            *self.translations.values(),
            *(alt.title for alt in self.alternative_titles),
        ]

    def localized(self, language: str) -> tuple[str, str]:
        """(title, overview) in ``language``; English where there is no translation."""
        code = language.lower().split("-")[0]
        return (
            self.translations.get(code) or self.title,
            self.translated_overviews.get(code) or self.overview,
        )

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> Entry:
        """An entry as ``tests/data/decisions-format.md`` writes it."""
        kind: TmdbKind = "tv" if item["kind"] == "tv" else "movie"
        return cls(
            kind=kind,
            id=int(item["id"]),
            title=str(item["title"]),
            original_title=str(item.get("original_title") or item["title"]),
            date=str(item.get("date") or ""),
            overview=str(item.get("overview") or ""),
            popularity=float(item.get("popularity") or 0.0),
            original_language=str(item.get("original_language") or "en"),
            translations=dict(item.get("translations") or {}),
            alternative_titles=tuple(
                AltTitle(str(a.get("iso_3166_1") or ""), str(a["title"]), str(a.get("type") or ""))
                for a in item.get("alternative_titles") or ()
            ),
            vote_count=int(item.get("vote_count") or 0),
            origin_country=tuple(item.get("origin_country") or ()),
            imdb_id=item.get("imdb_id"),
            tvdb_id=int(item["tvdb_id"]) if kind == "tv" and item.get("tvdb_id") else None,
            runtime=item.get("runtime"),
            type=str(item.get("type") or "Scripted"),
            seasons=tuple(_season_of(s) for s in item.get("seasons") or ()),
            networks=tuple(str(n) for n in item.get("networks") or ()),
            genre_ids=tuple(int(g) for g in item.get("genres") or ()),
        )


def _season_of(item: Mapping[str, Any]) -> Season:
    episodes = tuple(
        Episode(
            int(e["episode_number"]),
            str(e.get("name") or ""),
            str(e.get("air_date") or ""),
            dict(e.get("translations") or {}),
        )
        for e in item.get("episodes") or ()
    )
    return Season(
        int(item["season_number"]),
        int(item.get("episode_count") or len(episodes)),
        str(item.get("air_date") or ""),
        str(item.get("name") or ""),
        episodes,
        dict(item.get("translations") or {}),
    )


def _movie(id: int, title: str, date: str, popularity: float, **more: Any) -> Entry:
    more.setdefault("original_title", title)
    _translated(more)
    return Entry(kind="movie", id=id, title=title, date=date, popularity=popularity, **more)


def _show(
    id: int,
    title: str,
    date: str,
    popularity: float,
    *,
    seasons: int = 1,
    episodes_per_season: int = 8,
    **more: Any,
) -> Entry:
    more.setdefault("original_title", title)
    _translated(more)
    more["seasons"] = tuple(Season(n, episodes_per_season, date) for n in range(1, seasons + 1))
    return Entry(kind="tv", id=id, title=title, date=date, popularity=popularity, **more)


def _translated(more: dict[str, Any]) -> None:
    """``title_ru``/``overview_ru`` of the built-in catalogue as translations."""
    title_ru, overview_ru = more.pop("title_ru", None), more.pop("overview_ru", None)
    if title_ru:
        more["translations"] = {"ru": title_ru}
    if overview_ru:
        more["translated_overviews"] = {"ru": overview_ru}


CATALOGUE: tuple[Entry, ...] = (
    _movie(
        438631,
        "Dune",
        "2021-09-15",
        120.5,
        title_ru="Дюна",
        overview="Paul Atreides, a brilliant and gifted young man born into a great destiny "
        "beyond his understanding, must travel to the most dangerous planet in the universe.",
        overview_ru="Наследник знаменитого дома Атрейдесов Пол отправляется вместе с семьёй "
        "на одну из самых опасных планет во Вселенной — Арракис.",
        poster_path="/d5NXSklXo0qyIYkgV94XAgMIckC.jpg",
        backdrop_path="/jYEW5xZkZk2WTrdbMGAPFuBqbDc.jpg",
        genre_ids=(878, 12),
        vote_average=7.8,
        vote_count=13000,
        imdb_id="tt1160419",
        runtime=155,
    ),
    _movie(
        841,
        "Dune",
        "1984-12-14",
        35.2,
        title_ru="Дюна",
        overview="In the year 10,191, the most precious substance in the universe is the "
        "spice Melange.",
        overview_ru="10191 год. Самая ценная субстанция во Вселенной — пряность.",
        poster_path="/a3nDwAnKAl0jsSmsGaIXr4yyxKM.jpg",
        backdrop_path="/pCHV6BntWLO2H6wQOj4LwzAWqpa.jpg",
        genre_ids=(28, 12, 878),
        vote_average=6.2,
        vote_count=2800,
        imdb_id="tt0087182",
        runtime=137,
    ),
    _movie(
        693134,
        "Dune: Part Two",
        "2024-02-27",
        250.0,
        title_ru="Дюна: Часть вторая",
        overview="Follow the mythic journey of Paul Atreides as he unites with Chani and the "
        "Fremen while on a path of revenge.",
        poster_path="/1pdfLvkbY9ohJlCjQH2CZjjYVvJ.jpg",
        backdrop_path="/xOMo8BRK7PfcJv9JCnx7s5hj0PX.jpg",
        genre_ids=(878, 12),
        vote_average=8.1,
        vote_count=6500,
        imdb_id="tt15239678",
        runtime=167,
    ),
    _movie(
        335984,
        "Blade Runner 2049",
        "2017-10-04",
        60.3,
        title_ru="Бегущий по лезвию 2049",
        overview="Thirty years after the events of the first film, a new blade runner, LAPD "
        "Officer K, unearths a long-buried secret.",
        overview_ru="В 2049 году общество ослаблено войнами с бунтующими репликантами.",
        poster_path="/gajva2L0rPYkEWjzgFlBXCAVBE5.jpg",
        backdrop_path="/ilRyazdMJwN05exqhwK4tMKBYZs.jpg",
        genre_ids=(878, 18),
        vote_average=7.6,
        vote_count=14000,
        imdb_id="tt1856101",
        runtime=164,
    ),
    _movie(
        78,
        "Blade Runner",
        "1982-06-25",
        55.1,
        title_ru="Бегущий по лезвию",
        overview="In the smog-choked dystopian Los Angeles of 2019, blade runner Rick Deckard "
        "is called out of retirement to terminate a quartet of replicants.",
        poster_path="/63N9uy8nd9j7Eog2axPQ8lbr3Wj.jpg",
        genre_ids=(878, 18, 53),
        vote_average=7.9,
        vote_count=14500,
        imdb_id="tt0083658",
        runtime=117,
    ),
    _movie(
        530915,
        "1917",
        "2019-12-25",
        40.7,
        title_ru="1917",
        overview="At the height of the First World War, two young British soldiers must cross "
        "enemy territory and deliver a message.",
        overview_ru="Весна 1917 года. Двое британских солдат получают приказ.",
        poster_path="/iZf0KyrE25z1sage4SYFLCCrMi9.jpg",
        genre_ids=(10752, 18, 36),
        vote_average=8.0,
        vote_count=12500,
        origin_country=("GB",),
        imdb_id="tt8579674",
        runtime=119,
    ),
    _show(
        100088,
        "The Last of Us",
        "2023-01-15",
        300.2,
        title_ru="Одни из нас",
        overview="Twenty years after modern civilization has been destroyed, Joel, a hardened "
        "survivor, is hired to smuggle Ellie out of an oppressive quarantine zone.",
        overview_ru="Двадцать лет назад мир охватила пандемия грибковой инфекции.",
        poster_path="/uKvVjHNqB5VmOrdxqAt2F7J78ED.jpg",
        backdrop_path="/uDgy6hyPd82kOHh6I95FLtLnj6p.jpg",
        genre_ids=(18,),
        vote_average=8.6,
        vote_count=5600,
        seasons=2,
        episodes_per_season=9,
    ),
    _show(
        70523,
        "Dark",
        "2017-12-01",
        45.6,
        original_language="de",
        title_ru="Тьма",
        overview="A missing child causes four families to help each other for answers.",
        overview_ru="Исчезновение двух детей в маленьком немецком городке.",
        poster_path="/apbrbWs8M9lyOpJYU5WXrpFbk1Z.jpg",
        genre_ids=(80, 18, 9648, 10765),
        vote_average=8.4,
        vote_count=6900,
        origin_country=("DE",),
        seasons=3,
        episodes_per_season=10,
    ),
    _show(
        209867,
        "Frieren: Beyond Journey's End",
        "2023-09-29",
        90.4,
        original_title="葬送のフリーレン",
        original_language="ja",
        title_ru="Провожающая в последний путь Фрирен",
        overview="After the party of heroes defeated the Demon King, they restored peace to the "
        "land and returned to lives of solitude.",
        poster_path="/dqZENchTd7lp5zht7BdlqM7RBhD.jpg",
        genre_ids=(16, 10759, 10765),
        vote_average=8.8,
        vote_count=900,
        origin_country=("JP",),
        episodes_per_season=28,
    ),
    _show(
        2316,
        "The Office",
        "2005-03-24",
        200.1,
        title_ru="Офис",
        overview="The everyday lives of office employees in the Scranton, Pennsylvania branch "
        "of the fictional Dunder Mifflin Paper Company.",
        overview_ru="Будни сотрудников офиса бумажной компании «Дандер Миффлин».",
        poster_path="/7DJKHzAi83BmQrWLrYYOqcoKfhR.jpg",
        genre_ids=(35,),
        vote_average=8.6,
        vote_count=4400,
        seasons=9,
        episodes_per_season=22,
    ),
    _show(
        2996,
        "The Office",
        "2001-07-09",
        30.5,
        title_ru="Офис",
        overview="The story of an office that faces closure when the company decides to "
        "downsize its branches.",
        poster_path="/4F8Pz2jfQGiuPMxYQVqFWFpY5Kb.jpg",
        genre_ids=(35,),
        vote_average=8.1,
        vote_count=900,
        origin_country=("GB",),
        seasons=2,
        episodes_per_season=6,
    ),
)


def _token(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def make_read_token() -> str:
    """A v4 read access token as TMDB issues them: an HS256 JWT."""
    payload = {
        "aud": secrets.token_hex(16),
        "nbf": 1700000000.0,
        "sub": secrets.token_hex(12),
        "scopes": ["api_read"],
        "version": 1,
    }
    signature = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
    return f"{_token(json.dumps({'alg': 'HS256'}))}.{_token(json.dumps(payload))}.{signature}"


@lru_cache(maxsize=65536)  # a search compares the query with every name of the catalogue
def _words(text: str) -> tuple[str, ...]:
    # TMDB folds letters to plain Latin: "Muhtesem Yuzyil" finds "Muhteşem Yüzyıl".
    text = unicodedata.normalize("NFKD", text.replace("&", " and ").translate(_PLAIN))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return tuple(_NON_WORD.sub(" ", _APOSTROPHES.sub("", text)).split())


def matches(query: str, name: str) -> bool:
    """TMDB's search, as far as it matters here: every word of the query is a word of
    the name (the last one may be the start of one), or the name written without
    spaces starts with the query written without spaces."""
    asked, words = _words(query), _words(name)
    if not asked or not words:
        return False
    if "".join(words).startswith("".join(asked)):
        return True
    *whole, last = asked
    return all(word in words for word in whole) and any(w.startswith(last) for w in words)


def _season_years(entry: Entry) -> set[str]:
    return {s.air_date[:4] for s in entry.seasons if s.air_date[:4].isdigit()}


@dataclass
class FakeTmdb(HttpFake):
    prefix = "/3"

    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    read_token: str = field(default_factory=make_read_token)
    catalogue: list[Entry] = field(default_factory=lambda: list(CATALOGUE))
    # (kind, id) that search still lists but whose details are gone (404, TMDB's
    # "could not be found"): an entry deleted or merged while the index lags.
    gone: set[tuple[str, int]] = field(default_factory=set)
    missing_posters: set[str] = field(default_factory=set)  # paths the image host 404s

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> FakeTmdb:
        return cls(catalogue=list(entries))

    def fail_next(
        self, status: int, retry_after: float | str | None = None, times: int = 1
    ) -> None:
        """As :meth:`HttpFake.fail_next`; a 429 says ``Retry-After`` (``RETRY_AFTER``
        unless given), as TMDB's does."""
        if status == 429 and retry_after is None:
            retry_after = RETRY_AFTER
        super().fail_next(status, retry_after, times)

    def _routes(self, app: web.Application) -> None:
        app.router.add_get("/3/search/{kind}", self._search)
        app.router.add_get("/3/find/{external_id}", self._find)
        app.router.add_get(r"/3/tv/{id}/season/{season}", self._season)
        app.router.add_get(r"/3/{kind}/{id}/{part}", self._part)
        app.router.add_get(r"/3/{kind}/{id}", self._details)
        app.router.add_get("/t/p/{size}/{file}", self._image)
        app.router.add_route("*", "/{tail:.*}", self._unknown)

    @property
    def images_url(self) -> str:
        """What ``metadata.tmdb_images`` should be: TMDB's image host, here."""
        return f"{self._origin}/t/p"

    async def _image(self, request: web.Request) -> web.StreamResponse:
        """A poster, as image.tmdb.org serves it (any known size); one of
        ``missing_posters`` is TMDB's 404."""
        name = "/" + request.match_info["file"]
        if name in self.missing_posters or request.match_info["size"] not in _SIZES:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=_JPEG + name.encode(), content_type="image/jpeg")

    @property
    def base_url(self) -> str:
        """What ``metadata.tmdb_base`` should be: ``http://127.0.0.1:PORT/3``."""
        return f"{self._origin}/3"

    def metadata(self, language: str = "en-US") -> MetadataSettings:
        """``[metadata]`` pointing at this fake: its key, its API, its posters."""
        return MetadataSettings(
            provider="tmdb",
            tmdb_api_key=self.api_key,
            tmdb_base=self.base_url,
            tmdb_images=self.images_url,
            language=language,
        )

    def _entry(self, kind: str, raw_id: str) -> Entry | None:
        if not (raw_id.isascii() and raw_id.isdigit()):
            return None
        return next((e for e in self.catalogue if e.kind == kind and e.id == int(raw_id)), None)

    # ---- handlers -----------------------------------------------------------------------
    async def _search(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        kind = request.match_info["kind"]
        if kind not in ("movie", "tv"):
            return self._answer(call, NOT_FOUND, 404)
        params = call.params
        query = params.get("query", "")
        found = [
            entry
            for entry in self.catalogue
            if entry.kind == kind
            and any(matches(query, name) for name in entry.names())
            and self._in_year(entry, params)
        ]
        found.sort(key=lambda e: -e.popularity)
        try:
            page = max(1, int(params.get("page", "1")))
        except ValueError:
            page = 1
        language = params.get("language", "en-US")
        chunk = found[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        body = {
            "page": page,
            "results": [self._result(entry, language) for entry in chunk],
            "total_pages": max(1, -(-len(found) // PAGE_SIZE)),
            "total_results": len(found),
        }
        return self._answer(call, body)

    @staticmethod
    def _in_year(entry: Entry, params: Mapping[str, str]) -> bool:
        """``year``/``primary_release_year`` (movies), ``first_air_date_year`` (shows), and
        for shows ``year``: the first air year or the year of any season."""
        first = str(entry.year)
        if entry.kind == "movie":
            return all(
                params[k] == first for k in ("year", "primary_release_year") if params.get(k)
            )
        if params.get("first_air_date_year") and params["first_air_date_year"] != first:
            return False
        year = params.get("year")
        return not year or year == first or year in _season_years(entry)

    async def _details(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        entry = self._entry(request.match_info["kind"], request.match_info["id"])
        if entry is None or (entry.kind, entry.id) in self.gone:
            return self._answer(call, NOT_FOUND, 404)
        language = call.params.get("language", "en-US")
        body = self._detail(entry, language)
        for part in call.params.get("append_to_response", "").split(","):
            appended = self._appended(entry, part.strip())
            if appended is None and (season := _appended_season(entry, part.strip())):
                appended = _season_body(entry, season, language)  # "season/2"
            if appended is not None:
                body[part.strip()] = appended
        return self._answer(call, body)

    async def _part(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        entry = self._entry(request.match_info["kind"], request.match_info["id"])
        appended = None if entry is None else self._appended(entry, request.match_info["part"])
        if appended is None:
            return self._answer(call, NOT_FOUND, 404)
        return self._answer(call, {"id": entry.id, **appended} if entry else appended)

    async def _season(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        entry = self._entry("tv", request.match_info["id"])
        raw = request.match_info["season"]
        season = (
            next((s for s in entry.seasons if raw.isdigit() and s.number == int(raw)), None)
            if entry
            else None
        )
        if entry is None or season is None:
            return self._answer(call, NOT_FOUND, 404)
        language = call.params.get("language", "en-US")
        return self._answer(call, _season_body(entry, season, language))

    async def _find(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        source = call.params.get("external_source")
        if source not in EXTERNAL_SOURCES:
            return self._answer(call, INVALID_PARAMETERS, 422)
        wanted = request.match_info["external_id"]
        language = call.params.get("language", "en-US")
        found = [
            e
            for e in self.catalogue
            if (source == "imdb_id" and e.imdb_id and e.imdb_id == wanted)
            or (source == "tvdb_id" and e.tvdb_id is not None and str(e.tvdb_id) == wanted)
        ]
        body = {
            "movie_results": [
                {**self._result(e, language), "media_type": "movie"}
                for e in found
                if e.kind == "movie"
            ],
            "person_results": [],
            "tv_results": [
                {**self._result(e, language), "media_type": "tv"} for e in found if e.kind == "tv"
            ],
            "tv_episode_results": [],
            "tv_season_results": [],
        }
        return self._answer(call, body)

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        return self._answer(call, NOT_FOUND, 404)

    def _fault_body(self, status: int) -> Json:
        return _ERRORS.get(
            status, {"status_code": 0, "status_message": f"HTTP {status}", "success": False}
        )

    def _unauthorized(self, call: Call) -> web.Response:
        return self._answer(call, INVALID_KEY, 401)

    def _authorized(self, request: web.Request) -> bool:
        if secrets.compare_digest(request.query.get("api_key", ""), self.api_key):
            return True
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        return scheme.lower() == "bearer" and secrets.compare_digest(token.strip(), self.read_token)

    # ---- shapes -------------------------------------------------------------------------
    @staticmethod
    def _result(entry: Entry, language: str) -> Json:
        title, overview = entry.localized(language)
        common: Json = {
            "adult": False,
            "backdrop_path": entry.backdrop_path,
            "genre_ids": list(entry.genre_ids),
            "id": entry.id,
            "original_language": entry.original_language,
            "overview": overview,
            "popularity": entry.popularity,
            "poster_path": entry.poster_path,
            "vote_average": entry.vote_average,
            "vote_count": entry.vote_count,
        }
        if entry.kind == "movie":
            return {
                **common,
                "original_title": entry.original_title,
                "release_date": entry.date,
                "title": title,
                "video": False,
            }
        return {
            **common,
            "origin_country": list(entry.origin_country),
            "original_name": entry.original_title,
            "first_air_date": entry.date,
            "name": title,
        }

    @classmethod
    def _detail(cls, entry: Entry, language: str) -> Json:
        body = cls._result(entry, language)
        body.pop("genre_ids")
        body["genres"] = [{"id": g, "name": GENRES.get(g, "")} for g in entry.genre_ids]
        body["homepage"] = ""
        body["status"] = "Released" if entry.kind == "movie" else "Ended"
        body["tagline"] = ""
        body["origin_country"] = list(entry.origin_country)
        body["production_companies"] = []
        body["production_countries"] = [{"iso_3166_1": c, "name": c} for c in entry.origin_country]
        body["spoken_languages"] = []
        if entry.kind == "movie":
            body.update(
                belongs_to_collection=None,
                budget=0,
                imdb_id=entry.imdb_id,
                revenue=0,
                runtime=entry.runtime,
            )
            return body
        regular = [s for s in entry.seasons if s.number > 0]
        body.update(
            created_by=[],
            episode_run_time=[],
            in_production=False,
            languages=[entry.original_language],
            last_air_date=_last_aired(entry),
            networks=[
                {"id": 1000 + index, "logo_path": None, "name": name, "origin_country": ""}
                for index, name in enumerate(entry.networks)
            ],
            next_episode_to_air=None,
            number_of_episodes=sum(s.episode_count for s in regular),
            number_of_seasons=len(regular),
            seasons=[
                {
                    "air_date": season.air_date or None,
                    "episode_count": season.episode_count,
                    "id": entry.id * 100 + season.number,
                    "name": season.localized(language),
                    "overview": "",
                    "poster_path": None,
                    "season_number": season.number,
                    "vote_average": 0.0,
                }
                for season in entry.seasons
            ],
            status="Ended",  # in_production is false
            type=entry.type,
        )
        return body

    @staticmethod
    def _appended(entry: Entry, part: str) -> Json | None:
        """What ``append_to_response=<part>`` (or ``/<kind>/<id>/<part>``) adds."""
        if part == "alternative_titles":
            rows = [
                {"iso_3166_1": a.country, "title": a.title, "type": a.type}
                for a in entry.alternative_titles
            ]
            return {"titles": rows} if entry.kind == "movie" else {"results": rows}
        if part == "translations":
            key = "title" if entry.kind == "movie" else "name"
            return {
                "translations": [
                    {
                        "iso_3166_1": code.upper() if code != "en" else "US",
                        "iso_639_1": code,
                        "name": _LANGUAGE_NAMES.get(code, (code, code))[0],
                        "english_name": _LANGUAGE_NAMES.get(code, (code, code))[1],
                        "data": {
                            key: title,
                            "overview": entry.translated_overviews.get(code, ""),
                            "homepage": "",
                            "tagline": "",
                        },
                    }
                    for code, title in {"en": entry.title, **entry.translations}.items()
                ]
            }
        if part == "external_ids":
            if entry.kind == "movie":
                return {"imdb_id": entry.imdb_id, **dict.fromkeys(_MOVIE_IDS)}
            return {"imdb_id": entry.imdb_id, **dict.fromkeys(_TV_IDS), "tvdb_id": entry.tvdb_id}
        return None


# The other ids of TMDB's external_ids (null: the catalogue has none of them).
_MOVIE_IDS = ("wikidata_id", "facebook_id", "instagram_id", "twitter_id")
_TV_IDS = ("freebase_mid", "freebase_id", "tvrage_id", *_MOVIE_IDS)
_SIZES = frozenset({"w92", "w154", "w185", "w342", "w500", "w780", "original"})
_JPEG = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")  # a minimal JPEG


def _last_aired(entry: Entry) -> str:
    """TMDB's ``last_air_date``: the air date of the show's last listed episode."""
    days = [
        str(e["air_date"])
        for s in entry.seasons
        for e in _season_body(entry, s)["episodes"]
        if e["air_date"]
    ]
    return max(days, default=entry.date)


def _appended_season(entry: Entry, part: str) -> Season | None:
    """The season ``append_to_response=season/N`` names, when the show has it."""
    raw = part.removeprefix("season/")
    if raw == part or not raw.isdigit():
        return None
    return next((s for s in entry.seasons if s.number == int(raw)), None)


def _season_body(entry: Entry, season: Season, language: str = "en-US") -> Json:
    start = _date(season.air_date) or _date(entry.date)
    given = {episode.number: episode for episode in season.episodes}
    episodes = []
    for number in sorted({*range(1, season.episode_count + 1), *given}):
        aired = start + datetime.timedelta(days=7 * (number - 1)) if start else None
        own = given.get(number)
        if own is not None and own.air_date:
            aired = _date(own.air_date)
        episodes.append(
            {
                "air_date": aired.isoformat() if aired else None,
                "episode_number": number,
                "episode_type": "finale" if number == season.episode_count else "standard",
                "id": entry.id * 10_000 + season.number * 100 + number,
                "name": own.localized(language)
                if own is not None and own.name
                else f"Episode {number}",
                "overview": "",
                "production_code": "",
                "runtime": 45,
                "season_number": season.number,
                "show_id": entry.id,
                "still_path": None,
                "vote_average": 0.0,
                "vote_count": 0,
            }
        )
    return {
        "_id": f"{entry.id:x}{season.number:04x}",
        "air_date": season.air_date or None,
        "episodes": episodes,
        "name": season.localized(language),
        "overview": "",
        "id": entry.id * 100 + season.number,
        "poster_path": None,
        "season_number": season.number,
        "vote_average": 0.0,
    }


def _date(text: str) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(text[:10])
    except ValueError:
        return None
