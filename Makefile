# Two entry points for a fresh machine (see README):
#   make demo   set up a virtualenv and validate the bundled samples
#   make test   set up everything the tests need and run the whole suite
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin

.PHONY: setup demo test lint bench bench-quick

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

setup: $(VENV)/.installed

# The samples include failing traces on purpose, so exit code 1 is the expected result.
demo: setup
	$(BIN)/arh validate --policy samples/policy.json samples/traces || [ $$? -eq 1 ]

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

test: setup lint
	$(BIN)/pytest

# Benchmarks: the full run rewrites BENCHMARK-RESULTS.md (takes a while); the quick
# one is a smoke test that writes nothing.
bench: setup
	$(PY) benchmarks/run.py

bench-quick: setup
	$(PY) benchmarks/run.py --quick
