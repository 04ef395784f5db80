"""The production stack started as a self-hoster starts it (``docker compose up``), without Docker.

The image's file system is built as the Dockerfile says (``image_build.py``: the context filtered
by .dockerignore, a fresh virtualenv for the base image's Python, every RUN step). Each compose
service then runs its ``command`` from its own copy of the image's application folder, with the
environment docker-compose.yml gives it and a ``.env`` filled in from ``.env.example`` as
docs/operations/index.md says, pointed at CI's PostgreSQL (a fresh database of its own) and Redis:

- ``migrate`` completes on the empty database;
- ``web`` (gunicorn, production settings) answers ``200`` on ``/``, ``/admin/login/`` and
  ``/api/docs/``, and on every stylesheet, script and icon those pages link;
- ``worker`` runs a task sent through the broker; ``beat`` sends a due schedule, which the worker
  runs;
- the compose healthchecks of ``web``, ``worker`` and ``beat`` pass against these processes;
- nothing a service writes lands in the application folder (so it can stay root-owned);
- ``proxy``: Caddy with the shipped Caddyfile (its site address on a loopback port, a local CA
  instead of Let's Encrypt) in front of that gunicorn: pages and static files over HTTPS, HTTP
  redirected, a client-written X-Forwarded-For opens no new throttle budget, and an admin
  created as docs/operations/index.md says logs in.

Requests to gunicorn itself carry ``X-Forwarded-Proto: https``, as Caddy's do. On two shared
cores the build takes about two minutes with pip's cache warm, the whole module about four.
"""

from __future__ import annotations

import html.parser
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
import yaml
from django.conf import settings
from django.db import connection
from image_build import (
    Container,
    Image,
    Process,
    compose_interpolate,
    dotenv_read,
    image_build,
    service_command,
    service_environment,
)
from psycopg.conninfo import make_conninfo

from tests.conftest import REQUIRE_SERVICES, _missing, redis_available
from tests.helpers.ports import free_port
from tests.helpers.waiting import wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow]

CONTEXT = Path(settings.BASE_DIR)
COMPOSE = yaml.safe_load((CONTEXT / "docker-compose.yml").read_text(encoding="utf-8"))
SERVICES = COMPOSE["services"]
APP_SERVICES = ("migrate", "web", "worker", "beat")
DOMAIN = "localhost"  # resolves to loopback, so Caddy's certificate and the Host header agree
FINALIZE_TASK = "quizzes.tasks.exam_attempts_finalize_expired"
WAIT = 90  # seconds a service may take to come up


# --- HTTP ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def http_opener(*, cafile: Path | None = None, cookies=None) -> urllib.request.OpenerDirector:
    # No proxy from the environment (http_proxy): every request here goes to loopback.
    handlers: list = [_NoRedirect(), urllib.request.ProxyHandler({})]
    if cafile is not None:
        handlers.append(
            urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=str(cafile)))
        )
    if cookies is not None:
        handlers.append(urllib.request.HTTPCookieProcessor(cookies))
    return urllib.request.build_opener(*handlers)


def fetch(url: str, *, opener=None, headers=None, data: bytes | None = None) -> Answer:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with (opener or http_opener()).open(request, timeout=30) as response:
            return Answer(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, dict(exc.headers), exc.read())


