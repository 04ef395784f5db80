"""What other apps may ask of the courses app. They never import courses.models directly."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import BooleanField, Count, Q, QuerySet, Value

from courses.data import CardFronts, ModuleData, QuickCheckData, RetiredContent, StepData
from courses.models import (
    Enrollment,
    Module,
    ProgressEvent,
    QuickCheck,
    Step,
    StepNote,
    StepProgress,
)
from lms.content_cache import ShortLivedCache
from lms.errors import NotFound
from lms.privacy import export_rows

_STEP_FIELDS = ("id", "module_id", "number", "slug", "term", "definition", "level", "status")
# The value of Step.status for a step still in its document; apps that join on their own foreign
# key to a step (e.g. review cards) filter on it instead of importing the model.
STEP_STATUS_ACTIVE: str = Step.Status.ACTIVE.value


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
        raise NotFound(f"There is no module '{slug}'.", code="module_not_found")
    return ModuleData(**row)


def modules_by_ids(module_ids: Iterable[int]) -> dict[int, ModuleData]:
    rows = Module.objects.filter(id__in=list(module_ids)).values("id", "slug", "title", "header")
    return {row["id"]: ModuleData(**row) for row in rows}


def module_steps(module_id: int, *, include_retired: bool = False) -> list[StepData]:
    """The module's steps in order (active ones only unless asked)."""
    steps = Step.objects.filter(module_id=module_id)
    if not include_retired:
        steps = steps.filter(status=Step.Status.ACTIVE)
    return [_step_data(row) for row in steps.order_by("status", "number").values(*_STEP_FIELDS)]


def steps_by_ids(step_ids: Iterable[int]) -> dict[int, StepData]:
    rows = Step.objects.filter(id__in=list(step_ids)).values(*_STEP_FIELDS)
    return {row["id"]: _step_data(row) for row in rows}


def step_by_number(module_slug: str, number: int) -> StepData:
    row = (
        Step.objects.filter(module__slug=module_slug, number=number, status=Step.Status.ACTIVE)
        .values(*_STEP_FIELDS)
        .first()
    )
    if row is None:
        raise NotFound(f"Module '{module_slug}' has no step {number}.", code="step_not_found")
    return _step_data(row)


def step_quick_checks(step_id: int) -> list[QuickCheckData]:
    """The quick checks a step shows, in its order."""
    rows = (
        QuickCheck.objects.filter(links__step_id=step_id)
        .order_by("links__position")
        .values("id", "module_id", "question", "answer")
    )
    return [QuickCheckData(**row) for row in rows]


def enrollment_exists(*, learner_id: int, module_id: int) -> bool:
    return Enrollment.objects.filter(learner_id=learner_id, module_id=module_id).exists()


def all_steps_completed(*, learner_id: int, module_id: int) -> bool:
    """True when the learner has completed every active step of the module (one query)."""
    counts = Step.objects.filter(module_id=module_id, status=Step.Status.ACTIVE).aggregate(
        active=Count("id"),
        completed=Count(
            "progress",
            filter=Q(
                progress__learner_id=learner_id,
                progress__status=StepProgress.Status.COMPLETED,
            ),
        ),
    )
    return counts["active"] > 0 and counts["completed"] == counts["active"]


# Which content is retired and what cards show on their front, trusted for a second in each
# process, like the step ETags (lms.content_cache): the due queue asks on every request, an import
# or admin edit in this process forgets them at once, other processes serve a change within it.
CARD_CONTENT_MAX_AGE = 1.0
_retired_content = ShortLivedCache(
    name="retired content", max_entries=1, max_age=CARD_CONTENT_MAX_AGE
)
_card_fronts = ShortLivedCache(name="card fronts", max_entries=20_000, max_age=CARD_CONTENT_MAX_AGE)


def _kind(is_quick_check: bool) -> Value:
    # Tells the rows of a step from those of a quick check in a UNION of both reads.
    return Value(is_quick_check, output_field=BooleanField())


