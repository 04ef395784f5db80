"""FSRS scheduling as plain Python (no Django, no database); all instants are aware UTC."""

from __future__ import annotations

import dataclasses
import datetime
import functools
from dataclasses import dataclass
from typing import Any

import fsrs

from lms.local_time import UTC, as_utc, local_day_of

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

    # A card keeps the state in columns named like these fields, a log as before_/after_<field>.
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


# FSRS-6's 21 default parameters (the median of ten thousand Anki users); a learner's own or a
# module's pooled parameters replace them (reviews.fitting, reviews.services.parameters).
DEFAULT_PARAMETERS: tuple[float, ...] = tuple(fsrs.scheduler.DEFAULT_PARAMETERS)
Parameters = tuple[float, ...]


# Room for the parameter sets of the learners active in one process at a time.
@functools.lru_cache(maxsize=4096)
def scheduler_for(
    *,
    desired_retention: float,
    fuzzing: bool = True,
    parameters: Parameters = DEFAULT_PARAMETERS,
) -> fsrs.Scheduler:
    """The FSRS scheduler for (parameters, desired retention); one per pair (the retention
    range is accounts.data's)."""
    return fsrs.Scheduler(
        parameters=parameters, desired_retention=desired_retention, enable_fuzzing=fuzzing
    )


def card_review(
    *,
    state: CardState,
    rating: int,
    at: datetime.datetime,
    desired_retention: float,
    duration_ms: int | None = None,
    parameters: Parameters = DEFAULT_PARAMETERS,
    exam_at: datetime.datetime | None = None,
) -> CardState:
    """The card's state after a review with ``rating`` (1–4) at ``at`` (fuzzing on), its
    interval shortened for an exam at ``exam_at`` where ``exam_interval_shorten`` says so."""
    scheduler = scheduler_for(desired_retention=desired_retention, parameters=parameters)
    card, _log = scheduler.review_card(
        state.to_fsrs(),
        fsrs.Rating(rating),
        review_datetime=as_utc(at),
        review_duration=duration_ms,
    )
    after = CardState.from_fsrs(card)
    if exam_at is None:
        return after
    return exam_interval_shorten(
        state=after,
        exam_at=exam_at,
        parameters=parameters,
        desired_retention=desired_retention,
    )


# --- recall and the exam date ------------------------------------------------------------------


def recall_probability(*, stability: float, days: float, parameters: Parameters) -> float:
    """FSRS-6's forgetting curve: the probability of recalling a card of ``stability`` after
    ``days`` (fractional) without review. Its decay is the parameters' last number."""
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    return (1 + factor * max(0.0, days) / stability) ** decay


def days_to_recall(*, stability: float, recall: float, parameters: Parameters) -> float:
    """The days after a review at which the predicted recall falls to ``recall``: the
    forgetting curve solved for the time."""
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    return stability * (recall ** (1 / decay) - 1) / factor


def exam_start(*, exam_on: datetime.date | None, time_zone: str) -> datetime.datetime | None:
    """The instant an exam day begins in the learner's time zone (its local midnight): what the
    learner knows then is what the exam finds."""
    if exam_on is None:
        return None
    return local_day_of(time_zone=time_zone, date=exam_on).start


def exam_recall(
    *, state: CardState, exam_at: datetime.datetime, parameters: Parameters
) -> float | None:
    """The card's predicted recall at ``exam_at`` if it is not reviewed again (None: never
    reviewed)."""
    if state.last_review is None or state.stability is None:
        return None
    days = (as_utc(exam_at) - state.last_review).total_seconds() / 86_400
    return recall_probability(stability=state.stability, days=days, parameters=parameters)


def exam_interval_shorten(
    *,
    state: CardState,
    exam_at: datetime.datetime,
    parameters: Parameters,
    desired_retention: float,
) -> CardState:
    """The exam-date rule: a card whose interval ends after the exam with its predicted recall
    there below the desired retention comes back when it reaches it; never a longer interval."""
    exam_at = as_utc(exam_at)
    if state.last_review is None or state.stability is None:
        return state
    if not (state.last_review < exam_at < state.due):
        return state
    recall = exam_recall(state=state, exam_at=exam_at, parameters=parameters)
    if recall is None or recall >= desired_retention:
        return state
    days = days_to_recall(
        stability=state.stability, recall=desired_retention, parameters=parameters
    )
    back = state.last_review + datetime.timedelta(days=days)
    # The day before the exam at the latest, so the card is reviewed before it.
    back = min(back, exam_at - datetime.timedelta(days=1))
    back = max(back, state.last_review + datetime.timedelta(minutes=1))
    return dataclasses.replace(state, due=min(state.due, back))


