"""Import course documents into the database in one transaction.

Steps are matched by (module, term slug); an unchanged document block is skipped entirely, so a
re-import of unchanged documents writes no rows and admin edits survive until the block changes.
A step missing from its document is retired, never deleted: learner data keeps pointing at it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from courses.content_plan import (
    SERVED_CARD_FIELDS,
    SERVED_STEP_FIELDS,
    CoursePlan,
    ModuleRow,
    StepRow,
    TermCardRow,
    card_content_hash,
    plan_documents,
    step_content_hash,
)
from courses.documents import DocumentError, ModuleDoc, TermCardDoc, parse_document
from courses.models import Module, QuickCheck, Section, Step, StepQuickCheck, TermCard
from courses.quick_check_roles import StepChecks, quick_check_roles
from courses.services.content_versions import module_content_version_renew

# Where a renumbered step parks while numbers are shuffled (the active-number constraint is
# not deferrable because it is partial).
_RENUMBER_OFFSET = 1_000_000


@dataclasses.dataclass
class ImportReport:
    """What an import changed; ``rows_written`` is 0 for a re-import of unchanged documents."""

    modules_created: int = 0
    modules_updated: int = 0
    steps_created: int = 0
    steps_updated: int = 0
    steps_unchanged: int = 0
    steps_retired: int = 0
    cards_created: int = 0
    cards_updated: int = 0
    rows_written: int = 0

    def summary(self) -> str:
        return ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in dataclasses.asdict(self).items())


def default_document_paths() -> list[Path]:
    return sorted(Path(settings.LERNPFAD_DOCUMENTS_DIR).glob("*.txt"))


def documents_parse(paths: Iterable[Path | str]) -> list[ModuleDoc | TermCardDoc]:
    """Parse every document first, so a broken one stops the import before any write."""
    docs = []
    for path in paths:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise DocumentError(str(path), 0, f"cannot read the file: {exc.strerror}") from exc
        docs.append(parse_document(data, path=str(path)))
    return docs


def course_import(*, paths: Sequence[Path | str] | None = None) -> ImportReport:
    """Parse and import documents (default: the repository's documents) in one transaction."""
    docs = documents_parse(paths if paths is not None else default_document_paths())
    return course_plan_apply(plan=plan_documents(docs))


@transaction.atomic
def course_plan_apply(*, plan: CoursePlan) -> ImportReport:
    report = ImportReport()
    modules_by_title: dict[str, Module] = {}
    changed: set[int] = set()
    for module_row in plan.modules:
        written = report.rows_written
        module = _module_sync(module_row, report)
        modules_by_title[module.title] = module
        if report.rows_written > written:
            changed.add(module.pk)
    for card_row in plan.cards:
        written = report.rows_written
        module = _card_sync(card_row, modules_by_title, report)
        if report.rows_written > written:
            changed.add(module.pk)
    module_content_version_renew(module_ids=changed)
    return report


def _module_sync(row: ModuleRow, report: ImportReport) -> Module:
    fields = row.fields()
    module = Module.objects.filter(slug=row.slug).first()
    if module is None:
        module = Module.objects.create(**fields)
        report.modules_created += 1
        report.rows_written += 1
    elif _changed(module, fields):
        for name, value in fields.items():
            setattr(module, name, value)
        module.save()
        report.modules_updated += 1
        report.rows_written += 1

    existing = {step.slug: step for step in module.steps.all()}
    changed_rows = [
        step_row
        for step_row in row.steps
        if not _step_unchanged(existing.get(step_row.slug), step_row)
    ]
    report.steps_unchanged += len(row.steps) - len(changed_rows)
    kept = {step_row.slug for step_row in row.steps}
    retiring = [step for slug, step in existing.items() if slug not in kept and step.is_active]

    if retiring:
        # A retired step leaves the active-number constraint, freeing its number.
        Step.objects.filter(pk__in=[step.pk for step in retiring]).update(
            status=Step.Status.RETIRED, retired_at=timezone.now()
        )
        report.steps_retired += len(retiring)
        report.rows_written += len(retiring)
    # Park the changed steps on numbers nobody uses before they take their new ones.
    parked = [existing[r.slug].pk for r in changed_rows if r.slug in existing]
    if parked:
        Step.objects.filter(pk__in=parked).update(number=F("number") + _RENUMBER_OFFSET)

    if changed_rows or retiring:
        quick_checks = _quick_checks_sync(module, row, report)
        for step_row in changed_rows:
            _step_write(module, existing.get(step_row.slug), step_row, quick_checks, report)
    return module


def _step_unchanged(step: Step | None, row: StepRow) -> bool:
    return (
        step is not None
        and step.is_active
        and step.source_hash == row.source_hash
        and step.number == row.number
    )


def _changed(instance, fields: dict) -> bool:
    return any(
        getattr(instance, name) != _as_model_value(instance, name, value)
        for name, value in fields.items()
    )


def _as_model_value(instance, name: str, value):
    field = instance._meta.get_field(name)
    return field.to_python(value) if value is not None else None


def _quick_checks_sync(
    module: Module, row: ModuleRow, report: ImportReport
) -> dict[str, QuickCheck]:
    """Every distinct question/answer line of the module, stored once, with its role
    (``courses.quick_check_roles``, decided over the module as the documents have it)."""
    wanted = {}
    for step_row in row.steps:
        for qc in step_row.quick_checks:
            wanted.setdefault(qc.text_hash, qc)
    roles = row.quick_check_roles()
    existing = {qc.text_hash: qc for qc in module.quick_checks.all()}
    missing = [
        QuickCheck(
            module=module, question=qc.question, answer=qc.answer, text_hash=h, role=roles[h]
        )
        for h, qc in wanted.items()
        if h not in existing
    ]
    if missing:
        # bulk_create sets primary keys on PostgreSQL and on SQLite >= 3.35.
        existing.update({qc.text_hash: qc for qc in QuickCheck.objects.bulk_create(missing)})
        report.rows_written += len(missing)
    to_activate = [h for h, qc in existing.items() if h in wanted and not qc.is_active]
    to_retire = [h for h, qc in existing.items() if h not in wanted and qc.is_active]
    if to_activate:
        module.quick_checks.filter(text_hash__in=to_activate).update(is_active=True)
    if to_retire:
        module.quick_checks.filter(text_hash__in=to_retire).update(is_active=False)
    report.rows_written += len(to_activate) + len(to_retire)
    # A step added or removed can turn a line generic (or back): every wanted line's role.
    changed_roles: dict[str, list[str]] = {}
    for h, qc in existing.items():
        if h in roles and qc.role != roles[h]:
            changed_roles.setdefault(roles[h], []).append(h)
            qc.role = roles[h]
    for role, hashes in changed_roles.items():
        report.rows_written += module.quick_checks.filter(text_hash__in=hashes).update(role=role)
    return existing


def _step_write(
    module: Module,
    step: Step | None,
    row: StepRow,
    quick_checks: dict[str, QuickCheck],
    report: ImportReport,
) -> None:
    fields = row.fields()
    if step is None:
        step = Step.objects.create(module=module, **fields)
        report.steps_created += 1
    else:
        for name, value in fields.items():
            setattr(step, name, value)
        step.status = Step.Status.ACTIVE
        step.retired_at = None
        step.save()
        step.sections.all().delete()
        step.quick_check_links.all().delete()
        report.steps_updated += 1
    Section.objects.bulk_create(Section(step=step, **s.fields()) for s in row.sections)
    StepQuickCheck.objects.bulk_create(
        StepQuickCheck(step=step, quick_check=quick_checks[qc.text_hash], position=position)
        for position, qc in enumerate(row.quick_checks, start=1)
    )
    report.rows_written += 1 + len(row.sections) + len(row.quick_checks)


def _card_sync(
    row: TermCardRow, modules_by_title: dict[str, Module], report: ImportReport
) -> Module:
    module = (
        modules_by_title.get(row.module_title)
        or Module.objects.filter(title=row.module_title).first()
    )
    if module is None:
        raise DocumentError(row.path, 2, f"no module titled {row.module_title!r} is imported")
    step = module.steps.active().filter(slug=row.slug).first()
    if step is None:
        raise DocumentError(
            row.path, 2, f"module {module.slug!r} has no step with the term {row.term!r}"
        )
    card = TermCard.objects.filter(module=module, slug=row.slug).first()
    if card is not None and card.source_hash == row.source_hash and card.step_id == step.pk:
        return module
    fields = row.fields()
    if card is None:
        card = TermCard.objects.create(module=module, step=step, **fields)
        report.cards_created += 1
    else:
        for name, value in fields.items():
            setattr(card, name, value)
        card.step = step
        card.save()
        card.sections.all().delete()
        report.cards_updated += 1
    Section.objects.bulk_create(Section(card=card, **s.fields()) for s in row.sections)
    report.rows_written += 1 + len(row.sections)
    return module


def _section_values(sections) -> list[dict]:
    return [
        {
            "kind": s.kind,
            "heading": s.heading,
            "body": s.body,
            "is_truncated": s.is_truncated,
            "commands": s.commands,
        }
        for s in sections.order_by("position")
    ]


def step_refresh_content_hash(*, step: Step) -> Step:
    """Recompute a step's ETag hash from the database (after an admin edit)."""
    quick_checks = [
        (link.quick_check.question, link.quick_check.answer)
        for link in step.quick_check_links.select_related("quick_check").order_by("position")
    ]
    served = {name: getattr(step, name) for name in SERVED_STEP_FIELDS}
    content_hash = step_content_hash(served, _section_values(step.sections), quick_checks)
    if content_hash != step.content_hash:
        step.content_hash = content_hash
        step.save(update_fields=["content_hash"])
    # Also when the hash stayed: the edit may have changed what only the pages show.
    module_content_version_renew(module_ids=[step.module_id])
    return step


def quick_check_roles_refresh(*, module_id: int) -> int:
    """Decide the role of each of the module's quick checks again from the database, after an
    admin edited a step, its quick checks or a quick check's text (``courses.quick_check_roles``
    over the active steps), and renew the module's content version. Returns how many changed."""
    steps = {
        step.pk: step.definition
        for step in Step.objects.active().filter(module_id=module_id).only("id", "definition")
    }
    shown: dict[int, list[tuple[int, str, str]]] = {step_id: [] for step_id in steps}
    links = (
        StepQuickCheck.objects.filter(step_id__in=list(steps))
        .order_by("step_id", "position")
        .values_list("step_id", "quick_check_id", "quick_check__question", "quick_check__answer")
    )
    for step_id, quick_check_id, question, answer in links:
        shown[step_id].append((quick_check_id, question, answer))
    roles = quick_check_roles(
        StepChecks(definition=definition, quick_checks=tuple(shown[step_id]))
        for step_id, definition in steps.items()
    )
    changed = 0
    current = dict(QuickCheck.objects.filter(pk__in=list(roles)).values_list("pk", "role"))
    for role in set(roles.values()):
        ids = [pk for pk, new in roles.items() if new == role and current.get(pk) != role]
        if ids:
            changed += QuickCheck.objects.filter(pk__in=ids).update(role=role)
    module_content_version_renew(module_ids=[module_id])
    return changed


def card_refresh_content_hash(*, card: TermCard) -> TermCard:
    """Recompute a term card's hash (part of its step's ETag) after an admin edit."""
    served = {name: getattr(card, name) for name in SERVED_CARD_FIELDS}
    content_hash = card_content_hash(served, _section_values(card.sections))
    if content_hash != card.content_hash:
        card.content_hash = content_hash
        card.save(update_fields=["content_hash"])
    module_content_version_renew(module_ids=[card.module_id])
    return card
