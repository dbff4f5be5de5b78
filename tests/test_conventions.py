"""Conventions that a test can hold (docs/conventions/database.md, architecture)."""

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "core",
    "recognition",
    "common",
    "store",
    "worker",
    "bot",
    "web",
    "migrations",
    "jellybit",
    "sandbox",
)
CLOCK_MODULE = ROOT / "core" / "clock.py"
ID_MODULE = ROOT / "core" / "ids.py"
# Libraries the pure layers may use: computation, no I/O framework.
PURE_THIRD_PARTY = {
    "core": {"ulid", "fastbencode"},
    "recognition": {"guessit", "rebulk", "babel", "babelfish", "anitopy"},
}

_AUTOINCREMENT = re.compile(r"\bAUTOINCREMENT\b", re.IGNORECASE)
_DATETIME_DEFAULT = re.compile(r"DEFAULT\s*\(\s*datetime\s*\(\s*'now'", re.IGNORECASE)
_SQL_CLOCK = re.compile(r"datetime\s*\(\s*'now'|CURRENT_TIMESTAMP|'now'\s*\)", re.IGNORECASE)
_CLOCK_ATTRS = {"now", "utcnow", "today", "time", "time_ns", "monotonic", "perf_counter"}
_CLOCK_OWNERS = {"datetime", "date", "time"}


def project_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def later_migrations() -> list[Path]:
    files = sorted(p for p in (ROOT / "migrations").iterdir() if re.match(r"\d{4}_", p.name))
    assert files[0].name == "0001_legacy.sql"
    return files[1:]


