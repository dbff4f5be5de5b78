"""Series from trackers outside the English-speaking world (issue #35): a show's local
name beside its original, season ranges and words of other languages, names written in
plain Latin, a Russian show by its name before TMDB's subtitle, Turkish episodes
numbered across seasons. The decisions are in tests/data/regression/shows3.json; here
the classes, one by one."""

from dataclasses import replace

import pytest

from recognition.candidates import Candidate, Query, Reading, Season
from recognition.decide import decide
from recognition.explain import explain
from recognition.folding import title_key
from recognition.identify import Release, identify_download
from recognition.lookups import Lookup
from recognition.parsing.episodes import counts_on
from recognition.parsing.release import parse_release
from recognition.recognize import TorrentFile
from tests.support.candidates import with_seasons
from tests.support.search import AUTO, Search, parse
from tests.support.tmdb import matches


def show(id: str, name: str, year: int, seasons: int, *names: str) -> Candidate:
    held = tuple((n, 10, year + n - 1) for n in range(1, seasons + 1))
    return with_seasons(id, name, year, 50, kind="series", names=names, seasons=held)


def chosen(query: Query, titles: list[Candidate]) -> str | None:
    decision = decide(query, titles, AUTO)
    return decision.chosen.provider_id if decision.chosen else None


# --- 1. a show's local name beside its original ------------------------------------------------


def test_a_local_name_and_the_original_with_its_article_are_the_shows_exact_name() -> None:
    witcher = show("71912", "The Witcher", 2019, 3, "Wiedźmin")
    hexer = show("20531", "The Hexer", 2002, 1, "Wiedźmin")
    query = Query("series", (Reading("Wiedźmin - The Witcher", None),), seasons=(3,))
    assert chosen(replace(query, episodes=((3, 1, False),)), [witcher, hexer]) == "71912"
    season = show("222758", "The Long Season", 2023, 1, "漫长的季节")
    query = Query("series", (Reading("漫长的季节 The Long Season", None),), seasons=(1,))
    assert chosen(replace(query, episodes=((1, 1, False),)), [season]) == "222758"


async def picked(name: str, paths: list[str], titles: list[Candidate]) -> str | None:
    catalogue = Search(titles)
    release = Release(name, tuple(TorrentFile(p, 10**9) for p in paths))
    decision = await identify_download(
        release, parse, Lookup(catalogue), auto_accept=AUTO, language="ru-RU"
    )
    return decision.chosen.provider_id if decision.chosen else None


async def test_a_season_pack_by_a_local_name_tmdb_does_not_know_is_read_after_the_dash() -> None:
    heist = show("71446", "Money Heist", 2017, 5, "La casa de papel")
    korea = show("130392", "Money Heist: Korea", 2022, 1, "La casa de papel: Corea")
    name = "Dom z papieru - La casa de papel Sezon 3 PL 1080p"
    paths = [f"{name}/Dom.z.papieru.S03E0{n}.mkv" for n in (1, 2, 3)]
    assert await picked(name, paths, [heist, korea]) == "71446"
    # One episode without a year: its title may follow the dash, nothing is taken.
    name = "Dom z papieru - La casa de papel S03E01 PL 1080p"
    assert await picked(name, [f"{name}.mkv"], [heist, korea]) is None


# --- 2. names in plain Latin ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("Muhtesem Yuzyil", "Muhteşem Yüzyıl"),  # Turkish dotless i
        ("Slepnac od swiatel", "Ślepnąc od świateł"),  # Polish l with a stroke
        ("Ornen", "Ørnen"),
    ],
)
def test_letters_without_a_decomposition_are_compared_and_searched_as_plain_latin(
    written: str, name: str
) -> None:
    assert title_key(written) == title_key(name)
    assert matches(written, name)


