"""Recognition of torrents and their files (recognition.recognize)."""

import csv
import datetime
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from core.errors import InvalidInputError
from recognition.candidates import Season
from recognition.parsing.files import FileRole, TorrentFile, classify_files
from recognition.parsing.hints import Hint, parse_hint
from recognition.parsing.release import Parsed, identityless, parse_file, parse_release
from recognition.parsing.subtitles import subtitle_language
from recognition.placement import placed, unplaceable
from recognition.recognize import RecognizedFile, recognize

CORPUS = Path(__file__).parent.parent / "data" / "releases.tsv"
REQUIRED_ACCURACY = 0.95
GB = 1 << 30
MB = 1 << 20


def same_title(a: str | None, b: str | None) -> bool:
    """Titles as a search would compare them: a release name cannot carry "Dune: Part
    Two"'s colon or "It's"'s apostrophe, so case and punctuation do not count."""

    def fold(title: str | None) -> str | None:
        if title is None:
            return None
        folded = unicodedata.normalize("NFKC", title).casefold().replace("ё", "е")
        folded = re.sub(r"['’`]", "", folded)
        return " ".join(re.sub(r"[\W_]+", " ", folded).split())

    return fold(a) == fold(b)


# --- the corpus ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Release:
    name: str
    expected: Parsed


def load_corpus() -> list[Release]:
    with CORPUS.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    releases = []
    for row in rows:
        kind = row["kind"]
        assert kind in ("movie", "series"), row
        releases.append(
            Release(
                name=row["name"],
                expected=Parsed(
                    kind="movie" if kind == "movie" else "series",
                    title=row["title"],
                    year=int(row["year"]) if row["year"] else None,
                    season=int(row["season"]) if row["season"] else None,
                    episodes=tuple(int(e) for e in row["episodes"].split(",") if e),
                    alt_title=row["alt_title"] or None,
                    country=row["country"] or None,
                ),
            )
        )
    return releases


def mismatches(got: Parsed, expected: Parsed) -> list[str]:
    """What ``got`` has wrong. A title that ends in a number ("Wonder Woman 1984") may
    be read as title and year: it counts when its other reading is the right one."""
    if expected.year is None and same_title(got.title_with_year, expected.title):
        got = replace(got, title=got.title_with_year, year=None)
    found = []
    for field in ("kind", "year", "season", "episodes", "country"):
        if getattr(got, field) != getattr(expected, field):
            found.append(f"{field}: {getattr(got, field)!r} != {getattr(expected, field)!r}")
    for field in ("title", "alt_title"):
        if not same_title(getattr(got, field), getattr(expected, field)):
            found.append(f"{field}: {getattr(got, field)!r} != {getattr(expected, field)!r}")
    return found


def test_the_corpus_is_large_and_varied() -> None:
    releases = load_corpus()
    assert len(releases) >= 90
    names = [r.name for r in releases]
    assert len(set(names)) == len(names)
    series = [r for r in releases if r.expected.kind == "series"]
    assert len(series) >= 30
    assert len(releases) - len(series) >= 30
    assert sum(bool(re.search("[а-яё]", r.name, re.IGNORECASE)) for r in releases) >= 20
    assert sum(r.expected.alt_title is not None for r in releases) >= 10
    assert sum(len(r.expected.episodes) > 1 for r in releases) >= 10
    assert sum(r.expected.season == 0 for r in releases) >= 2
    assert sum("/" in r.name.replace(" / ", "") for r in releases) >= 8


def test_corpus_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    releases = load_corpus()
    failures = []
    for release in releases:
        problems = mismatches(parse_release(release.name), release.expected)
        if problems:
            failures.append(f"{release.name}\n    " + "\n    ".join(problems))
    accuracy = 1 - len(failures) / len(releases)
    with capsys.disabled():
        passed = len(releases) - len(failures)
        print(f"\nrecognition corpus: {passed}/{len(releases)} = {accuracy:.1%}")
        for failure in failures:
            print(f"  MISS {failure}")
    assert accuracy >= REQUIRED_ACCURACY, "\n".join(failures)


# --- parse_release: guessit's traps -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title", "year"),
    [
        ("Blade.Runner.2049.1080p.WEB-DL.DD5.1.H264-FGT", "Blade Runner 2049", None),
        ("Blade Runner 2049", "Blade Runner 2049", None),
        ("Blade.Runner.2049.2017.1080p.BluRay.x264-SPARKS", "Blade Runner 2049", 2017),
        ("2001 A Space Odyssey", "2001 A Space Odyssey", None),
        ("2001.A.Space.Odyssey.1968.1080p.BluRay.x264", "2001 A Space Odyssey", 1968),
        ("1917", "1917", None),
        ("1917.2019.1080p.BluRay.x264-SPARKS", "1917", 2019),
        ("2012", "2012", None),
        ("Wonder.Woman.1984.2020.1080p.WEB-DL", "Wonder Woman 1984", 2020),
    ],
)
def test_a_number_in_a_movie_title_is_not_an_episode_nor_a_year(
    name: str, title: str, year: int | None
) -> None:
    parsed = parse_release(name)
    assert parsed.kind == "movie"
    assert parsed.title == title
    assert parsed.year == year
    assert (parsed.season, parsed.episodes) == (None, ())


def test_a_year_right_after_the_title_is_read_both_ways() -> None:
    """No table of number titles: the metadata tells "Wonder Woman" (1984) from
    "Wonder Woman 1984" (tests/recognition/test_evidence.py)."""
    parsed = parse_release("Wonder.Woman.1984.1080p.HMAX.WEB-DL")
    assert (parsed.title, parsed.year, parsed.title_with_year) == (
        "Wonder Woman",
        1984,
        "Wonder Woman 1984",
    )
    assert parse_release("Dune (2021) 1080p").title_with_year is None  # a bracketed year
    assert parse_release("Dune.2021.1080p").title_with_year == "Dune 2021"