def retired_content() -> RetiredContent:
    """The steps no longer active and the quick checks no longer in their module (few rows, each
    kind read through its partial index): one query at most a second per process."""
    retired = _retired_content.get("all")
    if retired is not None:
        return retired
    steps = Step.objects.exclude(status=Step.Status.ACTIVE).order_by()
    quick_checks = QuickCheck.objects.filter(is_active=False).order_by()
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
    """The term of each step and the question of each quick check (unknown ids left out): one
    query at most, for the ids not read in this process in the last second."""
    fronts = CardFronts(step_terms={}, quick_check_questions={})
    missing: list[QuerySet] = []
    for is_quick_check, ids, found, model, front in (
        (False, step_ids, fronts.step_terms, Step, "term"),
        (True, quick_check_ids, fronts.quick_check_questions, QuickCheck, "question"),
    ):
        unknown = []
        for row_id in set(ids):
            cached = _card_fronts.get((is_quick_check, row_id))
            if cached is None:
                unknown.append(row_id)
            else:
                found[row_id] = cached
        if unknown:
            read = model.objects.filter(id__in=unknown).order_by()
            missing.append(read.values_list("id", _kind(is_quick_check), front))
    if missing:
        for row_id, is_quick_check, front in missing[0].union(*missing[1:], all=True):
            found = fronts.quick_check_questions if is_quick_check else fronts.step_terms
            found[row_id] = front
            _card_fronts.put((is_quick_check, row_id), front)
    return fronts


def module_slugs() -> list[str]:
    """Every module's slug, in catalogue order."""
    return list(Module.objects.order_by("series", "number").values_list("slug", flat=True))


def enrollment_lock(*, learner_id: int, module_slug: str) -> ModuleData | None:
    """Lock the learner's enrollment row (``SELECT … FOR UPDATE``) and return its module.

    Call it inside ``transaction.atomic``: it serialises a learner's writes per module (e.g. two
    exam starts at once). None when the learner is not enrolled or the module does not exist.
    One query.
    """
    row = (
        Enrollment.objects.select_for_update(of=("self",))
        .filter(learner_id=learner_id, module__slug=module_slug)
        .values("module_id", "module__slug", "module__title", "module__header")
        .first()
    )
    if row is None:
        return None
    return ModuleData(
        id=row["module_id"],
        slug=row["module__slug"],
        title=row["module__title"],
        header=row["module__header"],
    )


def modules_all() -> list[ModuleData]:
    """Every module, in catalogue order (for choices in other apps' forms)."""
    rows = Module.objects.order_by("series", "number").values("id", "slug", "title", "header")
    return [ModuleData(**row) for row in rows]


def enrolled_module_ids(*, learner_id: int) -> set[int]:
    """The ids of the modules the learner is enrolled in: one query."""
    return set(Enrollment.objects.filter(learner_id=learner_id).values_list("module_id", flat=True))


def enrollments_bulk_create(*, learner_ids: Iterable[int], module_id: int) -> int:
    """Enroll learners in a module as an admin; existing enrollments stay. Returns the new count."""
    # Imported here: the services import reviews.api, which may import this module.
    from courses.services.progress import enrollments_bulk_create as create

    return create(learner_ids=learner_ids, module_id=module_id)


def learner_export(learner_id: int) -> dict:
    """Everything the courses app stores about the learner (data export): four queries."""
    step = ("step__module__slug", "step__number", "step__term")
    return {
        "enrollments": export_rows(
            Enrollment.objects.filter(learner_id=learner_id), context=("module__slug",)
        ),
        "step_progress": export_rows(
            StepProgress.objects.filter(learner_id=learner_id), context=step
        ),
        "progress_events": export_rows(
            ProgressEvent.objects.filter(learner_id=learner_id), context=step
        ),
        "notes": export_rows(StepNote.objects.filter(learner_id=learner_id), context=step),
    }
