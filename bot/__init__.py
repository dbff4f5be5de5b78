"""The Telegram front door (aiogram).

Importing this package first imports aiogram with its Telegram models built when each
is first used rather than all at import. aiogram declares them ``defer_build`` but
``aiogram/types/__init__.py`` then rebuilds every one of its ~450 types
(``model_rebuild`` over ``__all__``, upstream aiogram #1513/#1876): ~2.6 s of CPU and
~110 MiB in every process that imports aiogram, for the few types a bot uses. Here that
loop's rebuilds are skipped and its namespace kept, so that a model's first use builds
it (and what it refers to) against the same names: ~0.1 s for an ``Update``.
``tests/bot/test_lazy_aiogram.py`` fails when an aiogram release changes what this
relies on.
"""

import sys
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

# The names aiogram resolves its types' annotations against; empty when aiogram was
# imported before this package (its types then built at import, as upstream does).
AIOGRAM_TYPES: dict[str, Any] = {}


def _import_aiogram_lazily() -> None:
    if "aiogram.types" in sys.modules:
        return
    descriptor = BaseModel.__dict__["model_rebuild"]
    rebuild = descriptor.__func__

    def skipped(
        cls: type[BaseModel], /, *, _types_namespace: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> bool | None:
        if _types_namespace is not None and cls.__module__.startswith("aiogram.types."):
            AIOGRAM_TYPES.update(_types_namespace)  # aiogram's import-time loop
            return None
        return rebuild(cls, _types_namespace=_types_namespace, **kwargs)  # type: ignore[no-any-return]

    BaseModel.model_rebuild = classmethod(skipped)  # type: ignore[method-assign,assignment]
    try:
        import aiogram.types  # noqa: F401  # the import whose rebuilds are skipped
        from aiogram.client.context_controller import BotContextController
        from aiogram.methods.base import Response
    finally:
        BaseModel.model_rebuild = descriptor  # type: ignore[method-assign]
    if not AIOGRAM_TYPES:
        return  # nothing was skipped: aiogram built its types itself

    def with_aiogram_types(
        cls: type[BaseModel], /, *, _types_namespace: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> bool | None:
        # pydantic builds a deferred model at its first use by calling this.
        namespace = AIOGRAM_TYPES if _types_namespace is None else _types_namespace
        return rebuild(cls, _types_namespace=namespace, **kwargs)  # type: ignore[no-any-return]

    # every type and method, and the replies a method reads (``Response[Message]``)
    for base in (BotContextController, Response):
        base.model_rebuild = classmethod(with_aiogram_types)  # type: ignore[method-assign,assignment]


_import_aiogram_lazily()
