"""The FSRS simulation benchmark: per-learner and pooled parameters, and exam-date scheduling.

    python -m bench.fsrs_sim            # a few minutes; writes bench/results/fsrs.md and .json
    python -m bench.fsrs_sim --quick    # a smoke run (tiny), writes var/bench/fsrs-smoke.md

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
500, 1,000 and 5,000. Then the exam date: pairs of identical learners (same true parameters,
same random draws), one with an exam date set through the service, one without; on the exam
morning, the share of cards whose TRUE recall is at or above the desired retention, and the
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
        members = [learner for learner in learners if learner.population == population]
        for n in checkpoints:
            if any(len(logs[m.user.pk]) < n + 50 for m in members):
                continue
            scores = {"default": Score(), "fitted": Score(), "pooled": Score(), "in use": Score()}
            adopted = 0
            splits = {
                m.user.pk: _split_items(logs[m.user.pk], first=n, test=test_reviews)
                for m in members
            }
            for member in members:
                train, held = splits[member.user.pk]
                started = time.process_time()
                fitted = fitting._optimize(train)
                fit_cpu += time.process_time() - started
                fit_reviews += n
                others = [item for m in members if m is not member for item in splits[m.user.pk][0]]
                pooled = fitting._optimize(others) if others else DEFAULT_PARAMETERS
                # What the learner gets: the monthly refit's rule (fit on the older 80 %,
                # adopted only if it predicts the newest 20 % better than the defaults).
                outcome = fitting.parameters_fit(
                    reviews=logs[member.user.pk][:n],
                    time_zone=TIME_ZONE,
                    current=DEFAULT_PARAMETERS,
                )
                in_use = DEFAULT_PARAMETERS
                if outcome is not None and outcome.adopted:
                    in_use = outcome.parameters
                    adopted += 1
                for name, parameters in (
                    ("default", DEFAULT_PARAMETERS),
                    ("fitted", fitted),
                    ("pooled", pooled),
                    ("in use", in_use),
                ):
                    scores[name].add(fitting.evaluate(parameters, held))
            table[(population, n)] = {name: score.mean() for name, score in scores.items()}
            table[(population, n)]["held_out"] = scores["default"].reviews
            table[(population, n)]["adopted"] = f"{adopted}/{len(members)}"
            report(
                f"  {population}, {n} reviews: "
                + ", ".join(
                    f"{name} {ll:.4f}/{rmse:.4f}"
                    for name, (ll, rmse) in (
                        (k, v)
                        for k, v in table[(population, n)].items()
                        if k not in ("held_out", "adopted")
                    )
                )
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
            pooled.add(fitting.evaluate(fitting._optimize(others), held))
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
    for learner in learners:
        started = time.process_time()
        report = learner_parameters_fit(learner_id=learner.user.pk, run_key="sim", at=START)
        cpu += time.process_time() - started
        reviews += learner.reviews
        outcomes[report.outcome] = outcomes.get(report.outcome, 0) + 1
    return {"cpu": cpu, "reviews": reviews, "learners": len(learners), "outcomes": outcomes}


# --- the report --------------------------------------------------------------------------------


def _markdown(results: dict, args) -> str:
    lines = [
        "# FSRS simulation: fitted, pooled and exam-date scheduling",
        "",
        f"`python -m bench.fsrs_sim {' '.join(sys.argv[1:])}` · {results['when']} · "
        f"{results['learners']} simulated learners ({args.learners} per population) reviewing "
        f"{results['service_reviews']:,} times through `reviews.services.reviewing.review_record` "
        f"on PostgreSQL in {results['seconds']:.0f} s.",
        "",
        "## Prediction of held-out later reviews (log loss / RMSE(bins), lower is better)",
        "",
        f"Fitted: fsrs-rs on the learner's first N reviews. Pooled: fsrs-rs on the other "
        f"{args.learners - 1} learners' first N reviews of the same population (the module's "
        f"learners, this one held out). Held out: the predictable reviews among the next "
        f"{args.test_reviews} reviews. Means over the population's learners, weighted by "
        f"held-out reviews (srs-benchmark's per-user averaging).",
        "",
        "| population | N | held out | default | fitted | pooled | fitted vs default, RMSE(bins) "
        "| in use after the adoption rule (adopted) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in results["prediction"]:
        d, f, p = row["default"], row["fitted"], row["pooled"]
        lines.append(
            f"| {row['population']} | {row['n']:,} | {row['held_out']:,} "
            f"| {d[0]:.4f} / {d[1]:.4f} | {f[0]:.4f} / {f[1]:.4f} | {p[0]:.4f} / {p[1]:.4f} "
            f"| {100 * (f[1] / d[1] - 1):+.0f} % "
            f"| {row['in use'][0]:.4f} / {row['in use'][1]:.4f} ({row['adopted']}) |"
        )
    lines += [
        "",
        "## Newcomers (under 100 reviews): defaults vs the module's pooled parameters",
        "",
        "A learner with 99 reviews has no fit of their own yet: the reviews that follow "
        f"(the predictable ones among the next {args.test_reviews}, held out) predicted by the "
        f"defaults and by parameters pooled from the other learners' first {args.pool_reviews} "
        "reviews of the population (this learner held out).",
        "",
        "| population | held out | default log loss / RMSE(bins) | pooled log loss / RMSE(bins) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for population, row in results["newcomers"].items():
        lines.append(
            f"| {population} | {row['items']} | {row['default'][0]:.4f} / {row['default'][1]:.4f} "
            f"| {row['pooled'][0]:.4f} / {row['pooled'][1]:.4f} |"
        )
    exam = results["exam"]
    plain, dated = exam["plain"], exam["exam"]
    if plain["cards"]:
        lines += [
            "",
            "## Exam date",
            "",
            f"{args.exam_pairs} pairs of identical learners (population near the defaults, "
            f"the same true parameters and random draws), {args.exam_cards} cards each, "
            f"{args.exam_new_per_day} new a day, exam on day {args.exam_day}; TRUE recall at "
            "the exam day's local midnight.",
            "",
            "| schedule | cards at or above 0.90 | reviews until the exam |",
            "| --- | ---: | ---: |",
            f"| plain FSRS | {100 * plain['above'] / plain['cards']:.1f} % "
            f"| {plain['reviews']:,} |",
            f"| with the exam date | {100 * dated['above'] / dated['cards']:.1f} % | "
            f"{dated['reviews']:,} ({dated['reviews'] / plain['reviews']:.2f}×) |",
            "",
        ]
    lines += [
        "",
        "## Cost",
        "",
    ]
    cost = results["cost"]
    lines += [
        f"- optimizer (fsrs-rs `compute_parameters`, {cost['fit_reviews']:,} reviews fitted in "
        f"all): **{cost['cpu_per_100k']:.2f} s CPU per 100,000 reviews**.",
        f"- the refit service per learner (read the log, fit, judge on held-out reviews, write), "
        f"{cost['service']['learners']} learners with {cost['service']['reviews']:,} reviews: "
        f"{1000 * cost['service_cpu_per_learner_1000']:.1f} ms CPU per learner scaled to 1,000 "
        f"reviews → a monthly refit of 10,000 learners × 1,000 reviews ≈ "
        f"**{cost['monthly_cpu_minutes']:.2f} CPU-minutes** (extrapolated from this sample, "
        f"linearly in reviews; the database server's own CPU is not in it). Outcomes: "
        f"{cost['service']['outcomes']}.",
        f"- peak memory of this whole process (Django, the simulation and every fit): "
        f"**{cost['peak_mb']:.0f} MB** (ru_maxrss).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=3, help="learners per population")
    parser.add_argument("--max-reviews", type=int, default=5_000)
    parser.add_argument("--test-reviews", type=int, default=600)
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
    args = parser.parse_args(argv)
    if args.quick:
        args.learners, args.max_reviews, args.test_reviews = 2, 500, 200
        args.pool_reviews, args.exam_pairs, args.exam_cards, args.exam_day = 200, 1, 40, 12
    out = args.out or (
        ROOT / "var" / "bench" / "fsrs-smoke.md"
        if args.quick
        else ROOT / "bench" / "results" / "fsrs.md"
    )

    def report(text: str) -> None:
        print(text, flush=True)

    started = time.time()
    url = _database_url()
    _database_recreate(url)
    _django_setup(url)
    from bench.fsrs_truth import POPULATIONS, TrueMemory

    rng = random.Random(args.seed)
    checkpoints = [n for n in CHECKPOINTS if n <= args.max_reviews] or [args.max_reviews]
    total = max(checkpoints) + args.test_reviews
    learners: list[SimLearner] = []
    chosen = {int(index) for index in args.populations.split(",") if index.strip()}
    for p_index, population in enumerate(POPULATIONS):
        if chosen and p_index not in chosen:
            continue
        _module, step_ids = _module_create(slug=f"pop-{p_index}", steps=total // 3 + 50)
        for index in range(args.learners):
            true = population.draw(rng)
            learner = SimLearner(
                user=_learner_create(f"p{p_index}-{index}"),
                truth=TrueMemory(parameters=true, rng=random.Random(rng.random())),
                population=population.name,
                true_parameters=true,
            )
            _simulate(learner, step_ids=step_ids, new_per_day=args.new_per_day, stop_reviews=total)
            learners.append(learner)
            report(
                f"{population.name} #{index}: {learner.reviews} reviews "
                f"({time.time() - started:.0f} s)"
            )
    service_reviews = sum(learner.reviews for learner in learners)

    prediction = _prediction_study(
        learners, checkpoints=checkpoints, test_reviews=args.test_reviews, report=report
    )
    newcomers = _newcomer_study(
        learners,
        prediction["logs"],
        pool_reviews=args.pool_reviews,
        test_reviews=args.test_reviews,
    )
    exam = _exam_study(
        pairs=args.exam_pairs,
        cards=args.exam_cards,
        new_per_day=args.exam_new_per_day,
        exam_day=args.exam_day,
        seed=args.seed,
        report=report,
    )
    service_reviews += exam["plain"]["reviews"] + exam["exam"]["reviews"]
    service = _service_fit_cost(learners)
    per_learner_1000 = service["cpu"] / service["reviews"] * 1_000
    results = {
        "when": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": time.time() - started,
        "learners": len(learners) + 2 * args.exam_pairs,
        "service_reviews": service_reviews,
        "prediction": [
            {"population": population, "n": n, **{k: v for k, v in row.items()}}
            for (population, n), row in prediction["table"].items()
        ],
        "newcomers": newcomers,
        "exam": exam,
        "cost": {
            "fit_reviews": prediction["fit_reviews"],
            "cpu_per_100k": prediction["fit_cpu"] / prediction["fit_reviews"] * 100_000,
            "service": service,
            "service_cpu_per_learner_1000": per_learner_1000,
            "monthly_cpu_minutes": per_learner_1000 * 10_000 / 60,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        },
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_markdown(results, args), encoding="utf-8")
    out.with_suffix(".json").write_text(
        json.dumps(results, indent=2, default=str), encoding="utf-8"
    )
    report(f"wrote {out} ({time.time() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
