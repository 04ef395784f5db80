"""The look-up solver (tests/quizzes/lookup_solver.py) against both banks of the seed module:
it answers the generated recall items from the published text (at least 90 %, so it is a real
solver), and stays below the pass mark on the authored bank that the certifying exam draws."""

from __future__ import annotations

import string
from decimal import Decimal

import pytest
from django.conf import settings

from quizzes.answers import item_is_correct, matching_attempt_copy
from quizzes.models import ExamItem
from tests.quizzes.lookup_solver import answer, course_passages, option_support

pytestmark = pytest.mark.django_db

AUTHORED_BANK = settings.LERNPFAD_EXAM_ITEMS_DIR / "self-hosting-27.gift"


@pytest.fixture
def passages(course, api_client):
    """The course as an anonymous visitor reads it through the API."""

    def get(path: str) -> dict:
        response = api_client.get(path)
        assert response.status_code == 200, path
        return response.json()

    found = course_passages(get, course.slug)
    assert len(found) > 32 * 20  # every step's sections, not only the outline
    return found


def _as_shown(item: ExamItem) -> tuple[dict, dict]:
    """The item as an attempt shows it to the learner, and its key (for grading only)."""
    view = {"kind": item.kind, "prompt": item.prompt, "options": item.options, "choices": []}
    key = {"correct_keys": item.correct_keys, "answer_key": item.answer_key}
    if item.kind == "matching":
        pairs = item.answer_key["pairs"]
        lefts = [pair for pair in pairs if pair["left"].strip()]
        rights = list(dict.fromkeys(pair["right"] for pair in pairs))
        options, choices, answer_key = matching_attempt_copy(
            pairs=pairs,
            option_order=range(len(lefts)),
            choice_order=range(len(rights)),
            option_labels=string.ascii_lowercase,
        )
        view.update(options=options, choices=choices)
        key["answer_key"] = answer_key
    return view, key


def _score(items, passages) -> tuple[int, int]:
    right = 0
    for item in items:
        view, key = _as_shown(item)
        given = answer(view, passages)
        correct = item_is_correct(
            kind=item.kind,
            correct_keys=key["correct_keys"],
            answer_key=key["answer_key"],
            selected_keys=given.get("selected"),
            answer_text=given.get("text") or given.get("number"),
            answer_pairs=given.get("pairs"),
        )
        right += correct
    return right, len(items)


def test_the_solver_answers_the_generated_drafts(course, passages):
    from quizzes.services.items import exam_items_generate

    exam_items_generate(module_id=course.pk)
    generated = list(ExamItem.objects.filter(module=course, origin="generated"))
    assert {item.status for item in generated} == {"draft"}
    right, total = _score(generated, passages)
    print(f"look-up solver, generated drafts: {right} of {total} ({right / total:.0%})")
    assert total >= 100
    assert right / total >= 0.9


@pytest.fixture
def authored(course):
    from quizzes.services.gift_import import exam_items_gift_import

    exam_items_gift_import(
        module_id=course.pk, data=AUTHORED_BANK.read_bytes(), source=AUTHORED_BANK.name
    )
    return list(ExamItem.objects.filter(module=course, origin="hand_written"))


def test_the_solver_fails_the_authored_bank(course, passages, authored):
    from quizzes.services.items import exam_policy_get

    right, total = _score(authored, passages)
    print(f"look-up solver, authored bank: {right} of {total} ({right / total:.0%})")
    policy = exam_policy_get(module_id=course.pk)
    assert Decimal(100 * right) / total < policy.pass_mark_percent
    # Stronger: even the luckiest draw of an attempt holds too few items it can answer.
    assert Decimal(100 * min(right, policy.items_per_attempt)) / policy.items_per_attempt < (
        policy.pass_mark_percent
    )


def test_no_cheap_tell_answers_the_authored_choice_items(course, passages, authored):
    """Nor does turning the solver round (the option least like the course) or taking the
    longest option pass: the right answers are neither the odd ones out nor the long ones."""
    from quizzes.services.items import exam_policy_get

    single = [item for item in authored if item.kind == "single_choice"]
    contrary = longest = 0
    for item in single:
        support = {o["key"]: option_support(item.prompt, o["text"], passages) for o in item.options}
        contrary += min(support, key=support.get) in item.correct_keys
        longest += max(item.options, key=lambda o: len(o["text"]))["key"] in item.correct_keys
    print(f"single choice, {len(single)}: least supported {contrary}, longest {longest} right")
    pass_mark = exam_policy_get(module_id=course.pk).pass_mark_percent
    assert Decimal(100 * contrary) / len(single) < pass_mark
    assert Decimal(100 * longest) / len(single) < pass_mark
