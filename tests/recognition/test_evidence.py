"""The decision from evidence (recognition.weigh, recognition.decide): a table test per trap."""

from dataclasses import replace

import pytest

from recognition.candidates import AiredEpisode, Candidate, MediaKind, Query, Reading, Season
from recognition.decide import Decision, decide
from recognition.folding import numerals_swapped, title_key
from recognition.placement import absolute_to_season
from recognition.weigh import title_match

AUTO = 0.85


def show(
    id: str,
    title: str,
    year: int | None,
    popularity: float,
    *,
    seasons: tuple[tuple[int, int], ...] | None = ((1, 10),),
    names: tuple[str, ...] = (),
    countries: tuple[str, ...] = ("US",),
    imdb: str | None = None,
    kind: MediaKind = "series",
) -> Candidate:
    return Candidate(
        provider="tmdb",
        provider_id=id,
        kind=kind,
        title=title,
        original_title=title,
        year=year,
        overview=None,
        poster_path=None,
        popularity=popularity,
        names=names,
        countries=countries,
        seasons=None if seasons is None else tuple(Season(n, c, year) for n, c in seasons),
        imdb_id=imdb,
    )


def movie(id: str, title: str, year: int | None, popularity: float, **more: object) -> Candidate:
    return show(id, title, year, popularity, seasons=None, kind="movie", **more)  # type: ignore[arg-type]


def series(title: str, year: int | None = None, *episodes: tuple[int | None, int]) -> Query:
    return Query(
        kind="series",
        readings=(Reading(title, year),),
        episodes=tuple((s, e, s is None) for s, e in episodes),
        seasons=tuple(sorted({s for s, _ in episodes if s is not None})),
    )


def film(title: str, year: int | None = None, *others: Reading) -> Query:
    return Query(kind="movie", readings=(Reading(title, year), *others))


def accepted(decision: Decision) -> str | None:
    return decision.chosen.provider_id if decision.chosen else None


# --- titles --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "name", "match"),
    [
        ("Heroes", "Heroes", "exact"),
        (
            "The Lord of the Rings The Fellowship of the Ring",
            "The Lord of the Rings: The Fellowship of the Ring",
            "exact",
        ),
        ("Spiderman", "Spider-Man", "exact"),
        ("Rocky 2", "Rocky II", "exact"),
        ("Dune Part Two", "Dune: Part Two", "exact"),
        ("Amelie", "Amélie", "exact"),
        ("Tom and Jerry", "Tom & Jerry", "exact"),
        ("Sherlock Holmes Game of Shadows", "Sherlock Holmes: A Game of Shadows", "close"),
        ("Heroes", "Heroes Reborn", "partial"),
        ("Castle", "Castle Rock", "partial"),
        ("Toy Story 3", "Toy Story", "partial"),
        ("Castle", "Castles", "weak"),
        ("Heroes", "Superheroes", "weak"),
    ],
)
def test_title_match(query: str, name: str, match: str) -> None:
    assert title_match(query, name) == match


def test_numerals_read_both_ways() -> None:
    assert title_key("Rocky IV") == title_key("Rocky 4")
    assert title_key("Malcolm X") != title_key("Malcolm 10")  # X, V, I stay letters
    assert numerals_swapped("The Godfather Part 2") == "The Godfather Part II"
    assert numerals_swapped("Rocky IV") == "Rocky 4"
    assert numerals_swapped("Dune") is None


# --- 1. exact title vs longer titles -----------------------------------------------------


def test_an_exact_title_beats_longer_ones_even_more_popular() -> None:
    found = [
        show("1", "Heroes", 2006, 40),
        show("2", "Heroes Reborn", 2015, 60),
        show("3", "Heroes of the Storm", 2016, 5),
    ]
    decision = decide(series("Heroes", None, (1, 3)), found, AUTO)
    assert accepted(decision) == "1"
    assert decision.code == "auto.only"
    assert decision.confidence >= AUTO


