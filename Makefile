# Two entry points for a fresh machine (see README):
#   make demo   set up a virtualenv and validate the bundled samples
#   make test   set up everything the tests need and run the whole suite
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
LINT_PATHS := src tests $(wildcard benchmarks)

.PHONY: setup tools demo test lint bench bench-quick

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,test-adapters,dask]'
	touch $@

# Test-only tools from npm: Microsoft's SARIF validator (tests/test_sarif_multitool.py).
# The package ships a Linux binary; the chmod stands in for its postinstall script,
# which npm may skip.
TOOLS ?= .tools
MULTITOOL_VERSION ?= 5.7.0

$(TOOLS)/.installed:
	npm install --prefix $(TOOLS) --no-audit --no-fund @microsoft/sarif-multitool@$(MULTITOOL_VERSION)
	chmod u+x $(TOOLS)/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
	touch $@

tools: $(TOOLS)/.installed

setup: $(VENV)/.installed tools

# The samples include failing traces on purpose, so exit code 1 is the expected result.
demo: $(VENV)/.installed
	$(BIN)/arh validate --policy samples/policy.json samples/traces || [ $$? -eq 1 ]

lint: setup
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy

test: setup lint
	$(BIN)/pytest

# Benchmarks: the full run rewrites BENCHMARK-RESULTS.md (takes a while); the quick
# one is a smoke test that writes nothing.
bench: setup
	$(PY) benchmarks/run.py

bench-quick: setup
	$(PY) benchmarks/run.py --quick
