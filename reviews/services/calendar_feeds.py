"""The learner's private calendar address: create (replacing the live one) and revoke."""

from __future__ import annotations

import datetime
import secrets

from django.db import transaction
from django.utils import timezone

from reviews.models import CalendarFeed


@transaction.atomic
def calendar_feed_create(*, learner_id: int, at: datetime.datetime | None = None) -> CalendarFeed:
    """A new private address for the learner; the one in use (if any) is revoked with it, so a
    leaked address is replaced by creating another."""
    at = at or timezone.now()
    calendar_feed_revoke_all(learner_id=learner_id, at=at)
    return CalendarFeed.objects.create(
        learner_id=learner_id, token=secrets.token_urlsafe(32), created_at=at
    )


def calendar_feed_revoke_all(*, learner_id: int, at: datetime.datetime | None = None) -> int:
    """Revoke the learner's live address (how many were live: 0 or 1)."""
    return CalendarFeed.objects.filter(learner_id=learner_id, revoked_at__isnull=True).update(
        revoked_at=at or timezone.now()
    )
