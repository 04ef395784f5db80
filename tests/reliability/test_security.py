"""Security settings and throttling.

- Production settings (in a subprocess, as production starts): DEBUG off, secrets only from the
  environment (start-up names what is missing), and what the responses carry: HSTS, a
  Content-Security-Policy, Secure/HttpOnly/SameSite cookies, HTTPS redirect, no-sniff, DENY.
- Every HTML page (learner pages, admin, API docs, e-mail landing pages) works under that
  Content-Security-Policy: no inline script, style or event handler.
- Throttling on log-in (API token, registration, the log-in, sign-up and password-reset forms,
  the admin log-in, re-entering the password to delete the account), exam and review endpoints:
  over a small rate the answer is 429 in the one error shape with Retry-After, and a changing
  X-Forwarded-For header does not open a new budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test import Client
from reliability_world import (
    CANARY,
    PASSWORD,
    WEB_SECRET_ROUTES,
    JsonClient,
    caches_clear,
    ok,
    path_values,
    web_routes,
    web_url,
)

from tests.helpers.csp import csp_violations
from tests.helpers.production import database_url

PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "lms.settings.production",
    "DJANGO_SECRET_KEY": "production-test-" + "k" * 40 + "-with-entropy-1234567890",
    "DJANGO_ALLOWED_HOSTS": "lernpfad.example.org",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "DATABASE_URL": "sqlite:////tmp/lernpfad-production-check.sqlite3",
}


def run_python(code: str, env_overrides: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.pop("CELERY_BROKER_URL", None)
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# --- production settings ------------------------------------------------------------------------

SETTINGS_DUMP = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({name: getattr(s, name) for name in %r}, default=str))
"""
SECURITY_SETTINGS = [
    "DEBUG",
    "SECRET_KEY",
    "SESSION_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_SAMESITE",
    "CSRF_COOKIE_SECURE",
    "CSRF_COOKIE_HTTPONLY",
    "CSRF_COOKIE_SAMESITE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_SSL_REDIRECT",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "X_FRAME_OPTIONS",
    "MIDDLEWARE",
    "ALLOWED_HOSTS",
    "CACHES",
]


