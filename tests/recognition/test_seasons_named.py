"""Seasons named by their names and specials found by what TMDB lists of them (issue
#35 seasons2): a season's name in another language than TMDB's answer (its names
fetched in the words' language), "Сезон «Name»", a season named against another
numbered, a holiday's special by the year it aired, a box of "Specials", a special
numbered otherwise than TMDB, OVAs by the number TMDB writes into their names, "[OVA]",
a title that is a number alone (recognition.explain, recognition.weigh,
recognition.placement, recognition.gather, recognition.lookups, recognition.parsing)."""

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace

import pytest

from core.config import MetadataSettings
from recognition.candidates import AiredEpisode, Candidate, Query, Reading, Season
from recognition.explain import explain
from recognition.lookups import Lookup
from recognition.parsing.anime import parse_anime
from recognition.parsing.episodes import number_name, special_of
from recognition.parsing.release import parse_release
from recognition.placement import files_for
from recognition.recognize import TorrentFile, recognize
from recognition.weigh import weigh
from tests.support.candidates import titled
from tests.support.tmdb import Entry, FakeTmdb
from worker.tmdb import TmdbClient

AHS = (
    Season(1, 12, 2011, "Дом-убийца", "2011-10-05"),
    Season(2, 13, 2012, "Психбольница", "2012-10-17"),
    Season(3, 13, 2013, "Шабаш", "2013-10-09", ("Coven",)),
)


def _show(seasons: Sequence[Season], aired: Sequence[AiredEpisode] = ()) -> Candidate:
    return titled(
        "1413",
        "American Horror Story",
        2011,
        kind="series",
        seasons=tuple(seasons),
        aired=tuple(aired),
    )


@pytest.mark.parametrize(
    ("title", "season"),
    [
        ("American Horror Story - Coven", 3),  # its English name, fetched beside ru-RU's
        ("American Horror Story - Шабаш", 3),
        ("American Horror Story - Сезон «Шабаш»", 3),  # "Season «Name»"
        ("American Horror Story - Season Coven", 3),
        ("American Horror Story - Season 2", 2),
        ("American Horror Story - Hotel", None),  # no season of that name
    ],
)
def test_a_season_named_in_either_language(title: str, season: int | None) -> None:
    assert explain(title, ["American Horror Story"], [], AHS).season == season


def test_a_name_of_one_season_and_the_number_of_another_contradict() -> None:
    def query(season: int) -> Query:
        return Query(
            kind="series",
            readings=(Reading("American Horror Story - Coven", None),),
            episodes=((season, 1, False), (season, 2, False)),
            seasons=(season,),
        )

    assert weigh(query(2), _show(AHS)).seasons == "misfit"  # "Coven - Season 2"
    assert weigh(query(3), _show(AHS)).seasons == "fit"
    assert weigh(query(1), _show(AHS)).season == 3  # numbered within the named season


def test_the_fake_and_the_client_answer_a_seasons_name_in_the_language_asked() -> None:
    entry = Entry.from_json(
        {
            "kind": "tv",
            "id": 1413,
            "title": "American Horror Story",
            "date": "2011-10-05",
            "seasons": [
                {"season_number": 3, "episode_count": 13, "air_date": "2013-10-09",
                 "name": "Coven", "translations": {"ru": "Шабаш"}},
            ],
        }
    )  # fmt: skip

    async def names() -> tuple[str | None, str | None, int]:
        async with FakeTmdb.of([entry]) as tmdb:
            settings = MetadataSettings(
                tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url, language="ru-RU"
            )
            client = TmdbClient(settings)
            try:
                lookup = Lookup(client)
                stub = titled("1413", "", None, kind="series")
                own = await lookup.details(stub)
                english = await lookup.details(stub, "en-US")
                await lookup.details(stub, "en-US")  # cached
            finally:
                await client.close()
        assert own is not None
        assert english is not None
        return own.seasons[0].name, english.seasons[0].name, lookup.spent  # type: ignore[index]

    assert asyncio.run(names()) == ("Шабаш", "Coven", 2)


# --- specials --------------------------------------------------------------------------