def test_a_season_pack_against_its_aftershow_imports() -> None:
    found = [show("1", "The Walking Dead", 2010, 300), show("2", "Talking Dead", 2011, 10)]
    found.append(show("3", "The Walking Dead Aftershow", 2012, 3))
    assert accepted(decide(series("The Walking Dead", None, (1, 6)), found, AUTO)) == "1"


def test_an_obscure_exact_title_does_not_hide_a_famous_longer_one() -> None:
    """A release may shorten a long title ("Frieren"): ask, never guess."""
    found = [
        show("1", "Frieren", 2009, 0.7, seasons=((1, 6),)),
        show("2", "Frieren: Beyond Journey's End", 2023, 95, seasons=((1, 28),)),
    ]
    decision = decide(series("Frieren", None, (None, 5)), found, AUTO)
    assert decision.chosen is None
    assert decision.rule == "ambiguous"
    # A title that merely contains the name is no such sign ("Us", "The Last of Us").
    found = [show("1", "Us", 2020, 8), show("2", "The Last of Us", 2023, 250)]
    assert accepted(decide(series("Us", None, (1, 1)), found, AUTO)) == "1"


# --- 2. same title, different works --------------------------------------------------------


DUNES = [
    movie("438631", "Dune", 2021, 120),
    movie("841", "Dune", 1984, 35),
    movie("693134", "Dune: Part Two", 2024, 250),
]


@pytest.mark.parametrize(("year", "expected"), [(2021, "438631"), (1984, "841"), (2022, "438631")])
def test_the_year_decides_between_remakes(year: int, expected: str) -> None:
    decision = decide(film("Dune", year), DUNES, AUTO)
    assert accepted(decision) == expected
    assert decision.code == "auto.year"


def test_same_titles_without_a_year_are_asked() -> None:
    decision = decide(film("Dune"), DUNES, AUTO)
    assert decision.chosen is None
    assert decision.code == "review.ambiguous"
    assert {c.provider_id for c in decision.candidates[:2]} == {"438631", "841"}


def test_a_wide_popularity_gap_decides_without_a_year_when_the_name_points_to_it() -> None:
    """ "Joker.1080p.BluRay": a scene name without a language tag is not the Hindi film;
    a bare "Joker" says nothing (tests/recognition/test_choices.py)."""
    found = [
        replace(movie("1", "Joker", 2019, 150), language="en"),
        replace(movie("2", "Joker", 2012, 2), language="hi"),
    ]
    decision = decide(replace(film("Joker"), since=2006), found, AUTO)
    assert accepted(decision) == "1"
    assert decision.code == "auto.popularity"
    assert decide(film("Joker"), found, AUTO).code == "review.ambiguous"


def test_an_obscure_title_on_the_year_against_a_famous_one_a_year_off_is_asked() -> None:
    found = [movie("1", "Whiplash", 2014, 80), movie("2", "Whiplash", 2013, 2, names=("Short",))]
    assert decide(film("Whiplash", 2013), found, AUTO).rule == "ambiguous"
    assert accepted(decide(film("Whiplash", 2014), found, AUTO)) == "1"


def test_a_country_tag_decides_us_against_uk() -> None:
    seasons = ((1, 12), (2, 12), (3, 12))
    found = [
        show("1", "Shameless", 2011, 90, countries=("US",), seasons=seasons),
        show("2", "Shameless", 2004, 30, countries=("GB",), seasons=seasons),
    ]
    query = Query("series", (Reading("Shameless", None),), country="UK", episodes=((3, 5, False),))
    decision = decide(query, found, AUTO)
    assert accepted(decision) == "2"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.country == "match"


def test_a_series_year_may_be_a_season_year() -> None:
    found = [show("1", "Dark", 2017, 45, seasons=((1, 10), (2, 8)))]
    found[0] = Candidate(
        **{**found[0].__dict__, "seasons": (Season(1, 10, 2017), Season(2, 8, 2019))}
    )
    decision = decide(series("Dark", 2019, (2, 3)), found, AUTO)
    assert accepted(decision) == "1"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.year == "season"


# --- 5. seasons and episodes ------------------------------------------------------------


