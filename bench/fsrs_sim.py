"""The FSRS simulation benchmark: per-learner and pooled parameters, and exam-date scheduling.

    python -m bench.fsrs_sim            # long (hours on one core); bench/results/fsrs.md + .json
    python -m bench.fsrs_sim --quick    # a smoke run (tiny), writes var/bench/fsrs-smoke.md
    # side by side, two databases: populations 0,1 and 2,3, then one report of both
    FSRS_SIM_DATABASE_URL=.../lernpfad_fsrs_a_bench python -m bench.fsrs_sim --populations 0,1 \
        --out var/bench/fsrs-a.md
    python -m bench.fsrs_sim --merge var/bench/fsrs-a.json var/bench/fsrs-b.json
    python -m bench.fsrs_sim --analyse-only --out var/bench/fsrs-a.md   # again, no simulation

Simulated learners (bench/fsrs_truth.py) with true FSRS-6 parameters drawn around the defaults
in four populations (two far from them) review THROUGH Lernpfad's review service
(``reviews.services.reviewing.review_record``, the function behind ``POST /api/v1/reviews/``, at
simulated times in the past) against PostgreSQL: the cards come from ``reviews.api``, the due
cards are the ones the service scheduled, and each answer is drawn from the learner's true
recall probability at that moment. Lernpfad schedules with the defaults while the log grows.

Measured, srs-benchmark style, on each learner's held-out LATER reviews (the reviews after the
first N): log loss and RMSE(bins) (fsrs-rs's own evaluation) for the defaults, parameters fitted
to the learner's first N reviews (fsrs-rs, as reviews.fitting does it) and parameters pooled from
the other learners of the population (the module's learners; the learner held out), at N = 200,
500, 1,000 and 5,000; and the "oracle", the learner's TRUE parameters on the same reviews, which
shows how far from 0 the sampling noise of the held-out set alone keeps the measure. Then the
exam date (first, in a run that has --exam-pairs): pairs of identical learners (same true
parameters, same random draws), one with an exam date set through the service, one without; on
the exam morning, the share of cards whose TRUE recall is at or above the desired retention, and the
reviews each needed until then. Last, the optimizer's CPU time and the process's peak memory.

The database (``FSRS_SIM_DATABASE_URL``, default lernpfad_fsrs_sim_bench on the server of
DATABASE_URL) is dropped and created; its name must contain "bench".
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import resource
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = (200, 500, 1_000, 5_000)
START = datetime.datetime(2020, 1, 6, tzinfo=datetime.UTC)  # in the past: reviews are replayed
TIME_ZONE = "Europe/Berlin"
DESIRED_RETENTION = 0.9


def _database_url() -> str:
    explicit = os.environ.get("FSRS_SIM_DATABASE_URL")
    if explicit:
        return explicit
    base = urlparse(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/x"))
    return urlunparse(base._replace(path="/lernpfad_fsrs_sim_bench"))


def _database_recreate(url: str) -> None:
    import psycopg

    name = urlparse(url).path.lstrip("/")
    if "bench" not in name:
        raise SystemExit("FSRS_SIM_DATABASE_URL must name a database with 'bench' in its name")
    admin = urlunparse(urlparse(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
        # Each review is a transaction of its own; waiting for its WAL flush is the disk's time,
        # not the service's. Only this throw-away database commits without waiting.
        connection.execute(f'ALTER DATABASE "{name}" SET synchronous_commit TO off')


def _django_setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lms.settings.test")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _module_create(*, slug: str, steps: int):
    """A module of ``steps`` steps, each one definition card (written with the ORM: the import
    of a document would take longer and add nothing here)."""
    from courses.models import Module, Step

    module = Module.objects.create(
        slug=slug,
        series="Simulation",
        number=Module.objects.count() + 1,
        title=f"Simulation {slug}",
        header=slug,
        source_path=f"sim/{slug}.md",
    )
    Step.objects.bulk_create(
        Step(
            module=module,
            slug=f"term-{number}",
            number=number,
            total=steps,
            term=f"Term {number}",
            lead=f"Term {number} is a simulated term.",
            definition=f"Term {number} is a simulated term.",
            level="B1",
            source_hash=f"{number:064d}",
            content_hash=f"{number:064d}",
        )
        for number in range(1, steps + 1)
    )
    return module, list(module.steps.order_by("number").values_list("id", flat=True))


@dataclass
class SimLearner:
    user: object  # None: simulated without the service (--service-learners)
    truth: object  # bench.fsrs_truth.TrueMemory
    population: str
    true_parameters: tuple[float, ...]
    key: str = ""
    reviews: int = 0
    review_times: list[datetime.datetime] = field(default_factory=list)


def _learner_create(name: str):
    from accounts.models import User

    return User.objects.create_user(
        username=name,
        email=f"{name}@sim.example",
        password=None,
        time_zone=TIME_ZONE,
        desired_retention=DESIRED_RETENTION,
        new_cards_per_day=9999,
        reviews_per_day=9999,
    )


def _simulate(
    learner: SimLearner,
    *,
    step_ids: list[int],
    new_per_day: int,
    stop_reviews: int | None = None,
    stop_at: datetime.datetime | None = None,
) -> None:
    """Review every due card each morning (and the learning steps that follow) through the
    review service, until ``stop_reviews`` reviews or the instant ``stop_at``."""
    from reviews.api import cards_for_step_ensure
    from reviews.models import ReviewCard
    from reviews.services.reviewing import review_record

    rng = learner.truth.rng
    introduced = 0
    day = 0
    user = learner.user
    while True:
        # 09:00 in Berlin (08:00 UTC in winter, 07:00 in summer: close enough), give or take.
        now = START + datetime.timedelta(days=day, hours=8, minutes=rng.randint(-30, 90))
        if stop_at is not None and now >= stop_at:
            return
        for _ in range(new_per_day):
            if introduced < len(step_ids):
                cards_for_step_ensure(learner_id=user.pk, step_id=step_ids[introduced], at=now)
                introduced += 1
        for _session_pass in range(6):
            due = list(
                ReviewCard.objects.filter(learner_id=user.pk, due__lte=now)
                .order_by("due", "id")
                .values_list("id", flat=True)
            )
            if not due:
                break
            for card_id in due:
                rating = learner.truth.answer(card_id, now)
                review_record(
                    learner=user,
                    card_id=card_id,
                    rating=rating,
                    duration_ms=6000,
                    client_review_id=uuid.uuid4().hex,
                    at=now,
                )
                learner.reviews += 1
                learner.review_times.append(now)
                if stop_reviews is not None and learner.reviews >= stop_reviews:
                    return
                now += datetime.timedelta(seconds=rng.randint(4, 12))
            now += datetime.timedelta(minutes=10)
        day += 1


# --- prediction: defaults, fitted, pooled ------------------------------------------------------


def _log_of(user_id: int):
    from reviews.selectors import learner_reviews

    return sorted(learner_reviews(user_id), key=lambda review: (review.reviewed_at, review.card_id))


def _split_items(log, *, first: int, test: int):
    """(items to fit on: from the first ``first`` reviews; held-out items: the predictable
    reviews among the next ``test``)."""
    from reviews import fitting

    train = [item.item for item in fitting._items(log[:first], time_zone=TIME_ZONE)]
    cutoff = log[first - 1].reviewed_at
    end = log[min(len(log), first + test) - 1].reviewed_at
    held = [
        item.item
        for item in fitting._items(log[: first + test], time_zone=TIME_ZONE)
        if cutoff < item.at <= end
    ]
    return train, held


# A pool is fitted from at most this many of the population's other learners (each learner's
# pool leaves them out): the bench's subsample of the module's learners, for time.
POOL_LEARNERS = 15


def _cross_pools(learners: list[SimLearner], logs: dict, *, n: int) -> list:
    """Two pools (``reviews.fitting.parameters_pool``) of the learners' first ``n`` reviews:
    of the odd-numbered learners, for the even-numbered ones, and the other way round; at most
    ``POOL_LEARNERS`` each. A learner is never in their own pool (cross-fitting: two pools per
    population and checkpoint instead of one per learner, for time)."""
    from reviews import fitting

    return [
        fitting.parameters_pool(
            learners=[
                fitting.LearnerLog(reviews=logs[m.key][:n], time_zone=TIME_ZONE)
                for m in learners[1 - half :: 2][:POOL_LEARNERS]
            ]
        )
        for half in (0, 1)
    ]


def _prediction_study(
    learners: list[SimLearner], logs: dict, *, checkpoints, test_reviews, report, save=None
) -> dict:
    """Per learner and checkpoint N: log loss and RMSE(bins) on the held-out later reviews of
    the defaults, the TRUE parameters (the oracle), the module's pooled parameters and what the
    real refit (``reviews.fitting.parameters_fit``, its adoption rule and prior) leaves in use."""
    from reviews import fitting
    from reviews.scheduling import DEFAULT_PARAMETERS

    rows: list[dict] = []
    fit_cpu = 0.0
    fit_reviews = 0
    populations = sorted({learner.population for learner in learners}, key=str)
    for population in populations:
        in_population = [learner for learner in learners if learner.population == population]
        for n in checkpoints:
            members = [m for m in in_population if len(logs[m.key]) >= n + test_reviews]
            with_n = [m for m in in_population if len(logs[m.key]) >= n]
            adopted = 0
            pools = _cross_pools(with_n, logs, n=n)
            for member in members:
                _train, held = _split_items(logs[member.key], first=n, test=test_reviews)
                pool = pools[with_n.index(member) % 2]
                prior = pool.parameters if pool is not None and pool.adopted else None
                started = time.process_time()
                outcome = fitting.parameters_fit(
                    reviews=logs[member.key][:n],
                    time_zone=TIME_ZONE,
                    current=DEFAULT_PARAMETERS if prior is None else prior,
                    prior=prior,
                )
                fit_cpu += time.process_time() - started
                fit_reviews += n
                # What the learner is scheduled with: the adopted fit, else the module's adopted
                # pooled parameters, else the defaults (reviews.selectors.parameters_in_use).
                in_use = prior or DEFAULT_PARAMETERS
                if outcome is not None and outcome.adopted:
                    in_use = outcome.parameters
                    adopted += 1
                row = {
                    "population": population,
                    "n": n,
                    "learner": member.key,
                    "service": member.user is not None,
                    "pool_adopted": prior is not None,
                    "adopted": bool(outcome is not None and outcome.adopted),
                }
                # Without the rule: the fit of all N reviews, drawn toward the better prior (what
                # would be in use if every fit were adopted).
                candidates = [DEFAULT_PARAMETERS] if prior is None else [prior, DEFAULT_PARAMETERS]
                unjudged = fitting._drawn_fit(
                    fitting._items(logs[member.key][:n], time_zone=TIME_ZONE), candidates
                )
                for name, parameters in (
                    ("default", DEFAULT_PARAMETERS),
                    ("oracle", member.true_parameters),
                    ("pooled", prior or DEFAULT_PARAMETERS),
                    ("in_use", in_use),
                    ("every_fit", unjudged),
                ):
                    evaluation = fitting.evaluate(parameters, held)
                    row[name] = [evaluation.log_loss, evaluation.rmse_bins, evaluation.reviews]
                rows.append(row)
            if members:
                report(f"  {population}, {n} reviews: {len(members)} learners, {adopted} adopted")
                if save is not None:  # what is done so far, for a run stopped early
                    save(rows)
    return {"rows": rows, "fit_cpu": fit_cpu, "fit_reviews": fit_reviews}


def _newcomer_study(
    learners: list[SimLearner], logs: dict, *, pool_reviews: int, test_reviews: int
) -> list[dict]:
    """Learners with under 100 reviews are scheduled with the module's pooled parameters when
    the pool is adopted (no fit of their own yet). Predicted: the learner's reviews after their
    first 99 (the next ``test_reviews``, held out), by the defaults and by what the learner
    starts with: parameters pooled (``reviews.fitting.parameters_pool``, its adoption rule) from
    the OTHER learners of the population (their first ``pool_reviews``), else the defaults."""
    from reviews import fitting
    from reviews.scheduling import DEFAULT_PARAMETERS

    rows = []
    for population in sorted({learner.population for learner in learners}):
        members = [learner for learner in learners if learner.population == population]
        pools = _cross_pools(members, logs, n=pool_reviews)
        for number, member in enumerate(members):
            pool = pools[number % 2]
            start = pool.parameters if pool is not None and pool.adopted else DEFAULT_PARAMETERS
            _train, held = _split_items(logs[member.key], first=99, test=test_reviews)
            if not held:
                continue
            default = fitting.evaluate(DEFAULT_PARAMETERS, held)
            pooled = fitting.evaluate(start, held)
            rows.append(
                {
                    "population": population,
                    "learner": member.key,
                    "pool_adopted": start is not DEFAULT_PARAMETERS,
                    "default": [default.log_loss, default.rmse_bins, default.reviews],
                    "pooled": [pooled.log_loss, pooled.rmse_bins, pooled.reviews],
                }
            )
    return rows


# --- the exam date -----------------------------------------------------------------------------


def _exam_study(
    *, pairs: int, cards: int, new_per_day: int, exam_day: int, seed: int, report
) -> dict:
    from bench.fsrs_truth import POPULATIONS, TrueMemory
    from lms.local_time import local_day_of
    from reviews.services.exam_dates import exam_date_set

    exam_on = (START + datetime.timedelta(days=exam_day)).date()
    exam_at = local_day_of(time_zone=TIME_ZONE, date=exam_on).start
    population = POPULATIONS[0]
    outcome = {
        "plain": {"above": 0, "cards": 0, "reviews": 0},
        "exam": {"above": 0, "cards": 0, "reviews": 0},
    }
    outcome["pairs"] = []
    for pair in range(pairs):
        true = population.draw(random.Random(seed + pair))
        this_pair = {}
        for mode in ("plain", "exam"):
            module, step_ids = _module_create(slug=f"exam-{mode}-{pair}", steps=cards)
            user = _learner_create(f"exam-{mode}-{pair}")
            if mode == "exam":
                # Set through the service, as the page and the API do (the day it is set: the
                # first morning).
                exam_date_set(learner=user, module_slug=module.slug, exam_on=exam_on, at=START)
            learner = SimLearner(
                user=user,
                truth=TrueMemory(parameters=true, rng=random.Random(seed * 1000 + pair)),
                population=population.name,
                true_parameters=true,
            )
            _simulate(learner, step_ids=step_ids, new_per_day=new_per_day, stop_at=exam_at)
            recalls = [learner.truth.recall(card_id, exam_at) for card_id in learner.truth.cards]
            outcome[mode]["above"] += sum(
                1 for r in recalls if r is not None and r >= DESIRED_RETENTION
            )
            outcome[mode]["cards"] += len(recalls)
            outcome[mode]["reviews"] += learner.reviews
            this_pair[mode] = {
                "above": sum(1 for r in recalls if r is not None and r >= DESIRED_RETENTION),
                "cards": len(recalls),
                "reviews": learner.reviews,
            }
        outcome["pairs"].append(this_pair)
        report(f"  exam pair {pair}: plain {outcome['plain']}, exam {outcome['exam']}")
    return outcome


# --- cost --------------------------------------------------------------------------------------


def _service_fit_cost(learners: list[SimLearner]) -> dict:
    """CPU of the refit service itself (read the log, fit, judge, write) per learner."""
    from reviews.services.parameters import learner_parameters_fit

    cpu = 0.0
    reviews = 0
    outcomes: dict[str, int] = {}
    run_key = f"sim-{uuid.uuid4().hex[:12]}"
    for learner in learners:
        if learner.user is None:
            continue
        started = time.process_time()
        # A run key of its own: analysing the same database again fits again.
        report = learner_parameters_fit(learner_id=learner.user.pk, run_key=run_key, at=START)
        cpu += time.process_time() - started
        reviews += learner.reviews
        outcomes[report.outcome] = outcomes.get(report.outcome, 0) + 1
    served = sum(learner.user is not None for learner in learners)
    return {"cpu": cpu, "reviews": reviews, "learners": served, "outcomes": outcomes}


# --- the report --------------------------------------------------------------------------------


HARM = 0.002  # log loss worse than the defaults by more than this harms a learner
# The targets of the median gap closed (population, N): issue 29.
GAP_TARGETS = {
    ("forgets fast (away)", 1_000): 0.6,
    ("forgets fast (away)", 5_000): 0.75,
    ("remembers well (away)", 1_000): 0.6,
    ("remembers well (away)", 5_000): 0.75,
    ("spread around them", 1_000): 0.3,
    ("spread around them", 5_000): 0.6,
}
HARM_TARGET = 0.05
BOOTSTRAP_ROUNDS = 2_000


def _bootstrap(values: list[float], statistic, *, seed: int = 29) -> tuple[float, float]:
    """The 95 % percentile bootstrap interval of ``statistic`` over ``values`` (the learners
    resampled with replacement)."""
    rng = random.Random(seed)
    draws = sorted(statistic([rng.choice(values) for _ in values]) for _ in range(BOOTSTRAP_ROUNDS))
    return draws[int(0.025 * BOOTSTRAP_ROUNDS)], draws[int(0.975 * BOOTSTRAP_ROUNDS) - 1]


def _weighted(rows: list[dict], name: str) -> tuple[float, float]:
    reviews = sum(row[name][2] for row in rows)
    return (
        sum(row[name][0] * row[name][2] for row in rows) / reviews,
        sum(row[name][1] * row[name][2] for row in rows) / reviews,
    )


def _gap(row: dict) -> float:
    """(default − in use) ÷ (default − truth), by log loss on the learner's held-out reviews."""
    reachable = row["default"][0] - row["oracle"][0]
    if reachable <= 0:  # the truth predicts no better than the defaults: nothing to close
        return 1.0 if row["in_use"][0] <= row["default"][0] else -1.0
    return (row["default"][0] - row["in_use"][0]) / reachable


