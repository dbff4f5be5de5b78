"""Recognition of one download: what it is and what each of its files is for.

``recognize`` puts the readers of ``recognition.parsing`` together with the hints and
overrides of a download. The torrent name is the base; each video's own path gives
its season and episodes (a file's numbers win over the torrent's); subtitles go with
a video of the same stem (or the only video, or the one with the same part or
episode).

Precedence per field, weakest first: torrent name, file path, hints (in order, the
latest that says something about a field wins), overrides (``kind``, ``title``,
``year``, ``season``, ``episode_offset``; a bad value raises ``InvalidInputError``).
``episode_offset`` is added to every episode number. The metadata's kind (a
miniseries whose files are "Part 1…N") is weaker than a person's. The magnet's ``dn``,
when it names the same title, fills in what the torrent's name lacks (the year, the
season, a country tag). Everything here is pure. A guessit call is CPU-bound (tens
of milliseconds), so callers run ``recognize`` off the event loop (jellybit uses a
worker process); most files of a season are read without guessit (``parse_file``).
"""

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from core.errors import InvalidInputError
from recognition.folding import fold, title_key
from recognition.overrides import Overrides, read_overrides
from recognition.parsing.episodes import (
    counts_on,
    disc_track,
    episode_name,
    number_name,
    numbered_title,
    numbered_within,
    special_of,
)
from recognition.parsing.files import (
    FileRole,
    Role,
    TorrentFile,
    classify_files,
    folders,
    stem,
    without_films,
)
from recognition.parsing.formats import Format, release_format
from recognition.parsing.genres import Genre, said_genres
from recognition.parsing.guess import MediaKind
from recognition.parsing.hints import Hint, parse_hint
from recognition.parsing.identifiers import find_identifiers
from recognition.parsing.release import (
    Kind,
    Parsed,
    folder_season,
    identityless,
    numbered_episode,
    parse_file,
    parse_release,
    title_part,
    without_part,
)
from recognition.parsing.subtitles import subtitle_language

__all__ = ["FileRole", "Kind", "MediaKind", "Parsed", "Role", "TorrentFile"]

_PART = re.compile(r"(?i)(?:^|[\s._\-\[(])(?:cd|dis[ck]|part|pt)[\s._\-]?(\d{1,2})(?![\d])")


@dataclass(frozen=True)
class RecognizedFile:
    path: str
    role: Role
    season: int | None
    episodes: tuple[int, ...]
    language: str | None  # ISO 639-1, subtitles only
    # subtitles: "forced", "sdh", "default"; videos: "two_dates" — its date could be
    # read two ways ("05.06.2024"), asked; "added" — a title a box's name
    # adds after "+" ("Firefly (2002) + Serenity (2005)"): a special of the show when
    # TMDB lists it by that name, else a film of its own, skipped; "part" — a later
    # part (cour) of a season, numbered maybe on its own ("… Part 2 - 01").
    flags: tuple[str, ...]
    video: str | None = None  # the video a subtitle belongs to
    reason: str = ""
    date: datetime.date | None = None
    absolute: bool = False  # "S3 - 59": the number may count on from season 1
    # Not stored (what they place is, as the chosen candidate's ``listed``): the words
    # of a series video's name that may be its episode's title ("Tabula Rasa", "20
    # Hours in L.A."), and a special numbered on its own ("OVA 02": 2).
    name: str | None = None
    special: bool = False
    special_number: int | None = None
    # The title a name that numbers its episode gives it ("1x01 - The Train Job"): TMDB's
    # names tell whether the pack numbers as TMDB does (a DVD's order, a broadcaster's).
    titled: str | None = None
    part: int = 1  # the part (cour) of a season it is of: 2 of "… Cour 2 - 01" (flag "part")


