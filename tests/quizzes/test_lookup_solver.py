"""The look-up solver (quizzes/lookup_solver.py) against both banks of the seed module:
it answers the generated recall items from the published text (at least 90 %, so it is a real
solver), and stays below the pass mark on the authored bank that the certifying exam draws."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.conf import settings

from quizzes.lookup_solver import answers_right, course_passages, option_support
from quizzes.models import ExamItem

pytestmark = pytest.mark.django_db

AUTHORED_BANK = settings.LERNPFAD_EXAM_ITEMS_DIR / "self-hosting-27.gift"


@pytest.fixture
def passages(course, api_client):
    """The course as an anonymous visitor reads it through the API."""

    def get(path: str) -> dict:
        response = api_client.get(path)
        assert response.status_code == 200, path
        return response.json()

    texts = []
    for entry in get(f"/api/v1/modules/{course.slug}/")["outline"]:
        texts.append((entry["term"], entry["definition"]))
        step = get(f"/api/v1/modules/{course.slug}/steps/{entry['number']}/")
        texts.append((step["term"], step["lead"]))
        for section in step["sections"]:
            texts.append((step["term"], section["heading"]))
            texts.extend((step["term"], line) for line in section["lines"])
        for check in step["quick_checks"]:
            texts += [(step["term"], check["question"]), (step["term"], check["answer"])]
    found = course_passages(texts)
    assert len(found) > 32 * 20  # every step's sections, not only the outline
    return found


def _score(items, passages) -> tuple[int, int]:
    right = sum(
        answers_right(
            kind=item.kind,
            prompt=item.prompt,
            options=item.options,
            correct_keys=item.correct_keys,
            answer_key=item.answer_key,
            passages=passages,
        )
        for item in items
    )
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


def test_the_review_list_flags_the_items_a_look_up_answers(course, admin_client):
    from quizzes.selectors import lookup_risk_ids
    from quizzes.services.items import exam_items_generate

    exam_items_generate(module_id=course.pk)
    hand_written = ExamItem.objects.create(
        module=course,
        kind="single_choice",
        prompt="Ein Dienst meldet nach dem Treiber-Update „no CUDA-capable device“. Was zuerst?",
        options=[
            {"key": "a", "text": "nvidia-smi auf dem Host aufrufen"},
            {"key": "b", "text": "Die Batchgröße halbieren"},
        ],
        correct_keys=["a"],
    )
    risky = lookup_risk_ids(module_id=course.pk)
    generated = set(
        ExamItem.objects.filter(module=course, origin="generated").values_list("pk", flat=True)
    )
    assert len(risky & generated) >= 0.9 * len(generated)
    assert hand_written.pk not in risky

    page = admin_client.get(
        f"/admin/quizzes/examitem/?module__id__exact={course.pk}", HTTP_ACCEPT_LANGUAGE="de"
    )
    text = page.content.decode()
    assert "Nachschlagerisiko" in text
    changelist = page.context["cl"]
    column = changelist.list_display[-1]
    assert [column(item) for item in changelist.result_list] == [
        item.pk in risky for item in changelist.result_list
    ]
    assert any(item.pk in risky for item in changelist.result_list)

    # An edit that a look-up no longer answers clears the flag at once (the cache follows it).
    item = ExamItem.objects.get(pk=next(iter(risky & generated)))
    item.correct_keys = [o["key"] for o in item.options if o["key"] not in item.correct_keys][:1]
    item.save()
    assert item.pk not in lookup_risk_ids(module_id=course.pk)