def test_a_country_tag_is_the_country_not_part_of_the_title() -> None:
    last_of_us = parse_release("The.Last.of.Us.S01E01.1080p.WEB.H264-GGEZ")
    assert (last_of_us.title, last_of_us.country) == ("The Last of Us", None)
    office = parse_release("The.Office.US.S05E12.720p.HDTV.x264")
    assert (office.title, office.country) == ("The Office", "US")
    office = parse_release("The Office (US) - S03E05 - Initiation.mkv")
    assert (office.title, office.country) == ("The Office", "US")
    assert parse_release("THE.LAST.OF.US.S01E01.1080p").country is None  # all capitals


def test_doctor_who_keeps_its_year_apart() -> None:
    parsed = parse_release("Doctor.Who.2005.S13E01.1080p.WEB.h264-ETHEL")
    assert (parsed.title, parsed.year, parsed.season, parsed.episodes) == (
        "Doctor Who",
        2005,
        13,
        (1,),
    )


def test_anime_absolute_numbering_has_no_season() -> None:
    assert parse_release("[SubsPlease] Frieren - 05 (1080p) [ABCDEF12].mkv") == Parsed(
        "series", "Frieren", None, None, (5,), absolute=True
    )
    assert parse_release("[Erai-raws] One Piece - 1085 [1080p].mkv").episodes == (1085,)


@pytest.mark.parametrize(
    ("name", "season", "episodes"),
    [
        ("Breaking.Bad.S01E01E02.720p.BluRay", 1, (1, 2)),
        ("Succession.S04E01-E03.1080p", 4, (1, 2, 3)),
        ("Succession.S04E01-02.1080p", 4, (1, 2)),
        ("[Erai-raws] Kimetsu no Yaiba - 01 ~ 03 [1080p]", None, (1, 2, 3)),
    ],
)
def test_multi_episode_files(name: str, season: int | None, episodes: tuple[int, ...]) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.season, parsed.episodes) == ("series", season, episodes)


@pytest.mark.parametrize(
    ("name", "season"),
    [
        ("Breaking.Bad.S02.1080p.BluRay.x264-ROVERS", 2),
        ("Severance Season 2 Complete 1080p WEB-DL", 2),
        ("[Judas] Attack on Titan (Season 1) [BD 1080p][HEVC x265 10bit]", 1),
        ("Breaking Bad Complete Series 1080p BluRay", None),
        ("Game.of.Thrones.S01-S08.COMPLETE.1080p.BluRay.x264", None),
        ("Тьма (1-3 сезоны: 1-26 серии из 26) / Dark / 2017-2020 / WEB-DL (1080p)", None),
    ],
)
def test_season_packs_have_no_episodes(name: str, season: int | None) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.season, parsed.episodes) == ("series", season, ())


def test_specials_are_season_zero() -> None:
    parsed = parse_release("Doctor.Who.2005.S00E01.The.Christmas.Invasion.720p")
    assert (parsed.season, parsed.episodes) == (0, (1,))


def test_a_daily_show_has_its_air_date() -> None:
    parsed = parse_release("The.Daily.Show.2023.05.10.1080p.WEB.h264-EDITH")
    assert parsed.kind == "series"
    assert parsed.title == "The Daily Show"
    assert parsed.date == datetime.date(2023, 5, 10)
    assert parsed.year is None


def test_a_complete_series_takes_its_first_year() -> None:
    assert parse_release("Friends.The.Complete.Series.1994-2004.1080p.BluRay").year == 1994


@pytest.mark.parametrize(
    ("name", "title", "alt_title", "year"),
    [
        ("Дюна / Dune (2021) WEB-DL 1080p | Лицензия", "Dune", "Дюна", 2021),
        (
            "Дюна / Dune (Дени Вильнёв / Denis Villeneuve) [2021, США, фантастика, WEB-DL 1080p]",
            "Dune",
            "Дюна",
            2021,
        ),
        ("Дюна / Dune / 2021 / ДБ, СТ / WEB-DL (1080p)", "Dune", "Дюна", 2021),
        ("Брат 2 (2000) BDRip 1080p", "Брат 2", None, 2000),
        (
            "Бегущий по лезвию 2049 / Blade Runner 2049 (2017)",
            "Blade Runner 2049",
            "Бегущий по лезвию 2049",
            2017,
        ),
    ],
)
def test_russian_names_prefer_the_latin_title(
    name: str, title: str, alt_title: str | None, year: int
) -> None:
    parsed = parse_release(name)
    assert (parsed.kind, parsed.title, parsed.alt_title, parsed.year) == (
        "movie",
        title,
        alt_title,
        year,
    )


def test_russian_season_and_episode_words() -> None:
    parsed = parse_release("Одни из нас (1 сезон: 1-9 серии из 9) (2023) WEB-DL 1080p | LostFilm")
    assert (parsed.kind, parsed.title, parsed.season) == ("series", "Одни из нас", 1)
    assert parsed.episodes == tuple(range(1, 10))
    parsed = parse_release(
        "Тьма / Dark / Сезон: 2 / Серии: 1-8 из 8 [2019, Германия, WEB-DL 1080p]"
    )
    assert (parsed.title, parsed.alt_title, parsed.year, parsed.season) == ("Dark", "Тьма", 2019, 2)
    assert parsed.episodes == tuple(range(1, 9))


def test_a_bracketed_group_is_not_the_title() -> None:
    assert parse_release("[SubsPlease] Jujutsu Kaisen - 24 (1080p) [6F0B9E5C].mkv").title == (
        "Jujutsu Kaisen"
    )
    parsed = parse_release(
        "[AniLibria] Провожающая в последний путь Фрирен / Sousou no Frieren [01-28 из 28]"
    )
    assert (parsed.title, parsed.alt_title) == (
        "Sousou no Frieren",
        "Провожающая в последний путь Фрирен",
    )


def test_a_file_path_reads_its_season_folder() -> None:
    parsed = parse_release("Severance/Season 02/03 - Who Is Alive.mkv")
    assert (parsed.kind, parsed.title, parsed.season, parsed.episodes) == (
        "series",
        "Severance",
        2,
        (3,),
    )


