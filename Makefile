# Lernpfad: the commands README.md names. Each target sets up .venv itself with what it needs:
# `make run` the runtime and the embedded PostgreSQL only, the others the dev extra as well.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint bench bench-smoke fuzz install test-tools docs

$(RUN_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-compile -e ".[run]"
	touch $(RUN_STAMP)

$(DEV_STAMP): $(RUN_STAMP)
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(DEV_STAMP)

install: $(DEV_STAMP)

## The test-only Node packages (package.json, from the npm registry): the browser tests' axe-core
## and the generated TypeScript client's toolchain (tests/mobile/). Without npm the tests that
## need them skip (CI installs npm and fails them instead).
AXE := node_modules/axe-core/axe.min.js
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(AXE)

test-tools:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(AXE); \
	else echo "npm not found: the axe-core and TypeScript client tests will skip (apt-get install npm)"; fi

## Run Lernpfad: an embedded PostgreSQL with its data in var/postgres (kept between runs; DATABASE_URL
## names another server instead), the demo course and accounts, web, Celery worker and beat with a
## folder broker; Ctrl-C stops them all. `make run PORT=8001` serves another port;
## `make run ADDR=0.0.0.0:8000` every interface.
PORT ?= 8000
ADDR ?= 127.0.0.1:$(PORT)
# Links in e-mails and the log-in lines demo_setup prints name the address served.
run: export LERNPFAD_SITE_URL ?= http://$(ADDR)
run: $(RUN_STAMP)
	$(PY) manage.py runstack --addr $(ADDR)

## The whole test suite. Without DATABASE_URL on a throw-away embedded PostgreSQL
## (tests/embedded_postgres.py); Redis tests run when CELERY_BROKER_URL=redis://... points at a server.
test: $(DEV_STAMP) test-tools
	$(PY) manage.py makemigrations --check --dry-run --settings=lms.settings.test
	$(PY) -m pytest $(PYTEST_ARGS)

## Benchmarks (bench/README.md): own PostgreSQL database (BENCH_DATABASE_URL), needs wrk.
bench: $(DEV_STAMP)
	$(PY) -m bench.run $(BENCH_ARGS)

## The same harness with tiny data and one short round (CI runs it through tests/bench/).
bench-smoke: $(DEV_STAMP)
	$(PY) -m bench.run --smoke --drop $(BENCH_ARGS)

## A longer fuzz than CI's: schemathesis over every API operation and the document mutations,
## FUZZ_EXAMPLES cases each, random seeds.
FUZZ_EXAMPLES ?= 500
fuzz: $(DEV_STAMP)
	LERNPFAD_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) LERNPFAD_FUZZ_SEED=random LERNPFAD_REQUIRE_SERVICES=1 \
	$(PY) -m pytest tests/reliability/test_schema_fuzz.py \
	tests/reliability/test_document_import_fuzz.py $(PYTEST_ARGS)

## The documentation site (docs/, mkdocs.yml) on http://127.0.0.1:$(DOCS_PORT)/, rebuilt on every
## change; `make test` builds it with --strict (tests/lms/test_docs.py).
DOCS_PORT ?= 8001
docs: export NO_MKDOCS_2_WARNING = 1
docs: $(DEV_STAMP)
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