def test_seasons_and_episodes_rule_out_what_cannot_be() -> None:
    found = [
        show("1", "Battlestar Galactica", 2003, 19, seasons=((1, 2),)),
        show("2", "Battlestar Galactica", 2004, 56, seasons=((1, 13), (2, 20), (3, 20), (4, 22))),
    ]
    assert accepted(decide(series("Battlestar Galactica", 2003, (1, 10)), found, AUTO)) == "2"
    assert accepted(decide(series("Battlestar Galactica", 2003, (4, 1)), found, AUTO)) == "2"
    # S01E01 fits both: the year says the miniseries, popularity does not overrule it.
    assert accepted(decide(series("Battlestar Galactica", 2003, (1, 1)), found, AUTO)) == "1"
    nothing = decide(series("Battlestar Galactica", None, (9, 1)), found, AUTO)
    assert nothing.chosen is None
    assert nothing.rule == "contradicted"


def test_numbered_files_do_not_rule_a_movie_out_but_a_season_does() -> None:
    found = [movie("1", "Гостья из будущего", 1985, 4)]
    # As its files are read ("1 серия" … "3 серия"), or as "at least three parts".
    numbered = tuple((None, n, True) for n in (1, 2, 3))
    parts = Query("series", (Reading("Гостья из будущего", 1985),), episodes=numbered)
    assert accepted(decide(parts, found, AUTO)) == "1"
    parts = Query("unknown", (Reading("Гостья из будущего", 1985),), episodes=((None, 3, True),))
    assert accepted(decide(parts, found, AUTO)) == "1"
    assert decide(series("Гостья из будущего", 1985, (1, 3)), found, AUTO).rule == "contradicted"


# --- 3, 4. other names, long forms, readings, ids --------------------------------------------


def test_alternative_titles_and_translations_match_like_the_title() -> None:
    aot = show("1429", "Attack on Titan", 2013, 150, names=("Shingeki no Kyojin", "Атака титанов"))
    junior = show(
        "2", "Attack on Titan: Junior High", 2015, 10, names=("Shingeki! Kyojin Chuugakkou",)
    )
    decision = decide(series("Shingeki no Kyojin", None, (None, 5)), [junior, aot], AUTO)
    assert accepted(decision) == "1429"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.matched == "Shingeki no Kyojin"
    russian = decide(
        film("Служебный роман", 1977),
        [movie("9", "Office Romance", 1977, 8, names=("Служебный роман",))],
        AUTO,
    )
    assert accepted(russian) == "9"


def test_a_number_after_the_title_is_read_both_ways() -> None:
    found = [
        movie("1", "Wonder Woman", 2017, 90),
        movie("2", "Wonder Woman 1984", 2020, 70),
        movie("3", "Wonder Woman", 1974, 3),
    ]
    query = film("Wonder Woman", 1984, Reading("Wonder Woman 1984", None))
    assert accepted(decide(query, found, AUTO)) == "2"
    query = film("Dune", 2021, Reading("Dune 2021", None))
    assert accepted(decide(query, DUNES, AUTO)) == "438631"


def test_an_identifier_names_the_title_exactly() -> None:
    found = [movie("1", "Psycho", 1960, 40, imdb="tt0054215"), movie("2", "Psycho", 1998, 15)]
    query = Query("movie", (Reading("Psycho", None),), identifiers=("imdb:tt0054215",))
    decision = decide(query, found, AUTO)
    assert accepted(decision) == "1"
    assert decision.code == "auto.identifier"
    assert decision.confidence == 1.0
    by_link = Query("movie", (Reading("Psycho", None),), identifiers=("tmdb:movie/2",))
    assert accepted(decide(by_link, found, AUTO)) == "2"


# --- auto_accept keeps its meaning ---------------------------------------------------------


def test_a_partial_title_asks_at_the_default_and_passes_a_lower_threshold() -> None:
    found = [show("1", "Frieren: Beyond Journey's End", 2023, 95, seasons=((1, 28),))]
    decision = decide(series("Frieren", 2023, (None, 5)), found, AUTO)
    assert decision.chosen is None
    assert decision.code == "review.unsure"
    assert 0.6 <= decision.confidence < AUTO
    assert accepted(decide(series("Frieren", 2023, (None, 5)), found, 0.6)) == "1"
    assert decide(film("Dune", 2021), DUNES, 0.99).chosen is None  # nothing is that sure


