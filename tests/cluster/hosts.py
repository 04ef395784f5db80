"""Lernpfad as a small cluster of separate hosts on one machine (docs/operations/scaling.md).

Each host is a Linux network namespace (``ip netns``, iproute2) with one veth interface on a
bridge and its own address 10.231.S.N/24; no host has a default route, so traffic goes only
between the hosts (and the test process, which sits on the bridge at 10.231.S.1 as the clients'
side of the network: it drives HTTP, reads the SMTP sink and the database like an operator):

====== ==== =============================================================================
host    N    runs
====== ==== =============================================================================
db      2    PostgreSQL 15 (5432) and PgBouncer in transaction mode in front of it (6432)
redis   3    redis-server: the broker (database 0) and the shared cache (database 1)
web-a   4    gunicorn, production settings
web-b   5    gunicorn, production settings
worker-a 6   celery worker
worker-b 7   celery worker
beat    8    celery beat with the project's scheduler (lms.beat)
proxy   9    Caddy with the shipped deploy/Caddyfile, both web hosts as upstreams
====== ==== =============================================================================

The PgBouncer on this machine kind is 1.18: no prepared statements in transaction mode, so the
application runs with ``DATABASE_PREPARED_STATEMENTS=false`` as docs/operations/scaling.md says.

Every process is started by this module with ``ip netns exec`` (which execs, so the PID is the
process's own) in a session of its own, and stopped by that PID's process group; at the end every
PID left in the namespaces is killed and the namespaces, the bridge and the data folder removed,
also when a test failed. Nothing here touches another process or namespace.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PG_BIN = Path("/usr/lib/postgresql/15/bin")
PG_USER = "postgres"  # PostgreSQL and PgBouncer refuse to run as root
HOSTS = {
    "db": 2,
    "redis": 3,
    "web-a": 4,
    "web-b": 5,
    "worker-a": 6,
    "worker-b": 7,
    "beat": 8,
    "proxy": 9,
}
WEB_HOSTS = ("web-a", "web-b")
WEB_PORT = 8000
PG_PORT = 5432
PGBOUNCER_PORT = 6432
REDIS_PORT = 6379
DATABASE = "lernpfad"
START_TIMEOUT = 90  # seconds; two shared cores start eight hosts
SECRET = "cluster-" + os.urandom(24).hex()


def requirements_missing() -> list[str]:
    """What this machine lacks to run the cluster (empty: it can)."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (ip netns)")
    for tool in ("ip", "caddy", "pgbouncer", "redis-server", "setpriv"):
        if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists():
            missing.append(tool)
    if not (PG_BIN / "postgres").exists():
        missing.append(str(PG_BIN / "postgres"))
    try:
        import pwd

        pwd.getpwnam(PG_USER)
    except KeyError:
        missing.append(f"system user {PG_USER}")
    return missing


def _run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(args, check=check, capture_output=True, text=True, timeout=60)


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_subnet() -> int:
    """A /24 of 10.231.0.0/16 no interface of this machine uses (parallel runs get others)."""
    used = _run("ip", "-o", "-4", "addr", "show").stdout
    candidates = list(range(100, 250))
    random.shuffle(candidates)
    for third in candidates:
        if f"10.231.{third}." not in used:
            return third
    raise RuntimeError("no free /24 in 10.231.0.0/16")