def test_a_known_kind_is_kept() -> None:
    assert parse_release("Blade Runner 2049", kind="series").kind == "series"
    parsed = parse_release("Show/03 - Pilot.mkv", kind="series")
    assert (parsed.kind, parsed.episodes) == ("series", (3,))
    assert parse_release("Dune.Part.Two.2024.1080p", kind="movie").title == "Dune Part Two"


def test_an_empty_name_is_unknown() -> None:
    assert parse_release("   ") == Parsed("unknown", None, None, None, ())


# --- the cache ------------------------------------------------------------------------------


def test_a_repeated_name_does_not_run_guessit_again(guessit_calls: list[str]) -> None:
    calls = guessit_calls
    name = "Oppenheimer.2023.1080p.BluRay.x264-SPARKS"
    first = parse_release(name)
    after_first = len(calls)
    assert after_first >= 1
    assert parse_release(name) == first
    assert len(calls) == after_first
    parse_release(name, kind="movie")  # other options: another entry
    assert len(calls) == after_first + 1
    files = [TorrentFile("Oppenheimer.2023.1080p/Oppenheimer.2023.1080p.mkv", GB)]
    recognize(name, files)
    after_recognize = len(calls)
    recognize(name, files)
    assert len(calls) == after_recognize


# --- classify_files ---------------------------------------------------------------------------


def roles(files: list[TorrentFile]) -> dict[str, str]:
    return {role.path: role.role for role in classify_files(files)}


def test_a_movie_with_a_sample_extras_and_junk() -> None:
    files = [
        TorrentFile("Dune.2021/Dune.2021.1080p.mkv", 10 * GB),
        TorrentFile("Dune.2021/Sample/dune.mkv", 50 * MB),
        TorrentFile("Dune.2021/dune.2021.sample.mkv", 60 * MB),
        TorrentFile("Dune.2021/Dune.2021-trailer.mp4", 100 * MB),
        TorrentFile("Dune.2021/Dune.2021.trailer.1080p.mp4", 100 * MB),
        TorrentFile("Dune.2021/RARBG.com.mp4", 5 * MB),
        TorrentFile("Dune.2021/Dune.2021.nfo", 2000),
        TorrentFile("Dune.2021/Dune.2021.en.srt", 80_000),
    ]
    assert roles(files) == {
        "Dune.2021/Dune.2021.1080p.mkv": "video",
        "Dune.2021/Sample/dune.mkv": "skip",
        "Dune.2021/dune.2021.sample.mkv": "skip",
        "Dune.2021/Dune.2021-trailer.mp4": "skip",
        "Dune.2021/Dune.2021.trailer.1080p.mp4": "skip",
        "Dune.2021/RARBG.com.mp4": "skip",
        "Dune.2021/Dune.2021.nfo": "skip",
        "Dune.2021/Dune.2021.en.srt": "subtitle",
    }


@pytest.mark.parametrize(
    "folder",
    [
        "Featurettes",
        "Extras",
        "Behind The Scenes",
        "Deleted Scenes",
        "Trailers",
        "Interviews",
        "Shorts",
        "Sample",
        "extras",
    ],
)
def test_extras_folders_are_skipped_whatever_their_size(folder: str) -> None:
    files = [
        TorrentFile("Movie (2020)/Movie.2020.mkv", 8 * GB),
        TorrentFile(f"Movie (2020)/{folder}/Long making-of.mkv", 4 * GB),
        TorrentFile(f"Movie (2020)/{folder}/Long making-of.en.srt", 50_000),
    ]
    assert roles(files) == {
        "Movie (2020)/Movie.2020.mkv": "video",
        f"Movie (2020)/{folder}/Long making-of.mkv": "skip",
        f"Movie (2020)/{folder}/Long making-of.en.srt": "skip",
    }
    reason = classify_files(files)[1].reason
    assert folder in reason


def test_a_specials_folder_is_not_extras() -> None:
    files = [
        TorrentFile("Show/Season 01/Show.S01E01.mkv", GB),
        TorrentFile("Show/Specials/Show.S00E01.mkv", GB // 2),
    ]
    assert set(roles(files).values()) == {"video"}


def test_a_short_film_alone_is_a_video() -> None:
    files = [TorrentFile("Bao (2018)/Bao.2018.1080p.mkv", 150 * MB)]
    assert classify_files(files) == [FileRole(files[0].path, "video", "video")]


def test_a_tiny_video_alone_is_a_video() -> None:
    assert roles([TorrentFile("clip.mp4", 3 * MB)]) == {"clip.mp4": "video"}


def test_a_torrent_folder_named_like_extras_still_has_videos() -> None:
    files = [TorrentFile("Shorts/Bao.mkv", 150 * MB), TorrentFile("Shorts/Piper.mkv", 200 * MB)]
    assert set(roles(files).values()) == {"video"}


def test_small_episodes_of_a_pack_are_videos() -> None:
    files = [TorrentFile(f"Show.S01/Show.S01E{i:02}.mkv", GB) for i in range(1, 9)]
    files.append(TorrentFile("Show.S01/Show.S01E00.Minisode.mkv", 20 * MB))  # 2%
    files.append(TorrentFile("Show.S01/Show.S01E09.The.Sample.mkv", GB))  # an episode title
    assert set(roles(files).values()) == {"video"}


def test_a_marked_video_is_an_extra_only_when_small_beside_the_main_one() -> None:
    files = [
        TorrentFile("Movie/Movie.mkv", 10 * GB),
        TorrentFile("Movie/Movie.Featurette.mkv", 2 * GB),  # 20%, says featurette
        TorrentFile("Movie/Movie.Sample.mkv", 6 * GB),  # 60%: not a sample whatever it says
    ]
    assert roles(files) == {
        "Movie/Movie.mkv": "video",
        "Movie/Movie.Featurette.mkv": "skip",
        "Movie/Movie.Sample.mkv": "video",
    }


def test_an_unmarked_video_is_kept_unless_tiny() -> None:
    files = [
        TorrentFile("Movie/Movie.Part1.mkv", 4 * GB),
        TorrentFile("Movie/Movie.Part2.mkv", GB),  # 25%
        TorrentFile("Movie/promo.mp4", 100 * MB),  # 2.4%
    ]
    assert roles(files) == {
        "Movie/Movie.Part1.mkv": "video",
        "Movie/Movie.Part2.mkv": "video",
        "Movie/promo.mp4": "skip",
    }


def test_unknown_sizes_skip_nothing_by_size() -> None:
    files = [TorrentFile("A/a.mkv", 0), TorrentFile("A/b.mkv", 0)]
    assert set(roles(files).values()) == {"video"}


# --- subtitle_language --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "language", "flags"),
    [
        ("Movie.ru.srt", "ru", ()),
        ("Movie.rus.forced.srt", "ru", ("forced",)),
        ("Subs/2_English.srt", "en", ()),
        ("Movie.en.sdh.srt", "en", ("sdh",)),
        ("[Russian].ass", "ru", ()),
        ("Movie.English.SDH.srt", "en", ("sdh",)),
        ("Movie.en.hi.srt", "en", ("sdh",)),
        ("Movie.hi.srt", "hi", ()),
        ("Movie.eng.forced.default.srt", "en", ("forced", "default")),
        ("Movie.pt-BR.srt", "pt", ()),
        ("Movie.zh-Hans.ass", "zh", ()),
        ("Subs/Rus/Movie.srt", "ru", ()),
        ("Subs/Show.S01E01/3_Russian.srt", "ru", ()),
        ("RUS Subs/Forced/Movie.ass", "ru", ("forced",)),
        ("Movie.Ukr.srt", "uk", ()),
        ("Movie.Форсированные.srt", None, ("forced",)),
        ("Movie.srt", None, ()),
        ("Frieren - 05.ass", None, ()),
        ("The.It.Crowd.S01E01.srt", None, ()),
    ],
)
def test_subtitle_language(path: str, language: str | None, flags: tuple[str, ...]) -> None:
    assert subtitle_language(path) == (language, flags)


