"""Account reads: the learner's devices (mobile tokens)."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Device


def device_list(*, user_id: int) -> QuerySet[Device]:
    """The user's devices whose token has not expired, newest first: one query."""
    now = timezone.now()
    return (
        Device.objects.filter(user_id=user_id)
        .filter(Q(token__expiry__gt=now) | Q(token__expiry__isnull=True))
        .select_related("token")
        .order_by("-created_at", "-id")
    )
