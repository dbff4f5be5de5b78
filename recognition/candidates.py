"""The candidate record: one possible title of a download, and the evidence for it.

A :class:`Candidate` is built once from TMDB's answer (``worker/tmdb.py``), weighed
(``recognition.weigh`` adds its :class:`Evidence`, ``recognition.decide`` its score),
stored (``store.recognition.StoredCandidate`` wraps it) and adopted as the library's
title (``store.titles.LibraryTitle`` wraps it): one shape from search to library.
:class:`Query` is what the release says about itself, as the weighing reads it.
"""

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

Provider = Literal["tmdb", "local"]
MediaKind = Literal["movie", "series"]
TitleMatch = Literal["exact", "close", "partial", "weak"]
# "season": the year of one of the show's seasons (a tracker names a season pack
# "Dark / Сезон: 2 [2019, …]" by the season's year, not the show's). "told": a year
# before a film's release that its overview gives (a concert's: "Nirvana.Live.at.
# Reading.1992" of the film released in 2009).
YearMatch = Literal["exact", "near", "season", "told", "far", "unknown", "none"]
# "other": none of a tracker's production countries (weaker than a scene's "UK" tag,
# which makes it a "mismatch": the release cannot be that title).
CountryMatch = Literal["match", "other", "mismatch", "none"]
# A language tag ("KOREAN") against the original language: a dub is tagged too, so
# "other" never rules a title out, it only tells equal ones apart.
LanguageMatch = Literal["match", "other", "none"]
SeasonsMatch = Literal["fit", "misfit", "none"]
# A daily show's dated files against the episodes TMDB lists: "match" when it lists
# one on every date, "mismatch" when a date is outside the show's run.
AiredMatch = Literal["match", "mismatch", "none"]
# The release's format against the title's time: "in" when releases of that format
# were made while it was new or aired, "before" when it was over before they were (or a
# TV capture of a show only streamed), "none" when the name names no format.
EraMatch = Literal["in", "before", "none"]


class Season(NamedTuple):
    number: int  # 0: specials
    episodes: int
    year: int | None = None  # of its first episode
    name: str | None = None  # TMDB's, when it is more than "Season N" ("The Final Season")
    air_date: str | None = None  # of its first episode, "YYYY-MM-DD"
    # Its name in other languages than the person's: TMDB names seasons in the language
    # asked ("Coven" is "Шабаш" in ru-RU), fetched when a release names one otherwise.
    names: tuple[str, ...] = ()


class AiredEpisode(NamedTuple):
    """An episode as TMDB lists it in a season."""

    season: int
    number: int
    name: str | None
    air_date: str | None  # "YYYY-MM-DD"


@dataclass(frozen=True)
class Reading:
    """One way to read the release's title: ("Wonder Woman", 1984) and ("Wonder
    Woman 1984", None) are two readings of ``Wonder.Woman.1984.1080p``."""

    title: str
    year: int | None


@dataclass(frozen=True)
class Query:
    """What the release says about itself."""

    kind: Literal["movie", "series", "unknown"]
    readings: tuple[Reading, ...]
    country: str | None = None
    # (season, highest episode, counted across seasons) of each video; season None:
    # numbered across seasons.
    episodes: tuple[tuple[int | None, int, bool], ...] = ()
    seasons: tuple[int, ...] = ()  # seasons a pack says it holds
    identifiers: tuple[str, ...] = ()  # "imdb:tt…", "tmdb:movie/…"
    countries: tuple[str, ...] = ()  # a tracker's production countries
    language: str | None = None  # the language tag, ISO 639-1
    service: str | None = None  # the streaming service tag ("Netflix")
    dates: tuple[tuple[str, str], ...] = ()  # (path, "YYYY-MM-DD") of each dated video
    unnumbered: tuple[str, ...] = ()  # paths of videos with neither an episode nor a date
    episode_title: str | None = None  # the words after the title: an episode's name?
    special: bool = False  # the name says it is a special
    # The torrent's name names whole seasons and no episodes ("Show.S01", "Сезон 2"): a
    # pack far short of a candidate's season is not that season.
    whole_seasons: bool = False
    # "The Complete Series": the seasons it holds are all the show has.
    complete: bool = False
    since: int | None = None  # the first year releases of its format were made
    height: int | None = None  # the picture's height the name says (2160, 1080, …)
    capture: bool = False  # recorded off the air (HDTV, PDTV)
    size: int | None = None  # bytes, a film's videos together
    # (path, season, words) of videos whose name may be their episode's title ("Tabula
    # Rasa", "20 Hours in L.A."; season 0: a special's), the season None when unknown
    named: tuple[tuple[str, int | None, str], ...] = ()
    # (path, season, episode, words) of videos numbered and titled ("1x01 - The Train
    # Job"), the season None when unknown: TMDB's names may number them otherwise
    titled: tuple[tuple[str, int | None, int, str], ...] = ()
    # (path, own number) of videos that are specials numbered on their own ("OVA 02")
    specials: tuple[tuple[str, int | None], ...] = ()
    # (season, year) a folder or name gives together ("Season 71 (2023)")
    season_years: tuple[tuple[int, int], ...] = ()
    # (path, season, part, episode) of videos of a later part (cour) of a season whose
    # number may be the part's own ("Spy x Family Cour 2 - 01"), the season None when
    # the name does not say it
    parts: tuple[tuple[str, int | None, int, int], ...] = ()
    # (genre, the word that says it) of what the name says the work is ("animation" of a
    # fansub's shape, "documentary" of "DOCU"): ``recognition.parsing.genres``
    genres: tuple[tuple[str, str], ...] = ()

    def videos(self) -> int:
        """How many videos the release holds, as far as it tells: the numbered ones, and
        those unnumbered or named (in a pack with titles, "Show - 01" may be a title)."""
        return len(self.episodes) + len({*self.unnumbered, *(p for p, _, _ in self.named)})


