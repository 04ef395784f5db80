"""Build the benchmark's data set in its own PostgreSQL database, with bulk operations.

The database (``BENCH_DATABASE_URL``, default ``lernpfad_bench``) is dropped and created, migrated,
the seed course is imported with ``import_course``, and everything else is written with
PostgreSQL ``COPY`` (psycopg's ``cursor.copy()``): at full scale 100,000 learners with reminder
times spread across the day and across time zones, 10,000 of them enrolled with progress and 100
review cards each, one learner with 10,000 cards, finished exam attempts and fresh ones to submit.

Rows are written straight into the tables, not through the services: the data set is what the
services would have produced after months of use, not a test of how fast they produce it.
Columns a part does not name get the model field's default, so a new field with a default does
not break the builder.

Run it alone with ``python -m bench.build_data [--smoke]``; ``python -m bench.run`` calls it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlparse

os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"

import django

django.setup()

import psycopg  # noqa: E402
from django.apps import apps  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, connections, models  # noqa: E402
from django.utils import timezone  # noqa: E402

from accounts.api import reminder_schedules_reset  # noqa: E402

# Time zones the learners live in, one per UTC offset band from -10 to +13 (DST included).
TIME_ZONES = (
    "Pacific/Honolulu",
    "America/Anchorage",
    "America/Los_Angeles",
    "America/Denver",
    "America/Chicago",
    "America/New_York",
    "America/Sao_Paulo",
    "Atlantic/South_Georgia",
    "Atlantic/Azores",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Vienna",
    "Europe/Zurich",
    "Europe/Helsinki",
    "Europe/Istanbul",
    "Asia/Dubai",
    "Asia/Karachi",
    "Asia/Kolkata",
    "Asia/Dhaka",
    "Asia/Bangkok",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Pacific/Auckland",
)
SEED_MODULE = "self-hosting-27"
# Synthetic modules give the one heavy learner 10,000 distinct cards (the seed module has 32
# steps and 37 quick checks): each has this many steps with one quick check each.
SYNTHETIC_STEPS = 100
MANIFEST_DIR = Path(settings.BASE_DIR) / "var" / "bench"


@dataclass(frozen=True)
class Scale:
    """How much data to build."""

    learners: int  # accounts, each with due cards and a reminder time
    enrolled: int  # of those, enrolled in the seed module with progress
    cards_per_enrolled: int
    cards_per_other: int  # cards of the learners who are not enrolled in the seed module
    heavy_cards: int  # cards of the one heavy learner
    synthetic_modules: int
    token_learners: int  # learners the load generator signs in as (one token each)
    # Learners with one graded exam attempt; at run time each gets a fresh attempt (answered,
    # not submitted) for the exam-submit line. Those beyond ``enrolled`` are enrolled too.
    exam_learners: int


FULL = Scale(
    learners=100_000,
    enrolled=10_000,
    cards_per_enrolled=100,
    cards_per_other=5,
    heavy_cards=10_000,
    synthetic_modules=50,
    token_learners=200,
    # Every submit in the load must be a first submit: 4 slices (warm-up and 3 rounds) of
    # ~12,000 fresh attempts, room for 10 s at 1,000+ submits/s (16,000 ran out at ~680/s).
    exam_learners=48_000,
)
SMOKE = Scale(
    learners=4_000,
    enrolled=100,
    cards_per_enrolled=100,
    cards_per_other=2,
    heavy_cards=300,
    synthetic_modules=2,
    # Enough fresh review cards (30 × 100) and exam attempts for 2 s at over 1,000 requests/s.
    token_learners=30,
    exam_learners=3_000,
)


@dataclass
class Manifest:
    """What the run needs to know about the data set (tokens are plaintext: bench-only)."""

    database: str
    scale: dict
    built_at: str
    seconds: dict[str, float] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    module: str = SEED_MODULE
    step_numbers: list[int] = field(default_factory=list)
    # [user id, token] of the learners the load generator rotates through.
    learner_tokens: list[list] = field(default_factory=list)
    heavy_learner: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)


def manifest_path(database: str) -> Path:
    return MANIFEST_DIR / f"{database}.json"


def manifest_load(database: str) -> Manifest:
    return Manifest(**json.loads(manifest_path(database).read_text()))


def manifest_save(manifest: Manifest) -> Path:
    MANIFEST_DIR.mkdir(parents=True, exist_ok=True)
    path = manifest_path(manifest.database)
    path.write_text(json.dumps(asdict(manifest), indent=1))
    return path


# --- the database ---------------------------------------------------------------------------


def _server_url(database_url: str) -> tuple[str, str]:
    """The maintenance database URL of the server and the benchmark database's name."""
    parsed = urlparse(database_url)
    name = parsed.path.lstrip("/")
    return parsed._replace(path="/postgres").geturl(), name


