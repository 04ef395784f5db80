"""An embedded PostgreSQL for a test session that was given none, so a fresh machine runs the
PostgreSQL tests too (browser tests, API fuzzing, concurrency) instead of skipping them.

pytest loads this plugin first (``-p tests.embedded_postgres`` in pyproject.toml), and its hook
runs before pytest-django reads the settings. When ``DATABASE_URL`` is not set, it starts a
PostgreSQL from the binaries of the ``pgserver`` wheel (a dev dependency) with its data in a
temporary folder and a free loopback port, and sets ``DATABASE_URL`` to it; at the end of the
session the server is stopped and the folder removed (also after Ctrl-C or SIGTERM). A set
``DATABASE_URL`` is used as it is: CI's server, a developer's own, or ``sqlite://`` to run the
suite on SQLite on purpose (the PostgreSQL tests then skip). ``LERNPFAD_EMBEDDED_POSTGRES=0``
turns the embedded server off as well.

The server runs TCP on 127.0.0.1 (not only a Unix socket, as pgserver's own ``get_server`` does)
because tests hand ``postgres://user@host:port/name`` URLs to the processes they start. It is a
throw-away server, so it skips fsync. PostgreSQL refuses to run as root; as root it runs as the
system user ``pgserver``, created and given access to the binaries the way pgserver does it.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import warnings
from pathlib import Path

import pytest

from tests.helpers.ports import free_port

START_TIMEOUT = 60  # seconds; a busy machine may need a while for the first start
SYSTEM_USER = "pgserver"  # the user pgserver itself runs PostgreSQL as when started by root

#: Why no embedded server runs although DATABASE_URL was not set ("" when one runs or none
#: was wanted); the service gate (tests/conftest.py) names it in its skip reason.
startup_problem = ""
_server: EmbeddedPostgres | None = None


class EmbeddedPostgres:
    """initdb, start and stop of one throw-away PostgreSQL cluster."""

    def __init__(self, pgserver) -> None:
        self._pgserver = pgserver
        self.folder = Path(tempfile.mkdtemp(prefix="lernpfad-test-postgres-"))
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.user: str | None = None
        self.port = 0
        self.version = ""
        self._running = False

    def _as_user(self) -> None:
        if os.geteuid() != 0:
            return
        import pwd

        from pgserver import utils

        bin_path = Path(self._pgserver.__file__).parent / "pginstall" / "bin"
        utils.ensure_user_exists(SYSTEM_USER)
        utils.ensure_prefix_permissions(bin_path)
        read = 0o044
        utils.ensure_folder_permissions(bin_path, read | 0o011)
        utils.ensure_folder_permissions(bin_path.parent / "lib", read)
        entry = pwd.getpwnam(SYSTEM_USER)
        os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self.user = SYSTEM_USER

    def start(self) -> str:
        """Create the cluster and start it; returns its DATABASE_URL."""
        self._as_user()
        self._pgserver.initdb(
            ["--auth=trust", "--username=postgres", "--encoding=UTF8", "--locale=C.UTF-8"],
            pgdata=self.data,
            user=self.user,
        )
        self.version = (self.data / "PG_VERSION").read_text().strip()
        last_error: Exception | None = None
        for _attempt in range(5):  # another process may take the free port first
            self.port = free_port()
            options = (
                f"-h 127.0.0.1 -p {self.port} -k {self.folder}"
                " -F -c full_page_writes=off -c synchronous_commit=off"
            )
            try:
                self._pgserver.pg_ctl(
                    ["-w", "-t", str(START_TIMEOUT), "-l", str(self.log), "-o", options, "start"],
                    pgdata=self.data,
                    user=self.user,
                    timeout=START_TIMEOUT + 30,
                )
            except subprocess.CalledProcessError as error:
                last_error = error
                continue
            self._running = True
            return f"postgres://postgres@127.0.0.1:{self.port}/lernpfad"
        log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
        raise RuntimeError(f"PostgreSQL did not start: {last_error}\n{log}")

    def stop(self) -> None:
        """Stop the server (its clients are disconnected) and remove its folder; idempotent."""
        if self._running:
            self._running = False
            for mode in ("fast", "immediate"):
                try:
                    self._pgserver.pg_ctl(
                        ["-w", "-m", mode, "stop"], pgdata=self.data, user=self.user, timeout=60
                    )
                    break
                except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
                    continue
        shutil.rmtree(self.folder, ignore_errors=True)


def _wanted(early_config) -> bool:
    if os.environ.get("DATABASE_URL") or os.environ.get("LERNPFAD_EMBEDDED_POSTGRES") == "0":
        return False
    options = early_config.known_args_namespace
    return not (getattr(options, "help", False) or getattr(options, "version", False))


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    global _server, startup_problem
    if not _wanted(early_config):
        return
    try:
        # pgserver warns at import when XDG_RUNTIME_DIR is unset (a lock path it does not use here).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver
    except ImportError:
        startup_problem = "pgserver is not installed (pip install -e '.[dev]')"
        return
    # pgserver logs every command at INFO, which the settings' root handler would print.
    logging.getLogger("pgserver").setLevel(logging.WARNING)
    server = EmbeddedPostgres(pgserver)
    try:
        url = server.start()
    except Exception as error:  # any failure: the suite runs on SQLite and says why it skips
        server.stop()
        startup_problem = f"the embedded PostgreSQL did not start: {error}"
        return
    _server = server
    os.environ["DATABASE_URL"] = url
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
        return [
            f"database: embedded PostgreSQL {_server.version} on 127.0.0.1:{_server.port}"
            f" in {_server.folder}"
        ]
    if startup_problem:
        return [f"database: no PostgreSQL ({startup_problem})"]
    return None
