"""A fake TMDB API (v3) for tests: search and details over a small built-in catalogue.

jellybit's :class:`worker.tmdb.TmdbClient` is pointed at it by ``metadata.tmdb_base =
fake.base_url`` (which ends in ``/3``, as the real one does). Answers have TMDB's own shapes
and field names (``page``/``results``/``total_pages``/``total_results``; movie results with
``title``/``original_title``/``release_date``, TV results with ``name``/``original_name``/
``first_air_date``/``origin_country``…), and its errors are TMDB's JSON
(``{"status_code": N, "status_message": …, "success": false}``).

- **Auth** as TMDB: a v3 key in the ``api_key`` parameter (``fake.api_key``, 32 hex digits)
  or a v4 read access token as ``Authorization: Bearer …`` (``fake.read_token``, a JWT).
  Anything else is a 401 with status_code 7.
- **Search** (``/search/movie``: ``query``, ``year``/``primary_release_year``;
  ``/search/tv``: ``query``, ``first_air_date_year``/``year``): case-insensitive substring
  of the query, punctuation ignored, in any known title of an entry (English, original,
  Russian) — TMDB searches translations too. Results are ordered by popularity, 20 a page.
- **Language**: ``language=ru-RU`` (or ``ru``) answers Russian titles and overviews where the
  catalogue has them, English otherwise (TMDB's fallback).
- **Faults**: ``fail_next(status, retry_after=None, times=1)`` answers the next request(s)
  with TMDB's error for that status (and a ``Retry-After`` header when given);
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
import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from tests.support.http_fake import Call as Call
from tests.support.http_fake import HttpFake

Json = dict[str, Any]
TmdbKind = Literal["movie", "tv"]

PAGE_SIZE = 20
_NON_WORD = re.compile(r"[\W_]+")

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
_ERRORS: dict[int, Json] = {
    401: INVALID_KEY,
    404: NOT_FOUND,
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
GENRES = {
    12: "Adventure",
    16: "Animation",
    18: "Drama",
    28: "Action",
    35: "Comedy",
    36: "History",
    53: "Thriller",
    80: "Crime",
    878: "Science Fiction",
    9648: "Mystery",
    10752: "War",
    10759: "Action & Adventure",
    10765: "Sci-Fi & Fantasy",
}


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
    title_ru: str | None = None
    overview_ru: str | None = None
    poster_path: str | None = None
    backdrop_path: str | None = None
    genre_ids: tuple[int, ...] = ()
    vote_average: float = 7.0
    vote_count: int = 1000
    origin_country: tuple[str, ...] = ("US",)
    imdb_id: str | None = None
    runtime: int | None = None  # movies, minutes
    seasons: int = 1  # shows
    episodes_per_season: int = 8

    @property
    def year(self) -> int | None:
        return int(self.date[:4]) if self.date[:4].isdigit() else None

    def titles(self) -> list[str]:
        return [t for t in (self.title, self.original_title, self.title_ru) if t]

    def localized(self, language: str) -> tuple[str, str]:
        """(title, overview) in ``language``; English where there is no translation."""
        if language.lower().split("-")[0] == "ru":
            return self.title_ru or self.title, self.overview_ru or self.overview
        return self.title, self.overview


def _movie(id: int, title: str, date: str, popularity: float, **more: Any) -> Entry:
    more.setdefault("original_title", title)
    return Entry(kind="movie", id=id, title=title, date=date, popularity=popularity, **more)


def _show(id: int, title: str, date: str, popularity: float, **more: Any) -> Entry:
    more.setdefault("original_title", title)
    return Entry(kind="tv", id=id, title=title, date=date, popularity=popularity, **more)


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


def _words(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", text.casefold()).split())


@dataclass
class FakeTmdb(HttpFake):
    prefix = "/3"

    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    read_token: str = field(default_factory=make_read_token)
    catalogue: list[Entry] = field(default_factory=lambda: list(CATALOGUE))

    def _routes(self, app: web.Application) -> None:
        app.router.add_get("/3/search/{kind}", self._search)
        app.router.add_get(r"/3/{kind}/{id}", self._details)
        app.router.add_route("*", "/{tail:.*}", self._unknown)

    @property
    def base_url(self) -> str:
        """What ``metadata.tmdb_base`` should be: ``http://127.0.0.1:PORT/3``."""
        return f"{self._origin}/3"

    # ---- handlers -----------------------------------------------------------------------
    async def _search(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        kind = request.match_info["kind"]
        if kind not in ("movie", "tv"):
            return self._answer(call, NOT_FOUND, 404)
        params = call.params
        query = _words(params.get("query", ""))
        year_keys = (
            ("year", "primary_release_year")
            if kind == "movie"
            else (
                "first_air_date_year",
                "year",
            )
        )
        years = {params[k] for k in year_keys if params.get(k)}
        found = [
            entry
            for entry in self.catalogue
            if entry.kind == kind
            and query
            and any(query in _words(title) for title in entry.titles())
            and all(str(entry.year) == year for year in years)
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

    async def _details(self, request: web.Request) -> web.StreamResponse:
        call, early = await self._begin(request)
        if early is not None:
            return early
        kind, raw_id = request.match_info["kind"], request.match_info["id"]
        entry = next(
            (
                e
                for e in self.catalogue
                if e.kind == kind and raw_id.isdigit() and e.id == int(raw_id)
            ),
            None,
        )
        if entry is None:
            return self._answer(call, NOT_FOUND, 404)
        return self._answer(call, self._detail(entry, call.params.get("language", "en-US")))

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
        if entry.kind == "movie":
            body.update(
                belongs_to_collection=None,
                budget=0,
                imdb_id=entry.imdb_id,
                revenue=0,
                runtime=entry.runtime,
                spoken_languages=[],
            )
            return body
        body.update(
            episode_run_time=[],
            in_production=False,
            languages=[entry.original_language],
            last_air_date=entry.date,
            number_of_episodes=entry.seasons * entry.episodes_per_season,
            number_of_seasons=entry.seasons,
            seasons=[
                {
                    "air_date": entry.date,
                    "episode_count": entry.episodes_per_season,
                    "id": entry.id * 100 + n,
                    "name": f"Season {n}",
                    "overview": "",
                    "poster_path": None,
                    "season_number": n,
                    "vote_average": 0.0,
                }
                for n in range(1, entry.seasons + 1)
            ],
            type="Scripted",
        )
        return body