# --- parse_hint ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("это Дюна 2021", Hint(None, "Дюна", 2021, title_with_year="Дюна 2021")),
        ("Dune 2021", Hint(None, "Dune", 2021, title_with_year="Dune 2021")),
        ("сериал Тьма 2 сезон", Hint("series", "Тьма", None, season=2)),
        ("фильм", Hint("movie", None, None)),
        ("show", Hint("series", None, None)),
        ("movie Dune", Hint("movie", "Dune", None)),
        ("Dune (movie)", Hint("movie", "Dune", None)),
        ("it's the show Dark", Hint("series", "Dark", None)),
        ("The Truman Show", Hint(None, "The Truman Show", None)),
        ("Scary Movie", Hint(None, "Scary Movie", None)),
        ("Очень страшное кино", Hint(None, "Очень страшное кино", None)),
        (
            "это фильм Брат 2 1997 года",
            Hint("movie", "Брат 2", 1997, title_with_year="Брат 2 1997"),
        ),
        ("Дюна фильм 2021", Hint("movie", "Дюна", 2021)),
        ("Дюна (2021)", Hint(None, "Дюна", 2021)),
        ("Тьма, 2-й сезон, серия 5", Hint("series", "Тьма", None, season=2, episode=5)),
        ("Dark S02E05", Hint("series", "Dark", None, season=2, episode=5)),
        ("season 3", Hint("series", None, None, season=3)),
        ("2021", Hint(None, None, 2021)),
        # A number after the title is read both ways; the metadata tells which it is.
        (
            "Wonder Woman 1984",
            Hint(None, "Wonder Woman", 1984, title_with_year="Wonder Woman 1984"),
        ),
        ("It 2017", Hint(None, "It", 2017, title_with_year="It 2017")),
        (
            "https://www.themoviedb.org/movie/438631-dune",
            Hint(None, None, None, identifiers=("tmdb:movie/438631",)),
        ),
        ("это tt1160419", Hint(None, None, None, identifiers=("imdb:tt1160419",))),
        ("", Hint(None, None, None)),
    ],
)
def test_parse_hint(text: str, hint: Hint) -> None:
    assert parse_hint(text) == hint


# --- recognize ----------------------------------------------------------------------------------


PACK = "Breaking.Bad.S02.1080p.BluRay.x264-ROVERS"
PACK_FILES = [
    TorrentFile(f"Breaking.Bad.S02.1080p/Breaking.Bad.S02E{i:02}.1080p.mkv", 2 * GB)
    for i in range(1, 4)
] + [
    TorrentFile("Breaking.Bad.S02.1080p/Breaking.Bad.S02E01.1080p.en.srt", 60_000),
    TorrentFile("Breaking.Bad.S02.1080p/Subs/Breaking.Bad.S02E02.1080p/2_Russian.srt", 60_000),
    TorrentFile("Breaking.Bad.S02.1080p/Subs/S02E03.rus.forced.srt", 60_000),
    TorrentFile("Breaking.Bad.S02.1080p/Sample/sample.mkv", 20 * MB),
]


def by_path(files: tuple[RecognizedFile, ...]) -> dict[str, RecognizedFile]:
    return {f.path.rsplit("/", 1)[-1]: f for f in files}


def test_a_season_pack_with_subtitles() -> None:
    result = recognize(PACK, PACK_FILES)
    assert (result.kind, result.title, result.year, result.season) == (
        "series",
        "Breaking Bad",
        None,
        2,
    )
    files = by_path(result.files)
    assert files["Breaking.Bad.S02E01.1080p.mkv"].episodes == (1,)
    assert files["Breaking.Bad.S02E03.1080p.mkv"].season == 2
    english = files["Breaking.Bad.S02E01.1080p.en.srt"]
    assert (english.role, english.video, english.language, english.episodes) == (
        "subtitle",
        "Breaking.Bad.S02.1080p/Breaking.Bad.S02E01.1080p.mkv",
        "en",
        (1,),
    )
    russian = files["2_Russian.srt"]
    assert (russian.video or "").endswith("S02E02.1080p.mkv")
    assert russian.language == "ru"
    forced = files["S02E03.rus.forced.srt"]
    assert (forced.video or "").endswith("S02E03.1080p.mkv")
    assert forced.flags == ("forced",)
    assert files["sample.mkv"].role == "skip"
    assert [f.path for f in result.files] == [f.path for f in PACK_FILES]


