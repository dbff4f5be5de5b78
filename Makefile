# Two entry points: `make run` and `make test`. Both work on a fresh Debian
# machine: they create .venv, install jellybit, and (tests) the Debian packages.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= $(or $(JELLYBIT_CONFIG),config.toml)
# Debian packages the tests drive for real (filled in as capabilities land).
TEST_DEBS := qbittorrent-nox chromium

.PHONY: run test lint check-deps bench recognition clean

$(BIN)/jellybit: pyproject.toml
	@scripts/ensure-python "$(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@

# No config file (the default ./config.toml is missing): the sandbox, see docs/sandbox.md.
run: $(BIN)/jellybit
	@if [ "$(CONFIG)" = config.toml ] && [ ! -e config.toml ]; then \
		scripts/ensure-debs qbittorrent-nox && exec $(BIN)/jellybit run; \
	else \
		exec $(BIN)/jellybit run --config "$(CONFIG)"; \
	fi

# The qBittorrent-facing tests run against 4.5 (the host's) and 5.x (a Debian 13
# chroot, made once by scripts/qbittorrent5 at a fixed path: docs/qbittorrent.md).
test: $(BIN)/jellybit check-deps
	@scripts/qbittorrent5 >/dev/null
	$(BIN)/pytest -n auto --dist loadfile

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

# Recognition on the held-out and regression decision sets, with every miss.
recognition: $(BIN)/jellybit
	$(BIN)/python -m tests.recognition_eval --verbose

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