DOCTOR_WHO = (
    AiredEpisode(0, 1, "The Christmas Invasion", "2005-12-25"),
    AiredEpisode(0, 2, "The End of Time (1)", "2009-12-25"),
    AiredEpisode(0, 3, "The End of Time (2)", "2010-01-01"),
    AiredEpisode(0, 4, "A Christmas Carol", "2010-12-25"),
    AiredEpisode(0, 5, "Burma Special (1)", "2014-12-28"),
    AiredEpisode(0, 6, "Patagonia Special (1)", "2014-12-27"),
)


def _special(title: str, year: int | None, words: str, show_year: int = 2005) -> object:
    query = Query(
        kind="series",
        readings=(Reading(title, year),),
        unnumbered=("Special.mkv",),
        episode_title=words,
        special=True,
    )
    show = titled(
        "57243",
        "Doctor Who",
        show_year,
        kind="series",
        seasons=(Season(0, 6, 2005), Season(1, 13, 2005)),
        aired=DOCTOR_WHO,
    )
    listed = weigh(query, show).listed
    return listed[0][2] if listed else None


@pytest.mark.parametrize(
    ("year", "words", "special"),
    [
        (2005, "Christmas Special 2010", 4),  # "Doctor.Who.2005.Christmas.Special.2010"
        (2010, "Christmas Special", 4),
        (2010, "New Years Day Special", 3),  # aired on 1 January 2010
        (2009, "Christmas Special", 2),
        (2014, "Christmas Special", None),  # two specials aired that Christmas: asked
        (2005, "Christmas Special", None),  # 2005 may be the show's year: not the special's
        (None, "Christmas Special", None),
        (2011, "Christmas Special", None),  # none that Christmas
    ],
)
def test_a_holidays_special_is_the_one_aired_then(
    year: int | None, words: str, special: int | None
) -> None:
    assert _special("Doctor Who", year, words) == special


@pytest.mark.parametrize(
    ("name", "title", "year", "words"),
    [
        ("Doctor.Who.2005.Christmas.Special.2010.720p.BluRay", "Doctor Who", 2005,
         "Christmas Special 2010"),
        ("Sherlock.New.Years.Day.Special.2016.1080p.BluRay", "Sherlock", 2016,
         "New Years Day Special"),
        ("Doctor.Who.Christmas.Special.2023.1080p.WEB-DL", "Doctor Who", 2023,
         "Christmas Special"),
    ],
)  # fmt: skip
def test_a_holidays_special_is_read_with_its_year(
    name: str, title: str, year: int, words: str
) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.title, parsed.year, parsed.special) == ("series", title, year, True)
    assert parsed.episode_title == words


HAIKYU = (
    AiredEpisode(0, 1, "Lev Appears! (OVA 1)", None),
    AiredEpisode(0, 2, 'Vs. "Failure" (OVA 2)', None),
    AiredEpisode(0, 3, "Karasuno, Revival!", None),
    AiredEpisode(0, 4, "OVA2: Winners", None),
    AiredEpisode(0, 5, "The Volleyball Way (OVA 4)", None),
)


@pytest.mark.parametrize(
    ("number", "special"),
    [(1, 1), (4, 5), (2, None), (3, None)],  # two name OVA 2; none OVA 3
)
def test_an_ova_is_the_special_whose_name_holds_its_number(
    number: int, special: int | None
) -> None:
    query = Query(
        kind="series",
        readings=(Reading("Haikyuu!!", None),),
        unnumbered=("OVA.mkv",),
        specials=(("OVA.mkv", number),),
        special=True,
    )
    show = titled("60863", "Haikyuu!!", 2014, kind="series", seasons=(Season(0, 5),), aired=HAIKYU)
    listed = weigh(query, show).listed
    assert (listed[0][2] if listed else None) == special