def test_a_files_own_numbers_win_over_the_torrent_name() -> None:
    result = recognize(
        "Show.S01.1080p",
        [
            TorrentFile("Show.S01.1080p/Show.S02E05.mkv", GB),
            TorrentFile("Show.S01.1080p/Show.E06.mkv", GB),
        ],
    )
    files = by_path(result.files)
    assert (files["Show.S02E05.mkv"].season, files["Show.S02E05.mkv"].episodes) == (2, (5,))
    assert (files["Show.E06.mkv"].season, files["Show.E06.mkv"].episodes) == (1, (6,))


def test_a_single_file_series_takes_its_episodes_from_the_name() -> None:
    result = recognize("[SubsPlease] Frieren - 05 (1080p)", [TorrentFile("video.mkv", GB)])
    assert result.kind == "series"
    assert result.files[0].episodes == (5,)


def test_a_movie_and_its_only_subtitle() -> None:
    result = recognize(
        "Дюна / Dune (2021) WEB-DL 1080p",
        [
            TorrentFile("Dune.2021/Dune.2021.mkv", 8 * GB),
            TorrentFile("Dune.2021/Subs/Rus.Full.srt", 90_000),
        ],
    )
    assert (result.kind, result.title, result.alt_title, result.year) == (
        "movie",
        "Dune",
        "Дюна",
        2021,
    )
    subtitle = result.files[1]
    assert (subtitle.role, subtitle.video, subtitle.language) == (
        "subtitle",
        "Dune.2021/Dune.2021.mkv",
        "ru",
    )
    assert result.files[0] == RecognizedFile(
        "Dune.2021/Dune.2021.mkv", "video", None, (), None, (), reason="video"
    )


def test_a_subtitle_that_matches_no_video_is_skipped() -> None:
    result = recognize(
        "Movie.2020.1080p",
        [
            TorrentFile("Movie/Part.One.mkv", 4 * GB),
            TorrentFile("Movie/Part.Two.mkv", 4 * GB),
            TorrentFile("Movie/English.srt", 50_000),
        ],
    )
    subtitle = result.files[2]
    assert (subtitle.role, subtitle.video, subtitle.language) == ("skip", None, "en")
    assert subtitle.reason == "subtitle matches no video"


def test_a_hint_wins_over_the_name_and_the_latest_hint_wins_per_field() -> None:
    result = recognize(
        "Dune.2021.1080p.WEB-DL",
        [TorrentFile("Dune.2021.1080p.WEB-DL.mkv", 8 * GB)],
        hints=["это Дюна 2020", "фильм Дюна Вильнёва", "2021"],
    )
    assert result.title == "Дюна Вильнёва"
    assert result.year == 2021
    assert result.kind == "movie"
    assert result.alt_title is None
    result = recognize(
        "Dune.2021.1080p.WEB-DL",
        [TorrentFile("Dune.2021.1080p.WEB-DL.mkv", 8 * GB)],
        hints=["это Дюна 2020", "Дюна 2021"],
    )
    assert (result.title, result.year) == ("Дюна", 2021)


def test_a_hint_can_say_it_is_a_series_and_which_season() -> None:
    result = recognize(
        "[SubsPlease] Frieren - 30 (1080p)",
        [TorrentFile("[SubsPlease] Frieren - 30 (1080p).mkv", GB)],
        hints=["Фрирен 2 сезон"],
    )
    assert (result.kind, result.title, result.season) == ("series", "Фрирен", 2)
    assert (result.files[0].season, result.files[0].episodes) == (2, (30,))


def test_an_override_wins_over_a_hint() -> None:
    result = recognize(
        "Dune.2021.1080p.WEB-DL",
        [TorrentFile("Dune.2021.1080p.WEB-DL.mkv", 8 * GB)],
        hints=["это Дюна 2020"],
        overrides={"title": "Dune: Part One", "year": "2021"},
    )
    assert (result.kind, result.title, result.year) == ("movie", "Dune: Part One", 2021)


def test_overrides_kind_season_and_episode_offset() -> None:
    result = recognize(
        "[SubsPlease] Frieren - 29 (1080p)",
        [TorrentFile("[SubsPlease] Frieren - 29 (1080p).mkv", GB)],
        hints=["3 сезон"],
        overrides={"kind": "series", "season": "2", "episode_offset": "-28"},
    )
    assert (result.kind, result.season) == ("series", 2)
    assert (result.files[0].season, result.files[0].episodes) == (2, (1,))


def test_episode_offset_moves_every_episode_and_its_subtitles() -> None:
    result = recognize(PACK, PACK_FILES, overrides={"episode_offset": "10"})
    files = by_path(result.files)
    assert files["Breaking.Bad.S02E01.1080p.mkv"].episodes == (11,)
    assert files["Breaking.Bad.S02E03.1080p.mkv"].episodes == (13,)
    assert files["S02E03.rus.forced.srt"].episodes == (13,)


def test_an_override_can_make_a_movie_of_a_series() -> None:
    result = recognize(PACK, PACK_FILES, overrides={"kind": "movie"})
    assert (result.kind, result.season) == ("movie", None)
    assert all(f.season is None and f.episodes == () for f in result.files)


@pytest.mark.parametrize(
    "overrides",
    [
        {"kind": "anime"},
        {"year": "soon"},
        {"season": "-1"},
        {"episode_offset": "1.5"},
        {"colour": "blue"},
        {"episode_offset": "-10"},  # episode 5 would become -5
    ],
)
def test_bad_overrides_are_refused(overrides: dict[str, str]) -> None:
    with pytest.raises(InvalidInputError):
        recognize(
            "Show.S01E05.1080p", [TorrentFile("Show.S01E05.1080p.mkv", GB)], overrides=overrides
        )


def test_a_torrent_name_without_a_kind_takes_it_from_its_files() -> None:
    result = recognize(
        "Some Show",
        [TorrentFile(f"Some Show/Some.Show.S01E{i:02}.mkv", GB) for i in range(1, 4)],
    )
    assert (result.kind, result.title, result.season) == ("series", "Some Show", 1)
    assert [f.episodes for f in result.files] == [(1,), (2,), (3,)]