class _Assets(html.parser.HTMLParser):
    """The stylesheets, icons and scripts a page links."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        rel = (attributes.get("rel") or "").lower()
        if tag == "link" and attributes.get("href") and ("stylesheet" in rel or "icon" in rel):
            self.urls.append(attributes["href"])
        if tag == "script" and attributes.get("src"):
            self.urls.append(attributes["src"])


def linked_assets(page_url: str, html_text: str) -> list[str]:
    parser = _Assets()
    parser.feed(html_text)
    return sorted({urllib.parse.urljoin(page_url, url) for url in parser.urls})


# --- the stack ----------------------------------------------------------------------------------


@dataclass
class Stack:
    image: Image
    project_dir: Path
    variables: dict[str, str]  # the .env beside the compose file
    database_url: str
    web_base: str
    web_port: int
    https_port: int
    http_port: int
    containers: dict[str, Container] = field(default_factory=dict)
    environments: dict[str, dict[str, str]] = field(default_factory=dict)
    processes: dict[str, Process] = field(default_factory=dict)
    exit_codes: dict[str, int] = field(default_factory=dict)
    called_task_ids: set[str] = field(default_factory=set)
    seconds: dict[str, float] = field(default_factory=dict)

    def web(self, path: str, **headers: str) -> Answer:
        headers = {"Host": f"{DOMAIN}:{self.web_port}", "X-Forwarded-Proto": "https", **headers}
        return fetch(self.web_base + path, headers={k: v for k, v in headers.items() if v})

    def run_in(self, service: str, args: list[str], **extra_env: str):
        """A command in the service's container (as ``docker compose exec`` runs it)."""
        return subprocess.run(
            args,
            cwd=self.containers[service].app_dir,
            env={**self.environments[service], **extra_env},
            capture_output=True,
            text=True,
            timeout=120,
        )

    def sql(self, statement: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.database_url, autocommit=True) as db:
            cursor = db.execute(statement, params)
            return cursor.fetchall() if cursor.description else []


def _services_or_skip() -> None:
    if not redis_available():
        _missing("needs Redis: set CELERY_BROKER_URL=redis://...")


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Image:
    _services_or_skip()
    started = time.monotonic()
    built = image_build(CONTEXT, tmp_path_factory.mktemp("image"), log=lambda line: None)
    built.run_seconds.append(("total", time.monotonic() - started))
    return built


@pytest.fixture(scope="module")
def image_database() -> str:
    """A fresh, empty database on CI's PostgreSQL, named after the test database."""
    _services_or_skip()
    db = connection.settings_dict
    name = connection.creation._get_test_db_name() + "_image"
    server = make_conninfo(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname="postgres",
    )
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    yield f"postgres://{db['USER']}{password}@{host}/{name}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def filled_env_example(overrides: dict[str, str]) -> str:
    """.env.example as a self-hoster fills it in: every value docs/operations/ says to set is a
    variable .env.example already names."""
    example = (CONTEXT / ".env.example").read_text(encoding="utf-8")
    documented = dotenv_read(example)
    missing = sorted(set(overrides) - set(documented))
    assert not missing, f".env.example does not name {missing}"
    lines = []
    for line in example.splitlines():
        key = line.split("=", 1)[0].strip()
        lines.append(
            f"{key}={overrides[key]}"
            if "=" in line and key in overrides and not line.lstrip().startswith("#")
            else line
        )
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def stack(image, image_database, tmp_path_factory) -> Stack:
    project_dir = tmp_path_factory.mktemp("project")  # beside docker-compose.yml: .env
    web_port, https_port, http_port = (free_port("0.0.0.0") for _ in range(3))
    self_hoster = {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": DOMAIN,
        "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://{DOMAIN}:{https_port}",
        "LERNPFAD_DOMAIN": f"{DOMAIN}:{https_port}",
        "LERNPFAD_SITE_URL": f"https://{DOMAIN}:{https_port}",
        "POSTGRES_PASSWORD": secrets.token_urlsafe(16),
        "EMAIL_URL": "consolemail://",
    }
    (project_dir / ".env").write_text(filled_env_example(self_hoster), encoding="utf-8")
    variables = dotenv_read((project_dir / ".env").read_text(encoding="utf-8"))
    result = Stack(
        image=image,
        project_dir=project_dir,
        variables=variables,
        database_url=image_database,
        web_base=f"http://127.0.0.1:{web_port}",
        web_port=web_port,
        https_port=https_port,
        http_port=http_port,
    )
    logs = tmp_path_factory.mktemp("logs")
    # CI's services instead of the compose network's "postgres" and "redis"; gunicorn on a port
    # and with a control socket of its own (another gunicorn on this host keeps its own).
    ci_services = {
        "DATABASE_URL": image_database,
        "CELERY_BROKER_URL": os.environ["CELERY_BROKER_URL"],
    }
    for name in APP_SERVICES:
        container = image.container(name)
        result.containers[name] = container
        env = service_environment(container, SERVICES[name], project_dir, variables)
        env.update(ci_services)
        if name == "web":
            # A small log-in rate, so the throttle test hashes few wrong passwords (Argon2).
            env["THROTTLE_LOGIN"] = "4/min"
            env["GUNICORN_BIND"] = f"127.0.0.1:{web_port}"
            env["GUNICORN_CMD_ARGS"] = f"--control-socket {container.mapping['/tmp']}/gunicorn.ctl"
        result.environments[name] = env

    def start(name: str) -> Process:
        process = Process(
            name,
            service_command(SERVICES[name], variables),
            result.environments[name],
            result.containers[name].app_dir,
            logs,
        )
        result.processes[name] = process
        return process

    try:
        started = time.monotonic()
        migrate = start("migrate")
        result.exit_codes["migrate"] = migrate.popen.wait(timeout=300)
        result.seconds["migrate"] = time.monotonic() - started
        assert result.exit_codes["migrate"] == 0, migrate.tail(60)
        # As if beat had been down for a day: the exam-expiry schedule is due at once.
        result.sql(
            "UPDATE django_celery_beat_periodictask SET last_run_at = now() - interval '1 day'"
            " WHERE task = %s",
            (FINALIZE_TASK,),
        )
        started = time.monotonic()
        web, worker, beat = start("web"), start("worker"), start("beat")
        web.wait_for(lambda text: "Booting worker" in text, timeout=WAIT, what="worker boot")
        deadline = time.monotonic() + WAIT
        while result.web("/health/live/").status != 200:
            assert time.monotonic() < deadline, web.tail()
            time.sleep(0.2)
        worker.wait_for(lambda text: " ready." in text, timeout=WAIT, what="'ready.'")
        beat.wait_for(lambda text: "beat: Starting" in text, timeout=WAIT, what="start")
        result.seconds["start"] = time.monotonic() - started
        yield result
    finally:
        for process in result.processes.values():
            process.stop()


