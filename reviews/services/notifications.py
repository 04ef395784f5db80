"""Marking in-app notifications as read."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from lms.errors import NotFound
from reviews.models import Notification


@transaction.atomic
def notification_mark_read(
    *, learner_id: int, notification_id: int, at: datetime.datetime | None = None
) -> Notification:
    """Mark one of the learner's notifications read (a second call keeps the first time)."""
    notification = (
        Notification.objects.select_for_update()
        .filter(id=notification_id, learner_id=learner_id)
        .first()
    )
    if notification is None:
        raise NotFound(_("You have no notification with this id."), code="notification_not_found")
    if notification.read_at is None:
        notification.read_at = at or timezone.now()
        notification.save(update_fields=["read_at"])
    return notification


@transaction.atomic
def notifications_mark_all_read(*, learner_id: int, at: datetime.datetime | None = None) -> int:
    """Mark all of the learner's unread notifications read; returns how many changed."""
    return Notification.objects.filter(learner_id=learner_id, read_at__isnull=True).update(
        read_at=at or timezone.now()
    )
