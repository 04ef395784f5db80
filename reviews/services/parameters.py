"""Fitting FSRS parameters to the review log, a learner's own and a module's pooled, once per
learner (or module) and run key: an advisory lock and a unique fit row in one transaction."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count, F
from django.utils.translation import gettext as _

from accounts import api as accounts_api
from lms.errors import TooManyRequests
from reviews import fitting
from reviews.models import LearnerParameters, ModuleParameters, ParameterFit, ReviewCard, ReviewLog
from reviews.selectors import learner_reviews, module_parameters_of_learner, parameters_in_use

# Two numbers name an advisory lock; the first says which kind of subject the second is.
_LOCK_LEARNER = 1_745_001
_LOCK_MODULE = 1_745_002
# Learners per batch task of the monthly run (a fit of 1,000 reviews is ~10 ms of CPU).
REFIT_BATCH_SIZE = 200
# A module pools the reviews of at most this many of its learners (the most active first).
POOL_MAX_LEARNERS = 500


def run_key_monthly(at: datetime.datetime) -> str:
    """The monthly refit's run key: the calendar month (UTC)."""
    return at.astimezone(datetime.UTC).strftime("%Y-%m")


def _lock(namespace: int, subject_id: int) -> None:
    # Held to the end of the transaction.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [namespace, subject_id])


@dataclass(frozen=True)
class FitReport:
    """What one fit of a learner did."""

    learner_id: int
    outcome: str  # "adopted", "kept", "too_few_reviews", "already_fitted"
    fit_id: int | None = None


def _parameters_adopt(model, *, owner: dict, fit: ParameterFit) -> None:
    """The fit's parameters become the owner's (a learner's or a module's): one version more, or
    the first."""
    parameters = list(fit.parameters)
    updated = model.objects.filter(**owner).update(
        parameters=parameters, version=F("version") + 1, fit=fit
    )
    if not updated:
        model.objects.create(**owner, parameters=parameters, version=1, fit=fit)


def _fit_row(
    *, outcome: fitting.FitOutcome, run_key: str, at: datetime.datetime, **subject
) -> ParameterFit:
    return ParameterFit.objects.create(
        run_key=run_key,
        fitted_at=at,
        review_count=outcome.review_count,
        parameters=list(outcome.parameters),
        log_loss=outcome.fitted.log_loss,
        log_loss_before=outcome.current.log_loss,
        rmse_bins=outcome.fitted.rmse_bins,
        rmse_bins_before=outcome.current.rmse_bins,
        adopted=outcome.adopted,
        **subject,
    )


def learner_parameters_fit(*, learner_id: int, run_key: str, at: datetime.datetime) -> FitReport:
    """Fit the learner's parameters once for ``run_key`` and adopt them if they predict the
    held-out recent reviews better than those in use. Repeating the run key does nothing."""
    with transaction.atomic():
        _lock(_LOCK_LEARNER, learner_id)
        if ParameterFit.objects.filter(learner_id=learner_id, run_key=run_key).exists():
            return FitReport(learner_id, "already_fitted")
        reviews = learner_reviews(learner_id)
        if len(reviews) < fitting.MIN_REVIEWS_FOR_FIT:
            return FitReport(learner_id, "too_few_reviews")
        zones = accounts_api.time_zones([learner_id])
        if learner_id not in zones:
            return FitReport(learner_id, "too_few_reviews")
        current, _source = parameters_in_use(learner_id)
        outcome = fitting.parameters_fit(
            reviews=reviews,
            time_zone=zones[learner_id],
            current=current,
            prior=module_parameters_of_learner(learner_id),
        )
        if outcome is None:
            return FitReport(learner_id, "too_few_reviews")
        fit = _fit_row(outcome=outcome, run_key=run_key, at=at, learner_id=learner_id)
        if outcome.adopted:
            _parameters_adopt(LearnerParameters, owner={"learner_id": learner_id}, fit=fit)
        return FitReport(learner_id, "adopted" if outcome.adopted else "kept", fit.pk)


def learners_to_fit(*, run_key: str, limit: int) -> list[int]:
    """Learners with enough reviews that the run has not fitted yet, at most ``limit`` (one
    query)."""
    fitted = ParameterFit.objects.filter(run_key=run_key, learner__isnull=False).values(
        "learner_id"
    )
    return list(
        ReviewLog.objects.exclude(learner_id__in=fitted)
        .values("learner_id")
        .annotate(n=Count("id"))
        .filter(n__gte=fitting.MIN_REVIEWS_FOR_FIT)
        .order_by("learner_id")
        .values_list("learner_id", flat=True)[:limit]
    )