# --- the image ----------------------------------------------------------------------------------


def test_the_image_holds_its_static_files_collected_at_build_time(image):
    manifest = image.app_dir / "staticfiles" / "staticfiles.json"
    assert manifest.is_file(), "no staticfiles manifest in the image: collectstatic at build?"
    paths = json.loads(manifest.read_text())["paths"]
    assert "web/favicon.svg" in paths and "admin/css/base.css" in paths
    assert (image.app_dir / "staticfiles" / paths["web/favicon.svg"]).is_file()
    # Nothing of the developer's machine is baked in.
    for name in (".env", ".venv", ".git", "db.sqlite3", "var", "test-artifacts"):
        assert not (image.app_dir / name).exists(), name
    assert not list(image.app_dir.rglob("__pycache__"))
    # Only creating the runtime user and the system packages are skipped
    # (image_build.RUN_ADAPTATIONS), and it runs as that user.
    assert all(
        step.startswith(("useradd", "apt-get", "rm -rf /var/lib/apt/lists"))
        for step in image.skipped
    ), image.skipped
    assert image.user and image.user != "root"


def test_migrate_completes_on_an_empty_database(stack):
    assert stack.exit_codes["migrate"] == 0
    log = stack.processes["migrate"].text()
    assert "Imported (history #" in log
    assert stack.sql("SELECT count(*) FROM courses_module")[0][0] >= 1
    schedules = {row[0] for row in stack.sql("SELECT task FROM django_celery_beat_periodictask")}
    assert {FINALIZE_TASK, "reviews.tasks.reminders_plan"} <= schedules


@pytest.mark.parametrize("path", ["/", "/admin/login/", "/api/docs/"])
def test_web_serves_pages_with_their_static_files(stack, path):
    page = stack.web(path)
    assert page.status == 200, (page.status, page.text[:500], stack.processes["web"].tail())
    assets = linked_assets(f"https://{DOMAIN}:{stack.web_port}{path}", page.text)
    assert assets, f"{path} links no stylesheet, icon or script"
    hashed = 0
    for url in assets:
        parsed = urllib.parse.urlsplit(url)
        assert parsed.netloc == f"{DOMAIN}:{stack.web_port}", url  # served here, no CDN
        answer = stack.web(parsed.path + (f"?{parsed.query}" if parsed.query else ""))
        assert answer.status == 200 and answer.body, (url, answer.status)
        if parsed.path.startswith("/static/"):
            # The manifest's names: content-hashed, cached for a year by whitenoise.
            assert re.search(r"\.[0-9a-f]{12}\.\w+$", parsed.path), url
            assert "max-age=315360000" in answer.headers.get("Cache-Control", ""), url
            hashed += 1
    assert hashed, f"{path}: no static file from the manifest"