@dataclass(frozen=True)
class Recognized:
    kind: Kind
    title: str | None
    year: int | None
    season: int | None
    files: tuple[RecognizedFile, ...]
    alt_title: str | None = None
    country: str | None = None  # "US" of "The.Office.US"
    countries: tuple[str, ...] = ()  # a Russian tracker's production countries
    language: str | None = None  # the language tag ("KOREAN": "ko")
    service: str | None = None  # the streaming service tag ("NF": "Netflix")
    title_with_year: str | None = None  # "Wonder Woman 1984": another reading of the title
    identifiers: tuple[str, ...] = ()  # "imdb:tt…", "tmdb:movie/…" from the name, texts, hints
    numbered_parts: bool = False  # "Part 1…10": a miniseries, or a movie in parts
    # Other names of the release, weaker than the title: the torrent's own title when
    # the person's hint replaced it, the magnet's dn when it names something else.
    fallback_titles: tuple[tuple[str, int | None], ...] = ()
    unread_hint: str | None = None  # a hint that describes rather than names the title
    episode_title: str | None = None  # of a single video: the name's words after the title
    special: bool = False  # the name says it is a special ("Christmas Special", "OVA")
    whole_seasons: bool = False  # the torrent's name names seasons and no episodes
    complete: bool = False  # "The Complete Series": every season of the show
    form: Format = field(default_factory=Format)  # what the name says of its format
    size: int | None = None  # bytes, a film's videos together
    # (genre, word) of what the names say the work is: anime, a documentary, …
    genres: tuple[tuple[Genre, str], ...] = ()


_NO_OVERRIDES: Mapping[str, str] = MappingProxyType({})


def recognize(
    torrent_name: str,
    files: Sequence[TorrentFile],
    hints: Sequence[str] = (),
    overrides: Mapping[str, str] = _NO_OVERRIDES,
    *,
    texts: Sequence[str] = (),
    kind: MediaKind | None = None,
    dn: str | None = None,
) -> Recognized:
    """What the release is and what each file is for (the precedence of what says
    so is in the module's docstring). ``texts``: small text files of the torrent
    (``.nfo``), read for ids only; ``kind``: what the metadata settled on; ``dn``:
    the magnet's name."""
    fixed = read_overrides(overrides)
    hint = _merge_hints(parse_hint(text) for text in hints)
    roles = classify_files(files)
    base = _with_season_title(
        _with_dn(parse_release(_named(torrent_name, files, _videos(roles))), dn), _videos(roles)
    )
    found_kind = _kind_of(base, roles, fixed.kind or hint.kind or kind)
    if found_kind == "series":
        roles = without_films(roles)
    videos = _videos(roles)
    as_kind = found_kind if found_kind != "unknown" else None
    parses = {path: parse_file(path, kind=as_kind) for path in videos}
    if found_kind == "series":
        base = _number_of_the_name(base, list(parses.values()), torrent_name)
    if found_kind == "series" and _part_in_files(base.title, parses.values()):
        base = replace(base, title=without_part(base.title or "") or base.title)
    names = _names(base, parses[videos[0]] if videos else None, hint, fixed, found_kind)
    read = _Read(found_kind, base, hint, fixed, parses, single=len(videos) == 1)
    service = _tagged(base.service, (p.service for p in parses.values()))
    return Recognized(
        found_kind,
        names.title,
        names.year,
        names.season if names.season is not None else read.season_agreed(),
        _files(roles, read, torrent_name),
        names.alt_title,
        country=hint.country or (None if names.from_hint else base.country),
        countries=() if names.from_hint else base.countries,
        language=_tagged(base.language, (p.language for p in parses.values())),
        service=service,
        title_with_year=names.title_with_year,
        identifiers=_identifiers(torrent_name, dn, hint, texts, found_kind),
        numbered_parts=found_kind == "movie" and _numbered_parts(videos),
        fallback_titles=_fallback_titles(base, names, fixed, dn, videos),
        unread_hint=hint.unread,
        episode_title=base.episode_title if read.single else None,
        special=base.special,
        whole_seasons=not base.episodes
        and (base.season is not None or bool(base.seasons) or _complete(torrent_name)),
        complete=found_kind == "series" and _complete(torrent_name),
        form=release_format(" ".join([torrent_name, *videos[:1]])),
        size=sum(f.size for f in files if f.path in videos) if found_kind == "movie" else None,
        genres=said_genres([torrent_name, *videos[:1]], service),
    )


# "The Complete Series", "Serie Completa", "L'Intégrale": every season of a show.
_COMPLETE = re.compile(
    r"(?i)(?<![^\W_])(?:complete[\s._-]+(?:series|collection)|full[\s._-]+series"
    r"|s[eé]rie[\s._-]+complet[ae]|int[eé]grale|komplette[\s._-]+serie"
    r"|полный[\s._-]+сериал)(?![^\W_])"
)


def _complete(name: str) -> bool:
    return _COMPLETE.search(name) is not None


