"""What other apps may ask of the courses app. They never import courses.models directly."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.db.models import (
    BooleanField,
    Count,
    IntegerField,
    Subquery,
    Value,
)

from courses import documents as _documents
from courses import import_preview as _import_preview
from courses import module_document as _module_document
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
    ModuleAdministrator,
    QuickCheck,
    Section,
    Step,
    active_step_q,
    quick_check_makes_no_card_q,
)
from courses.module_scope import (
    AdministeredModulesFilter,
    ModuleScopedAdminMixin,
    administered_module_by_slug,
    administered_module_ids,
    module_administered,
    module_scope_filter,
)
from courses.selectors import (
    CONTENT_CACHE_SECONDS,
    body_chars,
    content_generation,
    module_outline_get,
    module_public_text,
    rated_quick_check_ids,
    section_kinds,
)
from courses.services import importing as _importing
from courses.services import module_administrators as _module_administrators
from lms.errors import ModuleNotFound, StepNotFound
from lms.privacy import export_rows

__all__ = [
    "AdministeredModulesFilter",
    "ModuleScopedAdminMixin",
    "active_step_q",
    "administered_module_by_slug",
    "administered_module_ids",
    "body_chars",
    "module_administered",
    "module_public_text",
    "module_scope_filter",
    "rated_quick_check_ids",
    "section_kinds",
]  # re-exported for other apps (queries, the look-up solver)

# Every section kind, as (value, label) choices: the API's SectionKindEnum in other apps' inputs.
SECTION_KIND_CHOICES = Section.Kind.choices

_STEP_FIELDS = ("id", "module_id", "number", "slug", "term", "definition", "level", "status")


def _step_data(row: dict) -> StepData:
    status = row.pop("status")
    return StepData(**row, is_active=status == Step.Status.ACTIVE)


def module_by_slug(slug: str) -> ModuleData:
    row = Module.objects.filter(slug=slug).values("id", "slug", "title", "header").first()
    if row is None:
        raise ModuleNotFound(slug)
    return ModuleData(**row)


def modules_by_ids(module_ids: Iterable[int]) -> dict[int, ModuleData]:
    rows = Module.objects.filter(id__in=list(module_ids)).values("id", "slug", "title", "header")
    return {row["id"]: ModuleData(**row) for row in rows}


def module_steps(module_id: int) -> list[StepData]:
    """The module's active steps in order."""
    steps = Step.objects.active().filter(module_id=module_id).order_by("number")
    return [_step_data(row) for row in steps.values(*_STEP_FIELDS)]


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


def _kind(is_quick_check: bool) -> Value:
    """Tells a step's rows from a quick check's in a UNION of both reads."""
    return Value(is_quick_check, output_field=BooleanField())


def retired_content() -> RetiredContent:
    """The retired steps and the quick checks that make no review card, cached under the
    content generation (the due queue asks on every request)."""
    generation = content_generation()
    key = f"courses:all:{generation}:retired"
    return cache.get_or_set(key, lambda: _retired_content_read(generation), CONTENT_CACHE_SECONDS)


def _retired_content_read(generation: str) -> RetiredContent:
    steps = Step.objects.retired().order_by()
    quick_checks = QuickCheck.objects.filter(quick_check_makes_no_card_q()).order_by()
    rows = steps.values_list("id", _kind(False)).union(
        quick_checks.values_list("id", _kind(True)), all=True
    )
    step_ids: set[int] = set()
    quick_check_ids: set[int] = set()
    for row_id, is_quick_check in rows:
        (quick_check_ids if is_quick_check else step_ids).add(row_id)
    return RetiredContent(
        step_ids=frozenset(step_ids),
        quick_check_ids=frozenset(quick_check_ids),
        generation=generation,
    )


def card_fronts(
    *, step_ids: Iterable[int], quick_check_ids: Iterable[int], generation: str
) -> CardFronts:
    """The term and module title of each step and the question of each quick check, cached under
    the content ``generation`` (``RetiredContent.generation``): one query for those not cached."""
    fronts = CardFronts(step_terms={}, quick_check_questions={}, step_module_titles={})
    faces = _card_faces(step_ids, quick_check_ids, generation)
    for is_quick_check, pk, front, module_title, _ in faces:
        if is_quick_check:
            fronts.quick_check_questions[pk] = front
        else:
            fronts.step_terms[pk] = front
            fronts.step_module_titles[pk] = module_title
    return fronts


def card_backs(
    *, step_ids: Iterable[int], quick_check_ids: Iterable[int], generation: str
) -> CardBacks:
    """The definition of each step and the answer of each quick check, as ``card_fronts``."""
    backs = CardBacks(step_definitions={}, quick_check_answers={})
    for is_quick_check, pk, _, _, back in _card_faces(step_ids, quick_check_ids, generation):
        (backs.quick_check_answers if is_quick_check else backs.step_definitions)[pk] = back
    return backs


def _card_faces(
    step_ids: Iterable[int], quick_check_ids: Iterable[int], generation: str
) -> list[tuple]:
    """(is quick check, id, front, module title, back) of each step and quick check, each
    cached under the content generation; the missing ones read in one query."""
    step_ids, quick_check_ids = set(step_ids), set(quick_check_ids)
    if not step_ids and not quick_check_ids:
        return []

    def key(is_quick_check: bool, pk: int) -> str:
        return f"courses:all:{generation}:face:{'q' if is_quick_check else 's'}{pk}"

    wanted = {
        key(is_quick_check, pk): (is_quick_check, pk)
        for is_quick_check, ids in ((False, step_ids), (True, quick_check_ids))
        for pk in ids
    }
    found = cache.get_many(wanted)
    missing = [wanted[key] for key in wanted.keys() - found.keys()]
    if missing:
        steps = Step.objects.filter(pk__in=[pk for is_qc, pk in missing if not is_qc])
        quick_checks = QuickCheck.objects.filter(pk__in=[pk for is_qc, pk in missing if is_qc])
        read = steps.values_list(_kind(False), "id", "term", "module__title", "definition")
        read = read.order_by().union(
            quick_checks.values_list(_kind(True), "id", "question", Value(""), "answer").order_by(),
            all=True,
        )
        fresh = {key(face[0], face[1]): face for face in read}
        cache.set_many(fresh, CONTENT_CACHE_SECONDS)
        found.update(fresh)
    return list(found.values())


