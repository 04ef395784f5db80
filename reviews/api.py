"""What other apps may ask of the reviews app (spaced repetition).

The progress and quick-check services call these; the spaced-repetition issue implements them.
"""

from __future__ import annotations

import datetime


def cards_for_step_ensure(*, learner_id: int, step_id: int, at: datetime.datetime) -> None:
    """Create the learner's review cards for a completed step (idempotent)."""


def quick_check_rated(
    *, learner_id: int, step_id: int, quick_check_id: int, rating: str, at: datetime.datetime
) -> None:
    """A self-rating of a quick check ("knew" / "partly" / "not_yet"): its card's first review."""
