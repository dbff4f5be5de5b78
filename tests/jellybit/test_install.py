"""A server install: the locks agree with pyproject.toml, and `make install` puts
jellybit without any dev tool into a venv of its own, where it runs."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def pins(lock: Path) -> dict[str, tuple[str, int]]:
    """name → (version, number of hashes) of every pin in a pip-compile lock."""
    found: dict[str, tuple[str, int]] = {}
    name = ""
    for line in lock.read_text().splitlines():
        text = line.strip()
        if "==" in text and not text.startswith(("#", "--")):
            name, version = text.rstrip(" \\").split("==")
            found[canonicalize_name(name)] = (version, 0)
        elif text.startswith("--hash=sha256:") and name:
            version, hashes = found[canonicalize_name(name)]
            found[canonicalize_name(name)] = (version, hashes + 1)
    return found


def disagreements(requirements: list[str], locked: dict[str, tuple[str, int]]) -> list[str]:
    wrong = []
    for text in requirements:
        requirement = Requirement(text)
        pin = locked.get(canonicalize_name(requirement.name))
        if pin is None:
            wrong.append(f"{requirement.name}: not in the lock")
        elif not requirement.specifier.contains(pin[0], prereleases=True):
            wrong.append(f"{requirement.name}: locked {pin[0]}, pyproject wants {requirement}")
    return wrong


def test_the_runtime_lock_holds_what_pyproject_asks_for_with_hashes() -> None:
    locked = pins(ROOT / "requirements.lock")
    assert disagreements(PROJECT["dependencies"], locked) == []
    assert [name for name, (_, hashes) in locked.items() if hashes == 0] == []
    dev_only = {
        canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["dev"]
    }
    assert sorted(dev_only & locked.keys()) == [], "a dev tool in the server's lock"


def test_the_dev_lock_adds_the_dev_tools_and_keeps_the_runtime_pins() -> None:
    runtime, dev = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-dev.lock")
    assert disagreements(PROJECT["optional-dependencies"]["dev"], dev) == []
    assert {name: dev.get(name, ("missing", 0))[0] for name in runtime} == {
        name: version for name, (version, _) in runtime.items()
    }


def test_make_install_is_a_plain_install_without_dev_tools(tmp_path: Path) -> None:
    prefix = tmp_path / "jellybit"
    # Without compiling the packages to bytecode (pip's --compile off: 10 of its 14 s of
    # CPU here): nothing checked below depends on it, and a server install keeps it.
    env = {**os.environ, "PIP_COMPILE": "0"}
    subprocess.run(
        ["make", "--no-print-directory", "install", f"PREFIX={prefix}", f"PYTHON={sys.executable}"],
        cwd=ROOT, check=True, capture_output=True, timeout=600, env=env,
    )  # fmt: skip
    version = subprocess.run(
        [prefix / "bin" / "jellybit", "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout == f"jellybit {PROJECT['version']}\n"
    for tool in ("pytest", "mypy", "playwright", "libtorrent"):
        probe = subprocess.run(
            [prefix / "bin" / "python", "-c", f"import {tool}"], capture_output=True
        )
        assert probe.returncode != 0, f"{tool} is importable in the server install"
    editable = subprocess.run(
        [prefix / "bin" / "python", "-c", "import jellybit; print(jellybit.__file__)"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    assert editable.stdout.startswith(str(prefix)), "not a copy: an editable install"
    config = tmp_path / "config.toml"
    config.write_text((ROOT / "config.example.toml").read_text())
    check = subprocess.run(
        [prefix / "bin" / "jellybit", "check", "--config", config, "--log-level", "warning"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert check.returncode == 1, check.stderr  # nothing runs here: items fail, none crash
    assert check.stdout.splitlines()[0].startswith("✓ "), check.stdout  # the config is valid
    assert "unexpected error" not in check.stdout


def test_the_unit_in_the_operations_guide_is_the_shipped_one() -> None:
    guide = (ROOT / "docs" / "operations.md").read_text()
    shown = guide.split("```ini\n", 1)[1].split("```", 1)[0]
    assert shown == (ROOT / "deploy" / "jellybit.service").read_text()
