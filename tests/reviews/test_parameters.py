"""Per-learner and pooled FSRS parameters in the database: the monthly run fits each learner
once (two beats, two workers), a fit that does not predict better is not adopted, and a review
schedules with the learner's parameters and exam date in the same number of queries."""

from __future__ import annotations

import datetime
import random
import threading

import pytest
from django.db import connection
from django.utils import timezone

from bench.fsrs_truth import POPULATIONS
from reviews import tasks
from reviews.models import (
    ExamDate,
    LearnerParameters,
    ModuleExamPlan,
    ModuleParameters,
    ParameterFit,
    ReviewCard,
    ReviewLog,
)
from reviews.scheduling import DEFAULT_PARAMETERS, CardState
from reviews.services import parameters as parameters_services
from reviews.services.reviewing import review_record
from tests.helpers.queries import assert_queries_constant
from tests.reviews.test_fitting import simulated_log

UTC = datetime.UTC
RUN_AT = datetime.datetime(2031, 5, 3, 2, 0, tzinfo=UTC)


def log_write(learner, course, log) -> None:
    """Store a simulated log as the learner's cards (definition cards of the module's steps, as
    many as the log has cards) and review logs."""
    steps = list(course.steps.order_by("number"))
    card_ids = sorted({review.card_id for review in log})
    cards = {}
    for index, card_id in enumerate(card_ids):
        step = steps[index % len(steps)]
        cards[card_id] = ReviewCard.objects.create(
            learner=learner,
            kind=ReviewCard.Kind.QUICK_CHECK if index >= len(steps) else ReviewCard.Kind.DEFINITION,
            step=step,
            module=course,
            quick_check=_quick_check(course, index) if index >= len(steps) else None,
            created_at=log[0].reviewed_at,
            **CardState.new(at=log[0].reviewed_at).columns(),
        )
    before = CardState.new(at=log[0].reviewed_at)
    ReviewLog.objects.bulk_create(
        ReviewLog(
            card=cards[review.card_id],
            learner=learner,
            rating=review.rating,
            reviewed_at=review.reviewed_at,
            **{f"before_{k}": v for k, v in before.columns().items()},
            after_state=2,
            after_stability=1.0,
            after_difficulty=5.0,
            after_due=review.reviewed_at,
        )
        for review in log
    )
    ReviewCard.objects.filter(learner=learner).update(last_review=log[-1].reviewed_at)


def _quick_check(course, index):
    import hashlib

    from courses.models import QuickCheck

    # Shared by the learners: one card per learner and quick check.
    quick_check, _ = QuickCheck.objects.get_or_create(
        module=course,
        text_hash=hashlib.sha256(f"fit-{index}".encode()).hexdigest(),
        defaults={"question": f"Q{index}?", "answer": "A."},
    )
    return quick_check


@pytest.fixture
def far_learners(make_learner, course):
    """Three learners from a population far from the defaults, 400 reviews each."""
    rng = random.Random(11)
    learners = []
    for index in range(3):
        learner = make_learner(f"far{index}")
        log = simulated_log(parameters=POPULATIONS[2].draw(rng), reviews=400, seed=20 + index)
        log_write(learner, course, log)
        learners.append(learner)
    return learners


