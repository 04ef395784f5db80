"""Regrading after a corrected key (quizzes/services/regrade.py, quizzes/regrade.py): before and
after per learner, certificates issued, revoked, reinstated, the audit line, all or nothing,
idempotent; the rekeying of an attempt's own copy of an item by option text."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quizzes.models import (
    Certificate,
    ExamAttemptItem,
    ExamItem,
    ExamRegrade,
    ExamRegradeLearner,
    ExamResult,
)
from quizzes.regrade import ShownKey, attempt_item_key
from quizzes.selectors import item_regrade_plan
from quizzes.services.certificates import certificates_revoke
from quizzes.services.regrade import exam_item_regrade
from tests.factories import (
    REGRADE_OPTIONS,
    exam_attempt_take,
    exam_small_bank_create,
    learner_create,
)
from tests.helpers.queries import assert_queries_constant

RIGHT, NEW_RIGHT, WRONG = REGRADE_OPTIONS  # the key says "Port 80"; the truth is "Port 443"
SCORES_BEFORE = {"anna": Decimal("60.00"), "ben": Decimal("80.00"), "cem": Decimal("100.00")}


@pytest.fixture
def admin_user(db):
    return learner_create("kurs", is_staff=True)


@pytest.fixture
def three_learners(course, enroll):
    """Five items, the first ("x") with the wrong key. Anna chose the true answer of x and got
    3 of the other 4 (60 %, failed); Ben chose the keyed answer of x and 3 others (80 %,
    certificate); Cem chose the keyed answer and all 4 others (100 %, certificate)."""
    items = exam_small_bank_create(course)
    x, others = items[0], items[1:]
    learners = {}
    for name, x_choice, others_right in (
        ("anna", NEW_RIGHT, 3),
        ("ben", RIGHT, 3),
        ("cem", RIGHT, 4),
    ):
        user = learner_create(name, full_name=f"{name.title()} Prüfling", display_name=name)
        enroll(user)
        answers = {x.pk: x_choice}
        for index, item in enumerate(others):
            answers[item.pk] = RIGHT if index < others_right else WRONG
        exam_attempt_take(user, course, answers=answers)
        learners[name] = user
    x.correct_keys = ["b"]  # "Port 443"
    x.save()
    return x, learners


def _scores() -> dict[str, Decimal]:
    return {
        r.learner.username: r.score_percent for r in ExamResult.objects.select_related("learner")
    }


def test_before_the_regrade_the_wrong_key_stands(three_learners):
    _x, _learners = three_learners
    assert _scores() == {
        "anna": Decimal("60.00"),
        "ben": Decimal("80.00"),
        "cem": Decimal("100.00"),
    }
    assert set(Certificate.objects.values_list("learner__username", flat=True)) == {"ben", "cem"}


def test_the_dry_run_shows_before_and_after_and_writes_nothing(three_learners):
    x, _learners = three_learners
    plan = item_regrade_plan(item_id=x.pk)
    by_name = {learner.learner_name: learner for learner in plan.learners}
    assert set(by_name) == {"Anna Prüfling", "Ben Prüfling", "Cem Prüfling"}
    anna, ben, cem = by_name["Anna Prüfling"], by_name["Ben Prüfling"], by_name["Cem Prüfling"]
    assert (anna.grade_before, anna.grade_after) == (Decimal("60.00"), Decimal("80.00"))
    assert (anna.passed_before, anna.passed_after, anna.certificate_action) == (
        False,
        True,
        "issued",
    )
    assert (ben.grade_before, ben.grade_after) == (Decimal("80.00"), Decimal("60.00"))
    assert (ben.passed_before, ben.passed_after, ben.certificate_action) == (True, False, "revoked")
    assert (cem.grade_after, cem.certificate_action) == (Decimal("80.00"), "score_updated")
    [attempt] = anna.attempts
    assert (attempt.correct_before, attempt.correct_after) == (False, True)
    assert attempt.result_after.score_percent == Decimal("80.00")
    # A dry run: nothing written.
    assert _scores()["anna"] == Decimal("60.00")
    assert not ExamRegrade.objects.exists()


def test_the_regrade_issues_revokes_and_writes_the_audit_line(three_learners, admin_user):
    x, _learners = three_learners
    done = exam_item_regrade(item_id=x.pk, admin=admin_user)
    assert _scores() == {"anna": Decimal("80.00"), "ben": Decimal("60.00"), "cem": Decimal("80.00")}
    assert dict(ExamResult.objects.values_list("learner__username", "passed")) == {
        "anna": True,
        "ben": False,
        "cem": True,
    }
    certificates = {c.learner.username: c for c in Certificate.objects.select_related("learner")}
    assert certificates["anna"].revoked_at is None
    assert certificates["anna"].learner_name == "Anna Prüfling"
    assert certificates["anna"].score_percent == Decimal("80.00")
    assert certificates["ben"].revoked_at is not None
    assert str(x.pk) in certificates["ben"].revocation_reason
    assert certificates["cem"].score_percent == Decimal("80.00")
    # The attempts' own copy of x now holds the corrected key, in the attempt's labels.
    for row in ExamAttemptItem.objects.filter(item=x):
        shown = {o["key"]: o["text"] for o in row.options}
        assert [shown[key] for key in row.correct_keys] == [NEW_RIGHT]
    audit = ExamRegrade.objects.get()
    assert audit == done.regrade
    assert (audit.item_id, audit.performed_by_name, audit.attempts_changed) == (x.pk, "kurs", 3)
    assert audit.key == {"correct_keys": ["b"], "answer_key": {}}
    lines = {line.learner.username: line for line in audit.learners.select_related("learner")}
    assert (lines["anna"].grade_before, lines["anna"].grade_after) == (
        Decimal("60.00"),
        Decimal("80.00"),
    )
    assert lines["anna"].certificate_action == "issued"
    assert lines["anna"].certificate == certificates["anna"]
    assert lines["ben"].certificate_action == "revoked"
    assert lines["anna"].attempts[0]["score_before"] == "60.00"
    assert lines["anna"].attempts[0]["score_after"] == "80.00"


def test_a_second_run_changes_nothing(three_learners, admin_user):
    x, _learners = three_learners
    exam_item_regrade(item_id=x.pk, admin=admin_user)
    scores = _scores()
    certificates = list(Certificate.objects.order_by("pk").values())
    again = exam_item_regrade(item_id=x.pk, admin=admin_user)
    assert again.regrade is None and not again.plan.changed
    assert _scores() == scores
    assert list(Certificate.objects.order_by("pk").values()) == certificates
    assert ExamRegrade.objects.count() == 1


def test_a_failure_midway_leaves_nothing_changed(three_learners, admin_user, monkeypatch):
    x, _learners = three_learners
    before = _scores()
    keys = list(ExamAttemptItem.objects.order_by("pk").values_list("correct_keys", "is_correct"))

    def broken(**kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr("quizzes.services.regrade.certificate_issue", broken)
    with pytest.raises(RuntimeError):
        exam_item_regrade(item_id=x.pk, admin=admin_user)
    assert _scores() == before
    assert (
        list(ExamAttemptItem.objects.order_by("pk").values_list("correct_keys", "is_correct"))
        == keys
    )
    assert Certificate.objects.filter(revoked_at__isnull=True).count() == 2
    assert not ExamRegrade.objects.exists()


def test_a_key_set_back_reinstates_what_the_regrade_revoked_but_not_an_admins_revocation(
    three_learners, admin_user
):
    x, _learners = three_learners
    exam_item_regrade(item_id=x.pk, admin=admin_user)
    x.correct_keys = ["a"]
    x.save()
    exam_item_regrade(item_id=x.pk, admin=admin_user)
    certificates = {c.learner.username: c for c in Certificate.objects.select_related("learner")}
    assert certificates["ben"].revoked_at is None  # the regrade's own revocation, taken back
    assert certificates["anna"].revoked_at is not None
    assert _scores() == {
        "anna": Decimal("60.00"),
        "ben": Decimal("80.00"),
        "cem": Decimal("100.00"),
    }


def test_an_admins_own_revocation_survives_a_regrade(three_learners, admin_user):
    x, learners = three_learners
    exam_item_regrade(item_id=x.pk, admin=admin_user)
    anna = Certificate.objects.get(learner=learners["anna"])
    certificates_revoke(certificate_ids=[anna.pk], reason="Täuschung")  # an admin's decision
    for key in (["a"], ["b"]):  # Anna fails, then passes again
        x.correct_keys = key
        x.save()
        exam_item_regrade(item_id=x.pk, admin=admin_user)
    anna.refresh_from_db()
    assert anna.revoked_at is not None and anna.revocation_reason == "Täuschung"
    actions = ExamRegradeLearner.objects.filter(learner=learners["anna"]).order_by("regrade_id")
    assert [line.certificate_action for line in actions] == ["issued", "none", "none"]
    assert Certificate.objects.filter(learner=learners["anna"]).count() == 1


def test_an_attempt_whose_options_changed_is_left_alone(three_learners, admin_user):
    x, _learners = three_learners
    x.options = [{"key": "a", "text": "Port 8080"}, *x.options[1:]]
    x.save()
    plan = item_regrade_plan(item_id=x.pk)
    assert not plan.changed
    assert sorted(name for name, _number in plan.skipped) == [
        "Anna Prüfling",
        "Ben Prüfling",
        "Cem Prüfling",
    ]
    assert exam_item_regrade(item_id=x.pk, admin=admin_user).regrade is None


def test_the_plan_reads_a_fixed_number_of_queries(course, enroll, three_learners):
    x, _learners = three_learners
    items = list(ExamItem.objects.filter(module=course).order_by("pk"))

    def more():
        for index in range(3):
            user = learner_create(f"more{index}", full_name=f"Mehr {index}")
            enroll(user)
            exam_attempt_take(user, course, answers={item.pk: RIGHT for item in items})
        x.correct_keys = ["c"]
        x.save()

    assert_queries_constant(lambda: item_regrade_plan(item_id=x.pk), grow=more, budget=8)


# --- the rekeying rule, without a database ---------------------------------------------------


def test_a_choice_key_is_carried_over_by_option_text_into_the_attempts_labels():
    shown = [
        {"key": "a", "text": "Port 22"},
        {"key": "b", "text": "port  443"},
        {"key": "c", "text": "Port 80"},
    ]
    bank = [
        {"key": "x", "text": "Port 80"},
        {"key": "y", "text": "Port 443"},
        {"key": "z", "text": "Port 22"},
    ]
    key = attempt_item_key(
        kind="multiple_choice",
        bank_kind="multiple_choice",
        bank_options=bank,
        bank_correct_keys=["y", "z"],
        bank_answer_key={},
        shown_options=shown,
        shown_choices=None,
    )
    assert key == ShownKey(correct_keys=["a", "b"], answer_key=None)
    assert (
        attempt_item_key(
            kind="single_choice",
            bank_kind="single_choice",
            bank_options=bank[:2],
            bank_correct_keys=["y"],
            bank_answer_key={},
            shown_options=shown,
            shown_choices=None,
        )
        is None
    )


def test_a_matching_key_is_carried_over_into_the_attempts_choice_labels():
    key = attempt_item_key(
        kind="matching",
        bank_kind="matching",
        bank_options=[],
        bank_correct_keys=[],
        bank_answer_key={
            "pairs": [
                {"left": "FP32", "right": "4 Byte"},
                {"left": "INT8", "right": "1 Byte"},
                {"left": "", "right": "8 Byte"},
            ]
        },
        shown_options=[{"key": "a", "text": "INT8"}, {"key": "b", "text": "FP32"}],
        shown_choices=[
            {"key": "1", "text": "8 Byte"},
            {"key": "2", "text": "4 Byte"},
            {"key": "3", "text": "1 Byte"},
        ],
    )
    assert key == ShownKey(correct_keys=[], answer_key={"pairs": {"a": "3", "b": "2"}})


def test_a_typed_key_is_taken_as_it_is_and_a_changed_kind_is_refused():
    accepted = {"accepted": ["nvcc"]}
    common = {
        "bank_options": [],
        "bank_correct_keys": [],
        "shown_options": [],
        "shown_choices": None,
    }
    assert attempt_item_key(
        kind="short_answer", bank_kind="short_answer", bank_answer_key=accepted, **common
    ) == ShownKey(correct_keys=[], answer_key=accepted)
    assert (
        attempt_item_key(kind="short_answer", bank_kind="numerical", bank_answer_key={}, **common)
        is None
    )


def test_a_learners_data_export_holds_their_regrades(three_learners, admin_user):
    from quizzes.api import learner_export

    x, learners = three_learners
    exam_item_regrade(item_id=x.pk, admin=admin_user)
    [line] = learner_export(learners["anna"].pk)["exam_regrades"]
    assert (line["grade_before"], line["grade_after"]) == (Decimal("60.00"), Decimal("80.00"))
    assert line["certificate_action"] == "issued" and line["module__slug"] == "self-hosting-27"
