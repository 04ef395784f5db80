"""No response shows an exam's correct answers before the review policy allows it.

The ``answer_scanner`` fixture (conftest) checks every response of every reliability test. This
module drives the exam through the API and the web pages under every review policy (content x
timing), including the moment that is easiest to get wrong: the last allowed attempt is in
progress while the earlier ones are finalized. It also proves the scanner is not blind: where the
policy does allow a review, the scanner must have seen the review in JSON and in HTML.
"""

from __future__ import annotations

import itertools
import json

import pytest
from django.test import Client
from reliability_world import JsonClient, actor_create, exam_answer_all, ok

pytestmark = pytest.mark.django_db

CONTENTS = ("score_only", "correctness", "correct_answers")
TIMINGS = ("immediately", "after_passing", "after_last_attempt")


@pytest.fixture
def exam_module(second_module):
    """The small second module with a short exam whose items carry unique explanations."""
    from quizzes.models import ExamItem, ExamPolicy
    from quizzes.services.items import exam_items_generate

    exam_items_generate(module_id=second_module.id)
    for item in ExamItem.objects.filter(module=second_module):
        item.explanation = f"Erklärung {item.pk}: nur nach der Freigabe sichtbar."
        item.save(update_fields=["explanation"])
    ExamPolicy.objects.filter(module=second_module).update(items_per_attempt=3, max_attempts=2)
    return second_module


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
    learner = actor_create("lea")
    web = Client()
    web.force_login(learner.user)
    slug = exam_module.slug
    ok(learner.client.post(f"/api/v1/modules/{slug}/enrollment/"))

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
    assert answer_scanner.scanned > 20


def test_scanner_flags_a_leak(exam_module, answer_scanner):
    """Guard: an open attempt's correct keys in a response are reported."""
    from quizzes.models import ExamAttemptItem

    learner = actor_create("lina")
    slug = exam_module.slug
    ok(learner.client.post(f"/api/v1/modules/{slug}/enrollment/"))
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
