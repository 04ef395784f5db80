"""The health endpoints: /health/live/ (the process answers) and /health/ready/ (database and
broker reachable), answered before host checks, the HTTPS redirect, sessions and throttles."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.test import Client

from lms.middleware import HEALTH_ENDPOINTS

CLOSED_PORT = 1  # nothing listens there: connection refused at once


@pytest.mark.django_db
def test_liveness_touches_no_database_and_opens_no_session(django_assert_num_queries):
    client = Client()
    with django_assert_num_queries(0):
        response = client.get("/health/live/")
    assert response.status_code == 200
    assert response.json() == {"status": "live"}
    assert response["Cache-Control"] == "no-store"
    assert not response.cookies
    assert "Cookie" not in response.get("Vary", "")


@pytest.mark.django_db
def test_readiness_asks_the_database_once_and_the_broker(django_assert_num_queries):
    with django_assert_num_queries(1):
        response = Client().get("/health/ready/")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ready", "checks": {"database": "ok", "broker": "ok"}}
    assert not response.cookies


@pytest.mark.django_db
def test_readiness_names_an_unreachable_broker(settings):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{CLOSED_PORT}/0"
    response = Client().get("/health/ready/")
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "not_ready"
    assert error["detail"] == {
        "failed": ["broker"],
        "checks": {"database": "ok", "broker": "unreachable"},
    }
    assert "broker" in error["message"]


def test_readiness_names_an_unreachable_database_and_broker():
    """Both down, in a process of its own (its database is the one that cannot be reached)."""
    code = (
        "import django, json; django.setup()\n"
        "from django.test import Client\n"
        "r = Client().get('/health/ready/')\n"
        "print(json.dumps([r.status_code, json.loads(r.content)]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings.test",
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{CLOSED_PORT}/lernpfad",
        CELERY_BROKER_URL=f"redis://127.0.0.1:{CLOSED_PORT}/0",
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    status, body = json.loads(result.stdout.strip().splitlines()[-1])
    assert status == 503
    assert body["error"]["detail"]["failed"] == ["database", "broker"]


@pytest.mark.django_db
def test_health_endpoints_take_only_get_and_head():
    client = Client()
    for path in HEALTH_ENDPOINTS:
        assert client.head(path).status_code == 200
        response = client.post(path)
        assert response.status_code == 405
        assert response["Allow"] == "GET, HEAD"


def test_the_health_middleware_comes_first():
    """Before SecurityMiddleware (HTTPS redirect), CommonMiddleware (ALLOWED_HOSTS), sessions
    and the form throttle."""
    assert settings.MIDDLEWARE[0] == "lms.middleware.HealthCheckMiddleware"


PRODUCTION_HEALTH = """
import django, json
django.setup()
from django.test import Client
c = Client()
out = {}
for path in ("/health/live/", "/health/ready/", "/"):
    r = c.get(path, HTTP_HOST="127.0.0.1:8000")
    out[path] = [r.status_code, r.get("Location")]
print(json.dumps(out))
"""


@pytest.mark.redis
@pytest.mark.django_db
def test_under_production_settings_a_container_check_is_answered():
    """Plain HTTP to ``127.0.0.1``, as the compose healthcheck sends it: the health endpoints
    answer 200; a page would be refused (host) or redirected (HTTPS)."""
    from django.db import connection

    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings.production",
        DJANGO_SECRET_KEY="health-" + "h" * 50,
        DJANGO_ALLOWED_HOSTS="lernpfad.example.org",
        DATABASE_URL=f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/"
        f"{db['NAME']}",
    )
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION_HEALTH],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["/health/live/"] == [200, None]
    assert out["/health/ready/"] == [200, None]
    assert out["/"][0] == 400  # DisallowedHost: ALLOWED_HOSTS still guards every page
