"""Waiting in background loops: until a timeout, or until any event is set."""

import asyncio


async def sleep_until(seconds: float, *events: asyncio.Event) -> None:
    waits = [asyncio.create_task(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()