def test_nothing_found_and_nothing_close() -> None:
    assert decide(film("Dune"), [], AUTO).code == "review.nothing"
    assert decide(film("Dune"), [movie("1", "Arrival", 2016, 50)], AUTO).code == "review.weak"


# --- placing episodes numbered across seasons ---------------------------------------------


@pytest.mark.parametrize(
    ("episode", "season", "expected"),
    [
        (5, None, (1, 5)),
        (29, None, (2, 1)),
        (40, None, (2, 12)),
        (41, None, None),  # beyond the counts: not placed by a guess
        (5, 2, (2, 5)),  # "S2 - 05": the season's own number
        (30, 2, (2, 2)),  # "S2 - 30": counted on from season 1
        (45, 2, None),
    ],
)
def test_absolute_numbers_map_by_the_episode_counts(
    episode: int, season: int | None, expected: tuple[int, int] | None
) -> None:
    seasons = (Season(0, 3), Season(1, 28), Season(2, 12))
    assert absolute_to_season(episode, seasons, season) == expected


# --- daily shows: the episode aired on the file's date -----------------------------------


def _talk_show(id: str, title: str, first: str, ended: str | None, popularity: float) -> Candidate:
    season = Season(1, 200, int(first[:4]), None, first)
    aired = tuple(
        AiredEpisode(1, n, None, day)
        for n, day in enumerate(("2015-05-19", "2015-05-20", "2015-05-21"), start=1)
        if first <= day and (ended is None or day <= ended)
    )
    return replace(
        show(id, title, int(first[:4]), popularity),
        seasons=(season,),
        aired=aired,
        ended=ended,
    )


def test_a_dated_file_goes_to_the_show_that_aired_that_day() -> None:
    found = [
        _talk_show("colbert", "The Late Show with Stephen Colbert", "2015-09-08", None, 40),
        _talk_show("letterman", "Late Show with David Letterman", "1993-08-30", "2015-05-20", 12),
        _talk_show("fox", "The Late Show", "1986-10-09", "1988-10-28", 1),
    ]
    query = Query(
        "series", (Reading("Late Show", None),), dates=(("Late.Show.2015.05.20.mkv", "2015-05-20"),)
    )
    decision = decide(query, found, AUTO)
    assert accepted(decision) == "letterman"  # a partial title, but the only one on air
    evidence = decision.candidates[0].evidence
    assert evidence is not None
    assert (evidence.aired, evidence.listed) == ("match", (("Late.Show.2015.05.20.mkv", 1, 2),))
    aired = {c.provider_id: c.evidence.aired for c in decision.candidates if c.evidence}
    assert aired["colbert"] == "mismatch"  # not begun
    assert aired["fox"] == "mismatch"  # long ended
    later = replace(query, dates=(("Late.Show.2015.05.21.mkv", "2015-05-21"),))
    assert decide(later, found, AUTO).chosen is None  # nobody aired it: asked


def test_a_year_that_began_a_later_season_is_that_season() -> None:
    found = [show("1", "Hanzawa Naoki", 2013, 10, seasons=((1, 10), (2, 10)))]
    found[0] = replace(found[0], seasons=(Season(1, 10, 2013), Season(2, 10, 2020)))
    decision = decide(series("Hanzawa Naoki", 2020, (None, 1)), found, AUTO)
    assert accepted(decision) == "1"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.season == 2
    explicit = decide(series("Hanzawa Naoki", 2020, (1, 1)), found, AUTO)
    assert explicit.candidates[0].evidence is not None
    assert explicit.candidates[0].evidence.season is None  # "S01E01" says its own season