def clock_reads(source: str) -> list[str]:
    """Places in Python source that read the wall or monotonic clock."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _CLOCK_ATTRS
            and isinstance(node.value, ast.Name)
            and node.value.id in _CLOCK_OWNERS
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module == "time":
            found.append(f"line {node.lineno}: from time import …")
        if isinstance(node, ast.Constant) and _SQL_CLOCK.search(str(node.value)):
            found.append(f"line {node.lineno}: SQL reads the clock")
    return found


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", later_migrations(), ids=lambda p: p.name)
def test_no_autoincrement_or_datetime_default_after_0001(path: Path) -> None:
    text = path.read_text()
    assert not _AUTOINCREMENT.search(text)
    assert not _DATETIME_DEFAULT.search(text)


def test_ids_are_made_only_in_the_id_module() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in project_files()
        if path != ID_MODULE and any(m.split(".")[0] == "ulid" for m in imported_modules(path))
    ]
    assert offenders == []


def test_the_clock_is_read_only_in_the_clock_module() -> None:
    offenders = {
        str(path.relative_to(ROOT)): reads
        for path in project_files()
        if path != CLOCK_MODULE and (reads := clock_reads(path.read_text()))
    }
    assert offenders == {}


@pytest.mark.parametrize(
    "source",
    [
        "from datetime import datetime\nx = datetime.now()",
        "import time\nx = time.time()",
        "import time\nx = time.monotonic()",
        "from time import monotonic",
        "SQL = \"INSERT INTO t VALUES (datetime('now'))\"",
        "SQL = 'UPDATE t SET at = CURRENT_TIMESTAMP'",
    ],
)
def test_the_clock_rule_catches_reads(source: str) -> None:
    assert clock_reads(source)


@pytest.mark.parametrize("package", sorted(PURE_THIRD_PARTY))
def test_the_pure_layers_import_no_framework(package: str) -> None:
    """``core`` and ``recognition`` run and are tested without a network or a loop."""
    allowed = set(sys.stdlib_module_names) | LAYERS[package] | PURE_THIRD_PARTY[package]
    offenders = {
        str(path.relative_to(ROOT)): sorted(bad)
        for path in sorted((ROOT / package).rglob("*.py"))
        if (bad := {m for m in imported_modules(path) if m.split(".")[0] not in allowed})
    }
    assert offenders == {}


# Each package and the packages it may import: the layers point inwards
# (docs/architecture.md). ``jellybit`` and ``sandbox`` are the roots: they may import
# everything, and only they, the tests and the benches import them
# (test_only_the_roots_import_the_roots).
LAYERS = {
    "core": {"core"},
    "recognition": {"core", "recognition"},
    "common": {"core", "recognition", "common"},
    "migrations": {"core"},
    "store": {"core", "recognition", "common", "store"},
    "worker": {"core", "recognition", "common", "store", "worker"},
    "bot": {"core", "recognition", "common", "store", "worker", "bot"},
    "web": {"core", "recognition", "common", "store", "worker", "web"},
}


def test_dependencies_point_inwards() -> None:
    ours = set(PACKAGES)
    offenders = []
    for package, may_use in LAYERS.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            for module in imported_modules(path):
                top = module.split(".")[0]
                if top in ours and top not in may_use:
                    offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []


def test_every_package_has_its_layer() -> None:
    assert set(PACKAGES) - {"jellybit", "sandbox"} == set(LAYERS)


ROOTS = {"jellybit", "sandbox"}
# Where the roots import each other: the sandbox runs the product's own
# ``run_application``; ``jellybit run`` with no config starts the sandbox (lazily).
ROOTS_IMPORT_EACH_OTHER = {
    "sandbox/run.py imports jellybit.app",
    "jellybit/cli.py imports sandbox.run",
}


def test_only_the_roots_import_the_roots() -> None:
    """Nothing but jellybit/, sandbox/, the tests and the benches imports ``jellybit``
    or ``sandbox`` (imports inside functions included); the two import each other
    only in ``ROOTS_IMPORT_EACH_OTHER``."""
    outside = {"tests", "bench", *ROOTS}
    others = [
        path
        for top in sorted(ROOT.iterdir())
        if top.is_dir() and not top.name.startswith(".") and top.name not in outside
        for path in sorted(top.rglob("*.py"))
    ]
    roots = [path for package in sorted(ROOTS) for path in sorted((ROOT / package).rglob("*.py"))]
    found = {
        f"{path.relative_to(ROOT)} imports {module}"
        for path in [*others, *roots]
        for module in imported_modules(path)
        if module.split(".")[0] in ROOTS - {path.relative_to(ROOT).parts[0]}
    }
    assert found == ROOTS_IMPORT_EACH_OTHER


_TYPE_CHECKING = {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _executed_imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports that run when a module is imported: not those in a function's
    body, nor those under ``if TYPE_CHECKING:``."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
        return
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return
    children: list[ast.AST] = list(ast.iter_child_nodes(node))
    if isinstance(node, ast.If) and ast.unparse(node.test) in _TYPE_CHECKING:
        children = list(node.orelse)
    for child in children:
        yield from _executed_imports(child)


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """Module -> the modules of ``sources`` it imports at module level. A package's
    own name is imported from the package (which must have run to define it), a
    submodule from the submodule: ``from store import transitions`` needs
    ``store.transitions``, not the rest of ``store/__init__.py``."""
    graph: dict[str, set[str]] = {}
    for module, source in sources.items():
        named: set[str] = set()
        for node in _executed_imports(ast.parse(source)):
            if isinstance(node, ast.Import):
                named |= {alias.name for alias in node.names}
            elif node.module and node.level == 0:
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    named.add(submodule if submodule in sources else node.module)
        graph[module] = {name for name in named if name in sources and name != module}
    return graph


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` (``[a, b, a]``), or ``[]``: a depth-first search."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            if cycle := visit(imported):
                return cycle
        path.pop()
        done.add(module)
        return []

    for module in sorted(graph):
        if cycle := visit(module):
            return cycle
    return []


def test_the_product_has_no_import_cycle() -> None:
    """A cycle works or fails by the order of imports; none at module level."""
    sources = {module_name(path): path.read_text() for path in project_files()}
    assert import_cycle(import_graph(sources)) == []


@pytest.mark.parametrize(
    "sources",
    [
        {"a": "import b", "b": "from a import x"},
        {"a": "from b import c", "b": "", "b.c": "import d", "d": "import a"},
        {"a": "try:\n    import b\nexcept ImportError:\n    pass", "b": "import a"},
        {"a": "class A:\n    import b", "b": "if TYPE_CHECKING:\n    pass\nelse:\n    import a"},
    ],
)
def test_the_cycle_rule_catches_cycles(sources: dict[str, str]) -> None:
    assert import_cycle(import_graph(sources))


@pytest.mark.parametrize(
    "sources",
    [
        {"a": "import b", "b": "def f():\n    import a"},
        {"a": "import b", "b": "if TYPE_CHECKING:\n    import a"},
        {"p": "from p.m import x", "p.m": "from p import n", "p.n": ""},
    ],
)
def test_the_cycle_rule_passes_imports_that_run_later(sources: dict[str, str]) -> None:
    assert import_cycle(import_graph(sources)) == []


def test_one_path_changes_a_download_state() -> None:
    """Only ``store.transitions`` writes a state and its history (migrations aside)."""
    writers = re.compile(r"(?i)\bSET\s+state\s*=|INSERT\s+INTO\s+state_transition\b")
    found = sorted(
        str(path.relative_to(ROOT))
        for package in set(PACKAGES) - {"migrations"}
        for path in (ROOT / package).rglob("*.py")
        if writers.search(path.read_text(encoding="utf-8"))
    )
    assert found == ["store/transitions.py"]


def test_no_product_code_imports_the_tests() -> None:
    """``sandbox`` and ``jellybit`` included: what only tests need lives in tests/support/."""
    offenders = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in project_files()
        for module in sorted(imported_modules(path))
        if module.split(".")[0] == "tests"
    ]
    assert offenders == []


def test_no_product_code_catches_assertion_error() -> None:
    """An AssertionError is a failed test or a bug, never a result to act on."""
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in project_files()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ExceptHandler)
        and node.type is not None
        and "AssertionError" in ast.unparse(node.type)
    ]
    assert offenders == []


BUILDER = ROOT / "jellybit" / "app.py"
_WIRING = {("Engine", "build"), ("TelegramFrontDoor", "build")}


def wiring_calls(source: str) -> list[str]:
    """Calls that wire parts: ``Engine.build``, ``TelegramFrontDoor.build``, ``build_web_app``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "build_web_app":
            found.append("build_web_app")
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and (func.value.id, func.attr) in _WIRING
        ):
            found.append(f"{func.value.id}.{func.attr}")
    return found


