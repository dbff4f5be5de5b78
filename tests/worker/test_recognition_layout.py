"""Recognition classes where the layout matters: downloads through the fake qBittorrent
(real files on a real file system, hardlinked into the library), the fake TMDB with
the decoys real TMDB has."""

from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import pytest

from core.config import MetadataSettings
from core.reasons import Reason
from core.states import State
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import Running, eventually, start_house
from tests.support.telegram import FakeTelegram
from tests.support.tmdb import Entry, FakeTmdb
from tests.support.torrents import MadeTorrent, magnet_for, make_torrent
from tests.worker.test_import import MiB, _in_state, download_and_wait, same_file

CATALOGUE = [
    {
        "kind": "tv",
        "id": 880001,
        "title": "Quiet Harbour",
        "date": "2021-03-01",
        "popularity": 25,
        "seasons": [{"season_number": 1, "episode_count": 8, "air_date": "2021-03-01"}],
        "translations": {"ru": "Тихая гавань"},
    },
    {
        "kind": "movie",
        "id": 880002,
        "title": "Quiet Harbour",
        "date": "1998-05-01",
        "popularity": 2,
    },
    {
        "kind": "tv",
        "id": 880003,
        "title": "The Long Watch",
        "date": "2019-06-01",
        "popularity": 140,
        "seasons": [
            {"season_number": 1, "episode_count": 10, "air_date": "2019-06-01"},
            {"season_number": 2, "episode_count": 10, "air_date": "2020-06-01"},
        ],
    },
    {
        "kind": "tv",
        "id": 880004,
        "title": "The Long Watch Aftershow",
        "date": "2019-06-02",
        "popularity": 6,
        "type": "Talk Show",
        "seasons": [{"season_number": 1, "episode_count": 10, "air_date": "2019-06-02"}],
    },
    {
        "kind": "movie",
        "id": 949,
        "title": "Heat",
        "date": "1995-12-15",
        "popularity": 45,
        "runtime": 170,
        "translations": {"ru": "Схватка"},
    },
    {"kind": "movie", "id": 880005, "title": "Heat", "date": "1986-03-14", "popularity": 6},
    {
        "kind": "tv",
        "id": 880006,
        "title": "Blade of the Fox",
        "original_title": "狐の刃",
        "date": "2022-04-01",
        "popularity": 60,
        "origin_country": ["JP"],
        "seasons": [
            {"season_number": 1, "episode_count": 12, "air_date": "2022-04-01"},
            {"season_number": 2, "episode_count": 12, "air_date": "2023-10-01"},
        ],
        "alternative_titles": [{"iso_3166_1": "JP", "title": "Kitsune no Yaiba", "type": "Romaji"}],
    },
    {
        "kind": "tv",
        "id": 880007,
        "title": "Night Desk",
        "date": "2020-01-06",
        "popularity": 30,
        "type": "Talk Show",
        "seasons": [
            {"season_number": 1, "episode_count": 150, "air_date": "2020-01-06"},
            {
                "season_number": 2,
                "episode_count": 3,
                "air_date": "2021-03-15",
                "episodes": [
                    {"episode_number": 1, "name": "Guest One", "air_date": "2021-03-15"},
                    {"episode_number": 2, "name": "Guest Two", "air_date": "2021-03-16"},
                    {"episode_number": 3, "name": "Guest Three", "air_date": "2021-03-17"},
                ],
            },
        ],
    },
    {
        "kind": "tv",
        "id": 880009,
        "title": "Lantern Keeper",
        "original_title": "Chouchin no Mori",
        "date": "2020-04-01",
        "popularity": 50,
        "origin_country": ["JP"],
        "seasons": [
            {
                "season_number": 0,
                "episode_count": 2,
                "air_date": "2020-12-24",
                "name": "Specials",
                "episodes": [
                    {"episode_number": 1, "name": "The Winter Lantern", "air_date": "2020-12-24"},
                    {"episode_number": 2, "name": "Festival Night", "air_date": "2021-08-01"},
                ],
            },
            {
                "season_number": 1,
                "episode_count": 12,
                "air_date": "2020-04-01",
                "name": "Forest Arc",
            },
            {
                "season_number": 2,
                "episode_count": 11,
                "air_date": "2022-01-09",
                "name": "River Town Arc",
            },
        ],
    },
    {
        "kind": "tv",
        "id": 880008,
        "title": "Night Desk",
        "date": "1994-09-05",
        "popularity": 45,
        "type": "Talk Show",
        "seasons": [{"season_number": 1, "episode_count": 40, "air_date": "1994-09-05"}],
    },
]


@pytest.fixture
async def tmdb() -> AsyncIterator[FakeTmdb]:
    fake = FakeTmdb()
    fake.catalogue += [Entry.from_json(item) for item in CATALOGUE]
    async with fake:
        yield fake