def _gap_every_fit(row: dict) -> float:
    return _gap({**row, "in_use": row["every_fit"]})


def _harmed(row: dict) -> float:
    return 1.0 if row["in_use"][0] - row["default"][0] > HARM else 0.0


def _prediction_summary(rows: list[dict]) -> list[dict]:
    groups: dict = {}
    for row in rows:
        groups.setdefault((row["population"], row["n"]), []).append(row)
    summary = []
    for (population, n), members in sorted(groups.items()):
        gaps = [_gap(row) for row in members]
        harmed = [_harmed(row) for row in members]
        summary.append(
            {
                "population": population,
                "n": n,
                "learners": len(members),
                "service": sum(row["service"] for row in members),
                "held_out": sum(row["default"][2] for row in members) // len(members),
                "default": _weighted(members, "default"),
                "oracle": _weighted(members, "oracle"),
                "pooled": _weighted(members, "pooled"),
                "in_use": _weighted(members, "in_use"),
                "adopted": sum(row["adopted"] for row in members),
                "pools": sum(row["pool_adopted"] for row in members),
                "gap": statistics.median(gaps),
                "every_fit": _weighted(members, "every_fit") if "every_fit" in members[0] else None,
                "gap_every_fit": (
                    statistics.median(_gap_every_fit(row) for row in members)
                    if "every_fit" in members[0]
                    else None
                ),
                "harmed_every_fit": (
                    statistics.fmean(
                        _harmed({**row, "in_use": row["every_fit"]}) for row in members
                    )
                    if "every_fit" in members[0]
                    else None
                ),
                "gap_ci": _bootstrap(gaps, statistics.median),
                "harmed": statistics.fmean(harmed),
                "harmed_ci": _bootstrap(harmed, statistics.fmean),
                "gap_target": GAP_TARGETS.get((population, n)),
            }
        )
    return summary