def modules_to_pool(*, run_key: str) -> list[int]:
    """Modules with cards that the run has not pooled yet (one query)."""
    pooled = ParameterFit.objects.filter(run_key=run_key, module__isnull=False).values("module_id")
    return list(
        ReviewCard.objects.filter(module__isnull=False, last_review__isnull=False)
        .exclude(module_id__in=pooled)
        .values_list("module_id", flat=True)
        .distinct()
        .order_by("module_id")
    )


def module_parameters_pool(
    *, module_id: int, run_key: str, at: datetime.datetime
) -> ParameterFit | None:
    """Pool the module's learners' reviews of its cards once for ``run_key``; adopt the pooled
    parameters when they beat the defaults on held-out learners."""
    with transaction.atomic():
        _lock(_LOCK_MODULE, module_id)
        if ParameterFit.objects.filter(module_id=module_id, run_key=run_key).exists():
            return None
        learner_ids = list(
            ReviewLog.objects.filter(card__module_id=module_id)
            .values("learner_id")
            .annotate(n=Count("id"))
            .order_by("-n", "learner_id")
            .values_list("learner_id", flat=True)[:POOL_MAX_LEARNERS]
        )
        zones = accounts_api.time_zones(learner_ids)
        logs: dict[int, list[fitting.LoggedReview]] = {learner_id: [] for learner_id in zones}
        rows = ReviewLog.objects.filter(
            card__module_id=module_id, learner_id__in=list(zones)
        ).values_list("learner_id", "card_id", "rating", "reviewed_at")
        for learner_id, card_id, rating, reviewed_at in rows:
            logs[learner_id].append(fitting.LoggedReview(card_id, rating, reviewed_at))
        outcome = fitting.parameters_pool(
            learners=[
                fitting.LearnerLog(reviews=logs[learner_id], time_zone=zones[learner_id])
                for learner_id in sorted(logs)
            ]
        )
        if outcome is None:
            return None
        fit = _fit_row(outcome=outcome, run_key=run_key, at=at, module_id=module_id)
        if outcome.adopted:
            _parameters_adopt(ModuleParameters, owner={"module_id": module_id}, fit=fit)
        return fit


@dataclass(frozen=True)
class RunReport:
    """What one pass of a run did."""

    run_key: str
    outcomes: dict[str, int]
    modules_pooled: int


def parameters_refit_run(
    *, run_key: str, at: datetime.datetime, learner_ids: list[int] | None = None
) -> RunReport:
    """Fit the given learners (default: those the run has not fitted yet, up to a batch) and
    pool every module the run has not pooled yet."""
    outcomes: dict[str, int] = {}
    if learner_ids is None:
        learner_ids = learners_to_fit(run_key=run_key, limit=REFIT_BATCH_SIZE)
    for learner_id in learner_ids:
        report = learner_parameters_fit(learner_id=learner_id, run_key=run_key, at=at)
        outcomes[report.outcome] = outcomes.get(report.outcome, 0) + 1
    pooled = 0
    for module_id in modules_to_pool(run_key=run_key):
        pooled += module_parameters_pool(module_id=module_id, run_key=run_key, at=at) is not None
    return RunReport(run_key=run_key, outcomes=outcomes, modules_pooled=pooled)


# A learner's "Optimize" fits at most once in this many minutes (each fit is a run of its own).
REQUESTED_FIT_EVERY_MINUTES = 10


def parameters_fit_requested(*, learner_id: int, at: datetime.datetime) -> FitReport:
    """The settings page's "Optimize": a fit now, in a run of its own; at most one every
    ``REQUESTED_FIT_EVERY_MINUTES`` (a second one is 429 ``fit_too_soon``)."""
    recent = ParameterFit.objects.filter(
        learner_id=learner_id,
        run_key__startswith="request-",
        fitted_at__gt=at - datetime.timedelta(minutes=REQUESTED_FIT_EVERY_MINUTES),
    ).exists()
    if recent:
        raise TooManyRequests(
            _("You optimized a few minutes ago. Try again in %(minutes)s minutes.")
            % {"minutes": REQUESTED_FIT_EVERY_MINUTES},
            code="fit_too_soon",
            detail={"retry_after_seconds": REQUESTED_FIT_EVERY_MINUTES * 60},
        )
    return learner_parameters_fit(
        learner_id=learner_id, run_key=f"request-{at.astimezone(datetime.UTC):%Y%m%dT%H%M%S}", at=at
    )