# --- files of a season that carry only their number (issue 11, class 6) ------------------


@pytest.mark.parametrize(
    ("path", "season", "episodes"),
    [
        ("Some Show - Season 1 (2021)/03. Episode Title.mkv", 1, (3,)),
        ("Show.S02.1080p/02 - Title.mkv", 2, (2,)),
        ("Show Season 3/Episode 05.mkv", 3, (5,)),
        ("Black Books/Series 2/04. Elephants and Hens.avi", 2, (4,)),
        ("Бригада (2002)/Бригада.07.avi", None, (7,)),
        ("Lonesome.Dove.1989/Lonesome.Dove.Part.Two.On.the.Trail.mkv", None, (2,)),
        ("The.Pacific/The.Pacific.Chapter.4.mkv", None, (4,)),
        ("Chernobyl.2019/Chernobyl.2019.Part.1.1.23.45.1080p.mkv", None, (1,)),
        ("Show.S01/Show.S01E05-E07.1080p.mkv", 1, (5, 6, 7)),
        ("Show.S01/Show.S01E05-1080p.mkv", 1, (5,)),  # a resolution is not a range
    ],
)
def test_files_of_a_series_get_their_numbers(
    path: str, season: int | None, episodes: tuple[int, ...]
) -> None:
    parsed = parse_file(path, kind="series")
    assert (parsed.season, parsed.episodes) == (season, episodes)


def test_a_numbered_file_is_no_episode_of_a_movie() -> None:
    assert parse_file("Movie (2001)/01. Main Title.mkv", kind="movie").episodes == ()


def test_a_range_of_parts_is_not_part_of_the_title() -> None:
    assert parse_release("Generation.Kill.Part.1-7.720p.BluRay").title == "Generation Kill"
    assert parse_release("Harry.Potter.and.the.Deathly.Hallows.Part.1.2010").title == (
        "Harry Potter and the Deathly Hallows Part 1"
    )


def test_fansub_names_are_read_by_the_anime_parser() -> None:
    batch = parse_release("[Erai-raws] Bocchi the Rock! - 01 ~ 12 [1080p][Multiple Subtitle]")
    assert (batch.title, batch.episodes) == ("Bocchi the Rock!", tuple(range(1, 13)))
    counted_on = parse_release("[HorribleSubs] Shingeki no Kyojin S3 - 59 [1080p].mkv")
    assert (counted_on.season, counted_on.episodes, counted_on.absolute) == (3, (59,), True)
    scene = parse_release("[Judas] Boku no Hero Academia - S05E03.mkv")
    assert (scene.season, scene.episodes, scene.absolute) == (5, (3,), False)
    ova = parse_release("[SallySubs] Yuru Camp - OVA 02 [BD 1080p] [22320FFA].mkv")
    assert (ova.title, ova.special, ova.episodes) == ("Yuru Camp", True, ())
    bilingual = parse_release("[Judas] Koe no Katachi (A Silent Voice) [BD 1080p][HEVC x265].mkv")
    assert (bilingual.title, bilingual.alt_title) == ("Koe no Katachi", "A Silent Voice")


def test_the_magnets_dn_fills_in_what_the_name_lacks() -> None:
    files = [TorrentFile("The.Crow.1080p.mkv", GB)]
    assert recognize("The.Crow.1080p", files, dn="The.Crow.1994.1080p").year == 1994
    other = recognize(
        "grp-ncfom-720p.mkv",
        [TorrentFile("grp-ncfom-720p.mkv", GB)],
        dn="No.Country.for.Old.Men.2007.720p",
    )
    assert other.fallback_titles == (("No Country for Old Men", 2007),)


def test_ids_come_from_the_name_the_texts_and_the_hints() -> None:
    found = recognize(
        "Dune.1080p",
        [TorrentFile("Dune.1080p.mkv", GB), TorrentFile("dune.nfo", 900)],
        hints=["https://www.themoviedb.org/movie/841-dune"],
        texts=["IMDb: https://www.imdb.com/title/tt0087182/"],
    )
    assert found.identifiers == ("tmdb:movie/841", "imdb:tt0087182")


@pytest.mark.parametrize(
    "text",
    [
        "https://www.themoviedb.org/movie/٤٣٨٦٣١-dune",  # Arabic-Indic
        "https://www.themoviedb.org/movie/４３８６３１",  # full-width
        "tt٠٠٨٧١٨٢",
        "imdb.com/title/tt００８７１８２/",
        "tt0087182٣",  # a digit of another script makes it no id either
        "۳tt0087182",
    ],
)
def test_digits_of_other_scripts_are_never_an_id(text: str) -> None:
    found = recognize("Dune.1080p", [TorrentFile("Dune.1080p.mkv", GB)], hints=[text], texts=[text])
    assert found.identifiers == ()


def test_absolute_numbers_are_placed_by_the_chosen_titles_seasons() -> None:
    files = [
        RecognizedFile("Frieren - 29.mkv", "video", None, (29,), None, (), absolute=True),
        RecognizedFile(
            "Frieren - 29.ass", "subtitle", None, (29,), "en", (), video="Frieren - 29.mkv"
        ),
        RecognizedFile("Show.S02E15.mkv", "video", 2, (15,), None, ()),
    ]
    seasons = (Season(1, 28, 2023), Season(2, 12, 2026))
    video, subtitle, scene = placed(files, seasons)
    assert (video.season, video.episodes) == (2, (1,))
    assert (subtitle.season, subtitle.episodes) == (2, (1,))
    assert (scene.season, scene.episodes) == (2, (15,))  # an SxxEyy never moves
    assert unplaceable("series", placed(files, None), None) is None
    unknown = RecognizedFile("Show.Bonus.mkv", "video", 1, (), None, ())
    why = unplaceable("series", [*files, unknown], None)
    assert why is not None
    assert (why.code, why.params["file"]) == ("review.episode_unknown", "Show.Bonus.mkv")
    assert unplaceable("movie", [unknown], None) is None


