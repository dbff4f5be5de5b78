"""GET /metrics: off by default, behind the API token, parsed by Prometheus' own
text parser, and the numbers are the database's and the process's."""

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from core.config import WebSettings
from core.reasons import reason
from core.states import State
from store import Store
from tests.support.house import application
from tests.web.conftest import new_download
from worker.engine import Engine

Client = TestClient[web.Request, web.Application]


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, web: WebSettings) -> AsyncIterator[tuple[Client, Engine]]:
    """jellybit built with these web settings (not run), its web app under a test client."""
    async with application(tmp_path, web=web) as app:
        client = TestClient(TestServer(app.web))
        await client.start_server()
        try:
            yield client, app.engine
        finally:
            await client.close()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def test_metrics_are_off_unless_asked_for(tmp_path: Path) -> None:
    async with serving(tmp_path, WebSettings()) as (client, _):
        response = await client.get("/metrics")
        assert response.status == 404
        assert "web.metrics" in await response.text()


async def test_with_an_api_token_metrics_need_it(tmp_path: Path) -> None:
    async with serving(tmp_path, WebSettings(metrics=True, api_token="t0ken")) as (client, _):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "t0ken"}):
            response = await client.get("/metrics", headers=headers)
            assert response.status == 401, headers
            assert response.headers["WWW-Authenticate"] == "Bearer"
        good = await client.get("/metrics", headers={"Authorization": "Bearer t0ken"})
        assert good.status == 200
        assert good.headers["Content-Type"].startswith("text/plain; version=")


async def test_the_counts_are_the_database_and_the_process(store: Store, tmp_path: Path) -> None:
    for state in (State.DOWNLOADING, State.DOWNLOADING, State.FAILED, State.DONE):
        await new_download(store, state=state)
    announced = await new_download(store, state=State.DOWNLOADING)
    await store.downloads.move(
        announced.id, State.STUCK, reason=reason("qbt.no_progress", seconds=60), announce=True
    )
    async with serving(tmp_path, WebSettings(metrics=True)) as (client, engine):
        with capture_logs():
            await engine.poller.loop.once()  # qBittorrent is not there: a failed call and tick
        response = await client.get("/metrics")
        assert response.status == 200
        found = samples(await response.text())
    assert found[("jellybit_downloads", (("state", "downloading"),))] == 2
    assert found[("jellybit_downloads", (("state", "failed"),))] == 1
    assert found[("jellybit_downloads", (("state", "done"),))] == 1
    assert found[("jellybit_downloads", (("state", "stuck"),))] == 1
    assert found[("jellybit_downloads", (("state", "review"),))] == 0
    assert found[("jellybit_outbox_unsent", ())] == 1
    assert 0 <= found[("jellybit_outbox_oldest_age_seconds", ())] < 60
    assert found[("jellybit_recognitions", (("outcome", "review"),))] == 0
    assert found[("jellybit_library_files", (("method", "hardlink"),))] == 0
    assert found[("jellybit_loop_failed_ticks_total", (("loop", "poller"),))] >= 1
    errors = [
        value
        for (name, labels), value in found.items()
        if name == "jellybit_external_call_errors_total" and ("system", "qbittorrent") in labels
    ]
    assert sum(errors) >= 1
    assert found[("jellybit_loop_tick_seconds_count", (("loop", "poller"),))] >= 1
