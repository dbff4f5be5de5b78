"""aiogram imported through ``bot`` (``bot/__init__.py``) builds its Telegram models on
first use, and reads and writes exactly what aiogram reads and writes when it builds
them all at import; this fails, loudly, when an aiogram release changes what the shim
relies on (the import-time ``model_rebuild`` loop of ``aiogram/types/__init__.py``)."""

import json
import subprocess
import sys
from typing import Any


def _probe(way: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.aiogram_probe", way],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_aiogram_through_bot_builds_its_models_on_use_and_reads_what_aiogram_reads() -> None:
    lazy, eager = _probe("lazy"), _probe("eager")
    assert eager["built_at_import"] > 400  # upstream builds all ~450 types at import
    assert lazy["built_at_import"] == 0
    assert len(lazy["read"]) > 20
    assert lazy["read"] == eager["read"]
