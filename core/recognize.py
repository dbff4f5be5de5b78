"""Recognition of one download: what it is and what each of its files is for.

``recognize`` puts the readers of ``core.parsing`` together with the hints and
overrides of a download. Everything here is pure. A guessit call is CPU-bound (tens
of milliseconds), so callers run ``recognize`` off the event loop (jellybit uses a
worker process); most files of a season are read without guessit (``parse_file``).
"""

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from types import MappingProxyType

from core.errors import InvalidInputError
from core.evidence import Evidence, Season, absolute_to_season
from core.explained import season_named
from core.parsing.files import (
    FileRole,
    Role,
    TorrentFile,
    classify_files,
    folders,
    stem,
    without_films,
)
from core.parsing.guess import MediaKind
from core.parsing.hints import Hint, parse_hint
from core.parsing.identifiers import find_identifiers
from core.parsing.release import (
    Kind,
    Parsed,
    identityless,
    numbered_episode,
    parse_file,
    parse_release,
)
from core.parsing.subtitles import subtitle_language
from core.reasons import Reason, reason
from core.titles import fold, title_key

__all__ = ["FileRole", "Kind", "MediaKind", "Parsed", "Role", "TorrentFile"]

OVERRIDE_FIELDS = frozenset({"kind", "title", "year", "season", "episode_offset", "duplicates"})
# What the person chose for a copy of what the library holds (read by the importer).
DUPLICATE_CHOICES = ("version", "replace", "skip")
_OVERRIDE_RANGES = {"year": (1800, 2200), "season": (0, 999), "episode_offset": (-9999, 9999)}
MAX_TITLE_OVERRIDE = 300
_PART = re.compile(r"(?i)(?:^|[\s._\-\[(])(?:cd|dis[ck]|part|pt)[\s._\-]?(\d{1,2})(?![\d])")


@dataclass(frozen=True)
class RecognizedFile:
    path: str
    role: Role
    season: int | None
    episodes: tuple[int, ...]
    language: str | None  # ISO 639-1, subtitles only
    # subtitles: "forced", "sdh", "default"; videos: "added" — a title a box's name
    # adds after "+" ("Firefly (2002) + Serenity (2005)"): a special of the show when
    # TMDB lists it by that name, else a film of its own, skipped.
    flags: tuple[str, ...]
    video: str | None = None  # the video a subtitle belongs to
    reason: str = ""
    date: datetime.date | None = None
    absolute: bool = False  # "S3 - 59": the number may count on from season 1


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


