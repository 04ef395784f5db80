"""Shared fixtures and the service gate.

Tests marked ``redis`` need a Redis server. Without it they are skipped, unless
LERNPFAD_REQUIRE_SERVICES=1 (as in CI), where a missing service fails the test instead. Every
session has PostgreSQL (tests/embedded_postgres.py starts one when DATABASE_URL is not set).
"""

from __future__ import annotations

import functools
import os
import socket
from pathlib import Path

import pytest
from django.conf import settings

from tests.factories import learner_create
from tests.helpers.migrations import migrate_to

REQUIRE_SERVICES = os.environ.get("LERNPFAD_REQUIRE_SERVICES") == "1"
SEED_DIR = Path(settings.BASE_DIR) / "fixtures" / "documents"


def _missing(reason: str) -> None:
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing: {reason}", pytrace=False)
    pytest.skip(reason)


def redis_url() -> str:
    return os.environ.get("CELERY_BROKER_URL", "")


def redis_available() -> bool:
    url = redis_url()
    if not url.startswith("redis://"):
        return False
    from urllib.parse import urlparse

    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379), 1):
            return True
    except OSError:
        return False


@pytest.fixture(autouse=True)
def _service_gate(request):
    if request.node.get_closest_marker("redis") and not redis_available():
        _missing("needs Redis: set CELERY_BROKER_URL=redis://...")


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language (German). A request through Django's test client
    leaves the language it activated active in the thread (LocaleMiddleware does not reset it),
    so a later test that calls a service directly read English messages or German ones depending
    on which test ran before it in the same process (seen under xdist)."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Every test starts with an empty cache: throttles count log-ins per client address (all
    tests are 127.0.0.1) and exam/review requests per user id (ids repeat across tests)."""
    from django.core.cache import caches

    for cache in caches.all(initialized_only=False):
        cache.clear()


@pytest.fixture
def seed_paths() -> list[Path]:
    return sorted(SEED_DIR.glob("*.txt"))


@pytest.fixture
def course(db, seed_paths):
    """The seed course imported into the test database; returns the Module."""
    from courses.models import Module
    from courses.services.importing import course_import

    course_import(paths=seed_paths)
    return Module.objects.get(slug="self-hosting-27")


@pytest.fixture
def flashcards(course):
    """Quick checks of the seed module that are flashcards: one of its own for each of steps 1
    to 3 ("own", by step number) and one that steps 1 and 2 share ("shared")."""
    from tests.factories import flashcard_quick_check_add

    steps = {step.number: step for step in course.steps.filter(number__lte=3)}
    own = {
        number: flashcard_quick_check_add(
            [steps[number]],
            f"Welcher Befehl zeigt den Zustand, Frage {number}?",
            f"nvidia-smi, Antwort {number}.",
        )
        for number in (1, 2, 3)
    }
    shared = flashcard_quick_check_add(
        [steps[1], steps[2]],
        "Welche Einheit hat der Grafikspeicher?",
        "Gibibyte (GiB), wie nvidia-smi sie anzeigt.",
    )
    return {"own": own, "shared": shared}


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


def module_document_text(
    *,
    series: str = "Homelab",
    number: int = 3,
    title: str = "Netzwerk und DNS",
    terms: tuple[str, ...] = ("DNS", "Reverse Proxy", "VLAN", "DHCP", "Firewall"),
    level: str = "B2",
    as_of: str = "2025-01-31",
) -> str:
    """A module document in the seed format, unlike the seed (other series, terms, level)."""
    out = [f"{series} {number}: {title}", ""]
    for index, term in enumerate(terms, start=1):
        out += [
            f"Schritt {index} / {len(terms)}",
            "",
            term,
            "",
            f"{term} ist ein Baustein des Netzwerks im Modul {title}. Die Karte zeigt den Weg.",
            "",
            level,
            "",
            "1. Verstehen",
            "",
            f"{term} verstehen heißt, Zweck und Grenzen zu kennen.",
            "",
            "2. Anwenden",
            "",
            f"Setze {term} in einer Testumgebung ein.",
            "",
            "Übung",
            "",
            f"Prüfe {term} mit folgendem Befehl:",
            "",
            "ip addr show",
            "",
            "Notiere die Ausgabe.",
            "",
            "5. Prüfen",
            "",
            f"Was ist {term}? {term} ist ein Baustein des Netzwerks.",
            "Wie prüfst du es? Mit ip addr show.",
            "",
            "Zusammenfassung",
            "",
            f"{term} ist ein Baustein des Netzwerks im Modul...",
            "",
            f"Stand: {as_of} 2 Quellen reviewed",
            "",
        ]
    return "\n".join(out)


@pytest.fixture
def module_document(tmp_path):
    """Write a module document (see module_document_text) and return its path."""

    def write(name: str = "module.txt", **kwargs) -> Path:
        path = tmp_path / name
        path.write_text(module_document_text(**kwargs), encoding="utf-8")
        return path

    return write


@pytest.fixture
def second_module(course, module_document):
    """A second module beside the seed course: "homelab-3", five steps (module_document_text)."""
    from courses.models import Module
    from courses.services.importing import course_import

    course_import(paths=[module_document("homelab.txt")])
    return Module.objects.get(slug="homelab-3")


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """``with committed(): client.post(...)``: the commit callbacks of the block (the account
    mails, accounts.services) run at its end, as after the request's real commit; a test's own
    transaction never commits."""
    return functools.partial(django_capture_on_commit_callbacks, execute=True)


@pytest.fixture
def make_learner(db):
    """Create a learner: ``make_learner("lena", time_zone="Asia/Tokyo")``; the password is
    ``tests.factories.learner_password("lena")``."""
    return learner_create


@pytest.fixture
def migrated_back_afterwards(transactional_db):
    """For a test that moves the database to an older migration state: every app's latest
    state again at its end, for the tests after it."""
    yield
    migrate_to()


@pytest.fixture
def lena(make_learner):
    """The learner most tests are about: German (the default language), in Europe/Berlin."""
    return make_learner("lena")


@pytest.fixture
def admin_client(admin_client):
    """pytest-django's superuser client, asking for English: the admin tests read the English
    texts; the German admin (the default language) is walked by tests/lms/test_admin_language.py
    and the browser tests, which ask for German themselves."""
    admin_client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return admin_client


@pytest.fixture
def completion_by_sections_only(monkeypatch):
    """For tests of something else than the completion rule that complete steps by viewing
    their sections, as the API asked before evidence was (progress.completion_rules): modules
    without a rule of their own ask only for every section seen, with no minimum time. The
    strict default is tested in tests/progress/test_step_complete.py."""
    from progress import completion_rules, selectors

    monkeypatch.setattr(selectors, "DEFAULT_RULE", completion_rules.RULE_SECTIONS)
    monkeypatch.setattr(selectors, "DEFAULT_READING_TIME_SHARE", 0)
