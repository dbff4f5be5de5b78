"""What ``/metrics`` counts as it happens (one registry per process). Counts that
the database holds (downloads by state, the outbox, recognitions, the library)
are read at each scrape instead: ``web/metrics.py``."""

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

EXTERNAL_CALL_SECONDS = Histogram(
    "jellybit_external_call_seconds",
    "Calls to qBittorrent, Telegram, TMDB and Jellyfin, by system and outcome.",
    ["system", "outcome"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
    registry=REGISTRY,
)
EXTERNAL_CALL_ERRORS = Counter(
    "jellybit_external_call_errors",
    "Calls to another system that failed, by system and error.",
    ["system", "error"],
    registry=REGISTRY,
)
LOOP_TICK_SECONDS = Histogram(
    "jellybit_loop_tick_seconds",
    "Ticks of the background loops (poller, importer, inbox, outbox, status).",
    ["loop"],
    buckets=(0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
    registry=REGISTRY,
)
LOOP_FAILED_TICKS = Counter(
    "jellybit_loop_failed_ticks",
    "Ticks of the background loops that failed.",
    ["loop"],
    registry=REGISTRY,
)
PART_RESTARTS = Counter(
    "jellybit_part_restarts",
    "Restarts of a long-running part after it failed (worker/supervisor.py).",
    ["part"],
    registry=REGISTRY,
)
PART_FAILING = Gauge(
    "jellybit_part_failing",
    "1 while a long-running part keeps failing, else 0.",
    ["part"],
    registry=REGISTRY,
)
