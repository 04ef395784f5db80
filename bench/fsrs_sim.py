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
    user: object
    truth: object  # bench.fsrs_truth.TrueMemory
    population: str
    true_parameters: tuple[float, ...]
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


@dataclass
class Score:
    log_loss: float = 0.0
    rmse_bins: float = 0.0
    reviews: int = 0

    def add(self, evaluation) -> None:
        self.log_loss += evaluation.log_loss * evaluation.reviews
        self.rmse_bins += evaluation.rmse_bins * evaluation.reviews
        self.reviews += evaluation.reviews

    def mean(self) -> tuple[float, float]:
        return self.log_loss / self.reviews, self.rmse_bins / self.reviews


def _prediction_study(learners: list[SimLearner], *, checkpoints, test_reviews, report) -> dict:
    from reviews import fitting
    from reviews.scheduling import DEFAULT_PARAMETERS

    logs = {learner.user.pk: _log_of(learner.user.pk) for learner in learners}
    populations = sorted({learner.population for learner in learners}, key=str)
    table: dict = {}
    fit_cpu = 0.0
    fit_reviews = 0
    for population in populations:
        in_population = [learner for learner in learners if learner.population == population]
        for n in checkpoints:
            # The learners whose log holds N reviews and the whole held-out window after them
            # (at 5,000 reviews possibly fewer than at 1,000: see --learners-5000).
            members = [m for m in in_population if len(logs[m.user.pk]) >= n + test_reviews]
            if not members:
                continue
            names = ("default", "oracle", "own fit", "fitted", "pooled", "in use")
            scores = {name: Score() for name in names}
            adopted = 0
            pools_adopted = 0
            splits = {
                m.user.pk: _split_items(logs[m.user.pk], first=n, test=test_reviews)
                for m in in_population
                if len(logs[m.user.pk]) >= n
            }
            for member in members:
                train, held = splits[member.user.pk]
                # The module's pooled parameters as the monthly run pools them
                # (fitting.parameters_pool: the other learners' first N reviews, this one held
                # out; adopted when they beat the defaults on the pool's own held-out learner).
                pool = fitting.parameters_pool(
                    learners=[
                        fitting.LearnerLog(reviews=logs[pk][:n], time_zone=TIME_ZONE)
                        for pk in splits
                        if pk != member.user.pk
                    ]
                )
                pooled = DEFAULT_PARAMETERS if pool is None else pool.parameters
                prior = pool.parameters if pool is not None and pool.adopted else None
                pools_adopted += prior is not None
                started = time.process_time()
                fitted = fitting.parameters_optimize(train, prior=prior)
                fit_cpu += time.process_time() - started
                fit_reviews += n
                # What the learner gets: the refit's rule (the older 80 %, drawn toward the
                # same prior, adopted only if it predicts the newest 20 % better than the
                # defaults, by log loss).
                outcome = fitting.parameters_fit(
                    reviews=logs[member.user.pk][:n],
                    time_zone=TIME_ZONE,
                    current=DEFAULT_PARAMETERS,
                    prior=prior,
                )
                in_use = DEFAULT_PARAMETERS
                if outcome is not None and outcome.adopted:
                    in_use = outcome.parameters
                    adopted += 1
                for name, parameters in (
                    ("default", DEFAULT_PARAMETERS),
                    # The learner's TRUE parameters on the same held-out reviews: the best any
                    # fit can do; its distance from 0 is the sampling noise of the measure.
                    ("oracle", member.true_parameters),
                    # fsrs-rs alone, not drawn toward the pooled parameters.
                    ("own fit", fitting.parameters_optimize(train)),
                    ("fitted", fitted),
                    ("pooled", pooled),
                    ("in use", in_use),
                ):
                    scores[name].add(fitting.evaluate(parameters, held))
            row = {name: score.mean() for name, score in scores.items()}
            row["held_out"] = scores["default"].reviews
            row["learners"] = len(members)
            row["adopted"] = f"{adopted}/{len(members)}"
            row["pools_adopted"] = f"{pools_adopted}/{len(members)}"
            table[(population, n)] = row
            report(
                f"  {population}, {n} reviews ({len(members)} learners): "
                + ", ".join(f"{name} {row[name][0]:.4f}/{row[name][1]:.4f}" for name in names)
            )
    return {"table": table, "fit_cpu": fit_cpu, "fit_reviews": fit_reviews, "logs": logs}


