"""What an import would change, read before anything is written (reads only, fixed queries).

``plan_preview`` classifies each step with the importer's own rule (skipped when its block's
``source_hash`` and number are unchanged), so preview and import cannot disagree;
``content_fingerprint`` lets a publish refuse a plan whose stored content changed since.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from courses.content_plan import (
    CoursePlan,
    ModuleRow,
    StepRow,
    TermCardRow,
    plan_documents,
    plan_module,
    render_step_lines,
)
from courses.documents import (
    DocumentError,
    ModuleDoc,
    gettext_noop,
    parse_document,
    sha256_lines,
)
from courses.models import Module, QuickCheck, Section, Step, StepQuickCheck, TermCard
from courses.repetition import RepetitionReport, StepText, repetition_report

ADDED = "added"
CHANGED = "changed"
UNCHANGED = "unchanged"
RENUMBERED = "renumbered"
RETIRED = "retired"
STEP_KINDS = (ADDED, CHANGED, RENUMBERED, UNCHANGED, RETIRED)


@dataclass(frozen=True)
class StepChange:
    """One step of a module and what the import does to it."""

    kind: str
    slug: str
    term: str
    number: int | None  # in the new document (None: retired)
    old_number: int | None  # as stored (None: new)
    step_id: int | None  # the stored step (None: new)
    restored: bool = False  # a retired step the document brings back
    diff: tuple[str, ...] = ()  # unified line diff of the document block (changed steps)
    admin_edited: bool = False  # stored content differs from what was imported


@dataclass(frozen=True)
class CardChange:
    kind: str  # added, changed, retired (its step leaves the course)
    term: str
    module_slug: str
    path: str


@dataclass(frozen=True)
class ModulePreview:
    slug: str
    header: str
    module_id: int | None
    is_new: bool
    fields_changed: tuple[str, ...]
    steps: tuple[StepChange, ...]
    quick_checks_added: tuple[str, ...]  # "question answer", as the document line reads
    quick_checks_removed: tuple[str, ...]
    # The active steps after the import, as the exam generator reads them.
    planned_steps: tuple[PlannedStep, ...] = field(default=())
    # Sections word for word the same across steps, questions asked by several steps.
    repetition: RepetitionReport = field(default_factory=RepetitionReport)

    def count(self, kind: str) -> int:
        return sum(1 for step in self.steps if step.kind == kind)

    @property
    def counts(self) -> dict[str, int]:
        return {kind: self.count(kind) for kind in STEP_KINDS}

    @property
    def admin_edits_overwritten(self) -> tuple[StepChange, ...]:
        return tuple(s for s in self.steps if s.admin_edited and s.kind in (CHANGED, RENUMBERED))

    @property
    def touched_step_ids(self) -> tuple[int, ...]:
        """Stored steps the import changes or retires (whose learners the preview counts)."""
        return tuple(s.step_id for s in self.steps if s.step_id and s.kind in (CHANGED, RETIRED))


@dataclass(frozen=True)
class PlannedStep:
    """An active step after the import (``step_id`` None for a step not yet stored)."""

    step_id: int | None
    slug: str
    number: int
    term: str
    definition: str


@dataclass(frozen=True)
class CoursePreview:
    modules: tuple[ModulePreview, ...]
    cards: tuple[CardChange, ...]
    fingerprint: str

    @property
    def writes_nothing(self) -> bool:
        return not self.cards and all(
            not m.is_new
            and not m.fields_changed
            and not m.quick_checks_added
            and not m.quick_checks_removed
            and all(s.kind == UNCHANGED for s in m.steps)
            for m in self.modules
        )


class DocumentErrors(Exception):
    """Every problem found in a set of uploaded documents (``file:line: reason`` each)."""

    def __init__(self, errors: Iterable[DocumentError]) -> None:
        self.errors = tuple(errors)
        super().__init__("; ".join(str(error) for error in self.errors))


def documents_plan(documents: Iterable[tuple[str, bytes | str]]) -> CoursePlan:
    """Parse and plan named documents; ``DocumentErrors`` lists every broken one, not the first."""
    docs, errors = [], []
    for name, data in documents:
        try:
            docs.append(parse_document(data, path=name))
        except DocumentError as error:
            errors.append(error)
    if errors:
        raise DocumentErrors(errors)
    try:
        return plan_documents(docs)
    except DocumentError as error:
        raise DocumentErrors([error]) from error


@dataclass
class _Stored:
    """The stored rows an import of these modules reads."""

    modules: dict[str, Module]
    steps: dict[int, list[Step]]  # by module id
    sections: dict[int, list[Section]]  # by step id
    links: dict[int, list[tuple[str, str]]]  # by step id: (question, answer) in order
    quick_checks: dict[int, list[QuickCheck]]  # by module id
    cards: dict[tuple[int, str], TermCard]  # by (module id, slug)
    modules_by_title: dict[str, Module]


def _stored(plan: CoursePlan) -> _Stored:
    """Six queries, whatever the plan holds."""
    slugs = [m.slug for m in plan.modules]
    titles = {c.module_title for c in plan.cards}
    modules = list(Module.objects.filter(slug__in=slugs) | Module.objects.filter(title__in=titles))
    module_ids = [m.pk for m in modules]
    steps: dict[int, list[Step]] = defaultdict(list)
    for step in Step.objects.filter(module_id__in=module_ids).order_by("module_id", "number", "pk"):
        steps[step.module_id].append(step)
    sections: dict[int, list[Section]] = defaultdict(list)
    for section in Section.objects.filter(step__module_id__in=module_ids).order_by(
        "step_id", "position"
    ):
        sections[section.step_id].append(section)
    links: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for step_id, question, answer in (
        StepQuickCheck.objects.filter(step__module_id__in=module_ids)
        .order_by("step_id", "position")
        .values_list("step_id", "quick_check__question", "quick_check__answer")
    ):
        links[step_id].append((question, answer))
    quick_checks: dict[int, list[QuickCheck]] = defaultdict(list)
    for qc in QuickCheck.objects.filter(module_id__in=module_ids).order_by("pk"):
        quick_checks[qc.module_id].append(qc)
    cards = {
        (card.module_id, card.slug): card
        for card in TermCard.objects.filter(module_id__in=module_ids).select_related("step")
    }
    return _Stored(
        modules={m.slug: m for m in modules},
        steps=steps,
        sections=sections,
        links=links,
        quick_checks=quick_checks,
        cards=cards,
        modules_by_title={m.title: m for m in modules},
    )


def stored_step_lines(step: Step | StepRow, sections: Iterable) -> list[str]:
    """The step's document block from a stored step or a planned one, and its sections."""
    fields = {name: getattr(step, name) for name in ("number", "total", "term", "lead", "level")}
    return render_step_lines(
        {**fields, "footer": step.footer},
        [{"heading": s.heading, "body": s.body} for s in sections],
    )


