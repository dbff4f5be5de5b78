"""Searches in the store (store/search.py): the reply that starts one, each source's
answer as it arrives, the marks of titles held and downloading, and the purge."""

from dataclasses import replace
from datetime import timedelta

from core import clock
from core.ids import Id, new_id
from core.models import NewDownload
from core.reasons import Reason
from core.search import MAX_RESULTS, Found, SourceAnswer
from core.states import State
from recognition.candidates import Candidate
from store import Store
from store.inbox import Received, Reply
from store.search import RELEASES, TAKEN, TITLES, Marks, NewSearch
from tests.support.states import put_in_state

ALICE = 111
DUNE = Candidate(
    provider="tmdb", provider_id="438631", kind="movie", title="Dune", original_title="Dune",
    year=2021, overview=None, poster_path="/d.jpg", popularity=80.0,
)  # fmt: skip


def release(name: str) -> Found:
    return Found(name=name, link="magnet:?xt=urn:btih:" + "b" * 40, source="prowlarr", size=7)


async def reply_with_search(store: Store, words: str, *, offered: bool = False) -> Id:
    body = '{"update_id": 1, "message": {"text": "/find", "chat": {"id": 111}}}'
    await store.inbox.store([Received(1, "d", ALICE, "message", body)])
    (entry,) = await store.inbox.pending(clock.now())
    search = NewSearch(new_id(), words, offered=offered)
    await store.inbox.step_done(entry.id, ALICE, 1, [Reply("🔎", search=search)], handled=True)
    return search.id


async def test_a_search_is_stored_with_its_reply_and_linked_to_the_message_sent(
    store: Store,
) -> None:
    search_id = await reply_with_search(store, "dune 2021")
    search = await store.searches.find(search_id)
    assert search is not None
    assert (search.phase, search.running, search.chat_id, search.message_id) == (
        TITLES, True, ALICE, None,
    )  # fmt: skip
    (queued,) = await store.outbox.due(clock.now())
    await store.outbox.mark_sent(queued.id, 77)
    search = await store.searches.find(search_id)
    assert search is not None
    assert search.message_id == 77
    assert [s.id for s in await store.searches.running()] == [search_id]


async def test_an_offered_search_waits_for_its_tap(store: Store) -> None:
    search_id = await reply_with_search(store, "some words", offered=True)
    assert await store.searches.running() == []
    await store.searches.change(search_id, running=1)
    assert [s.id for s in await store.searches.running()] == [search_id]


async def test_answers_arrive_one_source_at_a_time(store: Store) -> None:
    search_id = await reply_with_search(store, "dune")
    await store.searches.set_titles(search_id, [DUNE])
    search = await store.searches.find(search_id)
    assert search is not None
    assert [title.title for _, title in search.titles] == ["Dune"]
    assert not search.running
    await store.searches.pick_title(search_id, DUNE, ["prowlarr", "qbittorrent"])
    await store.searches.add_answer(
        search_id, SourceAnswer("prowlarr", (release("Dune.2021.1080p"), release("Dune.720p")))
    )
    search = await store.searches.find(search_id)
    assert search is not None
    assert search.phase == RELEASES
    assert search.running  # qBittorrent has not answered yet
    assert search.title == DUNE
    assert [row.name for _, row in search.releases] == ["Dune.2021.1080p", "Dune.720p"]
    assert not search.sources["qbittorrent"].answered
    problem = Reason("search.qbt_busy", {"source": "qbittorrent"})
    await store.searches.add_answer(search_id, SourceAnswer("qbittorrent", problem=problem))
    search = await store.searches.find(search_id)
    assert search is not None
    assert not search.running
    assert search.sources["qbittorrent"].problem == problem
    assert search.sources["prowlarr"].count == 2
    result_id = search.releases[0][0]
    found = await store.searches.result(result_id)
    assert found is not None
    assert (found[0].id, found[1], found[2]["name"]) == (search_id, "release", "Dune.2021.1080p")
    # Picking a title again asks anew: the old releases are gone.
    await store.searches.pick_title(search_id, DUNE, ["prowlarr"])
    search = await store.searches.find(search_id)
    assert search is not None
    assert (search.releases, search.running) == ([], True)
    assert await store.searches.result(result_id) is None


async def test_a_title_is_marked_while_its_download_runs(store: Store) -> None:
    search_id = await reply_with_search(store, "dune")
    await store.searches.set_titles(search_id, [DUNE])
    await store.searches.pick_title(search_id, DUNE, [])
    made = await store.downloads.create_download_if_no_active(
        NewDownload(name="Dune", origin="telegram", source_ref="", chat_id=ALICE), ("c" * 40,)
    )
    await store.searches.taken(search_id, made.download.id)
    search = await store.searches.find(search_id)
    assert search is not None
    assert search.phase == TAKEN
    assert await store.searches.marks(search) == Marks(downloading=frozenset({("movie", "438631")}))


async def test_old_searches_and_their_results_are_purged(store: Store) -> None:
    search_id = await reply_with_search(store, "dune")
    await store.searches.set_titles(search_id, [DUNE])
    assert await store.searches.purge() == 0
    async with store.db.write() as conn:
        await conn.execute(
            "UPDATE search SET created_at = :at", {"at": clock.shifted(-timedelta(days=3))}
        )
    assert await store.searches.purge() == 1
    assert await store.searches.find(search_id) is None


async def test_at_most_a_thousand_releases_are_kept_of_all_sources(store: Store) -> None:
    search_id = await reply_with_search(store, "dune")
    await store.searches.pick_title(search_id, DUNE, ["a", "b"])
    await store.searches.add_answer(search_id, SourceAnswer("a", (release("x"),) * 700))
    await store.searches.add_answer(search_id, SourceAnswer("b", (release("y"),) * 700))
    search = await store.searches.find(search_id)
    assert search is not None
    assert len(search.releases) == MAX_RESULTS
    assert (search.sources["a"].count, search.sources["b"].count) == (700, 300)


async def test_a_release_is_marked_by_what_jellybit_has_of_it(store: Store) -> None:
    search_id = await reply_with_search(store, "dune")
    await store.searches.pick_title(search_id, DUNE, ["a"])
    active, done, other = "1" * 40, "2" * 40, "3" * 40
    rows = [
        replace(release("Dune.2021.1080p"), infohash=active),
        replace(release("Dune.2021.2160p"), infohash=done),
        replace(release("Dune.2021.720p"), infohash=other),
    ]
    await store.searches.add_answer(search_id, SourceAnswer("a", tuple(rows)))
    for infohash, state in ((active, State.DOWNLOADING), (done, State.DONE)):
        made = await store.downloads.create_download_if_no_active(
            NewDownload(name="Dune", origin="telegram", source_ref="", chat_id=ALICE), (infohash,)
        )
        await put_in_state(store, made.download.id, state)
    search = await store.searches.find(search_id)
    assert search is not None
    marks = await store.searches.marks(search)
    assert [marks.of_release(row) for row in rows] == ["downloading", "library", None]