_NO_OVERRIDES: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class _Overrides:
    kind: MediaKind | None = None
    title: str | None = None
    year: int | None = None
    season: int | None = None
    episode_offset: int = 0


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
    """The torrent name is the base; each video's own path gives its season and
    episodes (a file's numbers win over the torrent's); subtitles go with a video
    of the same stem (or the only video, or the one with the same part or episode).

    Precedence per field, weakest first: torrent name, file path, hints (in order,
    the latest that says something about a field wins), overrides (``kind``,
    ``title``, ``year``, ``season``, ``episode_offset``; a bad value raises
    ``InvalidInputError``). ``episode_offset`` is added to every episode number.
    ``texts`` are small text files of the torrent (``.nfo``) and the magnet's
    ``dn``: only their ids are read. ``kind`` is what the metadata settled on
    (a miniseries whose files are "Part 1…N"); a person's kind still wins. ``dn``
    is the magnet's name: when it names the same title, it fills in what the
    torrent's name lacks (the year, the season, a country tag).
    """
    fixed = _read_overrides(overrides)
    roles = classify_files(files)
    videos = [role.path for role in roles if role.role == "video"]
    base = _with_dn(parse_release(_named(torrent_name, files, videos)), dn)
    hint = _merge_hints(parse_hint(text) for text in hints)

    found_kind: Kind
    if fixed.kind or hint.kind or kind:
        found_kind = fixed.kind or hint.kind or kind or "unknown"
    elif base.kind == "series":
        found_kind = "series"
    else:
        # "Some Show/Some.Show.S01E01.mkv": the files know better than the name.
        episodic = {r.path for r in without_films(roles) if r.role == "video"}
        own = [parse_file(path) for path in videos if path in episodic]
        numbered = [p for p in own if p.kind == "series" and (p.episodes or p.date)]
        explicit = any(p.season is not None and p.episodes for p in own)
        if own and (len(numbered) == len(own) or (explicit and len(own) > 1)):
            # every file an episode (films of a box aside), or a box: one "S01E01"
            # among its specials
            found_kind = "series"
        elif base.kind == "movie" or own:
            found_kind = "movie"
        else:
            found_kind = "unknown"
    if found_kind == "series":
        roles = without_films(roles)
        videos = [role.path for role in roles if role.role == "video"]
    as_kind = found_kind if found_kind != "unknown" else None
    parses = {path: parse_file(path, kind=as_kind) for path in videos}
    first = parses[videos[0]] if videos else None

    from_hint = hint.title is not None or fixed.title is not None
    title = fixed.title or hint.title or base.title or (first.title if first else None)
    alt_title = None if from_hint else base.alt_title
    year = _first_set(fixed.year, hint.year, base.year, first.year if first else None)
    season = _first_set(fixed.season, hint.season, base.season) if found_kind == "series" else None
    if fixed.title is not None:
        title_with_year = None
    elif hint.title is not None:
        title_with_year = hint.title_with_year
    else:
        title_with_year = base.title_with_year

    single = len(videos) == 1
    # A file's own numbers, with the torrent's where the file says nothing: what
    # subtitles are matched on, before hints and overrides renumber anything.
    natural = {
        path: _natural_numbers(parses[path], base, single=single)
        if found_kind == "series"
        else None
        for path in videos
    }
    if found_kind == "series" and season is None:
        # "Some Show/Some.Show.S01E01.mkv …": the season every file agrees on.
        seasons = {numbers[0] for numbers in natural.values() if numbers is not None}
        if len(seasons) == 1:
            season = seasons.pop()
    added = _added_titles(torrent_name) if found_kind == "series" and not single else ()
    recognized = {
        path: replace(
            _video_file(path, natural[path], parses[path].date or base.date, hint, fixed, single),
            absolute=parses[path].absolute or (not parses[path].episodes and base.absolute),
            flags=("added",) if _names_added(path, parses[path], added) else (),
        )
        for path in videos
    }
    result = []
    for role in roles:
        if role.role == "video":
            result.append(recognized[role.path])
        elif role.role == "subtitle":
            language, flags = subtitle_language(role.path)
            video = _video_of_subtitle(role.path, natural)
            if video is None:
                reason = "subtitle matches no video"
                result.append(
                    RecognizedFile(role.path, "skip", None, (), language, flags, None, reason)
                )
                continue
            owner = recognized[video]
            result.append(
                RecognizedFile(
                    role.path,
                    "subtitle",
                    owner.season,
                    owner.episodes,
                    language,
                    flags,
                    video=video,
                    reason="subtitle",
                    date=owner.date,
                )
            )
        else:
            result.append(RecognizedFile(role.path, "skip", None, (), None, (), reason=role.reason))
    identifiers = [*find_identifiers(torrent_name), *find_identifiers(dn or ""), *hint.identifiers]
    fallback = []
    if from_hint and fixed.title is None and base.title is not None:
        fallback.append((base.title, year))  # a hint may describe rather than name it
    if dn and (named := parse_release(dn)).title is not None and named.title != base.title:
        fallback.append((named.title, named.year))  # "sparks-hohw-1080p" and its dn
    for text in texts:
        identifiers.extend(find_identifiers(text))
    return Recognized(
        found_kind,
        title,
        year,
        season,
        tuple(result),
        alt_title,
        country=hint.country or (None if from_hint else base.country),
        countries=() if from_hint else base.countries,
        language=_tagged(base.language, (p.language for p in parses.values())),
        service=_tagged(base.service, (p.service for p in parses.values())),
        title_with_year=title_with_year,
        identifiers=tuple(dict.fromkeys(identifiers)),
        numbered_parts=found_kind == "movie" and _numbered_parts(videos),
        fallback_titles=tuple(fallback),
        unread_hint=hint.unread,
        episode_title=base.episode_title if single else None,
        special=base.special,
    )


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
    for part in _PLUS.split(torrent_name)[1:]:
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


