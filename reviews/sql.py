"""The plain SQL of the reviews app, in one place.

Why plain SQL: these statements run on every due-queue request, every review and every planner
chunk, and building them with the ORM cost more CPU than the database spent answering them
(bench/results/latest.md: due queue, submit a review, reminder planner). Everything else in the
app uses the ORM.

How: table and column names come from the models' ``_meta`` (never typed by hand), every value is
a bound parameter, and rows are read by column name onto the frozen row types below
(``lms.sql.rows_as``/``row_as``): no statement reads a column by its position. Portable:
PostgreSQL and SQLite.
"""

from __future__ import annotations

import datetime
import functools
import json
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db import connection, models
from django.db.models import Q

from lms.sql import aware, cursor, datetime_param, row_as, rows_as
from reviews.models import (
    ExamDate,
    LearnerParameters,
    ModuleExamPlan,
    ModuleParameters,
    ReminderDigest,
    ReviewCard,
    ReviewLog,
)
from reviews.scheduling import CARD_STATE_FIELDS, DEFAULT_PARAMETERS, CardState, Parameters

_quote = connection.ops.quote_name


class _Names:
    """A model's quoted table name and its quoted column names by field name
    (``_cards.learner`` is the card table's learner_id column)."""

    def __init__(self, model: type[models.Model]) -> None:
        self._meta = model._meta
        self.table = _quote(model._meta.db_table)

    def __getattr__(self, field_name: str) -> str:
        if field_name.startswith("_"):
            raise AttributeError(field_name)
        return _quote(self._meta.get_field(field_name).column)


_cards = _Names(ReviewCard)
_logs = _Names(ReviewLog)
_digests = _Names(ReminderDigest)
_learner_parameters = _Names(LearnerParameters)
_module_parameters = _Names(ModuleParameters)
_exam_dates = _Names(ExamDate)
_exam_plans = _Names(ModuleExamPlan)

# The card's state columns (the one mapping: CardState.columns), as read with plain SQL.
_STATE_COLUMNS = ", ".join(
    f"{{alias}}.{getattr(_cards, name)} AS {_quote(name)}" for name in CARD_STATE_FIELDS
)
_STATE_TIMESTAMPS = frozenset(
    name
    for name in CARD_STATE_FIELDS
    if isinstance(ReviewCard._meta.get_field(name), models.DateTimeField)
)


_STATE_READ = tuple((name, name in _STATE_TIMESTAMPS) for name in CARD_STATE_FIELDS)


def _card_state(row: Any) -> CardState:
    """The CardState in a row read with plain SQL (its timestamps aware, as the ORM's are)."""
    return CardState(
        *[aware(getattr(row, name)) if stamp else getattr(row, name) for name, stamp in _STATE_READ]
    )


def _state_columns(alias: str) -> str:
    return _STATE_COLUMNS.format(alias=alias)


# The live-card rule arrives as the same Q object for as long as the retired content is the same
# (reviews.selectors keeps it): remembered by identity, so a request does not hash the Q's tree
# to find its SQL in the cache below.
_last_condition: tuple[Q | None, str, Any] = (None, "", None)


