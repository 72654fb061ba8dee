# The two commands of the README: `make run` and `make test`. Both install
# everything they need on a fresh Debian machine (Python venv, packages, GNU gettext
# for the translations, and for the tests Debian's Chromium and nginx, and the Node
# benchmark client's npm package where Node is installed), so nothing installed by hand
# is assumed.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test check install install-dev node chromium nginx gettext messages lint rules engine engine-clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev node

# The Node load generator of bench/live.py --client node: the npm package ws, pinned by
# bench/node/package-lock.json, installed again when the lockfile changes. Only where Node
# and npm are installed: without them its test skips and the rest needs neither.
node:
	@if command -v npm >/dev/null && [ ! bench/node/node_modules/.package-lock.json -nt bench/node/package-lock.json ]; then \
		npm ci --prefix bench/node --silent --no-audit --no-fund; \
	fi

# Chromium, and a font with Chinese characters: the browser tests see the pages in
# Chinese as a reader does (without one, every character would be the same blank box).
chromium:
	@if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/truetype/wqy ]; then \
		echo "Installing Debian's Chromium and a CJK font for the browser tests…"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null; \
	fi

# nginx, for the scale-out test behind the README's proxy (and bench/live.py --proxy
# nginx). Only the program: the tests start an nginx of their own, never the service.
nginx:
	@if [ ! -x /usr/sbin/nginx ]; then \
		echo "Installing Debian's nginx for the scale-out test behind a proxy…"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nginx >/dev/null; \
	fi

gettext:
	@if ! command -v msgfmt >/dev/null; then \
		echo "Installing Debian's gettext for the translations…"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq gettext >/dev/null; \
	fi

# The catalogues (locale/*/LC_MESSAGES/django.po) are compiled here, never committed
# as .mo files (.gitignore).
messages: install gettext
	DEBUG=true $(BIN)/python manage.py compilemessages --ignore=$(VENV) >/dev/null

# The browser's TetriWar engine reads the rule tables generated from the Python source
# (games/tetriwar/js_rules.py); the file is committed, and a test fails when it is stale.
RULES_JS := static/js/tetriwar_rules.js
$(RULES_JS): games/tetriwar/js_rules.py games/tetriwar/constants.py games/tetriwar/pieces.py games/tetriwar/render.py games/core/srs.py | $(VENV)/.installed
	$(BIN)/python -m games.tetriwar.js_rules > $@.tmp && mv $@.tmp $@

rules: $(RULES_JS)

# DEBUG defaults to off (config/settings.py); the development server asks for it.
run: install messages rules engine
	DEBUG=true $(BIN)/python manage.py migrate --noinput
	DEBUG=true $(BIN)/python manage.py runserver $(HOST):$(PORT)

# Every test, with line and branch coverage; the run ends with the 25 slowest tests,
# each test directory's time and the coverage (tests/report.py). Two workers (one per
# core of the CI machine): a worker that runs out of tests takes some of the other's.
COVERAGE_JSON := tests/artifacts/coverage.json
WORKERS ?= 2
test: install-dev chromium nginx messages rules engine
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	rm -f .coverage .coverage.* $(COVERAGE_JSON)
	$(BIN)/python -m pytest -n $(WORKERS) --dist worksteal --durations=25 --cov --cov-report=json:$(COVERAGE_JSON) $(PYTEST_ARGS)

# The inner loop, for every change (its aim: 90 s): lint, the import contracts, the rules'
# unit tests, the game contract and the JavaScript tests. `make test` before a commit lands.
check: install-dev messages rules engine
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist worksteal tests/unit tests/contract $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# The pure TetriWar engine's hot modules (games/tetriwar/__init__.py: COMPILED) compiled
# with mypyc into C extensions beside their .py files, which Python then imports instead
# (tools/mypyc_engine.py): about 1.5 times as fast. Built again when one of them changes
# (a build older than its source is not used: the pure engine runs meanwhile). mypy has
# a venv of its own, never the project's. Where the build fails (no C compiler), the site
# and the tests run the pure engine, the same rules; under CI=true a test fails then.
# `make engine-clean` removes it.
MYPYC_VENV := .venv-mypyc
ENGINE_BUILT := build/mypyc/.built
ENGINE_SOURCES := $(addprefix games/tetriwar/,engine.py player.py field.py pieces.py __init__.py) games/core/compiled.py tools/mypyc_engine.py
$(MYPYC_VENV)/bin/mypyc: | $(BIN)/python
	$(BIN)/python -m venv $(MYPYC_VENV)
	$(MYPYC_VENV)/bin/pip install --quiet mypy==2.4.1

$(ENGINE_BUILT): $(ENGINE_SOURCES) | $(MYPYC_VENV)/bin/mypyc
	@if $(MYPYC_VENV)/bin/python tools/mypyc_engine.py >build-mypyc.log 2>&1; then \
		touch $@; rm -f build-mypyc.log; \
	else \
		tail -5 build-mypyc.log; echo "The compiled engine was not built (build-mypyc.log): the pure engine runs."; \
	fi

engine: $(ENGINE_BUILT)

engine-clean:
	$(BIN)/python tools/mypyc_engine.py --clean