def _part_in_files(title: str | None, parses: Iterable[Parsed]) -> bool:
    """ "La Casa de Papel - Parte 3" of files "S03E01…" (or "Parte 2" of "S01E07…"):
    a part of a show whose files say where they go, so the part is no word of the
    title. Files that number the part from "S01E01" do not say it: the part's name
    must (TMDB's season "Part 3")."""
    number = title_part(title) if title else None
    parsed = list(parses)
    if number is None or not parsed or any(p.season is None or not p.episodes for p in parsed):
        return False
    return all(p.season == number for p in parsed) or min(min(p.episodes) for p in parsed) > 1


def _number_of_the_name(base: Parsed, parses: Sequence[Parsed], torrent_name: str) -> Parsed:
    """ "[Group] Title 2 [WEB 1080p]/… Title 2 01 …", "Mob Psycho 100 [BD]/… 100 01 …": a
    number the folder and every video share is the name's (a season, or the title's own:
    TMDB's name tells), not an episode of the folder; the number that changes from file
    to file is the episode. Videos that leave it out ("[Group] Yuru Camp 3 [BD]/… Yuru
    Camp - 01 …") leave it the name's when it is glued to the folder's title."""
    if base.season is not None or len(base.episodes) != 1 or len(parses) < 2:
        return base
    titles = {p.title for p in parses}
    shared = titles.pop() if len(titles) == 1 else None
    named = title_key(f"{base.title or ''} {base.episodes[0]}")
    if (
        shared is None
        or not all(p.episodes for p in parses)
        or len({p.episodes for p in parses}) < 2
    ):
        return base
    if f"{title_key(shared)} ".find(f"{named} ") == 0:
        return replace(base, title=shared, episodes=(), absolute=False)
    # "[Group] Yuru Camp 3 [BD]/[Group] Yuru Camp - 01 …": a fansub's videos number their
    # episodes without it; a later season's number glued to the folder's title is the name's.
    if (
        title_key(shared) == title_key(base.title or "")
        and base.episodes[0] > 1
        and torrent_name.startswith("[")
        and _glued(torrent_name, base.episodes[0])
    ):
        return replace(base, title=f"{base.title} {base.episodes[0]}", episodes=(), absolute=False)
    return base


def _glued(name: str, number: int) -> bool:
    """A number right after a word of the name ("Yuru Camp 3 [BD]"), not after a dash
    that makes it an episode ("Show - 05")."""
    return re.search(rf"(?<=[^\W_])\s+0*{number}(?![\w.])", name) is not None


def _videos(roles: Iterable[FileRole]) -> list[str]:
    return [role.path for role in roles if role.role == "video"]


def _with_season_title(base: Parsed, videos: Sequence[str]) -> Parsed:
    """ "Open.Season.2006", "Open.Season.2.2008": one video numbering no episode of its
    own is the film the whole name titles, not a season of "Open"; files that do number
    episodes keep the season, with the whole name as a second reading of the show's
    ("The.Long.Season.2023" of "…E05" files)."""
    if base.season_title is None:
        return base
    own = [parse_file(path) for path in videos]
    if len(own) == 1 and not (own[0].episodes or own[0].date):
        return replace(
            base,
            kind="movie",
            title=base.season_title,
            season=None,
            seasons=(),
            title_with_year=None,
        )
    return replace(base, title_with_year=base.title_with_year or base.season_title)


def _kind_of(base: Parsed, roles: Sequence[FileRole], given: MediaKind | None) -> Kind:
    """What the person, a hint or the metadata said; else the name's kind, unless the
    files know better ("Some Show/Some.Show.S01E01.mkv")."""
    if given:
        return given
    if base.kind == "series":
        return "series"
    episodic = {r.path for r in without_films(roles) if r.role == "video"}
    own = [parse_file(path) for path in _videos(roles) if path in episodic]
    numbered = [p for p in own if p.kind == "series" and (p.episodes or p.date or p.special)]
    explicit = any(p.season is not None and p.episodes for p in own)
    # "Show/Series 1/A Touch of Class.avi": every video in a season's folder
    # ("Open.Season.2.2008/…": the folder's season word is the film's title's)
    foldered = base.season_title is None and all(
        folder_season("/".join(folders(path))) for path in episodic
    )
    # "[Commie] Steins;Gate - 01" … "- 24" beside "[Commie] Steins;Gate - Egoistic
    # Poriomania": most videos numbered episodes of the torrent's own title
    key = title_key(base.title or "")
    boxed = sum(1 for p in numbered if key and title_key(p.title or "") == key)
    if own and (
        len(numbered) == len(own)
        or (explicit and len(own) > 1)
        or foldered
        or (boxed >= 2 and 2 * boxed > len(own))
    ):
        # every file an episode (films of a box aside), or a box: one "S01E01"
        # or most of its videos numbered among its specials
        return "series"
    if base.kind == "movie" or own:
        return "movie"
    return "unknown"


