"""manage.py runstack: web server, Celery worker and beat together, for local use.

Stops all three when one of them exits or on Ctrl-C.
"""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the development web server, a Celery worker and Celery beat together."

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000")

    def handle(self, *args, addr, **options):
        (settings.LERNPFAD_VAR_DIR / "celery-broker" / "processed").mkdir(
            parents=True, exist_ok=True
        )
        python = sys.executable
        commands = {
            "web": [python, "manage.py", "runserver", addr, "--noreload"],
            "worker": [python, "-m", "celery", "-A", "lms", "worker", "-l", "info", "-c", "2"],
            "beat": [
                python, "-m", "celery", "-A", "lms", "beat", "-l", "info",
                "--schedule", str(settings.LERNPFAD_VAR_DIR / "celerybeat-schedule"),
            ],
        }  # fmt: skip
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ["DJANGO_SETTINGS_MODULE"]}
        processes = {
            name: subprocess.Popen(cmd, cwd=settings.BASE_DIR, env=env)
            for name, cmd in commands.items()
        }
        self.stdout.write(f"Lernpfad runs on http://{addr}/ (Ctrl-C stops web, worker and beat)")
        try:
            while all(p.poll() is None for p in processes.values()):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in processes.values():
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