def _admin_edited(step: Step, stored_lines: list[str], base: StepRow | None) -> bool:
    """Did an admin edit the step since its import? Exact with the last published document
    (``base``), else judged by the stored text rendered back against the imported hash."""
    if base is not None and base.number == step.number:
        return base.content_hash != step.content_hash
    return sha256_lines(stored_lines) != step.source_hash


def _base_rows(base_texts: Mapping[str, str]) -> dict[str, dict[str, StepRow]]:
    rows: dict[str, dict[str, StepRow]] = {}
    for slug, text in base_texts.items():
        try:
            doc = parse_document(text, path=slug)
        except DocumentError:
            continue  # parsed by an older parser: no base
        if isinstance(doc, ModuleDoc):
            module_row = plan_module(doc)
            rows[module_row.slug] = {s.slug: s for s in module_row.steps}
    return rows


def _module_preview(
    row: ModuleRow, stored: _Stored, base: Mapping[str, StepRow]
) -> tuple[ModulePreview, set[int]]:
    module = stored.modules.get(row.slug)
    existing = {s.slug: s for s in stored.steps.get(module.pk, [])} if module else {}
    changes: list[StepChange] = []
    for step_row in row.steps:
        step = existing.get(step_row.slug)
        if step is None:
            changes.append(
                StepChange(ADDED, step_row.slug, step_row.term, step_row.number, None, None)
            )
            continue
        old_lines = stored_step_lines(step, stored.sections.get(step.pk, []))
        edited = _admin_edited(step, old_lines, base.get(step.slug))
        common = dict(
            slug=step_row.slug,
            term=step_row.term,
            number=step_row.number,
            old_number=step.number,
            step_id=step.pk,
            admin_edited=edited,
        )
        if not step.is_active:
            changes.append(StepChange(ADDED, restored=True, **common))
        elif step.source_hash == step_row.source_hash and step.number == step_row.number:
            changes.append(StepChange(UNCHANGED, **common))
        else:
            new_lines = stored_step_lines(step_row, step_row.sections)
            links = [(q.question, q.answer) for q in step_row.quick_checks]
            if old_lines[1:] == new_lines[1:] and stored.links.get(step.pk, []) == links:
                changes.append(StepChange(RENUMBERED, **common))
            else:
                diff = tuple(
                    line.rstrip("\n")
                    for line in difflib.unified_diff(
                        old_lines, new_lines, "stored", "document", n=1, lineterm=""
                    )
                )[2:]
                changes.append(StepChange(CHANGED, diff=diff, **common))
    kept = {s.slug for s in row.steps}
    retired_ids = set()
    for slug, step in existing.items():
        if slug not in kept and step.is_active:
            retired_ids.add(step.pk)
            changes.append(StepChange(RETIRED, slug, step.term, None, step.number, step.pk))
    wanted: dict[str, str] = {}
    for step_row in row.steps:
        for qc in step_row.quick_checks:
            wanted.setdefault(qc.text_hash, f"{qc.question} {qc.answer}")
    active = {
        qc.text_hash: f"{qc.question} {qc.answer}"
        for qc in (stored.quick_checks.get(module.pk, []) if module else [])
        if qc.is_active
    }
    fields_changed: tuple[str, ...] = ()
    if module is not None:
        fields_changed = tuple(
            name
            for name, value in row.fields().items()
            if name != "exam_block_count" and getattr(module, name) != value
        )
    planned = tuple(
        PlannedStep(
            step_id=existing[s.slug].pk if s.slug in existing else None,
            slug=s.slug,
            number=s.number,
            term=s.term,
            definition=s.definition,
        )
        for s in row.steps
    )
    preview = ModulePreview(
        slug=row.slug,
        header=row.header,
        module_id=module.pk if module else None,
        is_new=module is None,
        fields_changed=fields_changed,
        steps=tuple(sorted(changes, key=lambda c: (c.number or 10**9, c.old_number or 0))),
        quick_checks_added=tuple(q for h, q in wanted.items() if h not in active),
        quick_checks_removed=tuple(q for h, q in active.items() if h not in wanted),
        planned_steps=planned,
        repetition=repetition_report(
            StepText(
                sections=[(section.heading, section.body) for section in s.sections],
                questions=[qc.question for qc in s.quick_checks],
                term=s.term,
                definition=s.definition,
            )
            for s in row.steps
        ),
    )
    return preview, retired_ids