@dataclass(frozen=True)
class Evidence:
    title: TitleMatch
    matched: str  # the candidate's name that matched best
    year: YearMatch
    country: CountryMatch = "none"
    seasons: SeasonsMatch = "none"
    misfit: str | None = None  # what it lacks: "S04", "S01E10", "E29" (absolute), "movie"
    identifier: bool = False
    ratio: float | None = None  # popularity against the best other candidate
    season: int | None = None  # the season the title's words past the show's name name
    unexplained: str | None = None  # words of the title the candidate does not explain
    season_words: str | None = None  # words of an alternative title naming no known season
    language: LanguageMatch = "none"
    service: bool = False  # the streaming service tag names one of its networks
    aired: AiredMatch = "none"
    episode_named: bool = False  # the name's episode title is TMDB's for that episode
    # A season pack that holds far fewer episodes than this candidate's season has.
    short: bool = False
    # "The Complete Series" holding every season this candidate has, and no other.
    whole_run: bool = False
    # The film's file is too large to run as short as this candidate (a 6 GB 1080p
    # file is no three-minute short).
    too_big: bool = False
    # Its time against the release's format ("before": a 720p HDTV of a show that ended
    # in 1989, of one only streamed).
    era: EraMatch = "none"
    # A TV capture of a show off the air in the capture's time: over before HD captures
    # were made, or only streamed ("Gossip.Girl.S01E05.720p.HDTV" is not HBO Max's).
    off_air: bool = False
    # Its name matches, and only the release's year (two or more off) is against it:
    # under that reading it is contradicted, or another reading took the year into
    # the title ("Utopia 2020" for the 2013 show).
    year_against: bool = False
    # The release and the original title differ by a leading article ("4400" and
    # "The 4400"): where another title is spelled as the release spells it, not this.
    other_article: bool = False
    # Its name matched only by the part before a long subtitle, as fansubs shorten a
    # Japanese show's ("Honzuki no Gekokujou" of "Honzuki no Gekokujou: Shisho ni …"):
    # a name matched whole is another title's, before this one.
    shortened: bool = False
    # (path, season, episode) of files TMDB lists: aired on their date, or by name
    listed: tuple[tuple[str, int, int], ...] = ()
    # (the release's season, TMDB's) of a season the release numbers otherwise: TVDB's
    # "S2023" that is TMDB's season 41, "Season 71 (2023)" that is TMDB's season 2023
    renumbered: tuple[tuple[int, int], ...] = ()
    # How many of the kinds of work the name says (anime, documentary, …) its TMDB
    # genres are: among titles of one name, only a tie-breaker.
    genre: int = 0

    def as_json(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value not in (None, False)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Evidence":
        known = {key: data[key] for key in cls.__dataclass_fields__ if key in data}
        for rows in ("listed", "renumbered"):
            if rows in known:
                known[rows] = tuple(tuple(row) for row in known[rows])
        return cls(**{"title": "weak", "matched": "", "year": "none", **known})


@dataclass(frozen=True)
class Candidate:
    """One possible identity of a download, from a metadata provider or the name."""

    provider: Provider
    provider_id: str | None
    kind: MediaKind
    title: str
    original_title: str | None
    year: int | None
    overview: str | None
    poster_path: str | None
    popularity: float
    names: tuple[str, ...] = ()  # alternative titles and translations
    # The translations alone: the title's own name in other languages, where an
    # alternative title may name a part of it ("Kimetsu no Yaiba: Yuukaku-hen").
    translations: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()  # origin (shows) or production countries (movies)
    seasons: tuple[Season, ...] | None = None  # None: unknown
    imdb_id: str | None = None
    tvdb_id: int | None = None  # a show's TheTVDB id (TMDB's external_ids)
    language: str | None = None  # the original language, ISO 639-1
    networks: tuple[str, ...] = ()  # a show's networks ("Netflix", "BBC One")
    aired: tuple[AiredEpisode, ...] = ()  # episodes of seasons fetched (dates, specials)
    ended: str | None = None  # a show that ended: the day of its last episode
    runtime: int | None = None  # a film's, minutes
    genres: tuple[int, ...] = ()  # TMDB's genre ids (Animation 16, Documentary 99, …)
    score: float = 0.0  # the confidence, once weighed
    evidence: Evidence | None = None

    @property
    def ref(self) -> str:
        """``movie/438631`` or ``tv/1399``: the candidate as TMDB addresses it."""
        return f"{'tv' if self.kind == 'series' else 'movie'}/{self.provider_id}"

    def all_names(self) -> list[str]:
        return [n for n in (self.title, self.original_title, *self.names) if n]

    def as_json(self) -> dict[str, Any]:
        """The whole record, as the store keeps it (``json.dumps`` makes the tuples lists)."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["evidence"] = None if self.evidence is None else self.evidence.as_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Candidate":
        """A stored record; fields it does not know are left out (a newer jellybit's),
        fields it lacks take their defaults (an older one's)."""
        known: dict[str, Any] = {
            name: tuple(value) if isinstance(value, list) else value
            for name, value in data.items()
            if name in cls.__dataclass_fields__
        }
        if known.get("seasons") is not None:
            known["seasons"] = tuple(
                Season(*row[:5])._replace(names=tuple(row[5]) if len(row) > 5 else ())
                for row in known["seasons"]
            )
        known["aired"] = tuple(AiredEpisode(*row) for row in known.get("aired", ()))
        if known.get("evidence") is not None:
            known["evidence"] = Evidence.from_json(known["evidence"])
        return cls(**known)