def test_a_dash_subtitle_the_film_does_not_explain_leaves_it_partial() -> None:
    found = [
        movie("19995", "Avatar", 2009, 200),
        show("246", "Avatar: The Last Airbender", 2005, 60, seasons=((1, 20), (2, 20), (3, 21))),
    ]
    decision = decide(series("Avatar - The Last Airbender"), found, AUTO)
    assert accepted(decision) == "246"
    titles = {c.provider_id: c.evidence.title for c in decision.candidates if c.evidence}
    assert titles["19995"] == "partial"


def test_a_special_is_found_by_its_name_or_as_the_only_one() -> None:
    specials = (
        AiredEpisode(0, 1, "Christmas Special (1)", "2003-12-26"),
        AiredEpisode(0, 2, "Christmas Special (2)", "2003-12-27"),
    )
    office = replace(
        show("2996", "The Office", 2001, 30, seasons=((0, 2), (1, 6), (2, 6))), aired=specials
    )
    path = "The.Office.UK.Christmas.Special.Part.2.2003.mkv"
    query = Query(
        "series",
        (Reading("The Office", 2003),),
        unnumbered=(path,),
        episode_title="Christmas Special Part 2",
        special=True,
    )
    evidence = decide(query, [office], AUTO).candidates[0].evidence
    assert evidence is not None
    assert evidence.listed == ((path, 0, 2),)
    unnamed = replace(query, episode_title="Holiday Special")
    evidence = decide(unnamed, [office], AUTO).candidates[0].evidence
    assert evidence is not None
    assert evidence.listed == ()  # two specials, neither named so: not placed by a guess
    only = replace(office, aired=specials[:1])
    evidence = decide(unnamed, [only], AUTO).candidates[0].evidence
    assert evidence is not None
    assert evidence.listed == ((path, 0, 1),)


def test_an_episode_title_tells_same_name_shows_apart() -> None:
    seasons = tuple((n, 13) for n in range(1, 14))
    revival = show("57243", "Doctor Who", 2005, 80, seasons=seasons)
    classic = show("121", "Doctor Who", 1963, 60, seasons=seasons)
    query = Query(
        "series",
        (Reading("Doctor Who", None),),
        episodes=((13, 1, False),),
        seasons=(13,),
        episode_title="Chapter One The Halloween Apocalypse",
    )
    assert decide(query, [revival, classic], AUTO).chosen is None  # nothing tells them apart
    named = replace(
        revival, aired=(AiredEpisode(13, 1, "Chapter One: The Halloween Apocalypse", None),)
    )
    other = replace(classic, aired=(AiredEpisode(13, 1, "Terror of the Autons (1)", None),))
    decision = decide(query, [named, other], AUTO)
    assert accepted(decision) == "57243"
    assert decision.code == "auto.episode"
    generic = replace(other, aired=(AiredEpisode(13, 1, "Episode 1", None),))
    assert decide(query, [replace(named, aired=generic.aired), generic], AUTO).chosen is None


def test_the_specials_of_a_box_are_found_by_the_names_in_their_files() -> None:
    specials = (
        AiredEpisode(0, 4, "Time Crash", None),
        AiredEpisode(0, 5, "Voyage of the Damned", None),
        AiredEpisode(0, 6, "Doctor Who", None),  # the show's own name names nothing
    )
    who = replace(show("57243", "Doctor Who", 2005, 80, seasons=((0, 6), (4, 13))), aired=specials)
    box = ("Box/Specials/Doctor.Who.2005.Time.Crash.mkv", "Box/Specials/Doctor.Who.2005.Extra.mkv")
    query = Query(
        "series",
        (Reading("Doctor Who", 2007),),
        episodes=((4, 1, False),),
        seasons=(4,),
        unnumbered=box,
    )
    evidence = decide(query, [who], AUTO).candidates[0].evidence
    assert evidence is not None
    assert evidence.listed == ((box[0], 0, 4),)  # the other stays unplaced: asked


def test_another_reading_that_is_a_seasons_name_is_that_season() -> None:
    found = [show("1", "Demon Slayer", 2019, 180, seasons=((1, 26), (2, 7), (3, 11)))]
    found[0] = replace(
        found[0],
        seasons=(
            Season(1, 26, 2019, "Unwavering Resolve Arc"),
            Season(3, 11, 2021, "Entertainment District Arc"),
        ),
    )
    query = Query(
        "series",
        (Reading("Demon Slayer", None), Reading("Entertainment District Arc", None)),
        episodes=((None, 5, True),),
    )
    evidence = decide(query, found, AUTO).candidates[0].evidence
    assert evidence is not None
    assert evidence.season == 3