def _newcomer_study(
    learners: list[SimLearner], logs: dict, *, pool_reviews: int, test_reviews: int
) -> dict:
    """Learners with under 100 reviews get the module's pooled parameters (no fit of their own
    yet). Predicted: the learner's reviews after their first 99 (the next ``test_reviews``,
    held out), by the defaults and by parameters pooled from the OTHER learners of the
    population (their first ``pool_reviews``)."""
    from reviews import fitting
    from reviews.scheduling import DEFAULT_PARAMETERS

    result = {}
    for population in sorted({learner.population for learner in learners}):
        members = [learner for learner in learners if learner.population == population]
        default, pooled = Score(), Score()
        for member in members:
            others = [
                item.item
                for m in members
                if m is not member
                for item in fitting._items(logs[m.user.pk][:pool_reviews], time_zone=TIME_ZONE)
            ]
            _train, held = _split_items(logs[member.user.pk], first=99, test=test_reviews)
            if not others or not held:
                continue
            default.add(fitting.evaluate(DEFAULT_PARAMETERS, held))
            pooled.add(fitting.evaluate(fitting.parameters_optimize(others), held))
        if default.reviews:
            result[population] = {
                "default": default.mean(),
                "pooled": pooled.mean(),
                "items": default.reviews,
            }
    return result


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
    for pair in range(pairs):
        true = population.draw(random.Random(seed + pair))
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
        started = time.process_time()
        # A run key of its own: analysing the same database again fits again.
        report = learner_parameters_fit(learner_id=learner.user.pk, run_key=run_key, at=START)
        cpu += time.process_time() - started
        reviews += learner.reviews
        outcomes[report.outcome] = outcomes.get(report.outcome, 0) + 1
    return {"cpu": cpu, "reviews": reviews, "learners": len(learners), "outcomes": outcomes}


# --- the report --------------------------------------------------------------------------------


