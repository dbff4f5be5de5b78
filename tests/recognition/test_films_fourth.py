"""Films a careful person takes at once beside a series, a sequel or a cut of the same
name (issue #35 'films4'): a number opening a film's title is no episode ("12.Monkeys",
"21.Jump.Street", "10.Things.I.Hate.About.You": guessit read episode 12 of "Monkeys"),
and an edition after a show's name is a reading of its name ("The.Hateful.Eight.
Extended.Version.S01": Netflix's four-part cut, a series of its own), a concert film
TMDB names as its artist's ("This.Is.It.2009" of "Michael Jackson's This Is It")
(tests/data/regression/films4.json)."""

from recognition.candidates import Query, Reading
from recognition.decide import decide
from recognition.parsing.release import parse_file, parse_release
from tests.support.candidates import titled, with_seasons
from tests.support.search import chosen, film

AUTO = 0.85


def test_a_number_opening_a_name_is_the_titles_first_word() -> None:
    for name, title in (
        ("12.Monkeys.1080p.BluRay.x264-SADPANDA", "12 Monkeys"),
        ("21.Jump.Street.1080p.BluRay.x264-SPARKS", "21 Jump Street"),
        ("10.Things.I.Hate.About.You.720p.BluRay.x264-SiNNERS", "10 Things I Hate About You"),
        ("13.Going.on.30.720p.BluRay", "13 Going on 30"),  # a second bare number too
        ("101.Dalmatians.1080p", "101 Dalmatians"),  # guessit: S01E01
    ):
        parsed = parse_release(name)
        assert (parsed.kind, parsed.title, parsed.episodes) == ("movie", title, ()), name


def test_a_number_with_an_episode_marker_or_a_leading_zero_stays_an_episode() -> None:
    show = parse_release("12.Monkeys.S03E01.720p.HDTV.x264-SVA")
    assert (show.kind, show.title, show.season, show.episodes) == ("series", "12 Monkeys", 3, (1,))
    assert parse_release("24.S05E01.720p.HDTV").title == "24"
    assert parse_release("05.Pilot.720p.HDTV").kind == "series"  # "05": an episode's number
    # A pack's file naming no format: its number is the episode's.
    assert parse_file("Show/12 The Gift.avi").episodes == (12,)
    assert parse_release("Apollo.13.720p.BluRay").title_with_year == "Apollo 13"  # unchanged


def test_an_edition_after_a_shows_name_is_a_reading_of_the_name() -> None:
    parsed = parse_release("The.Hateful.Eight.Extended.Version.S01.1080p.NF.WEB-DL.DDP5.1.x264-NTG")
    assert (parsed.kind, parsed.title, parsed.season) == ("series", "The Hateful Eight", 1)
    assert parsed.title_with_year == "The Hateful Eight Extended Version"
    # After the season marker it is the episodes' edition, no word of the name.
    assert parse_release("Show.S01E01.Extended.1080p.BluRay").title_with_year is None
    film = with_seasons("273248", "The Hateful Eight", 2015, 30.0)
    cut = with_seasons(
        "90001",
        "The Hateful Eight: Extended Version",
        2019,
        5.0,
        kind="series",
        seasons=((1, 4, 2019),),
    )
    query = Query(
        "series",
        (Reading("The Hateful Eight", None), Reading("The Hateful Eight Extended Version", None)),
        episodes=tuple((1, e, False) for e in range(1, 5)),
        seasons=(1,),
        whole_seasons=True,
    )
    assert chosen(decide(query, [film, cut], AUTO)) == "90001"


def test_a_films_name_after_its_artists_possessive_is_close() -> None:
    this_is_it = titled(
        "23706",
        "Michael Jackson's This Is It",
        2009,
        15.0,
        overview="Michael Jackson's rehearsals for his London concerts.",
    )
    assert chosen(decide(film("This Is It", 2009), [this_is_it], AUTO)) == "23706"
    # A one-word owner is a word of the name, no artist: "Eleven" is no "Ocean's Eleven".
    oceans = titled("161", "Ocean's Twelve Men", 2004, 25.0, overview="Danny Ocean's crew.")
    assert decide(film("Twelve Men", 2004), [oceans], AUTO).chosen is None
    # Nor is an owner the overview does not name.
    silent = titled("23706", "Michael Jackson's This Is It", 2009, 15.0, overview="Rehearsals.")
    assert decide(film("This Is It", 2009), [silent], AUTO).chosen is None
