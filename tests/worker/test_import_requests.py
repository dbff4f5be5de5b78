"""What one import asks of qBittorrent (the fake's request log): the torrent's files
once, and no poll of its own (the poller's last answer, which saw the torrent complete,
names it). jellybit built and driven tick by tick, so nothing else asks meanwhile."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.models import Download
from core.reasons import reason
from core.states import State
from jellybit.app import Application
from recognition.candidates import Candidate
from recognition.identify import Status
from store.recognition import StoredCandidate
from tests.support.fake_qbittorrent import FakeQbittorrentServer
from tests.support.house import application, eventually, library_in, settings_for
from tests.support.torrents import magnet_for
from tests.worker.test_import import MOVIE_FILES, torrent_of
from worker.ingest import Created

POLLS = ("sync/maindata", "torrents/info", "torrents/count")


@pytest.fixture
async def app(qbt: FakeQbittorrentServer, tmp_path: Path) -> AsyncIterator[Application]:
    async with application(
        tmp_path, qbittorrent=settings_for(qbt), library=library_in(tmp_path)
    ) as built:
        yield built


async def complete(
    app: Application,
    qbt: FakeQbittorrentServer,
    tmp_path: Path,
    folder: str = "Dune.2021.1080p.WEB-DL",
    names: list[str] = MOVIE_FILES,
) -> Download:
    """A torrent downloaded and seen complete by the poller (ticked by hand)."""
    engine = app.engine
    made = torrent_of(tmp_path, qbt, folder, names, kind="hybrid")
    created = await engine.cases.ingest.magnet(magnet_for(made), origin="telegram")
    assert isinstance(created, Created)
    await engine.adder.add(created.download)

    async def importing() -> Download | None:
        await engine.poller.tick()
        download = await app.store.downloads.get_download(created.download.id)
        return download if download.state == State.IMPORTING else None

    return await eventually(importing, within=20, what="complete")


async def test_one_movie_from_complete_to_done_asks_for_its_files_only(
    app: Application, qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    download = await complete(app, qbt, tmp_path)
    polls, files = qbt.requests_to(*POLLS), qbt.requests_to("torrents/files")
    await app.engine.importer.tick()
    done = await app.store.downloads.get_download(download.id)
    assert done.state == State.DONE
    assert (qbt.requests_to(*POLLS) - polls, qbt.requests_to("torrents/files") - files) == (0, 1)


async def test_a_torrent_deleted_after_it_completed_is_looked_for_afresh(
    app: Application, qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    download = await complete(app, qbt, tmp_path)
    qbt.client().torrents_delete(torrent_hashes=download.hash_values()[0], delete_files=False)
    polls = qbt.requests_to(*POLLS)
    await app.engine.importer.tick()
    (*_, moved) = await app.store.downloads.list_transitions(download.id)
    assert (moved.to_state, moved.reason.code) == (State.REVIEW, "review.no_video")
    assert qbt.requests_to(*POLLS) - polls == 2  # torrents/count, sync/maindata


async def test_a_pick_of_another_kind_reads_the_files_again_without_a_poll(
    app: Application, qbt: FakeQbittorrentServer, tmp_path: Path
) -> None:
    parts = [f"Chernobyl.Part.{n}.1080p.mkv" for n in (1, 2, 3)]
    download = await complete(app, qbt, tmp_path, "Chernobyl.1080p", parts)
    polls = qbt.requests_to(*POLLS)
    await app.engine.importer.tick()  # a movie in three parts, without a year: review
    recognition = await app.store.recognitions.current(download.id)
    assert recognition is not None
    assert recognition.kind == "movie"
    show = Candidate(
        provider="local", provider_id=None, kind="series", title="Chernobyl",
        original_title=None, year=None, overview=None, poster_path=None, popularity=0.0,
        score=1.0,
    )  # fmt: skip
    picked = StoredCandidate.of(show, selected=False)
    await app.store.recognitions.save(
        download.id, kind=recognition.kind, title=recognition.title, year=None, season=None,
        status=Status.NEEDS_REVIEW, reason=reason("picked"), files=recognition.files,
        candidates=[picked],
    )  # fmt: skip
    await app.engine.cases.actions.decide(download.id, picked.id)
    await app.engine.importer.tick()  # read again as a show, laid out
    done = await app.store.downloads.get_download(download.id)
    assert done.state == State.DONE
    episodes = sorted(p.name for p in (tmp_path / "library" / "shows").rglob("*.mkv"))
    assert episodes == [f"Chernobyl S01E0{n}.mkv" for n in (1, 2, 3)]
    assert qbt.requests_to(*POLLS) - polls == 0
