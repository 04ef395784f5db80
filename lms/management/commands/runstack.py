"""manage.py runstack: ``make run``. Without DATABASE_URL it starts the embedded PostgreSQL with its
data in var/postgres (lms/embedded_db.py), then brings the demo up to date (migrations, course,
exam items, demo accounts) and runs web server, Celery worker and beat together.

A small supervisor. Each child runs in a process group of its own, so signals reach the children
only through runstack: SIGINT (Ctrl-C), SIGTERM (``kill``, a service manager, a CI timeout) and
SIGHUP (the terminal closed) are passed on to each child, runstack waits up to STOP_TIMEOUT
seconds for them, kills what is left of each group (a worker's pool too) and exits. When one
child exits on its own, the others are stopped the same way and runstack fails. The embedded
PostgreSQL is stopped last.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from lms.embedded_db import EmbeddedPostgres

STOP_TIMEOUT = 10.0  # seconds the children get for a clean stop (a worker finishes its task)
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# The demo, brought up to date before the stack starts; each step leaves what is there alone.
PREPARE = (("migrate", "--noinput"), ("import_course",), ("generate_exam_items",), ("demo_setup",))


class Command(BaseCommand):
    help = "Run PostgreSQL (unless DATABASE_URL is set), the demo, web, worker and beat together."

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000")

    def handle(self, *args, addr, **options):
        var_dir = settings.LERNPFAD_VAR_DIR
        (var_dir / "celery-broker" / "processed").mkdir(parents=True, exist_ok=True)
        python = sys.executable
        commands = {
            "web": [python, "manage.py", "runserver", addr, "--noreload"],
            "worker": [python, "-m", "celery", "-A", "lms", "worker", "-l", "info", "-c", "2"],
            "beat": [
                python, "-m", "celery", "-A", "lms", "beat", "-l", "info",
                "--schedule", str(var_dir / "celerybeat-schedule"),
            ],
        }  # fmt: skip
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ["DJANGO_SETTINGS_MODULE"]}

        received: list[int] = []

        def remember(signum, _frame):
            received.append(signum)

        # Installed before the first child starts, so a signal during start-up is not lost.
        previous = {signum: signal.signal(signum, remember) for signum in FORWARDED_SIGNALS}
        database = (
            None if os.environ.get("DATABASE_URL") else EmbeddedPostgres(var_dir / "postgres")
        )
        processes: dict[str, subprocess.Popen] = {}
        exited: list[str] = []
        try:
            if database:
                env["DATABASE_URL"] = database.start()
                # The settings took var/postgres's port before this server had one.
                settings.DATABASES["default"]["PORT"] = database.port
                self.stdout.write(f"PostgreSQL in {database.folder} on port {database.port}")
            for command in PREPARE:
                if received:
                    break
                call_command(*command)
            connections.close_all()
            if getattr(settings, "EMAIL_FILE_PATH", None):
                # Without a mail server the sign-up's confirmation link is read here.
                self.stdout.write(
                    f"Mail goes to {settings.EMAIL_FILE_PATH}; read it at http://{addr}/dev/outbox/"
                )
            for name, command in commands.items():
                if received:
                    break
                processes[name] = subprocess.Popen(
                    command, cwd=settings.BASE_DIR, env=env, start_new_session=True
                )
            self.stdout.write(
                f"Lernpfad runs on http://{addr}/ (Ctrl-C stops web, worker and beat)"
            )
            while not received and not exited:
                time.sleep(0.2)
                exited = [
                    f"{name} (exit code {process.returncode})"
                    for name, process in processes.items()
                    if process.poll() is not None
                ]
        finally:
            _stop(processes.values())
            if database:
                database.stop()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if exited and not received:
            raise CommandError(f"stopped because a process exited: {', '.join(exited)}")


def _stop(processes) -> None:
    """SIGTERM to each child (a Celery worker then stops its pool itself), up to STOP_TIMEOUT
    seconds for all of them together, then SIGKILL to whatever is left of each process group."""
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + STOP_TIMEOUT
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
    for process in processes:
        # The group outlives its leader while any member lives, so its id is not reused yet;
        # an empty group answers ProcessLookupError.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