def test_health_endpoints_answer_plain_http_to_a_loopback_host(stack):
    """The container's own check: plain HTTP, ``Host: 127.0.0.1``. Pages refuse both."""
    plain = {"Host": f"127.0.0.1:{stack.web_port}", "X-Forwarded-Proto": ""}
    live = stack.web("/health/live/", **plain)
    assert (live.status, json.loads(live.body)) == (200, {"status": "live"})
    ready = stack.web("/health/ready/", **plain)
    assert ready.status == 200, ready.text
    assert json.loads(ready.body)["checks"] == {"database": "ok", "broker": "ok"}
    assert "Set-Cookie" not in ready.headers
    assert stack.web("/", **plain).status == 400  # ALLOWED_HOSTS still guards the pages
    redirect = stack.web("/", **{"X-Forwarded-Proto": ""})
    assert redirect.status == 301
    assert redirect.headers["Location"] == f"https://{DOMAIN}:{stack.web_port}/"


def _worker_task_ids(stack: Stack, verb: str) -> set[str]:
    pattern = rf"Task {re.escape(FINALIZE_TASK)}\[([0-9a-f-]+)\] {verb}"
    return set(re.findall(pattern, stack.processes["worker"].text()))


def test_worker_runs_a_task_sent_through_the_broker(stack):
    sent = stack.run_in("web", ["celery", "-A", "lms", "call", FINALIZE_TASK])
    assert sent.returncode == 0, sent.stderr[-2000:]
    task_id = sent.stdout.strip().splitlines()[-1]
    stack.called_task_ids.add(task_id)
    wait_until(
        lambda: task_id in _worker_task_ids(stack, "succeeded"),
        timeout=60,
        what=f"worker runs {task_id}",
        logs=[stack.processes["worker"]],
    )


def test_beat_sends_the_due_schedule_and_the_worker_runs_it(stack):
    beat = stack.processes["beat"]
    beat.wait_for(
        lambda text: (
            f"Sending due task quizzes: finalize expired exam attempts ({FINALIZE_TASK})" in text
        ),
        timeout=60,
        what="due task sent",
    )
    wait_until(
        lambda: _worker_task_ids(stack, "succeeded") - stack.called_task_ids,
        timeout=60,
        what="worker runs the task beat sent",
        logs=[beat, stack.processes["worker"]],
    )


def _healthcheck_command(service: str, stack: Stack) -> list[str]:
    test = SERVICES[service]["healthcheck"]["test"]
    kind, *rest = test
    if kind == "CMD-SHELL":
        return ["sh", "-c", compose_interpolate(rest[0], stack.variables)]
    assert kind == "CMD", test
    return [compose_interpolate(word, stack.variables) for word in rest]


@pytest.mark.parametrize("service", ["web", "worker", "beat"])
def test_compose_healthchecks_pass_against_the_running_services(stack, service):
    # Docker sets HOSTNAME to the container's host name, the worker's node name (celery@%h).
    result = stack.run_in(
        service, _healthcheck_command(service, stack), HOSTNAME=socket.gethostname()
    )
    assert result.returncode == 0, result.stdout + result.stderr
    if service == "beat":  # its heartbeat keeps moving: the loop ticks
        heartbeat = Path(stack.environments["beat"]["LERNPFAD_BEAT_HEARTBEAT_FILE"])
        first = heartbeat.stat().st_mtime
        wait_until(lambda: heartbeat.stat().st_mtime > first, timeout=15, what="a second tick")


