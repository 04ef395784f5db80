"""The item bank of the seed module: coverage, regeneration in place, hand-written items."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from courses.models import Step
from quizzes.generator import normalized
from quizzes.models import ExamAttemptItem, ExamItem, exam_item_shape_errors
from quizzes.services.items import exam_items_generate

pytestmark = pytest.mark.django_db


def test_seed_module_has_at_least_three_items_per_step(course, bank):
    per_step = Counter(
        ExamItem.objects.filter(module=course, is_active=True, is_retired=False).values_list(
            "step_id", flat=True
        )
    )
    steps = Step.objects.filter(module=course, status="active")
    assert steps.count() == 32
    for step in steps:
        assert per_step[step.pk] >= 3, step.term
    kinds = Counter(ExamItem.objects.values_list("kind", flat=True))
    # A false statement only where the step has a relative of its family: 23 of 32.
    assert kinds == {"single_choice": 64, "true_false": 32 + 23}


def test_seed_items_are_well_formed_and_never_name_the_answer(course, bank):
    for item in ExamItem.objects.filter(module=course):
        assert (
            exam_item_shape_errors(
                kind=item.kind, options=item.options, correct_keys=item.correct_keys
            )
            == []
        ), item.generator_key
        if item.generator_key.endswith("term-for-description"):
            step = Step.objects.get(pk=item.step_id)
            assert normalized(step.term) not in normalized(item.prompt), item.prompt


def test_regeneration_without_changes_changes_nothing(course, bank):
    before = {i.pk: (i.prompt, i.updated_at) for i in ExamItem.objects.all()}
    report = exam_items_generate(module_id=course.pk)
    assert (report.created, report.updated, report.retired) == (0, 0, 0)
    assert report.unchanged == len(before)
    assert {i.pk: (i.prompt, i.updated_at) for i in ExamItem.objects.all()} == before


def test_regeneration_updates_in_place_and_leaves_past_attempts_alone(
    course, bank, learner_api, exam
):
    attempt = exam.start(learner_api)
    shown = {
        row.pk: (row.prompt, row.options, row.correct_keys)
        for row in ExamAttemptItem.objects.filter(attempt_id=attempt["id"])
    }
    fp16 = Step.objects.get(module=course, term="FP16")
    item = ExamItem.objects.get(generator_key="fp16:term-for-description")
    # A re-import changed the step's definition.
    fp16.definition = "FP16 ist ein halb so breites Gleitkommaformat wie FP32."
    fp16.save()

    report = exam_items_generate(module_id=course.pk)

    item.refresh_from_db()
    assert "halb so breites Gleitkommaformat" in item.prompt
    assert report.created == 0 and report.updated >= 1
    assert ExamItem.objects.filter(generator_key="fp16:term-for-description").count() == 1
    after = {
        row.pk: (row.prompt, row.options, row.correct_keys)
        for row in ExamAttemptItem.objects.filter(attempt_id=attempt["id"])
    }
    assert after == shown


def test_retired_steps_retire_their_items_and_come_back(course, bank):
    step = Step.objects.get(module=course, term="INT4")
    Step.objects.filter(pk=step.pk).update(status="retired")
    report = exam_items_generate(module_id=course.pk)
    retired = ExamItem.objects.filter(step_id=step.pk)
    assert report.retired == retired.count() >= 3
    assert all(item.is_retired for item in retired)
    # No remaining item uses the retired step as a distractor or false statement.
    for item in ExamItem.objects.filter(is_retired=False):
        assert all(option["text"] != "INT4" for option in item.options)

    Step.objects.filter(pk=step.pk).update(status="active")
    report = exam_items_generate(module_id=course.pk)
    assert report.restored == retired.count()
    assert not ExamItem.objects.filter(step_id=step.pk, is_retired=True).exists()


def test_hand_written_items_and_admin_switches_survive_regeneration(course, bank):
    step = Step.objects.get(module=course, term="FP16")
    hand = ExamItem.objects.create(
        module=course,
        step=step,
        kind="multiple_choice",
        prompt="Welche Formate sind 16 Bit breit?",
        options=[
            {"key": "a", "text": "FP16"},
            {"key": "b", "text": "BF16"},
            {"key": "c", "text": "FP32"},
        ],
        correct_keys=["a", "b"],
        origin="hand_written",
    )
    switched_off = ExamItem.objects.get(generator_key="fp16:statement-own")
    switched_off.is_active = False
    switched_off.save()
    Step.objects.filter(pk=step.pk).update(status="retired")
    exam_items_generate(module_id=course.pk)
    Step.objects.filter(pk=step.pk).update(status="active")
    exam_items_generate(module_id=course.pk)

    hand_after = ExamItem.objects.get(pk=hand.pk)
    assert (hand_after.prompt, hand_after.is_retired, hand_after.updated_at) == (
        hand.prompt,
        False,
        hand.updated_at,
    )
    switched_off.refresh_from_db()
    assert switched_off.is_active is False


def test_first_start_generates_the_bank_lazily(learner_api, exam, course):
    assert not ExamItem.objects.exists()
    attempt = exam.start(learner_api)
    assert len(attempt["items"]) == 10
    assert ExamItem.objects.filter(module=course).count() == 119


def test_command_generates_and_reports(course):
    out = StringIO()
    call_command("generate_exam_items", stdout=out)
    assert "self-hosting-27: created: 119" in out.getvalue()
    out = StringIO()
    call_command("generate_exam_items", "self-hosting-27", stdout=out)
    assert "created: 0" in out.getvalue() and "unchanged: 119" in out.getvalue()
    with pytest.raises(CommandError):
        call_command("generate_exam_items", "no-such-module")


def opts(*pairs):
    return [{"key": key, "text": text} for key, text in pairs]


@pytest.mark.parametrize(
    ("kind", "options", "correct", "problem"),
    [
        ("single_choice", opts(("a", "x"), ("a", "y")), ["a"], "distinct"),
        ("single_choice", opts(("a", "X"), ("b", " x")), ["a"], "texts"),
        ("single_choice", opts(("a", "x"), ("b", "y")), ["c"], "one of"),
        ("single_choice", opts(("a", "x"), ("b", "y")), ["a", "b"], "exactly one"),
        ("true_false", opts(("yes", "Ja"), ("no", "Nein")), ["yes"], "true"),
        ("multiple_choice", opts(("a", "x"), ("b", "y")), [], "at least one"),
        ("single_choice", "a,b", ["a"], "list"),
    ],
)
def test_item_shape_errors(kind, options, correct, problem):
    errors = exam_item_shape_errors(kind=kind, options=options, correct_keys=correct)
    assert any(problem in error for error in errors), errors
