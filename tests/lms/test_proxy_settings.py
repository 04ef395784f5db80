"""DJANGO_NUM_PROXIES matches the stack: one proxy (Caddy) in front of gunicorn, which is
reachable only through it, so the throttles count the address the proxy appended to
X-Forwarded-For and never one a client wrote there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import Client, RequestFactory
from image_build import dotenv_read

from lms.middleware import FormLoginRateThrottle

ROOT = Path(settings.BASE_DIR)
PROXY_ADDRESS = "172.18.0.5"  # Caddy's address on the compose network (REMOTE_ADDR)
CLIENT = "198.51.100.7"  # the client as Caddy saw it: the last entry, Caddy's own


@pytest.fixture
def one_proxy(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}


def _ident(forwarded_for: str | None) -> str:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded_for} if forwarded_for is not None else {}
    request = RequestFactory().get("/", REMOTE_ADDR=PROXY_ADDRESS, **extra)
    return FormLoginRateThrottle().get_ident(request)


def test_with_one_proxy_the_address_counted_is_the_one_the_proxy_appended(one_proxy):
    assert _ident(CLIENT) == CLIENT
    # Whatever the client wrote before Caddy's entry is ignored.
    assert _ident(f"203.0.113.9, {CLIENT}") == CLIENT
    assert _ident(f"10.0.0.1, 203.0.113.9 ,{CLIENT}") == CLIENT
    # A request that did not come through the proxy (a healthcheck) is its socket address.
    assert _ident(None) == PROXY_ADDRESS


@pytest.mark.django_db
def test_with_one_proxy_a_client_written_forwarded_for_opens_no_new_budget(one_proxy, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "login": "3/min",
        },
    }
    client = Client(REMOTE_ADDR=PROXY_ADDRESS)
    statuses = [
        client.post(
            "/api/v1/auth/password-reset/",
            json.dumps({"email": f"nobody{i}@example.org"}),
            content_type="application/json",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{i}, {CLIENT}",
        ).status_code
        for i in range(5)
    ]
    # The reset mail is rated per address (log-ins are counted by django-axes per account).
    assert statuses == [202, 202, 202, 429, 429]
    # Another client (another last entry) has a budget of its own.
    other = client.post(
        "/api/v1/auth/password-reset/",
        json.dumps({"email": "nobody@example.org"}),
        content_type="application/json",
        HTTP_X_FORWARDED_FOR="192.0.2.44",
    )
    assert other.status_code == 202


def test_env_example_counts_the_proxies_of_the_compose_stack():
    """.env.example's DJANGO_NUM_PROXIES is the number of proxies in docker-compose.yml, and
    no other service publishes a port past them."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    assert {port.split(":", 1)[0] for port in services["proxy"]["ports"]} == {"80", "443"}
    example = dotenv_read((ROOT / ".env.example").read_text())
    assert example["DJANGO_NUM_PROXIES"] == "1"


def test_production_settings_read_the_proxy_count_and_the_https_header():
    code = (
        "import django, json; django.setup()\n"
        "from django.conf import settings as s\n"
        "from rest_framework.settings import api_settings\n"
        "print(json.dumps([api_settings.NUM_PROXIES, s.SECURE_PROXY_SSL_HEADER]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings.production",
        DJANGO_SECRET_KEY="proxy-" + "p" * 50,
        DJANGO_ALLOWED_HOSTS="lernpfad.example.org",
        DATABASE_URL="postgres://unused@127.0.0.1:1/unused",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
        DJANGO_NUM_PROXIES="1",
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [
        1,
        ["HTTP_X_FORWARDED_PROTO", "https"],
    ]
