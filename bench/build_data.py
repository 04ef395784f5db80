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
    finished_attempts: int  # learners with one graded exam attempt
    token_learners: int  # learners the load generator signs in as (one token each)


FULL = Scale(
    learners=100_000,
    enrolled=10_000,
    cards_per_enrolled=100,
    cards_per_other=5,
    heavy_cards=10_000,
    synthetic_modules=50,
    finished_attempts=10_000,
    token_learners=200,
)
SMOKE = Scale(
    learners=400,
    enrolled=100,
    cards_per_enrolled=100,
    cards_per_other=2,
    heavy_cards=300,
    synthetic_modules=2,
    finished_attempts=50,
    token_learners=10,
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


def copy_rows(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Iterable[Sequence],
    *,
    optional: Sequence[str] = (),
) -> int:
    """COPY rows (values for ``columns``, JSON as text) into the model's table; returns the count.

    Every other column of the table gets its field's default (or NULL / empty text). Columns in
    ``optional`` that the table does not have (yet) are left out with their values.
    """
    table = model._meta.db_table
    existing = _table_columns(table)
    keep = [i for i, c in enumerate(columns) if c in existing or c not in optional]
    if len(keep) < len(columns):
        columns = [columns[i] for i in keep]
        rows = ([row[i] for i in keep] for row in rows)
    fields_by_column = {f.column: f for f in model._meta.concrete_fields}
    missing = [c for c in columns if c not in existing]
    if missing:
        raise ValueError(f"{table} has no column(s) {missing}: migrate the benchmark database")
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
        active = set(
            QuickCheck.objects.filter(module=module, is_active=True).values_list("id", flat=True)
        )
        self.seed_quick_checks = [(qc, st) for qc, st in first_step.items() if qc in active]
        self.manifest.step_numbers = [number for _, number in self.seed_steps]
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
        steps = list(
            Step.objects.filter(module_id__in=module_ids)
            .order_by("module_id", "number")
            .values_list("id", flat=True)
        )
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
        return written

    def enrollments(self) -> int:
        from courses.models import Enrollment

        learners = [self.heavy_id, *self.enrolled_ids()]
        return copy_rows(
            Enrollment,
            ("learner_id", "module_id", "source", "enrolled_at", "last_activity_at"),
            (
                (
                    learner,
                    self.seed_module_id,
                    "self",
                    self.now - dt.timedelta(days=30 + learner % 60),
                    self.now - dt.timedelta(hours=learner % 240),
                )
                for learner in learners
            ),
        )

    def progress(self) -> int:
        """Each enrolled learner has completed 0..32 steps (evenly spread) and is on the next."""
        from courses.models import StepProgress

        steps = self.seed_steps
        sections = json.dumps(["verstehen", "anwenden", "uebung"])

        def rows():
            for learner in [self.heavy_id, *self.enrolled_ids()]:
                completed = (learner * 7) % (len(steps) + 1)
                for index, (step_id, _number) in enumerate(steps[: completed + 1]):
                    opened = self.now - dt.timedelta(days=20 - index % 20, hours=learner % 24)
                    if index < completed:
                        done = opened + dt.timedelta(minutes=25)
                        yield (learner, step_id, "completed", opened, done, sections, done, done)
                    else:
                        yield (learner, step_id, "in_progress", opened, None, "[]", None, opened)

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
                "updated_at",
            ),
            rows(),
            optional=("status_changed_at",),
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

    def tokens(self) -> int:
        """A knox token for the heavy learner and for the learners the load rotates through."""
        from knox.models import AuthToken

        from accounts.models import User

        ids = [self.heavy_id, *list(self.enrolled_ids())[: self.scale.token_learners]]
        users = User.objects.in_bulk(ids)
        for user_id in ids:
            _, token = AuthToken.objects.create(user=users[user_id])
            if user_id == self.heavy_id:
                self.manifest.heavy_learner = [user_id, token]
            else:
                self.manifest.learner_tokens.append([user_id, token])
        return len(ids)

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