# --- 3. season words and ranges -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title", "seasons"),
    [
        ("Sintonia 1ª a 5ª Temporada Completa Dual Áudio 1080p", "Sintonia", (1, 2, 3, 4, 5)),
        ("Muhteşem Yüzyıl 1-4. Sezon Tüm Bölümler", "Muhteşem Yüzyıl", (1, 2, 3, 4)),
        ("Dark Staffel 1 bis 3 German DL", "Dark", (1, 2, 3)),
        ("Dix pour cent Saisons 1 à 4 FRENCH", "Dix pour cent", (1, 2, 3, 4)),
        ("Exit Sesong 1 til 3 NORWEGiAN", "Exit", (1, 2, 3)),
        ("Rojst Sezony 1-3 PL", "Rojst", (1, 2, 3)),
        ("Babylon Berlin Staffeln 1-4 German", "Babylon Berlin", (1, 2, 3, 4)),
        ("Мажор 1-4 сезон (2014-2021) WEB-DL", "Мажор", (1, 2, 3, 4)),
        ("キングダム 第5シリーズ 全13話 BD 1080p", "キングダム", (5,)),
        # A list is no range, nor a number before a season word in the singular.
        ("Show 1-2 Season 3", "Show 1-2", (3,)),
        ("[SubsPlease] Oshi no Ko Season 2 - 05 (1080p)", "Oshi no Ko", (2,)),  # an episode
    ],
)
def test_a_range_of_seasons_in_other_languages(
    name: str, title: str, seasons: tuple[int, ...]
) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.seasons) == (title, seasons)


def test_a_title_ending_in_season_then_its_year_and_a_season() -> None:
    parsed = parse_release("[漫长的季节].The.Long.Season.2023.S01.Complete.2160p.WEB-DL")
    assert (parsed.title, parsed.year, parsed.season) == ("The Long Season", 2023, 1)
    assert parse_release("Panorama Season 2023").season == 2023


@pytest.mark.parametrize(
    "title",
    ["Stromberg - Die komplette Serie", "Stromberg Serie Completa", "Stromberg L'Intégrale"],
)
def test_the_whole_show_in_other_languages_is_explained(title: str) -> None:
    seasons = [Season(n, 10) for n in range(1, 6)]
    why = explain(title, ["Stromberg"], [], seasons)
    assert (why.edition, why.unexplained) == (True, None)


# --- 4. a Russian show by its name before TMDB's subtitle ---------------------------------------


def test_a_russian_shows_name_before_the_subtitle_after_a_full_stop_with_its_year() -> None:
    boys = replace(
        show("235425", "The Boy's Word: Blood on the Asphalt", 2023, 1),
        original_title="Слово пацана. Кровь на асфальте",
    )
    query = Query("series", (Reading("Слово пацана", 2023),), episodes=((None, 1, False),))
    assert chosen(query, [boys]) == "235425"
    # Without the year, or of another year: asked.
    query = Query("series", (Reading("Слово пацана", None),), episodes=((None, 1, False),))
    assert chosen(query, [boys]) is None


# --- 5. Turkish episodes numbered across seasons ----------------------------------------------


def test_a_turkish_channels_episode_number_may_count_on_from_the_first_season() -> None:
    assert counts_on("Kuruluş Osman/5. Sezon/131. Bölüm.mp4")
    assert counts_on("Muhteşem Yüzyıl 4. Sezon/Muhteşem Yüzyıl 104. Bölüm.mp4")
    assert not counts_on("Muhteşem Yüzyıl 4. Sezon/Muhteşem Yüzyıl 4. Sezon 1. Bölüm.mp4")
    assert not counts_on("Dark/Staffel 2/Dark.Folge.5.mkv")


@pytest.mark.parametrize(
    "name",
    [
        "La.Casa.de.Papel.3ª.Parte.1080p.NF.WEB-DL.DUAL",
        "La Casa de Papel - 3ª Parte Completa (2019) 1080p Dublado",
        "La Casa de Papel - Parte 3 (2019) 1080p Dublado",
    ],
)
async def test_a_part_numbered_first_is_tmdbs_part_of_that_number(name: str) -> None:
    """ "3ª Parte" (the ordinal first, as Portuguese and Spanish write it), also with
    "Completa", is the season TMDB names "Part 3"."""
    casa = replace(
        with_seasons("71446", "La casa de papel", 2017, 150, kind="series", language="es"),
        seasons=tuple(
            Season(n, count, year, name=f"Part {n}")
            for n, count, year in ((1, 9, 2017), (2, 6, 2017), (3, 8, 2019), (4, 8, 2020))
        ),
    )
    queen = show("62688", "Queen of the South", 2016, 5)
    files = tuple(TorrentFile(f"{name}/La.Casa.de.Papel.E0{n}.mkv", 10**9) for n in (1, 2))
    decision = await identify_download(
        Release(name, files), parse, Lookup(Search([casa, queen])), auto_accept=AUTO,
        language="ru-RU",
    )  # fmt: skip
    assert decision.chosen is not None
    assert decision.chosen.provider_id == "71446"
    assert decision.chosen.evidence is not None
    assert decision.chosen.evidence.season == 3
