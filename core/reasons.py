"""Why something happened, stored as a code with parameters and worded late.

A reason is written to the database as JSON (``{"code": "review.ambiguous",
"count": 2}``) and turned into words per reader, in their language, where it is
shown. Text stored before codes existed (plain English) reads back as the code
``text`` with the words as its ``text`` parameter.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

Value = str | int | float


@dataclass(frozen=True)
class Reason:
    code: str
    params: Mapping[str, Value] = field(default_factory=dict)

    def dumps(self) -> str:
        return json.dumps({"code": self.code, **self.params}, ensure_ascii=False, sort_keys=True)

    @classmethod
    def loads(cls, text: str | None) -> "Reason | None":
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("code"), str):
            return cls("text", {"text": text})
        params = {
            key: value
            for key, value in data.items()
            if key != "code" and isinstance(value, str | int | float)
        }
        return cls(data["code"], params)


def reason(code: str, **params: Value) -> Reason:
    return Reason(code, params)