def test_a_healthcheck_fails_when_its_service_cannot_work(stack):
    """The checks can tell: web's readiness with the broker unreachable, beat without its file."""
    web_env = {"GUNICORN_BIND": stack.environments["web"]["GUNICORN_BIND"]}
    down = stack.run_in("web", _healthcheck_command("web", stack), GUNICORN_BIND="127.0.0.1:1")
    assert down.returncode == 1 and "unhealthy" in down.stderr, down.stderr
    assert stack.run_in("web", _healthcheck_command("web", stack), **web_env).returncode == 0
    missing = stack.run_in(
        "beat",
        _healthcheck_command("beat", stack),
        LERNPFAD_BEAT_HEARTBEAT_FILE="/nonexistent/heartbeat",
    )
    assert missing.returncode == 1, missing.stderr


def test_the_services_write_nothing_into_the_application_folder(stack):
    """So the code can stay root-owned and read-only for the runtime user (Dockerfile)."""

    def listing(folder: Path) -> set[str]:
        return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}

    image_files = listing(stack.image.app_dir)
    for name, container in stack.containers.items():
        assert listing(container.app_dir) == image_files, name


# --- behind the proxy ---------------------------------------------------------------------------


@dataclass
class Proxy:
    process: Process
    base: str
    http_base: str
    cafile: Path


@pytest.fixture(scope="module")
def proxy(stack, tmp_path_factory) -> Proxy:
    """Caddy with the shipped Caddyfile in front of the stack's gunicorn. Only what binds and
    trusts differs from production: the site address (LERNPFAD_DOMAIN) is localhost on a port
    in 18400-18499, certificates come from Caddy's local CA (no Let's Encrypt from CI),
    the admin endpoint is off, and the upstream is the test's gunicorn instead of web:8000."""
    binary = shutil.which("caddy")
    if binary is None:
        if REQUIRE_SERVICES:
            pytest.fail("caddy is not installed (.ci/run installs it)", pytrace=False)
        pytest.skip("needs caddy (apt-get install caddy)")
    folder = tmp_path_factory.mktemp("caddy")
    caddyfile = (CONTEXT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
    assert caddyfile.count("web:8000") == 1
    caddyfile = caddyfile.replace("web:8000", f"127.0.0.1:{stack.web_port}")
    options = (
        f"admin off\n\tlocal_certs\n\tskip_install_trust\n"
        f"\thttp_port {stack.http_port}\n\thttps_port {stack.https_port}\n"
    )
    assert not caddyfile.lstrip().startswith("{"), "the Caddyfile has global options: merge"
    (folder / "Caddyfile").write_text("{\n\t" + options + "}\n" + caddyfile, encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),  # the caddy-data volume
        "XDG_CONFIG_HOME": str(folder / "config"),
        "LERNPFAD_DOMAIN": stack.variables["LERNPFAD_DOMAIN"],
    }
    process = Process(
        "caddy",
        [binary, "run", "--config", str(folder / "Caddyfile"), "--adapter", "caddyfile"],
        env,
        folder,
        folder,
    )
    cafile = folder / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    try:
        result = Proxy(
            process,
            f"https://{DOMAIN}:{stack.https_port}",
            f"http://{DOMAIN}:{stack.http_port}",
            cafile,
        )
        wait_until(lambda: cafile.is_file(), timeout=30, what="Caddy's local CA", logs=[process])
        wait_until(
            lambda: _proxy_fetch(result, "/health/live/").status == 200,
            timeout=30,
            what="Caddy serving",
            logs=[process, stack.processes["web"]],
        )
        yield result
    finally:
        process.stop()


def _proxy_fetch(proxy: Proxy, path: str, *, opener=None, **kwargs) -> Answer:
    try:
        return fetch(proxy.base + path, opener=opener or http_opener(cafile=proxy.cafile), **kwargs)
    except (urllib.error.URLError, ConnectionError, ssl.SSLError):
        return Answer(0, {}, b"")


def login_budgets_clear(stack: Stack) -> None:
    """Empty the log-in throttle's counts (the database cache production uses)."""
    stack.sql("DELETE FROM lernpfad_cache")


