"""Reviewing the exam item bank. An approval vouches for an item's exact text: any change
returns it to draft."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from quizzes.models import ExamItem

# The fields an approval vouches for: a change to any of them is new, unreviewed text.
CONTENT_FIELDS = ("kind", "prompt", "options", "correct_keys", "explanation")
_STATUSES = frozenset(ExamItem.Status.values)


def review_fields(*, status: str, reviewer_id: int | None, now: datetime.datetime) -> dict:
    """The review columns for an item set to ``status`` by ``reviewer_id`` now (a draft has
    no reviewer and no time); a new decision forgets the one a regeneration undid."""
    if status not in _STATUSES:
        raise ValueError(f"unknown item status {status!r}")
    if status == ExamItem.Status.DRAFT:
        return {
            "status": status,
            "reviewed_by_id": None,
            "reviewed_at": None,
            "review_before_change": {},
        }
    return {
        "status": status,
        "reviewed_by_id": reviewer_id,
        "reviewed_at": now,
        "review_before_change": {},
    }


@transaction.atomic
def exam_items_review(
    *,
    item_ids: Iterable[int],
    status: str,
    reviewer_id: int | None,
    now: datetime.datetime | None = None,
) -> int:
    """Set the items' review status (the admin's bulk actions); items already in it keep their
    reviewer and time. Returns how many changed. One UPDATE."""
    fields = review_fields(status=status, reviewer_id=reviewer_id, now=now or timezone.now())
    return (
        ExamItem.objects.filter(pk__in=list(item_ids))
        .exclude(status=status)
        .update(**fields, updated_at=now or timezone.now())
    )


def exam_item_edit_review(
    *,
    item: ExamItem,
    previous_status: str | None,
    changed_fields: Iterable[str],
    editor_id: int | None,
    now: datetime.datetime | None = None,
) -> bool:
    """Set the review columns of an item an admin is saving: a chosen status is recorded, else
    an edited decided item returns to draft (True then)."""
    now = now or timezone.now()
    changed = set(changed_fields)
    if previous_status is None or "status" in changed:
        # A new item, or a status chosen in the form: the editor decided (a draft: no one).
        for name, value in review_fields(
            status=item.status, reviewer_id=editor_id, now=now
        ).items():
            setattr(item, name, value)
        return False
    if item.status != ExamItem.Status.DRAFT and changed & set(CONTENT_FIELDS):
        for name, value in review_fields(
            status=ExamItem.Status.DRAFT, reviewer_id=None, now=now
        ).items():
            setattr(item, name, value)
        return True
    return False


@transaction.atomic
def exam_bank_approve(
    *, module_id: int, reviewer_id: int | None, now: datetime.datetime | None = None
) -> int:
    """Approve every draft item of the module that attempts may draw (the benchmark's and the
    tests' certifying banks). Rejected items stay rejected. Returns how many were approved."""
    ids = list(
        ExamItem.objects.filter(module_id=module_id, status=ExamItem.Status.DRAFT)
        .drawable()
        .values_list("id", flat=True)
    )
    return exam_items_review(
        item_ids=ids, status=ExamItem.Status.APPROVED, reviewer_id=reviewer_id, now=now
    )