def database_recreate(database_url: str, *, template: str | None = None) -> None:
    """Drop the database (ending its sessions) and create it empty (or as a copy of template)."""
    server_url, name = _server_url(database_url)
    if "bench" not in name:
        raise SystemExit(f"refusing to drop '{name}': a benchmark database has 'bench' in its name")
    connections.close_all()
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        if template:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                [template],
            )
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        else:
            conn.execute(f'CREATE DATABASE "{name}"')


def database_drop(database_url: str) -> None:
    server_url, name = _server_url(database_url)
    if "bench" not in name:
        raise SystemExit(f"refusing to drop '{name}'")
    connections.close_all()
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def import_database_url() -> str:
    """An empty, migrated copy of the benchmark database: where a first import is timed."""
    parsed = urlparse(settings.BENCH_DATABASE_URL)
    return parsed._replace(path=parsed.path + "_import").geturl()


# --- COPY -----------------------------------------------------------------------------------


def _table_columns(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return {c.name for c in connection.introspection.get_table_description(cursor, table)}


def _default_for(model_field: models.Field):
    if model_field.has_default():
        value = model_field.get_default()
        return json.dumps(value) if isinstance(model_field, models.JSONField) else value
    if model_field.null:
        return None
    if isinstance(model_field, models.CharField | models.TextField):
        return ""
    raise ValueError(
        f"{model_field.model.__name__}.{model_field.name} has no default: the builder must set it"
    )


def copy_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """COPY rows (values for ``columns``, JSON as text) into the model's table; returns the count.

    Every other column of the table gets its field's default (or NULL / empty text). A named
    column the table does not have (a field another issue removed or has not migrated yet) is
    left out with its values, and said so.
    """
    table = model._meta.db_table
    existing = _table_columns(table)
    fields_by_column = {f.column: f for f in model._meta.concrete_fields}
    keep = [i for i, c in enumerate(columns) if c in existing]
    if len(keep) < len(columns):
        print(f"    ({table} has no {[c for c in columns if c not in existing]}: left out)")
        columns = [columns[i] for i in keep]
        rows = ([row[i] for i in keep] for row in rows)
    extra_columns, extra_values = [], []
    for column in sorted(existing - set(columns)):
        model_field = fields_by_column.get(column)
        if model_field is None or model_field.primary_key:
            continue
        extra_columns.append(column)
        extra_values.append(_default_for(model_field))
    names = ", ".join(f'"{c}"' for c in (*columns, *extra_columns))
    count = 0
    extra = tuple(extra_values)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy,
    ):
        for row in rows:
            copy.write_row((*row, *extra))
            count += 1
    return count


def sequences_reset(*models_: type[models.Model]) -> None:
    """After COPY with explicit ids, move each id sequence past the highest id."""
    with connection.cursor() as cursor:
        for model in models_:
            table = model._meta.db_table
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                f'COALESCE((SELECT MAX(id) FROM "{table}"), 0) + 1, false)'
            )


def model_or_none(label: str) -> type[models.Model] | None:
    """The model if its app has it and its table exists (other issues add tables over time)."""
    try:
        model = apps.get_model(label)
    except LookupError:
        return None
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
    return model if model._meta.db_table in tables else None


# --- tokens and exam attempts (also used at run time) -----------------------------------------


