"""Anime franchises and specials, round four (issue #35): a romaji name whose subtitle is
the title's own is the show's whole name; a number only the whole-named show's later
seasons hold beside a remake that holds it is asked; a special numbered past a show's
one special, or marked otherwise than TMDB's names ("OAD" of "OVA 1"), is none of
them; a box's "Christmas Special 2011" is the special aired that Christmas
(recognition.explain, recognition.decide, recognition.weigh)."""

from recognition.candidates import AiredEpisode, Candidate, Query, Reading, Season
from recognition.decide import decide
from recognition.explain import explain
from recognition.weigh import weigh
from tests.support.candidates import titled

_SPICE = "Spice and Wolf: MERCHANT MEETS THE WISE WOLF"
_ROMAJI = "Ookami to Koushinryou: Merchant Meets the Wise Wolf"


def _spice_2008(
    specials: tuple[str, ...] = ("Wolf and Best Clothes", "Wolf and Amber"),
) -> Candidate:
    aired = tuple(AiredEpisode(0, i, n, "2008-06-25") for i, n in enumerate(specials, 1))
    return titled(
        "50", "Spice and Wolf", 2008, 35.0, kind="series", language="ja",
        names=("Ookami to Koushinryou",), aired=aired,
        seasons=(Season(0, len(specials)), Season(1, 13), Season(2, 12)),
    )  # fmt: skip


def _spice_2024() -> Candidate:
    return titled(
        "51", _SPICE, 2024, 50.0, kind="series", language="ja", names=(_ROMAJI,),
        aired=(AiredEpisode(0, 1, "Recap", "2024-06-25"),), seasons=(Season(0, 1), Season(1, 25)),
    )  # fmt: skip


def test_a_romaji_name_with_the_titles_own_subtitle_is_the_whole_name() -> None:
    why = explain(
        "Ookami to Koushinryou - Merchant Meets the Wise Wolf",
        [_SPICE],
        [_ROMAJI],
        (Season(1, 25),),
    )
    assert why.season_words is None
    assert why.unexplained is None


def test_an_arc_named_in_romaji_alone_is_still_a_part() -> None:
    why = explain(
        "Kimetsu no Yaiba - Katanakaji no Sato-hen",
        ["Demon Slayer: Kimetsu no Yaiba"],
        ["Kimetsu no Yaiba: Katanakaji no Sato-hen"],
        (Season(1, 26),),
    )
    assert why.season_words == "katanakaji no sato hen"


def _numbered(number: int) -> Query:
    return Query(
        kind="series", readings=(Reading("Spice and Wolf", None),), episodes=((None, number, True),)
    )


def test_a_number_only_the_whole_named_shows_later_season_holds_is_asked() -> None:
    decision = decide(_numbered(20), [_spice_2008(), _spice_2024()], 0.9)
    assert decision.chosen is None


def test_a_number_of_both_first_seasons_goes_to_the_whole_name() -> None:
    decision = decide(_numbered(5), [_spice_2008(), _spice_2024()], 0.9)
    assert decision.chosen is not None
    assert decision.chosen.provider_id == "50"


def _special(path: str, number: int | None, title: str = "Ookami to Koushinryou") -> Query:
    return Query(
        kind="series", readings=(Reading(title, None),), unnumbered=(path,), special=True,
        specials=((path, number),),
    )  # fmt: skip


def test_ova2_is_not_a_shows_only_special() -> None:
    path = "[Group] Ookami to Koushinryou OVA2 [BD 1080p].mkv"
    assert weigh(_special(path, 2), _spice_2024()).listed == ()
    lone = "[Group] Ookami to Koushinryou OVA [BD 1080p].mkv"
    assert weigh(_special(lone, None), _spice_2024()).listed == ((lone, 0, 1),)


def test_an_oad_is_not_placed_by_an_ovas_number() -> None:
    show = _spice_2008(("OVA 1", "OVA 2"))
    oad = "Box/OVA/[Group] Ookami to Koushinryou [OAD] - 01.mkv"
    ova = "Box/OVA/[Group] Ookami to Koushinryou [OVA] - 01.mkv"
    assert weigh(_special(oad, 1), show).listed == ()
    assert weigh(_special(ova, 1), show).listed == ((ova, 0, 1),)


def test_a_boxs_christmas_special_of_a_year_is_the_one_aired_then() -> None:
    names = ("Christmas at Downton Abbey", "The Journey to the Highlands")
    show = titled(
        "100", "Downton Abbey", 2010, 90.0, kind="series", language="en",
        aired=(
            AiredEpisode(0, 1, names[0], "2011-12-25"), AiredEpisode(0, 2, names[1], "2012-12-25"),
        ),
        seasons=(Season(0, 2), Season(1, 7)),
    )  # fmt: skip
    paths = [f"Box/Specials/Downton Abbey - Christmas Special {y}.mkv" for y in (2011, 2012)]
    query = Query(
        kind="series", readings=(Reading("Downton Abbey", None),), unnumbered=tuple(paths),
        episodes=((1, 1, False),), specials=tuple((p, None) for p in paths),
    )  # fmt: skip
    assert set(weigh(query, show).listed) == {(paths[0], 0, 1), (paths[1], 0, 2)}