def _group_running(pgid: int) -> bool:
    """Whether a process of group ``pgid`` has not exited yet (a zombie has: its files are
    closed, only its parent's wait is missing)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
        state, _ppid, pgrp = text[text.rindex(")") + 2 :].split(" ", 3)[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            return True
    return False


@dataclass
class Process:
    """One process on a host, its output in a log file."""

    host: Host
    name: str
    popen: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            text = []
        return f"--- {self.host.name}: {self.name} (pid {self.pid}) ---\n" + "\n".join(
            text[-lines:]
        )

    def send(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signum)

    def kill(self) -> None:
        """SIGKILL to the whole process group: the host's power cut, no graceful shutdown.

        Returns once every process of the group has exited, not only the leader: gunicorn's
        workers share its listening socket, and the kernel tears a process's memory down before
        it closes its files, so the port still accepts connections for some milliseconds after
        the master is reaped (a connection accepted then is reset when the last worker exits).
        """
        self.send(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _group_running(self.pid) and time.monotonic() < deadline:
            time.sleep(0.001)

    def stop(self, timeout: float = 20, signum: int = signal.SIGTERM) -> None:
        """SIGTERM (as ``docker stop``), then SIGKILL if it lingers."""
        if self.alive():
            self.send(signum)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        # Children that outlived their parent (same process group).
        self.send(signal.SIGKILL)


@dataclass
class Host:
    name: str
    namespace: str
    address: str
    cluster: Cluster
    processes: list[Process] = field(default_factory=list)

    def _argv(self, argv: list[str], user: str | None) -> list[str]:
        prefix = ["ip", "netns", "exec", self.namespace]
        if user:
            prefix += ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups"]
        return prefix + argv

    def spawn(
        self, name: str, argv: list[str], *, env: dict[str, str], user: str | None = None
    ) -> Process:
        log = self.cluster.folder / "logs" / f"{self.name}-{name}-{len(self.processes)}.log"
        with log.open("wb") as out:
            popen = subprocess.Popen(
                self._argv(argv, user),
                env=env,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        process = Process(self, name, popen, log)
        self.processes.append(process)
        return process

    def run(
        self, argv: list[str], *, env: dict[str, str], user: str | None = None, timeout=300
    ) -> subprocess.CompletedProcess:
        """A command on this host, to completion."""
        return subprocess.run(
            self._argv(argv, user),
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def process(self, name: str) -> Process:
        """The latest process of that name on this host."""
        return [p for p in self.processes if p.name == name][-1]


def _wait(predicate, *, what: str, timeout: float = START_TIMEOUT, logs=()) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        for process in logs:
            if not process.alive():
                raise AssertionError(f"{what}: the process exited\n{process.tail()}")
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {timeout} s\n" + "\n".join(p.tail() for p in logs))


def port_open(address: str, port: int, timeout: float = 1) -> bool:
    try:
        with socket.create_connection((address, port), timeout):
            return True
    except OSError:
        return False


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    cookies: tuple[str, ...] = ()  # the Set-Cookie headers

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self):
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Cluster:
    """The hosts, their processes and the ways a test reaches them."""

    def __init__(self, *, smtp_port: int, environment: dict[str, str] | None = None) -> None:
        self.run_id = "lpc" + os.urandom(2).hex()[:3]
        self.subnet = _free_subnet()
        base = os.environ.get("LERNPFAD_CLUSTER_TMP") or None
        if base:
            Path(base).mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f"lernpfad-{self.run_id}-", dir=base))
        self.folder.chmod(0o755)
        (self.folder / "logs").mkdir()
        self.bridge = f"{self.run_id}-br"
        self.client_address = self._ip(1)
        self.smtp_port = smtp_port
        self.extra_environment = environment or {}
        self.hosts: dict[str, Host] = {}
        self._network_up = False

    def _ip(self, n: int) -> str:
        return f"10.231.{self.subnet}.{n}"

    # --- network ----------------------------------------------------------------------------

    def network_create(self) -> None:
        self._network_up = True
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        _run("ip", "addr", "add", f"{self.client_address}/24", "dev", self.bridge)
        _run("ip", "link", "set", self.bridge, "up")
        for name, n in HOSTS.items():
            namespace = f"{self.run_id}-{name}"
            _run("ip", "netns", "add", namespace)
            # The host's end keeps the namespace's name (at most 15 characters); inside it is eth0.
            _run("ip", "link", "add", namespace, "type", "veth", "peer", "eth0", "netns", namespace)
            _run("ip", "link", "set", namespace, "master", self.bridge, "up")
            _run("ip", "-n", namespace, "link", "set", "lo", "up")
            _run("ip", "-n", namespace, "addr", "add", f"{self._ip(n)}/24", "dev", "eth0")
            _run("ip", "-n", namespace, "link", "set", "eth0", "up")
            self.hosts[name] = Host(name, namespace, self._ip(n), self)

    def address(self, host: str) -> str:
        return self.hosts[host].address

    # --- environment of the application hosts ----------------------------------------------

    def database_url(self, *, direct: bool = False) -> str:
        port = PG_PORT if direct else PGBOUNCER_PORT
        return f"postgres://{PG_USER}@{self.address('db')}:{port}/{DATABASE}"

    def app_env(self, host: str, **extra: str) -> dict[str, str]:
        redis = self.address("redis")
        env = {
            "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "HOME": str(self.folder),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "lms.settings.production",
            "DJANGO_SECRET_KEY": SECRET,
            "DJANGO_ALLOWED_HOSTS": ",".join(
                [self.address("proxy"), *(self.address(h) for h in WEB_HOSTS)]
            ),
            "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://{self.address('proxy')}",
            "LERNPFAD_SITE_URL": f"https://{self.address('proxy')}",
            "DJANGO_NUM_PROXIES": "1",
            "DATABASE_URL": self.database_url(),
            # PgBouncer 1.18 in transaction mode cannot keep prepared statements
            # (docs/operations/scaling.md).
            "DATABASE_PREPARED_STATEMENTS": "false",
            "CELERY_BROKER_URL": f"redis://{redis}:{REDIS_PORT}/0",
            "CACHE_URL": f"redis://{redis}:{REDIS_PORT}/1",
            "EMAIL_URL": f"smtp://{self.client_address}:{self.smtp_port}",
            "DEFAULT_FROM_EMAIL": "Lernpfad <lernpfad@cluster.test>",
            "CELERY_SKIP_CHECKS": "1",
            "LERNPFAD_BEAT_HEARTBEAT_FILE": str(self.folder / f"{host}-heartbeat"),
            # Each web host binds its own address, its gunicorn no control socket.
            "GUNICORN_BIND": f"{self.address(host)}:{WEB_PORT}",
            "WEB_CONCURRENCY": "2",
            # Static files as the image has them (the Dockerfile's collectstatic): the manifest
            # the production storage reads, in the cluster's folder instead of the image.
            "LERNPFAD_STATIC_ROOT": str(self.folder / "static"),
        }
        return {**env, **self.extra_environment, **extra}

    # --- the hosts' services ----------------------------------------------------------------

    def db_start(self) -> None:
        db = self.hosts["db"]
        data = self.folder / "pgdata"
        data.mkdir()
        shutil.chown(data, PG_USER, PG_USER)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.folder)}
        result = db.run(
            [
                str(PG_BIN / "initdb"),
                "-D",
                str(data),
                "--auth=trust",
                "--username",
                PG_USER,
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            ],
            env=env,
            user=PG_USER,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write("host all all 10.231.0.0/16 trust\n")
        self.pg = db.spawn(
            "postgres",
            [
                str(PG_BIN / "postgres"),
                "-D",
                str(data),
                "-c",
                f"listen_addresses=127.0.0.1,{db.address}",
                "-c",
                f"port={PG_PORT}",
                "-c",
                f"unix_socket_directories={data}",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
                "-c",
                "shared_buffers=128MB",
            ],
            env=env,
            user=PG_USER,
        )
        _wait(lambda: port_open(db.address, PG_PORT), what="PostgreSQL", logs=[self.pg])
        _wait(
            lambda: (
                db.run(
                    [str(PG_BIN / "psql"), "-h", "127.0.0.1", "-U", PG_USER, "-c", "SELECT 1"],
                    env=env,
                ).returncode
                == 0
            ),
            what="PostgreSQL accepting",
            logs=[self.pg],
        )
        created = db.run(
            [str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-U", PG_USER, DATABASE], env=env
        )
        assert created.returncode == 0, created.stderr
        self._pgbouncer_config()
        self.pgbouncer_start()

    def _pgbouncer_config(self) -> None:
        folder = self.folder / "pgbouncer"
        folder.mkdir()
        (folder / "users.txt").write_text(f'"{PG_USER}" ""\n')
        (folder / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"{DATABASE} = host=127.0.0.1 port={PG_PORT} dbname={DATABASE}\n"
            "[pgbouncer]\n"
            f"listen_addr = {self.address('db')}\n"
            f"listen_port = {PGBOUNCER_PORT}\n"
            f"unix_socket_dir = {folder}\n"
            "auth_type = trust\n"
            f"auth_file = {folder / 'users.txt'}\n"
            "pool_mode = transaction\n"
            "max_client_conn = 1000\n"
            "default_pool_size = 20\n"
            "server_reset_query =\n"
            "ignore_startup_parameters = extra_float_digits,options\n"
        )
        shutil.chown(folder, PG_USER, PG_USER)

    def pgbouncer_start(self) -> Process:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.folder)}
        ini = str(self.folder / "pgbouncer" / "pgbouncer.ini")
        self.pgbouncer = self.hosts["db"].spawn(
            "pgbouncer", [_tool("pgbouncer"), ini], env=env, user=PG_USER
        )
        _wait(
            lambda: port_open(self.address("db"), PGBOUNCER_PORT),
            what="PgBouncer",
            logs=[self.pgbouncer],
        )
        return self.pgbouncer

    def redis_start(self) -> None:
        host = self.hosts["redis"]
        self.redis = host.spawn(
            "redis",
            [
                _tool("redis-server"),
                "--bind",
                host.address,
                "--port",
                str(REDIS_PORT),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
                "--dir",
                str(self.folder),
            ],
            env={"PATH": "/usr/bin:/bin"},
        )
        _wait(lambda: port_open(host.address, REDIS_PORT), what="Redis", logs=[self.redis])

    def manage(self, *args: str, host: str = "web-a", **env: str) -> subprocess.CompletedProcess:
        """``python manage.py …`` on an application host."""
        result = self.hosts[host].run(
            [sys.executable, "manage.py", *args], env=self.app_env(host, **env)
        )
        assert result.returncode == 0, f"manage.py {' '.join(args)}:\n{result.stderr[-3000:]}"
        return result

    def python(self, code: str, *, host: str = "web-a") -> str:
        """Python with Django set up (production settings) on an application host; its stdout."""
        script = "import django; django.setup()\n" + code
        result = self.hosts[host].run([sys.executable, "-c", script], env=self.app_env(host))
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def web_start(self, host: str) -> Process:
        web = self.hosts[host]
        process = web.spawn(
            "gunicorn",
            [str(BIN / "gunicorn"), "-c", "python:lms.gunicorn_conf", "lms.wsgi:application"],
            env=self.app_env(host),
        )
        _wait(
            lambda: self.direct(host, "/health/ready/").status == 200,
            what=f"gunicorn on {host}",
            logs=[process],
        )
        return process

    def worker_start(self, host: str) -> Process:
        process = self.hosts[host].spawn(
            "celery",
            [
                str(BIN / "celery"),
                "-A",
                "lms",
                "worker",
                "--loglevel",
                "info",
                "--concurrency",
                "1",
                "--hostname",
                f"celery@{host}",
                "--without-gossip",
                "--without-mingle",
            ],
            env=self.app_env(host),
        )
        _wait(
            lambda: "ready." in process.log.read_text(errors="replace"),
            what=f"celery worker on {host}",
            logs=[process],
        )
        return process

    def beat_start(self, host: str = "beat") -> Process:
        process = self.hosts[host].spawn(
            "beat",
            [
                str(BIN / "celery"),
                "-A",
                "lms",
                "beat",
                "--loglevel",
                "info",
                "--scheduler",
                "lms.beat:DatabaseSchedulerWithHeartbeat",
                "--pidfile",
                str(self.folder / f"{host}-{len(self.hosts[host].processes)}-beat.pid"),
            ],
            env=self.app_env(host),
        )
        heartbeat = Path(self.app_env(host)["LERNPFAD_BEAT_HEARTBEAT_FILE"])
        _wait(heartbeat.exists, what=f"celery beat on {host}", logs=[process])
        return process

    def proxy_start(self, upstreams: tuple[str, ...] = WEB_HOSTS) -> Process:
        """Caddy with the shipped Caddyfile. As in tests/lms/test_production_image.py only what
        binds and trusts differs from production: the site address is the proxy host's IP,
        certificates come from Caddy's local CA, the admin endpoint is off."""
        folder = self.folder / "caddy"
        folder.mkdir(exist_ok=True)
        caddyfile = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
        assert not caddyfile.lstrip().startswith("{"), "the Caddyfile has global options: merge"
        options = "admin off\n\tlocal_certs\n\tskip_install_trust\n"
        (folder / "Caddyfile").write_text("{\n\t" + options + "}\n" + caddyfile, encoding="utf-8")
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(folder),
            "XDG_DATA_HOME": str(folder / "data"),
            "XDG_CONFIG_HOME": str(folder / "config"),
            "LERNPFAD_DOMAIN": self.address("proxy"),
            "LERNPFAD_UPSTREAMS": " ".join(f"{self.address(h)}:{WEB_PORT}" for h in upstreams),
        }
        self.caddy = self.hosts["proxy"].spawn(
            "caddy",
            [
                _tool("caddy"),
                "run",
                "--config",
                str(folder / "Caddyfile"),
                "--adapter",
                "caddyfile",
            ],
            env=env,
        )
        self.cafile = folder / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        _wait(self.cafile.is_file, what="Caddy's local CA", logs=[self.caddy])
        _wait(
            lambda: self.get("/health/live/").status == 200, what="Caddy serving", logs=[self.caddy]
        )
        return self.caddy

    def services_start(self) -> None:
        """Every host's services, after network_create (and the test's SMTP sink)."""
        self.db_start()
        self.redis_start()
        self.manage("collectstatic", "--noinput")
        # Once per cluster, as the compose "migrate" service: through PgBouncer like the web.
        self.manage("migrate", "--noinput")
        self.manage("import_course")
        self.manage("generate_exam_items")
        for host in WEB_HOSTS:
            self.web_start(host)
        for host in ("worker-a", "worker-b"):
            self.worker_start(host)
        self.beat_start()
        self.proxy_start()

    def stop(self) -> None:
        """Every process by its PID, then whatever is left in the namespaces, then the network
        and the folder. Safe to call twice and after a failed start."""
        # Clients first, the database last (PostgreSQL's fast shutdown: SIGINT).
        for host in reversed(list(self.hosts.values())):
            for process in reversed(host.processes):
                fast = signal.SIGINT if process.name == "postgres" else signal.SIGTERM
                process.stop(timeout=10, signum=fast)
        for host in self.hosts.values():
            left = _run("ip", "netns", "pids", host.namespace, check=False).stdout.split()
            for pid in left:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
        if self._network_up:
            for host in self.hosts.values():
                _run("ip", "link", "del", host.namespace, check=False)
                _run("ip", "netns", "del", host.namespace, check=False)
            # Namespaces made before a failure but not yet in self.hosts.
            for name in HOSTS:
                namespace = f"{self.run_id}-{name}"
                if namespace not in {h.namespace for h in self.hosts.values()}:
                    _run("ip", "link", "del", namespace, check=False)
                    _run("ip", "netns", "del", namespace, check=False)
            _run("ip", "link", "del", self.bridge, check=False)
            self._network_up = False
        if os.environ.get("LERNPFAD_CLUSTER_KEEP") != "1":
            shutil.rmtree(self.folder, ignore_errors=True)

    def logs(self) -> str:
        return "\n".join(p.tail() for h in self.hosts.values() for p in h.processes)

    # --- HTTP -------------------------------------------------------------------------------

    @property
    def base(self) -> str:
        return f"https://{self.address('proxy')}"

    def opener(self, cookies=None) -> urllib.request.OpenerDirector:
        handlers: list = [_NoRedirect(), urllib.request.ProxyHandler({})]
        if getattr(self, "cafile", None) and self.cafile.exists():
            context = ssl.create_default_context(cafile=str(self.cafile))
            handlers.append(urllib.request.HTTPSHandler(context=context))
        if cookies is not None:
            handlers.append(urllib.request.HTTPCookieProcessor(cookies))
        return urllib.request.build_opener(*handlers)

    def _fetch(self, url: str, *, opener, headers, data, method=None) -> Answer:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with opener.open(request, timeout=30) as response:
                return Answer(
                    response.status,
                    dict(response.headers),
                    response.read(),
                    tuple(response.headers.get_all("Set-Cookie") or ()),
                )
        except urllib.error.HTTPError as exc:
            return Answer(
                exc.code,
                dict(exc.headers),
                exc.read(),
                tuple(exc.headers.get_all("Set-Cookie") or ()),
            )
        except (urllib.error.URLError, OSError):
            return Answer(0, {}, b"")

    def get(self, path: str, *, headers=None, opener=None) -> Answer:
        """Through the proxy (HTTPS, Caddy's local CA)."""
        return self._fetch(
            self.base + path, opener=opener or self.opener(), headers=headers or {}, data=None
        )

    def direct(
        self,
        host: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        data: bytes | None = None,
        method: str | None = None,
        client: str = "203.0.113.10",
    ) -> Answer:
        """Straight to one web host, as the proxy would send it: Host of the site, the client's
        address appended to X-Forwarded-For, X-Forwarded-Proto https."""
        all_headers = {
            "Host": self.address("proxy"),
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": client,
            **(headers or {}),
        }
        url = f"http://{self.address(host)}:{WEB_PORT}{path}"
        return self._fetch(url, opener=self.opener(), headers=all_headers, data=data, method=method)
