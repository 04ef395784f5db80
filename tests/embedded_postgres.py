"""An embedded PostgreSQL for a test session that was given none (lms/embedded_db.py), so a fresh
machine runs every test on PostgreSQL too.

pytest loads this plugin first (``-p tests.embedded_postgres`` in pyproject.toml), and its hook
runs before pytest-django reads the settings. When ``DATABASE_URL`` is not set, it starts a
throw-away server in a temporary folder on a free loopback port (``LERNPFAD_TEST_PORTS``) and sets
``DATABASE_URL`` to it; at the end of the session the server is stopped and the folder removed
(also after Ctrl-C or SIGTERM). A set ``DATABASE_URL`` is used as it is: CI's server or a
developer's own.
"""

from __future__ import annotations

import atexit
import os
import signal
import tempfile
from pathlib import Path

import pytest

from tests.helpers.ports import free_port

_server = None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    global _server
    options = early_config.known_args_namespace
    if os.environ.get("DATABASE_URL") or options.help or options.version:
        return
    # Importing lms sets a default settings module (lms/celery.py), which pytest-django would
    # prefer to the ini's; the ini's is the one it picks when none is set.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", early_config.getini("DJANGO_SETTINGS_MODULE"))
    from lms.embedded_db import EmbeddedPostgres

    folder = Path(tempfile.mkdtemp(prefix="lernpfad-test-postgres-"))
    server = EmbeddedPostgres(folder, throwaway=True)
    try:
        os.environ["DATABASE_URL"] = server.start(free_port)
    except BaseException:
        server.stop()
        raise
    _server = server
    early_config.add_cleanup(server.stop)
    atexit.register(server.stop)  # also when pytest fails before its own cleanups run
    # Without a handler SIGTERM ends pytest at once and the server would outlive it; as an
    # interrupt the session ends as after Ctrl-C, and the cleanup above runs.
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_report_header(config):
    if _server is not None:
        version = (_server.data / "PG_VERSION").read_text().strip()
        return [
            f"database: embedded PostgreSQL {version} on 127.0.0.1:{_server.port}"
            f" in {_server.folder}"
        ]
    return None
