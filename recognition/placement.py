"""Where each file of a release goes once its title is known (pure): episodes
numbered across seasons moved into the title's seasons, season folders named after
TMDB's seasons, specials found by name, and why a file cannot be placed."""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from core.reasons import Reason, reason
from recognition.candidates import AiredEpisode, Evidence, Query, Season
from recognition.explain import season_named
from recognition.folding import title_key
from recognition.recognize import RecognizedFile


def placed(
    files: Sequence[RecognizedFile],
    seasons: Sequence[Season] | None,
    named: int | None = None,
    listed: Sequence[tuple[str, int, int]] = (),
    renumbered: Sequence[tuple[int, int]] = (),
) -> tuple[RecognizedFile, ...]:
    """Files of a series numbered across seasons moved to the title's seasons by
    their episode counts: "Frieren - 29" is S02E01 when season 1 has 28, and so is
    "Frieren S2 - 29" (a fansub counting on). ``named``: the season the release's
    title names ("Show - Ultra Romantic - 05", "24: Live Another Day S01E01"): what
    it numbers without a season, or as season 1, is in that season. Subtitles follow
    their video. Without counts, or numbers beyond them, nothing moves; an ``SxxEyy``
    of another season never moves. ``listed``: (path, season, episode) of files
    TMDB lists: a daily show's by its date, a special by its name. A title the box's
    name adds that is none of them is skipped (flag "added"). ``renumbered``: (the
    release's season, TMDB's) of seasons the release numbers otherwise ("S2023" =
    season 41)."""
    moves = dict(renumbered)
    files = [
        replace(f, season=moves[f.season]) if f.season is not None and f.season in moves else f
        for f in files
    ]
    files = _in_named_folders(files, seasons)
    files, listed = _dates_agree(files, listed, seasons)
    files = _as_listed(files, listed)
    files = _without_added_films(files)
    if named is not None:
        # A box of specials ("Show - Specials"): its own numbers are not TMDB's, only
        # the names TMDB lists place its files (the others are asked).
        files = [
            (
                replace(f, season=named, absolute=f.season is None)
                if named
                else replace(f, season=0, episodes=(), absolute=False)
            )
            if f.role == "video" and f.season in (None, 1)
            else f
            for f in files
        ]
    files = _parts_on_their_own(files, seasons)
    moved = _moved_by_counts(files, seasons)
    return tuple(_follow(file, moved) for file in files)


def _parts_on_their_own(
    files: Sequence[RecognizedFile], seasons: Sequence[Season] | None
) -> list[RecognizedFile]:
    """A video of a later part (cour) of a season ("The Final Season Part 2 - 01"):
    TMDB counts the season's parts together, so a number that may be the part's own
    is no episode of the season; only one counted on from the first season, past the
    seasons before its own ("Part 2 - 76" of season 4 after 59), says which it is.
    The others lose their number (asked), and their subtitles follow."""
    counts = {s.number: s.episodes for s in seasons or () if s.number > 0}
    unknown = set()
    for file in files:
        if file.role == "video" and "part" in file.flags and file.episodes and file.absolute:
            season = file.season or 1
            before = sum(n for number, n in counts.items() if number < season)
            if not before or min(file.episodes) <= before:
                unknown.add(file.path)
    return [
        replace(f, episodes=(), absolute=False)
        if f.path in unknown or (f.role == "subtitle" and f.video in unknown)
        else f
        for f in files
    ]


def _in_named_folders(
    files: Sequence[RecognizedFile], seasons: Sequence[Season] | None
) -> list[RecognizedFile]:
    """A video with no season in its name is in the season its folder is named after."""
    return [
        replace(f, season=own)
        if f.role == "video" and f.season is None and (own := _folder_names(f.path, seasons))
        else f
        for f in files
    ]


def _dates_agree(
    files: Sequence[RecognizedFile],
    listed: Sequence[tuple[str, int, int]],
    seasons: Sequence[Season] | None,
) -> tuple[list[RecognizedFile], list[tuple[str, int, int]]]:
    """A video numbered and dated ("Running.Man.E702.240512"): a number its season
    holds as it is (a drama's "E05.220713" of 16) is that episode, the date only
    confirms the title. One it does not (702 of a show TMDB splits by year) is the
    episode TMDB lists on the date, and must be its number counted over the seasons
    before it; else neither is trusted (flag "date_disagrees", asked)."""
    counts = {s.number: s.episodes for s in seasons or () if s.number > 0}
    rows: dict[str, list[tuple[int, int]]] = {}
    for path, season, episode in listed:
        rows.setdefault(path, []).append((season, episode))
    own_number, wrong = set(), set()
    for f in files:
        if f.role != "video" or not f.episodes or f.date is None or f.path not in rows:
            continue
        if not counts or max(f.episodes) <= counts.get(f.season or 1, 0):
            own_number.add(f.path)
            continue
        dated = rows[f.path]
        counted = [sum(n for k, n in counts.items() if k < s) + e for s, e in dated]
        if list(f.episodes) not in ([e for _, e in dated], counted):
            wrong.add(f.path)
    kept = [row for row in listed if row[0] not in wrong | own_number]
    return [
        replace(f, episodes=(), flags=(*f.flags, "date_disagrees")) if f.path in wrong else f
        for f in files
    ], kept


