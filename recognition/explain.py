"""Which words of a release's title a candidate explains (pure).

A release may name more than a show: ``Kaguya-sama wa Kokurasetai - Ultra Romantic``,
``Mob Psycho 100 III``, ``24: Live Another Day``, ``Shingeki no Kyojin - The Final
Season``. The words past the show's own name must be explained by the candidate —
by the name of one of its seasons, or a season's number (``III``, ``2nd Season``,
``S2``) — or they are left unexplained, and the candidate is no better than a
partial match. ``Avatar - The Last Airbender`` is not the film "Avatar": nothing of
the film explains "The Last Airbender".
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from recognition.folding import ARTICLES, compact, title_key
from recognition.parsing.episodes import SEASON_WORDS

_WHOLE = frozenset({"complete", "completa", "completo", "komplett", "integrale"})
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")
_SUBTITLE = re.compile(r"\s*[:~]\s*|\s+[-–—]\s+")
_SEASON_WORDS = frozenset(title_key(word) for word in SEASON_WORDS) | {"cour"}
# A part of a show in other languages ("Parte 3", "Partie 2", "Teil 2"): TMDB names
# Netflix's parts "Part N".
_PART_WORDS = {"parte": "part", "partie": "part", "teil": "part", "czesc": "part"}
_ORDINAL = re.compile(r"(\d{1,2})[aoº]")  # "3ª", "3a", "3º" as folded
_OVA = frozenset({"ova", "oad", "ona"})
# Words after a show's name that say the release is its specials (TMDB's season 0).
_SPECIALS = frozenset({"specials", "special episodes", "season 0", "season 00", "s00", "sp"})
# Words a season's name shares with many others: never what tells seasons apart.
_COMMON = _SEASON_WORDS | {"final", "chapter", "part", "story", "special", "return", "world"}


class Named(Protocol):
    """A season: ``recognition.candidates.Season``."""

    @property
    def number(self) -> int: ...

    @property
    def name(self) -> str | None: ...

    @property
    def names(self) -> tuple[str, ...]: ...


# Words after a film's title that say which cut, where or by whom, not what: an
# edition ("Taylor's Version", "Director's Cut", "Remastered"), a concert's venue
# ("Live at the Montreal Forum"; "Live", "In Concert" after a tour's name), its maker
# ("A Film by Beyoncé").
_EDITION = re.compile(
    r"(?:\d+\w* anniversary|extended \w+|\w+(?: and \w+)?) (?:version|cut|edition)"
    r"|remastered|restored|uncut|unrated|extended|imax"
    r"|live (?:at|in|from) .+|(?:a )?film by .+"
    r"|live|(?:live )?in concert|(?:the )?concert(?: film)?"
)
# Words after a show's name that say the release holds all of it ("The Complete
# Collection", "Complete Series", "Box Set", "Die komplette Serie", "Serie Completa",
# "L'Intégrale", "Полный сериал", as keys): no season of its own.
_WHOLE_RUN = re.compile(
    r"(?:the )?(?:complete(?: (?:series|collection|box(?: set)?|seasons|run))?|box set"
    r"|full series)|(?:die )?komplette serie|serie complet[ae]|l?integrale|полныи сериал"
)
_VENUE_OR_MAKER = re.compile(r"(?i)\s+(?:live\s+(?:at|in|from)|(?:a\s+)?film\s+by)\s+.+$")
# A tour after a concert film's name ("Beyonce Renaissance World Tour"), its maker as
# a poster credits him ("Exit Through the Gift Shop A Banksy Film"): searched without;
# explained only by the film's own overview (``recognition.weigh``).
_TOUR = re.compile(
    r"(?i)\s+(?:(?:world|stadium|arena|farewell|reunion|concert)\s+)?tour(?:\s+live)?$"
    r"|\s+a(?:\s+\S+){1,3}\s+(?:film|joint)$"
)


def is_edition(words: str) -> bool:
    """``words`` (a title's key) name an edition of a film, its venue or its maker."""
    return _EDITION.fullmatch(words) is not None


def without_edition(title: str) -> str | None:
    """The title without the edition, venue or maker its last words name ("Taylor
    Swift The Eras Tour Taylors Version" → "… The Eras Tour", "Queen Rock Montreal Live
    at the Montreal Forum" → "Queen Rock Montreal"); None when they name none."""
    words = title.split()
    for count in (4, 3, 2, 1):  # "Black and Chrome Edition"
        if len(words) > count and is_edition(title_key(" ".join(words[-count:]))):
            return " ".join(words[:-count])
    shorter = _VENUE_OR_MAKER.sub("", title)
    return shorter if shorter != title and shorter.strip() else None


def without_tour(title: str) -> str | None:
    """The title without the tour or maker its last words name ("Beyonce Renaissance
    World Tour" → "Beyonce Renaissance"); None when they name none."""
    shorter = _TOUR.sub("", title)
    return shorter if shorter != title and shorter.strip() else None


@dataclass(frozen=True)
class Explanation:
    season: int | None = None  # the season the words past the show's name are
    edition: bool = False  # the words past the name are an edition ("Taylor's Version")
    unexplained: str | None = None  # words the candidate does not explain at all
    # Words an alternative title explains that name no season jellybit can find
    # ("Kimetsu no Yaiba: Katanakaji no Sato-hen" with English season names): the
    # title is right, where its files go is not known.
    season_words: str | None = None


NOTHING = Explanation()


def explain(
    title: str,
    main_names: Sequence[str],
    other_names: Sequence[str],
    seasons: Sequence[Named] | None,
) -> Explanation:
    """What the words of ``title`` past a name of the candidate are. ``main_names``
    are its title, original title and translations (a release that is one of them
    says nothing more); ``other_names`` its alternative titles."""
    key = title_key(title).split()
    if not key or any(_same(key, name) for name in main_names):
        return NOTHING
    rest = _rest(key, [*main_names, *other_names])
    if rest is None:
        return NOTHING
    words = " ".join(rest)
    again = rest[1:] if rest[0] == "aka" and rest[1:] else rest  # "Der Untergang aka Downfall"
    if any(_starts(name, again) for name in [*main_names, *other_names]):
        return NOTHING  # the show's name again, in another language ("… Fullmetal Alchemist")
    season = season_named(rest, seasons)
    if season is not None:
        return Explanation(season=season)
    if words in _SPECIALS and any(s.number == 0 for s in seasons or ()):
        return Explanation(season=0)  # "Sherlock - Specials": its season 0
    if seasons is not None and _WHOLE_RUN.fullmatch(words):
        return Explanation(edition=True)
    if is_edition(words) and _rest(key, [*main_names, *other_names], whole=True) == rest:
        # After a whole name only: "Jimi Hendrix Live at Woodstock" is no edition of
        # "Jimi Hendrix: Electric Church", whose part before the colon is the artist.
        return Explanation(edition=True)
    # An alternative title names it, or the words are an arc ("Yuukaku-hen", "… 編"):
    # a part of the show, maybe one of its seasons by a name they share.
    if words in _OVA and any(_same(key, name) for name in other_names):
        return NOTHING  # "Hellsing OVA" of "Hellsing Ultimate": the OVA series' own name
    if rest[-1] != "hen" and any(
        _same(key, name)
        and (_subtitled_as(name, main_names) or _stem_of_another(name, other_names))
        for name in other_names
    ):
        return NOTHING  # the show's whole name in romaji, or that name without its subtitle
    if any(_same(key, name) for name in other_names) or (len(rest) > 1 and rest[-1] == "hen"):
        season = _season_sharing_a_name(rest, seasons, main_names)
        if season is not None:
            return Explanation(season=season)
        return Explanation(season_words=words)
    return Explanation(unexplained=words)


def _season_sharing_a_name(
    words: Sequence[str], seasons: Sequence[Named] | None, show_names: Sequence[str]
) -> int | None:
    """The one season whose name shares a proper name with ``words``: a romanized
    alternative title and TMDB's English season name keep the names of people and
    places ("Hashira Geiko-hen" and "Hashira Training Arc"). None when no season or
    more than one does."""
    own = {w for name in show_names for w in title_key(name).split()}
    names = {w for w in words if len(w) >= 5 and not w.isdigit()} - own - _COMMON
    sharing = {
        s.number
        for s in seasons or ()
        if s.number > 0 and s.name and names & set(title_key(s.name).split())
    }
    return sharing.pop() if len(sharing) == 1 else None


def _subtitled_as(name: str, main_names: Sequence[str]) -> bool:
    """ "Mushoku Tensei: Isekai Ittara Honki Dasu" beside the title "Mushoku Tensei:
    Jobless Reincarnation": an alternative name whose subtitle stands where the title's
    own does is that subtitle in another language — the show's whole name, no part. So
    is one whose name before the subtitle is another language's and the subtitle the
    title's own ("Ookami to Koushinryou: Merchant Meets the Wise Wolf" of "Spice and
    Wolf: MERCHANT MEETS THE WISE WOLF")."""
    stem, *subtitle = _SUBTITLE.split(name, maxsplit=1)
    if not subtitle or not title_key(stem) or not title_key(subtitle[0]):
        return False
    return any(
        len(parts := _SUBTITLE.split(main, maxsplit=1)) == 2
        and title_key(parts[1])
        and (
            title_key(parts[0]) == title_key(stem) or title_key(parts[1]) == title_key(subtitle[0])
        )
        for main in main_names
    )


def _stem_of_another(name: str, names: Sequence[str]) -> bool:
    """ "Kaguya-sama wa Kokurasetai" beside "Kaguya-sama wa Kokurasetai: Tensai-tachi no
    Renai Zunousen": a name that is another's part before its subtitle is the show's name
    as it is shortened, not the name of one of its parts."""
    own = compact(title_key(name))
    return any(
        len(parts := _SUBTITLE.split(other, maxsplit=1)) == 2
        and title_key(parts[1])
        and compact(title_key(parts[0])) == own
        for other in names
    )


def _same(key: list[str], name: str) -> bool:
    """One name, however its words are split ("d'Amélie" and "d.Amelie")."""
    return compact(" ".join(key)) == compact(title_key(name))


def _starts(name: str, words: list[str]) -> bool:
    return any(stem == compact("".join(words)) for stem in _stems(name))


def _stems(name: str) -> list[str]:
    """A name and its part before a subtitle ("Kaguya-sama wa Kokurasetai" of
    "Kaguya-sama wa Kokurasetai: Tensai-tachi no Renai Zunousen")."""
    stem = _SUBTITLE.split(name, maxsplit=1)[0]
    return [compact(title_key(n)) for n in {name, stem} if title_key(n)]


def _rest(key: list[str], names: Sequence[str], *, whole: bool = False) -> list[str] | None:
    """The words of ``key`` past the longest name (or name without its subtitle, unless
    ``whole``) that starts it and is shorter than it; None when none does."""
    stems = {
        stem
        for name in names
        for stem in ([compact(title_key(name))] if whole else _stems(name))
        if stem
    }
    best = max((n for n in range(1, len(key)) if compact("".join(key[:n])) in stems), default=0)
    if best == 0:
        return None
    rest = key[best:]
    while rest and rest[0] in ARTICLES:
        rest = rest[1:]
    return rest or None


def season_named(words: Sequence[str], seasons: Sequence[Named] | None) -> int | None:
    """The season ``words`` name: by its name ("Ultra Romantic", "The Final Season"),
    or its number ("III", "2nd Season", "Season 2", "S2"), when the candidate has it."""
    if not seasons or not words:
        return None
    words = [_PART_WORDS.get(w, w) for w in words]
    while len(words) > 1 and words[-1] in _WHOLE:
        words = words[:-1]  # "3ª Parte Completa": the whole part
    wanted = " ".join(w for w in words if w not in ARTICLES)
    forms = {wanted}
    if words[0] in _SEASON_WORDS and re.search(r"[^\W\d]", " ".join(words[1:])):
        forms.add(" ".join(w for w in words[1:] if w not in ARTICLES))  # "Сезон «Шабаш»"
    if len(words) == 2 and words[1] == "part" and (ordinal := _ORDINAL.fullmatch(words[0])):
        forms.add(f"part {ordinal.group(1)}")  # "3ª Parte" is TMDB's "Part 3"
    numbers = {s.number for s in seasons if s.number > 0}
    for season in seasons:
        for name in (season.name, *season.names) if season.number > 0 else ():
            own = " ".join(w for w in title_key(name or "").split() if w not in ARTICLES)
            if own and any(own == w or (len(w) > 3 and own.endswith(" " + w)) for w in forms):
                return season.number
    if wanted in ("final season", "final", "last season") and len(numbers) > 1:
        # "The Final Season": the last one there is, of a show that has had others
        return max(numbers)
    number = _season_number(list(words))
    return number if number in numbers else None


def _season_number(words: list[str]) -> int | None:
    plain = [w for w in words if w not in _SEASON_WORDS]
    if len(plain) != 1:
        return None
    word = plain[0]
    if word.isdigit():
        return int(word)
    if (ordinal := _ORDINAL.match(word)) is not None:
        return int(ordinal.group(1))
    if re.fullmatch(r"[st]\d{1,2}", word):  # "S2", Spanish trackers' "T22" (temporada)
        return int(word[1:])
    if word == "zoku":  # romaji "continued": "Oregairu Zoku", the second season
        return 2
    return None
