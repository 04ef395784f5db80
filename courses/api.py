"""What other apps may ask of the courses app. They never import courses.models directly."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, IntegerField, QuerySet, Subquery

from courses.data import ModuleData, ModuleOutline, OutlineStep, QuickCheckData, StepData
from courses.models import Module, QuickCheck, Step, active_step_q
from courses.selectors import module_outline_get
from lms.errors import ModuleNotFound, StepNotFound

__all__ = ["active_step_q"]  # re-exported: the rule "a step is active" for other apps' filters

_STEP_FIELDS = ("id", "module_id", "number", "slug", "term", "definition", "level", "status")


def _step_data(row: dict) -> StepData:
    return StepData(
        id=row["id"],
        module_id=row["module_id"],
        number=row["number"],
        slug=row["slug"],
        term=row["term"],
        definition=row["definition"],
        level=row["level"],
        is_active=row["status"] == Step.Status.ACTIVE,
    )


def module_by_slug(slug: str) -> ModuleData:
    row = Module.objects.filter(slug=slug).values("id", "slug", "title", "header").first()
    if row is None:
        raise ModuleNotFound(slug)
    return ModuleData(**row)


def modules_by_ids(module_ids: Iterable[int]) -> dict[int, ModuleData]:
    rows = Module.objects.filter(id__in=list(module_ids)).values("id", "slug", "title", "header")
    return {row["id"]: ModuleData(**row) for row in rows}


def module_steps(module_id: int, *, include_retired: bool = False) -> list[StepData]:
    """The module's steps in order (active ones only unless asked)."""
    steps = Step.objects.filter(module_id=module_id)
    if not include_retired:
        steps = steps.active()
    return [_step_data(row) for row in steps.order_by("status", "number").values(*_STEP_FIELDS)]


def steps_by_ids(step_ids: Iterable[int]) -> dict[int, StepData]:
    rows = Step.objects.filter(id__in=list(step_ids)).values(*_STEP_FIELDS)
    return {row["id"]: _step_data(row) for row in rows}


def step_by_number(module_slug: str, number: int) -> StepData:
    row = (
        Step.objects.active()
        .filter(module__slug=module_slug, number=number)
        .values(*_STEP_FIELDS)
        .first()
    )
    if row is None:
        raise StepNotFound(module_slug, number)
    return _step_data(row)


def step_quick_checks(step_id: int) -> list[QuickCheckData]:
    """The quick checks a step shows, in its order."""
    rows = (
        QuickCheck.objects.filter(links__step_id=step_id)
        .order_by("links__position")
        .values("id", "module_id", "question", "answer")
    )
    return [QuickCheckData(**row) for row in rows]


def steps_not_active_query() -> QuerySet:
    """Ids of the steps that are not active (retired), for another app's ``__in`` subquery.

    Few rows, so PostgreSQL hashes them once instead of joining each of the other app's rows
    to its step (the due queue checks ~1,400 due cards of a heavy learner per request).
    """
    return Step.objects.exclude(status=Step.Status.ACTIVE).values("id")


def quick_checks_inactive_query() -> QuerySet:
    """Ids of the quick checks no longer in their module, for another app's ``__in`` subquery."""
    return QuickCheck.objects.filter(is_active=False).values("id")


# The same sets and the card fronts for another app's plain-SQL reads (reviews' due queue): the
# table and column names stay here, next to the models they come from.
STEPS_NOT_ACTIVE_SQL = (
    f"SELECT id FROM {Step._meta.db_table} WHERE status <> '{Step.Status.ACTIVE.value}'"
)
QUICK_CHECKS_INACTIVE_SQL = f"SELECT id FROM {QuickCheck._meta.db_table} WHERE NOT is_active"


def card_fronts_join_sql(*, step_id: str, quick_check_id: str) -> tuple[str, str, str]:
    """(LEFT JOINs, step term column, quick-check question column) for a plain-SQL read whose
    rows carry a step id and a quick-check id in the columns named."""
    joins = (
        f"LEFT JOIN {Step._meta.db_table} front_step ON front_step.id = {step_id} "
        f"LEFT JOIN {QuickCheck._meta.db_table} front_qc ON front_qc.id = {quick_check_id}"
    )
    return joins, "front_step.term", "front_qc.question"


def module_slugs() -> list[str]:
    """Every module's slug, in catalogue order."""
    return list(Module.objects.order_by("series", "number").values_list("slug", flat=True))


def modules_all() -> list[ModuleData]:
    """Every module, in catalogue order (for choices in other apps' forms)."""
    rows = Module.objects.order_by("series", "number").values("id", "slug", "title", "header")
    return [ModuleData(**row) for row in rows]


def modules_by_slugs(slugs: Iterable[str]) -> dict[str, ModuleData]:
    """The modules with these slugs, by slug (one query; unknown slugs are left out)."""
    rows = Module.objects.filter(slug__in=list(slugs)).values("id", "slug", "title", "header")
    return {row["slug"]: ModuleData(**row) for row in rows}


def module_outline(module_slug: str) -> ModuleOutline:
    """The module with every step (retired ones too, after the active ones) and each step's
    section kinds in order. One query, none while this process trusts its copy (one second,
    forgotten at once on an import or admin edit here: ``lms.content_cache``)."""
    return module_outline_get(slug=module_slug)


def active_step_count(module_id: Any) -> Subquery:
    """The number of active steps of ``module_id`` (a value or ``OuterRef``), as a subquery
    expression for another app's annotation."""
    count = (
        Step.objects.active()
        .filter(module_id=module_id)
        .order_by()
        .values("module_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    return Subquery(count, output_field=IntegerField())


def step_sections_by_number(module_ids: Iterable[int]) -> dict[tuple[int, int], OutlineStep]:
    """Every active step of these modules by (module id, number), with its section kinds in
    order: one query."""
    steps: dict[tuple[int, int], OutlineStep] = {}
    kinds: dict[int, list[str]] = {}
    rows = (
        Step.objects.active()
        .filter(module_id__in=list(module_ids))
        .order_by("number", "sections__position")
        .values_list("id", "module_id", "number", "slug", "term", "content_hash", "sections__kind")
    )
    for step_id, module_id, number, slug, term, content_hash, kind in rows:
        if step_id not in kinds:
            kinds[step_id] = []
            steps[(module_id, number)] = (step_id, number, slug, term, content_hash)
        if kind is not None:
            kinds[step_id].append(kind)
    return {
        key: OutlineStep(
            id=step_id,
            number=number,
            slug=slug,
            term=term,
            is_active=True,
            content_hash=content_hash,
            section_kinds=tuple(kinds[step_id]),
        )
        for key, (step_id, number, slug, term, content_hash) in steps.items()
    }
