"""What migrating to the reviewed bank makes of existing data: every item a draft, every
attempt certifying (its certificate stays valid), every policy behind the completion gate."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.test import Client
from django.utils import timezone

from tests.helpers.migrations import migrate_to

# accounts at its newest: its columns exist in the database whatever quizzes is migrated to, so
# the historical User model must know them (session_epoch has no database default).
ACCOUNTS = ("accounts", "0007_user_full_name")
BEFORE = [("quizzes", "0004_attempt_item_room_for_updates"), ACCOUNTS]
AFTER = [("quizzes", "0007_attempt_mode_and_accommodations"), ACCOUNTS]


def test_existing_items_become_drafts_and_certificates_stay_valid(migrated_back_afterwards):
    old = migrate_to(BEFORE)
    now = timezone.now()
    user = old.get_model("accounts", "User").objects.create(username="alt", email="a@x.org")
    module = old.get_model("courses", "Module").objects.create(
        slug="m", series="S", number=1, title="M", header="M", source_path="m.txt"
    )
    policy = old.get_model("quizzes", "ExamPolicy").objects.create(
        module=module, requires_all_steps_completed=False
    )
    old.get_model("quizzes", "ExamItem").objects.create(
        module=module,
        kind="true_false",
        prompt="A ist B.",
        options=[{"key": "true", "text": "Richtig"}, {"key": "false", "text": "Falsch"}],
        correct_keys=["true"],
        origin="hand_written",
    )
    attempt = old.get_model("quizzes", "ExamAttempt").objects.create(
        learner=user,
        module=module,
        policy=policy,
        number=1,
        seed=7,
        item_count=1,
        pass_mark_percent=Decimal("80.00"),
        started_at=now - datetime.timedelta(minutes=5),
        deadline_at=now + datetime.timedelta(minutes=15),
    )
    old.get_model("quizzes", "ExamResult").objects.create(
        attempt=attempt,
        learner=user,
        module=module,
        score_percent=Decimal("100.00"),
        correct_count=1,
        item_count=1,
        passed=True,
        reason="submitted",
        finalized_at=now,
    )
    old.get_model("quizzes", "Certificate").objects.create(
        learner=user,
        module=module,
        attempt=attempt,
        code="alt-code",
        learner_name="Alt",
        score_percent=Decimal("100.00"),
        issued_at=now,
    )

    new = migrate_to(AFTER)
    item = new.get_model("quizzes", "ExamItem").objects.get()
    assert (item.status, item.reviewed_by_id, item.reviewed_at) == ("draft", None, None)
    assert new.get_model("quizzes", "ExamAttempt").objects.get().certifying is True
    assert new.get_model("quizzes", "ExamPolicy").objects.get().required_step_share == 100
    assert new.get_model("quizzes", "Certificate").objects.get().code == "alt-code"

    migrate_to()
    assert Client().get("/certificates/alt-code/").status_code == 200
