"""Access control, generated from the OpenAPI schema and the URLconf.

Every API operation is called as anonymous, learner B, staff and learner A, with the path (and,
where a body names an object, the body) pointing at learner A's objects. The web pages and the
admin are enumerated from the URLconf the same way. What must hold:

- anonymous gets 401/403 from every operation that requires authentication;
- B and staff get 404 for A's objects (the API only ever serves one's own), and A gets 2xx, so
  the refusal is about ownership and not about a malformed request;
- no response to anyone but A carries A's data (A's username is in everything A wrote);
- no request by anyone but A changes any row of A's (a fingerprint of every row that belongs to
  A, found through every model's foreign key to the user, is compared after each request);
- staff-only pages (the admin) refuse learners.

An unsafe operation without an entry in ``BODIES`` fails the test: a new endpoint must be added.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Callable

import pytest
from django.contrib import admin
from django.db import transaction
from django.test import Client
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from reliability_world import (
    CANARY,
    PASSWORD,
    WEB_SECRET_ROUTES,
    JsonClient,
    caches_clear,
    path_values,
    user_models,
    web_routes,
    web_url,
)

pytestmark = pytest.mark.django_db

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
OPERATIONS = sorted(
    (method.upper(), path, operation)
    for path, item in SCHEMA["paths"].items()
    for method, operation in item.items()
    if method in {"get", "post", "put", "patch", "delete"}
)
# Path parameters that name one of A's own objects (others name course content).
A_OBJECTS = {"attempt", "card_id", "notification_id", "device_id", "code"}


def _now() -> str:
    return timezone.now().isoformat()


# Valid request bodies (for A), per operation; they may depend on the world and the caller.
Body = Callable[[object, str], dict | None]
BODIES: dict[str, Body] = {
    "PATCH /api/v1/me/": lambda w, who: {"display_name": f"{who} neu"},
    "DELETE /api/v1/me/": lambda w, who: {"password": PASSWORD},
    "POST /api/v1/auth/register/": lambda w, who: {
        "username": f"new-{who}",
        "email": f"new-{who}@example.org",
        "password": PASSWORD,
        "device_name": "phone",
    },
    # Anyone may ask these, for any address, and gets the same 202 (or 400 for a bad token);
    # a mail is all they can cause, never a change of A's rows.
    "POST /api/v1/auth/email-confirmation/": lambda w, who: {"token": f"not-a-token-{who}"},
    "POST /api/v1/auth/email-confirmation/resend/": lambda w, who: {"email": w.a.user.email},
    "POST /api/v1/auth/password-reset/": lambda w, who: {"email": w.a.user.email},
    "POST /api/v1/auth/token/": lambda w, who: {
        "username": who if who != "anonymous" else CANARY,
        "password": PASSWORD if who != "anonymous" else "guessed-wrong-1",
        "device_name": "laptop",
    },
    "POST /api/v1/auth/logout/": lambda w, who: None,
    "POST /api/v1/auth/logout-all/": lambda w, who: None,
    "DELETE /api/v1/auth/tokens/{device_id}/": lambda w, who: None,
    "POST /api/v1/modules/{module}/enrollment/": lambda w, who: None,
    "DELETE /api/v1/modules/{module}/enrollment/": lambda w, who: None,
    "POST /api/v1/modules/{module}/steps/{number}/progress/": lambda w, who: {"event": "opened"},
    "PUT /api/v1/modules/{module}/steps/{number}/notes/": lambda w, who: {
        "lernauftrag": f"Überschrieben von {who}"
    },
    "PATCH /api/v1/modules/{module}/steps/{number}/notes/": lambda w, who: {
        "lernauftrag": f"Geändert von {who}"
    },
    "POST /api/v1/progress/sync/": lambda w, who: {
        "events": [
            {
                "client_event_id": f"matrix-{who}",
                "event": "opened",
                "module": w.module_slug,
                "step": 3,
                "occurred_at": _now(),
            }
        ]
    },
    "POST /api/v1/modules/{module}/steps/{number}/quick-checks/{quick_check}/answers/": (
        lambda w, who: {"rating": "knew"}
    ),
    "POST /api/v1/modules/{module}/exam/attempts/": lambda w, who: None,
    "PUT /api/v1/exam-attempts/{attempt}/answers/": lambda w, who: {
        "answers": [{"item": w.ids["attempt_item"], "selected": [w.ids["attempt_item_key"]]}]
    },
    "POST /api/v1/exam-attempts/{attempt}/submit/": lambda w, who: None,
    "POST /api/v1/reviews/": lambda w, who: {
        "card": w.ids["card_id"],
        "rating": 4,
        "client_review_id": f"matrix-{who}",
    },
    # B naming A's card gets 200 with the review rejected (card_not_found), nothing changed.
    "POST /api/v1/reviews/batch/": lambda w, who: {
        "reviews": [{"card": w.ids["card_id"], "rating": 4, "client_review_id": f"batch-{who}"}]
    },
    "POST /api/v1/reviews/undo/": lambda w, who: None,
    # Each learner's own exam date and own fit: B's calls never touch A's.
    "PUT /api/v1/modules/{module}/exam-date/": lambda w, who: {"exam_on": "2099-01-01"},
    "DELETE /api/v1/modules/{module}/exam-date/": lambda w, who: None,
    "POST /api/v1/reviews/parameters/optimize/": lambda w, who: None,
    "POST /api/v1/notifications/read-all/": lambda w, who: None,
    # Each learner's own calendar address: B's calls make, replace or revoke only B's.
    "POST /api/v1/me/calendar-feed/": lambda w, who: None,
    "POST /api/v1/me/calendar-feed/rotate/": lambda w, who: None,
    "DELETE /api/v1/me/calendar-feed/": lambda w, who: None,
    "POST /api/v1/notifications/{notification_id}/read/": lambda w, who: None,
}
# Operations whose body names one of A's objects (B must be refused although the path is B's).
BODY_NAMES_A_OBJECT = {"POST /api/v1/reviews/", "PUT /api/v1/exam-attempts/{attempt}/answers/"}


# Operations that anyone holding the code may call, by design: the JSON twin of the public
# certificate page. They answer with what that page shows (name, module, date, score) and
# nothing else; what they may carry is pinned here.
PUBLIC_WITH_CODE = {
    "GET /api/v1/certificates/verify/{code}/": {
        "code",
        "valid",
        "url",
        "learner_name",
        "module",
        "module_title",
        "score_percent",
        "issued_at",
    },
}


def _is_public(operation: dict) -> bool:
    return {} in operation.get("security", [{}])


def _fill(path: str, values: dict[str, object]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)


# --- what belongs to A --------------------------------------------------------------------------


def _owned_querysets(user_id: int):
    """Every row that belongs to the user: found through each model's foreign key to the user."""
    for model, field in user_models():
        yield model.objects.filter(**{field: user_id})
    # Rows that reach the user through a parent row.
    from quizzes.models import ExamAttemptItem

    yield ExamAttemptItem.objects.filter(attempt__learner_id=user_id)