def test_only_the_builder_wires_parts() -> None:
    """The product, the sandbox, the tests and the benches all build jellybit through
    ``jellybit.app.build_application``: a change to the wiring is tested everywhere."""
    everywhere = [*project_files(), *sorted((ROOT / "tests").rglob("*.py"))]
    everywhere += sorted((ROOT / "bench").rglob("*.py"))
    offenders = {
        f"{path.relative_to(ROOT)}: {call}"
        for path in everywhere
        if path != BUILDER and path != Path(__file__).resolve()
        for call in wiring_calls(path.read_text())
    }
    assert not offenders, sorted(offenders)
    assert sorted(wiring_calls(BUILDER.read_text())) == [
        "Engine.build",
        "TelegramFrontDoor.build",
        "build_web_app",
    ]


@pytest.mark.parametrize(
    "source",
    ["Engine.build(store, s)", "x = TelegramFrontDoor.build(a)", "app = build_web_app(deps)"],
)
def test_the_wiring_rule_catches_calls(source: str) -> None:
    assert wiring_calls(source)


def test_every_scope_started_first_is_a_module_of_the_suite() -> None:
    """A renamed module left in ``LONGEST_FIRST`` would quietly run last again."""
    from tests.conftest import LONGEST_FIRST

    def exists(scope: str) -> bool:
        if scope.startswith("["):  # a decision set
            return (ROOT / "tests" / "data" / scope.strip("[]")).is_file()
        return (ROOT / "tests" / scope.partition("[")[0]).is_file()

    assert [scope for scope in LONGEST_FIRST if not exists(scope)] == []