@dataclass(frozen=True)
class ExamForecast:
    """One card's way to the exam if the learner reviews it when due and knows it (Good)."""

    recall: float  # predicted recall at the exam (0 for a card never reviewed)
    reviews: int  # the reviews it takes until the exam


# A card's forecast follows at most this many reviews (a learning card's steps and a few
# months of intervals need far fewer).
_FORECAST_MAX_REVIEWS = 60


def exam_forecast(
    *,
    state: CardState,
    at: datetime.datetime,
    exam_at: datetime.datetime,
    parameters: Parameters,
    desired_retention: float,
) -> ExamForecast:
    """The recall at the exam and the reviews until then of a card reviewed on each due date
    from ``at`` on (unfuzzed, Good, with the exam-date rule)."""
    at, exam_at = as_utc(at), as_utc(exam_at)
    scheduler = scheduler_for(
        desired_retention=desired_retention, fuzzing=False, parameters=parameters
    )
    reviews = 0
    while reviews < _FORECAST_MAX_REVIEWS and state.due < exam_at:
        when = max(at, state.due)
        card, _log = scheduler.review_card(state.to_fsrs(), fsrs.Rating.Good, review_datetime=when)
        state = exam_interval_shorten(
            state=CardState.from_fsrs(card),
            exam_at=exam_at,
            parameters=parameters,
            desired_retention=desired_retention,
        )
        reviews += 1
    recall = exam_recall(state=state, exam_at=exam_at, parameters=parameters)
    return ExamForecast(recall=recall or 0.0, reviews=reviews)


def intervals_preview(
    *,
    state: CardState,
    at: datetime.datetime,
    desired_retention: float,
    parameters: Parameters = DEFAULT_PARAMETERS,
    exam_at: datetime.datetime | None = None,
) -> list[IntervalPreview]:
    """The unfuzzed due date each rating 1–4 would give (as Anki's buttons show)."""
    at = as_utc(at)
    days_since_review = (at - state.last_review).days if state.last_review else None
    outcomes = _preview_intervals(
        state.state,
        state.learning_step,
        state.stability,
        state.difficulty,
        days_since_review,
        desired_retention,
        parameters,
    )
    if exam_at is None:
        # The common case: the review time plus the cached interval (positional: cheaper).
        return [
            IntervalPreview(rating, name, at + interval, seconds)
            for rating, name, interval, _stability, seconds in outcomes
        ]
    previews = []
    for rating, name, interval, stability, _seconds in outcomes:
        due = at + interval
        after = dataclasses.replace(state, stability=stability, last_review=at, due=due)
        due = exam_interval_shorten(
            state=after,
            exam_at=exam_at,
            parameters=parameters,
            desired_retention=desired_retention,
        ).due
        previews.append(
            IntervalPreview(
                rating=rating,
                name=name,
                due=due,
                seconds=max(0, int((due - at).total_seconds())),
            )
        )
    return previews


# The four unfuzzed intervals of a card state: FSRS reads the review time only as whole days
# since the last review, so they are cached by that day count (a test checks them against FSRS).
_PREVIEW_ANCHOR = datetime.datetime(2000, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=20_000)
def _preview_intervals(
    state: int,
    learning_step: int | None,
    stability: float | None,
    difficulty: float | None,
    days_since_review: int | None,
    desired_retention: float,
    parameters: Parameters = DEFAULT_PARAMETERS,
) -> tuple[tuple[int, str, datetime.timedelta, float, int], ...]:
    scheduler = scheduler_for(
        desired_retention=desired_retention, fuzzing=False, parameters=parameters
    )
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
    outcomes = []
    for rating in fsrs.Rating:
        after = scheduler.review_card(card, rating, review_datetime=at)[0]
        interval = as_utc(after.due) - at
        outcomes.append(
            (
                int(rating),
                RATING_NAMES[int(rating)],
                interval,
                after.stability,
                max(0, int(interval.total_seconds())),
            )
        )
    # Each rating, its name and interval, the stability it leaves (for the exam-date rule) and
    # the interval in whole seconds.
    return tuple(outcomes)