def a_fingerprint(user_id: int) -> str:
    digest = hashlib.sha256()
    for queryset in _owned_querysets(user_id):
        rows = queryset.order_by("pk").values()
        for row in rows:
            row.pop("last_login", None)
            digest.update(repr(sorted(row.items())).encode())
        digest.update(queryset.model._meta.label.encode())
    return digest.hexdigest()


def test_fingerprint_covers_a_s_data(world):
    """Guard: the fingerprint sees A's notes, reviews, attempts, notifications and tokens."""
    from knox.models import AuthToken

    from progress.models import StepNote
    from reviews.models import Notification

    user_id = world.a.user.pk
    labels = {qs.model._meta.label for qs in _owned_querysets(user_id) if qs.exists()}
    assert {
        "accounts.User",
        "accounts.Device",
        "knox.AuthToken",
        "progress.Enrollment",
        "progress.StepProgress",
        "progress.StepNote",
        "quizzes.ExamAttempt",
        "quizzes.ExamAttemptItem",
        "quizzes.Certificate",
        "reviews.ReviewCard",
        "reviews.ReviewLog",
        "reviews.Notification",
    } <= labels
    before = a_fingerprint(user_id)
    Notification.objects.filter(learner_id=user_id).update(read_at=timezone.now())
    assert a_fingerprint(user_id) != before
    before = a_fingerprint(user_id)
    StepNote.objects.filter(learner_id=user_id).update(text="x")
    assert a_fingerprint(user_id) != before
    before = a_fingerprint(user_id)
    AuthToken.objects.filter(user_id=user_id).first().delete()
    assert a_fingerprint(user_id) != before


# --- the API matrix -----------------------------------------------------------------------------


@pytest.fixture
def matrix(world):
    """Callers by name and a request helper that rolls every request back."""
    anonymous = JsonClient()
    callers = {"anonymous": anonymous, "ben": world.b.client, "sam": world.staff.client}
    callers[CANARY] = world.a.client

    # Every request is rolled back, so A's data must always equal this baseline.
    baseline = a_fingerprint(world.a.user.pk)

    def call(who: str, method: str, url: str, body: dict | None):
        with transaction.atomic():
            caches_clear()
            response = getattr(callers[who], method.lower())(url, body)
            changed = who != CANARY and a_fingerprint(world.a.user.pk) != baseline
            transaction.set_rollback(True)
        return response, changed

    return call


def test_api_operations_refuse_other_people_a_s_objects(world, matrix, subtests):
    """One world for all operations (building it is the slow part); one subtest each."""
    assert len(OPERATIONS) > 30
    for method, path, operation in OPERATIONS:
        with subtests.test(msg=f"{method} {path}"):
            _check_operation(world, matrix, method, path, operation)


