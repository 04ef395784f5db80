"""Fitting FSRS parameters to review logs (fsrs-rs, as Anki), as plain Python; a day is the
learner's local calendar day. A fit is adopted only when it predicts held-out reviews better."""

from __future__ import annotations

import datetime
import math
import statistics
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
# A learner's own fit weighs items / (items + PRIOR_ITEMS) against the prior (the module's
# pooled parameters or the defaults, whichever predicts the learner's own reviews better): a
# short log's own fit is mostly sampling noise.
PRIOR_ITEMS = 1_000
# A fit is adopted only when it is judged on at least this many held-out predictable reviews ...
MIN_HELD_OUT_ITEMS = 100
# ... and its mean log loss per held-out review is lower than that of the parameters in use by
# more than this many standard errors of the paired difference (one-sided).
ADOPTION_Z = 2.0


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
    adopted: bool


def adoption_decide(current_losses: Sequence[float], fitted_losses: Sequence[float]) -> bool:
    """The adoption rule, a paired test on the held-out reviews: adopt the fit only when there
    are at least ``MIN_HELD_OUT_ITEMS`` of them and the fit's log loss is lower, per review,
    than that of the parameters in use by more than ``ADOPTION_Z`` standard errors of the
    paired differences."""
    if len(current_losses) != len(fitted_losses):
        raise ValueError("the two sets of losses must be of the same reviews")
    if len(current_losses) < MIN_HELD_OUT_ITEMS:
        return False
    gains = [now - fit for now, fit in zip(current_losses, fitted_losses, strict=True)]
    mean = statistics.fmean(gains)
    error = statistics.stdev(gains) / math.sqrt(len(gains))
    return mean > ADOPTION_Z * error


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
    history: tuple[tuple[int, int], ...] = ()  # (rating, delta_t), the last one predicted


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
                    items.append(
                        _Item(at=card_times[index], item=item, history=tuple(history[: index + 1]))
                    )
    items.sort(key=lambda item: item.at)
    return items


def evaluate(parameters: Sequence[float], items: Sequence[fsrs_rs.FSRSItem]) -> Evaluation:
    """Log loss and RMSE(bins) of ``parameters`` on ``items`` (fsrs-rs's own evaluation)."""
    if not items:
        return Evaluation(log_loss=float("inf"), rmse_bins=float("inf"), reviews=0)
    result = fsrs_rs.FSRS(list(parameters)).evaluate(list(items))
    return Evaluation(log_loss=result.log_loss, rmse_bins=result.rmse_bins, reviews=len(items))


def log_losses(parameters: Sequence[float], items: Sequence[_Item]) -> list[float]:
    """The log loss of each item's last review under ``parameters`` (the recall probability
    FSRS gives it from the card's history before it; fsrs-rs's ``evaluate`` averages these)."""
    if not items:
        return []
    model = fsrs_rs.FSRS(list(parameters))
    states = model.memory_state_batch(
        [
            fsrs_rs.FSRSItem([fsrs_rs.FSRSReview(r, d) for r, d in item.history[:-1]])
            for item in items
        ]
    )
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    losses = []
    for item, state in zip(items, states, strict=True):
        rating, days = item.history[-1]
        recall = (1 + factor * days / state.stability) ** decay
        recall = min(max(recall, 1e-9), 1 - 1e-9)
        losses.append(-math.log(recall if rating > 1 else 1 - recall))
    return losses


