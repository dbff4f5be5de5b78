"""Releases named in their own language: season and episode words of other languages,
local titles, language tags of a dub (issue #35; the decisions are in
tests/data/regression/local.json)."""

import pytest

from recognition.candidates import Reading
from recognition.gather import _written_in
from recognition.parsing.release import folder_season, parse_file, parse_release, without_part


@pytest.mark.parametrize(
    ("name", "title", "season", "episodes"),
    [
        ("Karppi.Kausi.2.FiNNiSH.1080p.WEB.H264", "Karppi", 2, ()),
        ("Σασμός Σεζόν 2 Επεισόδιο 45", "Σασμός", 2, (45,)),
        ("פאודה עונה 4", "פאודה", 4, ()),
        ("مسلسل الهيبة الجزء الثاني الحلقة 5 HD", "الهيبة", 2, (5,)),
        ("스위트홈 시즌2 1080p NF WEB-DL", "스위트홈", 2, ()),
        ("進撃の巨人 第2期 全12話 BD 1080p", "進撃の巨人", 2, ()),
        ("Mahalle Bekçileri 2. Sezon 5. Bölüm", "Mahalle Bekçileri", 2, (5,)),
        ("주술회전 2기 05화 1080p", "주술회전", 2, (5,)),
        ("무빙 제5화 1080p WEB-DL", "무빙", None, (5,)),
        ("เด็กใหม่ ซีซั่น 2 ตอนที่ 5 1080p", "เด็กใหม่", 2, (5,)),
        ("पंचायत सीज़न 2 एपिसोड 5", "पंचायत", 2, (5,)),
        ("शहरज़ाद सीजन 3", "शहरज़ाद", 3, ()),
        ("شهرزاد فصل دوم قسمت ۵", "شهرزاد", 2, (5,)),
        ("الهيبة الموسم الثاني الحلقة ٥", "الهيبة", 2, (5,)),
        ("庆余年 第二季 第05集 4K", "庆余年", 2, (5,)),
        ("半沢直樹　第２期　第５話　１０８０ｐ", "半沢直樹", 2, (5,)),
        ("Maestro Κύκλος 2 Επεισόδιο 5 1080p", "Maestro", 2, (5,)),
    ],
)
def test_season_and_episode_words_of_other_languages(
    name: str, title: str, season: int | None, episodes: tuple[int, ...]
) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.title, parsed.season, parsed.episodes) == (
        "series",
        title,
        season,
        episodes,
    )


@pytest.mark.parametrize(
    ("path", "season", "episodes"),
    [
        ("Gomorra - Stagioni 1-5 iTA/Stagione 3/Gomorra - Episodio 05.mkv", 3, (5,)),
        ("4 Blocks Staffel 1-3 German/4 Blocks Staffel 3/4 Blocks - Folge 06.mkv", 3, (6,)),
        ("Slu/Слуга народу. Сезон 2. Серія 05.mkv", 2, (5,)),
        ("스위트홈 시즌2/스위트홈 시즌2 8화.mkv", 2, (8,)),
        ("Show/2ª Temporada/Show - 05.mkv", 2, (5,)),
    ],
)
def test_files_by_season_folders_and_episode_words(
    path: str, season: int, episodes: tuple[int, ...]
) -> None:
    parsed = parse_file(path, kind="series")
    assert (parsed.season, parsed.episodes) == (season, episodes)


def test_a_folder_with_a_range_of_seasons_names_no_one_season() -> None:
    assert folder_season("Show S01-S03") is None
    assert folder_season("Show Staffel 1-3") is None
    assert folder_season("Show S01-S03/Kausi 2") == 2


@pytest.mark.parametrize(
    ("name", "title", "language"),
    [
        ("Spider-Man.Cruzando.el.Multiverso.2023.1080p.WEB-DL.Latino", "Spider-Man Cruzando", None),
        ("Vice-Versa.2.2024.TRUEFRENCH.1080p.WEB.H264-FW", "Vice-Versa 2", "fr"),
        ("Drishyam Hindi Dubbed 720p HDRip x264", "Drishyam", None),
        ("Élite - Temporada 3 [1080p] [Castellano]", "Élite", None),  # guessit: Catalan
        ("Oppenheimer.2023.iTA.1080p", "Oppenheimer", "it"),
    ],
)
def test_tags_of_a_dub_are_no_title_words_nor_the_originals_language(
    name: str, title: str, language: str | None
) -> None:
    parsed = parse_release(name)
    assert parsed.title is not None
    assert parsed.title.startswith(title)
    assert parsed.language == language


def test_the_original_in_brackets_is_another_reading() -> None:
    parsed = parse_release("Del revés 2 (Inside Out 2) (2024) [1080p] [Latino]")
    assert (parsed.title, parsed.alt_title, parsed.year) == ("Del revés 2", "Inside Out 2", 2024)
    assert parse_release("Aliens (Extended) 1986").alt_title is None
    assert parse_release("The Office (US) S01").alt_title is None


def test_a_part_of_a_show_at_the_end_of_its_title() -> None:
    assert without_part("La Casa de Papel - Parte 3") == "La Casa de Papel"
    assert without_part("Lupin Partie 2") == "Lupin"
    assert without_part("Lupin") is None


@pytest.mark.parametrize(
    ("title", "tag", "language"),
    [
        ("Σασμός", None, "el-GR"),
        ("פאודה", None, "he-IL"),
        ("三体", None, "zh-CN"),
        ("進撃の巨人", None, "ja-JP"),
        ("Кіборги", None, "uk-UA"),
        ("Слуга народа", None, "ru-RU"),
        ("Alles steht Kopf 2", "de", "de-DE"),
        ("Dune", None, "en-US"),
    ],
)
def test_a_title_is_searched_in_the_language_it_is_written_in(
    title: str, tag: str | None, language: str
) -> None:
    assert _written_in(Reading(title, None), "ru-RU", tag) == language
