# The two commands of the README: `make run` and `make test`. Both install
# everything they need on a fresh Debian machine (Python venv, packages, and for
# the tests Debian's Chromium), so nothing installed by hand is assumed.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test install install-dev chromium lint

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

install-dev: $(VENV)/.installed-dev

chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		echo "Installing Debian's Chromium for the browser tests…"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; \
	fi

# DEBUG defaults to off (config/settings.py); the development server asks for it.
run: install
	DEBUG=true $(BIN)/python manage.py migrate --noinput
	DEBUG=true $(BIN)/python manage.py runserver $(HOST):$(PORT)

test: install-dev chromium
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports
