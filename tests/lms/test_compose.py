"""docker-compose.yml names real modules, settings and commands of this project."""

import importlib
import importlib.util
import re
import shlex
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import get_commands

COMPOSE = Path(settings.BASE_DIR) / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def _command_words(service: dict) -> list[str]:
    command = service.get("command", [])
    if isinstance(command, str):
        command = shlex.split(command)
    if command[:2] == ["sh", "-c"]:
        command = shlex.split(command[2].replace("&&", " && "))
    return command


def _import_target(target: str):
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr) if attr else module


def test_the_stack_has_every_service(compose):
    services = compose["services"]
    assert set(services) >= {"proxy", "postgres", "redis", "migrate", "web", "worker", "beat"}
    assert "healthcheck" in services["postgres"]
    assert any("postgres-data" in v for v in services["postgres"]["volumes"])
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )


def test_every_command_names_real_code(compose):
    management_commands = get_commands()
    checked = 0
    for name, service in compose["services"].items():
        words = _command_words(service)
        env = service.get("environment", {})
        if "DJANGO_SETTINGS_MODULE" in env:
            assert importlib.util.find_spec(env["DJANGO_SETTINGS_MODULE"]) is not None
        for index, word in enumerate(words):
            if word == "manage.py":
                assert words[index + 1] in management_commands, (name, words[index + 1])
                checked += 1
            if word == "gunicorn":
                rest = words[index + 1 :]
                config = rest[rest.index("-c") + 1]
                assert config.startswith("python:"), name
                gunicorn_conf = importlib.import_module(config.removeprefix("python:"))
                assert gunicorn_conf.workers >= 2 and gunicorn_conf.bind.endswith(":8000")
                app = next(w for w in rest if ":" in w and not w.startswith(("python:", "-")))
                assert callable(_import_target(app)), name
                checked += 1
            if word == "-A":
                app = importlib.import_module(words[index + 1]).celery_app
                assert app.main == "lms"
                checked += 1
            if word == "--scheduler":
                _import_target(words[index + 1])
                checked += 1
            if word in ("worker", "beat") and words[0] == "celery":
                checked += 1
    assert checked >= 8


def test_app_services_use_production_settings_and_real_services(compose):
    for name in ("migrate", "web", "worker", "beat"):
        env = compose["services"][name]["environment"]
        assert env["DJANGO_SETTINGS_MODULE"] == "lms.settings.production"
        assert re.match(r"postgres://lernpfad:.+@postgres:5432/lernpfad$", env["DATABASE_URL"])
        assert env["CELERY_BROKER_URL"] == "redis://redis:6379/0"


def test_static_files_come_with_the_image_not_from_migrate(compose):
    """collectstatic in the one-shot migrate container wrote files no other container sees:
    web had no manifest and answered 500 on every page. The Dockerfile collects them."""
    assert "collectstatic" not in " ".join(_command_words(compose["services"]["migrate"]))
    assert "collectstatic" in (COMPOSE.parent / "Dockerfile").read_text(encoding="utf-8")


def test_only_the_proxy_is_published_and_it_waits_for_a_healthy_web(compose):
    services = compose["services"]
    assert [name for name, service in services.items() if service.get("ports")] == ["proxy"]
    proxy = services["proxy"]
    assert set(proxy["ports"]) == {"80:80", "443:443", "443:443/udp"}
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"
    assert proxy["environment"]["LERNPFAD_DOMAIN"].startswith("${LERNPFAD_DOMAIN:?")
    assert "caddy-data:/data" in proxy["volumes"]  # the certificates survive a re-creation
    assert "caddy-data" in compose["volumes"]


def test_web_worker_and_beat_have_healthchecks_that_name_real_code(compose):
    from lms.healthcheck import CHECKS

    for name in ("web", "worker", "beat"):
        kind, *command = compose["services"][name]["healthcheck"]["test"]
        words = shlex.split(command[0]) if kind == "CMD-SHELL" else command
        if words[:3] == ["python", "-m", "lms.healthcheck"]:
            assert words[3] in CHECKS and words[3] == name
        else:
            assert words[:5] == ["celery", "-A", "lms", "inspect", "ping"], words
            assert "celery@$$HOSTNAME" in words  # this container's worker only
    beat_command = _command_words(compose["services"]["beat"])
    scheduler = beat_command[beat_command.index("--scheduler") + 1]
    assert scheduler == settings.CELERY_BEAT_SCHEDULER
    assert compose["x-app"]["environment"]["LERNPFAD_BEAT_HEARTBEAT_FILE"].startswith("/tmp/")


def test_every_variable_the_compose_file_needs_is_in_env_example(compose):
    needed = set(re.findall(r"\$\{(\w+)", COMPOSE.read_text(encoding="utf-8")))
    example = (COMPOSE.parent / ".env.example").read_text(encoding="utf-8")
    documented = set(re.findall(r"^(\w+)=", example, re.M))
    assert needed and needed <= documented, needed - documented