def _video_file(
    path: str,
    numbers: tuple[int | None, tuple[int, ...]] | None,
    aired: datetime.date | None,
    hint: Hint,
    fixed: _Overrides,
    single: bool,
) -> RecognizedFile:
    if numbers is None:  # not a series
        return RecognizedFile(path, "video", None, (), None, (), reason="video")
    season, episodes = numbers
    season = _first_set(fixed.season, hint.season, season)
    if hint.episode is not None and single:
        episodes = (hint.episode,)
    if fixed.episode_offset:
        episodes = tuple(episode + fixed.episode_offset for episode in episodes)
        if any(episode < 0 for episode in episodes):
            raise InvalidInputError(
                f"episode_offset {fixed.episode_offset} makes an episode of {path} negative"
            )
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


def check_overrides(values: Mapping[str, str]) -> None:
    """Raises ``InvalidInputError`` for fields a person may not set (an empty value
    removes the field, and is always fine)."""
    _read_overrides({field: value for field, value in values.items() if value.strip()})


def _read_overrides(overrides: Mapping[str, str]) -> _Overrides:
    unknown = sorted(set(overrides) - OVERRIDE_FIELDS)
    if unknown:
        raise InvalidInputError(f"unknown override field {unknown[0]!r}")
    kind = overrides.get("kind")
    if kind is not None and kind not in ("movie", "series"):
        raise InvalidInputError(f"kind must be movie or series, got {kind!r}")
    duplicates = overrides.get("duplicates")
    if duplicates is not None and duplicates not in DUPLICATE_CHOICES:
        raise InvalidInputError(
            f"duplicates must be one of {DUPLICATE_CHOICES}, got {duplicates!r}"
        )
    title = overrides.get("title")
    if title is not None and len(title) > MAX_TITLE_OVERRIDE:
        raise InvalidInputError(f"title is longer than {MAX_TITLE_OVERRIDE} characters")
    return _Overrides(
        kind="movie" if kind == "movie" else "series" if kind == "series" else None,
        title=title.strip() or None if title is not None else None,
        year=_int_override(overrides, "year"),
        season=_int_override(overrides, "season"),
        episode_offset=_int_override(overrides, "episode_offset") or 0,
    )


def _int_override(overrides: Mapping[str, str], field: str) -> int | None:
    value = overrides.get(field)
    if value is None or not value.strip():
        return None
    try:
        number = int(value.strip())
    except ValueError:
        raise InvalidInputError(f"{field} must be a whole number, got {value!r}") from None
    lowest, highest = _OVERRIDE_RANGES[field]
    if not lowest <= number <= highest:
        raise InvalidInputError(f"{field} must be from {lowest} to {highest}, got {number}")
    return number


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


# --- where the files go, once the title is known ----------------------------------------


