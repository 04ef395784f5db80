"""No response shows an exam's correct answers before the review policy allows it.

The ``answer_scanner`` fixture (conftest) checks every response of every reliability test. This
module drives the exam through the API and the web pages under every review policy (content x
timing), including the moment that is easiest to get wrong: the last allowed attempt is in
progress while the earlier ones are finalized. It also proves the scanner is not blind: where the
policy does allow a review, the scanner must have seen the review in JSON and in HTML.

The same holds for a practice exam (a bank of drafts: feedback right after each attempt, never
before it is finalized) and for a learner with an accommodation (an extra attempt moves "after
the last attempt" one attempt later; extra time changes nothing about what is shown).
"""

from __future__ import annotations

import itertools
import json

import pytest
from django.test import Client
from reliability_world import JsonClient, actor_create, exam_answer_all, ok

from tests.factories import exam_bank_approve, steps_complete

pytestmark = pytest.mark.django_db

CONTENTS = ("score_only", "correctness", "correct_answers")
TIMINGS = ("immediately", "after_passing", "after_last_attempt")


# The typed items' answers: texts no page shows otherwise, so the scanner can look for them.
SHORT_ANSWERS = ["Kanarienantwort", "Zweite Kanarienantwort"]
NUMBER = "73519.25"


@pytest.fixture
def draft_exam_module(second_module):
    """The small second module with a short exam whose items carry unique explanations: two
    generated choice items and a short-answer, a numerical and a matching item, all drawn; its
    bank is as generated and written (drafts), so its exam is practice."""
    from quizzes.models import ExamItem, ExamPolicy
    from quizzes.services.items import exam_items_generate

    exam_items_generate(module_id=second_module.id)
    kept = list(ExamItem.objects.filter(module=second_module).order_by("id")[:2])
    ExamItem.objects.filter(module=second_module).exclude(pk__in=[i.pk for i in kept]).update(
        is_active=False
    )
    ExamItem.objects.bulk_create(
        [
            ExamItem(
                module=second_module,
                kind="short_answer",
                prompt="Wie heißt der Vogel im Bergwerk?",
                answer_key={"accepted": SHORT_ANSWERS},
            ),
            ExamItem(
                module=second_module,
                kind="numerical",
                prompt="Welche Zahl ist gemeint?",
                answer_key={"answers": [{"value": NUMBER, "tolerance": "0.125"}]},
            ),
            ExamItem(
                module=second_module,
                kind="matching",
                prompt="Ordne zu.",
                answer_key={
                    "pairs": [
                        {"left": "Eins", "right": "Paarung Alpha"},
                        {"left": "Zwei", "right": "Paarung Beta"},
                        {"left": "Drei", "right": "Paarung Gamma"},
                    ]
                },
            ),
        ]
    )
    for item in ExamItem.objects.filter(module=second_module):
        item.explanation = f"Erklärung {item.pk}: nur nach der Freigabe sichtbar."
        item.save(update_fields=["explanation"])
    ExamPolicy.objects.filter(module=second_module).update(items_per_attempt=5, max_attempts=2)
    return second_module


@pytest.fixture
def exam_module(draft_exam_module):
    """… with its bank approved: a certifying exam."""
    exam_bank_approve(draft_exam_module)
    return draft_exam_module


def _learner_ready(name: str, module):
    """A learner enrolled through the API with every step of the module completed (the
    completion gate is open), and a browser session of theirs."""
    learner = actor_create(name)
    web = Client()
    web.force_login(learner.user)
    ok(learner.client.post(f"/api/v1/modules/{module.slug}/enrollment/"))
    steps_complete(learner.user, module)
    return learner, web


def _visit(api: JsonClient, web: Client, slug: str, attempt_id: int) -> None:
    """Every view of the exam a learner can open, as JSON and as HTML."""
    ok(api.get(f"/api/v1/exam-attempts/{attempt_id}/"))
    ok(api.get(f"/api/v1/modules/{slug}/exam/"))
    ok(web.get(f"/modules/{slug}/exam/"))
    page = web.get(f"/exam/attempts/{attempt_id}/")
    assert page.status_code in (200, 302), page.status_code
    result = web.get(f"/exam/attempts/{attempt_id}/result/")
    assert result.status_code in (200, 302), result.status_code


