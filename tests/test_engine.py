"""How the worker is assembled from the settings."""

from core.config import MetadataSettings, QbittorrentSettings
from store import Store
from worker.engine import Engine

UNREACHABLE = QbittorrentSettings(url="http://127.0.0.1:9")


async def test_without_a_tmdb_key_the_parsed_name_is_the_candidate(store: Store) -> None:
    engine = Engine.build(store, UNREACHABLE, metadata=MetadataSettings(provider="tmdb"))
    try:
        assert engine.tmdb is None
    finally:
        await engine.qbt.close()


async def test_with_a_tmdb_key_tmdb_is_asked(store: Store) -> None:
    metadata = MetadataSettings(provider="tmdb", tmdb_api_key="0" * 32)
    engine = Engine.build(store, UNREACHABLE, metadata=metadata)
    try:
        assert engine.tmdb is not None
        assert engine.tmdb.enabled
    finally:
        await engine.qbt.close()
        if engine.tmdb is not None:
            await engine.tmdb.close()