def module_slugs() -> list[str]:
    """Every module's slug, in catalogue order."""
    return list(Module.objects.order_by("series", "number").values_list("slug", flat=True))


def modules_all() -> list[ModuleData]:
    """Every module, in catalogue order (for choices in other apps' forms)."""
    rows = Module.objects.order_by("series", "number").values("id", "slug", "title", "header")
    return [ModuleData(**row) for row in rows]


def modules_administered(user) -> list[ModuleData]:
    """The modules the user administers (every module for a superuser or an unscoped course
    admin), in catalogue order: the choices of the admin's module pickers."""
    rows = module_scope_filter(
        Module.objects.order_by("series", "number"), user=user, module_path="pk"
    ).values("id", "slug", "title", "header")
    return [ModuleData(**row) for row in rows]


def module_administrator_platform_ensure(*, user_id: int, module_id: int) -> bool:
    """Make a platform's teacher an administrator of a module a link opens (LTI)."""
    return _module_administrators.module_administrator_ensure(
        user_id=user_id,
        module_id=module_id,
        source=ModuleAdministrator.Source.PLATFORM,
    )


def modules_by_slugs(slugs: Iterable[str]) -> dict[str, ModuleData]:
    """The modules with these slugs, by slug (one query; unknown slugs are left out)."""
    rows = Module.objects.filter(slug__in=list(slugs)).values("id", "slug", "title", "header")
    return {row["slug"]: ModuleData(**row) for row in rows}


def module_outline(module_slug: str) -> ModuleOutline:
    """The module with every step (active ones first) and each step's section kinds."""
    return module_outline_get(slug=module_slug)


def active_step_count(module_id: Any) -> Subquery:
    """The number of active steps of ``module_id`` (a value or ``OuterRef``), as a subquery."""
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
    """The module of ``step_id`` (a value or ``OuterRef``), as a subquery."""
    return Subquery(
        Step.objects.filter(id=step_id).values("module_id")[:1], output_field=IntegerField()
    )


def step_sections_by_number(module_ids: Iterable[int]) -> dict[tuple[int, int], OutlineStep]:
    """Every active step of these modules by (module id, number), with its section kinds."""
    rows = (
        Step.objects.active()
        .filter(module_id__in=list(module_ids))
        .order_by("number")
        .values_list("id", "module_id", "number", "slug", "term", "content_hash", section_kinds())
    )
    return {
        (module_id, number): OutlineStep(
            id=step_id,
            number=number,
            slug=slug,
            term=term,
            is_active=True,
            content_hash=content_hash,
            section_kinds=tuple(kinds),
        )
        for step_id, module_id, number, slug, term, content_hash, kinds in rows
    }


# The course import, for the publishing app.
documents_plan = _import_preview.documents_plan
DocumentErrors = _import_preview.DocumentErrors
plan_preview = _import_preview.plan_preview
content_fingerprint = _import_preview.content_fingerprint
module_document = _module_document.module_document
card_document = _module_document.card_document
normalized_text = _module_document.normalized_text


def documents_decode(
    documents: Iterable[tuple[str, bytes | str]],
) -> list[tuple[str, str, str]]:
    """Per uploaded document: its name, its text and the encoding it was converted from ("" for
    UTF-8 or text given as text). Raises ``DocumentErrors`` naming every empty or binary file."""
    decoded, errors = [], []
    for name, data in documents:
        if isinstance(data, str):
            decoded.append((name, data, ""))
            continue
        try:
            document = _documents.document_decode(data, path=name)
        except _documents.DocumentError as error:
            errors.append(error)
        else:
            decoded.append((name, document.text, document.encoding))
    if errors:
        raise DocumentErrors(errors)
    return decoded


def plan_apply(*, plan: Any) -> Any:
    """Import a plan (``courses.services.importing.course_plan_apply``); its ``ImportReport``."""
    return _importing.course_plan_apply(plan=plan)


def modules_lock(*, slugs: Iterable[str]) -> None:
    """Lock these modules (inside a transaction) while a publish checks and applies its plan."""
    list(Module.objects.select_for_update().filter(slug__in=list(slugs)).values_list("pk"))


def module_ids_by_slug(slugs: Iterable[str]) -> dict[str, int]:
    return dict(Module.objects.filter(slug__in=list(slugs)).values_list("slug", "pk"))


def module_slugs_by_title(titles: Iterable[str]) -> dict[str, str]:
    return dict(Module.objects.filter(title__in=list(titles)).values_list("title", "slug"))


def section_kind_labels() -> dict[str, str]:
    """A section kind's heading as the document writes it (``"verstehen"`` → "1. Verstehen")."""
    return {kind.value: str(kind.label) for kind in Section.Kind}


def administered_modules_export(user_id: int) -> list[dict]:
    """The modules the user administers (per-module course admin), for the data export."""
    from courses.models import ModuleAdministrator

    return export_rows(
        ModuleAdministrator.objects.filter(user_id=user_id), context=("module__slug",)
    )
