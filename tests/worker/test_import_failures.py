"""An import that fails for a reason of jellybit's own ends as ``failed`` with
that reason, announced, instead of being retried in silence forever."""

import asyncio
from pathlib import Path

from common.explain import reason_text
from common.i18n import I18n
from core import clock
from core.reasons import Reason
from core.states import State
from recognition.candidates import Evidence
from recognition.identify import Status
from store import Store
from store.recognition import StoredFile
from tests.support.candidates import stored
from tests.support.house import application
from tests.web.conftest import new_download
from worker.importer import UNEXPECTED_TRIES


async def test_a_stored_id_that_is_not_a_number_fails_with_a_reason(
    store: Store, tmp_path: Path
) -> None:
    """A candidate stored before ids were checked on the way in ("12abc")."""
    download = await new_download(store, "Dune.2021.1080p", state=State.IMPORTING)
    picked = stored(
        "12abc",
        "Dune",
        2021,
        selected=True,
        original_title=None,
        evidence=Evidence("exact", "Dune", "exact"),
    )
    await store.recognitions.save(
        download.id, kind="movie", title="Dune", year=2021, season=None, status=Status.AUTO,
        reason=Reason("picked"),
        files=[StoredFile("Dune/Dune.mkv", "video", 4_000_000, None, (), None, ())],
        candidates=[picked],
    )  # fmt: skip
    async with application(tmp_path) as app:
        started = clock.monotonic()
        while (await store.downloads.get_download(download.id)).state == State.IMPORTING:
            assert clock.monotonic() - started < 20, "still importing: retried in silence"
            await app.engine.importer.tick()
            await asyncio.sleep(0.5)
    assert (await store.downloads.get_download(download.id)).state == State.FAILED
    last = (await store.downloads.list_transitions(download.id))[-1]
    reason = last.reason
    assert reason.code == "import.error"
    assert "12abc" in str(reason.params["detail"])
    ru = reason_text(I18n("ru").texts("ru"), reason)
    assert "12abc" not in ru  # jellybit's own words for the chat; the card shows the detail
    assert "12abc" in reason.detail()
    assert "Повторить" in ru
    rows = await store.db.reader.execute_fetchall(
        "SELECT kind FROM outbox WHERE download_id = :id", {"id": download.id}
    )
    assert [row[0] for row in rows] == ["failed"]
    assert UNEXPECTED_TRIES > 1  # it was tried again before giving up
