"""Saving an attempt's answers (autosave): all or nothing, until the deadline plus the grace.

The attempt's row is locked first, so a save and the attempt's finalization never interleave.
A fixed number of queries whatever the number of items.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from lms.errors import Conflict, InvalidInput, NotFound
from quizzes.attempt_rules import answers_accepted
from quizzes.models import ExamAttempt, ExamAttemptItem, ExamItem, ExamResult


@dataclass(frozen=True)
class SavedAnswers:
    attempt: ExamAttempt
    saved_count: int
    answered_count: int
    saved_at: datetime.datetime


def exam_attempt_answers_save(
    *,
    learner_id: int,
    attempt_id: int,
    answers: Sequence[dict],
    now: datetime.datetime | None = None,
) -> SavedAnswers:
    """Save some or all answers (``[{"item": id, "selected": [keys]}]``; ``[]`` clears one).

    All or nothing: one unknown item or option key and nothing is saved (400). After the
    deadline plus the grace period, or once the attempt is finalized, a 409.
    """
    now = now or timezone.now()
    with transaction.atomic():
        attempt = (
            ExamAttempt.objects.select_for_update()
            .filter(pk=attempt_id, learner_id=learner_id)
            .first()
        )
        if attempt is None:
            raise NotFound("There is no such exam attempt.", code="attempt_not_found")
        # A separate query after the lock: it sees a result committed while we waited for it.
        if ExamResult.objects.filter(attempt_id=attempt.pk).exists():
            raise Conflict("This attempt is finalized.", code="attempt_finalized")
        if not answers_accepted(deadline_at=attempt.deadline_at, now=now):
            raise Conflict(
                "The time for this attempt is up; answers can no longer be saved.",
                code="deadline_passed",
                detail={"deadline_at": attempt.deadline_at.isoformat()},
            )
        items = {
            item.pk: item
            for item in ExamAttemptItem.objects.filter(attempt_id=attempt.pk).only(
                "id", "attempt_id", "kind", "options", "selected_keys", "answered_at"
            )
        }
        problems = _answer_problems(answers=answers, items=items)
        if problems:
            raise InvalidInput("Some answers are not valid; nothing was saved.", detail=problems)
        changed = []
        for answer in answers:
            item = items[answer["item"]]
            order = [option["key"] for option in item.options]
            selected = sorted(set(answer["selected"]), key=order.index)
            item.selected_keys = selected
            item.answered_at = now
            changed.append(item)
        if changed:
            ExamAttemptItem.objects.bulk_update(changed, ["selected_keys", "answered_at"])
    answered = sum(1 for item in items.values() if item.selected_keys)
    return SavedAnswers(
        attempt=attempt, saved_count=len(changed), answered_count=answered, saved_at=now
    )


def _answer_problems(*, answers: Sequence[dict], items: dict[int, ExamAttemptItem]) -> list[dict]:
    problems = []
    seen: set[int] = set()
    for index, answer in enumerate(answers):
        item = items.get(answer["item"])
        if item is None:
            problems.append({"index": index, "code": "unknown_item", "item": answer["item"]})
            continue
        if answer["item"] in seen:
            problems.append({"index": index, "code": "duplicate_item", "item": answer["item"]})
            continue
        seen.add(answer["item"])
        keys = {option["key"] for option in item.options}
        unknown = sorted(set(answer["selected"]) - keys)
        if unknown:
            problems.append(
                {"index": index, "code": "unknown_option", "item": item.pk, "keys": unknown}
            )
        elif item.kind != ExamItem.Kind.MULTIPLE_CHOICE and len(set(answer["selected"])) > 1:
            problems.append({"index": index, "code": "one_option_only", "item": item.pk})
    return problems