@pytest.fixture
async def importing(
    qbt: FakeQbittorrentServer, tg: FakeTelegram, tmp_path: Path, tmdb: FakeTmdb
) -> AsyncIterator[Running]:
    metadata = MetadataSettings(
        provider="tmdb", tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url, language="en-US"
    )
    running = await start_house(qbt, tg, tmp_path, metadata=metadata)
    yield running
    await running.house.halt()


def torrent(
    tmp_path: Path, seeder: FakeQbittorrentServer, folder: str, files: Mapping[str, int | bytes]
) -> MadeTorrent:
    """A folder of files (a size gives pseudo-random bytes, bytes are written as they
    are), made into a torrent and seeded."""
    root = tmp_path / "src" / folder
    for index, (name, content) in enumerate(files.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, bytes) else bytes([index % 251 + 1]) * content
        path.write_bytes(data + folder.encode())  # distinct per torrent
    made = make_torrent(root, "v1")
    seeder.offer(made)
    return made


def shows(tmp_path: Path) -> Path:
    return tmp_path / "library" / "shows"


async def test_numbered_files_of_a_season_pack_become_episodes(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "Quiet Harbour - Season 1 (2021) 1080p"
    files = {"01. Arrival.mkv": 2 * MiB, "02. The Pier.mkv": 2 * MiB, "03. Low Tide.mkv": 2 * MiB}
    made = torrent(tmp_path, seeder, folder, files)
    await download_and_wait(importing, made, seeder, State.DONE)
    season = shows(tmp_path) / "Quiet Harbour (2021) [tmdbid-880001]" / "Season 01"
    assert sorted(p.name for p in season.iterdir()) == [
        f"Quiet Harbour S01E0{n}.mkv" for n in (1, 2, 3)
    ]
    source = importing.qbt.downloads_dir / folder / "03. Low Tide.mkv"
    assert same_file(season / "Quiet Harbour S01E03.mkv", source)


async def test_a_season_pack_beside_its_aftershow_imports_on_its_own(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "The.Long.Watch.S02.1080p.WEB-DL.DDP5.1.H.264-GROUP"
    files = {f"The.Long.Watch.S02E0{n}.1080p.WEB-DL.mkv": 2 * MiB for n in (1, 2)}
    done = await download_and_wait(
        importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE
    )
    season = shows(tmp_path) / "The Long Watch (2019) [tmdbid-880003]" / "Season 02"
    assert sorted(p.name for p in season.iterdir()) == [
        "The Long Watch S02E01.mkv",
        "The Long Watch S02E02.mkv",
    ]
    recognition = await importing.store.recognitions.current(done.id)
    assert recognition is not None
    reason = recognition.reason
    assert reason is not None
    assert reason.code == "auto.only"
    assert float(reason.params["confidence"]) >= 0.85
    aftershow = next(
        c.candidate for c in recognition.candidates if c.candidate.provider_id == "880004"
    )
    assert aftershow.evidence is not None
    assert aftershow.evidence.title == "partial"


async def test_each_subtitle_of_a_movie_in_parts_follows_its_part(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "Heat.1995.2CD.DVDRip.XviD-GROUP"
    files = {
        "heat-cd1.avi": 3 * MiB,
        "heat-cd2.avi": 3 * MiB,
        "heat-cd1.ru.srt": 4096,
        "heat-cd2.ru.srt": 4096,
    }
    await download_and_wait(importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE)
    movie = tmp_path / "library" / "movies" / "Heat (1995) [tmdbid-949]"
    assert sorted(p.name for p in movie.iterdir()) == [
        "Heat (1995) [tmdbid-949] - cd1.avi",
        "Heat (1995) [tmdbid-949] - cd1.ru.srt",
        "Heat (1995) [tmdbid-949] - cd2.avi",
        "Heat (1995) [tmdbid-949] - cd2.ru.srt",
    ]
    source = importing.qbt.downloads_dir / folder / "heat-cd2.ru.srt"
    assert same_file(movie / "Heat (1995) [tmdbid-949] - cd2.ru.srt", source)


async def test_an_nfo_with_an_imdb_id_decides_between_remakes(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "Dune.1080p.BluRay.x264-GROUP"
    nfo = b"Dune\r\nhttps://www.imdb.com/title/tt0087182/\r\nSource: BluRay\r\n"
    files: dict[str, int | bytes] = {"Dune.1080p.BluRay.x264-GROUP.mkv": 3 * MiB, "dune.nfo": nfo}
    await download_and_wait(importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE)
    (movie,) = (tmp_path / "library" / "movies").iterdir()
    assert movie.name == "Dune (1984) [tmdbid-841]"


async def test_absolute_anime_numbers_go_into_their_season(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "[Group] Kitsune no Yaiba (13-14) [1080p]"
    files = {f"[Group] Kitsune no Yaiba - {n} (1080p) [ABCD12{n}].mkv": 2 * MiB for n in (13, 14)}
    await download_and_wait(importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE)
    season = shows(tmp_path) / "Blade of the Fox (2022) [tmdbid-880006]" / "Season 02"
    assert sorted(p.name for p in season.iterdir()) == [
        "Blade of the Fox S02E01.mkv",
        "Blade of the Fox S02E02.mkv",
    ]


async def test_a_series_file_without_an_episode_is_never_laid_out(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "The.Long.Watch.S01.1080p.WEB-DL-GROUP"
    files = {"The.Long.Watch.S01E01.1080p.mkv": 2 * MiB, "The.Long.Watch.Bonus.Cut.mkv": 2 * MiB}
    review = await download_and_wait(
        importing, torrent(tmp_path, seeder, folder, files), seeder, State.REVIEW
    )
    recognition = await importing.store.recognitions.current(review.id)
    assert recognition is not None
    assert recognition.reason == Reason(
        "review.episode_unknown", {"file": f"{folder}/The.Long.Watch.Bonus.Cut.mkv"}
    )
    assert not shows(tmp_path).exists() or not any(shows(tmp_path).rglob("*.mkv"))


async def test_a_daily_show_goes_to_the_show_on_air_that_day_as_its_listed_episode(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    # Two shows of the name; the more popular one ended in 1995. The pick is kept
    # in the store and the importer lays the dated file out as the listed episode.
    folder = "Night.Desk.2021.03.16.720p.WEB.h264-GROUP"
    files = {f"{folder}.mkv": 2 * MiB}
    await download_and_wait(importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE)
    season = shows(tmp_path) / "Night Desk (2020) [tmdbid-880007]" / "Season 02"
    assert [p.name for p in season.iterdir()] == ["Night Desk S02E02.mkv"]


async def test_a_tracker_id_name_is_recognized_by_its_files(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "6212345"
    files = {"The.Long.Watch.S02/The.Long.Watch.S02E03.1080p.WEB-DL.mkv": 2 * MiB}
    await download_and_wait(importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE)
    season = shows(tmp_path) / "The Long Watch (2019) [tmdbid-880003]" / "Season 02"
    assert [p.name for p in season.iterdir()] == ["The Long Watch S02E03.mkv"]


async def test_a_later_season_named_by_its_subtitle_goes_into_that_season(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "[Group] Lantern Keeper - River Town Arc (01-02) [1080p]"
    files = {
        f"[Group] Lantern Keeper - River Town Arc - {n:02d} (1080p) [ABCD00{n}].mkv": 2 * MiB
        for n in (1, 2)
    }
    await download_and_wait(importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE)
    season = shows(tmp_path) / "Lantern Keeper (2020) [tmdbid-880009]" / "Season 02"
    assert sorted(p.name for p in season.iterdir()) == [
        "Lantern Keeper S02E01.mkv",
        "Lantern Keeper S02E02.mkv",
    ]


async def test_a_special_named_after_the_show_goes_into_season_00(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    folder = "Lantern.Keeper.2020.The.Winter.Lantern.1080p.BluRay.x264-GROUP"
    files = {f"{folder}.mkv": 2 * MiB}
    await download_and_wait(importing, torrent(tmp_path, seeder, folder, files), seeder, State.DONE)
    season = shows(tmp_path) / "Lantern Keeper (2020) [tmdbid-880009]" / "Season 00"
    assert [p.name for p in season.iterdir()] == ["Lantern Keeper S00E01.mkv"]


async def test_digits_of_other_scripts_are_no_id_in_an_nfo_or_a_hint(
    importing: Running,
    seeder: FakeQbittorrentServer,
    tmp_path: Path,
    tg: FakeTelegram,
    tmdb: FakeTmdb,
) -> None:
    """int() reads "٨٤١" (Arabic-Indic) and "００８７１８２" (full-width) as numbers: read as ids
    they would have picked Dune (1984) for a Dune without a year. They are words, so the
    person is asked."""
    folder = "Dune.1080p.BluRay.x264-GROUP"
    nfo = "Dune\r\nhttps://www.imdb.com/title/tt００８７１８２/\r\n".encode()
    files: dict[str, int | bytes] = {f"{folder}.mkv": 3 * MiB, "dune.nfo": nfo}
    made = torrent(tmp_path, seeder, folder, files)
    alice = tg.user(111_111_111, language_code="en")
    sent = await alice.send_text(magnet_for(made) + "\nhttps://www.themoviedb.org/movie/٨٤١-dune")
    await alice.wait_for(lambda m: m.from_bot and m.reply_to_message_id == sent.message_id)
    (download,) = await importing.store.downloads.list_downloads()
    assert await importing.store.telegram.hints(download.id) == [
        "https://www.themoviedb.org/movie/٨٤١-dune"
    ]
    await eventually(
        lambda: _in_state(importing, download.id, State.REVIEW), within=40, what="review"
    )
    recognition = await importing.store.recognitions.current(download.id)
    assert recognition is not None
    assert all(
        c.candidate.evidence is None or not c.candidate.evidence.identifier
        for c in recognition.candidates
    )
    assert [c.path for c in tmdb.calls if c.path.startswith("/3/find")] == []
    assert not (tmp_path / "library" / "movies").exists() or not any(
        (tmp_path / "library" / "movies").iterdir()
    )