def placed(
    files: Sequence[RecognizedFile],
    seasons: Sequence[Season] | None,
    named: int | None = None,
    listed: Sequence[tuple[str, int, int]] = (),
) -> tuple[RecognizedFile, ...]:
    """Files of a series numbered across seasons moved to the title's seasons by
    their episode counts: "Frieren - 29" is S02E01 when season 1 has 28, and so is
    "Frieren S2 - 29" (a fansub counting on). ``named``: the season the release's
    title names ("Show - Ultra Romantic - 05", "24: Live Another Day S01E01"): what
    it numbers without a season, or as season 1, is in that season. Subtitles follow
    their video. Without counts, or numbers beyond them, nothing moves; an ``SxxEyy``
    of another season never moves. ``listed``: (path, season, episode) of files
    TMDB lists: a daily show's by its date, a special by its name. A title the box's
    name adds that is none of them is skipped (flag "added")."""
    aired = {path: (season, episode) for path, season, episode in listed}
    files = [
        replace(f, season=own)
        if f.role == "video" and f.season is None and (own := _folder_names(f.path, seasons))
        else f
        for f in files
    ]
    files = [
        replace(f, season=aired[key][0], episodes=(aired[key][1],))
        if not f.episodes and (key := f.path if f.role == "video" else f.video) in aired
        else f
        for f in files
    ]
    films = {
        f.path for f in files if f.role == "video" and "added" in f.flags and not f.episodes
    }  # not a special TMDB lists by its name: a film of its own, with its subtitles
    files = [
        replace(f, role="skip", reason="a film the box's name adds")
        if f.path in films or (f.role == "subtitle" and f.video in films)
        else f
        for f in files
    ]
    if named is not None:
        files = [
            replace(f, season=named, absolute=f.season is None)
            if f.role == "video" and f.season in (None, 1)
            else f
            for f in files
        ]
    moved: dict[str, RecognizedFile] = {}
    for file in files:
        if file.role != "video" or not file.episodes:
            continue
        if file.season is not None and not file.absolute:
            continue
        where = [absolute_to_season(e, seasons, file.season) for e in file.episodes]
        targets = {w[0] for w in where if w is not None}
        if None not in where and len(targets) == 1:
            episodes = tuple(w[1] for w in where if w is not None)
            moved[file.path] = replace(file, season=targets.pop(), episodes=episodes)
    return tuple(_follow(file, moved) for file in files)


def _folder_names(path: str, seasons: Sequence[Season] | None) -> int | None:
    """The season a folder of ``path`` is named after, nearest first ("Book 2 -
    Earth" for TMDB's "Book Two: Earth")."""
    for folder in reversed(PurePosixPath(path).parent.parts):
        if (number := season_named(title_key(folder).split(), seasons)) is not None:
            return number
    return None


def files_for(
    kind: str,
    seasons: Sequence[Season] | None,
    evidence: Evidence | None,
    files: Sequence[RecognizedFile],
) -> tuple[tuple[RecognizedFile, ...], Reason | None]:
    """The files as they are laid out for a chosen title (its kind, seasons and the
    evidence that chose it), and why they cannot be, if they cannot (``unplaceable``)."""
    named = evidence.season if evidence is not None else None
    out = placed(files, seasons, named, evidence.listed if evidence is not None else ())
    words = evidence.season_words if evidence is not None else None
    return out, unplaceable(kind, out, seasons, words)


def _follow(file: RecognizedFile, moved: Mapping[str, RecognizedFile]) -> RecognizedFile:
    if file.path in moved:
        return moved[file.path]
    if file.video is not None and file.video in moved:
        video = moved[file.video]
        return replace(file, season=video.season, episodes=video.episodes)
    return file


def unplaceable(
    kind: str,
    files: Sequence[RecognizedFile],
    seasons: Sequence[Season] | None,
    season_words: str | None = None,
) -> Reason | None:
    """Why a video of a series cannot be laid out for this title (after ``placed``):
    its episode is unknown, or it is an episode the title's seasons do not list
    (TMDB's counts, season 0 included), or the release's title names a part of the
    show jellybit cannot find among its seasons (``season_words``: which season its
    numbers count in is not known). Such a file is asked about, never placed under
    a guessed name."""
    if kind != "series":
        return None
    if season_words is not None:
        numbered = [f for f in files if f.role == "video" and f.season in (None, 1)]
        if numbered:
            return reason("review.season_unknown", words=season_words, file=numbered[0].path)
    counts = None if seasons is None else {s.number: s.episodes for s in seasons}
    for file in files:
        if file.role != "video":
            continue
        if not file.episodes and file.date is not None:
            return reason("review.date_unlisted", file=file.path, date=file.date.isoformat())
        if not file.episodes:
            return reason("review.episode_unknown", file=file.path)
        if counts is None or not file.episodes:
            continue
        season = 1 if file.season is None else file.season
        if season not in counts or max(file.episodes) > counts[season]:
            tag = f"S{season:02d}E{max(file.episodes):02d}"
            return reason("review.episode_unlisted", file=file.path, episode=tag)
    return None