def test_dated_files_and_season_named_folders_are_placed_for_the_title() -> None:
    day = datetime.date(2024, 2, 12)
    dated = RecognizedFile("Show.2024.02.12.mkv", "video", None, (), None, (), date=day)
    subtitle = RecognizedFile(
        "Show.2024.02.12.srt", "subtitle", None, (), "en", (), video="Show.2024.02.12.mkv"
    )
    video, sub = placed([dated, subtitle], None, listed=[("Show.2024.02.12.mkv", 29, 21)])
    assert (video.season, video.episodes, sub.season, sub.episodes) == (29, (21,), 29, (21,))
    why = unplaceable("series", placed([dated], None), None)
    assert why is not None
    assert (why.code, why.params["date"]) == ("review.date_unlisted", "2024-02-12")
    seasons = (Season(1, 20, 2005, "Book One: Water"), Season(2, 20, 2006, "Book Two: Earth"))
    book = RecognizedFile(
        "Avatar/Book 2 - Earth/01 - The Avatar State.mkv", "video", None, (1,), None, ()
    )
    (moved,) = placed([book], seasons)
    assert (moved.season, moved.episodes) == (2, (1,))


@pytest.mark.parametrize(
    ("path", "season", "episodes"),
    [
        ("Топи (2021) Серии 1-4 из 9 WEB-DL 1080p/01.mkv", None, (1,)),  # the folder's range
        ("Show.2024.02.Mondays/Show.2024.02.12.Guest.720p.mkv", None, ()),  # a month
        ("Show.S01.Part1/Show.S01E01E02.1080p.mkv", 1, (1, 2)),  # the file's own range
        ("Jujutsu Kaisen TV-2 [AniLibria]/Jujutsu_Kaisen_TV-2_[07]_[AniLibria_TV].mkv", 2, (7,)),
    ],
)
def test_a_files_own_numbers_beat_its_folders(
    path: str, season: int | None, episodes: tuple[int, ...]
) -> None:
    parsed = parse_file(path, kind="series")
    assert (parsed.season, parsed.episodes) == (season, episodes)


def test_names_that_say_more_than_the_title() -> None:
    film = parse_release("[Judas] Jujutsu Kaisen 0 - The Movie [BD 1080p][HEVC x265 10bit].mkv")
    assert (film.kind, film.title, film.episodes) == ("movie", "Jujutsu Kaisen 0", ())
    dashed = parse_release("Avatar - The Last Airbender (Complete Series) [1080p BluRay x265]")
    assert dashed.title == "Avatar - The Last Airbender"
    marked = parse_release("Магическая битва / Jujutsu Kaisen [TV-2] [23 из 23] [2023, WEBRip]")
    assert (marked.kind, marked.title, marked.season) == ("series", "Jujutsu Kaisen", 2)


@pytest.mark.parametrize(
    ("name", "title", "words"),
    [
        ("Extras.Christmas.Special.2007.720p.BluRay.x264-GRP", "Extras", "Christmas Special"),
        (
            "The.Office.UK.Christmas.Special.Part.1.2003.DVDRip",
            "The Office",
            "Christmas Special Part 1",
        ),
        (
            "Doctor.Who.2005.The.Christmas.Invasion.720p.BluRay",
            "Doctor Who",
            "The Christmas Invasion",
        ),
    ],
)
def test_a_special_keeps_the_shows_title_and_its_own_name(
    name: str, title: str, words: str
) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.episodes) == (title, ())
    assert parsed.episode_title is not None
    assert parsed.episode_title.replace(".", " ") == words
    assert parse_release("Something.Special.2019.1080p").title == "Something Special"


@pytest.mark.parametrize(
    ("name", "title", "year", "country"),
    [
        ("Shameless.UK.S04E07.DVDRip.XviD-HAGGiS", "Shameless", None, "UK"),  # not Ukrainian
        ("1923.S02E01.1080p.AMZN.WEB-DL.DDP5.1.H.264-FLUX", "1923", None, None),
        ("Cam.2018.1080p.NF.WEB-DL.DD5.1.x264-NTG", "Cam", 2018, None),  # not the CAM source
    ],
)
def test_words_guessit_takes_for_tags(
    name: str, title: str, year: int | None, country: str | None
) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.year, parsed.country) == (title, year, country)
    own = parse_file(name + ".mkv")  # a file's SxxEyy is read at once: the same title
    assert own.year == year


def test_the_films_of_a_series_box_are_skipped() -> None:
    files = [
        TorrentFile("Box/Season 1/Show.S01E01.mkv", GB),
        TorrentFile("Box/Season 1/Show.S01E02.mkv", GB),
        TorrentFile("Box/Movie/Show.The.Movie.2001.mkv", 3 * GB),
    ]
    found = recognize("Show Complete Series + Movie", files)
    roles = {f.path: f.role for f in found.files}
    assert roles["Box/Movie/Show.The.Movie.2001.mkv"] == "skip"
    assert roles["Box/Season 1/Show.S01E01.mkv"] == "video"
    alone = recognize("Movies", [TorrentFile("Movies/Film.2001.mkv", GB)])
    assert [f.role for f in alone.files] == ["video"]  # a torrent of films only keeps them


def test_a_title_a_box_adds_is_a_special_by_its_name_or_else_skipped() -> None:
    box = "Starfall (2003) + Starfall Rising (2006) 1080p"
    files = [
        TorrentFile(f"{box}/Starfall.S01E01.mkv", GB),
        TorrentFile(f"{box}/Starfall.S01E02.Rising.Tide.mkv", GB),  # numbered: an episode
        TorrentFile(f"{box}/Starfall Rising (2006)/Starfall.Rising.2006.mkv", 4 * GB),
        TorrentFile(f"{box}/Starfall Rising (2006)/Starfall.Rising.2006.en.srt", 1000),
    ]
    found = recognize(box, files)
    assert [f.flags for f in found.files if f.role == "video"] == [(), (), ("added",)]
    laid = {
        f.path.rsplit("/", 1)[1]: (f.role, f.season, f.episodes) for f in placed(found.files, None)
    }
    assert laid["Starfall.Rising.2006.mkv"][0] == laid["Starfall.Rising.2006.en.srt"][0] == "skip"
    assert laid["Starfall.S01E02.Rising.Tide.mkv"] == ("video", 1, (2,))
    assert unplaceable("series", placed(found.files, None), None) is None
    special = (f"{box}/Starfall Rising (2006)/Starfall.Rising.2006.mkv", 0, 3)
    (film,) = [f for f in placed(found.files, None, listed=[special]) if "added" in f.flags]
    assert (film.role, film.season, film.episodes) == ("video", 0, (3,))  # TMDB's special