def _verdict(row: dict) -> str:
    met = row["harmed_ci"][1] <= HARM_TARGET
    words = [f"harm ≤ 5 %: {'met' if met else '**not met**'}"]
    if row["gap_target"] is not None:
        gap_met = row["gap_ci"][0] >= row["gap_target"]
        words.append(f"gap ≥ {row['gap_target']}: {'met' if gap_met else '**not met**'}")
    return "; ".join(words)


def _markdown(results: dict) -> str:
    args = results["args"]
    summary = _prediction_summary(results["prediction"])
    lines = [
        "# FSRS simulation: fitted, pooled and exam-date scheduling",
        "",
        " · ".join(f"`python -m bench.fsrs_sim {command}`" for command in results["commands"])
        + f" · {results['when']} · {results['learners']} simulated learners "
        f"({args['learners']} per population, {args['learners_5000']} of them on to 5,000 "
        f"reviews; {args['service_learners']} per population through the review service "
        "`reviews.services.reviewing.review_record` on PostgreSQL, the rest through the tests' "
        "pure simulator, see below; and the exam pairs, all through the service): "
        f"{results['service_reviews']:,} reviews through the service "
        f"(in {results['seconds']:.0f} s of wall time, the simulation).",
        "",
        "**Subsample.** Reviewing through the service costs several ms a review on the shared "
        "machine; ≥ 30 learners × 4 populations × up to 7,500 reviews would take hours. So the "
        f"first {args['service_learners']} learners of each population review through the "
        "service (their cards, due dates and log in PostgreSQL), and the others through "
        "`tests.reviews.test_fitting.simulated_log`: the same true-memory model "
        "(`bench.fsrs_truth`), scheduled by the same `reviews.scheduling.card_review` with the "
        "defaults, no database. Their logs feed the same analysis. Pools are cross-fitted: "
        "the pool of the odd-numbered learners of a population (at most "
        f"{POOL_LEARNERS}) serves the even-numbered ones and the other way round, so a learner "
        "is never in their own pool.",
        "",
        "## Prediction of held-out later reviews",
        "",
        f"Held out: the predictable reviews among the {args['test_reviews']:,} reviews after the "
        "first N (mean per learner). Log loss / RMSE(bins), means over the learners weighted by "
        "their held-out reviews. Default: FSRS-6's defaults. Oracle: the learner's TRUE "
        "parameters. Pooled: the module's pooled parameters when `parameters_pool`'s adoption "
        "rule adopts them (from the other learners' first N reviews), else the defaults. In use: "
        "what `reviews.fitting.parameters_fit` (the refit service's function) leaves the learner "
        "with after its adoption rule, on the learner's first N reviews: the fit if adopted "
        "(then refitted on all N), else the pooled start. Gap closed = (default − in use) ÷ "
        "(default − truth) by log loss, per learner; median with its bootstrap 95 % interval "
        f"({BOOTSTRAP_ROUNDS:,} resamples of the learners). Harmed: in use worse than the "
        f"defaults by more than {HARM} log loss; the share of learners, with its bootstrap "
        "interval. Every fit adopted: the drawn fit of all N reviews with no adoption rule (the "
        "fit's own limit: what the rule can at most pass on). "
        "Near the defaults the truth is within about 5 % of the defaults: its gap "
        "closed divides by a reachable gain of about 0.0005 and has no target.",
        "",
        "| population | N | learners (service) | held out | default | oracle | pooled (pools) "
        "| in use (fits adopted) | median gap closed [95 %] | harmed > 0.002 [95 %] | target "
        "| every fit adopted: log loss / RMSE(bins), median gap, harmed |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for row in summary:
        d, o, p, u = row["default"], row["oracle"], row["pooled"], row["in_use"]
        lines.append(
            f"| {row['population']} | {row['n']:,} | {row['learners']} ({row['service']}) "
            f"| {row['held_out']:,} | {d[0]:.4f} / {d[1]:.4f} | {o[0]:.4f} / {o[1]:.4f} "
            f"| {p[0]:.4f} / {p[1]:.4f} ({row['pools']}) "
            f"| {u[0]:.4f} / {u[1]:.4f} ({row['adopted']}) "
            f"| {row['gap']:.2f} [{row['gap_ci'][0]:.2f}, {row['gap_ci'][1]:.2f}] "
            f"| {100 * row['harmed']:.1f} % [{100 * row['harmed_ci'][0]:.1f}, "
            f"{100 * row['harmed_ci'][1]:.1f}] | {_verdict(row)} | "
            + (
                f"{row['every_fit'][0]:.4f} / {row['every_fit'][1]:.4f}, "
                f"{row['gap_every_fit']:.2f}, {100 * row['harmed_every_fit']:.0f} % |"
                if row["every_fit"] is not None
                else "– |"
            )
        )
    lines += [
        "",
        "## Newcomers (under 100 reviews): the pooled start vs the defaults",
        "",
        "A learner with 99 reviews has no fit of their own: the reviews that follow (the "
        f"predictable ones among the next {args['test_reviews']:,}, held out) predicted by the "
        "defaults and by what the learner starts with: the pooled parameters of the other "
        f"learners' first {args['pool_reviews']:,} reviews if `parameters_pool` adopts them, "
        "else the defaults. Difference: pooled start − default log loss per learner, mean with "
        "its bootstrap 95 % interval (negative: the pooled start predicts better).",
        "",
        "| population | learners (pools adopted) | default log loss / RMSE(bins) "
        "| pooled start log loss / RMSE(bins) | difference [95 %] |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    populations = sorted({row["population"] for row in results["newcomers"]})
    for population in populations:
        members = [row for row in results["newcomers"] if row["population"] == population]
        differences = [row["pooled"][0] - row["default"][0] for row in members]
        low, high = _bootstrap(differences, statistics.fmean)
        d, p = _weighted(members, "default"), _weighted(members, "pooled")
        lines.append(
            f"| {population} | {len(members)} ({sum(row['pool_adopted'] for row in members)}) "
            f"| {d[0]:.4f} / {d[1]:.4f} | {p[0]:.4f} / {p[1]:.4f} "
            f"| {statistics.fmean(differences):+.4f} [{low:+.4f}, {high:+.4f}] |"
        )
    pairs = results["exam"].get("pairs") or []
    if pairs:
        shares = [pair["exam"]["above"] / pair["exam"]["cards"] for pair in pairs]
        plain_shares = [pair["plain"]["above"] / pair["plain"]["cards"] for pair in pairs]
        ratios = [pair["exam"]["reviews"] / pair["plain"]["reviews"] for pair in pairs]
        s_low, s_high = _bootstrap(shares, statistics.fmean)
        p_low, p_high = _bootstrap(plain_shares, statistics.fmean)
        r_low, r_high = _bootstrap(ratios, statistics.fmean)
        lines += [
            "",
            "## Exam date",
            "",
            f"{len(pairs)} pairs of identical learners (population near the defaults, the same "
            f"true parameters and random draws), {args['exam_cards']} cards each, "
            f"{args['exam_new_per_day']} new a day, exam on day {args['exam_day']}; TRUE recall "
            "at the exam day's local midnight. Means over the pairs with bootstrap 95 % "
            "intervals.",
            "",
            "| schedule | cards at or above 0.90 [95 %] | reviews until the exam, × plain [95 %] |",
            "| --- | ---: | ---: |",
            f"| plain FSRS | {100 * statistics.fmean(plain_shares):.1f} % "
            f"[{100 * p_low:.1f}, {100 * p_high:.1f}] | 1 |",
            f"| with the exam date | {100 * statistics.fmean(shares):.1f} % "
            f"[{100 * s_low:.1f}, {100 * s_high:.1f}] "
            f"| {statistics.fmean(ratios):.2f}× [{r_low:.2f}, {r_high:.2f}] |",
        ]
    cost = results["cost"]
    lines += [
        "",
        "## Cost",
        "",
        "- optimizer (fsrs-rs `compute_parameters` through `reviews.fitting."
        f"parameters_optimize`, every call of the analysis, {cost['fit_reviews']:,} predictable "
        f"reviews fitted in all): **{cost['cpu_per_100k']:.2f} s CPU per 100,000 reviews** "
        "(process CPU time, not wall time).",
        "- `parameters_fit` whole (prior choice, fit, per-review losses, adoption test, refit on "
        f"all when adopted): {cost['refit_cpu']:.1f} s CPU for {cost['refit_reviews']:,} "
        f"reviews, {cost['refit_cpu'] / cost['refit_reviews'] * 100_000:.2f} s per 100,000.",
        "- the refit service per learner (read the log, fit, judge on held-out reviews, write), "
        f"{cost['service']['learners']} learners with {cost['service']['reviews']:,} reviews: "
        f"{1000 * cost['service_cpu_per_learner_1000']:.1f} ms CPU per learner scaled to 1,000 "
        "reviews → a monthly refit of 10,000 learners × 1,000 reviews ≈ "
        f"**{cost['monthly_cpu_minutes']:.2f} CPU-minutes** (extrapolated linearly in reviews; "
        "the database server's own CPU is not in it). Outcomes: "
        f"{cost['service']['outcomes']}.",
        f"- peak memory of the process: **{cost['peak_mb']:.0f} MB** (ru_maxrss).",
        "",
    ]
    return "\n".join(lines)


def _write(results: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_markdown(results), encoding="utf-8")
    out.with_suffix(".json").write_text(
        json.dumps(results, indent=2, default=str), encoding="utf-8"
    )


def _simulation_run(args, *, report, started: float, save) -> dict:
    """Simulate the exam pairs and the learners through the review service, and note what the
    analysis needs of them (the logs stay in the database). ``save`` is called with the notes
    after each learner, so a run stopped early can still be analysed (--analyse-only)."""
    from bench.fsrs_truth import POPULATIONS, TrueMemory
    from tests.reviews.test_fitting import simulated_log

    rng = random.Random(args.seed)
    checkpoints = [n for n in CHECKPOINTS if n <= args.max_reviews] or [args.max_reviews]
    below_5000 = [n for n in checkpoints if n < 5_000]
    total = max(checkpoints) + args.test_reviews
    state: dict = {
        "checkpoints": checkpoints,
        "learners": [],
        "exam": _exam_study(
            pairs=args.exam_pairs,
            cards=args.exam_cards,
            new_per_day=args.exam_new_per_day,
            exam_day=args.exam_day,
            seed=args.seed,
            report=report,
        ),
    }
    state["service_reviews"] = state["exam"]["plain"]["reviews"] + state["exam"]["exam"]["reviews"]
    chosen = {int(index) for index in args.populations.split(",") if index.strip()}
    populations = [
        (p_index, population)
        for p_index, population in enumerate(POPULATIONS)
        if not chosen or p_index in chosen
    ]
    steps = {
        p_index: _module_create(slug=f"pop-{p_index}", steps=total // 3 + 50)[1]
        for p_index, _population in populations
    }
    # The learners who stop after the largest checkpoint below 5,000 first, then those who go
    # on to 5,000 (--learners-5000); the populations in turn: a run stopped early has as many
    # learners in each population.
    short = max(0, args.learners - args.learners_5000) if below_5000 else 0
    order = list(range(args.learners_5000, args.learners_5000 + short)) + list(
        range(min(args.learners, args.learners_5000))
    )
    truths = {
        (p_index, index): population.draw(rng)
        for p_index, population in populations
        for index in range(args.learners)
    }
    seeds = {key: rng.random() for key in truths}
    for index in order:
        for p_index, population in populations:
            true = truths[(p_index, index)]
            stop = total if index < args.learners_5000 else max(below_5000) + args.test_reviews
            if index >= args.service_learners:
                # The subsample's rest: the tests' pure simulator (the same scheduling,
                # reviews.scheduling.card_review, with the defaults; no database). Its log is
                # made again from the seed when the run is analysed.
                seed = int(seeds[(p_index, index)] * 10**9)
                log = simulated_log(
                    parameters=true, reviews=stop, seed=seed, new_per_day=args.new_per_day
                )
                state["learners"].append(
                    {
                        "user_id": None,
                        "seed": seed,
                        "population": population.name,
                        "true_parameters": list(true),
                        "reviews": len(log),
                    }
                )
                continue
            learner = SimLearner(
                user=_learner_create(f"p{p_index}-{index}"),
                truth=TrueMemory(parameters=true, rng=random.Random(seeds[(p_index, index)])),
                population=population.name,
                true_parameters=true,
            )
            _simulate(
                learner, step_ids=steps[p_index], new_per_day=args.new_per_day, stop_reviews=stop
            )
            state["learners"].append(
                {
                    "user_id": learner.user.pk,
                    "population": learner.population,
                    "true_parameters": list(learner.true_parameters),
                    "reviews": learner.reviews,
                }
            )
            state["service_reviews"] += learner.reviews
            state["seconds"] = time.time() - started
            save(state)
            report(
                f"{population.name} #{index}: {learner.reviews} reviews "
                f"({time.time() - started:.0f} s)"
            )
    state["seconds"] = time.time() - started
    save(state)
    return state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=5, help="learners per population")
    parser.add_argument(
        "--learners-5000",
        type=int,
        default=99,
        help="of them, how many go on to 5,000 reviews (the others stop after 1,000 + held out)",
    )
    parser.add_argument(
        "--service-learners",
        type=int,
        default=99,
        help="of them, how many review through the service (the others: the pure simulator)",
    )
    parser.add_argument("--max-reviews", type=int, default=5_000)
    parser.add_argument("--test-reviews", type=int, default=2_000)
    parser.add_argument("--pool-reviews", type=int, default=1_000)
    parser.add_argument("--new-per-day", type=int, default=20)
    parser.add_argument("--exam-pairs", type=int, default=4)
    parser.add_argument("--exam-cards", type=int, default=200)
    parser.add_argument("--exam-new-per-day", type=int, default=10)
    parser.add_argument("--exam-day", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--populations", default="", help="indices of the populations to run (default: all)"
    )
    parser.add_argument("--quick", action="store_true", help="a tiny smoke run")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        help="where the simulation notes its learners (default: next to --out, .state.json)",
    )
    parser.add_argument(
        "--analyse-only",
        action="store_true",
        help="no simulation: analyse the learners of --state in the database as it is",
    )
    parser.add_argument(
        "--merge",
        nargs=1,
        type=Path,
        default=None,
        help="write --out again from a run's .json (no simulation, no analysis)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.learners, args.max_reviews, args.test_reviews = 2, 500, 200
        args.pool_reviews, args.exam_pairs, args.exam_cards, args.exam_day = 200, 1, 40, 12
    out = args.out or (
        ROOT / "var" / "bench" / "fsrs-smoke.md"
        if args.quick
        else ROOT / "bench" / "results" / "fsrs.md"
    )
    if args.merge:
        _write(json.loads(args.merge[0].read_text(encoding="utf-8")), out)
        print(f"wrote {out}")
        return 0
    state_path = args.state or out.with_suffix(".state.json")

    def report(text: str) -> None:
        print(text, flush=True)

    started = time.time()
    url = _database_url()
    if args.analyse_only:
        state = json.loads(state_path.read_text(encoding="utf-8"))
        _django_setup(url)
    else:
        _database_recreate(url)
        _django_setup(url)
        command = " ".join(sys.argv[1:] if argv is None else argv)
        state_path.parent.mkdir(parents=True, exist_ok=True)

        def save(state: dict) -> None:
            state["command"] = command
            state_path.write_text(json.dumps(state, indent=2, default=str), encoding="utf-8")

        state = _simulation_run(args, report=report, started=started, save=save)
    from accounts.models import User
    from reviews import fitting
    from tests.reviews.test_fitting import simulated_log

    learners = []
    logs = {}
    for number, row in enumerate(state["learners"]):
        learner = SimLearner(
            user=None if row["user_id"] is None else User.objects.get(pk=row["user_id"]),
            truth=None,
            population=row["population"],
            true_parameters=tuple(row["true_parameters"]),
            reviews=row["reviews"],
            key=f"{'s' if row['user_id'] else 'p'}{number}",
        )
        learners.append(learner)
        if learner.user is None:
            logs[learner.key] = simulated_log(
                parameters=learner.true_parameters,
                reviews=row["reviews"],
                seed=row["seed"],
                new_per_day=args.new_per_day,
            )
        else:
            logs[learner.key] = _log_of(learner.user.pk)
    optimizer = {"cpu": 0.0, "items": 0}
    optimize = fitting.parameters_optimize

    def timed_optimize(items, **kwargs):
        started = time.process_time()
        try:
            return optimize(items, **kwargs)
        finally:
            optimizer["cpu"] += time.process_time() - started
            optimizer["items"] += len(items)

    fitting.parameters_optimize = timed_optimize
    prediction = _prediction_study(
        learners,
        logs,
        checkpoints=state["checkpoints"],
        test_reviews=args.test_reviews,
        report=report,
        save=lambda rows: out.with_suffix(".rows.json").write_text(
            json.dumps(rows, default=str), encoding="utf-8"
        ),
    )
    newcomers = _newcomer_study(
        learners, logs, pool_reviews=args.pool_reviews, test_reviews=args.test_reviews
    )
    fitting.parameters_optimize = optimize
    service = _service_fit_cost(learners)
    per_learner_1000 = service["cpu"] / max(1, service["reviews"]) * 1_000
    exam = state["exam"]
    results = {
        "when": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commands": [state["command"]],
        "seconds": state["seconds"],
        "learners": len(learners) + 2 * args.exam_pairs,
        "service_reviews": state["service_reviews"],
        "args": {
            key: getattr(args, key)
            for key in (
                "learners",
                "learners_5000",
                "service_learners",
                "new_per_day",
                "test_reviews",
                "pool_reviews",
                "exam_pairs",
                "exam_cards",
                "exam_new_per_day",
                "exam_day",
            )
        },
        "prediction": prediction["rows"],
        "newcomers": newcomers,
        "exam": exam,
        "cost": {
            "fit_cpu": optimizer["cpu"],
            "fit_reviews": optimizer["items"],
            "cpu_per_100k": optimizer["cpu"] / optimizer["items"] * 100_000,
            "refit_cpu": prediction["fit_cpu"],
            "refit_reviews": prediction["fit_reviews"],
            "service": service,
            "service_cpu_per_learner_1000": per_learner_1000,
            "monthly_cpu_minutes": per_learner_1000 * 10_000 / 60,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        },
    }
    _write(results, out)
    report(f"wrote {out} ({time.time() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
