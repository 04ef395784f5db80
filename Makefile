# Lernpfad: the commands README.md names. Each target sets up .venv itself when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench bench-smoke fuzz install test-tools

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## The browser tests' axe-core (package.json, from the npm registry). Without npm the tests that
## need it skip (CI installs npm and fails them instead).
AXE := node_modules/axe-core/axe.min.js
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(AXE)

test-tools:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(AXE); \
	else echo "npm not found: the axe-core browser tests will skip (apt-get install npm)"; fi

## Run Lernpfad: web, Celery worker and beat on SQLite and a folder broker, with demo data.
## `make run PORT=8001` serves another port; `make run ADDR=0.0.0.0:8000` every interface.
PORT ?= 8000
ADDR ?= 127.0.0.1:$(PORT)
# Links in e-mails and the log-in lines demo_setup prints name the address served.
run: export LERNPFAD_SITE_URL ?= http://$(ADDR)
run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py import_course
	$(PY) manage.py generate_exam_items
	$(PY) manage.py demo_setup
	$(PY) manage.py runstack --addr $(ADDR)

## The whole test suite. Without DATABASE_URL on an embedded PostgreSQL (tests/embedded_postgres.py);
## Redis tests run when CELERY_BROKER_URL=redis://... points at a server.
test: $(STAMP) test-tools
	$(PY) manage.py makemigrations --check --dry-run --settings=lms.settings.test
	$(PY) -m pytest $(PYTEST_ARGS)

## Benchmarks (bench/README.md): own PostgreSQL database (BENCH_DATABASE_URL), needs wrk.
bench: $(STAMP)
	$(PY) -m bench.run $(BENCH_ARGS)

## The same harness with tiny data and one short round (CI runs it through tests/bench/).
bench-smoke: $(STAMP)
	$(PY) -m bench.run --smoke --drop $(BENCH_ARGS)

## A longer fuzz than CI's: schemathesis over every API operation and the document mutations,
## FUZZ_EXAMPLES cases each, random seeds. Needs PostgreSQL (DATABASE_URL=postgres://...).
FUZZ_EXAMPLES ?= 500
fuzz: $(STAMP)
	LERNPFAD_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) LERNPFAD_FUZZ_SEED=random LERNPFAD_REQUIRE_SERVICES=1 \
	$(PY) -m pytest tests/reliability/test_schema_fuzz.py \
	tests/reliability/test_document_import_fuzz.py $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