def test_through_the_proxy_pages_and_static_files_are_served_over_https(stack, proxy):
    for path in ("/", "/admin/login/", "/api/docs/"):
        page = _proxy_fetch(proxy, path)
        assert page.status == 200, (path, page.status, page.text[:300])
        assert page.headers["Strict-Transport-Security"].startswith("max-age=31536000")
        for url in linked_assets(proxy.base + path, page.text):
            assert url.startswith(proxy.base), url
            assert _proxy_fetch(proxy, url.removeprefix(proxy.base)).status == 200, url
    # Caddy's own redirect (to the standard port 443; here only the site is elsewhere).
    redirect = fetch(proxy.http_base + "/login/?next=/")
    assert redirect.status in (301, 308)
    location = urllib.parse.urlsplit(redirect.headers["Location"])
    assert (location.scheme, location.hostname) == ("https", DOMAIN)
    assert (location.path, location.query) == ("/login/", "next=/")


def test_a_client_written_forwarded_for_opens_no_new_throttle_budget(stack, proxy):
    """DJANGO_NUM_PROXIES=1 behind Caddy: the address counted is the one Caddy wrote. Straight
    to gunicorn (no proxy), the same forged header would open a new budget each time."""
    limit = int(stack.environments["web"]["THROTTLE_LOGIN"].split("/")[0])
    # A rated endpoint (log-ins are counted by django-axes per account instead): the reset mail.
    body = json.dumps({"email": "nobody@example.org"})

    def attempts_until_throttled(send) -> int:
        login_budgets_clear(stack)
        for attempt in range(1, limit + 3):
            answer = send(attempt)
            if answer.status == 429:
                return attempt
            assert answer.status == 202, (answer.status, answer.text[:300])
        return limit + 3

    headers = {"Content-Type": "application/json"}
    through_proxy = attempts_until_throttled(
        lambda i: _proxy_fetch(
            proxy,
            "/api/v1/auth/password-reset/",
            data=body.encode(),
            headers={**headers, "X-Forwarded-For": f"203.0.113.{i}"},
        )
    )
    assert through_proxy == limit + 1
    direct = attempts_until_throttled(
        lambda i: fetch(
            stack.web_base + "/api/v1/auth/password-reset/",
            data=body.encode(),
            headers={
                **headers,
                "Host": f"{DOMAIN}:{stack.web_port}",
                "X-Forwarded-Proto": "https",
                "X-Forwarded-For": f"203.0.113.{i}",
            },
        )
    )
    assert direct == limit + 3, "control: straight to gunicorn the forged header should count"
    login_budgets_clear(stack)


def test_an_admin_created_as_the_readme_says_logs_in_through_the_proxy(stack, proxy):
    login_budgets_clear(stack)
    password = secrets.token_urlsafe(24)
    created = stack.run_in(
        "web",
        [
            "python",
            "manage.py",
            "createsuperuser",
            "--noinput",
            "--username",
            "operator",
            "--email",
            "operator@example.org",
        ],
        DJANGO_SUPERUSER_PASSWORD=password,
    )
    assert created.returncode == 0, created.stderr
    cookies = http.cookiejar.CookieJar()
    opener = http_opener(cafile=proxy.cafile, cookies=cookies)
    form = _proxy_fetch(proxy, "/admin/login/?next=/admin/", opener=opener)
    assert form.status == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
    assert all(cookie.secure for cookie in cookies), [c.name for c in cookies]
    fields = {
        "csrfmiddlewaretoken": token,
        "username": "operator",
        "password": password,
        "next": "/admin/",
    }
    logged_in = _proxy_fetch(
        proxy,
        "/admin/login/?next=/admin/",
        opener=opener,
        data=urllib.parse.urlencode(fields).encode(),
        headers={"Referer": f"{proxy.base}/admin/login/"},
    )
    assert logged_in.status == 302, logged_in.text[:500]
    assert logged_in.headers["Location"] == "/admin/"
    assert {cookie.name for cookie in cookies if cookie.secure} >= {"sessionid", "csrftoken"}
    admin = _proxy_fetch(proxy, "/admin/", opener=opener)
    assert admin.status == 200 and "/admin/logout/" in admin.text