def _check_operation(world, matrix, method, path, operation):
    label = f"{method} {path}"
    if method != "GET":
        assert label in BODIES, f"add a valid body for {label} to BODIES (access matrix)"
    body_of = BODIES.get(label, lambda w, who: None)
    url = _fill(path, path_values(world))
    params = set(re.findall(r"\{(\w+)\}", path))
    names_a_object = bool(params & A_OBJECTS) or label in BODY_NAMES_A_OBJECT
    if label in PUBLIC_WITH_CODE:
        for who in ("anonymous", "ben", "sam", CANARY):
            response, changed = matrix(who, method, url, body_of(world, who))
            assert response.status_code == 200 and not changed, (who, label, response.status_code)
            assert set(response.json()) == PUBLIC_WITH_CODE[label], response.content
        return

    for who in ("anonymous", "ben", "sam"):
        response, changed = matrix(who, method, url, body_of(world, who))
        status = response.status_code
        assert status < 500, (who, label, status, response.content[:300])
        assert not changed, f"{who}: {label} changed learner A's data (status {status})"
        if who == "anonymous" and not _is_public(operation):
            assert status in (401, 403), (who, label, status)
            assert set(response.json()) == {"error"}, response.content
        if names_a_object and who != "anonymous":
            assert status == 404, (who, label, status, response.content[:300])
        if 200 <= status < 300 and response.content:
            assert CANARY not in response.content.decode().lower(), (
                f"{who} received learner A's data from {label}: {response.content[:300]}"
            )

    # A itself may do it: the refusals above are about ownership, not a malformed request.
    response, _changed = matrix(CANARY, method, url, body_of(world, CANARY))
    if names_a_object:
        assert 200 <= response.status_code < 300, (label, response.status_code, response.content)
    else:
        assert response.status_code < 500, (label, response.status_code)


def test_matrix_covers_every_personal_operation():
    """Guard: the schema lists the personal operations the matrix is meant to cover."""
    labels = {f"{m} {p}" for m, p, _o in OPERATIONS}
    for expected in (
        "GET /api/v1/exam-attempts/{attempt}/",
        "POST /api/v1/exam-attempts/{attempt}/submit/",
        "GET /api/v1/reviews/cards/{card_id}/",
        "POST /api/v1/notifications/{notification_id}/read/",
        "DELETE /api/v1/auth/tokens/{device_id}/",
        "GET /api/v1/modules/{module}/steps/{number}/notes/",
        "GET /api/v1/certificates/",
    ):
        assert expected in labels, expected


# --- web pages and admin ------------------------------------------------------------------------


def test_web_pages_refuse_other_people_a_s_objects(world, subtests):
    routes = [r for r in web_routes() if not WEB_SECRET_ROUTES.search(r)]
    assert len(routes) > 15
    baseline = a_fingerprint(world.a.user.pk)
    for route in routes:
        with subtests.test(msg=route):
            _check_web_route(world, route, baseline)


def _check_web_route(world, route, baseline):
    values = path_values(world)
    url = web_url(route, values)
    names_a_object = any(f"{name}>" in route for name in A_OBJECTS) and not route.startswith(
        "certificates/"  # the public verification page: anyone with the code may see it
    )
    ben, sam = Client(), Client()
    ben.force_login(world.b.user)
    sam.force_login(world.staff.user)
    for who, client in (("anonymous", Client()), ("ben", ben), ("sam", sam)):
        for method in ("get", "post"):
            with transaction.atomic():
                caches_clear()
                response = getattr(client, method)(url)
                assert a_fingerprint(world.a.user.pk) == baseline, (who, method, url)
                transaction.set_rollback(True)
            status = response.status_code
            assert status < 500, (who, method, url, status)
            if names_a_object:
                assert not 200 <= status < 300, (who, method, url, status)
                if who != "anonymous":
                    assert status == 404, (who, method, url, status)
            if 200 <= status < 300 and not route.startswith("certificates/"):
                assert CANARY not in response.content.decode().lower(), (who, method, url)


def _admin_urls() -> list[str]:
    urls = []
    for model, _model_admin in admin.site._registry.items():
        info = (model._meta.app_label, model._meta.model_name)
        urls.append("/admin/{}/{}/".format(*info))
    return ["/admin/", *sorted(urls)]


def test_admin_refuses_learners(world):
    a, staff = Client(), Client()
    a.force_login(world.a.user)
    staff.force_login(world.staff.user)
    urls = _admin_urls()
    assert len(urls) > 5
    for url in urls:
        refused = a.get(url)
        assert refused.status_code == 302 and "/admin/login/" in refused["Location"], url
        assert staff.get(url).status_code == 200, url


def test_expired_session_of_a_gets_nothing(world):
    """A token that expired is refused like no token at all."""
    from knox.models import AuthToken

    AuthToken.objects.filter(user=world.a.user).update(
        expiry=timezone.now() - datetime.timedelta(seconds=1)
    )
    response = world.a.client.get(f"/api/v1/exam-attempts/{world.ids['attempt']}/")
    assert response.status_code == 401