def tokens_copy(user_ids: Sequence[int], *, now: dt.datetime) -> dict[int, str]:
    """One knox token per user, written with COPY as knox would store it; returns the tokens."""
    from django.conf import settings as django_settings
    from knox.crypto import hash_token
    from knox.models import AuthToken
    from knox.settings import CONSTANTS

    expiry = now + django_settings.REST_KNOX["TOKEN_TTL"]
    tokens = {user_id: os.urandom(32).hex() for user_id in user_ids}
    digests = {user_id: hash_token(token) for user_id, token in tokens.items()}
    copy_rows(
        AuthToken,
        ("digest", "token_key", "user_id", "created", "expiry"),
        ((digests[u], tokens[u][: CONSTANTS.TOKEN_KEY_LENGTH], u, now, expiry) for u in user_ids),
    )
    device = model_or_none("accounts.Device")
    if device is not None:
        copy_rows(
            device,
            ("token_id", "user_id", "name", "created_at"),
            ((digests[u], u, "bench", now) for u in user_ids),
        )
    return tokens


def tokens_renew(user_ids: Sequence[int]) -> int:
    """Set the users' token expiry as knox's renewal would, as if they had just used them."""
    from django.conf import settings as django_settings
    from knox.models import AuthToken

    expiry = timezone.now() + django_settings.REST_KNOX["TOKEN_TTL"]
    return AuthToken.objects.filter(user_id__in=list(user_ids)).update(expiry=expiry)