def _markdown(results: dict) -> str:
    args = results["args"]
    five = args["learners_5000"]
    lines = [
        "# FSRS simulation: fitted, pooled and exam-date scheduling",
        "",
        " · ".join(f"`python -m bench.fsrs_sim {command}`" for command in results["commands"])
        + f" · {results['when']} · {results['learners']} simulated learners "
        f"({args['learners']} per population"
        + (f", {five} of them on to 5,000 reviews" if five and five < args["learners"] else "")
        + f", and the exam pairs) reviewing {results['service_reviews']:,} times through "
        "`reviews.services.reviewing.review_record` on PostgreSQL "
        f"(in {results['seconds']:.0f} s of wall time).",
        "",
        "## Prediction of held-out later reviews (log loss / RMSE(bins), lower is better)",
        "",
        "Default: FSRS-6's defaults. Oracle: the learner's TRUE parameters (the simulation knows "
        "them), on the same reviews: no fit can do better, and its distance from 0 is the "
        "sampling noise of the measure (and what integer days lose). Own fit: fsrs-rs alone on "
        "the learner's first N reviews. Pooled: the module's pooled parameters as "
        "`reviews.fitting.parameters_pool` fits them, from the population's other learners' "
        "first N reviews (this one held out; adopted when they beat the defaults on the pool's "
        "own held-out learner: pools adopted; with fewer than 100 held-out predictable reviews "
        "there is no pool, and the column repeats the defaults). Fitted: what `reviews.fitting` "
        "fits for the "
        "learner, the own fit drawn toward the adopted pooled parameters by "
        "items / (items + 1,000) (`parameters_optimize`). Held out: the predictable reviews "
        f"among the {args['test_reviews']:,} reviews after the first N. Means over the "
        "learners, weighted by their held-out reviews (srs-benchmark's per-user averaging). In "
        "use: what the refit's adoption rule leaves the learner with (the fit of the older 80 % "
        "of the N reviews, drawn the same way, adopted only if it predicts the newest 20 % "
        "better than the defaults by log loss). The population near the defaults is the "
        "control: its truth is the defaults (the oracle column shows what is reachable there).",
        "",
        "| population | N | learners | held out | default | oracle | own fit | fitted | pooled "
        "(pools adopted) | RMSE(bins) vs default: oracle / fitted | log loss vs default: "
        "fitted | in use (fits adopted) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in results["prediction"]:
        d, o, f, p = row["default"], row["oracle"], row["fitted"], row["pooled"]
        own = row["own fit"]
        control = " (control)" if row["population"] == "near the defaults" else ""
        lines.append(
            f"| {row['population']}{control} | {row['n']:,} | {row['learners']} "
            f"| {row['held_out']:,} | {d[0]:.4f} / {d[1]:.4f} | {o[0]:.4f} / {o[1]:.4f} "
            f"| {own[0]:.4f} / {own[1]:.4f} | {f[0]:.4f} / {f[1]:.4f} "
            f"| {p[0]:.4f} / {p[1]:.4f} ({row['pools_adopted']}) "
            f"| {100 * (o[1] / d[1] - 1):+.0f} % / {100 * (f[1] / d[1] - 1):+.0f} % "
            f"| {f[0] - d[0]:+.4f} "
            f"| {row['in use'][0]:.4f} / {row['in use'][1]:.4f} ({row['adopted']}) |"
        )
    lines += [
        "",
        "## Newcomers (under 100 reviews): defaults vs the module's pooled parameters",
        "",
        "A learner with 99 reviews has no fit of their own yet: the reviews that follow "
        f"(the predictable ones among the next {args['test_reviews']:,}, held out) predicted by "
        "the defaults and by parameters pooled from the other learners' first "
        f"{args['pool_reviews']:,} reviews of the population (this learner held out).",
        "",
        "| population | held out | default log loss / RMSE(bins) | pooled log loss / RMSE(bins) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for population, row in sorted(results["newcomers"].items()):
        lines.append(
            f"| {population} | {row['items']:,} "
            f"| {row['default'][0]:.4f} / {row['default'][1]:.4f} "
            f"| {row['pooled'][0]:.4f} / {row['pooled'][1]:.4f} |"
        )
    exam = results["exam"]
    plain, dated = exam["plain"], exam["exam"]
    if plain["cards"]:
        lines += [
            "",
            "## Exam date",
            "",
            f"{args['exam_pairs']} pairs of identical learners (population near the defaults, "
            f"the same true parameters and random draws), {args['exam_cards']} cards each, "
            f"{args['exam_new_per_day']} new a day, exam on day {args['exam_day']}; TRUE recall "
            "at the exam day's local midnight.",
            "",
            "| schedule | cards at or above 0.90 | reviews until the exam |",
            "| --- | ---: | ---: |",
            f"| plain FSRS | {100 * plain['above'] / plain['cards']:.1f} % "
            f"| {plain['reviews']:,} |",
            f"| with the exam date | {100 * dated['above'] / dated['cards']:.1f} % | "
            f"{dated['reviews']:,} ({dated['reviews'] / plain['reviews']:.2f}×) |",
        ]
    cost = results["cost"]
    lines += [
        "",
        "## Cost",
        "",
        f"- optimizer (fsrs-rs `compute_parameters`, {cost['fit_reviews']:,} reviews fitted in "
        f"all): **{cost['cpu_per_100k']:.2f} s CPU per 100,000 reviews**.",
        f"- the refit service per learner (read the log, fit, judge on held-out reviews, write), "
        f"{cost['service']['learners']} learners with {cost['service']['reviews']:,} reviews: "
        f"{1000 * cost['service_cpu_per_learner_1000']:.1f} ms CPU per learner scaled to 1,000 "
        f"reviews → a monthly refit of 10,000 learners × 1,000 reviews ≈ "
        f"**{cost['monthly_cpu_minutes']:.2f} CPU-minutes** (extrapolated from this sample, "
        f"linearly in reviews; the database server's own CPU is not in it). Outcomes: "
        f"{cost['service']['outcomes']}.",
        f"- peak memory of the process (Django, the simulation and every fit): "
        f"**{cost['peak_mb']:.0f} MB** (ru_maxrss).",
        "",
    ]
    return "\n".join(lines)


def _results_merge(parts: list[dict]) -> dict:
    """One report from runs of disjoint populations (each in a process and database of its
    own, side by side)."""
    fit_cpu = sum(part["cost"]["fit_cpu"] for part in parts)
    fit_reviews = sum(part["cost"]["fit_reviews"] for part in parts)
    service = {"cpu": 0.0, "reviews": 0, "learners": 0, "outcomes": {}}
    for part in parts:
        for key in ("cpu", "reviews", "learners"):
            service[key] += part["cost"]["service"][key]
        for outcome, count in part["cost"]["service"]["outcomes"].items():
            service["outcomes"][outcome] = service["outcomes"].get(outcome, 0) + count
    exams = [part["exam"] for part in parts if part["exam"]["plain"]["cards"]]
    per_learner_1000 = service["cpu"] / service["reviews"] * 1_000
    args = dict(parts[0]["args"])
    args.update(next((part["args"] for part in parts if part["exam"]["plain"]["cards"]), {}))
    return {
        "when": max(part["when"] for part in parts),
        "commands": [command for part in parts for command in part["commands"]],
        "seconds": max(part["seconds"] for part in parts),
        "learners": sum(part["learners"] for part in parts),
        "service_reviews": sum(part["service_reviews"] for part in parts),
        "args": args,
        "prediction": sorted(
            (row for part in parts for row in part["prediction"]),
            key=lambda row: (row["population"], row["n"]),
        ),
        "newcomers": {k: v for part in parts for k, v in part["newcomers"].items()},
        "exam": exams[0] if exams else parts[0]["exam"],
        "cost": {
            "fit_cpu": fit_cpu,
            "fit_reviews": fit_reviews,
            "cpu_per_100k": fit_cpu / fit_reviews * 100_000,
            "service": service,
            "service_cpu_per_learner_1000": per_learner_1000,
            "monthly_cpu_minutes": per_learner_1000 * 10_000 / 60,
            "peak_mb": max(part["cost"]["peak_mb"] for part in parts),
        },
    }


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
            learner = SimLearner(
                user=_learner_create(f"p{p_index}-{index}"),
                truth=TrueMemory(parameters=true, rng=random.Random(seeds[(p_index, index)])),
                population=population.name,
                true_parameters=true,
            )
            stop = total if index < args.learners_5000 else max(below_5000) + args.test_reviews
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
        "--merge", nargs="+", type=Path, default=None, help="merge the .json of runs into --out"
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
        parts = [json.loads(path.read_text(encoding="utf-8")) for path in args.merge]
        _write(_results_merge(parts), out)
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

    learners = [
        SimLearner(
            user=User.objects.get(pk=row["user_id"]),
            truth=None,
            population=row["population"],
            true_parameters=tuple(row["true_parameters"]),
            reviews=row["reviews"],
        )
        for row in state["learners"]
    ]
    prediction = _prediction_study(
        learners, checkpoints=state["checkpoints"], test_reviews=args.test_reviews, report=report
    )
    newcomers = _newcomer_study(
        learners,
        prediction["logs"],
        pool_reviews=args.pool_reviews,
        test_reviews=args.test_reviews,
    )
    service = _service_fit_cost(learners)
    per_learner_1000 = service["cpu"] / service["reviews"] * 1_000
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
                "test_reviews",
                "pool_reviews",
                "exam_pairs",
                "exam_cards",
                "exam_new_per_day",
                "exam_day",
            )
        },
        "prediction": [
            {"population": population, "n": n, **row}
            for (population, n), row in prediction["table"].items()
        ],
        "newcomers": newcomers,
        "exam": exam,
        "cost": {
            "fit_cpu": prediction["fit_cpu"],
            "fit_reviews": prediction["fit_reviews"],
            "cpu_per_100k": prediction["fit_cpu"] / prediction["fit_reviews"] * 100_000,
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
