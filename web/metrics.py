"""``GET /metrics``: the Prometheus text format (``web.metrics = true``; with
``web.api_token`` set, only with that bearer token).

What happens is counted as it happens (``common/metrics.py``: external calls, the
loops' ticks); what the database holds is read at each scrape (downloads by
state, the outbox, the current recognitions, the files in the library).
"""

from collections.abc import Iterator
from typing import get_args

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from common.metrics import REGISTRY
from core import clock
from core.config import LinkMode
from core.states import State
from recognition.identify import Status
from store.stats import Stats, read_stats
from web.app import DEPS, WebDeps
from web.auth import bearer_matches

# A recognition's status as the metric names its outcome.
OUTCOMES = {
    Status.AUTO: "auto",
    Status.NEEDS_REVIEW: "review",
    Status.WAITING: "waiting",
    Status.CONFIRMED: "picked",
}


def setup(app: web.Application) -> None:
    app.router.add_get("/metrics", metrics)


async def metrics(request: web.Request) -> web.Response:
    deps = request.app[DEPS]
    if not deps.settings.web.metrics:
        raise web.HTTPNotFound(text="metrics are off (web.metrics = false)\n")
    token = deps.settings.web.api_token
    if token and not bearer_matches(request, token):
        raise web.HTTPUnauthorized(
            text="missing or wrong bearer token\n", headers={"WWW-Authenticate": "Bearer"}
        )
    stats = await deps.store.db.read(read_stats)
    scrape = CollectorRegistry(auto_describe=True)
    scrape.register(_Snapshot(deps, stats))
    body = generate_latest(REGISTRY) + generate_latest(scrape)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


class _Snapshot(Collector):
    """The counts of one scrape."""

    def __init__(self, deps: WebDeps, stats: Stats) -> None:
        self._deps = deps
        self._stats = stats

    def collect(self) -> Iterator[Metric]:
        stats = self._stats
        downloads = GaugeMetricFamily("jellybit_downloads", "Downloads by state.", labels=["state"])
        for state in State:
            downloads.add_metric([state.value], stats.downloads_by_state.get(state.value, 0))
        yield downloads
        age = self._deps.last_poll_age()
        yield GaugeMetricFamily(
            "jellybit_qbittorrent_last_answer_age_seconds",
            "Seconds since qBittorrent last answered the poller (NaN: not yet).",
            value=float("nan") if age is None else age,
        )
        yield GaugeMetricFamily(
            "jellybit_outbox_unsent", "Replies and notifications not yet sent.",
            value=stats.outbox_unsent,
        )  # fmt: skip
        yield GaugeMetricFamily(
            "jellybit_outbox_oldest_age_seconds",
            "Age of the oldest unsent reply or notification (0: none).",
            value=_age(stats.outbox_oldest),
        )
        recognitions = GaugeMetricFamily(
            "jellybit_recognitions",
            "Downloads by the outcome of their current recognition.",
            labels=["outcome"],
        )
        for status, outcome in OUTCOMES.items():
            recognitions.add_metric([outcome], stats.recognitions_by_status.get(status, 0))
        yield recognitions
        links = GaugeMetricFamily(
            "jellybit_library_files", "Files in the library, by how they were placed.",
            labels=["method"],
        )  # fmt: skip
        for method in get_args(LinkMode):
            links.add_metric([method], stats.links_by_method.get(method, 0))
        yield links


def _age(stamp: str | None) -> float:
    if stamp is None:
        return 0.0
    age_ms = clock.now_ms() - clock.to_ms(clock.parse_time(stamp))
    return max(0.0, age_ms / 1000)