def _live_condition(q: Q, alias: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    global _last_condition
    last_q, last_alias, rendered = _last_condition
    if q is last_q and alias == last_alias:
        return rendered
    rendered = _card_condition(q, alias)
    _last_condition = (q, alias, rendered)
    return rendered


# --- card conditions: a rule written once as a Q, as plain SQL --------------------------------


@functools.lru_cache(maxsize=16)
def _card_condition(q: Q, alias: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``q`` as a plain-SQL condition on the card table under ``alias``, and its parameters (name,
    value). For rules that must exist as a Q (the ORM's reads) and as SQL
    (reviews.selectors.live_cards_q): the SQL is generated from the Q, never written beside it.

    Knows ANDs, ORs and NOTs of exact and ``__in`` lookups on card fields. A boolean field is
    tested as itself (``NOT c.suspended``), as PostgreSQL estimates it best; a set of ``__in``
    values is one parameter whatever its size (PostgreSQL: an array; SQLite: a JSON array), so
    the statement stays the same when the set changes. Cached by the Q's value: the rule over the
    same content renders once.
    """
    params: list[tuple[str, Any]] = []

    def render(node: Q) -> str:
        parts = []
        for child in node.children:
            if isinstance(child, Q):
                parts.append(f"({render(child)})")
                continue
            lookup, value = child
            name, _, operator = lookup.partition("__")
            field = ReviewCard._meta.get_field(name)
            column = f"{alias}.{_quote(field.column)}"
            key = f"card_condition_{len(params)}"
            if operator == "" and isinstance(field, models.BooleanField):
                parts.append(column if value else f"NOT {column}")
            elif operator == "":
                params.append((key, field.get_db_prep_value(value, connection)))
                parts.append(f"{column} = %({key})s")
            elif operator == "in" and connection.vendor == "postgresql":
                # An array literal as text, cast by the server: dumping a list of ids into an
                # array is Python work on every execution; this text is made once per rule.
                params.append((key, "{" + ",".join(str(int(v)) for v in sorted(value)) + "}"))
                parts.append(f"{column} = ANY(%({key})s::{field.db_type(connection)}[])")
            elif operator == "in":
                params.append((key, json.dumps(sorted(value))))
                parts.append(f"{column} IN (SELECT value FROM json_each(%({key})s))")
            else:
                raise ValueError(f"{lookup}: only exact and __in lookups are written as SQL here")
        sql = f" {node.connector} ".join(parts) or "1 = 1"
        return f"NOT ({sql})" if node.negated else sql

    return render(q), tuple(params)


# --- the due queue ----------------------------------------------------------------------------
#
# The due queue in one round trip (reviews.selectors.due_queue): today's review counts, the
# counts of the learner's live due cards (~1,400 for a heavy learner, counted from the covering
# due index alone) and the next page of cards with their state. Built with the ORM these were
# three queries whose construction cost several times the database's work. The live-card rule
# comes in as its Q and is generated into the statement (``_card_condition``) over the covering
# due index's columns, so PostgreSQL reads the index alone; the content it leaves out comes as ids
# (courses.api.retired_content), no statement names another app's table.


@functools.lru_cache(maxsize=16)
def _due_queue_sql(live: str) -> str:
    # A card of the learner that is due and live.
    live_due = f"c.{_cards.learner} = %(learner)s AND c.{_cards.due} <= %(at)s AND {live}"
    # The page: seen cards (oldest due first), then new ones. Each half walks the due index in
    # order and stops after ``limit`` cards, instead of sorting every due card; the new half is
    # skipped when the counts found no new card (a learner in steady use has none).
    return f"""
WITH today AS (
    SELECT COUNT(*) AS reviewed,
           COALESCE(SUM(CASE WHEN l.{_logs.before_last_review} IS NULL THEN 1 ELSE 0 END), 0)
               AS new
    FROM {_logs.table} l
    WHERE l.{_logs.learner} = %(learner)s AND l.{_logs.source} = %(review)s
      AND l.{_logs.reviewed_at} >= %(day_start)s AND l.{_logs.reviewed_at} < %(day_end)s
),
counts AS (
    SELECT COUNT(*) AS total,
           COALESCE(SUM(CASE WHEN c.{_cards.last_review} IS NULL THEN 1 ELSE 0 END), 0) AS new
    FROM {_cards.table} c WHERE {live_due}
),
later AS (
    SELECT COUNT(*) AS total FROM {_cards.table} c
    WHERE c.{_cards.learner} = %(learner)s AND c.{_cards.due} > %(at)s
      AND c.{_cards.due} < %(day_end)s AND {live}
),
seen AS (
    SELECT c.{_cards.id} AS id, 0 AS is_new, c.{_cards.due} AS due FROM {_cards.table} c
    WHERE {live_due} AND c.{_cards.last_review} IS NOT NULL
    ORDER BY c.{_cards.due}, c.{_cards.id} LIMIT %(limit)s
),
fresh AS (
    SELECT c.{_cards.id} AS id, 1 AS is_new, c.{_cards.due} AS due FROM {_cards.table} c
    WHERE {live_due} AND c.{_cards.last_review} IS NULL AND (SELECT new FROM counts) > 0
    ORDER BY c.{_cards.due}, c.{_cards.id} LIMIT %(limit)s
),
page AS (
    SELECT id, is_new, due FROM seen UNION ALL SELECT id, is_new, due FROM fresh
    ORDER BY is_new, due, id LIMIT %(limit)s
)
SELECT today.reviewed AS reviewed_today, today.new AS new_today,
       counts.total AS due_total, counts.new AS due_new, later.total AS due_later_today,
       card.{_cards.id} AS id, card.{_cards.kind} AS kind, card.{_cards.step} AS step_id,
       card.{_cards.quick_check} AS quick_check_id, {_state_columns("card")},
       lp.{_learner_parameters.parameters} AS learner_parameters,
       mp.{_module_parameters.parameters} AS module_parameters,
       ed.{_exam_dates.exam_on} AS exam_on, ep.{_exam_plans.exam_on} AS module_exam_on
FROM today
CROSS JOIN counts
CROSS JOIN later
LEFT JOIN page ON 1 = 1
LEFT JOIN {_cards.table} card ON card.{_cards.id} = page.id
LEFT JOIN {_learner_parameters.table} lp ON lp.{_learner_parameters.learner} = %(learner)s
LEFT JOIN {_module_parameters.table} mp ON mp.{_module_parameters.module} = card.{_cards.module}
LEFT JOIN {_exam_dates.table} ed ON ed.{_exam_dates.learner} = %(learner)s
    AND ed.{_exam_dates.module} = card.{_cards.module}
LEFT JOIN {_exam_plans.table} ep ON ep.{_exam_plans.module} = card.{_cards.module}
ORDER BY page.is_new, page.due, page.id
"""


class _DueQueueRow(NamedTuple):
    # A NamedTuple rather than a frozen dataclass: ten of these per due-queue request, built
    # from the row without a Python call (lms.sql.rows_as).
    reviewed_today: int
    new_today: int
    due_total: int
    due_new: int
    due_later_today: int
    # The page's card; all None when the page is empty (the counts still come).
    id: int | None
    kind: str | None
    step_id: int | None
    quick_check_id: int | None
    state: int | None
    learning_step: int | None
    stability: float | None
    difficulty: float | None
    due: Any
    last_review: Any
    learner_parameters: Any
    module_parameters: Any
    exam_on: Any
    module_exam_on: Any


@dataclass(frozen=True)
class DueQueueCard:
    id: int
    kind: str
    step_id: int
    quick_check_id: int | None
    state: CardState
    # What schedules it (as in CardRead): its parameters and exam day.
    parameters: Parameters = DEFAULT_PARAMETERS
    exam_on: datetime.date | None = None


@dataclass(frozen=True)
class DueQueuePage:
    """Today's review counts, the live due counts (now, and later before the local day ends)
    and the next page of due cards."""

    reviewed_today: int
    new_today: int
    due_total: int
    due_new: int
    due_later_today: int
    cards: list[DueQueueCard]


def due_queue_read(
    *,
    learner_id: int,
    at: datetime.datetime,
    day_start: datetime.datetime,
    day_end: datetime.datetime,
    limit: int,
    live: Q,
) -> DueQueuePage:
    """One statement: the learner's cards that are due and ``live`` (the live-card rule as a Q),
    seen ones first (oldest due first), then new ones, ``limit`` at most; and how many more come
    due before ``day_end``."""
    params: dict[str, Any] = {
        "learner": learner_id,
        "at": datetime_param(at),
        "day_start": datetime_param(day_start),
        "day_end": datetime_param(day_end),
        "limit": limit,
        "review": ReviewLog.Source.REVIEW.value,
    }
    live_sql, live_params = _live_condition(live, "c")
    params.update(live_params)
    sql = _due_queue_sql(live_sql)
    with cursor() as due_cursor:
        due_cursor.execute(sql, params)
        rows = rows_as(due_cursor, _DueQueueRow)
    first = rows[0]
    return DueQueuePage(
        reviewed_today=first.reviewed_today,
        new_today=first.new_today,
        due_total=first.due_total,
        due_new=first.due_new,
        due_later_today=first.due_later_today,
        cards=[
            DueQueueCard(
                id=row.id,
                kind=row.kind,
                step_id=row.step_id,
                quick_check_id=row.quick_check_id,
                state=_card_state(row),
                parameters=_parameters_of(row),
                exam_on=_date_value(row.exam_on) or _date_value(row.module_exam_on),
            )
            for row in rows
            if row.id is not None
        ],
    )


# --- the exam date that schedules a learner's cards of a module ------------------------------


@dataclass(frozen=True)
class ExamDateRow:
    """The learner's own exam date for the module (None without one), and the module's exam
    plan: whether there is one, its date (None when the admin set none) and how far ahead a
    learner's date may be."""

    own_exam_on: Any
    has_plan: Any
    plan_exam_on: Any
    max_days_ahead: int | None


_EXAM_DATE_SQL = f"""
SELECT (SELECT d.{_exam_dates.exam_on} FROM {_exam_dates.table} d
        WHERE d.{_exam_dates.learner} = %(learner)s AND d.{_exam_dates.module} = %(module)s
        LIMIT 1) AS own_exam_on,
       p.{_exam_plans.module} IS NOT NULL AS has_plan,
       p.{_exam_plans.exam_on} AS plan_exam_on, p.{_exam_plans.max_days_ahead} AS max_days_ahead
FROM (SELECT 1 AS one) one
LEFT JOIN {_exam_plans.table} p ON p.{_exam_plans.module} = %(module)s
"""


def exam_date_read(*, learner_id: int, module_id: int) -> ExamDateRow:
    """One statement, whether or not either exists (the ORM's version was two queries for a
    learner without a module plan, the dashboard's case)."""
    with connection.cursor() as cursor:
        cursor.execute(_EXAM_DATE_SQL, {"learner": learner_id, "module": module_id})
        row = row_as(cursor, ExamDateRow)
    return ExamDateRow(
        own_exam_on=_date_value(row.own_exam_on),
        has_plan=bool(row.has_plan),
        plan_exam_on=_date_value(row.plan_exam_on),
        max_days_ahead=row.max_days_ahead,
    )


# --- the statistics page's counts by local day -------------------------------------------------
#
# Reviews per local day (the heatmap, the streak) and live cards due per local day (the
# forecast). Built with the ORM (TruncDate in the learner's zone, a filtered count) each cost
# more CPU than PostgreSQL spent answering it (bench.profile web_stats). The local date is the
# backend's own expression (``datetime_cast_date_sql``, as TruncDate writes it).


def _local_date_sql(column: str, time_zone: str) -> tuple[str, dict[str, Any]]:
    """``column``'s date in ``time_zone`` as SQL with named parameters."""
    sql, values = connection.ops.datetime_cast_date_sql(column, (), time_zone)
    params = {}
    for index, value in enumerate(values):
        sql = sql.replace("%s", f"%(local_date_{index})s", 1)
        params[f"local_date_{index}"] = value
    return sql, params


@dataclass(frozen=True)
class DayReviewCount:
    day: datetime.date
    count: int
    recalled: int


def reviews_by_local_day(
    *, learner_id: int, time_zone: str, before: datetime.datetime, again: int
) -> list[DayReviewCount]:
    """The learner's reviews from the review queue before ``before``, counted per local day in
    ``time_zone`` (and how many were recalled, rated above ``again``): one row per day with
    reviews, in no order. One statement."""
    day, params = _local_date_sql(f"l.{_logs.reviewed_at}", time_zone)
    sql = (
        f"SELECT {day} AS day, COUNT(*) AS count, "
        f"COALESCE(SUM(CASE WHEN l.{_logs.rating} > %(again)s THEN 1 ELSE 0 END), 0) AS recalled "
        f"FROM {_logs.table} l WHERE l.{_logs.learner} = %(learner)s "
        f"AND l.{_logs.source} = %(review)s AND l.{_logs.reviewed_at} < %(before)s GROUP BY 1"
    )
    params.update(
        learner=learner_id,
        review=ReviewLog.Source.REVIEW.value,
        before=datetime_param(before),
        again=again,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = rows_as(cursor, DayReviewCount)
    return [
        DayReviewCount(day=_date_value(row.day), count=row.count, recalled=row.recalled)
        for row in rows
    ]


@dataclass(frozen=True)
class DayDueCount:
    day: datetime.date | None  # None: due before ``today_start`` (overdue)
    count: int


def seen_cards_due_by_local_day(
    *,
    learner_id: int,
    time_zone: str,
    today_start: datetime.datetime,
    before: datetime.datetime,
    live: Q,
) -> list[DayDueCount]:
    """The learner's ``live`` cards (the live-card rule as a Q) already reviewed once and due
    before ``before``, counted per local due day in ``time_zone``; those due before
    ``today_start`` in one row with day None. One statement."""
    day, params = _local_date_sql(f"c.{_cards.due}", time_zone)
    live_sql, live_params = _card_condition(live, "c")
    params.update(live_params)
    sql = (
        f"SELECT CASE WHEN c.{_cards.due} < %(today_start)s THEN NULL ELSE {day} END AS day, "
        f"COUNT(*) AS count FROM {_cards.table} c "
        f"WHERE c.{_cards.learner} = %(learner)s AND c.{_cards.last_review} IS NOT NULL "
        f"AND c.{_cards.due} < %(before)s AND {live_sql} GROUP BY 1"
    )
    params.update(
        learner=learner_id,
        today_start=datetime_param(today_start),
        before=datetime_param(before),
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = rows_as(cursor, DayDueCount)
    return [DayDueCount(day=_date_value(row.day), count=row.count) for row in rows]


# --- true retention: the statistics page's table ---------------------------------------------
#
# Anki's "True Retention" counts, 24 of them (period × young/mature × recalled/forgotten), in one
# pass over the learner's review log. The ORM's aggregate of 24 filtered counts cost the
# statistics page more CPU to build than any other read it makes (bench.profile web_stats). So
# did the plain-SQL statement of 24 filtered sums that followed it: at over 4 KB psycopg does not
# keep its parsed form (MAX_CACHED_STATEMENT_LENGTH) and split the text with a regular expression
# on every request. The statement now counts the reviews per (stretch between two of the
# periods' bounds, young or mature, recalled or not), at most 4 rows per stretch, and each period
# adds up the stretches inside it.


@dataclass(frozen=True)
class _RetentionBucket:
    bucket: int
    mature: int
    passed: int
    count: int


@functools.lru_cache(maxsize=8)
def _retention_sql(bound_count: int) -> str:
    # Mature: the card's interval when reviewed (due - last review) was MATURE_INTERVAL or more;
    # the duration arithmetic is the backend's own, as the ORM writes it.
    mature = "l.{due} >= {plus}".format(
        due=_logs.before_due,
        plus=connection.ops.combine_duration_expression(
            "+", [f"l.{_logs.before_last_review}", "%(mature)s"]
        ),
    )
    # Stretch i: reviewed before bound i (sorted) and not before bound i - 1; the last stretch
    # is everything from the last bound on.
    stretches = " ".join(
        f"WHEN l.{_logs.reviewed_at} < %(bound_{index})s THEN {index}"
        for index in range(bound_count)
    )
    return (
        f"SELECT CASE {stretches} ELSE {bound_count} END AS bucket, "
        f"CASE WHEN {mature} THEN 1 ELSE 0 END AS mature, "
        f"CASE WHEN l.{_logs.rating} > %(again)s THEN 1 ELSE 0 END AS passed, "
        f"COUNT(*) AS count FROM {_logs.table} l "
        f"WHERE l.{_logs.learner} = %(learner)s AND l.{_logs.source} = %(review)s "
        f"AND l.{_logs.before_state} = %(review_state)s "
        f"AND l.{_logs.before_last_review} IS NOT NULL GROUP BY 1, 2, 3"
    )


def retention_counts(
    *,
    learner_id: int,
    review_state: int,
    again: int,
    mature: datetime.timedelta,
    periods: list[tuple[str, datetime.datetime | None, datetime.datetime]],
) -> dict[str, int]:
    """Of the learner's reviews from the review queue of cards in ``review_state`` (with a last
    review), per period (name, start or None for all time, end): how many were of young and of
    mature cards (interval under or at least ``mature``), recalled (rated above ``again``) or
    not. Keys ``<period>_<young|mature>_<passed|failed>``. One statement."""
    bounds = sorted({moment for _name, start, end in periods for moment in (start, end) if moment})
    params: dict[str, Any] = {
        "learner": learner_id,
        "review": ReviewLog.Source.REVIEW.value,
        "review_state": review_state,
        "again": again,
        "mature": models.DurationField().get_db_prep_value(mature, connection),
    }
    for index, bound in enumerate(bounds):
        params[f"bound_{index}"] = datetime_param(bound)
    with connection.cursor() as cursor:
        cursor.execute(_retention_sql(len(bounds)), params)
        buckets = rows_as(cursor, _RetentionBucket)
    counts = {}
    for name, start, end in periods:
        # The stretches inside [start, end): after the bound ``start`` is (stretch 0 when there
        # is no start), up to the one that ends at ``end``.
        first = 0 if start is None else bounds.index(start) + 1
        last = bounds.index(end)
        for age, is_mature in (("young", 0), ("mature", 1)):
            for outcome, is_passed in (("passed", 1), ("failed", 0)):
                counts[f"{name}_{age}_{outcome}"] = sum(
                    row.count
                    for row in buckets
                    if first <= row.bucket <= last
                    and row.mature == is_mature
                    and row.passed == is_passed
                )
    return counts


# --- a review: the card read and the card's new state ------------------------------------------

# Read the card and look up a replay of the client review id in one statement, locking the card
# on the locked path. The ORM's version (select_for_update with a Subquery annotation) cost more
# CPU to build than the review's FSRS arithmetic and both other statements together. The same
# statement reads what schedules the card: the learner's own FSRS parameters, the card module's
# pooled ones, the learner's exam date for the module and the module's own.
_CARD_READ_SQL = (
    f"SELECT {_state_columns('c')}, c.{_cards.created_at} AS created_at, "
    f"(SELECT l.{_logs.id} FROM {_logs.table} l "
    f"WHERE l.{_logs.learner} = c.{_cards.learner} AND l.{_logs.client_review_id} = %s "
    f"LIMIT 1) AS replayed_log_id, "
    f"lp.{_learner_parameters.parameters} AS learner_parameters, "
    f"mp.{_module_parameters.parameters} AS module_parameters, "
    f"ed.{_exam_dates.exam_on} AS exam_on, "
    f"ep.{_exam_plans.exam_on} AS module_exam_on "
    f"FROM {_cards.table} c "
    f"LEFT JOIN {_learner_parameters.table} lp "
    f"ON lp.{_learner_parameters.learner} = c.{_cards.learner} "
    f"LEFT JOIN {_module_parameters.table} mp "
    f"ON mp.{_module_parameters.module} = c.{_cards.module} "
    f"LEFT JOIN {_exam_dates.table} ed ON ed.{_exam_dates.learner} = c.{_cards.learner} "
    f"AND ed.{_exam_dates.module} = c.{_cards.module} "
    f"LEFT JOIN {_exam_plans.table} ep ON ep.{_exam_plans.module} = c.{_cards.module} "
    f"WHERE c.{_cards.id} = %s AND c.{_cards.learner} = %s"
)


@dataclass(frozen=True)
class _CardReadRow:
    state: int
    learning_step: int | None
    stability: float | None
    difficulty: float | None
    due: Any
    last_review: Any
    created_at: Any
    replayed_log_id: int | None
    learner_parameters: Any
    module_parameters: Any
    exam_on: Any
    module_exam_on: Any


@dataclass(frozen=True)
class CardRead:
    """A learner's card as a review reads it (its state and when it was made), and an earlier
    log with the same client review id; the FSRS parameters that schedule it (the learner's own,
    else the module's pooled ones, else the defaults) and the exam day it is scheduled for (the
    learner's, else the module's)."""

    state: CardState
    created_at: datetime.datetime
    replayed_log_id: int | None
    parameters: Parameters = DEFAULT_PARAMETERS
    exam_on: datetime.date | None = None


@functools.lru_cache(maxsize=4096)
def _parameters_from_text(text: str) -> Parameters:
    return tuple(float(value) for value in json.loads(text))


def parameters_value(value: Any) -> Parameters | None:
    """A stored parameter set (a JSON column: text from some drivers, a list from others)."""
    if value is None:
        return None
    if isinstance(value, str):
        return _parameters_from_text(value)
    return tuple(float(number) for number in value)


def _parameters_of(row: Any) -> Parameters:
    """The parameters that schedule a card: the learner's own, else its module's pooled ones,
    else the defaults."""
    return (
        parameters_value(row.learner_parameters)
        or parameters_value(row.module_parameters)
        or DEFAULT_PARAMETERS
    )


def _date_value(value: Any) -> datetime.date | None:
    if value is None or isinstance(value, datetime.date):
        return value
    return datetime.date.fromisoformat(str(value))


def card_read(
    *, card_id: int, learner_id: int, client_review_id: str, lock: bool
) -> CardRead | None:
    """The card's state (locked where asked and the database can), or None if the learner has no
    such card; one statement."""
    sql = _CARD_READ_SQL
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE OF c"
    with cursor() as card_cursor:
        card_cursor.execute(sql, [client_review_id, card_id, learner_id])
        row = row_as(card_cursor, _CardReadRow)
    if row is None:
        return None
    return CardRead(
        state=_card_state(row),
        created_at=aware(row.created_at),
        replayed_log_id=row.replayed_log_id,
        parameters=_parameters_of(row),
        exam_on=_date_value(row.exam_on) or _date_value(row.module_exam_on),
    )


# Every review ends with this UPDATE: building it with the ORM cost more CPU than PostgreSQL spent
# running it.
_CARD_STATE_UPDATE_SQL = (
    f"UPDATE {_cards.table} SET "
    + ", ".join(f"{getattr(_cards, name)} = %s" for name in CARD_STATE_FIELDS)
    + f" WHERE {_cards.id} = %s"
)


def _state_param(name: str, value: Any) -> Any:
    # The state's timestamps as the driver expects them; its numbers as they are.
    return datetime_param(value) if name in _STATE_TIMESTAMPS else value


def card_state_update(*, card_id: int, state: CardState) -> tuple[str, list]:
    """The UPDATE of a card to ``state`` as (SQL, params), to run along another statement
    (lms.sql.row_insert) or on its own (``card_state_write``)."""
    return _CARD_STATE_UPDATE_SQL, [
        *(_state_param(name, value) for name, value in state.columns().items()),
        card_id,
    ]


def card_state_update_if(
    *, card_id: int, learner_id: int, before: CardState, state: CardState
) -> tuple[str, list]:
    """That UPDATE, matching only while the card still has the whole ``before`` state: a
    compare-and-swap. The whole state, not only its times: a review that lost a race applies at
    the other's time (reviews.review_times), so two reviews can leave one ``last_review``; a
    state equal in every column is one the review may be applied to, whoever wrote it."""
    sql, params = card_state_update(card_id=card_id, state=state)
    matches = " AND ".join(
        f"{getattr(_cards, name)} IS NOT DISTINCT FROM %s" for name in CARD_STATE_FIELDS
    )
    return (
        f"{sql} AND {_cards.learner} = %s AND {matches}",
        [
            *params,
            learner_id,
            *(_state_param(name, value) for name, value in before.columns().items()),
        ],
    )


def card_state_write(*, card_id: int, state: CardState) -> None:
    """Run the card's UPDATE to ``state`` (the caller holds the card's lock)."""
    with connection.cursor() as cursor:
        cursor.execute(*card_state_update(card_id=card_id, state=state))


# --- reminder claims ---------------------------------------------------------------------------

_CLAIM_COLUMNS = ", ".join(
    getattr(_digests, name)
    for name in (
        "learner",
        "local_date",
        "kind",
        "status",
        "claimed_at",
        "enqueued_at",
        "attempts",
        "last_error",
    )
)


@dataclass(frozen=True)
class ReminderClaim:
    """A learner whose reminder for ``local_date`` is due, if they have a card due and have not
    reviewed since that local day began (``day_start``)."""

    learner_id: int
    local_date: datetime.date
    day_start: datetime.datetime


@dataclass(frozen=True)
class _ClaimedRow:
    id: int


def reminder_claims_insert(
    claims: list[ReminderClaim], *, now: datetime.datetime, live: Q
) -> list[int]:
    """Insert the claims of the learners who have a ``live`` card (the live-card rule as a Q)
    due at ``now`` and no review from the review queue since their local day began, stamped as
    enqueued at ``now``; returns the ids of the new claims, sorted. A claim already there for
    that local day stays the only one (ON CONFLICT DO NOTHING) and is not returned.

    One statement (per SQLite parameter limit). The planner reads its learners through
    accounts.api, so this app's facts about them are checked here, one step down an index per
    candidate: one due card's id and one review's id, or NULL. Not EXISTS: PostgreSQL may run an
    EXISTS as one hashed pass over every due card of every learner (~150 ms on the benchmark's
    1.5 M cards). Not bulk_create: it cannot return the ids of rows inserted with
    ignore_conflicts, and it prepared all ten fields of every claim in Python (about a fifth of
    a planner run's time). PostgreSQL gets the claims as arrays, SQLite as VALUES.
    """
    if not claims:
        return []
    params: dict[str, Any] = {
        "kind": ReminderDigest.Kind.DIGEST.value,
        "status": ReminderDigest.Status.CLAIMED.value,
        "now": datetime_param(now),
        "attempts": 0,
        "last_error": "",
        "review": ReviewLog.Source.REVIEW.value,
    }
    condition, condition_params = _card_condition(live, "c")
    params.update(condition_params)
    sources: list[tuple[str, dict[str, Any]]] = []
    if connection.vendor == "postgresql":
        source = (
            "unnest(%(learners)s::bigint[], %(dates)s::date[], %(day_starts)s::timestamptz[]) "
            "AS claim(column1, column2, column3)"
        )
        claim_params = {
            "learners": [claim.learner_id for claim in claims],
            "dates": [claim.local_date for claim in claims],
            "day_starts": [claim.day_start for claim in claims],
        }
        sources.append((source, claim_params))
    else:
        # SQLite before 3.32 takes at most 999 parameters per statement (Django assumes so).
        per_statement = max(1, (connection.features.max_query_params - len(params)) // 3)
        adapt_date = connection.ops.adapt_datefield_value
        for start in range(0, len(claims), per_statement):
            group = claims[start : start + per_statement]
            rows, claim_params = [], {}
            for index, claim in enumerate(group):
                rows.append(f"(%(learner_{index})s, %(date_{index})s, %(day_start_{index})s)")
                claim_params[f"learner_{index}"] = claim.learner_id
                claim_params[f"date_{index}"] = adapt_date(claim.local_date)
                claim_params[f"day_start_{index}"] = datetime_param(claim.day_start)
            sources.append(("(VALUES " + ", ".join(rows) + ") AS claim", claim_params))
    ids = []
    with connection.cursor() as cursor:
        for source, claim_params in sources:
            cursor.execute(
                f"""INSERT INTO {_digests.table} ({_CLAIM_COLUMNS})
SELECT claim.column1, claim.column2, %(kind)s, %(status)s, %(now)s, %(now)s, %(attempts)s,
       %(last_error)s
FROM {source}
WHERE (SELECT c.{_cards.id} FROM {_cards.table} c
       WHERE c.{_cards.learner} = claim.column1 AND c.{_cards.due} <= %(now)s AND {condition}
       LIMIT 1) IS NOT NULL
  AND (SELECT l.{_logs.id} FROM {_logs.table} l
       WHERE l.{_logs.learner} = claim.column1 AND l.{_logs.source} = %(review)s
         AND l.{_logs.reviewed_at} >= claim.column3 AND l.{_logs.reviewed_at} <= %(now)s
       LIMIT 1) IS NULL
ON CONFLICT DO NOTHING RETURNING {_digests.id} AS id""",
                {**params, **claim_params},
            )
            ids += [row.id for row in rows_as(cursor, _ClaimedRow)]
    return sorted(ids)
