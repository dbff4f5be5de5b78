"""The Bot API's published description, as aiogram's types hold it, for tests: objects of
any type built from it (only the required fields, or every optional one too,
recursively), and a check that a JSON object is one Telegram could send.

aiogram generates ``aiogram/types/`` from the Bot API's description ("butcher"): every
type, field, JSON name (``from``) and whether it may be left out. A field Telegram
adds reaches this module with the next aiogram, and with it every test built on it.
"""

from __future__ import annotations

import datetime
import enum
import functools
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import aiogram.types
from aiogram.client.default import Default
from aiogram.types import TelegramObject
from pydantic.fields import FieldInfo

Json = dict[str, Any]

MAX_DEPTH = 3  # below it, objects get only their required fields (Message holds Message)


@dataclass(frozen=True)
class Field:
    name: str  # the JSON name
    annotation: Any
    required: bool


@functools.cache
def fields_of(model: type[TelegramObject]) -> dict[str, Field]:
    """A type's fields by their JSON names."""
    model.model_rebuild()  # built on first use (bot/__init__.py): its annotations resolved
    found = {}
    for name, info in model.model_fields.items():
        json_name = info.alias or name
        found[json_name] = Field(json_name, info.annotation, _required(info))
    return found


def _required(info: FieldInfo) -> bool:
    """Required, or a type tag (``"type": "emoji"``: aiogram fills it in, Telegram
    always sends it)."""
    return info.is_required() or typing.get_origin(info.annotation) is typing.Literal


def alternatives(annotation: Any) -> list[Any]:
    """What a field may hold: the members of a union (``X | None`` without None)."""
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):  # a forward reference: a name in aiogram.types
        return alternatives(getattr(aiogram.types, annotation))
    if hasattr(annotation, "__value__"):  # a type alias (recursive unions: RichTextUnion)
        return alternatives(annotation.__value__)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return alternatives(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [
            alt
            for arg in typing.get_args(annotation)
            for alt in alternatives(arg)
            if alt not in (type(None), Default)  # Default: aiogram's placeholder, not JSON
        ]
    return [annotation]


def is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, TelegramObject)


def build(model: type[TelegramObject], *, full: bool, variant: int = 0, depth: int = 0) -> Json:
    """An object of ``model``: only its required fields, or (``full``) every field
    down to ``MAX_DEPTH``. ``variant`` picks among the types a field may hold (the
    n-th of a union), so that variants 0, 1, 2… cover every alternative."""
    out: Json = {}
    for field in fields_of(model).values():
        if not field.required and not (full and depth < MAX_DEPTH):
            continue
        out[field.name] = _value(field.annotation, full=full, variant=variant, depth=depth + 1)
    return out


def shapes(model: type[TelegramObject]) -> Iterator[tuple[str, Json]]:
    """Objects of ``model`` as Telegram may send them, each with a name: only the
    required fields; every field (once per variant, so that every member of every
    union shows); and each optional field alone (a photo, a poll, a forward, a quote…)."""
    yield "minimal", build(model, full=False)
    for variant in range(variants(model)):
        yield f"maximal-{variant}", build(model, full=True, variant=variant)
    minimal = build(model, full=False)
    for field in fields_of(model).values():
        if not field.required:
            value = _value(field.annotation, full=True, variant=0, depth=1)
            yield f"with-{field.name}", {**minimal, field.name: value}


def _value(annotation: Any, *, full: bool, variant: int, depth: int) -> Any:
    options = alternatives(annotation)
    chosen = options[variant % len(options)]
    if depth > MAX_DEPTH:  # deep down, the plainest choice: recursive types end here
        chosen = min(options, key=lambda o: (_is_list(o), is_model(o)))
    origin = typing.get_origin(chosen)
    if origin is typing.Literal:
        value = typing.get_args(chosen)[0]
        return value.value if isinstance(value, enum.Enum) else value
    if origin is list:
        (item,) = typing.get_args(chosen)
        return [_value(item, full=full, variant=variant, depth=depth + 1)]
    if is_model(chosen):
        return build(chosen, full=full, variant=variant, depth=depth)
    if chosen is bool:
        return True
    if chosen is int:
        return 1
    if chosen is float:
        return 1.5
    if chosen is str:
        return "x"
    if chosen is datetime.datetime:
        return 1_700_000_000
    if isinstance(chosen, type) and issubclass(chosen, enum.Enum):
        return next(iter(chosen)).value
    raise TypeError(f"no JSON value for {chosen!r}")


def _is_list(annotation: Any) -> bool:
    return typing.get_origin(annotation) is list


def variants(model: type[TelegramObject]) -> int:
    """How many variants it takes for every union anywhere below ``model`` to have
    shown each of its members."""
    return max((len(alternatives(a)) for a in _annotations(model, set())), default=1)


def _annotations(model: type[TelegramObject], seen: set[type]) -> Iterator[Any]:
    if model in seen:
        return
    seen.add(model)
    for field in fields_of(model).values():
        yield field.annotation
        for option in alternatives(field.annotation):
            for inner in (option, *typing.get_args(option)):
                if is_model(inner):
                    yield from _annotations(inner, seen)


def problems(value: Any, annotation: Any, where: str = "") -> list[str]:
    """Why ``value`` is not JSON that the description allows for ``annotation``: fields
    it does not have, required ones missing, values of the wrong JSON type."""
    options = alternatives(annotation)
    found: list[list[str]] = []
    for option in options:
        found.append(_problems_as(value, option, where))
        if not found[-1]:
            return []
    return min(found, key=len)


def _problems_as(value: Any, option: Any, where: str) -> list[str]:
    origin = typing.get_origin(option)
    if origin is typing.Literal:
        allowed = [a.value if isinstance(a, enum.Enum) else a for a in typing.get_args(option)]
        return [] if value in allowed else [f"{where}: {value!r} is not one of {allowed}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        (item,) = typing.get_args(option)
        return [p for i, v in enumerate(value) for p in problems(v, item, f"{where}[{i}]")]
    if is_model(option):
        if not isinstance(value, dict):
            return [f"{where}: not an object ({option.__name__})"]
        known = fields_of(option)
        out = [
            f"{where}.{key}: not a field of {option.__name__}" for key in value if key not in known
        ]
        out += [
            f"{where}.{name}: required by {option.__name__}, missing"
            for name, f in known.items()
            if f.required and name not in value
        ]
        for key, item in value.items():
            if key in known:
                out += problems(item, known[key].annotation, f"{where}.{key}")
        return out
    scalars: dict[Any, type | tuple[type, ...]] = {
        bool: bool,
        int: int,
        float: (int, float),
        str: str,
    }
    expected = scalars.get(option)
    if option is datetime.datetime:
        expected = int
    if expected is None:
        return []  # an enum or another scalar: its JSON is a string or number
    if isinstance(value, bool) and option is not bool:
        return [f"{where}: a boolean where {option.__name__} belongs"]
    return [] if isinstance(value, expected) else [f"{where}: not {option.__name__}"]
