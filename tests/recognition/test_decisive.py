"""Several candidates, and evidence enough for a careful person not to hesitate (issue
#35 'decisive'): a concert's year its overview gives, a tour or maker its overview names,
an edition only after a film's whole name, an episode's name against the year, a romaji
name before TMDB's long subtitle, a lone fansub episode that is no film; and where the
evidence does not point to one, still asked (tests/data/regression/decisive.json)."""

from dataclasses import replace

from recognition.candidates import AiredEpisode, Query, Reading
from recognition.decide import decide
from recognition.explain import explain, without_tour
from tests.support.candidates import with_seasons as title
from tests.support.search import chosen, film, offered

AUTO = 0.85


# --- concerts, stand-up, documentaries --------------------------------------------------


READING = title(
    "23855",
    "Nirvana: Live at Reading",
    2009,
    5,
    overview="Nirvana's headline performance at the Reading Festival on 30 August 1992.",
)


def test_a_concerts_year_is_the_one_its_overview_gives() -> None:
    decision = decide(film("Nirvana Live at Reading", 1992), [READING], AUTO)
    assert chosen(decision) == "23855"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.year == "told"
    # An overview silent about 1992: the year is against it.
    silent = replace(READING, overview="Nirvana at the Reading Festival.")
    assert decide(film("Nirvana Live at Reading", 1992), [silent], AUTO).chosen is None
    # A year after the film's is no concert's: a remake's, a re-release's.
    assert decide(film("Nirvana Live at Reading", 2012), [READING], AUTO).chosen is None


def test_an_edition_follows_a_whole_name_not_the_artist_before_its_colon() -> None:
    church = ["Jimi Hendrix: Electric Church"]
    assert not explain("Jimi Hendrix Live at Woodstock", church, [], None).edition
    assert explain("Jimi Hendrix Electric Church Live at Atlanta", church, [], None).edition
    woodstock = title("47065", "Jimi Hendrix: Live at Woodstock", 1999, 4)
    electric = title("342987", "Jimi Hendrix: Electric Church", 2015, 2)
    query = Query(
        "movie",
        (
            Reading("Jimi Hendrix Live at Woodstock", 1969),
            Reading("Jimi Hendrix Live at Woodstock 1969", None),
        ),
    )
    assert decide(query, [electric], AUTO).chosen is None  # was taken: the artist + "Live at"
    told = replace(woodstock, overview="Jimi Hendrix's set closing Woodstock, 18 August 1969.")
    assert chosen(decide(query, [electric, told], AUTO)) == "47065"


def test_a_tour_or_maker_after_a_films_name_is_explained_by_its_overview() -> None:
    assert without_tour("Beyonce Renaissance World Tour") == "Beyonce Renaissance"
    assert without_tour("Exit Through the Gift Shop A Banksy Film") == "Exit Through the Gift Shop"
    assert without_tour("Stop Making Sense") is None
    renaissance = title(
        "1160018",
        "Renaissance: A Film by Beyoncé",
        2023,
        9,
        overview="Beyoncé's RENAISSANCE WORLD TOUR, from Stockholm to Kansas City.",
    )
    decision = decide(film("Beyonce Renaissance World Tour", 2023), [renaissance], AUTO)
    assert chosen(decision) == "1160018"
    # A film of the name whose overview names no such tour ("Prince Purple Rain Tour").
    silent = replace(renaissance, overview="A film of the album.")
    assert decide(film("Beyonce Renaissance World Tour", 2023), [silent], AUTO).chosen is None
    shop = title(
        "39452", "Exit Through the Gift Shop", 2010, 9, overview="… the street artist Banksy."
    )
    query = film("Exit Through the Gift Shop A Banksy Film", 2010)
    assert chosen(decide(query, [shop], AUTO)) == "39452"
    assert decide(query, [replace(shop, overview="A street art film.")], AUTO).chosen is None


def test_a_nearly_equal_title_of_the_exact_year_puts_one_a_year_off_in_doubt() -> None:
    special = title(
        "479003",
        "Patton Oswalt: Annihilation",
        2017,
        3,
        overview="Patton Oswalt tackles the state of the world in this stand-up special.",
    )
    scifi = title("300668", "Annihilation", 2018, 45)
    decision = decide(film("Annihilation", 2017), [special, scifi], AUTO)
    assert decision.chosen is None
    assert offered(decision) >= {"479003", "300668"}
    assert chosen(decide(film("Patton Oswalt Annihilation", 2017), [special, scifi], AUTO)) == (
        "479003"
    )
    assert chosen(decide(film("Annihilation", 2018), [special, scifi], AUTO)) == "300668"