@pytest.mark.parametrize(
    ("name", "title", "number"),
    [
        ("[G] Haikyuu!! [OVA] - 04 [BD 1080p][4D5E6F70].mkv", "Haikyuu!!", 4),
        ("[G] Haikyuu!! OVA2 [BD 720p][3C4D5E6F].mkv", "Haikyuu!!", 2),
        ("[G] Boku no Hero Academia - OVA 2 - Training of the Dead [BD].mkv",
         "Boku no Hero Academia", 2),
    ],
)  # fmt: skip
def test_an_ova_numbered_on_its_own_is_a_special(name: str, title: str, number: int) -> None:
    anime = parse_anime(name)
    assert anime is not None
    assert (anime.title, anime.special) == (title, True)
    assert special_of(name, ()) == (True, number)


def test_a_special_numbered_otherwise_than_tmdb_is_placed_by_its_title() -> None:
    path = "Sherlock.S00E04.The.Abominable.Bride.1080p.mkv"
    query = Query(
        kind="series",
        readings=(Reading("Sherlock", None),),
        episodes=((0, 4, False),),
        seasons=(0,),
        titled=((path, 0, 4, "The Abominable Bride"),),
    )
    aired = (
        AiredEpisode(0, 1, "Unaired Pilot", None),
        AiredEpisode(0, 2, "Many Happy Returns", None),
        AiredEpisode(0, 3, "The Abominable Bride", None),
    )
    show = titled(
        "19885", "Sherlock", 2010, kind="series", seasons=(Season(0, 3), Season(1, 3)), aired=aired
    )
    evidence = weigh(query, show)
    assert evidence.seasons == "fit"  # S00E04 of three specials: TMDB numbers them otherwise
    assert evidence.listed == ((path, 0, 3),)


def test_a_box_of_specials_places_only_what_tmdb_names() -> None:
    files = [
        TorrentFile("Sherlock - Specials [BDRip]/01 - Many Happy Returns.mkv", 3_000_000_000),
        TorrentFile("Sherlock - Specials [BDRip]/02 - Bonus Disc Feature.mkv", 3_000_000_000),
    ]
    recognized = recognize("Sherlock - Specials [BDRip]", files, kind="series")
    show = titled(
        "19885",
        "Sherlock",
        2010,
        kind="series",
        seasons=(Season(0, 3), Season(1, 3)),
        aired=(AiredEpisode(0, 2, "Many Happy Returns", None),),
    )
    query = Query(kind="series", readings=(Reading("Sherlock - Specials", None),))
    evidence = weigh(query, show)
    assert (evidence.title, evidence.season) == ("exact", 0)
    placed_by_name = replace(evidence, listed=((files[0].path, 0, 2),))
    out, why = files_for("series", show.seasons, placed_by_name, recognized.files)
    tags = {f.path: (f.season, f.episodes) for f in out if f.role == "video"}
    assert tags[files[0].path] == (0, (2,))
    assert tags[files[1].path] == (0, ())  # the box's own number is not TMDB's: asked
    assert why is not None
    assert why.code == "review.episode_unknown"


def test_a_name_that_is_a_number_alone_may_be_a_title() -> None:
    assert number_name("DW/Series 3/42.avi", ("Doctor Who",)) == "42"
    assert number_name("DW/Series 3/Doctor Who - 42.avi", ("Doctor Who",)) == "42"
    assert number_name("DW/Series 3/Blink.avi", ("Doctor Who",)) is None
    files = [
        TorrentFile("Doctor Who - Series 3/Series 3/Blink.avi", 700_000_000),
        TorrentFile("Doctor Who - Series 3/Series 3/42.avi", 700_000_000),
    ]
    recognized = recognize("Doctor Who - Series 3", files)
    number = next(f for f in recognized.files if f.path.endswith("42.avi"))
    assert number.name == "42"
    assert "loose" in number.flags


def test_a_seasons_other_names_are_kept_as_the_store_keeps_a_candidate() -> None:
    show = _show(AHS)
    again = Candidate.from_json(json.loads(json.dumps(show.as_json())))
    assert again.seasons == AHS
    assert again.seasons[2].names == ("Coven",)
    older = {**show.as_json(), "seasons": [list(s[:5]) for s in AHS]}  # stored before
    assert Candidate.from_json(older).seasons[2].names == ()  # type: ignore[index]
