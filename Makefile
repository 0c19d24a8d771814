# The vocabulary of the project: `make dev` runs it locally, `make check` is the loop while you work,
# `make test` checks everything.
# Both bootstrap their own virtualenv with pinned dependencies.

SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# Lambda runs python3.13: prefer it (pyenv's .python-version asks for it), accept 3.11+.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	if $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then echo $$p; break; fi; done)
FUNCTIONS := $(wildcard functions/*/app.py)
# template.yaml and the nested stacks it includes from a file (Location: edge.yaml...).
TEMPLATES := template.yaml $(shell sed -n 's/^ *Location: *\([A-Za-z0-9_.\/-]*\.yaml\) *$$/\1/p' template.yaml)
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1

# Unit, integration and e2e tests run on this many pytest-xdist workers (a module's tests stay on one).
TEST_WORKERS ?= auto
PARALLEL := -n $(TEST_WORKERS) --dist loadfile
# e2e workers spend much of their time waiting on a stack, a browser or a replication lag: one
# more than the cores keeps the machine busy (TEST_WORKERS, when set, sets this too).
E2E_WORKERS ?= $(if $(filter auto,$(TEST_WORKERS)),$(shell echo $$(( $$(nproc) + 1 ))),$(TEST_WORKERS))

LOAD_VENV := .venv-load
CHECKOV_VENV := .venv-checkov
FUZZ_VENV := .venv-fuzz
CLIENT_VENV := .venv-client
# Node as tools/developers/devstack/edge_host.mjs runs the edge function (vm modules: a context of its own).
NODE_VM := node --experimental-vm-modules --no-warnings

.PHONY: dev check test bootstrap lint lint-code lint-templates unit integration e2e browser bench load build deploy delete secrets cost clean admin sam-local openapi

$(BIN)/.installed: requirements/dev.txt requirements/dev-constraints.txt layers/common/requirements.txt
	@test -n "$(PYTHON)" || { echo "Python 3.11+ is required"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/dev.txt -c requirements/dev-constraints.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation --editable .
	@touch $@

venv: $(BIN)/.installed

dev: venv
	$(PY) -m tools.developers.devstack

# The virtualenvs, npm packages and browser install side by side (they wait on the network and
# the disk more than on a core), then the suites run one after the other.
test: bootstrap
	$(MAKE) --no-print-directory lint unit integration e2e

bootstrap:
	$(MAKE) --no-print-directory -j4 venv $(CHECKOV_VENV)/.installed $(FUZZ_VENV)/.installed \
		$(CLIENT_VENV)/.installed node_modules/.installed browser

# What you run while you work, in under 3 minutes: lint, unit, and the integration tests not
# marked slow (the ones that take seconds of a machine or more; `make test` runs them, and e2e).
check: lint unit node_modules/.installed
	$(PY) -m pytest $(PARALLEL) tests/integration -m "not slow"

$(CHECKOV_VENV)/.installed: requirements/checkov.txt requirements/checkov-constraints.txt
	@test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet -r requirements/checkov.txt -c requirements/checkov-constraints.txt
	@touch $@

# The code's checks and the templates' checks run side by side: each is mostly one core.
lint: venv $(CHECKOV_VENV)/.installed
	$(MAKE) --no-print-directory -j2 lint-code lint-templates

lint-code: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy layers/common/shortlink layers/common/package_layer.py tools tests $(FUNCTIONS)
	$(BIN)/lint-imports --no-cache
	$(PY) -m tools.developers.module_sizes

lint-templates: venv $(CHECKOV_VENV)/.installed
	@for t in $(TEMPLATES); do $(BIN)/sam validate --lint --template $$t || exit 1; done
	$(CHECKOV_VENV)/bin/checkov --config-file .checkov.yaml $(addprefix --file ,$(TEMPLATES))

# The edge function (edge/viewer-request.js) under Node's own test runner, then the Python units.
unit: venv
	$(NODE_VM) --test tests/node/
	$(PY) -m pytest $(PARALLEL) tests/unit

integration: venv node_modules/.installed
	$(PY) -m pytest $(PARALLEL) tests/integration

e2e: venv browser node_modules/.installed $(FUZZ_VENV)/.installed $(CLIENT_VENV)/.installed
	$(PY) -m pytest -n $(E2E_WORKERS) --dist loadfile tests/e2e

# dynalite (npm, pinned by package-lock.json): the e2e tests run once more with it serving DynamoDB,
# since it refuses what DynamoDB refuses and moto lets pass, and the integration tests of concurrent
# writes run on it (moto is not atomic across threads). No install scripts: it runs in memory.
node_modules/.installed: package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	@touch $@

# schemathesis lives in its own virtualenv: its click would move SAM CLI's pin.
$(FUZZ_VENV)/.installed: requirements/fuzz.txt requirements/fuzz-constraints.txt
	@test -x $(FUZZ_VENV)/bin/python || $(PYTHON) -m venv $(FUZZ_VENV)
	$(FUZZ_VENV)/bin/python -m pip install --quiet -r requirements/fuzz.txt -c requirements/fuzz-constraints.txt
	@touch $@

# openapi-python-client, in its own virtualenv: the e2e test generates a client from the OpenAPI
# document with it and runs Getting started through that client.
$(CLIENT_VENV)/.installed: requirements/client.txt requirements/client-constraints.txt
	@test -x $(CLIENT_VENV)/bin/python || $(PYTHON) -m venv $(CLIENT_VENV)
	$(CLIENT_VENV)/bin/python -m pip install --quiet -r requirements/client.txt -c requirements/client-constraints.txt
	@touch $@

# The password page's browser test drives Debian's chromium through chromedriver: installed here
# where missing (root and apt-get needed); otherwise that one test is skipped and says why.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's chromium and chromium-driver for the browser test"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null 2>&1 || \
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null 2>&1; } || \
		echo "chromium could not be installed: the browser test will be skipped"; \
	else echo "chromium is missing and cannot be installed here (root and apt-get needed): the browser test will be skipped"; fi

# The documentation site (mkdocs.yml, docs/) into site/; `make lint` builds it strict.
.PHONY: docs
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Benchmarks are not tests: nothing in `make test` asserts a timing.
bench: venv
	$(PY) -m tools.developers.bench

# locust lives in its own virtualenv so that it never moves a pin of the dev environment.
$(LOAD_VENV)/.installed: requirements/load.txt
	@test -x $(LOAD_VENV)/bin/python || $(PYTHON) -m venv $(LOAD_VENV)
	$(LOAD_VENV)/bin/python -m pip install --quiet -r requirements/load.txt
	@touch $@

load: venv $(LOAD_VENV)/.installed
	$(PY) -m tools.developers.load

# sam build needs the runtime's Python (3.13) on PATH; the layer's Makefile gets its real path
# (a pyenv shim resolves it only inside this directory).
# ENV picks the samconfig.toml environment: default (dev) or prod.
ENV ?= default

build: venv
	LAYER_PYTHON="$$(python3.13 -c 'import sys; print(sys.executable)')" $(BIN)/sam build --config-env $(ENV)

# The template under `sam local start-api` (Docker needed): create → follow → stats, then stops.
# `$(PY) -m tools.developers.samlocal --serve` keeps it running (README, sam local).
sam-local: venv
	LAYER_PYTHON="$$(python3.13 -c 'import sys; print(sys.executable)')" $(PY) -m tools.developers.samlocal

# Away from the home region, the stack is told its click-stats replica's stream, looked up here.
deploy: build
	overrides="$$($(PY) -m tools.operators.stream_arn --env $(ENV))" && eval $(BIN)/sam deploy --config-env $(ENV) "$$overrides"

delete: venv
	$(BIN)/sam delete --config-env $(ENV)

cost: venv
	@test -f bench-results/latest.json || $(MAKE) bench
	$(PY) -m tools.developers.cost

secrets: venv
	$(PY) -m tools.operators.secrets --env $(ENV)

admin: venv
	$(PY) -m tools.operators.admin $(ARGS)

# The API's OpenAPI document, generated from the routes (a test fails when it drifts).
openapi: venv
	$(PY) -m tools.developers.openapi

clean:
	rm -rf $(VENV) $(LOAD_VENV) $(CHECKOV_VENV) $(FUZZ_VENV) $(CLIENT_VENV) node_modules .aws-sam .pytest_cache .mypy_cache .ruff_cache bench-results site
