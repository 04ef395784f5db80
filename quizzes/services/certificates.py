"""Issuing a certificate, revoking it and taking the revocation back; a revoked one keeps its
row."""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Iterable
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from quizzes.models import Certificate

REVOCATION_REASON_MAX_LENGTH = 200
# secrets.token_urlsafe(24): 32 characters, 192 bits; a certificate page cannot be guessed.
CERTIFICATE_CODE_BYTES = 24


def certificate_issue(
    *,
    learner_id: int,
    module_id: int,
    attempt_id: int,
    learner_name: str,
    score_percent: Decimal,
    at: datetime.datetime,
) -> Certificate:
    """Issue the learner's certificate of the module, called inside the caller's transaction
    (finalizing an attempt, a regrade); the unique key refuses a second one."""
    return Certificate.objects.create(
        learner_id=learner_id,
        module_id=module_id,
        attempt_id=attempt_id,
        code=secrets.token_urlsafe(CERTIFICATE_CODE_BYTES),
        learner_name=learner_name[: Certificate._meta.get_field("learner_name").max_length],
        score_percent=score_percent,
        issued_at=at,
    )


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