@pytest.mark.parametrize(
    ("name", "title", "seasons"),
    [
        ("Sherlock.Series.1-4.1080p.BluRay.x264-GRP", "Sherlock", (1, 2, 3, 4)),
        ("Peep Show Series 3 [DVDRip]", "Peep Show", (3,)),
        ("Series.7.The.Contenders.2001.DVDRip", "Series 7 The Contenders", ()),  # a film's
        ("A.Series.of.Unfortunate.Events.S01E01", "A Series of Unfortunate Events", (1,)),
    ],
)
def test_a_british_series_number_after_a_title_is_a_season(
    name: str, title: str, seasons: tuple[int, ...]
) -> None:
    parsed = parse_release(name)
    assert (parsed.title, parsed.seasons) == (title, seasons)


def test_a_sites_tag_in_brackets_does_not_make_an_anime_name() -> None:
    parsed = parse_release("[ACESSE SITE.COM] Round 6 1ª Temporada Completa 2021 1080p NF WEB-DL")
    assert (parsed.kind, parsed.title, parsed.season, parsed.episodes) == (
        "series",
        "Round 6",
        1,
        (),
    )


@pytest.mark.parametrize(
    ("path", "season", "episodes"),
    [
        ("Show S02/Одни из нас - 2 сезон, 01 серия - Будущие дни.mkv", 2, (1,)),
        ("Box/Book 1 - Water/07 - The Spirit World (Winter Solstice, Part 1).mkv", None, (7,)),
    ],
)
def test_the_words_of_a_file_name_that_number_it(
    path: str, season: int | None, episodes: tuple[int, ...]
) -> None:
    parsed = parse_file(path, kind="series")
    assert (parsed.season, parsed.episodes) == (season, episodes)


def test_a_zero_right_after_an_anime_title_is_the_titles() -> None:
    film = parse_release("[Anime Land] Jujutsu Kaisen 0 (2021) [BD 1080p HEVC][Dual Audio]")
    assert (film.title, film.year, film.episodes) == ("Jujutsu Kaisen 0", 2021, ())
    prologue = parse_release("[Group] Mushoku Tensei II - 00 [1080p].mkv")
    assert (prologue.title, prologue.episodes) == ("Mushoku Tensei II", (0,))


def test_a_default_folder_name_names_nothing_but_a_collection_keeps_it() -> None:
    one = recognize("Новая папка (2)", [TorrentFile("Новая папка (2)/Dune.2021.1080p.mkv", GB)])
    assert (one.title, one.year) == ("Dune", 2021)
    films = [TorrentFile("Фильмы/Dune.2021.mkv", GB), TorrentFile("Фильмы/Arrival.2016.mkv", GB)]
    assert recognize("Фильмы", films).title == "Фильмы"  # several titles: asked, not guessed
    assert not identityless("Movie 43")  # a film's title, not a folder's default


def test_a_season_dot_episode_file_name() -> None:
    parsed = parse_file("Succession.S04/Succession - 4.01 - The Munsters.mkv", kind="series")
    assert (parsed.title, parsed.season, parsed.episodes) == ("Succession", 4, (1,))


@pytest.mark.parametrize(
    ("text", "title", "year", "country"),
    [
        ("the 2024 one", None, 2024, None),
        ("the British one", None, None, "GB"),
        ("это американский ремейк", None, None, "US"),
        ("American Psycho", "American Psycho", None, None),  # a title keeps its adjective
        ("The One", "The One", None, None),
    ],
)
def test_a_hint_that_only_says_the_year_or_the_country(
    text: str, title: str | None, year: int | None, country: str | None
) -> None:
    hint = parse_hint(text)
    assert (hint.title, hint.year, hint.country) == (title, year, country)


def test_a_hint_that_describes_instead_of_naming_is_not_a_title() -> None:
    hint = parse_hint("это мультик, а не старый фильм")
    assert (hint.kind, hint.title, hint.unread) == ("movie", None, "это мультик, а не старый фильм")
    assert parse_hint("это Дюна 2021").unread is None
    found = recognize("Kin-dza-dza.BDRip.1080p", [TorrentFile("k.mkv", GB)], ["not the old one"])
    assert found.unread_hint == "not the old one"


def test_an_episode_the_title_does_not_list_is_never_placed() -> None:
    seasons = (Season(0, 2), Season(1, 10), Season(2, 8))
    listed = RecognizedFile("Show.S02E08.mkv", "video", 2, (8,), None, ())
    assert unplaceable("series", [listed], seasons) is None
    for season, episode in ((2, 9), (3, 1), (0, 3)):
        file = RecognizedFile("Show.mkv", "video", season, (episode,), None, ())
        why = unplaceable("series", [file], seasons)
        assert why is not None
        assert why.code == "review.episode_unlisted"
        assert why.params["episode"] == f"S{season:02d}E{episode:02d}"


@pytest.mark.parametrize(
    ("name", "language"),
    [
        ("Movie.ru.srt", "ru"),
        ("Movie.rus.srt", "ru"),
        ("Movie.Russian.srt", "ru"),
        ("Movie.рус.srt", "ru"),
        ("Movie.ger.srt", "de"),
        ("Movie.pt-BR.srt", "pt"),
        ("Movie.to.srt", None),
        ("Movie.chi.srt", "zh"),
    ],
)
def test_subtitle_languages_come_from_babelfish_and_tracker_words(
    name: str, language: str | None
) -> None:
    assert subtitle_language(name)[0] == language
