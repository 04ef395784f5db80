"""What other apps may ask of the courses app. They never import courses.models directly."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import (
    BooleanField,
    Count,
    IntegerField,
    Subquery,
    Value,
)

from courses import import_preview as _import_preview
from courses import module_document as _module_document
from courses import sql
from courses.data import (
    CardBacks,
    CardFronts,
    ModuleData,
    ModuleOutline,
    OutlineStep,
    QuickCheckData,
    RetiredContent,
    StepData,
)
from courses.models import (
    Module,
    QuickCheck,
    Section,
    Step,
    TermCard,
    active_step_q,
    quick_check_makes_no_card_q,
)
from courses.selectors import CONTENT_MAX_AGE, module_outline_get
from courses.services import importing as _importing
from lms.content_cache import ShortLivedCache
from lms.errors import ModuleNotFound, StepNotFound

__all__ = ["active_step_q"]  # re-exported: the rule "a step is active" for other apps' filters

# Every section kind, as (value, label) choices: the API's SectionKindEnum in other apps' inputs.
SECTION_KIND_CHOICES = Section.Kind.choices

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
        .values("id", "module_id", "question", "answer", "role")
    )
    return [QuickCheckData(**row) for row in rows]


# Which content is retired and what cards show on their front, trusted for CONTENT_MAX_AGE in
# each process like the step ETags: the due queue asks on every request.
_retired_content = ShortLivedCache(name="retired content", max_entries=1, max_age=CONTENT_MAX_AGE)
_card_fronts = ShortLivedCache(name="card fronts", max_entries=20_000, max_age=CONTENT_MAX_AGE)
_card_backs = ShortLivedCache(name="card backs", max_entries=20_000, max_age=CONTENT_MAX_AGE)


def _kind(is_quick_check: bool) -> Value:
    # Tells the rows of a step from those of a quick check in a UNION of both reads.
    return Value(is_quick_check, output_field=BooleanField())


def retired_content() -> RetiredContent:
    """The steps no longer active and the quick checks that make no review card (gone from
    their module, or no flashcard: ``courses.quick_check_roles``); few rows, each kind read
    through its partial index: one query at most a second per process."""
    retired = _retired_content.get("all")
    if retired is not None:
        return retired
    steps = Step.objects.retired().order_by()
    quick_checks = QuickCheck.objects.filter(quick_check_makes_no_card_q()).order_by()
    rows = steps.values_list("id", _kind(False)).union(
        quick_checks.values_list("id", _kind(True)), all=True
    )
    step_ids: set[int] = set()
    quick_check_ids: set[int] = set()
    for row_id, is_quick_check in rows:
        (quick_check_ids if is_quick_check else step_ids).add(row_id)
    retired = RetiredContent(
        step_ids=frozenset(step_ids), quick_check_ids=frozenset(quick_check_ids)
    )
    _retired_content.put("all", retired)
    return retired


def card_fronts(*, step_ids: Iterable[int], quick_check_ids: Iterable[int]) -> CardFronts:
    """The term and module title of each step and the question of each quick check (unknown
    ids left out): one statement at most, for the ids not read in this process in the last
    second (``_card_faces_read``: the backs come along)."""
    fronts = CardFronts(step_terms={}, quick_check_questions={}, step_module_titles={})
    unknown: dict[bool, list[int]] = {False: [], True: []}
    for is_quick_check, ids in ((False, step_ids), (True, quick_check_ids)):
        for row_id in set(ids):
            cached = _card_fronts.get((is_quick_check, row_id))
            if cached is None:
                unknown[is_quick_check].append(row_id)
            else:
                _front_put(fronts, is_quick_check, row_id, *cached)
    for row in _card_faces_read(unknown):
        _front_put(fronts, row.is_quick_check, row.id, row.front, row.module_title)
    return fronts


def _card_faces_read(unknown: dict[bool, list[int]]) -> list:
    """Both faces of the cards of the ``unknown`` step (False) and quick-check (True) ids, kept
    in both caches (one plain-SQL statement, none without ids): the review page asks for the
    front and the back of the same card, and a read of each cost a statement and the ORM's
    UNION built on every miss (bench.profile web_review)."""
    rows = sql.card_faces_read(step_ids=unknown[False], quick_check_ids=unknown[True])
    for row in rows:
        _card_fronts.put((row.is_quick_check, row.id), (row.front, row.module_title))
        _card_backs.put((row.is_quick_check, row.id), row.back)
    return rows


def _front_put(
    fronts: CardFronts, is_quick_check: bool, row_id: int, front: str, module_title: str
) -> None:
    if is_quick_check:
        fronts.quick_check_questions[row_id] = front
    else:
        fronts.step_terms[row_id] = front
        fronts.step_module_titles[row_id] = module_title


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


def step_module_id(step_id: Any) -> Subquery:
    """The module of ``step_id`` (a value or ``OuterRef``), as a subquery expression another app
    can store in a row it inserts (the reviews app keeps it on each card) without a query."""
    return Subquery(
        Step.objects.filter(id=step_id).values("module_id")[:1], output_field=IntegerField()
    )


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


def card_backs(*, step_ids: Iterable[int], quick_check_ids: Iterable[int]) -> CardBacks:
    """The definition of each step and the answer of each quick check (unknown ids left out):
    one statement at most, for the ids not read in this process in the last second (as the
    fronts, read together with them: the web review page shows the next card's back on every
    page, and that query was a quarter of the page's statements; bench.profile web_review)."""
    backs = CardBacks(step_definitions={}, quick_check_answers={})
    unknown: dict[bool, list[int]] = {False: [], True: []}
    for is_quick_check, ids in ((False, step_ids), (True, quick_check_ids)):
        target = backs.quick_check_answers if is_quick_check else backs.step_definitions
        for row_id in sorted(set(ids)):
            cached = _card_backs.get((is_quick_check, row_id))
            if cached is None:
                unknown[is_quick_check].append(row_id)
            else:
                target[row_id] = cached
    for row in _card_faces_read(unknown):
        target = backs.quick_check_answers if row.is_quick_check else backs.step_definitions
        target[row.id] = row.back
    return backs


# The course import, for the publishing app (which adds the learners affected and the exam):
# plan documents, preview a plan against the database, apply it, and write a module back out.
documents_plan = _import_preview.documents_plan
DocumentErrors = _import_preview.DocumentErrors
plan_preview = _import_preview.plan_preview
content_fingerprint = _import_preview.content_fingerprint
module_document = _module_document.module_document
card_document = _module_document.card_document
normalized_text = _module_document.normalized_text


def plan_apply(*, plan: Any) -> Any:
    """Import a plan (``courses.services.importing.course_plan_apply``); its ``ImportReport``."""
    return _importing.course_plan_apply(plan=plan)


def modules_lock(*, slugs: Iterable[str]) -> None:
    """Lock the stored modules of these slugs (``SELECT … FOR UPDATE``, inside a transaction):
    a publish checks its preview's fingerprint and applies under this lock."""
    list(Module.objects.select_for_update().filter(slug__in=list(slugs)).values_list("pk"))


def module_ids_by_slug(slugs: Iterable[str]) -> dict[str, int]:
    return dict(Module.objects.filter(slug__in=list(slugs)).values_list("slug", "pk"))


def term_cards_of_module(module_id: int) -> list[tuple[int, str, str]]:
    """The module's term cards: (id, slug, source file name)."""
    return list(
        TermCard.objects.filter(module_id=module_id)
        .order_by("slug")
        .values_list("pk", "slug", "source_path")
    )


def module_slugs_by_title(titles: Iterable[str]) -> dict[str, str]:
    return dict(Module.objects.filter(title__in=list(titles)).values_list("title", "slug"))


def section_kind_labels() -> dict[str, str]:
    """A section kind's heading as the document writes it (``"verstehen"`` → "1. Verstehen")."""
    return {kind.value: str(kind.label) for kind in Section.Kind}