@pytest.mark.parametrize(("content", "timing"), list(itertools.product(CONTENTS, TIMINGS)))
def test_exam_views_reveal_no_more_than_the_policy_allows(
    exam_module, answer_scanner, content, timing
):
    from quizzes.models import ExamPolicy

    ExamPolicy.objects.filter(module=exam_module).update(
        review_content=content, review_timing=timing
    )
    learner, web = _learner_ready("lea", exam_module)
    slug = exam_module.slug

    first = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    _visit(learner.client, web, slug, first["id"])
    exam_answer_all(learner, first["id"], correctly=False)
    ok(learner.client.post(f"/api/v1/exam-attempts/{first['id']}/submit/"))
    _visit(learner.client, web, slug, first["id"])

    # The last allowed attempt is in progress: the first attempt's review must wait for it
    # under "after the last attempt" (and "after passing": nothing is passed yet).
    second = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    _visit(learner.client, web, slug, first["id"])
    _visit(learner.client, web, slug, second["id"])
    exam_answer_all(learner, second["id"], correctly=True)
    submitted = ok(learner.client.post(f"/api/v1/exam-attempts/{second['id']}/submit/")).json()
    assert submitted["passed"]
    _visit(learner.client, web, slug, first["id"])
    _visit(learner.client, web, slug, second["id"])

    # Not blind: once everything is finalized and passed, every policy's moment has come, so
    # its content must have been seen by the scanner, in JSON and in HTML.
    expected = {"score_only": 1, "correctness": 2, "correct_answers": 3}[content]
    if expected > 1:
        for kind in ("/api/", "/exam/attempts/"):
            assert any(
                kind in where and level == expected
                for where, _attempt, level in answer_scanner.reveals
            ), f"the scanner never saw the permitted {content} review in {kind} responses"
    else:
        assert not answer_scanner.reveals
    # … and the typed items' accepted answers and number, in JSON and in HTML, exactly when
    # the policy shows the correct answers.
    for kind in ("/api/", "/exam/attempts/"):
        seen = {secret for where, secret in answer_scanner.secrets_seen if kind in where}
        if content == "correct_answers":
            assert {*SHORT_ANSWERS, NUMBER} <= seen, seen
        else:
            assert not seen, seen
    assert answer_scanner.scanned > 20


def test_scanner_flags_a_leak(exam_module, answer_scanner):
    """Guard: an open attempt's correct keys in a response are reported."""
    from quizzes.models import ExamAttemptItem

    learner, _web = _learner_ready("lina", exam_module)
    slug = exam_module.slug
    attempt = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    item = ExamAttemptItem.objects.filter(attempt_id=attempt["id"]).first()

    class Request:
        method, path, user, resolver_match = "GET", "/fake/", learner.user, None

    class Response:
        streaming = False
        charset = "utf-8"
        content = json.dumps(
            {"id": item.pk, "position": 1, "correct_keys": item.correct_keys}
        ).encode()

        def get(self, name, default=None):
            return "application/json"

    answer_scanner.scan(Request(), Response())
    assert len(answer_scanner.violations) == 1
    answer_scanner.violations.clear()


