"""Real processes for the tests: a subprocess in its own process group with its output in a log
file (killed as ``docker kill`` kills a container), and a private redis-server the test may
stop and start again (the machine's Redis on 6379 is never touched)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import urllib.parse
from pathlib import Path

from tests.helpers.ports import free_port
from tests.helpers.waiting import wait_until

WAIT = 60  # seconds any single step may take before the test gives up


class Process:
    """A subprocess in its own process group, its output in a log file."""

    def __init__(self, name: str, args: list[str], env: dict, workdir: Path) -> None:
        self.name = name
        self.log = workdir / f"{name}.log"
        self._file = self.log.open("wb")
        self.popen = subprocess.Popen(
            args,
            env=env,
            cwd=workdir,
            stdout=self._file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, lines: int = 30) -> str:
        return f"--- {self.name} ---\n" + "\n".join(self.text().splitlines()[-lines:])

    def wait_for(self, needle: str, timeout: float = WAIT) -> None:
        wait_until(
            lambda: needle in self.text() or self.popen.poll() is not None,
            timeout=timeout,
            what=f"{self.name}: {needle!r}",
            logs=[self],
        )
        assert needle in self.text(), self.tail()

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (a prefork worker's children too) and reap it."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)
            self.popen.wait(timeout=WAIT)
        self._file.close()


class RedisServer:
    """A private redis-server (no persistence) that the test may stop and start again."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: Process | None = None
        self.runs = 0

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed"
        self.runs += 1
        self.process = Process(
            f"redis-{self.runs}",
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            dict(os.environ),
            self.workdir,
        )
        self.process.wait_for("Ready to accept connections")

    def stop(self) -> None:
        assert self.process is not None
        self.process.kill(signal.SIGKILL)
        self.process = None


def task_publish(
    redis_url: str, name: str, *, args: tuple = (), kwargs: dict | None = None
) -> None:
    """Publish a task by name to a private broker, as beat or a web process would."""
    from celery import Celery

    app = Celery("lernpfad-test-publisher", broker=redis_url, set_as_current=False)
    # The URL is passed explicitly: Celery prefers a CELERY_BROKER_URL environment variable (CI
    # sets one, for the machine's Redis) over the app's own broker setting.
    with app.connection_for_write(redis_url) as conn:
        assert conn.port == urllib.parse.urlsplit(redis_url).port, conn.as_uri()
        app.send_task(name, args=args, kwargs=kwargs or {}, connection=conn)
