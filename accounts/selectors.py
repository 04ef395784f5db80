"""Account reads: the learner's devices (mobile tokens), what reminders and spaced repetition
need of a learner, and whether an e-mail confirmation link is good."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterator
from typing import Literal

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.data import ReminderLearner, ReminderRecipient, ReviewPreferences
from accounts.models import Device, User
from accounts.reminders import ReminderPreferences
from accounts.tokens import (
    ConfirmationTokenExpired,
    ConfirmationTokenInvalid,
    email_confirmation_claim,
)

_REMINDER_FIELDS = tuple(field.name for field in dataclasses.fields(ReminderPreferences))
_REVIEW_FIELDS = tuple(field.name for field in dataclasses.fields(ReviewPreferences))


def device_list(*, user_id: int) -> QuerySet[Device]:
    """The user's devices whose token has not expired, newest first: one query."""
    now = timezone.now()
    return (
        Device.objects.filter(user_id=user_id)
        .filter(Q(token__expiry__gt=now) | Q(token__expiry__isnull=True))
        .select_related("token")
        .order_by("-created_at", "-id")
    )


def review_preferences(learner_id: int) -> ReviewPreferences | None:
    """The learner's spaced-repetition settings (None: no such account): one query."""
    row = User.objects.filter(pk=learner_id).values(*_REVIEW_FIELDS).first()
    return None if row is None else ReviewPreferences(**row)


def reminder_recipient(learner_id: int) -> ReminderRecipient | None:
    """What a reminder digest's send step needs of the learner (None: no such account): one
    query."""
    user = (
        User.objects.filter(pk=learner_id)
        .only(
            "display_name",
            "full_name",
            "first_name",
            "last_name",
            "username",
            "language",
            *_REMINDER_FIELDS,
            *_REVIEW_FIELDS,
        )
        .first()
    )
    if user is None:
        return None
    return ReminderRecipient(
        id=user.pk,
        name=user.public_name,
        language=user.language,
        reminders=ReminderPreferences.of(user),
        review=ReviewPreferences(**{name: getattr(user, name) for name in _REVIEW_FIELDS}),
    )


def reminder_learner_chunks(
    *, at: datetime.datetime, chunk_size: int
) -> Iterator[list[ReminderLearner]]:
    """The learners whose next reminder instant has come, in keyset-paginated chunks along the
    partial index ``user_next_reminder``."""
    learners = (
        User.objects.filter(next_reminder_at__lte=at)
        .order_by("next_reminder_at", "pk")
        .values("id", "next_reminder_at", *_REMINDER_FIELDS)
    )
    page = learners
    while True:
        rows = [
            ReminderLearner(
                id=row["id"],
                next_reminder_at=row["next_reminder_at"],
                schedule=ReminderPreferences(
                    **{name: row[name] for name in _REMINDER_FIELDS}
                ).schedule,
            )
            for row in page[:chunk_size]
        ]
        if rows:
            yield rows
        if len(rows) < chunk_size:
            return
        last = rows[-1]
        page = learners.filter(
            Q(next_reminder_at__gt=last.next_reminder_at)
            | Q(next_reminder_at=last.next_reminder_at, pk__gt=last.id)
        )


def email_confirmation_link_state(*, token: str) -> Literal["valid", "expired", "invalid"]:
    """Whether a confirmation link would confirm something (reads only, at most one query)."""
    try:
        claim = email_confirmation_claim(token)
    except ConfirmationTokenExpired:
        return "expired"
    except ConfirmationTokenInvalid:
        return "invalid"
    user = (
        User.objects.filter(pk=claim.user_id, is_active=True).only("email", "pending_email").first()
    )
    if user is None or not (claim.names(user.email) or claim.names(user.pending_email)):
        return "invalid"
    return "valid"
