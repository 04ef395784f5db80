"""Revoking a certificate and taking the revocation back; a revoked one keeps its row."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from quizzes.models import Certificate

REVOCATION_REASON_MAX_LENGTH = 200


@transaction.atomic
def certificates_revoke(
    *, certificate_ids: Iterable[int], reason: str = "", at: datetime.datetime | None = None
) -> int:
    """Revoke the certificates not revoked yet; returns how many it revoked."""
    return Certificate.objects.filter(pk__in=list(certificate_ids), revoked_at__isnull=True).update(
        revoked_at=at or timezone.now(),
        revocation_reason=reason.strip()[:REVOCATION_REASON_MAX_LENGTH],
    )


@transaction.atomic
def certificates_reinstate(*, certificate_ids: Iterable[int]) -> int:
    """Make revoked certificates valid again; returns how many it reinstated."""
    return Certificate.objects.filter(
        pk__in=list(certificate_ids), revoked_at__isnull=False
    ).update(revoked_at=None, revocation_reason="")
