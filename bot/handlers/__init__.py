"""One router per concern; ``routers()`` makes fresh ones for each dispatcher."""

from aiogram import Router

from bot.handlers import buttons, commands, errors, ingest, search


def routers() -> list[Router]:
    # Commands first (a /command is not a hint), the button catch-all last.
    return [search.router(), commands.router(), ingest.router(), buttons.router(), errors.router()]
