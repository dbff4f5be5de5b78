"""From a complete torrent to files in the Jellyfin library: downloads through the fake
qBittorrent (its files real, on a real file system), then recognition and layout."""

import itertools
import os
from pathlib import Path
from typing import Any

import pytest

from core.config import JellyfinSettings, MetadataSettings
from core.errors import NotFoundError
from core.ids import new_id
from core.models import Download
from core.reasons import reason
from core.states import State
from recognition.identify import Status
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import Running, eventually, history, library_in, start_house
from tests.support.jellyfin import FakeJellyfin
from tests.support.mounts import resize, tmpfs
from tests.support.telegram import FakeTelegram
from tests.support.tmdb import FakeTmdb
from tests.support.torrents import MadeTorrent, magnet_for, make_content, make_torrent
from worker import importer as importer_module
from worker.ingest import Created

_unique = itertools.count(1000)
MiB = 1024 * 1024
MOVIE_FILES = ["Dune.2021.1080p.WEB-DL.mkv", "Dune.2021.1080p.WEB-DL.ru.srt", "Sample/sample.mkv"]
SEASON_FILES = [f"Show.Name.S01E0{n}.1080p.WEB.mkv" for n in (1, 2, 3)]


@pytest.fixture
def importing(running: Running) -> Running:
    return running


def torrent_of(
    tmp_path: Path, seeder: FakeQbittorrentServer, folder: str, names: list[str], kind: str = "v1"
) -> MadeTorrent:
    sizes = [3 * MiB if n.endswith(".mkv") and "ample" not in n else 4096 for n in names]
    content = make_content(
        tmp_path / "src", folder, sum(sizes), names=names, seed=next(_unique)
    )  # distinct bytes: the module's seeder must not see the same torrent twice
    made = make_torrent(content, kind)  # type: ignore[arg-type]
    seeder.offer(made)
    return made


async def download_and_wait(
    running: Running, made: MadeTorrent, seeder: FakeQbittorrentServer, state: State
) -> Download:
    result = await running.engine.cases.ingest.magnet(magnet_for(made), origin="telegram")
    assert isinstance(result, Created)
    return await eventually(
        lambda: _in_state(running, result.download.id, state), within=40, what=str(state)
    )


async def _in_state(running: Running, download_id: str, state: State) -> Download | None:
    download = await running.store.downloads.get_download(download_id)  # type: ignore[arg-type]
    return download if download.state == state else None


def same_file(a: Path, b: Path) -> bool:
    return os.stat(a).st_ino == os.stat(b).st_ino and os.stat(a).st_dev == os.stat(b).st_dev