def test_production_settings_are_secure_and_come_from_the_environment():
    result = run_python(SETTINGS_DUMP % SECURITY_SETTINGS, PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values["DEBUG"] is False
    assert values["SECRET_KEY"] == PRODUCTION_ENV["DJANGO_SECRET_KEY"]
    assert values["ALLOWED_HOSTS"] == ["lernpfad.example.org"]
    assert values["SESSION_COOKIE_SECURE"] and values["SESSION_COOKIE_HTTPONLY"]
    assert values["CSRF_COOKIE_SECURE"] and values["CSRF_COOKIE_HTTPONLY"]
    assert values["SESSION_COOKIE_SAMESITE"] == values["CSRF_COOKIE_SAMESITE"] == "Lax"
    assert values["SECURE_HSTS_SECONDS"] >= 31_536_000 and values["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
    assert values["SECURE_SSL_REDIRECT"] and values["SECURE_CONTENT_TYPE_NOSNIFF"]
    assert values["X_FRAME_OPTIONS"] == "DENY"
    assert "lms.middleware.ContentSecurityPolicyMiddleware" in values["MIDDLEWARE"]
    assert "lms.middleware.FormThrottleMiddleware" in values["MIDDLEWARE"]
    # One log-in throttle count for all gunicorn workers, in a table migrate creates.
    from lms.models import CACHE_TABLE

    assert values["CACHES"]["login"] == {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": CACHE_TABLE,
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    }


@pytest.mark.parametrize(
    "missing", ["DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ALLOWED_HOSTS"]
)
def test_production_start_names_each_missing_secret(missing):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}
    result = run_python("import django; django.setup()", env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert f"need these environment variables: {missing}" in result.stderr


PRODUCTION_REQUESTS = """
import json, django
django.setup()
from django.test import Client
from django.contrib.auth import get_user_model
client = Client(HTTP_HOST="lernpfad.example.org")
out = {}
plain = client.get("/login/")
out["http"] = [plain.status_code, plain.get("Location")]
page = client.get("/login/", secure=True)
out["headers"] = {k: page.get(k) for k in (
    "Strict-Transport-Security", "Content-Security-Policy", "X-Frame-Options",
    "X-Content-Type-Options", "Referrer-Policy", "Cross-Origin-Opener-Policy")}
def flags(cookie):
    return {"secure": bool(cookie["secure"]), "httponly": bool(cookie["httponly"]),
            "samesite": cookie["samesite"]}
out["csrf_cookie"] = flags(page.cookies["csrftoken"])
login = client.post("/login/", {"username": %(user)r, "password": %(password)r}, secure=True)
out["login"] = login.status_code
out["session_cookie"] = flags(login.cookies["sessionid"])
missing = client.get("/no-such-page/", secure=True)
out["not_found"] = [missing.status_code, "Traceback" in missing.content.decode()]
api = client.get("/api/v1/no-such-endpoint/", secure=True)
out["api_not_found"] = [api.status_code, api.json()]
print(json.dumps(out))
"""


@pytest.mark.django_db(transaction=True)
def test_production_responses_carry_the_security_headers_and_cookie_flags(tmp_path):
    from accounts.models import User

    # Hashed with a hasher production knows (the test settings hash with MD5 for speed).
    User.objects.create(
        username="paula",
        email="paula@example.org",
        password=PBKDF2PasswordHasher().encode(PASSWORD, PBKDF2PasswordHasher().salt()),
    )
    # Production settings as they are, except for the static files' manifest, which only
    # collectstatic writes (the page templates would not render without it).
    (tmp_path / "production_without_manifest.py").write_text(
        "from lms.settings.production import *  # noqa\n"
        "STORAGES = {**STORAGES, 'staticfiles': "
        "{'BACKEND': 'django.contrib.staticfiles.storage.StaticFilesStorage'}}\n"
    )
    code = PRODUCTION_REQUESTS % {"user": "paula", "password": PASSWORD}
    env = {
        **PRODUCTION_ENV,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "production_without_manifest",
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{settings.BASE_DIR}",
    }
    result = run_python(code, env)
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["http"] == [301, "https://lernpfad.example.org/login/"]
    headers = out["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    csp = headers["Content-Security-Policy"]
    for directive in ("default-src 'self'", "script-src 'self'", "object-src 'none'"):
        assert directive in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    expected = {"secure": True, "httponly": True, "samesite": "Lax"}
    assert out["csrf_cookie"] == expected
    assert out["login"] == 302
    assert out["session_cookie"] == expected
    assert out["not_found"] == [404, False]
    assert out["api_not_found"][0] == 404 and set(out["api_not_found"][1]) == {"error"}


# --- every HTML page under the Content-Security-Policy --------------------------------------------

# django-celery-beat's admin forms (periodic task schedules) bring an inline script of their
# own; without it the form still saves, only its helpers (crontab preview) are missing.
THIRD_PARTY_INLINE_SCRIPT = {"django_celery_beat"}


def _html_pages(world):
    """(who, url) for every page: the web routes, admin changelists, add and change forms,
    the admin's own pages, the API docs and the e-mail landing pages."""
    values = path_values(world)
    for route in web_routes():
        if not WEB_SECRET_ROUTES.search(route):
            yield CANARY, web_url(route, values)
    yield "anonymous", "/login/"
    yield "anonymous", "/api/docs/"
    yield "anonymous", f"/certificates/{values['code']}/"
    yield "staff", "/admin/"
    for model, _model_admin in admin.site._registry.items():
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        if model._meta.app_label in THIRD_PARTY_INLINE_SCRIPT:
            yield "staff", base  # its list page is fine; its forms carry inline script
            continue
        yield "staff", base
        yield "staff", base + "add/"
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            yield "staff", f"{base}{first.pk}/change/"
    yield "staff", "/admin/quizzes/examitem/statistics/?module=" + world.module_slug
    yield "staff", f"/admin/quizzes/examattempt/dashboard/{world.module_slug}/"
    yield "staff", "/admin/publishing/courseimport/upload/"


def test_every_html_page_works_under_the_content_security_policy(world, subtests):
    from tests.factories import unsubscribe_token_for

    clients = {"anonymous": Client(), CANARY: Client(), "staff": Client()}
    clients[CANARY].force_login(world.a.user)
    clients["staff"].force_login(world.staff.user)
    pages = list(_html_pages(world))
    pages.append(("anonymous", f"/reminders/unsubscribe/{unsubscribe_token_for(world.a.user)}/"))
    checked = 0
    for who, url in pages:
        with subtests.test(msg=f"{who} {url}"):
            response = clients[who].get(url)
            assert response.status_code < 500, (url, response.status_code)
            if response.status_code == 200 and "html" in response.get("Content-Type", ""):
                checked += 1
                assert not csp_violations(response.content.decode()), (
                    f"{url} would break under the CSP: {csp_violations(response.content.decode())}"
                )
    assert checked > 40


# --- throttling -----------------------------------------------------------------------------------

RATE = 3


@pytest.fixture
def small_rates(settings, monkeypatch):
    """Every throttle rate at 3 a minute (the scoped throttles copy their rates at import)."""
    from rest_framework.throttling import ScopedRateThrottle

    rates = {"login": f"{RATE}/min", "exam": f"{RATE}/min", "review": f"{RATE}/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    caches_clear()  # the world's own requests must not count against the small budget
    return rates


def assert_throttled(response) -> None:
    assert response.status_code == 429, (response.status_code, response.content[:300])
    assert int(response["Retry-After"]) > 0
    if response.get("Content-Type", "").startswith("application/json"):
        body = response.json()
        assert body["error"]["code"] == "throttled"
        assert body["error"]["detail"]["retry_after_seconds"] > 0


def exceed(send) -> None:
    """``send(i)`` RATE times without a 429, then once more: 429."""
    for attempt in range(RATE):
        response = send(attempt)
        assert response.status_code != 429, (attempt, response.content[:300])
    assert_throttled(send(RATE))


@pytest.fixture
def small_lockout(settings):
    """Log-in lockouts after 3 failures per account and per address (django-axes)."""
    settings.AXES_FAILURE_LIMIT = RATE
    settings.LOGIN_FAILURE_LIMIT_ADDRESS = RATE


def assert_locked(response) -> None:
    assert response.status_code == 429, (response.status_code, response.content[:300])
    assert int(response["Retry-After"]) > 0
    if response.get("Content-Type", "").startswith("application/json"):
        error = response.json()["error"]
        assert error["code"] == "login_locked"
        assert error["detail"]["retry_after_seconds"] > 0


def lock(send) -> None:
    """``send(i)`` fails RATE - 1 times without a lock; the next failure locks."""
    for attempt in range(RATE - 1):
        response = send(attempt)
        assert response.status_code != 429, (attempt, response.content[:300])
    assert_locked(send(RATE - 1))


@pytest.mark.django_db
def test_token_guesses_lock_the_address_even_with_a_new_forwarded_for_each_time(small_lockout):
    client = JsonClient()

    def send(attempt):
        return client.post(
            "/api/v1/auth/token/",
            {"username": f"someone{attempt}", "password": f"guess-{attempt}", "device_name": "x"},
            HTTP_X_FORWARDED_FOR=f"203.0.113.{attempt}",
        )

    lock(send)


@pytest.mark.django_db
def test_registration_is_throttled(small_rates):
    client = JsonClient()
    exceed(
        lambda i: client.post(
            "/api/v1/auth/register/",
            {"username": f"new{i}", "email": f"new{i}@example.org", "password": "short"},
        )
    )


@pytest.mark.django_db
@pytest.mark.parametrize("form", ["/signup/", "/password-reset/"])
def test_account_and_mail_forms_are_throttled(small_rates, form):
    client = Client()
    exceed(
        lambda i: client.post(
            form,
            {"username": "someone", "password": f"guess-{i}", "email": "x@example.org"},
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
        )
    )


@pytest.mark.django_db
@pytest.mark.parametrize("form", ["/login/", "/admin/login/"])
def test_log_in_forms_lock_after_failures(small_lockout, form):
    client = Client()
    lock(
        lambda i: client.post(
            form,
            {"username": f"someone{i}", "password": f"guess-{i}"},
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
        )
    )


@pytest.mark.django_db
def test_web_and_api_log_in_failures_count_together(small_lockout):
    web, api = Client(), JsonClient()
    web.post("/login/", {"username": "someone", "password": "a"})
    api.post("/api/v1/auth/token/", {"username": "someone", "password": "b", "device_name": "x"})
    assert_locked(
        api.post(
            "/api/v1/auth/token/", {"username": "someone", "password": "c", "device_name": "x"}
        )
    )


def test_password_reentry_for_deletion_is_throttled(world, small_rates):
    exceed(lambda i: world.a.client.delete("/api/v1/me/", {"password": f"guess-{i}"}))
    # The right password does not get through either until the minute is over.
    assert_throttled(world.a.client.delete("/api/v1/me/", {"password": PASSWORD}))


def test_exam_endpoints_are_throttled(world, small_rates):
    attempt = world.ids["attempt"]
    answer = {"answers": [{"item": world.ids["attempt_item"], "selected": []}]}
    exceed(lambda i: world.a.client.put(f"/api/v1/exam-attempts/{attempt}/answers/", answer))
    # The scope is shared: starting and submitting count against the same budget.
    assert_throttled(world.a.client.post(f"/api/v1/exam-attempts/{attempt}/submit/"))
    assert_throttled(world.a.client.post(f"/api/v1/modules/{world.module_slug}/exam/attempts/"))
    # Another learner has a budget of their own.
    ok(
        world.b.client.put(
            f"/api/v1/exam-attempts/{world.ids['attempt_b']}/answers/", {"answers": []}
        )
    )


def test_review_endpoints_are_throttled(world, small_rates):
    card = world.ids["card_id"]
    exceed(
        lambda i: world.a.client.post(
            "/api/v1/reviews/", {"card": card, "rating": 3, "client_review_id": f"t-{i}"}
        )
    )
    assert_throttled(world.a.client.post("/api/v1/reviews/undo/"))
