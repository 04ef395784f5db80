"""Settings: production refuses to start without its secrets; the error shape is uniform."""

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