@dataclass(frozen=True)
class _Names:
    """The release's title and year, by precedence: overrides, hints, the name, the
    first video's own name."""

    title: str | None
    alt_title: str | None
    year: int | None
    season: int | None
    title_with_year: str | None
    from_hint: bool  # the person named the title (a hint or an override)


def _names(base: Parsed, first: Parsed | None, hint: Hint, fixed: Overrides, kind: Kind) -> _Names:
    from_hint = hint.title is not None or fixed.title is not None
    if fixed.title is not None:
        title_with_year = None
    elif hint.title is not None:
        title_with_year = hint.title_with_year
    else:
        title_with_year = base.title_with_year
    return _Names(
        title=fixed.title or hint.title or base.title or (first.title if first else None),
        alt_title=None if from_hint else base.alt_title,
        year=_first_set(fixed.year, hint.year, base.year, first.year if first else None),
        season=_first_set(fixed.season, hint.season, base.season) if kind == "series" else None,
        title_with_year=title_with_year,
        from_hint=from_hint,
    )


@dataclass(frozen=True)
class _Read:
    """What the videos of a release were read as, for numbering each file."""

    kind: Kind
    base: Parsed
    hint: Hint
    fixed: Overrides
    parses: Mapping[str, Parsed]
    single: bool

    def season_agreed(self) -> int | None:
        """ "Some Show/Some.Show.S01E01.mkv …": the season every file agrees on."""
        if self.kind != "series":
            return None
        seasons = {numbers[0] for numbers in self.natural.values() if numbers is not None}
        return seasons.pop() if len(seasons) == 1 else None

    @property
    def natural(self) -> dict[str, tuple[int | None, tuple[int, ...]] | None]:
        """A file's own numbers, with the torrent's where the file says nothing: what
        subtitles are matched on, before hints and overrides renumber anything."""
        return {
            path: _natural_numbers(parsed, self.base, single=self.single)
            if self.kind == "series"
            else None
            for path, parsed in self.parses.items()
        }


def _files(roles: Sequence[FileRole], read: _Read, torrent_name: str) -> tuple[RecognizedFile, ...]:
    """Each file's role and numbers: videos by their own names, subtitles with their
    video, the rest skipped."""
    natural = read.natural
    added = _added_titles(torrent_name) if read.kind == "series" and not read.single else ()
    videos = {
        path: _named_other_ways(
            replace(
                _video_file(path, natural[path], parsed.date or read.base.date, read),
                absolute=parsed.absolute
                or (not parsed.episodes and read.base.absolute)
                or (bool(parsed.episodes) and counts_on(path)),
                flags=("added",) * _names_added(path, parsed, added)
                + ("part",) * ((parsed.part or read.base.part or 1) > 1)
                + ("two_dates",) * _date_in_doubt(parsed, read.base),
                part=parsed.part or read.base.part or 1,
            ),
            parsed,
            read,
        )
        for path, parsed in read.parses.items()
    }
    videos = _titled_pack(_disc_tracks(videos, read), (read.base.title, read.base.alt_title))
    result = []
    for role in roles:
        if role.role == "video":
            result.append(videos[role.path])
        elif role.role == "subtitle":
            result.append(_subtitle_file(role.path, natural, videos))
        else:
            result.append(RecognizedFile(role.path, "skip", None, (), None, (), reason=role.reason))
    return tuple(result)


