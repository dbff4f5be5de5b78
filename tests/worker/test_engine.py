"""How the worker is assembled from the settings (by the one builder)."""

from pathlib import Path

from core.config import MetadataSettings
from tests.support.house import application


async def test_without_a_tmdb_key_the_parsed_name_is_the_candidate(tmp_path: Path) -> None:
    async with application(tmp_path, metadata=MetadataSettings(provider="tmdb")) as app:
        assert app.engine.tmdb is None


async def test_with_a_tmdb_key_tmdb_is_asked(tmp_path: Path) -> None:
    metadata = MetadataSettings(provider="tmdb", tmdb_api_key="0" * 32)
    async with application(tmp_path, metadata=metadata) as app:
        assert app.engine.tmdb is not None
        assert app.engine.tmdb.enabled