def sessions_create(user_ids: Sequence[int]) -> dict[int, str]:
    """A signed-in browser session per user, as the log-in page would leave it; returns the
    session keys (the ``sessionid`` cookies). Written at run time, so a reused database works."""
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session

    users = get_user_model().objects.filter(pk__in=list(user_ids))
    expire = timezone.now() + dt.timedelta(seconds=settings.SESSION_COOKIE_AGE)
    keys: dict[int, str] = {}
    rows = []
    store = SessionStore()
    for user in users:
        key = store._get_new_session_key()
        keys[user.pk] = key
        data = {
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
        rows.append(Session(session_key=key, session_data=store.encode(data), expire_date=expire))
    Session.objects.bulk_create(rows, batch_size=1000)
    return keys


def attempts_copy(
    *,
    module_id: int,
    learner_ids: Sequence[int],
    number: int,
    started_at: dt.datetime,
    correct_share: float,
    finished: bool,
) -> int:
    """Exam attempts as exam_attempt_start draws them (same draw, same snapshots), every item
    answered (``correct_share`` of them right); graded with a result row when ``finished``."""
    from decimal import Decimal

    from quizzes.drawing import DrawCandidate, attempt_draw
    from quizzes.grading import attempt_score, passes
    from quizzes.models import ExamAttempt, ExamAttemptItem, ExamItem, ExamPolicy, ExamResult

    policy = ExamPolicy.objects.get(module_id=module_id)
    bank = {
        row["id"]: row
        for row in ExamItem.objects.filter(module_id=module_id, is_active=True, is_retired=False)
        .order_by("id")
        .values("id", "step_id", "kind", "prompt", "options", "correct_keys", "explanation")
    }
    candidates = [
        DrawCandidate(
            item_id=row["id"],
            step_id=row["step_id"],
            kind=row["kind"],
            option_count=len(row["options"]),
        )
        for row in bank.values()
    ]
    deadline = started_at + dt.timedelta(minutes=policy.time_limit_minutes)
    answered_at = started_at + dt.timedelta(minutes=1)
    draws = {
        learner: attempt_draw(
            candidates=candidates, count=policy.items_per_attempt, seed=learner * 100 + number
        )
        for learner in learner_ids
    }
    written = copy_rows(
        ExamAttempt,
        (
            "learner_id",
            "module_id",
            "policy_id",
            "number",
            "seed",
            "item_count",
            "pass_mark_percent",
            "certifying",
            "started_at",
            "deadline_at",
        ),
        (
            (
                learner,
                module_id,
                policy.id,
                number,
                learner * 100 + number,
                len(draws[learner]),
                policy.pass_mark_percent,
                True,  # drawn from the approved bank (``exams`` approves it)
                started_at,
                deadline,
            )
            for learner in learner_ids
        ),
    )
    attempt_ids = dict(
        ExamAttempt.objects.filter(
            module_id=module_id, number=number, learner_id__in=learner_ids
        ).values_list("learner_id", "id")
    )

    outcomes: dict[int, list[bool]] = {}

    def item_rows():
        for learner in learner_ids:
            drawn = draws[learner]
            right = round(len(drawn) * correct_share)
            outcomes[learner] = []
            for position, choice in enumerate(drawn, start=1):
                item = bank[choice.item_id]
                options = [item["options"][i] for i in choice.option_order]
                correct = position <= right
                if correct:
                    selected = list(item["correct_keys"])
                else:
                    selected = [o["key"] for o in options if o["key"] not in item["correct_keys"]][
                        :1
                    ]
                outcomes[learner].append(correct)
                yield (
                    attempt_ids[learner],
                    position,
                    item["id"],
                    item["kind"],
                    item["prompt"],
                    json.dumps(options),
                    json.dumps(item["correct_keys"]),
                    item["explanation"],
                    json.dumps(selected),
                    answered_at,
                    correct if finished else None,
                )

    written += copy_rows(
        ExamAttemptItem,
        (
            "attempt_id",
            "position",
            "item_id",
            "kind",
            "prompt",
            "options",
            "correct_keys",
            "explanation",
            "selected_keys",
            "answered_at",
            "is_correct",
        ),
        item_rows(),
    )
    if finished:

        def result_rows():
            for learner in learner_ids:
                score = attempt_score(outcomes[learner])
                yield (
                    attempt_ids[learner],
                    learner,
                    module_id,
                    score.score_percent,
                    score.correct_count,
                    score.item_count,
                    passes(
                        score_percent=score.score_percent,
                        pass_mark_percent=Decimal(policy.pass_mark_percent),
                    ),
                    "submitted",
                    deadline - dt.timedelta(minutes=5),
                )

        written += copy_rows(
            ExamResult,
            (
                "attempt_id",
                "learner_id",
                "module_id",
                "score_percent",
                "correct_count",
                "item_count",
                "passed",
                "reason",
                "finalized_at",
            ),
            result_rows(),
        )
    return written


def exam_pool_reset(
    manifest: Manifest, *, count: int, from_end: bool = False
) -> list[tuple[int, int, str]]:
    """Fresh attempts (number 2, started two minutes ago, all answered, 80 % right) for ``count``
    exam learners (the first ones, or the last with ``from_end``), replacing those of an earlier
    run; returns (learner, attempt id, token)."""
    from courses.models import Module
    from quizzes.models import Certificate, ExamAttempt

    tokens = {int(k): v for k, v in manifest.extra["exam_tokens"].items()}
    learners = sorted(tokens)[-count:] if from_end else sorted(tokens)[:count]
    if len(learners) < count:
        raise SystemExit(f"the data set has {len(tokens)} exam learners, the run needs {count}")
    module_id = Module.objects.get(slug=manifest.module).id
    Certificate.objects.filter(learner_id__in=learners, module_id=module_id).delete()
    ExamAttempt.objects.filter(learner_id__in=learners, module_id=module_id, number__gte=2).delete()
    attempts_copy(
        module_id=module_id,
        learner_ids=learners,
        number=2,
        started_at=timezone.now() - dt.timedelta(minutes=2),
        correct_share=0.8,
        finished=False,
    )
    ids = dict(
        ExamAttempt.objects.filter(
            module_id=module_id, number=2, learner_id__in=learners
        ).values_list("learner_id", "id")
    )
    return [(learner, ids[learner], tokens[learner]) for learner in learners]


# --- the parts ------------------------------------------------------------------------------


class Builder:
    """Builds the data set part by part, recording rows and seconds per part."""

    def __init__(self, *, scale: Scale, database: str, seed: int = 27) -> None:
        self.scale = scale
        self.now = timezone.now().replace(microsecond=0)
        self.random = random.Random(seed)
        self.manifest = Manifest(
            database=database, scale=asdict(scale), built_at=self.now.isoformat()
        )
        self.seed_module_id: int = 0
        self.seed_steps: list[tuple[int, int]] = []  # (id, number)
        self.seed_quick_checks: list[tuple[int, int]] = []  # (quick check id, first step id)
        self.synthetic_cards: list[tuple[int, int | None]] = []  # (step id, quick check id)
        self.step_modules: dict[int, int] = {}  # step id -> its module's id (kept on a card)

    def part(self, name: str, function: Callable[[], int]) -> None:
        started = time.perf_counter()
        rows = function()
        seconds = time.perf_counter() - started
        self.manifest.seconds[name] = round(seconds, 2)
        self.manifest.rows[name] = rows
        print(f"  {name:<24} {rows:>10,} rows {seconds:7.1f} s", flush=True)

    # Learner ids: 1 is the heavy learner, 2 .. enrolled+1 are enrolled, the rest are not.
    @property
    def heavy_id(self) -> int:
        return 1

    def enrolled_ids(self) -> range:
        return range(2, self.scale.enrolled + 2)

    def all_ids(self) -> range:
        return range(1, self.scale.learners + 1)

    def course(self) -> int:
        from courses.models import Module, QuickCheck, Step, StepQuickCheck
        from courses.services.importing import course_import

        report = course_import()
        module = Module.objects.get(slug=SEED_MODULE)
        self.seed_module_id = module.id
        self.seed_steps = list(
            Step.objects.filter(module=module, status=Step.Status.ACTIVE)
            .order_by("number")
            .values_list("id", "number")
        )
        first_step: dict[int, int] = {}
        for quick_check_id, step_id in (
            StepQuickCheck.objects.filter(step__module=module)
            .order_by("step__number", "position")
            .values_list("quick_check_id", "step_id")
        ):
            first_step.setdefault(quick_check_id, step_id)
        # Only the quick checks that make review cards (the seed's own repeat the definition or
        # recur in every step: courses.quick_check_roles), as the app makes them.
        active = set(
            QuickCheck.objects.filter(module=module, is_active=True, role="flashcard").values_list(
                "id", flat=True
            )
        )
        self.seed_quick_checks = [(qc, st) for qc, st in first_step.items() if qc in active]
        self.manifest.step_numbers = [number for _, number in self.seed_steps]
        self.step_modules.update(
            (step_id, module.id)
            for step_id in Step.objects.filter(module=module).values_list("id", flat=True)
        )
        return report.rows_written

    def synthetic_content(self) -> int:
        """Modules of SYNTHETIC_STEPS steps with one quick check each, for the heavy learner."""
        from courses.models import Module, QuickCheck, Step, StepQuickCheck

        count = self.scale.synthetic_modules
        written = copy_rows(
            Module,
            ("slug", "series", "number", "title", "header", "source_path"),
            (
                (
                    f"bench-{n}",
                    "Bench",
                    n,
                    f"Synthetic module {n}",
                    f"Bench {n}: Synthetic module {n}",
                    "bench",
                )
                for n in range(1, count + 1)
            ),
        )
        module_ids = list(
            Module.objects.filter(series="Bench").order_by("number").values_list("id", flat=True)
        )
        step_rows = []
        for module_id in module_ids:
            for n in range(1, SYNTHETIC_STEPS + 1):
                term = f"Begriff {module_id}-{n}"
                step_rows.append(
                    (
                        module_id,
                        f"begriff-{module_id}-{n}",
                        n,
                        SYNTHETIC_STEPS,
                        term,
                        f"{term} ist ein synthetischer Begriff.",
                        f"{term} ist ein synthetischer Begriff.",
                        "B1",
                        "active",
                        "0" * 64,
                        f"{module_id:032x}{n:032x}",
                    )
                )
        written += copy_rows(
            Step,
            (
                "module_id",
                "slug",
                "number",
                "total",
                "term",
                "lead",
                "definition",
                "level",
                "status",
                "source_hash",
                "content_hash",
            ),
            step_rows,
        )
        written += copy_rows(
            QuickCheck,
            ("module_id", "question", "answer", "text_hash", "is_active"),
            (
                (module_id, f"Was ist {n}?", f"Antwort {n}.", f"{module_id:032x}{n:032x}", True)
                for module_id in module_ids
                for n in range(1, SYNTHETIC_STEPS + 1)
            ),
        )
        step_modules = list(
            Step.objects.filter(module_id__in=module_ids)
            .order_by("module_id", "number")
            .values_list("id", "module_id")
        )
        self.step_modules.update(step_modules)
        steps = [step for step, _module in step_modules]
        quick_checks = list(
            QuickCheck.objects.filter(module_id__in=module_ids)
            .order_by("module_id", "id")
            .values_list("id", flat=True)
        )
        written += copy_rows(
            StepQuickCheck,
            ("step_id", "quick_check_id", "position"),
            ((step, qc, 1) for step, qc in zip(steps, quick_checks, strict=True)),
        )
        for step, qc in zip(steps, quick_checks, strict=True):
            self.synthetic_cards.append((step, None))
            self.synthetic_cards.append((step, qc))
        return written

    def learners(self) -> int:
        from accounts.models import User

        password = make_password("bench-learner-password")
        day_minutes = 24 * 60

        def rows():
            for user_id in self.all_ids():
                # Reminder times every 7 minutes around the clock, zones cycling on another
                # stride, so every local hour and every offset is covered.
                minute = (user_id * 7) % day_minutes
                username = "bench-heavy" if user_id == self.heavy_id else f"learner{user_id:06d}"
                yield (
                    user_id,
                    password,
                    username,
                    f"{username}@bench.example.org",
                    False,
                    False,
                    True,
                    self.now - dt.timedelta(days=user_id % 365),
                    TIME_ZONES[(user_id * 5) % len(TIME_ZONES)],
                    dt.time(minute // 60, minute % 60),
                    True,
                )

        written = copy_rows(
            User,
            (
                "id",
                "password",
                "username",
                "email",
                "is_superuser",
                "is_staff",
                "is_active",
                "date_joined",
                "time_zone",
                "reminder_time",
                "reminder_email",
            ),
            rows(),
        )
        sequences_reset(User)
        # Each learner's next reminder instant, as the planner would have left it at build time
        # (COPY gave every row the column's default).
        reminder_schedules_reset(after=self.now)
        return written

    def exam_ids(self) -> range:
        return range(2, self.scale.exam_learners + 2)

    def enrollments(self) -> int:
        """The heavy learner, the enrolled learners, and the exam learners beyond them."""
        from progress.models import Enrollment

        learners = sorted({self.heavy_id, *self.enrolled_ids(), *self.exam_ids()})
        return copy_rows(
            Enrollment,
            ("learner_id", "module_id", "source", "enrolled_at"),
            (
                (
                    learner,
                    self.seed_module_id,
                    "self",
                    self.now - dt.timedelta(days=30 + learner % 60),
                )
                for learner in learners
            ),
        )

    def progress(self) -> int:
        """Each enrolled learner has completed 0..32 steps (evenly spread) and is on the next."""
        from progress.models import StepProgress

        steps = self.seed_steps
        sections = json.dumps(["verstehen", "anwenden", "uebung"])

        def rows():
            for learner in [self.heavy_id, *self.enrolled_ids()]:
                completed = (learner * 7) % (len(steps) + 1)
                for index, (step_id, _number) in enumerate(steps[: completed + 1]):
                    opened = self.now - dt.timedelta(days=20 - index % 20, hours=learner % 24)
                    if index < completed:
                        done = opened + dt.timedelta(minutes=25)
                        yield (
                            learner,
                            step_id,
                            "completed",
                            opened,
                            done,
                            sections,
                            done,
                            done,
                            done,
                        )
                    else:
                        yield (
                            learner,
                            step_id,
                            "in_progress",
                            opened,
                            None,
                            "[]",
                            None,
                            opened,
                            opened,
                        )

        return copy_rows(
            StepProgress,
            (
                "learner_id",
                "step_id",
                "status",
                "first_opened_at",
                "completed_at",
                "sections_viewed",
                "status_changed_at",
                "last_event_at",
                "updated_at",
            ),
            rows(),
        )

    def review_cards(self) -> int:
        """100 cards per enrolled learner, 10,000 for the heavy one, a few for everyone else.

        Due dates spread from ten days ago to sixty days ahead (about one card in seven is due);
        every learner has at least one card due now, so the planner has work for each.
        """
        card_model = model_or_none("reviews.ReviewCard")
        if card_model is None:
            print("  (reviews.ReviewCard has no table yet: no review cards)")
            return 0
        seed_cards = [(step_id, None) for step_id, _ in self.seed_steps] + [
            (step_id, qc) for qc, step_id in self.seed_quick_checks
        ]
        pool = seed_cards + self.synthetic_cards
        rnd = self.random
        now = self.now

        def card(learner: int, step_id: int, quick_check: int | None, index: int):
            # The first card of every learner is due; the rest spread over -10 .. +60 days.
            offset = -3600 if index == 0 else rnd.randint(-10 * 86400, 60 * 86400)
            due = now + dt.timedelta(seconds=offset)
            reviewed = due - dt.timedelta(days=rnd.randint(1, 30))
            return (
                learner,
                "quick_check" if quick_check else "definition",
                step_id,
                self.step_modules[step_id],
                quick_check,
                2,
                round(rnd.uniform(1.0, 80.0), 3),
                round(rnd.uniform(1.0, 10.0), 3),
                due,
                reviewed,
                False,
                reviewed - dt.timedelta(days=1),
            )

        def rows():
            for index, (step_id, qc) in enumerate(pool[: self.scale.heavy_cards]):
                yield card(self.heavy_id, step_id, qc, index)
            for learner in self.enrolled_ids():
                for index, (step_id, qc) in enumerate(pool[: self.scale.cards_per_enrolled]):
                    yield card(learner, step_id, qc, index)
            for learner in range(self.scale.enrolled + 2, self.scale.learners + 1):
                for index, (step_id, qc) in enumerate(seed_cards[: self.scale.cards_per_other]):
                    yield card(learner, step_id, qc, index)

        return copy_rows(
            card_model,
            (
                "learner_id",
                "kind",
                "step_id",
                "module_id",
                "quick_check_id",
                "state",
                "stability",
                "difficulty",
                "due",
                "last_review",
                "suspended",
                "created_at",
            ),
            rows(),
        )

    def fsrs_parameters(self) -> int:
        """Own FSRS parameters (a fit adopted last month) for the heavy learner and every enrolled
        learner, so the due queue and the review lines schedule with a learner's parameters as
        a learner in steady use has them (reviews.sql reads them with the card). Each set is
        FSRS's defaults moved by up to 15 % per parameter (within FSRS's bounds), so no two
        learners share one."""
        from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

        fit_model = model_or_none("reviews.ParameterFit")
        own_model = model_or_none("reviews.LearnerParameters")
        if fit_model is None or own_model is None:
            print("  (reviews has no per-learner FSRS parameters yet: none written)")
            return 0
        from reviews.scheduling import DEFAULT_PARAMETERS

        rnd = random.Random(self.random.random())
        learners = [self.heavy_id, *self.enrolled_ids()]
        fitted_at = self.now - dt.timedelta(days=3)
        # Held-out losses of an adopted fit (log loss, then RMSE(bins); each before it) and
        # "adopted": shown on the settings page, never read by scheduling.
        fit_losses = (0.31, 0.33, 0.04, 0.05, True)
        run_key = fitted_at.strftime("%Y-%m")
        own: dict[int, str] = {}
        for learner in learners:
            own[learner] = json.dumps(
                [
                    round(min(high, max(low, value * rnd.uniform(0.85, 1.15))), 4)
                    for value, low, high in zip(
                        DEFAULT_PARAMETERS,
                        LOWER_BOUNDS_PARAMETERS,
                        UPPER_BOUNDS_PARAMETERS,
                        strict=True,
                    )
                ]
            )
        written = copy_rows(
            fit_model,
            (
                "id",
                "learner_id",
                "module_id",
                "run_key",
                "fitted_at",
                "review_count",
                "parameters",
                "log_loss",
                "log_loss_before",
                "rmse_bins",
                "rmse_bins_before",
                "adopted",
            ),
            (
                (fit_id, learner, None, run_key, fitted_at, 1200, own[learner], *fit_losses)
                for fit_id, learner in enumerate(learners, start=1)
            ),
        )
        sequences_reset(fit_model)
        written += copy_rows(
            own_model,
            ("learner_id", "parameters", "version", "fit_id"),
            (
                (learner, own[learner], 1, fit_id)
                for fit_id, learner in enumerate(learners, start=1)
            ),
        )
        return written

    def tokens(self) -> int:
        """knox tokens: the heavy learner, the rotating learners and the exam learners."""
        rotating = list(self.enrolled_ids())[: self.scale.token_learners]
        tokens = tokens_copy(sorted({self.heavy_id, *rotating, *self.exam_ids()}), now=self.now)
        self.manifest.heavy_learner = [self.heavy_id, tokens[self.heavy_id]]
        self.manifest.learner_tokens = [[i, tokens[i]] for i in rotating]
        self.manifest.extra["exam_tokens"] = {str(i): tokens[i] for i in self.exam_ids()}
        return len(tokens)

    def exams(self) -> int:
        """The exam bank and policy of the seed module, and one failed attempt per exam learner."""
        from quizzes.services.item_review import exam_bank_approve
        from quizzes.services.items import exam_items_generate, exam_policy_get

        exam_items_generate(module_id=self.seed_module_id)
        # Approved, as a course admin would: the attempts are certifying ones.
        exam_bank_approve(module_id=self.seed_module_id, reviewer_id=None)
        policy = exam_policy_get(module_id=self.seed_module_id)
        self.manifest.extra["exam_policy_id"] = policy.id
        return attempts_copy(
            module_id=self.seed_module_id,
            learner_ids=list(self.exam_ids()),
            number=1,
            started_at=self.now - dt.timedelta(days=10),
            correct_share=0.5,
            finished=True,
        )

    def analyze(self) -> int:
        # Fresh COPYs leave the planner without statistics; production tables have them.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM (ANALYZE)")
        return 0


def build(*, scale: Scale, with_import_copy: bool = True) -> Manifest:
    """Create, migrate and fill the benchmark database; returns (and saves) its manifest."""
    database_url = settings.BENCH_DATABASE_URL
    _, name = _server_url(database_url)
    started = time.perf_counter()
    print(f"building {name} ({scale})", flush=True)
    database_recreate(database_url)
    builder = Builder(scale=scale, database=name)
    builder.part("migrate", lambda: call_command("migrate", verbosity=0) or 0)
    if with_import_copy:
        # An empty, migrated copy where the first import of the seed documents is timed.
        connections.close_all()
        database_recreate(import_database_url(), template=name)
    builder.part("course (import_course)", builder.course)
    builder.part("synthetic content", builder.synthetic_content)
    builder.part("learners", builder.learners)
    builder.part("enrollments", builder.enrollments)
    builder.part("step progress", builder.progress)
    builder.part("review cards", builder.review_cards)
    builder.part("FSRS parameters", builder.fsrs_parameters)
    builder.part("exam attempts", builder.exams)
    builder.part("tokens", builder.tokens)
    builder.part("vacuum analyze", builder.analyze)
    builder.manifest.seconds["total"] = round(time.perf_counter() - started, 1)
    path = manifest_save(builder.manifest)
    print(f"built in {builder.manifest.seconds['total']:.0f} s; manifest {path}", flush=True)
    connections.close_all()
    return builder.manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny data set (CI)")
    args = parser.parse_args()
    build(scale=SMOKE if args.smoke else FULL)


if __name__ == "__main__":
    main()