def _titled_pack(
    videos: Mapping[str, RecognizedFile], titles: tuple[str | None, ...]
) -> dict[str, RecognizedFile]:
    """A pack named by episode titles ("Tabula Rasa.avi" has no number): a number that
    is a word of another's title ("Exodus Part 1", "Two Cars in Every Garage") is no
    episode number; TMDB's names place it, or it is asked. A name that is a number
    alone ("42.avi") may be a title too."""
    titled = any(
        f.name and not f.episodes and f.date is None and not f.special for f in videos.values()
    )
    if titled:
        videos = {
            path: replace(f, name=number)
            if f.episodes and not f.name and (number := number_name(path, titles))
            else f
            for path, f in videos.items()
        }
    return {
        path: replace(f, episodes=(), absolute=False)
        if titled and f.name and f.episodes and numbered_within(f.name)
        # "15 Million Merits": a number before words may be the title's own; it stays
        # unless TMDB's names place the file, and says nothing of the show's seasons.
        else replace(f, flags=(*f.flags, "loose"))
        if titled and f.name and f.episodes
        else f
        for path, f in videos.items()
    }


def _disc_tracks(videos: Mapping[str, RecognizedFile], read: _Read) -> dict[str, RecognizedFile]:
    """A box by discs whose numbers start again on each disc ("Disc 1/01 …", "Disc
    2/01 …"): the numbers are the discs' tracks, no episodes; the titles after them
    place the files (TMDB's names), or they are asked."""
    titles = (read.base.title, read.base.alt_title)
    tracks = {
        path: track
        for path, f in videos.items()
        if f.episodes and (track := disc_track(path, titles)) is not None
    }
    discs: dict[tuple[int, ...], set[int]] = {}
    for path, (disc, _) in tracks.items():
        discs.setdefault(videos[path].episodes, set()).add(disc)
    if not any(len(on) > 1 for on in discs.values()):
        return dict(videos)
    return {
        path: replace(f, episodes=(), absolute=False, name=tracks[path][1]) if path in tracks else f
        for path, f in videos.items()
    }


def _named_other_ways(file: RecognizedFile, parsed: Parsed, read: _Read) -> RecognizedFile:
    """A series video named other ways than by its number: a special numbered on its
    own ("OVA 02", "Specials/Show - 01") is no episode of a season; the words of its
    name that may be its episode's title (TMDB's names tell, ``recognition.weigh``),
    unless a person numbered it."""
    if read.kind != "series" or file.date is not None:
        return file
    special, number = special_of(file.path, file.episodes)
    if special or parsed.special:
        file = replace(
            file, season=None, episodes=(), absolute=False, special=True, special_number=number
        )
    if read.hint.episode is not None or read.fixed.episode_offset:
        return file
    # Not the file's own title: guessit reads a name of words as one ("Special.avi").
    titles = (read.base.title, read.base.alt_title)
    titled = numbered_title(file.path, titles) if file.episodes else None
    return replace(file, name=episode_name(file.path, titles), titled=titled)


def _subtitle_file(
    path: str,
    natural: Mapping[str, tuple[int | None, tuple[int, ...]] | None],
    videos: Mapping[str, RecognizedFile],
) -> RecognizedFile:
    language, flags = subtitle_language(path)
    video = _video_of_subtitle(path, natural)
    if video is None:
        return RecognizedFile(
            path, "skip", None, (), language, flags, None, "subtitle matches no video"
        )
    owner = videos[video]
    return RecognizedFile(
        path,
        "subtitle",
        owner.season,
        owner.episodes,
        language,
        flags,
        video=video,
        reason="subtitle",
        date=owner.date,
    )


def _identifiers(
    torrent_name: str, dn: str | None, hint: Hint, texts: Sequence[str], kind: Kind
) -> tuple[str, ...]:
    """Ids in the name, the ``dn``, the hints and the texts; a TMDB id that does not say
    its kind ("[tmdbid-60622]") is of the release's kind. A TVDB id is a show's only in
    a series' release: TheTVDB numbers its films apart ("Film (2016) [tvdbid-1193]")."""
    tmdb_kind: Literal["movie", "tv"] = "tv" if kind == "series" else "movie"
    found = [
        *find_identifiers(torrent_name, tmdb_kind),
        *find_identifiers(dn or "", tmdb_kind),
        *hint.identifiers,
    ]
    for text in texts:
        found.extend(find_identifiers(text, tmdb_kind))
    if kind != "series":
        found = [ident for ident in found if not ident.startswith("tvdb:")]
    return tuple(dict.fromkeys(found))


