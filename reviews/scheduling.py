"""FSRS scheduling as plain Python (no Django, no database); local days and reminder instants
are lms.local_time.

A card's scheduling state lives in database columns; ``CardState`` is that row's state as a value,
converted to and from ``fsrs.Card``. All instants are timezone-aware UTC.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
from dataclasses import dataclass
from typing import Any

import fsrs

from lms.local_time import UTC, as_utc

# The quick-check self-ratings of the step page and the FSRS rating each one counts as.
QUICK_CHECK_RATINGS: dict[str, fsrs.Rating] = {
    "knew": fsrs.Rating.Good,
    "partly": fsrs.Rating.Hard,
    "not_yet": fsrs.Rating.Again,
}
RATING_NAMES: dict[int, str] = {1: "again", 2: "hard", 3: "good", 4: "easy"}


@dataclass(frozen=True)
class CardState:
    """The FSRS state of one card, as stored in its row."""

    state: int
    learning_step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime.datetime
    last_review: datetime.datetime | None

    @classmethod
    def new(cls, *, at: datetime.datetime) -> CardState:
        """A card nobody has reviewed yet: learning step 0, due at ``at``."""
        card = fsrs.Card(card_id=0, due=as_utc(at))
        return cls.from_fsrs(card)

    @classmethod
    def from_fsrs(cls, card: fsrs.Card) -> CardState:
        return cls(
            state=int(card.state),
            learning_step=card.step,
            stability=card.stability,
            difficulty=card.difficulty,
            due=as_utc(card.due),
            last_review=as_utc(card.last_review) if card.last_review else None,
        )

    def to_fsrs(self) -> fsrs.Card:
        return fsrs.Card(
            card_id=0,
            state=fsrs.State(self.state),
            step=self.learning_step,
            stability=self.stability,
            difficulty=self.difficulty,
            due=as_utc(self.due),
            last_review=as_utc(self.last_review) if self.last_review else None,
        )

    @property
    def is_new(self) -> bool:
        return self.last_review is None

    # A card's row (reviews.ReviewCard) keeps the state in columns named like these fields, a
    # review log keeps it as before_<field> and after_<field>: the one mapping between a state
    # and a row, in both directions.
    def columns(self, *, prefix: str = "") -> dict[str, Any]:
        """The state as column values by field name (``prefix`` + the CardState field)."""
        return {prefix + name: getattr(self, name) for name in CARD_STATE_FIELDS}

    @classmethod
    def from_columns(cls, row: Any, *, prefix: str = "") -> CardState:
        """The state kept in a row's attributes (a card, a log, a plain-SQL row type)."""
        return cls(**{name: getattr(row, prefix + name) for name in CARD_STATE_FIELDS})


CARD_STATE_FIELDS = tuple(field.name for field in dataclasses.fields(CardState))


@dataclass(frozen=True)
class IntervalPreview:
    """What one rating would do to a card now (the label Anki shows above its buttons)."""

    rating: int
    name: str
    due: datetime.datetime
    seconds: int


@functools.lru_cache(maxsize=64)
def scheduler_for(*, desired_retention: float, fuzzing: bool = True) -> fsrs.Scheduler:
    """The FSRS scheduler for a learner's desired retention (the range is accounts.data's); one
    per setting."""
    return fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=fuzzing)


def card_review(
    *,
    state: CardState,
    rating: int,
    at: datetime.datetime,
    desired_retention: float,
    duration_ms: int | None = None,
) -> CardState:
    """The card's state after a review with ``rating`` (1–4) at ``at`` (fuzzing on)."""
    scheduler = scheduler_for(desired_retention=desired_retention)
    card, _log = scheduler.review_card(
        state.to_fsrs(),
        fsrs.Rating(rating),
        review_datetime=as_utc(at),
        review_duration=duration_ms,
    )
    return CardState.from_fsrs(card)


def intervals_preview(
    *, state: CardState, at: datetime.datetime, desired_retention: float
) -> list[IntervalPreview]:
    """The due date each rating 1–4 would give.

    Unfuzzed: like Anki, the buttons show the plain interval, and the review itself then adds
    the fuzz (a few percent on intervals of three days and more).
    """
    at = as_utc(at)
    days_since_review = (at - state.last_review).days if state.last_review else None
    intervals = _preview_intervals(
        state.state,
        state.learning_step,
        state.stability,
        state.difficulty,
        days_since_review,
        desired_retention,
    )
    return [
        IntervalPreview(
            rating=rating,
            name=RATING_NAMES[rating],
            due=at + interval,
            seconds=max(0, int(interval.total_seconds())),
        )
        for rating, interval in enumerate(intervals, start=1)
    ]


# The four unfuzzed intervals of a card state. FSRS (fsrs 6) reads the review time only as whole
# days since the last review and adds the interval to it, so the intervals are a function of the
# state and that day count: the same card shown again in the due queue (most of the queue, each
# time a learner opens it) costs a dictionary look-up instead of four FSRS reviews. A test checks
# the cached intervals against FSRS for many states and review times.
_PREVIEW_ANCHOR = datetime.datetime(2000, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=20_000)
def _preview_intervals(
    state: int,
    learning_step: int | None,
    stability: float | None,
    difficulty: float | None,
    days_since_review: int | None,
    desired_retention: float,
) -> tuple[datetime.timedelta, ...]:
    scheduler = scheduler_for(desired_retention=desired_retention, fuzzing=False)
    # Any instant with that day count since the last review gives the same intervals.
    last_review = None if days_since_review is None else _PREVIEW_ANCHOR
    at = _PREVIEW_ANCHOR + datetime.timedelta(days=days_since_review or 0)
    card = fsrs.Card(
        card_id=0,
        state=fsrs.State(state),
        step=learning_step,
        stability=stability,
        difficulty=difficulty,
        due=at,
        last_review=last_review,
    )
    return tuple(
        as_utc(scheduler.review_card(card, rating, review_datetime=at)[0].due) - at
        for rating in fsrs.Rating
    )
