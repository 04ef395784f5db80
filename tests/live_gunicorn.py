"""gunicorn started as the Dockerfile starts it (``gunicorn -c python:lms.gunicorn_conf
lms.wsgi:application``), for tests that must meet Lernpfad over real HTTP.

Ports: a free one from ``LERNPFAD_TEST_PORTS`` ("18300-18399") when a machine reserves a range
for the test run, else any the system hands out.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings

from tests.helpers.ports import free_port

BIN = Path(sys.executable).parent
START_TIMEOUT = 60  # seconds


def http_status(url: str, *, headers: dict[str, str] | None = None, timeout: float = 10) -> int:
    """The status of a GET (0 when nothing answers)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


class Gunicorn:
    """One gunicorn with ``lms/gunicorn_conf.py`` on a free loopback port, its output in a log.

    ``env`` is the whole environment of the process (settings, database, secrets).
    """

    def __init__(self, *, env: dict[str, str], log: Path, workers: int = 1) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._file = log.open("wb")
        self.popen = subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                "-c",
                "python:lms.gunicorn_conf",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(workers),
                "lms.wsgi:application",
            ],
            env=env,
            cwd=settings.BASE_DIR,
            stdout=self._file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace").splitlines()
        return f"--- gunicorn :{self.port} ---\n" + "\n".join(text[-lines:])

    def wait_until_serving(self, path: str, *, headers: dict[str, str] | None = None) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise AssertionError(f"gunicorn exited with {self.popen.returncode}\n{self.tail()}")
            if http_status(self.url + path, headers=headers, timeout=5) == 200:
                return
            time.sleep(0.2)
        raise AssertionError(f"gunicorn did not serve {path} in {START_TIMEOUT} s\n{self.tail()}")

    def stop(self) -> None:
        """SIGTERM (a graceful stop, as ``docker stop``), then SIGKILL if it lingers."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(timeout=30)
        self._file.close()