def _fallback_titles(
    base: Parsed, names: _Names, fixed: Overrides, dn: str | None, videos: Sequence[str] = ()
) -> tuple[tuple[str, int | None], ...]:
    fallback = []
    if (folder := _folder_title(base.title, videos)) is not None:
        fallback.append((folder, names.year))
    if base.kind == "movie" and _other_scripts(base.title, base.episode_title):
        # "流浪地球.Liu.Lang.Di.Qiu.2019": guessit's other title, in its own script
        fallback.append((base.episode_title or "", names.year))
    if names.from_hint and fixed.title is None and base.title is not None:
        fallback.append((base.title, names.year))  # a hint may describe rather than name it
    if dn and (named := parse_release(dn)).title is not None and named.title != base.title:
        fallback.append((named.title, named.year))  # "sparks-hohw-1080p" and its dn
    return tuple(fallback)


_NOT_LATIN = re.compile(r"[^\W\d_a-zA-Z\u00c0-\u024f]")  # a letter of another script


def _other_scripts(title: str | None, other: str | None) -> bool:
    """One name in Latin letters, the other in another script's only."""
    if not title or not other:
        return False
    latin, own = sorted((title, other), key=lambda name: bool(_NOT_LATIN.search(name)))
    return not _NOT_LATIN.search(latin) and not re.search(r"[A-Za-z]", own) and own != latin


def _folder_title(title: str | None, videos: Sequence[str]) -> str | None:
    """ "Ne.rodis.krasivoy.2005/Не родись красивой/…": a folder inside the torrent that
    names the release in its own script, where the torrent's name is Latin (a name
    transliterated loses what a search needs: "rodis" is not "родись")."""
    if not title or _NOT_LATIN.search(title) or not videos:
        return None
    for folder in folders(videos[0])[1:]:
        named = parse_release(folder).title
        if named and _NOT_LATIN.search(named):
            return named
    return None


def _tagged(own: str | None, files: Iterable[str | None]) -> str | None:
    """The torrent's tag, or the one its files agree on."""
    if own is not None:
        return own
    found = set(files)
    return found.pop() if len(found) == 1 else None


def _named(torrent_name: str, files: Sequence[TorrentFile], videos: Sequence[str]) -> str:
    """The name the release is read from: the torrent's, unless it names nothing (a
    tracker's topic id, a hash, a site); then the largest video's first folder that
    names something ("5493016/Dark.S01E01…": the file itself)."""
    if not identityless(torrent_name) or not videos:
        return torrent_name
    sizes = {f.path: f.size for f in files}
    largest = max(videos, key=lambda path: sizes.get(path, 0))
    *parents, own = largest.split("/")
    for part in parents:
        if not identityless(part) and parse_release(part).title is not None:
            return part
    if len({fold(parse_file(v).title or "") for v in videos[:50]}) > 1:
        return torrent_name  # "Фильмы/Dune…, Фильмы/Arrival…": no one title
    return stem(own)


def _with_dn(base: Parsed, dn: str | None) -> Parsed:
    if not dn or base.title is None:
        return base
    other = parse_release(dn)
    if other.title is None or fold(other.title) != fold(base.title):
        return base
    return replace(
        base,
        year=_first_set(base.year, other.year),
        season=_first_set(base.season, other.season) if base.kind == "series" else None,
        country=base.country or other.country,
    )


def _natural_numbers(
    parsed: Parsed, base: Parsed, *, single: bool
) -> tuple[int | None, tuple[int, ...]]:
    season = _first_set(parsed.season, base.season)
    # A dated file is numbered by its date, never by numbers of the torrent's name.
    episodes = parsed.episodes or (base.episodes if single and parsed.date is None else ())
    return season, episodes


_PLUS = re.compile(r"\s\+\s|\.\+\.|\s\+(?=\S)|(?<=\S)\+\s")


def _added_titles(torrent_name: str) -> tuple[str, ...]:
    """The title keys a box's name adds after "+": "Breaking Bad S01-S05 + El Camino
    (1080p …)" adds "el camino"."""
    added = []
    # A "+" inside brackets lists what the torrent holds ("(Semi-Finals + Final)",
    # "(Extras + Specials)"): only one outside them adds a title.
    outside = re.sub(r"\([^()]*\)|\[[^\[\]]*\]", lambda m: "_" * len(m.group(0)), torrent_name)
    pluses = list(_PLUS.finditer(outside))
    ends = [m.start() for m in pluses[1:]] + [len(torrent_name)] * bool(pluses)
    for part in (torrent_name[m.end() : end] for m, end in zip(pluses, ends, strict=True)):
        title = parse_release(part).title
        if title and (key := title_key(title)):
            added.append(key)
    return tuple(added)


