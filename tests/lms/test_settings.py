"""Settings: production refuses to start without its secrets; the error shape is uniform."""

import json
import os
import subprocess
import sys

from django.conf import settings


def _run_production_check(env_overrides: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.pop("CELERY_BROKER_URL", None)
    env.update(env_overrides)
    env["DJANGO_SETTINGS_MODULE"] = "lms.settings.production"
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_fail_clearly_without_secrets():
    result = _run_production_check({})
    assert result.returncode != 0
    assert "need these environment variables: DJANGO_SECRET_KEY, DATABASE_URL" in result.stderr


def test_production_settings_pass_the_deploy_check():
    result = _run_production_check(
        {
            "DJANGO_SECRET_KEY": "x" * 30 + "-production-test-key-with-entropy-1234567890",
            "DATABASE_URL": "sqlite:////tmp/lernpfad-deploy-check.sqlite3",
            "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
            "DJANGO_ALLOWED_HOSTS": "lernpfad.example.org",
        }
    )
    assert result.returncode == 0, result.stderr
    deploy = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "check",
            "--deploy",
            "--fail-level",
            "WARNING",
        ],
        cwd=settings.BASE_DIR,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
            "DJANGO_SETTINGS_MODULE": "lms.settings.production",
            "DJANGO_SECRET_KEY": "x" * 30 + "-production-test-key-with-entropy-1234567890",
            "DATABASE_URL": "sqlite:////tmp/lernpfad-deploy-check.sqlite3",
            "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
            "DJANGO_ALLOWED_HOSTS": "lernpfad.example.org",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert deploy.returncode == 0, deploy.stdout + deploy.stderr


_DATABASE_PROBE = """
import json
from django.conf import settings
from django.db import connection
options = settings.DATABASES["default"].get("OPTIONS", {})
pragmas = {}
if connection.vendor == "sqlite":
    with connection.cursor() as cursor:
        for pragma in ("journal_mode", "synchronous", "busy_timeout"):
            pragmas[pragma] = cursor.execute(f"PRAGMA {pragma}").fetchone()[0]
print(json.dumps({"options": sorted(options), "pragmas": pragmas,
                  "transaction_mode": getattr(connection, "transaction_mode", None)}))
"""


def _database_probe(database_url: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DJANGO_SETTINGS_MODULE="lms.settings.dev", DATABASE_URL=database_url)
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{_DATABASE_PROBE}"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_sqlite_default_lets_concurrent_writers_wait_for_each_other(tmp_path):
    """make run's SQLite: WAL, IMMEDIATE transactions, a busy timeout (tests/lms/test_runstack.py
    shows what they are for)."""
    probe = _database_probe(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert probe["transaction_mode"] == "IMMEDIATE"
    # journal_mode "wal"; synchronous 1 is NORMAL; busy_timeout in milliseconds.
    assert probe["pragmas"] == {"journal_mode": "wal", "synchronous": 1, "busy_timeout": 20000}


def test_the_sqlite_options_stay_off_postgresql():
    probe = _database_probe("postgres://nobody@127.0.0.1:1/never_connected")
    assert probe["options"] == ["prepare_threshold", "server_side_binding"]
