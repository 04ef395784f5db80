"""deploy/Caddyfile, read by Caddy's own validator (Debian's ``caddy``; .ci/run installs it).
tests/lms/test_production_image.py runs it in front of gunicorn."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from tests.conftest import REQUIRE_SERVICES

ROOT = Path(settings.BASE_DIR)
CADDYFILE = ROOT / "deploy" / "Caddyfile"


@pytest.fixture
def caddy(tmp_path):
    """Run ``caddy <args>`` on the shipped Caddyfile, its storage in a temporary folder."""
    binary = shutil.which("caddy")
    if binary is None:
        if REQUIRE_SERVICES:
            pytest.fail("caddy is not installed (.ci/run installs it)", pytrace=False)
        pytest.skip("needs caddy (apt-get install caddy)")

    def run(command: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [binary, command, "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env={
                "PATH": os.environ.get("PATH", ""),
                "HOME": str(tmp_path),
                "XDG_DATA_HOME": str(tmp_path),
                "XDG_CONFIG_HOME": str(tmp_path),
                **env,
            },
            capture_output=True,
            text=True,
            timeout=60,
        )

    return run


def test_caddy_accepts_the_caddyfile_and_proxies_the_domain_to_web(caddy):
    validated = caddy("validate", LERNPFAD_DOMAIN="lernpfad.example.org")
    assert validated.returncode == 0, validated.stderr
    adapted = caddy("adapt", LERNPFAD_DOMAIN="lernpfad.example.org")
    assert adapted.returncode == 0, adapted.stderr
    server = json.loads(adapted.stdout)["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == [":443"]  # HTTPS; Caddy adds the redirect from port 80 itself
    (route,) = server["routes"]
    assert route["match"] == [{"host": ["lernpfad.example.org"]}]
    assert re.findall(r'"dial":\s*"([^"]+)"', json.dumps(route)) == ["web:8000"]
    # No header rewriting: Caddy's own X-Forwarded-For/-Proto/-Host are what Django trusts.
    assert '"headers"' not in json.dumps(route)


def test_without_a_domain_the_caddyfile_does_not_load(caddy):
    """docker-compose.yml refuses to start without LERNPFAD_DOMAIN; Caddy would fail too."""
    assert caddy("validate", LERNPFAD_DOMAIN="").returncode != 0


def test_the_proxy_service_mounts_this_caddyfile():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in compose["services"]["proxy"]["volumes"]


def test_several_upstreams_from_the_environment_with_health_checks_and_dial_retries(caddy):
    """docs/operations/scaling.md: LERNPFAD_UPSTREAMS names the web hosts; tests/cluster runs it."""
    adapted = caddy(
        "adapt",
        LERNPFAD_DOMAIN="lernpfad.example.org",
        LERNPFAD_UPSTREAMS="10.0.0.4:8000 web2:8000",
    )
    assert adapted.returncode == 0, adapted.stderr
    (route,) = json.loads(adapted.stdout)["apps"]["http"]["servers"]["srv0"]["routes"]
    assert re.findall(r'"dial":\s*"([^"]+)"', json.dumps(route)) == ["10.0.0.4:8000", "web2:8000"]
    (proxy,) = [
        h for h in route["handle"][0]["routes"][0]["handle"] if h["handler"] == "reverse_proxy"
    ]
    assert proxy["health_checks"]["active"]["uri"] == "/health/live/"
    assert proxy["load_balancing"]["try_duration"] > 0
