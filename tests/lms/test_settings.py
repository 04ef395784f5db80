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
            "DATABASE_URL": "postgres://nobody@127.0.0.1:1/never_connected",
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
            "DATABASE_URL": "postgres://nobody@127.0.0.1:1/never_connected",
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
database = settings.DATABASES["default"]
print(json.dumps({key: database[key] for key in ("ENGINE", "HOST", "PORT", "NAME")}
                 | {"options": sorted(database.get("OPTIONS", {}))}))
"""


def _database_probe(**env_overrides: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DJANGO_SETTINGS_MODULE="lms.settings.dev", **env_overrides)
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


def test_without_database_url_the_settings_use_the_embedded_server_in_var(tmp_path):
    """make run's server (lms/embedded_db.py) wrote its port to postmaster.pid's fourth line."""
    data = tmp_path / "postgres" / "data"
    data.mkdir(parents=True)
    (data / "postmaster.pid").write_text(f"4242\n{data}\n1764000000\n54329\n\n127.0.0.1\n")
    probe = _database_probe(LERNPFAD_VAR_DIR=str(tmp_path))
    assert probe["ENGINE"] == "django.db.backends.postgresql"
    assert (probe["HOST"], probe["PORT"], probe["NAME"]) == ("127.0.0.1", 54329, "lernpfad")


def test_database_url_points_anywhere_with_server_side_binding():
    probe = _database_probe(DATABASE_URL="postgres://nobody@db.example.org:6543/elsewhere")
    assert (probe["HOST"], probe["PORT"], probe["NAME"]) == ("db.example.org", 6543, "elsewhere")
    assert probe["options"] == ["prepare_threshold", "server_side_binding"]
