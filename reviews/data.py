"""Frozen values the reviews app hands to other apps (``reviews.api``)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass


@dataclass(frozen=True)
class DayReviews:
    day: datetime.date
    reviews: int
    recalled: int


@dataclass(frozen=True)
class ModuleReviewStats:
    """A module's spaced repetition over the last days (the course dashboard)."""

    days: tuple[DayReviews, ...]  # oldest first, one per day, days without reviews included
    reviews: int
    # The share of review-state cards' reviews recalled; None without such reviews.
    retention: float | None
    due_now: int