@pytest.mark.django_db(transaction=True)
def test_two_beats_and_two_workers_fit_each_learner_once(far_learners, monkeypatch):
    batches: list[dict] = []
    # Two beats in the same month: each enqueues the learners the run has not fitted yet; the
    # batches they enqueue run on two workers at once (threads).
    monkeypatch.setattr(
        tasks.parameters_fit_batch, "delay", lambda **kwargs: batches.append(kwargs)
    )
    first = tasks.parameters_refit(now=RUN_AT.isoformat())
    second = tasks.parameters_refit(now=(RUN_AT + datetime.timedelta(hours=5)).isoformat())
    assert first["run_key"] == second["run_key"] == "2031-05"
    assert first["enqueued"] == second["enqueued"] == 3  # nothing fitted yet when both ran
    assert len(batches) == 2

    errors = []

    def work(batch):
        try:
            tasks.parameters_fit_batch(**batch)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    workers = [threading.Thread(target=work, args=(batch,)) for batch in batches]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    for learner in far_learners:
        assert ParameterFit.objects.filter(learner=learner, run_key="2031-05").count() == 1
    # Whatever was adopted was adopted once: version 1 at most.
    assert set(LearnerParameters.objects.values_list("version", flat=True)) <= {1}
    # A third beat later that month enqueues nobody; next month's run fits them again.
    assert (
        tasks.parameters_refit(now=(RUN_AT + datetime.timedelta(days=20)).isoformat())["enqueued"]
        == 0
    )
    assert (
        tasks.parameters_refit(now=(RUN_AT + datetime.timedelta(days=40)).isoformat())["enqueued"]
        == 3
    )


def test_a_fit_that_does_not_predict_better_is_stored_but_not_adopted(make_learner, course):
    learner = make_learner("far")
    log = simulated_log(parameters=POPULATIONS[2].draw(random.Random(3)), reviews=1500, seed=3)
    log_write(learner, course, log)
    first = parameters_services.learner_parameters_fit(
        learner_id=learner.pk, run_key="2031-05", at=RUN_AT
    )
    fit = ParameterFit.objects.get(pk=first.fit_id)
    assert fit.review_count == 1500 and fit.log_loss > 0 and fit.log_loss_before > 0
    # This learner is far from the defaults, with reviews enough to show it: the first fit
    # predicts clearly better and is adopted.
    assert first.outcome == "adopted"
    assert fit.log_loss < fit.log_loss_before
    in_use = LearnerParameters.objects.get(learner=learner)
    assert in_use.version == 1 and in_use.parameters == fit.parameters
    # The next month the same log gives the same fit of the older reviews: no better on the
    # newest than what is in use (fitted on all of them), so the parameters and their version
    # stay.
    again = parameters_services.learner_parameters_fit(
        learner_id=learner.pk, run_key="2031-06", at=RUN_AT + datetime.timedelta(days=31)
    )
    assert again.outcome == "kept"
    refit = ParameterFit.objects.get(pk=again.fit_id)
    assert refit.adopted is False
    in_use.refresh_from_db()
    assert in_use.version == 1 and in_use.fit_id == fit.pk


def test_a_module_pools_its_learners_once_per_run(make_learner, course):
    rng = random.Random(12)
    for index in range(5):
        learner = make_learner(f"pool{index}")
        # 500 reviews each: the held-out learner's are enough to judge the pool.
        log = simulated_log(parameters=POPULATIONS[2].draw(rng), reviews=500, seed=40 + index)
        log_write(learner, course, log)
    report = parameters_services.parameters_refit_run(run_key="2031-05", at=RUN_AT)
    assert report.modules_pooled == 1
    fit = ParameterFit.objects.get(module=course, run_key="2031-05")
    assert fit.review_count == 5 * 500
    assert fit.adopted  # learners who forget fast: the pool predicts clearly better
    assert ModuleParameters.objects.filter(module=course).exists()
    assert (
        parameters_services.parameters_refit_run(run_key="2031-05", at=RUN_AT).modules_pooled == 0
    )


def test_a_new_card_knows_its_module(learner, course, steps):
    from reviews.api import cards_for_step_ensure

    cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=timezone.now())
    assert set(ReviewCard.objects.filter(learner=learner).values_list("module_id", flat=True)) == {
        course.pk
    }


def _review_card(learner, course, steps, *, stability=20.0):
    """A review card of the first of ``steps``, due an hour ago, last reviewed 20 days ago."""
    now = timezone.now()
    return ReviewCard.objects.create(
        learner=learner,
        kind=ReviewCard.Kind.DEFINITION,
        step=steps[0],
        module=course,
        state=2,
        learning_step=None,
        stability=stability,
        difficulty=5.0,
        due=now - datetime.timedelta(hours=1),
        last_review=now - datetime.timedelta(days=20),
        created_at=now - datetime.timedelta(days=30),
    )


