"""A title picked by the person: a pick found by searching is checked when TMDB has
answered, so a download that moved on meanwhile refuses it and keeps what it has.
jellybit built (not running), the fake TMDB, real SQLite."""

import asyncio
from pathlib import Path

import pytest

from core.errors import InvalidTransitionError
from core.reasons import reason
from core.states import State
from recognition.candidates import Candidate
from recognition.identify import Status
from store.recognition import StoredCandidate, StoredFile
from tests.support.house import application, eventually
from tests.support.tmdb import FakeTmdb
from tests.web.conftest import metadata_for, new_download

DUNE = Candidate(
    provider="tmdb", provider_id="438631", kind="movie", title="Dune", original_title=None,
    year=2021, overview=None, poster_path=None, popularity=1.0, score=0.8,
)  # fmt: skip


async def test_a_search_pick_refused_when_the_download_moved_on_during_the_wait(
    tmp_path: Path,
) -> None:
    async with (
        FakeTmdb() as tmdb,
        application(tmp_path, metadata=metadata_for(tmdb.base_url, tmdb.api_key)) as app,
    ):
        store, actions = app.store, app.engine.cases.actions
        download = await new_download(store, "Dune.1080p", state=State.REVIEW)
        dune = StoredCandidate.of(DUNE, selected=False)
        await store.recognitions.save(
            download.id, kind="movie", title="Dune", year=None, season=None,
            status=Status.NEEDS_REVIEW, reason=reason("review.ambiguous", count=2),
            files=[StoredFile("Dune/Dune.mkv", "video", 1, None, (), None, ())],
            candidates=[dune],
        )  # fmt: skip
        tmdb.set_delay(2.0)
        found = asyncio.create_task(actions.pick_found(download.id, "movie", 335984))
        # TMDB is asked (answering in 2 s): meanwhile the other pick lands
        await eventually(lambda: asked(tmdb), within=5, what="TMDB asked")
        await actions.decide(download.id, dune.id)
        with pytest.raises(InvalidTransitionError):
            await found
        recognition = await store.recognitions.current(download.id)
        assert recognition is not None
        assert [c.id for c in recognition.candidates if c.selected] == [dune.id]
        assert (await store.downloads.get_download(download.id)).state == State.IMPORTING


async def asked(tmdb: FakeTmdb) -> bool:
    return bool(tmdb.calls)
