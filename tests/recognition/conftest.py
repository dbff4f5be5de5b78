"""Fixtures of the recognition tests."""

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from recognition.parsing import guess as guess_module
from recognition.parsing.guess import clear_cache


@pytest.fixture
def guessit_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts guessit itself reads from now on (the cache emptied before and after)."""
    calls: list[str] = []
    real = guess_module._run_guessit

    def counting(text: str, options: Mapping[str, object]) -> Any:
        calls.append(text)
        return real(text, options)

    monkeypatch.setattr(guess_module, "_run_guessit", counting)
    clear_cache()
    yield calls
    clear_cache()