def test_a_review_with_own_parameters_and_an_exam_date_costs_the_same_queries(
    learner, course, steps
):
    card = _review_card(learner, course, steps)
    results = []

    def run():
        results.append(
            review_record(
                learner=learner,
                card_id=card.pk,
                rating=3,
                duration_ms=None,
                client_review_id=f"x{len(results)}",
            )
        )

    def own_parameters_and_an_exam_date():
        fit = ParameterFit.objects.create(
            learner=learner,
            run_key="t",
            fitted_at=timezone.now(),
            review_count=1000,
            parameters=[
                round(v * 1.5, 4) if i < 4 else v for i, v in enumerate(DEFAULT_PARAMETERS)
            ],
            log_loss=0.3,
            log_loss_before=0.4,
            rmse_bins=0.05,
            rmse_bins_before=0.09,
            adopted=True,
        )
        LearnerParameters.objects.create(
            learner=learner, parameters=fit.parameters, version=1, fit=fit
        )
        exam_on = timezone.now().date() + datetime.timedelta(days=5)
        ExamDate.objects.create(
            learner=learner, module=course, exam_on=exam_on, set_at=timezone.now()
        )

    # What schedules the card is read with it: the same queries as with the defaults.
    assert_queries_constant(run, grow=own_parameters_and_an_exam_date, budget=7)
    assert all(result.due > result.reviewed_at for result in results)


def _seeded_review(learner, card, seed: int, key: str):
    random.seed(seed)  # py-fsrs draws its fuzz from the random module
    return review_record(
        learner=learner, card_id=card.pk, rating=3, duration_ms=None, client_review_id=key
    )


@pytest.mark.parametrize("exam_of", ["learner", "module"])
def test_a_review_comes_back_before_the_exam_when_recall_then_would_be_below_target(
    learner, course, steps, exam_of
):
    """Two cards in the same state, reviewed with the same fuzz: the second after an exam date
    is set on the day the first came due (so the exam finds it below the target)."""
    from lms.local_time import local_day
    from reviews.scheduling import exam_recall, exam_start

    for seed in range(60):
        ReviewCard.objects.filter(learner=learner).delete()
        ExamDate.objects.all().delete()
        ModuleExamPlan.objects.all().delete()
        plain_card = _review_card(learner, course, steps[:1])
        exam_card = _review_card(learner, course, steps[1:2])
        plain = _seeded_review(learner, plain_card, seed, f"p{seed}")
        exam_on = local_day(time_zone=learner.time_zone, at=plain.due).date
        exam_at = exam_start(exam_on=exam_on, time_zone=learner.time_zone)
        after = CardState(2, None, plain.stability, plain.difficulty, plain.due, plain.reviewed_at)
        if exam_recall(state=after, exam_at=exam_at, parameters=DEFAULT_PARAMETERS) < 0.9:
            break
    else:
        pytest.fail("no fuzz put a card below the target on its due day")
    if exam_of == "learner":
        ExamDate.objects.create(
            learner=learner, module=course, exam_on=exam_on, set_at=timezone.now()
        )
    else:
        ModuleExamPlan.objects.create(module=course, exam_on=exam_on)
    shortened = _seeded_review(learner, exam_card, seed, f"e{seed}")
    assert shortened.stability == plain.stability
    assert shortened.due < exam_at < plain.due
    # Moving the exam a week on (or removing it) reschedules nothing: the due date stays.
    ExamDate.objects.filter(learner=learner).update(exam_on=exam_on + datetime.timedelta(days=7))
    ExamDate.objects.filter(learner=learner).delete()
    assert ReviewCard.objects.get(pk=exam_card.pk).due == shortened.due