# --- an episode's name against the year --------------------------------------------------


def _episode(name: str, year: int) -> Query:
    return Query(
        "series",
        (Reading("Charmed", year), Reading(f"Charmed {year}", None)),
        episodes=((1, 1, False),),
        seasons=(1,),
        episode_title=name,
    )


OLD = title("1981", "Charmed", 1998, 90, kind="series", seasons=((1, 22, 1998),))
NEW = title("80587", "Charmed", 2018, 30, kind="series", seasons=((1, 22, 2018),))


def test_an_episodes_name_wins_over_the_year_when_the_others_is_another() -> None:
    old = replace(OLD, aired=(AiredEpisode(1, 1, "Something Wicca This Way Comes", None),))
    new = replace(NEW, aired=(AiredEpisode(1, 1, "Pilot", None),))
    decision = decide(_episode("Something Wicca This Way Comes", 2018), [old, new], AUTO)
    assert chosen(decision) == "1981"
    assert decision.code == "auto.episode"
    assert decision.confidence >= AUTO
    # The year's show without its list: whether its episode has that name is not known.
    asked = decide(_episode("Something Wicca This Way Comes", 2018), [old, NEW], AUTO)
    assert asked.chosen is None
    assert offered(asked) >= {"1981", "80587"}


# --- anime: a romaji name before TMDB's long subtitle -------------------------------------


def _fansub(name: str, number: int = 5) -> Query:
    return Query("series", (Reading(name, None),), episodes=((None, number, True),))


BOOKWORM = title(
    "91557",
    "Ascendance of a Bookworm",
    2019,
    30,
    kind="series",
    seasons=((1, 14, 2019), (2, 12, 2020)),
    language="ja",
    names=("Honzuki no Gekokujou: Shisho ni Naru Tame ni wa Shudan wo Erandeiraremasen",),
)


def test_a_japanese_show_by_its_romaji_before_a_long_subtitle() -> None:
    decision = decide(_fansub("Honzuki no Gekokujou"), [BOOKWORM], AUTO)
    assert chosen(decision) == "91557"
    assert decision.candidates[0].evidence is not None
    assert decision.candidates[0].evidence.shortened
    # Not a show of another language: "Star Wars" of "Star Wars: The Clone Wars".
    clone = title(
        "4194", "Star Wars: The Clone Wars", 2008, 60, kind="series", seasons=((1, 22, 2008),)
    )
    assert decide(_fansub("Star Wars"), [clone], AUTO).chosen is None


def test_a_name_matched_whole_is_before_one_matched_by_its_start() -> None:
    night = title(
        "1000", "Fate/stay night", 2006, 30, kind="series", seasons=((1, 24, 2006),), language="ja"
    )
    works = title(
        "1001",
        "Fate/stay night: Unlimited Blade Works",
        2014,
        50,
        kind="series",
        seasons=((1, 12, 2014),),
        language="ja",
    )
    decision = decide(_fansub("Fate stay night"), [night, works], AUTO)
    assert chosen(decision) == "1000"
    assert decision.code == "auto.whole"


def test_a_lone_fansub_episode_is_no_film() -> None:
    live = title("553604", "Kaguya-sama: Love Is War", 2019, 8, language="ja")
    names = ("Kaguya-sama wa Kokurasetai: Tensai-tachi no Renai Zunousen",)
    show = title(
        "83121",
        "Kaguya-sama: Love Is War",
        2019,
        70,
        kind="series",
        seasons=((1, 12, 2019),),
        language="ja",
        names=names,
    )
    live = replace(live, names=names)
    assert chosen(decide(_fansub("Kaguya-sama wa Kokurasetai"), [live, show], AUTO)) == "83121"
    # A film's parts come together ("1 серия", "2 серия"): no misfit.
    parts = Query(
        "series",
        (Reading("Kaguya-sama wa Kokurasetai", None),),
        episodes=((None, 1, True), (None, 2, True)),
    )
    film_evidence = next(
        c for c in decide(parts, [live, show], AUTO).candidates if c.kind == "movie"
    )
    assert film_evidence.evidence is not None
    assert film_evidence.evidence.seasons != "misfit"