def prior_choose(
    items: Sequence[_Item], *, candidates: Sequence[Sequence[float]]
) -> tuple[float, ...]:
    """Of the candidate priors (the module's pooled parameters, the defaults), the one that
    predicts the learner's own reviews ``items`` best by log loss (the first on a tie)."""
    if not items:
        return tuple(candidates[0])
    scored = [(statistics.fmean(log_losses(c, items)), i) for i, c in enumerate(candidates)]
    return tuple(candidates[min(scored)[1]])


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
    """Fit FSRS to a learner's reviews (drawn toward ``prior`` or the defaults) and judge the
    fit against ``current`` on later reviews: on each fifth of the reviews after the first, the
    fit of the reviews before it (``adoption_decide``). Adopted, the parameters are the fit of all
    the reviews. None when the log is too small to judge."""
    if len(reviews) < MIN_REVIEWS_FOR_FIT:
        return None
    items = _items(reviews, time_zone=time_zone)
    held_out = int(len(items) * HOLDOUT_SHARE)
    if held_out < 1 or len(items) - held_out < 1:
        return None
    candidates = [DEFAULT_PARAMETERS] if prior is None else [prior, DEFAULT_PARAMETERS]
    # The rule judges on every fold after the first: each fold's reviews predicted by the fit
    # of the reviews before it (as the refit would have fitted then) and by ``current``.
    current_losses: list[float] = []
    fitted_losses: list[float] = []
    fitted: tuple[float, ...] = ()
    for start, end in _folds(len(items)):
        train, test = items[:start], items[start:end]
        fitted = _drawn_fit(train, candidates)
        current_losses += log_losses(current, test)
        fitted_losses += log_losses(fitted, test)
    adopted = adoption_decide(current_losses, fitted_losses)
    # The held-out reviews only decide: once adopted, the fit is of all the reviews.
    parameters = _drawn_fit(items, candidates) if adopted else fitted
    # The figures kept: the fit of the older reviews on the newest fold.
    test_items = [item.item for item in items[-held_out:]]
    return FitOutcome(
        parameters=parameters,
        review_count=len(reviews),
        fitted=evaluate(fitted, test_items),
        current=evaluate(current, test_items),
        adopted=adopted,
    )


def _folds(count: int) -> list[tuple[int, int]]:
    """The (start, end) of the folds a fit is judged on: the items in time order cut into
    ``1 / HOLDOUT_SHARE`` folds, every one but the first; the last is the newest
    ``HOLDOUT_SHARE``."""
    held_out = int(count * HOLDOUT_SHARE)
    folds = round(1 / HOLDOUT_SHARE)
    ends = [count - held_out * (folds - 1 - index) for index in range(folds)]
    return [(ends[index - 1], ends[index]) for index in range(1, folds)]


def _drawn_fit(items: Sequence[_Item], candidates: Sequence[Sequence[float]]) -> tuple[float, ...]:
    """The fit of ``items`` drawn toward the candidate prior that predicts them best (the
    pooled parameters or the defaults: a learner unlike their module is drawn toward the
    defaults)."""
    chosen = prior_choose(items, candidates=candidates)
    return parameters_optimize([item.item for item in items], prior=chosen)


@dataclass(frozen=True)
class LearnerLog:
    """One learner's reviews and time zone, for pooling."""

    reviews: Sequence[LoggedReview]
    time_zone: str


def parameters_pool(*, learners: Sequence[LearnerLog]) -> FitOutcome | None:
    """Fit FSRS to a module's pooled reviews, judged against the defaults on held-out learners:
    each fifth of the learners (every fifth one) predicted by the fit of the others
    (``adoption_decide`` on all of them). Adopted, the parameters are the fit of every learner.
    None when there are too few learners or held-out reviews."""
    logs = [learner for learner in learners if learner.reviews]
    if len(logs) < MIN_LEARNERS_FOR_POOL:
        return None
    per_learner = [_items(learner.reviews, time_zone=learner.time_zone) for learner in logs]
    folds: list[tuple[list[_Item], list[_Item]]] = []
    for fold in range(POOL_HOLDOUT_EVERY):
        train: list[_Item] = []
        test: list[_Item] = []
        for index, items in enumerate(per_learner):
            (test if index % POOL_HOLDOUT_EVERY == fold else train).extend(items)
        folds.append((train, test))
    # The figures kept: the last fold's (every fifth learner's from the fifth on).
    last_train, last_test = folds[-1]
    if not last_train or len(last_test) < MIN_POOL_HELD_OUT_ITEMS:
        return None
    current_losses: list[float] = []
    fitted_losses: list[float] = []
    fitted: tuple[float, ...] = ()
    for train, test in folds:
        if not train or not test:
            continue
        fitted = parameters_optimize([item.item for item in train])
        current_losses += log_losses(DEFAULT_PARAMETERS, test)
        fitted_losses += log_losses(fitted, test)
    adopted = adoption_decide(current_losses, fitted_losses)
    parameters = (
        parameters_optimize([item.item for items in per_learner for item in items])
        if adopted
        else fitted
    )
    test_items = [item.item for item in last_test]
    return FitOutcome(
        parameters=parameters,
        review_count=sum(len(learner.reviews) for learner in logs),
        fitted=evaluate(fitted, test_items),
        current=evaluate(DEFAULT_PARAMETERS, test_items),
        adopted=adopted,
    )
