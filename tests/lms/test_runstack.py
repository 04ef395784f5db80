"""``manage.py runstack`` as ``make run`` starts it: the embedded PostgreSQL with the demo data,
the threaded dev server, a Celery worker and Celery beat with a folder broker. The first stack
prepares a var/ folder once (initdb, migrations, course, demo accounts); each test then runs on a
copy of it, with a port of its own; the developer's ``var/`` is never touched.

- The demo learner reads the course as the step page's script reports it: three browsers with
  three tabs each open steps while several ``section_viewed`` events per step go out at once
  (at most six connections per browser, as browsers keep to). Every request is answered ``2xx``
  and no event is lost.
- SIGTERM to runstack (``kill``, a service manager, a CI timeout) stops web, worker, the worker's
  pool, beat and PostgreSQL within seconds. So does Ctrl-C (SIGINT).
- A child that exits (the port is taken) stops the others, and runstack fails.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import requests
import requests.adapters
from django.conf import settings

from lms.management.commands.runstack import STOP_TIMEOUT
from tests.helpers.ports import free_port

pytestmark = [pytest.mark.slow]

MODULE = "self-hosting-27"
LEARNER = ("lena", "lernpfad-lena-demo")  # manage.py demo_setup
START_TIMEOUT = 90  # seconds for runstack to serve (three Python processes on a busy machine)
PREPARE_TIMEOUT = 600  # seconds for the first stack: initdb, every migration, the demo data
BROWSERS = 3  # the learner's browsers (laptop, phone, tablet) at the same time
TABS_PER_BROWSER = 3  # steps open at the same time in each
CONNECTIONS_PER_BROWSER = 6  # what browsers open to one server over HTTP/1.1
READS_PER_STEP = 2  # every step is read twice (the second time its events change nothing)


def _environment(var_dir: Path) -> dict[str, str]:
    """The environment of ``make run`` on a fresh machine: dev settings, no DATABASE_URL (the
    embedded PostgreSQL in var/postgres), folder broker."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "CELERY_", "CACHE_", "LOGIN_CACHE_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings.dev",
        LERNPFAD_VAR_DIR=str(var_dir),
        PYTHONUNBUFFERED="1",
    )
    return env


def _folder() -> Path:
    # Not under pytest's tmp_path: each new pytest session on the machine makes
    # /tmp/pytest-of-root private again, and PostgreSQL runs as another user when root starts it.
    return Path(tempfile.mkdtemp(prefix="lernpfad-runstack-"))


@pytest.fixture(scope="module")
def demo_var() -> Iterator[Path]:
    """A var/ folder as the first ``make run`` leaves it (stopped with SIGTERM); each test works
    on a copy."""
    first = Stack(_folder())
    try:
        first.wait_until_serving(PREPARE_TIMEOUT)
        first.popen.send_signal(signal.SIGTERM)
        first.popen.wait(timeout=STOP_TIMEOUT + 60)
        assert first.popen.returncode == 0, first.tail()
    finally:
        first.close()
    yield first.var_dir
    shutil.rmtree(first.var_dir.parent, ignore_errors=True)