@pytest.mark.parametrize("content", CONTENTS)
@pytest.mark.parametrize("timing", ["immediately", "after_last_attempt"])
def test_practice_exam_reveals_feedback_only_after_each_attempt(
    draft_exam_module, answer_scanner, content, timing
):
    """A practice exam (drafts only): nothing while an attempt runs, then which answers were
    right (and the correct answers if the policy's review content has them), whatever the
    timing; never a certificate."""
    from quizzes.models import Certificate, ExamPolicy

    ExamPolicy.objects.filter(module=draft_exam_module).update(
        review_content=content, review_timing=timing
    )
    learner, web = _learner_ready("pia", draft_exam_module)
    slug = draft_exam_module.slug
    overview = ok(learner.client.get(f"/api/v1/modules/{slug}/exam/")).json()
    assert overview["mode"] == "practice"

    first = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    assert first["mode"] == "practice"
    _visit(learner.client, web, slug, first["id"])
    assert not answer_scanner.reveals, "a running practice attempt revealed answers"
    exam_answer_all(learner, first["id"], correctly=True)
    submitted = ok(learner.client.post(f"/api/v1/exam-attempts/{first['id']}/submit/")).json()
    assert submitted["passed"] and submitted["certificate"] is None
    assert not Certificate.objects.exists()
    _visit(learner.client, web, slug, first["id"])

    # A second practice attempt runs while the first one's feedback stays visible.
    second = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    _visit(learner.client, web, slug, second["id"])

    expected = 3 if content == "correct_answers" else 2
    for kind in ("/api/", "/exam/attempts/"):
        assert any(
            kind in where and attempt == first["id"] and level == expected
            for where, attempt, level in answer_scanner.reveals
        ), f"the scanner never saw the practice feedback in {kind} responses"
    assert not any(attempt == second["id"] for _where, attempt, _level in answer_scanner.reveals)


def test_an_extra_attempt_holds_back_the_review_one_attempt_longer(exam_module, answer_scanner):
    """ "After the last attempt" with an accommodation: the policy's last attempt is not the
    learner's last, so its review waits for the extra one; extra time reveals nothing."""
    from quizzes.models import ExamAccommodation, ExamPolicy

    ExamPolicy.objects.filter(module=exam_module).update(
        review_content="correct_answers", review_timing="after_last_attempt", max_attempts=1
    )
    learner, web = _learner_ready("ella", exam_module)
    ExamAccommodation.objects.create(
        learner=learner.user, module=exam_module, extra_time_minutes=30, extra_attempts=1
    )
    slug = exam_module.slug

    first = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    assert (
        first["time_limit_minutes"]
        == ExamPolicy.objects.get(module=exam_module).time_limit_minutes + 30
    )
    exam_answer_all(learner, first["id"], correctly=False)
    ok(learner.client.post(f"/api/v1/exam-attempts/{first['id']}/submit/"))
    _visit(learner.client, web, slug, first["id"])
    assert not answer_scanner.reveals, "the review came before the learner's extra attempt"

    second = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    _visit(learner.client, web, slug, first["id"])
    exam_answer_all(learner, second["id"], correctly=False)
    ok(learner.client.post(f"/api/v1/exam-attempts/{second['id']}/submit/"))
    _visit(learner.client, web, slug, first["id"])
    assert any(
        attempt == first["id"] and level == 3 for _where, attempt, level in answer_scanner.reveals
    ), "after the extra attempt the review should show the answers"


def test_scanner_flags_a_typed_answer_in_a_page(exam_module, answer_scanner):
    """Guard: an open attempt's accepted short answer or number anywhere in a page, and the
    typed kinds' answer fields in JSON, are reported."""
    from quizzes.models import ExamAttemptItem

    learner, _web = _learner_ready("lina", exam_module)
    slug = exam_module.slug
    attempt = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    matching = ExamAttemptItem.objects.get(attempt_id=attempt["id"], kind="matching")

    class Request:
        method, path, user, resolver_match = "GET", "/fake/", learner.user, None

    def response(content_type: str, body: str):
        class Response:
            streaming = False
            charset = "utf-8"
            content = body.encode()

            def get(self, name, default=None):
                return content_type

        return Response()

    for leak in (
        response("text/html", f"<p>Tipp: {SHORT_ANSWERS[1]}</p>"),
        response("text/html", f'<input data-answer="{NUMBER.replace(".", ",")}">'),
        response(
            "application/json",
            json.dumps({"id": matching.pk, "position": 5, "correct_pairs": []}),
        ),
    ):
        answer_scanner.scan(Request(), leak)
        assert answer_scanner.violations, leak.content
        assert all("reveals correct_answers" in v for v in answer_scanner.violations)
        answer_scanner.violations.clear()
    # The learner's own answer in capitals (as the tests type it) is no leak.
    answer_scanner.scan(Request(), response("text/html", f"<p>{SHORT_ANSWERS[0].upper()}</p>"))
    assert not answer_scanner.violations
