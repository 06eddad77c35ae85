# Two entry points for a fresh machine (see README):
#   make demo   set up a virtualenv with the runtime dependencies only and validate the samples
#   make test   set up everything the tests need and run the whole suite
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
DEMO_VENV ?= .venv-demo
LINT_PATHS := src tests scripts $(wildcard benchmarks)

.PHONY: setup tools browser shells demo test lint bench bench-quick bench-reference fuzz

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,yaml,test-adapters,test-browser,dask]'
	touch $@

# What `pip install arh-harness` gives a user: ARH and its two runtime dependencies.
$(DEMO_VENV)/.installed: pyproject.toml
	python3 -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install -q -e .
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

# The HTML report's browser tests drive Debian's chromium (Playwright cannot download
# a browser here). Installed when missing and apt-get is there (CI runs as root);
# elsewhere the browser tests skip locally and fail under CI.
CHROMIUM ?= /usr/bin/chromium

browser:
	@if [ ! -x $(CHROMIUM) ] && command -v apt-get >/dev/null; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	fi

# The shell completion tests check the zsh script with zsh itself (bash is always there).
shells:
	@if ! command -v zsh >/dev/null && command -v apt-get >/dev/null; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q zsh; \
	fi

setup: $(VENV)/.installed tools browser shells

# The samples include failing traces on purpose, so exit code 1 is the expected result.
demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/arh validate --policy samples/policy.json samples/traces || [ $$? -eq 1 ]

lint: setup
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy

test: setup lint
	$(BIN)/pytest -n auto

# Every fuzz target of tests/fuzz for ARH_FUZZ_SECONDS each, two at a time (docs/fuzzing.md).
ARH_FUZZ_SECONDS ?= 60
fuzz: setup
	ARH_FUZZ_SECONDS=$(ARH_FUZZ_SECONDS) $(BIN)/pytest tests/fuzz -n 2 -rA -p no:cacheprovider

# Benchmarks: the full run rewrites BENCHMARK-RESULTS.md (takes a while); the quick
# one is a smoke test that writes nothing.
bench: setup
	$(PY) benchmarks/run.py

bench-quick: setup
	$(PY) benchmarks/run.py --quick

# Paired runs against the reference tool (PyPI agent-reliability-harness 0.2.2, installed
# apart: REFERENCE=path/to/its/arh); rewrites its section of BENCHMARK-RESULTS.md.
REFERENCE ?= /tmp/refvenv/bin/arh
bench-reference: setup
	$(PY) benchmarks/reference.py --reference $(REFERENCE)
