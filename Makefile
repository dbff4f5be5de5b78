# Two entry points: `make run` and `make test`. Both work on a fresh Debian
# machine: they create .venv, install jellybit and its locked dependencies, and
# (tests) the Debian packages. `make install` puts jellybit without the dev tools
# into the venv PREFIX; `make lock` refreshes the lock files from pyproject.toml.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= $(or $(JELLYBIT_CONFIG),config.toml)
PREFIX ?= /opt/jellybit
LOCK := requirements.lock
DEV_LOCK := requirements-dev.lock
# Debian packages the tests drive for real (filled in as capabilities land).
TEST_DEBS := qbittorrent-nox chromium

.PHONY: run test lint check-deps bench recognition clean install lock

$(BIN)/jellybit: pyproject.toml $(DEV_LOCK)
	@scripts/ensure-python "$(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r $(DEV_LOCK)
	$(BIN)/pip install --quiet --no-deps -e .
	@touch $@

# A regular install (no dev tools, not editable) from the lock: docs/operations.md.
install:
	@scripts/ensure-python "$(PYTHON)"
	$(PYTHON) -m venv "$(PREFIX)"
	"$(PREFIX)/bin/pip" install --quiet --require-hashes -r $(LOCK)
	"$(PREFIX)/bin/pip" install --quiet --no-deps --no-cache-dir .
	@rm -rf build  # setuptools' scratch copy of the sources
	@"$(PREFIX)/bin/jellybit" --version

# Both locks from pyproject.toml's ranges; the dev lock keeps the runtime pins.
lock: $(BIN)/jellybit
	$(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe \
		--no-emit-index-url --no-emit-find-links --upgrade -o $(LOCK) pyproject.toml
	$(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe \
		--no-emit-index-url --no-emit-find-links --upgrade --extra dev -c $(LOCK) \
		-o $(DEV_LOCK) pyproject.toml

# No config file (the default ./config.toml is missing): the sandbox, see docs/sandbox.md.
run: $(BIN)/jellybit
	@if [ "$(CONFIG)" = config.toml ] && [ ! -e config.toml ]; then \
		scripts/ensure-debs qbittorrent-nox && exec $(BIN)/jellybit run; \
	else \
		exec $(BIN)/jellybit run --config "$(CONFIG)"; \
	fi

# The qBittorrent-facing tests run against 4.5 (the host's) and 5.x (a Debian 13
# chroot, made once by scripts/qbittorrent5 at a fixed path: docs/qbittorrent.md).
# Eight workers on two cores: many tests wait on a process or a timer, not the CPU
# (measured: 243 s of pytest with eight, 250–266 s with six, both cores then busy
# all the way through; 356 s with four, long ago).
# The sources' bytecode is written once first: every jellybit, fork server and CLI
# process the tests start then reads it instead of compiling the sources again
# (PYTHONDONTWRITEBYTECODE, as here, would make each compile them; ~10 % of their CPU).
test: $(BIN)/jellybit check-deps
	@scripts/qbittorrent5 >/dev/null
	@$(BIN)/python -m compileall -q -j 0 -x '/\.' . >/dev/null  # not .venv, .git, …
	$(BIN)/pytest -n 8 --dist loadscope --no-loadscope-reorder --durations=15

check-deps:
	@scripts/ensure-debs $(TEST_DEBS)

lint: $(BIN)/jellybit
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(BIN)/jellybit
	$(BIN)/python -m bench.store_bench
	$(BIN)/python -m bench.poll_bench
	$(BIN)/python -m bench.ingest_bench
	$(BIN)/python -m bench.import_bench
	$(BIN)/python -m bench.web_bench
	$(BIN)/python -m bench.search_bench
	$(BIN)/python -m bench.memory_bench

# Recognition on the held-out and regression decision sets, with every miss.
recognition: $(BIN)/jellybit
	$(BIN)/python -m tests.recognition_eval --verbose
	$(BIN)/python -m tests.parsing_suites

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build *.egg-info