def _card_changes(
    cards: Iterable[TermCardRow], stored: _Stored, plan: CoursePlan, retired_ids: set[int]
) -> list[CardChange]:
    """The cards the import adds, rewrites or retires; a card without its module or step is a
    document error, as in the importer."""
    planned_by_title = {m.title: m for m in plan.modules}
    changes, errors = [], []
    for row in cards:
        planned = planned_by_title.get(row.module_title)
        module = stored.modules_by_title.get(row.module_title)
        if planned is not None:
            module = stored.modules.get(planned.slug)
            step_slugs = {s.slug for s in planned.steps}
            module_slug = planned.slug
        elif module is not None:
            step_slugs = {s.slug for s in stored.steps.get(module.pk, []) if s.is_active}
            module_slug = module.slug
        else:
            errors.append(
                DocumentError(
                    row.path,
                    2,
                    gettext_noop("no module titled %(title)s is imported"),
                    {"title": repr(row.module_title)},
                )
            )
            continue
        if row.slug not in step_slugs:
            errors.append(
                DocumentError(
                    row.path,
                    2,
                    gettext_noop("module %(slug)s has no step with the term %(term)s"),
                    {"slug": repr(module_slug), "term": repr(row.term)},
                )
            )
            continue
        card = stored.cards.get((module.pk, row.slug)) if module else None
        if card is None:
            changes.append(CardChange(ADDED, row.term, module_slug, row.source_path))
        elif card.source_hash != row.source_hash or card.step.slug != row.slug:
            changes.append(CardChange(CHANGED, row.term, module_slug, row.source_path))
    if errors:
        raise DocumentErrors(errors)
    for (_module_id, _slug), card in stored.cards.items():
        if card.step_id in retired_ids:
            changes.append(CardChange(RETIRED, card.term, card.step.module.slug, card.source_path))
    return changes


def plan_preview(*, plan: CoursePlan, base_texts: Mapping[str, str] | None = None) -> CoursePreview:
    """What importing ``plan`` would change; ``base_texts`` (the documents last published, by
    module slug) tell admin edits apart exactly."""
    stored = _stored(plan)
    bases = _base_rows(base_texts or {})
    modules, retired_ids = [], set()
    for row in plan.modules:
        preview, retired = _module_preview(row, stored, bases.get(row.slug, {}))
        modules.append(preview)
        retired_ids |= retired
    cards = _card_changes(plan.cards, stored, plan, retired_ids)
    return CoursePreview(
        modules=tuple(modules), cards=tuple(cards), fingerprint=_fingerprint(plan, stored)
    )


def content_fingerprint(*, plan: CoursePlan) -> str:
    """The hash of the plan and of every stored value its import reads (six queries)."""
    return _fingerprint(plan, _stored(plan))


def _fingerprint(plan: CoursePlan, stored: _Stored) -> str:
    digest = hashlib.sha256()

    def put(value) -> None:
        digest.update(json.dumps(value, default=str, ensure_ascii=False).encode("utf-8"))
        digest.update(b"\x1e")

    for row in plan.modules:
        put([row.fields(), [(s.slug, s.source_hash, s.content_hash) for s in row.steps]])
    for card in plan.cards:
        put([card.module_title, card.slug, card.source_hash])
    for slug in sorted(stored.modules):
        module = stored.modules[slug]
        put([module.pk, {name: getattr(module, name) for name in _MODULE_FIELDS}])
        for step in stored.steps.get(module.pk, []):
            put([step.pk, step.slug, step.number, step.status, step.source_hash, step.content_hash])
        for qc in stored.quick_checks.get(module.pk, []):
            put([qc.pk, qc.text_hash, qc.is_active, qc.role])
    for key in sorted(stored.cards):
        card = stored.cards[key]
        put([card.pk, card.slug, card.step_id, card.source_hash, card.content_hash])
    return digest.hexdigest()


_MODULE_FIELDS = (
    "slug",
    "series",
    "number",
    "title",
    "header",
    "source_path",
    "exam_header",
    "exam_heading",
    "exam_blocks",
)