def _as_listed(
    files: Sequence[RecognizedFile], listed: Sequence[tuple[str, int, int]]
) -> list[RecognizedFile]:
    """A file that TMDB lists (by its date, or by its name: whatever number the name
    holds, "20 Hours in L.A.") is that episode, or those two ("Pilot" of "Pilot (1)",
    "Pilot (2)"); episode 0: its number is not to be trusted (its title names another
    episode), asked. Its subtitles follow it."""
    aired: dict[str, tuple[int, tuple[int, ...]]] = {}
    for path, season, episode in listed:
        before = aired.get(path, (season, ()))[1]
        aired[path] = (season, tuple(sorted({*before, episode} - {0})) if episode else ())
    return [
        replace(f, season=aired[key][0], episodes=aired[key][1], absolute=False)
        if (key := f.path if f.role == "video" else f.video) in aired
        else f
        for f in files
    ]


def _without_added_films(files: Sequence[RecognizedFile]) -> list[RecognizedFile]:
    """A title the box's name adds ("added") with no episode is not a special TMDB
    lists by its name: a film of its own, skipped with its subtitles."""
    films = {f.path for f in files if f.role == "video" and "added" in f.flags and not f.episodes}
    return [
        replace(f, role="skip", reason="a film the box's name adds")
        if f.path in films or (f.role == "subtitle" and f.video in films)
        else f
        for f in files
    ]


def _moved_by_counts(
    files: Sequence[RecognizedFile], seasons: Sequence[Season] | None
) -> dict[str, RecognizedFile]:
    """Videos numbered across seasons (or counting on within one), by path, moved to
    the season and episodes the title's episode counts put them in: all of a file's
    episodes in one season, or it does not move. Within a season, numbers some of
    which are its own and some past it ("Сезон 3/Серия 15", "Серия 41") do not say
    which count on: none of them moves."""
    moved: dict[str, RecognizedFile] = {}
    counts = {s.number: s.episodes for s in seasons or ()}
    counted = [f for f in files if f.role == "video" and f.episodes and f.absolute]
    own = {f.season for f in counted if max(f.episodes) <= counts.get(f.season or 0, 0)}
    past = {f.season for f in counted if max(f.episodes) > counts.get(f.season or 0, 0)}
    # "S2 - 13" … "S2 - 25" after a season 1 of 12: every number of the season past
    # the seasons before it and within this one counts on, though 13 could be its own.
    on = {season for season in own & past if _all_count_on(counted, season, counts)}
    for file in files:
        if file.role != "video" or not file.episodes:
            continue
        if file.season is not None and (not file.absolute or file.season in (own & past) - on):
            continue
        if file.season in on:
            file = replace(file, season=None)  # counted from the first season
        where = [absolute_to_season(e, seasons, file.season) for e in file.episodes]
        targets = {w[0] for w in where if w is not None}
        if None not in where and len(targets) == 1:
            episodes = tuple(w[1] for w in where if w is not None)
            moved[file.path] = replace(file, season=targets.pop(), episodes=episodes)
    return moved


def _all_count_on(
    counted: Sequence[RecognizedFile], season: int | None, counts: Mapping[int, int]
) -> bool:
    """Every number of ``season`` lies past the regular seasons before it and within
    it counted on from the first."""
    if season is None or season < 2:
        return False
    before = sum(n for number, n in counts.items() if 0 < number < season)
    numbers = [e for f in counted if f.season == season for e in f.episodes]
    return bool(before) and all(before < e <= before + counts.get(season, 0) for e in numbers)


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
    listed = evidence.listed if evidence is not None else ()
    out = placed(files, seasons, named, listed, evidence.renumbered if evidence else ())
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
    if (twice := _episode_twice(files)) is not None:
        return twice
    counts = None if seasons is None else {s.number: s.episodes for s in seasons}
    for file in files:
        if file.role != "video":
            continue
        if not file.episodes and file.date is not None:
            code = {"date_disagrees": "review.date_disagrees", "two_dates": "review.date_two_ways"}
            why = next((code[f] for f in file.flags if f in code), "review.date_unlisted")
            return reason(why, file=file.path, date=file.date.isoformat())
        if not file.episodes:
            return reason("review.episode_unknown", file=file.path)
        if counts is None or not file.episodes:
            continue
        season = 1 if file.season is None else file.season
        if season not in counts or max(file.episodes) > counts[season]:
            tag = f"S{season:02d}E{max(file.episodes):02d}"
            return reason("review.episode_unlisted", file=file.path, episode=tag)
    return None


