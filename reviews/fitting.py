"""Fitting FSRS parameters to review logs (fsrs-rs, as Anki), as plain Python; a day is the
learner's local calendar day. A fit is adopted only when it predicts held-out reviews better."""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import fsrs_rs_python as fsrs_rs

from lms.local_time import zone_info
from reviews.scheduling import DEFAULT_PARAMETERS

# Below this many reviews of their own a learner keeps the pooled (or default) parameters: the
# held-out part of a smaller log is too small to tell two parameter sets apart.
MIN_REVIEWS_FOR_FIT = 100
# The most recent share of a learner's predictable reviews held out to judge a fit.
HOLDOUT_SHARE = 0.2
# Every fifth learner of a module is held out to judge its pooled parameters.
POOL_HOLDOUT_EVERY = 5
# A module needs this many learners with reviews before it pools.
MIN_LEARNERS_FOR_POOL = 5
# ... and its held-out learners this many predictable reviews (fewer adopt noise by chance).
MIN_POOL_HELD_OUT_ITEMS = 100
# fsrs-rs's own default number of epochs.
TRAINING_EPOCHS = 5
# A learner's own fit weighs items / (items + PRIOR_ITEMS) against the module's pooled
# parameters: a short log's own fit is mostly sampling noise.
PRIOR_ITEMS = 1_000


@dataclass(frozen=True)
class LoggedReview:
    """One row of a review log as a fit reads it."""

    card_id: int
    rating: int
    reviewed_at: datetime.datetime


@dataclass(frozen=True)
class Evaluation:
    """How well a parameter set predicts reviews (the srs-benchmark measures)."""

    log_loss: float
    rmse_bins: float
    reviews: int


@dataclass(frozen=True)
class FitOutcome:
    """A fit of one learner's (or one module's) reviews, judged on held-out reviews."""

    parameters: tuple[float, ...]
    review_count: int
    fitted: Evaluation
    current: Evaluation

    @property
    def adopted(self) -> bool:
        """The fit predicts the held-out reviews better than what is in use."""
        return self.fitted.log_loss < self.current.log_loss


def local_date(at: datetime.datetime, *, time_zone: str) -> datetime.date:
    """The learner's local calendar day of an instant."""
    return at.astimezone(zone_info(time_zone)).date()


def review_days(
    reviews: Iterable[LoggedReview], *, time_zone: str
) -> dict[int, list[tuple[int, int]]]:
    """Each card's reviews in time order as (rating, whole local days since the card's review
    before; 0 for its first)."""
    by_card: dict[int, list[LoggedReview]] = defaultdict(list)
    for review in reviews:
        by_card[review.card_id].append(review)
    histories: dict[int, list[tuple[int, int]]] = {}
    for card_id, card_reviews in by_card.items():
        card_reviews.sort(key=lambda review: review.reviewed_at)
        days = [local_date(review.reviewed_at, time_zone=time_zone) for review in card_reviews]
        histories[card_id] = [
            (review.rating, (day - days[index - 1]).days if index else 0)
            for index, (review, day) in enumerate(zip(card_reviews, days, strict=True))
        ]
    return histories


@dataclass(frozen=True)
class _Item:
    at: datetime.datetime
    item: fsrs_rs.FSRSItem


def _items(reviews: Sequence[LoggedReview], *, time_zone: str) -> list[_Item]:
    """The predictable reviews: for each review a day or more after the card's review before,
    the card's history up to it (fsrs-rs's FSRSItem). In time order."""
    times: dict[int, list[datetime.datetime]] = defaultdict(list)
    for review in reviews:
        times[review.card_id].append(review.reviewed_at)
    items: list[_Item] = []
    for card_id, history in review_days(reviews, time_zone=time_zone).items():
        card_times = sorted(times[card_id])
        so_far: list[fsrs_rs.FSRSReview] = []
        for index, (rating, delta_t) in enumerate(history):
            so_far.append(fsrs_rs.FSRSReview(rating, delta_t))
            if index and delta_t > 0:
                item = fsrs_rs.FSRSItem(list(so_far))
                if item.long_term_review_cnt() > 0:
                    items.append(_Item(at=card_times[index], item=item))
    items.sort(key=lambda item: item.at)
    return items


