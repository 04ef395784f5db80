"""Helpers of the reliability suites: accounts with tokens, learner activity, the answer scanner.

Imported by ``conftest.py`` (fixtures) and the test modules (pytest puts this folder on the path).
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from typing import Any

from django.apps import apps
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from tests.factories import learner_create

PASSWORD = "Lernpfad-reliability-42"
# Learner A's username; every text A writes contains it, so a response that carries A's data to
# someone else is recognisable (it appears in no course content).
CANARY = "annaq7"


class JsonClient(APIClient):
    """An API client that sends JSON bodies (the API parses nothing else)."""

    default_format = "json"


SECOND_MODULE = {"series": "Homelab", "number": 3, "title": "Netzwerk und DNS"}


@dataclasses.dataclass
class Actor:
    """An account with a knox token; ``client`` sends the token header."""

    user: Any
    token: str
    client: APIClient

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.token}"}


@dataclasses.dataclass
class World:
    module_slug: str
    second_module_slug: str
    a: Actor
    b: Actor
    staff: Actor
    # Learner A's objects, by the names the access matrix uses for path parameters.
    ids: dict[str, Any]


def actor_create(username: str, *, staff: bool = False, device: str = "phone") -> Actor:
    from accounts import services as account_services

    user = learner_create(
        username,
        password=PASSWORD,
        is_staff=staff,
        is_superuser=staff,
        display_name=username.title(),
        full_name=f"{username.title()} Lernende",
    )
    _instance, token = account_services.token_create(user=user, device_name=device)
    client = JsonClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return Actor(user=user, token=token, client=client)


def caches_clear() -> None:
    """Empty every cache (throttle counters: the default one and the log-in one)."""
    from django.core.cache import caches

    for cache in caches.all(initialized_only=False):
        cache.clear()


def ok(response, *statuses: int):
    """The response, after asserting its status (fixture set-up must not fail silently)."""
    expected = statuses or (200, 201, 204)
    assert response.status_code in expected, (response.status_code, response.content[:500])
    return response


def exam_answer_all(actor: Actor, attempt_id: int, *, correctly: bool) -> None:
    """Answer every item of an attempt (correct keys read from the database)."""
    from quizzes.models import ExamAttemptItem
    from tests.factories import TYPED_KINDS, exam_typed_answer

    answers = []
    for item in ExamAttemptItem.objects.filter(attempt_id=attempt_id).order_by("position"):
        if item.kind in TYPED_KINDS:
            answers.append(exam_typed_answer(item, right=correctly))
            continue
        keys = list(item.correct_keys)
        if not correctly:
            others = [o["key"] for o in item.options if o["key"] not in keys]
            keys = others[:1] or keys
        answers.append({"item": item.pk, "selected": keys})
    ok(actor.client.put(f"/api/v1/exam-attempts/{attempt_id}/answers/", {"answers": answers}))


def learner_activity(actor: Actor, slug: str) -> dict[str, Any]:
    """Enroll, complete two steps, write a note, rate a quick check; returns what it created.
    The steps are completed as a phone would after an hour offline: the rated quick checks
    answered, then opening, every section and the completion synced with their client times
    (the completion rule's evidence, progress.completion_rules)."""
    import datetime

    from django.utils import timezone

    client = actor.client
    ok(client.post(f"/api/v1/modules/{slug}/enrollment/"))
    now = timezone.now()
    start = (now - datetime.timedelta(hours=1)).isoformat()
    events = []
    for number in (1, 2):
        for check in ok(client.get(f"/api/v1/modules/{slug}/steps/{number}/quick-checks/")).json():
            if check["takes_rating"]:
                ok(
                    client.post(
                        f"/api/v1/modules/{slug}/steps/{number}/quick-checks/{check['id']}"
                        "/answers/",
                        {"rating": "knew"},
                    )
                )
        step = ok(client.get(f"/api/v1/modules/{slug}/steps/{number}/")).json()
        sent = [("opened", "", start)]
        sent += [("section_viewed", section["kind"], start) for section in step["sections"]]
        sent += [("completed", "", now.isoformat())]
        events += [
            {
                "client_event_id": f"{actor.user.username}-{number}-{index}",
                "event": kind,
                "module": slug,
                "step": number,
                "section": section,
                "occurred_at": at,
            }
            for index, (kind, section, at) in enumerate(sent)
        ]
    synced = ok(client.post("/api/v1/progress/sync/", {"events": events}, format="json")).json()
    assert synced["counts"]["rejected"] == 0, synced
    ok(
        client.put(
            f"/api/v1/modules/{slug}/steps/1/notes/",
            {"lernauftrag": f"Notiz von {actor.user.username}: private Gedanken."},
        )
    )
    checks = ok(client.get(f"/api/v1/modules/{slug}/steps/1/quick-checks/")).json()
    quick_check = checks[0]["id"]
    ok(
        client.post(
            f"/api/v1/modules/{slug}/steps/1/quick-checks/{quick_check}/answers/",
            {"rating": "partly"},
        )
    )
    return {"quick_check": quick_check}


# --- the exam-answer scanner ------------------------------------------------------------------
#
# Every response the handler produces during a reliability test (test client, APIClient, the
# in-process WSGI app of the schema fuzz) is scanned before it is returned: no response to anyone
# but staff may carry an exam item's correct keys, its explanation or its per-item correctness
# before the attempt's review policy allows it. The rule is written out here, independently of
# quizzes' own code:
#   - an attempt in progress shows nothing but the items and the learner's own selections;
#   - a finalized attempt shows its policy's review content (correctness, or correctness and the
#     correct answers) once the policy's moment has come, and only the score before;
#   - "immediately": at finalization; "after passing": once the final grade passes; "after the
#     last attempt": once passed, or once every allowed attempt is used AND none is in progress
#     (an attempt being answered must not see the answers of the earlier ones);
#   - only certifying attempts count: the final grade is theirs, and "every allowed attempt" is
#     the policy's maximum plus the learner's extra attempts (an accommodation) of them;
#   - a practice attempt shows, once finalized, which answers were right, and the correct
#     answers too if the policy's review content includes them; nothing before.

NOTHING, SCORE_ONLY, CORRECTNESS, CORRECT_ANSWERS = 0, 1, 2, 3
LEVELS = {"score_only": SCORE_ONLY, "correctness": CORRECTNESS, "correct_answers": CORRECT_ANSWERS}
LEVEL_NAMES = {value: name for name, value in LEVELS.items()} | {NOTHING: "nothing"}
# How the web pages mark a correct answer and per-item correctness (web/templates/web/exams/).
HTML_CORRECT_ANSWER_RE = re.compile(
    r'class="badge badge--done">\s*(?:richtige Antwort|correct answer)'
)
HTML_CORRECTNESS_RE = re.compile(
    r'<span class="result--(?:passed|failed)">\s*[✓✗]\s*(?:richtig|falsch|correct|wrong)</span>'
)


# JSON fields that carry an item's answer (choice keys, explanation, the typed kinds' keys).
ANSWER_FIELDS = frozenset(
    {"correct_keys", "explanation", "accepted_answers", "correct_pairs", "answer_key"}
)


def review_allowed_levels(learner_id: int | None) -> tuple[dict[int, int], dict[int, dict]]:
    """Per attempt of the learner: the most the review policy allows now; per item: its facts."""
    from quizzes.attempt_rules import final_score
    from quizzes.models import ExamAccommodation, ExamAttempt, ExamAttemptItem

    if learner_id is None:
        return {}, {}
    attempts = list(
        ExamAttempt.objects.filter(learner_id=learner_id)
        .select_related("policy", "result")
        .order_by("module_id", "number")
    )
    extra = dict(
        ExamAccommodation.objects.filter(learner_id=learner_id).values_list(
            "module_id", "extra_attempts"
        )
    )
    by_module: dict[int, list] = {}
    for attempt in attempts:
        by_module.setdefault(attempt.module_id, []).append(attempt)
    allowed: dict[int, int] = {}
    for module_id, module_attempts in by_module.items():
        policy = module_attempts[-1].policy
        certifying = [a for a in module_attempts if a.certifying]
        _grade, passed = final_score(policy=policy, attempts=certifying)
        in_progress = any(getattr(a, "result", None) is None for a in module_attempts)
        all_used = len(certifying) >= policy.max_attempts + extra.get(module_id, 0)
        moment = {
            "immediately": True,
            "after_passing": passed,
            "after_last_attempt": passed or (all_used and not in_progress),
        }[policy.review_timing]
        for attempt in module_attempts:
            if getattr(attempt, "result", None) is None:
                allowed[attempt.pk] = NOTHING
            elif not attempt.certifying:
                allowed[attempt.pk] = max(CORRECTNESS, LEVELS[policy.review_content])
            else:
                allowed[attempt.pk] = LEVELS[policy.review_content] if moment else SCORE_ONLY
    items = {
        row["id"]: row
        for row in ExamAttemptItem.objects.filter(attempt__learner_id=learner_id).values(
            "id", "attempt_id", "explanation", "kind", "answer_key"
        )
    }
    return allowed, items


# Accepted answers and numbers shorter than this are not looked for as text (a "14" is in every
# timestamp); tests that need the check choose longer ones.
SECRET_MIN_LENGTH = 5


def typed_secrets(row: dict) -> list[str]:
    """The texts that would give away a typed item's answer: its accepted short answers, its
    numbers (as written, and with a decimal comma). A learner's own answer repeating one letter
    for letter would count too: the tests type accepted answers in capitals."""
    key = row.get("answer_key") or {}
    if row.get("kind") == "short_answer":
        values = list(key.get("accepted", []))
    elif row.get("kind") == "numerical":
        values = [
            str(answer[name])
            for answer in key.get("answers", [])
            for name in ("value", "min", "max")
            if name in answer
        ]
        values += [value.replace(".", ",") for value in values]
    else:
        values = []
    return [value for value in dict.fromkeys(values) if len(value) >= SECRET_MIN_LENGTH]


@dataclasses.dataclass
class AnswerScanner:
    """Collects, per response, what it reveals of which attempt, and every violation."""

    violations: list[str] = dataclasses.field(default_factory=list)
    # (path, attempt id, level revealed): lets tests prove the scanner sees a permitted review.
    reveals: list[tuple[str, int | None, int]] = dataclasses.field(default_factory=list)
    # (path, secret text) of every accepted answer or number of a typed item seen in a response.
    secrets_seen: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    scanned: int = 0

    def scan(self, request, response) -> None:
        from django.db import DatabaseError, connection

        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.is_staff:
            return
        if response.streaming or not response.content:
            return
        if connection.needs_rollback:
            return  # the request broke its transaction; it answered with an error anyway
        try:
            allowed, items = review_allowed_levels(
                user.pk if user is not None and user.is_authenticated else None
            )
        except DatabaseError:
            return
        self.scanned += 1
        content_type = response.get("Content-Type", "")
        text = response.content.decode(response.charset or "utf-8", errors="replace")
        where = f"{request.method} {request.path}"
        if "json" in content_type:
            try:
                body = json.loads(text)
            except ValueError:
                return
            self._scan_json(where, body, allowed, items)
            strings = list(_json_strings(body))
        elif "html" in content_type:
            self._scan_html(where, request, text, allowed)
            strings = [html.unescape(text)]
        else:
            return
        explanations_allowed = {
            row["explanation"]
            for row in items.values()
            if allowed.get(row["attempt_id"], NOTHING) >= CORRECT_ANSWERS
        }
        for item_id, row in items.items():
            explanation = row["explanation"]
            if not explanation or explanation in explanations_allowed:
                continue
            if any(explanation in value for value in strings):
                self._reveal(where, row["attempt_id"], CORRECT_ANSWERS, allowed, f"item {item_id}")
        # The typed kinds' answers (short answer, numerical) as text anywhere in the response;
        # as with explanations, one a permitted review shows is no leak of the same bank item
        # in another attempt.
        secrets_allowed = {
            secret
            for row in items.values()
            if allowed.get(row["attempt_id"], NOTHING) >= CORRECT_ANSWERS
            for secret in typed_secrets(row)
        }
        for item_id, row in items.items():
            for secret in typed_secrets(row):
                if not any(secret in value for value in strings):
                    continue
                self.secrets_seen.append((where, secret))
                if secret not in secrets_allowed:
                    self._reveal(
                        where, row["attempt_id"], CORRECT_ANSWERS, allowed, f"item {item_id}"
                    )

    def _reveal(self, where, attempt_id, level, allowed, what) -> None:
        self.reveals.append((where, attempt_id, level))
        permitted = allowed.get(attempt_id, NOTHING) if attempt_id is not None else NOTHING
        if level > permitted:
            self.violations.append(
                f"{where} reveals {LEVEL_NAMES[level]} of {what} (attempt {attempt_id}); "
                f"the review policy allows {LEVEL_NAMES[permitted]} now"
            )

    def _scan_json(self, where, body, allowed, items) -> None:
        for node in _json_dicts(body):
            item = items.get(node.get("id")) if "position" in node else None
            attempt_id = item["attempt_id"] if item else None
            if ANSWER_FIELDS & node.keys():
                self._reveal(where, attempt_id, CORRECT_ANSWERS, allowed, f"item {node.get('id')}")
            elif "is_correct" in node:
                self._reveal(where, attempt_id, CORRECTNESS, allowed, f"item {node.get('id')}")

    def _scan_html(self, where, request, text, allowed) -> None:
        match = getattr(request, "resolver_match", None)
        attempt = match.kwargs.get("attempt") if match else None
        scope = [int(attempt)] if attempt is not None else list(allowed) or [None]
        for pattern, level in (
            (HTML_CORRECT_ANSWER_RE, CORRECT_ANSWERS),
            (HTML_CORRECTNESS_RE, CORRECTNESS),
        ):
            if pattern.search(text):
                for attempt_id in scope:
                    self._reveal(where, attempt_id, level, allowed, "the page")


def _json_dicts(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _json_dicts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _json_dicts(value)


def _json_strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _json_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _json_strings(value)


# --- naming learner A's objects in URLs ---------------------------------------------------------


def path_values(world) -> dict[str, object]:
    """Values for path parameters: learner A's objects (and course content A uses)."""
    return {
        "module": world.module_slug,
        "number": 1,
        "quick_check": world.ids["quick_check"],
        "attempt": world.ids["attempt"],
        "card_id": world.ids["card_id"],
        "notification_id": world.ids["notification_id"],
        "device_id": world.ids["device_id"],
        "code": world.ids["certificate_code"],
        # Single sign-on: an institution's provider (none is configured in the world: 404).
        "organization_slug": "uni-x",
        "provider_id": "uni-x",
    }


def web_routes() -> list[str]:
    """The route (with <converters>) of every page outside /api/ and /admin/, from the URLconf."""
    routes = []

    def walk(patterns, prefix=""):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                if route.startswith(("api/", "admin/")):
                    continue
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                routes.append(route)

    walk(get_resolver().url_patterns)
    return sorted(set(routes))


# Pages that only work with a secret from an e-mail (reset link, unsubscribe token) are not
# "A's objects" a logged-in learner can name; they are covered by their owners' tests.
WEB_SECRET_ROUTES = re.compile(r"<uidb64>|<str:token>|password-reset/<")


def web_url(route: str, values: dict[str, object]) -> str:
    """The route with its converters, or a regular expression's named groups (allauth's SSO
    URLs), filled from ``values`` (see path_values)."""
    route = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: f"<{m.group(1)}>", route)
    route = route.replace("^", "").replace("$", "")
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), route)


def user_models():
    """(model, field) for every table with rows of a user: the user table itself ("pk") and
    each model with a foreign key to it."""
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    yield user_model, "pk"
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if (
                (field.many_to_one or field.one_to_one)
                and field.related_model is user_model
                and field.concrete
            ):
                yield model, field.name