def test_the_final_season_is_the_last_one() -> None:
    found = [
        show("1429", "Attack on Titan", 2013, 130, seasons=((1, 25), (2, 12), (3, 22), (4, 30)))
    ]
    found[0] = replace(found[0], names=("Shingeki no Kyojin",))
    query = Query(
        "series",
        (Reading("Shingeki no Kyojin - The Final Season", None),),
        episodes=((None, 5, True),),
    )
    decision = decide(query, found, AUTO)
    assert accepted(decision) == "1429"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.season == 4


@pytest.mark.parametrize(("tag", "expected"), [("ko", "2"), ("fr", None)])
def test_a_language_shows_are_rarely_dubbed_into_outweighs_popularity(
    tag: str, expected: str | None
) -> None:
    # KOREAN names the Korean show's own language; FRENCH may be a dub of the famous one.
    found = [
        show("1", "Harbor Lights", 2011, 200),
        replace(show("2", "Harbor Lights", 2018, 15, countries=("KR",)), language="ko"),
        replace(show("3", "Harbor Lights", 2020, 12, countries=("FR",)), language="fr"),
    ]
    query = replace(series("Harbor Lights", None, (1, 5)), language=tag)
    decision = decide(query, found, AUTO)
    assert accepted(decision) == expected
    assert decision.rule == ("language" if expected else "ambiguous")


def test_a_title_spelled_without_the_article_is_the_one_without_it() -> None:
    found = [show("1", "The Night Ward", 2006, 20), show("2", "Night Ward", 2022, 15)]
    decision = decide(series("Night Ward", None, (1, 2)), found, AUTO)
    assert accepted(decision) == "2"
    assert decision.rule == "article"
    assert accepted(decide(series("The Night Ward", None, (1, 2)), found, AUTO)) == "1"


def test_an_alternative_titles_subtitle_sharing_a_name_with_one_season_is_that_season() -> None:
    named = (
        Season(1, 24, 2018, "Season 1"),
        Season(2, 11, 2021, "Crimson Harbor Arc"),
        Season(3, 8, 2023, "Tenkuu Training Arc"),
    )
    blade = replace(
        show("1", "Blade of the Moon", 2018, 80),
        seasons=named,
        names=(
            "Tsuki no Tsurugi",
            "Tsuki no Tsurugi: Tenkuu Keiko-hen",
            "Tsuki no Tsurugi: Akai-hen",
        ),
    )
    shared = decide(series("Tsuki no Tsurugi - Tenkuu Keiko-hen", None, (None, 5)), [blade], AUTO)
    assert shared.candidates[0].evidence is not None
    assert shared.candidates[0].evidence.season == 3
    none = decide(series("Tsuki no Tsurugi - Akai-hen", None, (None, 5)), [blade], AUTO)
    assert none.candidates[0].evidence is not None
    assert none.candidates[0].evidence.season is None
    assert none.candidates[0].evidence.season_words == "akai hen"


def test_the_one_video_in_a_specials_folder_of_a_show_with_one_special() -> None:
    hours = show("1", "Office Hours", 2010, 35, seasons=((0, 1), (1, 3)))
    box = ("Box/Series 1/01. Monday.avi", "Box/Special/Closing Time.avi")
    query = Query(
        "series", (Reading("Office Hours", 2010),), episodes=((1, 1, False),), unnumbered=box[1:]
    )
    evidence = decide(query, [hours], AUTO).candidates[0].evidence
    assert evidence is not None
    assert evidence.listed == ((box[1], 0, 1),)
    two = replace(hours, seasons=(Season(0, 2, 2010), Season(1, 3, 2010)))
    evidence = decide(query, [two], AUTO).candidates[0].evidence
    assert evidence is not None
    assert evidence.listed == ()  # which of two specials is not known: asked