async def test_a_movie_with_subtitles_is_hardlinked_into_the_library(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = torrent_of(tmp_path, seeder, "Dune.2021.1080p.WEB-DL", MOVIE_FILES, kind="hybrid")
    done = await download_and_wait(importing, made, seeder, State.DONE)
    folder = tmp_path / "library" / "movies" / "Dune (2021)"
    video, subtitle = folder / "Dune (2021).mkv", folder / "Dune (2021).ru.srt"
    source = importing.qbt.downloads_dir / "Dune.2021.1080p.WEB-DL" / MOVIE_FILES[0]
    assert same_file(video, source)
    assert os.stat(video).st_nlink == 2
    assert subtitle.read_bytes() == (source.parent / MOVIE_FILES[1]).read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["Dune (2021).mkv", "Dune (2021).ru.srt"]
    links = await importing.store.recognitions.links(done.id)
    assert {row.method for row in links} == {"hardlink"}
    assert await history(importing.store, done.id) == [
        "accepted",
        "downloading",
        "importing",
        "done",
    ]


async def test_a_full_library_fails_with_its_reason_and_retry_after_the_fix_lands_it(
    qbt: FakeQbittorrentServer,
    seeder: FakeQbittorrentServer,
    tg: FakeTelegram,
    tmp_path: Path,
) -> None:
    made = torrent_of(tmp_path, seeder, "Arrival.2016.1080p.WEB-DL", ["Arrival.2016.1080p.mkv"])
    with tmpfs(tmp_path / "small", size="1m") as small:  # the 3 MiB film does not fit
        library = library_in(small, link_mode="copy")
        running = await start_house(qbt, tg, tmp_path, library=library)
        try:
            failed = await download_and_wait(running, made, seeder, State.FAILED)
            assert failed.error is not None
            assert failed.error.code == "layout.library_full"
            assert list(small.rglob("*.mkv")) == []
            picked = await running.store.recognitions.current(failed.id)
            resize(small, "64m")  # space freed
            await running.engine.cases.actions.retry(failed.id)
            done = await eventually(
                lambda: _in_state(running, failed.id, State.DONE), within=40, what="done"
            )
            (video,) = small.rglob("*.mkv")
            assert video.name == "Arrival (2016).mkv"
            assert await running.store.recognitions.current(done.id) == picked  # kept, not redone
            assert (await history(running.store, done.id))[-4:] == [
                "failed",
                "accepted",
                "importing",
                "done",
            ]
        finally:
            await running.house.halt()


async def test_a_second_real_download_of_a_movie_becomes_a_version(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    first = torrent_of(tmp_path, seeder, "Arrival.2016.1080p.WEB-DL", ["Arrival.2016.1080p.mkv"])
    second = torrent_of(tmp_path, seeder, "Arrival.2016.2160p.BluRay", ["Arrival.2016.2160p.mkv"])
    one = await download_and_wait(importing, first, seeder, State.DONE)
    two = await download_and_wait(importing, second, seeder, State.DONE)
    folder = tmp_path / "library" / "movies" / "Arrival (2016)"
    assert sorted(p.name for p in folder.iterdir()) == [
        "Arrival (2016) - 2160p BluRay.mkv",
        "Arrival (2016).mkv",
    ]
    downloads = importing.qbt.downloads_dir
    assert same_file(
        folder / "Arrival (2016).mkv", downloads / first.name / "Arrival.2016.1080p.mkv"
    )
    assert same_file(
        folder / "Arrival (2016) - 2160p BluRay.mkv",
        downloads / second.name / "Arrival.2016.2160p.mkv",
    )
    rows = await importing.store.db.reader.execute_fetchall(
        "SELECT count(DISTINCT title_id) FROM download WHERE id IN (:a, :b)",
        {"a": one.id, "b": two.id},
    )
    assert rows[0][0] == 1  # one title, two versions


async def test_a_season_pack_becomes_episodes(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = torrent_of(tmp_path, seeder, "Show.Name.S01.1080p.WEB", SEASON_FILES)
    await download_and_wait(importing, made, seeder, State.DONE)
    season = tmp_path / "library" / "shows" / "Show Name" / "Season 01"
    assert sorted(p.name for p in season.iterdir()) == [
        "Show Name S01E01.mkv",
        "Show Name S01E02.mkv",
        "Show Name S01E03.mkv",
    ]


@pytest.mark.parametrize("mode", ["symlink", "copy"])
async def test_symlink_and_copy_modes(
    qbt: FakeQbittorrentServer,
    seeder: FakeQbittorrentServer,
    tg: FakeTelegram,
    tmp_path: Path,
    mode: str,
) -> None:
    running = await start_house(qbt, tg, tmp_path, library=library_in(tmp_path, link_mode=mode))
    try:
        made = torrent_of(tmp_path, seeder, f"Dune.2021.{mode}", MOVIE_FILES[:1])
        done = await download_and_wait(running, made, seeder, State.DONE)
        video = tmp_path / "library" / "movies" / "Dune (2021)" / "Dune (2021).mkv"
        assert video.is_symlink() == (mode == "symlink")
        assert not same_file(video, made.content) if mode == "copy" else video.is_symlink()
        assert {row.method for row in await running.store.recognitions.links(done.id)} == {mode}
    finally:
        await running.house.halt()


@pytest.mark.parametrize("cross_device", ["fail", "copy"])
async def test_cross_device_hardlink(
    qbt: FakeQbittorrentServer,
    seeder: FakeQbittorrentServer,
    tg: FakeTelegram,
    tmp_path: Path,
    cross_device: str,
) -> None:
    shm = Path("/dev/shm") / f"jellybit-test-{os.getpid()}-{cross_device}"
    assert os.stat("/dev/shm").st_dev != os.stat(tmp_path).st_dev
    library = library_in(shm, cross_device=cross_device)
    running = await start_house(qbt, tg, tmp_path, library=library)
    try:
        made = torrent_of(tmp_path, seeder, f"Dune.2021.{cross_device}", MOVIE_FILES[:1])
        state = State.FAILED if cross_device == "fail" else State.DONE
        download = await download_and_wait(running, made, seeder, state)
        if cross_device == "fail":
            assert download.error is not None
            assert download.error.code == "layout.cross_device"
            assert "/dev/shm" in download.error.english()
            assert not (shm / "library" / "movies" / "Dune (2021)" / "Dune (2021).mkv").exists()
        else:
            links = await running.store.recognitions.links(download.id)
            assert {row.method for row in links} == {"copy"}
    finally:
        await running.house.halt()
        import shutil

        shutil.rmtree(shm, ignore_errors=True)


async def test_an_existing_file_at_a_target_is_left_alone(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    mine = tmp_path / "library" / "movies" / "Dune (2021)" / "Dune (2021).mkv"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"the person's own file")
    made = torrent_of(tmp_path, seeder, "Dune.2021.1080p.WEB-DL", MOVIE_FILES[:1])
    review = await download_and_wait(importing, made, seeder, State.REVIEW)
    assert mine.read_bytes() == b"the person's own file"
    last = (await importing.store.downloads.list_transitions(review.id))[-1]
    assert str(mine) in last.reason.english()
    assert await importing.store.recognitions.links(review.id) == []  # nothing half-applied


async def test_relink_replaces_exactly_the_previous_batch(
    importing: Running, seeder: FakeQbittorrentServer, tmp_path: Path
) -> None:
    made = torrent_of(tmp_path, seeder, "Dune.2021.1080p.WEB-DL", MOVIE_FILES[:2])
    done = await download_and_wait(importing, made, seeder, State.DONE)
    old_folder = tmp_path / "library" / "movies" / "Dune (2021)"
    users = old_folder / "poster.jpg"
    users.write_bytes(b"a poster the person added")

    await importing.store.recognitions.set_overrides(done.id, {"title": "Dune Part One"})
    await reconsider(importing, done)
    await importing.engine.cases.actions.relink(done.id)
    await eventually(lambda: _in_state(importing, done.id, State.DONE), within=20, what="relinked")

    new_video = (
        tmp_path / "library" / "movies" / "Dune Part One (2021)" / "Dune Part One (2021).mkv"
    )
    assert new_video.exists()
    assert sorted(p.name for p in old_folder.iterdir()) == ["poster.jpg"]  # ours gone, theirs kept
    current = await importing.store.recognitions.links(done.id)
    assert {Path(row.target_path).parent.name for row in current} == {"Dune Part One (2021)"}


async def reconsider(running: Running, download: Download) -> None:
    """Recognize again with the current overrides (as the review page does)."""
    recognition = await running.store.recognitions.current(download.id)
    assert recognition is not None
    await running.store.recognitions.set_status(
        recognition.id, Status.WAITING, reason("person.corrected")
    )


async def test_a_batch_interrupted_midway_is_finished_without_duplicates(
    qbt: FakeQbittorrentServer,
    seeder: FakeQbittorrentServer,
    tg: FakeTelegram,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The process dies after one file of a batch; a new one finishes the batch."""
    real = importer_module._link_one
    calls = 0

    def die_after_one(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("power cut")
        return real(*args)

    monkeypatch.setattr(importer_module, "_link_one", die_after_one)
    running = await start_house(qbt, tg, tmp_path)
    made = torrent_of(tmp_path, seeder, "Show.Name.S01.1080p.WEB", SEASON_FILES)
    result = await running.engine.cases.ingest.magnet(magnet_for(made), origin="telegram")
    assert isinstance(result, Created)
    await eventually(lambda: _crashed(running, result.download.id), within=40, what="half a batch")
    await running.house.halt()  # the "dead" process is gone ...
    monkeypatch.setattr(importer_module, "_link_one", real)

    running = await start_house(qbt, tg, tmp_path)  # ... and a new one starts
    try:
        done = await eventually(
            lambda: _in_state(running, result.download.id, State.DONE), within=20, what="done"
        )
        links = await running.store.recognitions.links(done.id)
        assert len(links) == 3
        assert len({row.batch_id for row in links}) == 1
        season = tmp_path / "library" / "shows" / "Show Name" / "Season 01"
        assert len(list(season.iterdir())) == 3
    finally:
        await running.house.halt()


async def _crashed(running: Running, download_id: str) -> bool:
    links = await running.store.recognitions.links(download_id)  # type: ignore[arg-type]
    return (
        bool(links)
        and any(row.linked_at is None for row in links)
        and any(row.linked_at for row in links)
    )


async def test_tmdb_auto_accepts_and_jellyfin_hears_about_it(
    qbt: FakeQbittorrentServer,
    seeder: FakeQbittorrentServer,
    tg: FakeTelegram,
    tmp_path: Path,
) -> None:
    async with FakeTmdb() as tmdb, FakeJellyfin() as jellyfin:
        metadata = MetadataSettings(
            provider="tmdb", tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url, language="en-US"
        )
        jellyfin_settings = JellyfinSettings(url=jellyfin.url, api_key=jellyfin.api_key)
        running = await start_house(
            qbt, tg, tmp_path, metadata=metadata, jellyfin=jellyfin_settings
        )
        try:
            made = torrent_of(tmp_path, seeder, "Dune.2021.1080p.WEB-DL", MOVIE_FILES[:1])
            await download_and_wait(running, made, seeder, State.DONE)
            folder = next((tmp_path / "library" / "movies").iterdir())
            assert folder.name.startswith("Dune (2021) [tmdbid-")
            await eventually(lambda: _heard(jellyfin), within=10, what="Jellyfin refresh")
            video = folder / f"{folder.name}.mkv"
            assert jellyfin.updated_paths == [str(video)]
            header = jellyfin.calls[-1].headers["Authorization"]
            assert header == f'MediaBrowser Token="{jellyfin.api_key}"'
        finally:
            await running.house.halt()


async def _heard(jellyfin: FakeJellyfin) -> bool:
    return bool(jellyfin.calls)


async def test_tmdb_ambiguity_goes_to_review_and_an_outage_waits_visibly(
    qbt: FakeQbittorrentServer,
    seeder: FakeQbittorrentServer,
    tg: FakeTelegram,
    tmp_path: Path,
) -> None:
    async with FakeTmdb() as tmdb:
        metadata = MetadataSettings(
            provider="tmdb", tmdb_api_key=tmdb.api_key, tmdb_base=tmdb.base_url, language="en-US"
        )
        running = await start_house(qbt, tg, tmp_path, metadata=metadata)
        try:
            ambiguous = torrent_of(tmp_path, seeder, "Dune.1080p.WEB-DL", ["Dune.1080p.WEB-DL.mkv"])
            review = await download_and_wait(running, ambiguous, seeder, State.REVIEW)
            recognition = await running.store.recognitions.current(review.id)
            assert recognition is not None
            assert recognition.status == "needs_review"
            assert {c.candidate.year for c in recognition.candidates} >= {1984, 2021}
            assert recognition.chosen() is None
            with pytest.raises(NotFoundError):  # a candidate of nothing here changes nothing
                await running.engine.cases.actions.decide(review.id, new_id())
            pick = next(c for c in recognition.candidates if c.candidate.year == 1984)
            await running.engine.cases.actions.decide(review.id, pick.id)
            await eventually(
                lambda: _in_state(running, review.id, State.DONE), within=20, what="laid out"
            )
            folder = next((tmp_path / "library" / "movies").iterdir())
            assert folder.name.startswith("Dune (1984) [tmdbid-")

            tmdb.set_down(True)
            made = torrent_of(tmp_path, seeder, "Dune.2021.1080p.WEB-DL", MOVIE_FILES[:1])
            result = await running.engine.cases.ingest.magnet(magnet_for(made), origin="telegram")
            assert isinstance(result, Created)
            waiting = await eventually(
                lambda: _waiting(running, result.download.id), within=40, what="waiting for TMDB"
            )
            reason = waiting.reason
            assert reason is not None
            assert (reason.code, reason.params["system"]) == ("waiting", "tmdb")
            assert (await running.store.downloads.get_download(result.download.id)).state == (
                State.IMPORTING
            )
            tmdb.set_down(False)
            await eventually(
                lambda: _in_state(running, result.download.id, State.DONE), within=30, what="done"
            )
        finally:
            await running.house.halt()


async def _waiting(running: Running, download_id: str) -> Any:
    recognition = await running.store.recognitions.current(download_id)  # type: ignore[arg-type]
    return recognition if recognition is not None and recognition.status == "waiting" else None
