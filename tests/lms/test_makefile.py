"""The Makefile's commands as README.md names them, with a stand-in for Python that records how
it was called (nothing is installed, migrated or started)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings


def _make(tmp_path: Path, *arguments: str, env: dict[str, str] | None = None) -> list[str]:
    """Run ``make ARGUMENTS`` with PY a script that logs "LERNPFAD_SITE_URL | its arguments"."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    calls = tmp_path / "calls.txt"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$LERNPFAD_SITE_URL | $*" >> {calls}\n')
    python.chmod(0o755)
    clean = {k: v for k, v in os.environ.items() if k not in ("LERNPFAD_SITE_URL", "MAKEFLAGS")}
    subprocess.run(
        # -o: the virtualenv counts as installed, whatever its age.
        ["make", "--no-print-directory", "-o", ".venv/.installed-run", f"PY={python}", *arguments],
        cwd=settings.BASE_DIR,
        env={**clean, **(env or {})},
        check=True,
        capture_output=True,
        timeout=60,
    )
    return calls.read_text().splitlines()


def test_make_run_serves_port_8000_by_default(tmp_path):
    calls = _make(tmp_path, "run")
    # runstack starts PostgreSQL and brings the demo up to date itself.
    assert calls == ["http://127.0.0.1:8000 | manage.py runstack --addr 127.0.0.1:8000"]


def test_make_run_port_chooses_the_port(tmp_path):
    calls = _make(tmp_path, "run", "PORT=8123")
    assert calls[-1] == "http://127.0.0.1:8123 | manage.py runstack --addr 127.0.0.1:8123"


def test_make_run_addr_chooses_the_interface_and_a_site_url_set_stays(tmp_path):
    calls = _make(
        tmp_path,
        "run",
        "ADDR=0.0.0.0:8124",
        env={"LERNPFAD_SITE_URL": "https://lernpfad.example.org"},
    )
    assert calls[-1] == "https://lernpfad.example.org | manage.py runstack --addr 0.0.0.0:8124"


def test_make_docs_serves_the_site_on_port_8001_by_default(tmp_path):
    calls = _make(tmp_path, "-o", ".venv/.installed-dev", "docs")
    assert calls == [" | -m mkdocs serve --dev-addr 127.0.0.1:8001"]
    calls = _make(tmp_path, "-o", ".venv/.installed-dev", "docs", "DOCS_PORT=8125")
    assert calls[-1] == " | -m mkdocs serve --dev-addr 127.0.0.1:8125"
