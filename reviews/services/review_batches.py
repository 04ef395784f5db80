"""A phone's offline reviews, applied in the order sent, each in its own transaction: a refused
review is reported and the rest still apply; a re-sent review answers "duplicate"."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from lms.errors import DomainError, InvalidInput
from reviews.review_times import REVIEWED_AT_IN_FUTURE, REVIEWED_AT_TOO_EARLY
from reviews.services.reviewing import ReviewResult, review_record

# The most reviews one batch takes: a few offline days at the default daily limit.
REVIEW_BATCH_MAX = 500
CLIENT_REVIEW_ID_MAX = 64


class BatchStatus:
    APPLIED = "applied"
    DUPLICATE = "duplicate"
    REJECTED = "rejected"
    ALL = (APPLIED, DUPLICATE, REJECTED)


# Why a review of a batch can be rejected (the schema's enum; a test keeps it true).
BATCH_ERROR_CODES = (
    "invalid",
    "invalid_rating",
    "card_not_found",
    "client_review_id_reused",
    REVIEWED_AT_IN_FUTURE,
    REVIEWED_AT_TOO_EARLY,
)


@dataclass(frozen=True)
class BatchReview:
    """One review of the batch as the client sent it (already parsed)."""

    card_id: int
    rating: int
    duration_ms: int | None
    client_review_id: str
    reviewed_at: datetime.datetime | None


@dataclass(frozen=True)
class BatchItemResult:
    """What became of one review of the batch: ``review`` when applied or a duplicate (the
    original result), ``error`` (code, message, detail) when rejected."""

    index: int
    client_review_id: str | None
    status: str
    review: ReviewResult | None = None
    error: DomainError | None = None


@dataclass(frozen=True)
class BatchResult:
    server_time: datetime.datetime
    results: list[BatchItemResult]

    @property
    def counts(self) -> dict[str, int]:
        """How many reviews were applied, duplicates, rejected."""
        return {
            status: sum(1 for result in self.results if result.status == status)
            for status in BatchStatus.ALL
        }


def review_batch_apply(
    *,
    learner,
    reviews: Sequence[Any],
    parse: Callable[[Any], BatchReview],
    now: datetime.datetime | None = None,
) -> BatchResult:
    """Apply the reviews (each read by ``parse``) in the order sent; over REVIEW_BATCH_MAX the
    whole batch is refused before any applies."""
    if len(reviews) > REVIEW_BATCH_MAX:
        raise InvalidInput(
            _("At most %(limit)s reviews per batch; send the rest in another batch.")
            % {"limit": REVIEW_BATCH_MAX},
            code="batch_too_large",
            detail={"limit": REVIEW_BATCH_MAX, "received": len(reviews)},
        )
    now = now or timezone.now()
    results = []
    for index, raw in enumerate(reviews):
        sent_id = raw.get("client_review_id") if isinstance(raw, Mapping) else None
        try:
            review = parse(raw)
            result = review_record(
                learner=learner,
                card_id=review.card_id,
                rating=review.rating,
                duration_ms=review.duration_ms,
                client_review_id=review.client_review_id,
                at=now,
                reviewed_at=review.reviewed_at,
            )
        except DomainError as error:
            results.append(_rejected(index, sent_id, error))
            continue
        status = BatchStatus.DUPLICATE if result.replayed else BatchStatus.APPLIED
        results.append(BatchItemResult(index, review.client_review_id, status, review=result))
    return BatchResult(server_time=now, results=results)


def _rejected(index: int, client_review_id: Any, error: DomainError) -> BatchItemResult:
    return BatchItemResult(
        index,
        # Echoed only when it could be one (the entry may be anything).
        client_review_id
        if isinstance(client_review_id, str) and len(client_review_id) <= CLIENT_REVIEW_ID_MAX
        else None,
        BatchStatus.REJECTED,
        error=error,
    )