@pytest.fixture
def workdir(demo_var) -> Iterator[Path]:
    """A folder with a copy of the demo's var/ (cp -a keeps owners: as root the data belongs to
    PostgreSQL's own system user)."""
    folder = _folder()
    subprocess.run(["cp", "-a", str(demo_var), str(folder / "var")], check=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


class Stack:
    """A running ``manage.py runstack`` and every process it started."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.var_dir = workdir / "var"
        self.log = workdir / "runstack.log"
        self._log_file = self.log.open("wb")
        self.popen = subprocess.Popen(
            [sys.executable, "manage.py", "runstack", "--addr", f"127.0.0.1:{self.port}"],
            cwd=settings.BASE_DIR,
            env=_environment(self.var_dir),
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            # Apart from the test's own terminal signals, as from a service manager.
            start_new_session=True,
        )
        self.process = psutil.Process(self.popen.pid)
        # Every descendant ever seen, so the teardown can kill what a failed test left behind.
        self.seen: dict[int, psutil.Process] = {}

    def descendants(self) -> list[psutil.Process]:
        with contextlib.suppress(psutil.NoSuchProcess):
            for child in self.process.children(recursive=True):
                self.seen.setdefault(child.pid, child)
        return [process for process in self.seen.values() if _alive(process)]

    def leftovers(self) -> list[psutil.Process]:
        """Every live process started with this stack's folder: runstack's children even after
        they were orphaned (their parent gone, adopted by init), and PostgreSQL."""
        found = []
        for process in psutil.process_iter():
            with contextlib.suppress(psutil.Error):
                if process.environ().get("LERNPFAD_VAR_DIR") == str(self.var_dir) and _alive(
                    process
                ):
                    found.append(process)
        return found

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def wait_until_serving(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.popen.poll() is None, f"runstack exited early:\n{self.tail()}"
            # Web answers, and worker and beat have started (their own children come later).
            if self._answers() and len(self.process.children()) == 3:
                return
            time.sleep(0.5)
        raise AssertionError(f"runstack did not serve within {timeout} s:\n{self.tail()}")

    def _answers(self) -> bool:
        try:
            return requests.get(f"{self.url}/api/v1/modules/", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def close(self) -> None:
        """Whatever state the test left: no process of this stack stays behind."""
        processes = [self.process, *self.descendants(), *self.leftovers()]
        for process in processes:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        psutil.wait_procs(processes, timeout=10)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=10)
        self._log_file.close()


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.fixture
def stack(workdir):
    running = Stack(workdir)
    try:
        running.wait_until_serving()
        yield running
    finally:
        running.close()


def _browser(url: str) -> requests.Session:
    """A browser in which the learner has logged in on the web page. Like a real browser it
    opens at most six connections to the server, and a request waits for a free one."""
    browser = requests.Session()
    adapter = requests.adapters.HTTPAdapter(
        pool_connections=1, pool_maxsize=CONNECTIONS_PER_BROWSER, pool_block=True
    )
    browser.mount("http://", adapter)
    page = browser.get(f"{url}/login/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    response = browser.post(
        f"{url}/login/",
        data={"username": LEARNER[0], "password": LEARNER[1], "csrfmiddlewaretoken": token},
        allow_redirects=False,
        timeout=30,
    )
    assert response.status_code == 302, response.text[:2000]
    return browser


def _enroll(url: str, browser: requests.Session) -> None:
    response = browser.post(
        f"{url}/modules/{MODULE}/enroll/",
        data={"csrfmiddlewaretoken": browser.cookies["csrftoken"]},
        allow_redirects=False,
        timeout=30,
    )
    assert response.status_code == 302, response.text[:2000]


def _failure(error: Exception) -> str:
    return f"{type(error).__name__}: {str(error)[:200]}"


def _read_step(url: str, browser: requests.Session, number: int) -> list[tuple[str, int | str]]:
    """One tab: open the step page, then report every section it shows at once, as the page's
    script does when they scroll into view. Returns (request, status or error) pairs."""
    results: list[tuple[str, int | str]] = []
    try:
        page = browser.get(f"{url}/modules/{MODULE}/steps/{number}/", timeout=60)
    except requests.RequestException as error:
        return [("open", _failure(error))]
    results.append(("open", page.status_code))
    if page.status_code != 200:
        return results
    progress_url = re.search(r'data-progress-url="([^"]+)"', page.text).group(1)
    kinds = sorted(set(re.findall(r'data-section-kind="([^"]+)"', page.text)))
    headers = {"X-CSRFToken": browser.cookies["csrftoken"], "Accept": "application/json"}

    def section_viewed(kind: str) -> int | str:
        try:
            return browser.post(
                f"{url}{progress_url}",
                json={"event": "section_viewed", "section": kind},
                headers=headers,
                timeout=60,
            ).status_code
        except requests.RequestException as error:
            return _failure(error)

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(kinds)) as burst:
        results += [("section_viewed", status) for status in burst.map(section_viewed, kinds)]
    return results


def test_concurrent_reading_answers_every_request(stack):
    # The data of the first run is kept: nothing to migrate.
    assert "No migrations to apply." in stack.log.read_text(errors="replace")
    # BROWSERS browsers (laptop, phone, ...) with TABS_PER_BROWSER tabs each read every step
    # READS_PER_STEP times, all at the same time.
    browsers = [_browser(stack.url) for _ in range(BROWSERS)]
    _enroll(stack.url, browsers[0])
    outline = browsers[0].get(f"{stack.url}/api/v1/modules/{MODULE}/", timeout=30)
    numbers = [step["number"] for step in outline.json()["outline"]]
    assert len(numbers) == 32

    reads = [
        (browsers[index % BROWSERS], number)
        for index, number in enumerate(numbers * READS_PER_STEP)
    ]
    with concurrent.futures.ThreadPoolExecutor(max_workers=BROWSERS * TABS_PER_BROWSER) as tabs:
        done = tabs.map(lambda read: _read_step(stack.url, *read), reads)
        results = [result for read in done for result in read]

    statuses = Counter(results)
    failed = {key: count for key, count in statuses.items() if not str(key[1]).startswith("2")}
    section_posts = sum(count for (what, _), count in statuses.items() if what == "section_viewed")
    assert section_posts > 200
    assert not failed, f"{sum(failed.values())} of {len(results)} requests failed: {failed}"

    # Nothing was lost: every section of every step counts as viewed.
    progress = browsers[0].get(f"{stack.url}/api/v1/modules/{MODULE}/progress/", timeout=30).json()
    missing = {step["number"]: step["missing_sections"] for step in progress["steps"]}
    assert missing == {number: [] for number in numbers}


def _wait_gone(processes: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    _gone, alive = psutil.wait_procs(processes, timeout=timeout)
    return [process for process in alive if _alive(process)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_web_worker_beat_and_postgresql(stack, signum):
    """SIGTERM as from ``kill`` or a service manager; SIGINT as Ctrl-C sends it (to runstack
    alone: its children have process groups of their own)."""
    children = stack.descendants()
    names = " ".join(" ".join(child.cmdline()) for child in children)
    assert "runserver" in names and " worker" in names and " beat" in names, names
    # The prefork worker's pool has started too: its processes must go as well.
    deadline = time.monotonic() + START_TIMEOUT
    while len(stack.descendants()) < 5 and time.monotonic() < deadline:
        time.sleep(0.5)
    children = stack.descendants()
    assert len(children) >= 5, [child.cmdline() for child in children]

    started = time.monotonic()
    stack.popen.send_signal(signum)
    stack.popen.wait(timeout=STOP_TIMEOUT + 20)
    alive = _wait_gone(children, timeout=5)
    assert not alive, [process.cmdline() for process in alive]
    assert time.monotonic() - started < STOP_TIMEOUT + 20
    assert not stack.leftovers()
    # Stopped by a signal, runstack reports a clean stop.
    assert stack.popen.returncode == 0, stack.tail()


def test_a_child_that_exits_stops_the_others_and_runstack_fails(workdir):
    """The port is taken: the dev server exits, so worker, beat and PostgreSQL are stopped and
    runstack exits non-zero, naming it."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port()))
        taken.listen()
        running = Stack(workdir, port=taken.getsockname()[1])
        try:
            running.popen.wait(timeout=START_TIMEOUT)
            assert running.popen.returncode == 1, running.tail()
            assert "stopped because a process exited: web (exit code 1)" in running.tail()
            assert not _wait_gone(running.leftovers(), timeout=5)
        finally:
            running.close()
