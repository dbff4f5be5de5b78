"""rebulk's fast paths (recognition/parsing/rebulk_fast.py) answer as the code they
replace: on random matches, operation by operation, and as guessit's whole reading of
real names against a guessit without them (another process)."""

import ast
import hashlib
import inspect
import json
import random
import subprocess
import sys
from collections.abc import MutableSequence, Sequence
from typing import Any

from rebulk import match as rebulk_match
from rebulk.match import Match, Matches

from recognition.parsing import rebulk_fast
from recognition.parsing.guess import build_rules
from tests.recognition_eval import DATA, load

# The code the fast paths stand for, as rebulk 6.0.1 writes it. A rebulk release that
# changes it fails here: read the new code, check the fast paths still answer the same,
# then record its hash.
RELIED_ON = {
    "_BaseMatches.range": "f63693ac1c5f",
    "Match.__lt__": "f20984e585bf",
    "Match.span": "cf5f7b6f25ca",
}


def _source_hash(qualified: str) -> str:
    owner, name = qualified.split(".")
    tree = ast.parse(inspect.getsource(rebulk_match))
    found = [  # the implementation: the last definition, after any @overload
        item
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.name == owner
        for item in node.body
        if isinstance(item, ast.FunctionDef) and item.name == name
    ]
    assert found, f"rebulk has no {qualified} any more"
    return hashlib.sha256(ast.unparse(found[-1]).encode()).hexdigest()[:12]


def test_the_code_replaced_is_what_rebulk_has() -> None:
    assert {name: _source_hash(name) for name in RELIED_ON} == RELIED_ON
    # the ABC's iteration, membership and index: no rebulk class defines its own
    for cls in (rebulk_match._BaseMatches, Matches, rebulk_match.Markers):
        own = {"__iter__", "__contains__", "index"} & {
            name for name in vars(cls) if vars(cls)[name] is not rebulk_fast._FAST.get(name)
        }
        assert own == set(), cls
    assert rebulk_fast.ORIGINAL.get("__iter__", Sequence.__iter__) is Sequence.__iter__
    assert issubclass(rebulk_match._BaseMatches, MutableSequence)


def _random_matches(rng: random.Random) -> Matches:
    matches = Matches(input_string="x" * 40)
    for _ in range(rng.randint(0, 25)):
        start = rng.randint(0, 38)
        end = rng.randint(start + 1, 40)
        matches.append(Match(start, end, value=rng.choice("ab"), name=rng.choice(["n", "m"])))
    return matches


def test_every_operation_answers_as_the_one_it_replaces() -> None:
    build_rules()  # installs the fast paths
    original = rebulk_fast.ORIGINAL
    assert set(original) == set(rebulk_fast._FAST)
    rng = random.Random(7)
    for _ in range(2000):
        matches = _random_matches(rng)
        start, end = rng.randint(0, 40), rng.choice([None, rng.randint(0, 45)])
        predicate: Any = rng.choice([None, lambda m: m.name == "n", rng.randint(-3, 3)])
        index: Any = None if isinstance(predicate, int) else rng.choice([None, 0, -1, 5])
        expected = original["range"](matches, start, end, predicate, index)
        found: Any = rebulk_match._BaseMatches.range(matches, start, end, predicate, index)
        if isinstance(expected, list):
            assert [id(m) for m in found] == [id(m) for m in expected]
        else:
            assert found is expected
        assert list(matches) == list(original["__iter__"](matches))
        if len(matches):
            probe = rng.choice(list(matches))
            equal = Match(probe.start, probe.end, value=probe.value, name=probe.name)
            for value in (probe, equal, Match(0, 1, value="zz")):
                assert (value in matches) == original["__contains__"](matches, value)
                try:
                    expected_index: int | None = original["index"](matches, value, 1)
                except ValueError:
                    expected_index = None
                try:
                    found_index: int | None = matches.index(value, 1)
                except ValueError:
                    found_index = None
                assert found_index == expected_index


_PLAIN_GUESSIT = """
import json, sys
from guessit import guessit
names = json.load(sys.stdin)
print(json.dumps([repr(sorted((k, repr(v)) for k, v in guessit(n).items())) for n in names]))
"""


def test_guessit_reads_real_names_as_without_them() -> None:
    from guessit import guessit

    names = []
    for path in sorted(DATA.glob("world/*.json")):
        for case in load(path)[1]:
            names.append(case.name)
            names.extend(file for file, _ in case.files[:1])
    names = random.Random(3).sample(names, 120)
    build_rules()
    with_them = [repr(sorted((k, repr(v)) for k, v in guessit(n).items())) for n in names]
    plain = subprocess.run(
        [sys.executable, "-c", _PLAIN_GUESSIT],
        input=json.dumps(names),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(plain.stdout) == with_them