def _episode_twice(files: Sequence[RecognizedFile]) -> Reason | None:
    """Two videos of one part of a season that would both hold an episode ("Show 2 03"
    read as episodes 2–3 beside "Show 2 04" as 2–4): one of them, at least, is read
    wrong, and which is not known, so neither is placed under a guess."""
    claimed: dict[tuple[int, int, int], str] = {}
    for file in files:
        if file.role != "video":
            continue
        season = 1 if file.season is None else file.season
        for episode in file.episodes:
            other = claimed.setdefault((season, episode, file.part), file.path)
            if other != file.path:
                tag = f"S{season:02d}E{episode:02d}"
                # Their own names: the torrent's folder would say the same twice.
                names = {"file": PurePosixPath(file.path).name, "other": PurePosixPath(other).name}
                return reason("review.episode_twice", episode=tag, **names)
    return None


def absolute_to_season(
    episode: int, seasons: Sequence[Season] | None, season: int | None = None
) -> tuple[int, int] | None:
    """Season and episode of an episode numbered across seasons ("Frieren - 29" is
    S02E01 when season 1 has 28), by the candidate's episode counts. With ``season``
    (the release says "S2 - 29") only a number within that season, counted from the
    first, or one that is already the season's own ("S2 - 05"), is accepted. None
    when the counts do not say."""
    regular = sorted(s for s in seasons or () if s.number > 0)
    if not regular:
        return None
    if season is not None:
        own = next((s for s in regular if s.number == season), None)
        if own is None:
            return None
        if episode <= own.episodes:
            return season, episode
        before = sum(s.episodes for s in regular if s.number < season)
        inside = episode - before
        return (season, inside) if 0 < inside <= own.episodes else None
    remaining = episode
    for number, count, *_ in regular:
        if remaining <= count:
            return number, remaining
        remaining -= count
    return None


def seasons_by_year(
    query: Query, seasons: Sequence[Season] | None, aired: Sequence[AiredEpisode]
) -> tuple[tuple[int, int], ...]:
    """Seasons the release numbers by their year where TMDB numbers them 1…N (TVDB's
    "S2023E05", "Season 2023"): (2023, the season that aired in 2023). Only when one
    season began that year, the season before it (fetched: ``aired``) aired nothing in
    it, and every episode the release holds of it aired in it; else the year names no
    season (a daily show whose seasons run across years). And the other way: "Season
    71 (2023)" of a show TMDB numbers by year is (71, 2023)."""
    numbers = {s.number for s in seasons or ()}
    # "Season 71 (2023)" of a show TMDB numbers by year: its season 2023.
    moved = [(n, y) for n, y in query.season_years if n not in numbers and y in numbers]
    years = {s for s in query.seasons if s >= _FIRST_YEAR and s not in numbers}
    years |= {s for s, _, _ in query.episodes if s and s >= _FIRST_YEAR and s not in numbers}
    for year in sorted(years):
        began = [s for s in seasons or () if s.number > 0 and s.year == year]
        if len(began) != 1:
            continue
        number = began[0].number
        before = [s.number for s in seasons or () if 0 < s.number < number]
        if before and not _aired_before(aired, max(before), year):
            continue
        held = [e for s, e, _ in query.episodes if s == year]
        dates = {e.number: e.air_date or "" for e in aired if e.season == number}
        if all(dates.get(e, "")[:4] == str(year) for e in held):
            moved.append((year, number))
    return tuple(moved)


_FIRST_YEAR = 1900  # a season numbered from here on is a year's


def _aired_before(aired: Sequence[AiredEpisode], season: int, year: int) -> bool:
    """Every episode of ``season`` (fetched) aired before ``year``."""
    days = [e.air_date for e in aired if e.season == season and e.number > 0]
    return bool(days) and all(day and day[:4] < str(year) for day in days)


def renumber(query: Query, renumbered: Sequence[tuple[int, int]]) -> Query:
    """The release as TMDB numbers its seasons (``seasons_by_year``)."""
    if not renumbered:
        return query
    moves = dict(renumbered)
    return replace(
        query,
        seasons=tuple(moves.get(s, s) for s in query.seasons),
        episodes=tuple((moves.get(s, s) if s else s, e, a) for s, e, a in query.episodes),
        named=tuple((p, moves.get(s, s) if s else s, w) for p, s, w in query.named),
    )
