"""Putting a download in a state for a test, along moves jellybit makes."""

from collections import deque

from core.ids import Id
from core.models import Download
from core.reasons import text_reason
from core.states import MOVES, State
from store import Store


def path_to(start: State, goal: State) -> list[State]:
    """The shortest chain of allowed moves from ``start`` to ``goal`` (without ``start``)."""
    previous: dict[State, State] = {}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state == goal:
            break
        for following in sorted(MOVES[state]):
            if following not in previous and following != start:
                previous[following] = state
                queue.append(following)
    if goal != start and goal not in previous:
        raise ValueError(f"no moves lead from {start} to {goal}")
    path = []
    while goal != start:
        path.append(goal)
        goal = previous[goal]
    return path[::-1]


async def put_in_state(
    store: Store, download_id: Id, state: State, why: str = "test setup"
) -> Download:
    """Move the download to ``state`` through the store's one transition path."""
    download = await store.downloads.get_download(download_id)
    for step in path_to(download.state, state):
        download = await store.downloads.move(download_id, step, reason=text_reason(why))
    return download