def _names_added(path: str, parsed: Parsed, added: Sequence[str]) -> bool:
    """An unnumbered video whose file name holds a title the box's name adds."""
    if not added or parsed.episodes or parsed.date is not None:
        return False
    words = f" {title_key(stem(path))} "
    return any(f" {key} " in words for key in added)


def _date_in_doubt(parsed: Parsed, base: Parsed) -> bool:
    """The date that numbers an unnumbered video could be read two ways ("05.06.2024")."""
    dated = parsed if parsed.date is not None else base
    return not parsed.episodes and dated.date is not None and dated.date_doubt


def _video_file(
    path: str,
    numbers: tuple[int | None, tuple[int, ...]] | None,
    aired: datetime.date | None,
    read: "_Read",
) -> RecognizedFile:
    if numbers is None:  # not a series
        return RecognizedFile(path, "video", None, (), None, (), reason="video")
    season, episodes = numbers
    season = _first_set(read.fixed.season, read.hint.season, season)
    if read.hint.episode is not None and read.single:
        episodes = (read.hint.episode,)
    if offset := read.fixed.episode_offset:
        episodes = tuple(episode + offset for episode in episodes)
        if any(episode < 0 for episode in episodes):
            raise InvalidInputError(f"episode_offset {offset} makes an episode of {path} negative")
    return RecognizedFile(path, "video", season, episodes, None, (), reason="video", date=aired)


def _video_of_subtitle(
    path: str, videos: Mapping[str, tuple[int | None, tuple[int, ...]] | None]
) -> str | None:
    """Same stem ("Movie.en.srt" beside "Movie.mkv", "Subs/Movie/2_English.srt"),
    else the only video, else the one video with the subtitle's part ("CD2") or
    episode numbers."""
    if not videos:
        return None
    own = fold(stem(path))
    around = {fold(folder) for folder in folders(path)}
    best: tuple[int, str] | None = None
    for video in videos:
        video_stem = fold(stem(video))
        same_stem = own == video_stem or own.startswith(video_stem + " ")
        if (same_stem or video_stem in around) and (best is None or len(video_stem) > best[0]):
            best = (len(video_stem), video)
    if best is not None:
        return best[1]
    if len(videos) == 1:
        return next(iter(videos))
    if all(numbers is None for numbers in videos.values()):
        return _same_part(path, list(videos))
    parsed = parse_file(path, kind="series")
    if not parsed.episodes:
        return None
    same = [
        video
        for video, numbers in videos.items()
        if numbers is not None
        and numbers[1] == parsed.episodes
        and parsed.season in (None, numbers[0])
    ]
    return same[0] if len(same) == 1 else None


def _merge_hints(hints: Iterable[Hint]) -> Hint:
    merged = Hint(None, None, None)
    for hint in hints:
        merged = Hint(
            kind=hint.kind or merged.kind,
            title=hint.title or merged.title,
            year=_first_set(hint.year, merged.year),
            season=_first_set(hint.season, merged.season),
            episode=_first_set(hint.episode, merged.episode),
            title_with_year=hint.title_with_year if hint.title else merged.title_with_year,
            identifiers=merged.identifiers + hint.identifiers,
            unread=hint.unread or merged.unread,
            country=hint.country or merged.country,
        )
    return merged


def _same_part(path: str, videos: Sequence[str]) -> str | None:
    """The one video whose part number ("CD2", "Part 2", "Disc 2") the subtitle shares."""
    number = part_number(path)
    if number is None:
        return None
    same = [video for video in videos if part_number(video) == number]
    return same[0] if len(same) == 1 else None


def part_number(path: str) -> int | None:
    found = _PART.search(stem(path))
    return int(found.group(1)) if found else None


def _numbered_parts(videos: Sequence[str]) -> bool:
    """Three or more videos numbered 1, 2, 3…: "Part 1.mkv" … "Part 10.mkv" may be
    the episodes of a miniseries (or a movie in parts: the metadata tells)."""
    numbers = [numbered_episode(video.rsplit("/", 1)[-1]) for video in videos]
    if len(numbers) < 3 or any(n is None for n in numbers):
        return False
    return sorted(n for n in numbers if n is not None) == list(range(1, len(numbers) + 1))


def _first_set(*values: int | None) -> int | None:
    return next((value for value in values if value is not None), None)
