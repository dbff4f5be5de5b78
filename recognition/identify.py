"""One download's recognition, start to end: read the release, find its title, and
check its files can be placed under it.

``identify_download`` is what ``worker/recognizer.py`` runs for each download: the
release's parts (:class:`Release`) are read in a parser process (``parse_release_of``),
the title found through a :class:`~recognition.lookups.Lookup` (or, with no
catalogue, the parsed name is the one candidate), and the files placed for it.
"""

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from core.reasons import Reason, reason
from recognition.candidates import Candidate, Evidence, MediaKind
from recognition.decide import Decision
from recognition.gather import find_title
from recognition.lookups import Lookup
from recognition.placement import files_for
from recognition.recognize import Recognized, TorrentFile, recognize


@dataclass(frozen=True)
class Release:
    """What is known of a download before recognition."""

    name: str  # as qBittorrent reports it
    files: tuple[TorrentFile, ...]
    hints: tuple[str, ...] = ()
    overrides: Mapping[str, str] = field(default_factory=dict)
    texts: tuple[str, ...] = ()  # small text files of the torrent (.nfo)
    dn: str | None = None  # the magnet's name, when it differs from ``name``


# ``parse_release_of`` run somewhere (jellybit: a parser process): a release and a kind.
Parse = Callable[[Release, MediaKind | None], Awaitable[Recognized]]


def parse_release_of(release: Release, kind: MediaKind | None) -> Recognized:
    """``recognition.recognize.recognize`` of a release (module level: it is pickled
    to the parser processes)."""
    return recognize(
        release.name,
        release.files,
        release.hints,
        release.overrides,
        texts=release.texts,
        kind=kind,
        dn=release.dn,
    )


class Status(StrEnum):
    """Where a download's recognition stands (``recognition.status``)."""

    AUTO = "auto"  # the decision took a title on its own
    NEEDS_REVIEW = "needs_review"  # the person picks
    CONFIRMED = "confirmed"  # the person picked
    WAITING = "waiting"  # TMDB or qBittorrent did not answer: recognized again later


@dataclass(frozen=True)
class Identification:
    recognized: Recognized  # its files with their own numbers (``placed`` maps them)
    candidates: tuple[Candidate, ...]  # best first, with their evidence
    chosen: Candidate | None  # None: the person picks
    reason: Reason  # auto.<rule> or review.<rule>, with the confidence


async def identify_download(
    release: Release,
    parse: Parse,
    lookup: Lookup | None,
    *,
    auto_accept: float,
    language: str,
) -> Identification:
    """Recognize the release, find its title (TMDB through ``lookup``, or with no
    provider the parsed name), and place its files for that title. A series file
    whose episode stays unknown sends the download to the person."""
    recognized = await parse(release, None)
    if recognized.title is None or recognized.kind == "unknown":
        return Identification(recognized, (), None, reason("review.no_title"))
    if lookup is None:
        decision = _local(recognized)
    else:
        decision = await find_title(recognized, lookup, auto_accept=auto_accept, language=language)
    chosen = decision.chosen
    if chosen is not None and chosen.kind != recognized.kind:
        recognized = await parse(release, chosen.kind)  # "Part 1…10" of a miniseries
        if lookup is not None and _named_only(recognized):
            # "Firefly/The Train Job.avi": files named by their titles, read as a movie
            # at first; as a series their names are looked up (answers already had are
            # cached), and place them if the same show is taken.
            again = await find_title(recognized, lookup, auto_accept=auto_accept, language=language)
            if again.chosen is not None and again.chosen.provider_id == chosen.provider_id:
                decision, chosen = again, again.chosen
    if chosen is not None and recognized.unread_hint is not None:
        unread = reason("review.hint_unread", hint=recognized.unread_hint[:200])
        return Identification(recognized, decision.candidates, None, unread)
    if chosen is not None:
        _, why = files_for(chosen.kind, chosen.seasons, chosen.evidence, recognized.files)
        if why is not None:
            return Identification(recognized, decision.candidates, None, why)
    return Identification(recognized, decision.candidates, chosen, _why(decision, recognized))


def _named_only(recognized: Recognized) -> bool:
    """A series whose videos are all named by words and none numbered."""
    videos = [f for f in recognized.files if f.role == "video"]
    return recognized.kind == "series" and all(f.name and not f.episodes for f in videos)


def _why(decision: Decision, recognized: Recognized) -> Reason:
    params: dict[str, str | int | float] = {"confidence": decision.confidence}
    if decision.rule == "nothing":
        params["title"] = recognized.title or ""
    elif decision.rule == "ambiguous":
        params["count"] = sum(1 for c in decision.candidates if c.score > 0)
    return reason(decision.code, **params)


def _local(recognized: Recognized) -> Decision:
    """No metadata provider: the parsed name is the only candidate, sure enough with
    a title, and a year for a movie (the folder then has no ``[tmdbid-N]``)."""
    kind: MediaKind = "series" if recognized.kind == "series" else "movie"
    complete = kind == "series" or recognized.year is not None
    candidate = Candidate(
        provider="local",
        provider_id=None,
        kind=kind,
        title=recognized.title or "",
        original_title=None,
        year=recognized.year,
        overview=None,
        poster_path=None,
        popularity=0.0,
        score=1.0 if complete else 0.0,
        evidence=Evidence("exact", recognized.title or "", "none"),
    )
    if complete:
        return Decision(candidate, (candidate,), "local", 1.0)
    return Decision(None, (candidate,), "no_year", 0.0)