def evaluate(parameters: Sequence[float], items: Sequence[fsrs_rs.FSRSItem]) -> Evaluation:
    """Log loss and RMSE(bins) of ``parameters`` on ``items`` (fsrs-rs's own evaluation)."""
    if not items:
        return Evaluation(log_loss=float("inf"), rmse_bins=float("inf"), reviews=0)
    result = fsrs_rs.FSRS(list(parameters)).evaluate(list(items))
    return Evaluation(log_loss=result.log_loss, rmse_bins=result.rmse_bins, reviews=len(items))


def parameters_optimize(
    items: Sequence[fsrs_rs.FSRSItem], *, prior: Sequence[float] | None = None
) -> tuple[float, ...]:
    """fsrs-rs's fit of ``items``; with a ``prior`` (a module's pooled parameters) the fit is
    drawn toward it, weighted by the number of items against ``PRIOR_ITEMS``."""
    config = fsrs_rs.TrainingConfig(num_epochs=TRAINING_EPOCHS)
    fitted = fsrs_rs.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(
        list(items), training_config=config
    )
    if prior is not None:
        # Both sets lie in FSRS's box of allowed values, so every point between them does too.
        weight = len(items) / (len(items) + PRIOR_ITEMS)
        fitted = [base + weight * (own - base) for own, base in zip(fitted, prior, strict=True)]
    # Four decimals, as Anki shows them: a parameter set is also a cache key (scheduling).
    return tuple(round(value, 4) for value in fitted)


def parameters_fit(
    *,
    reviews: Sequence[LoggedReview],
    time_zone: str,
    current: Sequence[float],
    prior: Sequence[float] | None = None,
) -> FitOutcome | None:
    """Fit FSRS to the earlier 80 % of a learner's reviews (drawn toward ``prior``) and judge it
    against ``current`` on the latest 20 %; None when the log is too small to judge."""
    if len(reviews) < MIN_REVIEWS_FOR_FIT:
        return None
    items = [item.item for item in _items(reviews, time_zone=time_zone)]
    held_out = int(len(items) * HOLDOUT_SHARE)
    if held_out < 1 or len(items) - held_out < 1:
        return None
    train, test = items[:-held_out], items[-held_out:]
    fitted = parameters_optimize(train, prior=prior)
    return FitOutcome(
        parameters=fitted,
        review_count=len(reviews),
        fitted=evaluate(fitted, test),
        current=evaluate(current, test),
    )


@dataclass(frozen=True)
class LearnerLog:
    """One learner's reviews and time zone, for pooling."""

    reviews: Sequence[LoggedReview]
    time_zone: str


def parameters_pool(*, learners: Sequence[LearnerLog]) -> FitOutcome | None:
    """Fit FSRS to a module's pooled reviews, judged against the defaults on every fifth learner;
    None when there are too few learners or held-out reviews."""
    logs = [learner for learner in learners if learner.reviews]
    if len(logs) < MIN_LEARNERS_FOR_POOL:
        return None
    train: list[fsrs_rs.FSRSItem] = []
    test: list[fsrs_rs.FSRSItem] = []
    for index, learner in enumerate(logs):
        items = [item.item for item in _items(learner.reviews, time_zone=learner.time_zone)]
        (test if index % POOL_HOLDOUT_EVERY == POOL_HOLDOUT_EVERY - 1 else train).extend(items)
    if not train or len(test) < MIN_POOL_HELD_OUT_ITEMS:
        return None
    fitted = parameters_optimize(train)
    return FitOutcome(
        parameters=fitted,
        review_count=sum(len(learner.reviews) for learner in logs),
        fitted=evaluate(fitted, test),
        current=evaluate(DEFAULT_PARAMETERS, test),
    )
