"""The test session without DATABASE_URL (a fresh machine's ``make test``) runs its PostgreSQL
tests on an embedded server (tests/embedded_postgres.py), and leaves no server or data behind,
also when it is stopped with SIGTERM. Each case runs pytest in a subprocess on a probe test."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from django.conf import settings

pytestmark = [pytest.mark.slow]

PROBE = """
import os
import time

import pytest
from django.db import connection


@pytest.mark.django_db
def test_runs_on_postgresql():
    assert connection.vendor == "postgresql"
    assert connection.settings_dict["HOST"] == "127.0.0.1"


def test_waits_for_a_signal():
    open(os.environ["PROBE_READY"], "w").close()
    time.sleep(120)
"""


def _pytest(tmp_path: Path, selection: str, **env: str) -> subprocess.Popen:
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    environment.update(env)
    return subprocess.Popen(
        # The project's pytest configuration for a test file outside it.
        [sys.executable, "-m", "pytest", "-c", "pyproject.toml", "--rootdir", ".",
         "-p", "no:cacheprovider", f"{probe}::{selection}"],
        cwd=settings.BASE_DIR,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip


def _server_folder(output: str) -> Path:
    match = re.search(r"database: embedded PostgreSQL \d+ on 127\.0\.0\.1:\d+ in (\S+)", output)
    assert match, output
    return Path(match.group(1))


def _postgres_processes(folder: Path) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(str(folder) in part for part in process.info["cmdline"] or ()):
            found.append(process)
    return found


def test_without_database_url_postgresql_tests_run_on_an_embedded_server(tmp_path):
    session = _pytest(tmp_path, "test_runs_on_postgresql", LERNPFAD_REQUIRE_SERVICES="1")
    output, _ = session.communicate(timeout=600)
    assert session.returncode == 0, output
    assert "1 passed" in output and "skipped" not in output, output
    folder = _server_folder(output)
    assert not folder.exists()
    assert not _postgres_processes(folder)


def test_sigterm_to_the_session_stops_the_embedded_server(tmp_path):
    ready = tmp_path / "ready"
    session = _pytest(tmp_path, "test_waits_for_a_signal", PROBE_READY=str(ready))
    deadline = time.monotonic() + 300
    while not ready.exists():
        assert session.poll() is None and time.monotonic() < deadline, session.communicate()[0]
        time.sleep(0.2)
    session.send_signal(signal.SIGTERM)
    output, _ = session.communicate(timeout=60)
    assert session.returncode != 0, output
    folder = _server_folder(output)
    assert not folder.exists()
    assert not _postgres_processes(folder)
