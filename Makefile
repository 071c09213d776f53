# memdesk — `make run` starts the console, `make test` runs the whole suite. Nothing else by hand.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
PORT ?= 8501
# Two workers by default: CI has 2 cores.
PYTEST_WORKERS ?= 2

.PHONY: venv init run test lint typecheck unit bench screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

venv: $(STAMP)

# Initialise the embedded store (SQLite + Chroma under MEMDESK_HOME, default ./var) with the demo.
init: venv
	$(BIN)/memdesk seed-demo

run: init
	$(BIN)/streamlit run app.py --server.port $(PORT)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy

test: init lint typecheck
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

unit: venv
	$(BIN)/pytest tests/unit -q

bench: init
	$(BIN)/memdesk bench retrieval --json
	$(BIN)/memdesk bench ingest --json

# Refresh the README's console screenshots from the browser tests (real server, Chromium).
screenshots: venv
	MEMDESK_SCREENSHOTS_DIR=docs/screenshots $(BIN)/pytest tests/e2e -q -p no:cacheprovider

clean:
	rm -rf var test-artifacts .pytest_cache .mypy_cache .ruff_cache
