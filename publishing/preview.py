"""The preview of an import: the content plan joined with the learners affected and the exam
items' fate. Read only; it lives here because courses may not know of learners."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from courses import api as courses_api
from progress import api as progress_api
from publishing.models import CourseImport, ImportDocument
from quizzes import api as quizzes_api
from reviews import api as reviews_api


@dataclass(frozen=True)
class StepLearners:
    """Learners with data on one step."""

    progress: int = 0
    notes: int = 0
    cards: int = 0

    @property
    def any(self) -> bool:
        return bool(self.progress or self.notes or self.cards)


NOBODY = StepLearners()


@dataclass(frozen=True)
class ImportPreview:
    content: object  # courses' CoursePreview
    learners: dict[int, StepLearners]
    exam: dict[str, object]  # by module slug: quizzes' ExamItemsPlan
    fingerprint: str

    def learners_of(self, step_id: int | None) -> StepLearners:
        return self.learners.get(step_id, NOBODY) if step_id else NOBODY


def base_texts(slugs: Iterable[str]) -> dict[str, str]:
    """The module documents last published for these modules, by slug (one query)."""
    latest: dict[str, str] = {}
    rows = (
        ImportDocument.objects.filter(
            module_slug__in=list(slugs),
            kind=ImportDocument.Kind.MODULE,
            course_import__status=CourseImport.Status.PUBLISHED,
        )
        .order_by("module_slug", "-course_import__published_at", "-course_import_id")
        .values_list("module_slug", "text")
    )
    for slug, text in rows:
        latest.setdefault(slug, text)
    return latest


def import_preview(*, documents: Sequence[tuple[str, str | bytes]]) -> tuple[object, ImportPreview]:
    """Plan the documents and preview the plan; raises ``courses.api.DocumentErrors``.
    Returns the plan (what a publish applies) and its preview."""
    plan = courses_api.documents_plan(documents)
    bases = base_texts(m.slug for m in plan.modules)
    content = courses_api.plan_preview(plan=plan, base_texts=bases)
    touched = [step_id for module in content.modules for step_id in module.touched_step_ids]
    with_data = progress_api.learners_with_data_by_step(touched)
    with_cards = reviews_api.learners_with_cards_by_step(touched)
    learners = {
        step_id: StepLearners(
            progress=with_data.get(step_id, (0, 0))[0],
            notes=with_data.get(step_id, (0, 0))[1],
            cards=with_cards.get(step_id, 0),
        )
        for step_id in set(with_data) | set(with_cards)
    }
    exam = {
        module.slug: quizzes_api.exam_items_plan(
            module_id=module.module_id, steps=module.planned_steps
        )
        for module in content.modules
    }
    module_ids = [m.module_id for m in content.modules if m.module_id]
    exam_state = quizzes_api.exam_items_fingerprint(module_ids=module_ids)
    fingerprint = hashlib.sha256(f"{content.fingerprint}:{exam_state}".encode()).hexdigest()
    return plan, ImportPreview(
        content=content, learners=learners, exam=exam, fingerprint=fingerprint
    )


def plan_counts(preview: ImportPreview) -> dict:
    """The plan's counts per module (stored with the history)."""
    counts = {}
    for module in preview.content.modules:
        exam = preview.exam[module.slug]
        counts[module.slug] = {
            **module.counts,
            "restored": sum(1 for s in module.steps if s.restored),
            "quick_checks_added": len(module.quick_checks_added),
            "quick_checks_removed": len(module.quick_checks_removed),
            "admin_edits_overwritten": len(module.admin_edits_overwritten),
            "exam_items_created": exam.created,
            "exam_items_updated": exam.updated,
            "exam_items_retired": exam.retired,
            "exam_items_restored": exam.restored,
            "exam_items_returned_to_review": exam.returned_to_draft,
            "exam_items_reviews_restored": exam.reviews_restored,
        }
    cards = {"added": 0, "changed": 0, "retired": 0}
    for card in preview.content.cards:
        cards[card.kind] += 1
    counts["term_cards"] = cards
    return counts


def plan_lines(preview: ImportPreview) -> list[str]:
    """The plan as text: what ``import_course --dry-run`` prints and the history keeps."""
    lines = []
    for module in preview.content.modules:
        head = "new module" if module.is_new else "module"
        lines.append(f"{head} {module.slug}: {module.header}")
        if module.fields_changed:
            lines.append(f"  module fields changed: {', '.join(module.fields_changed)}")
        counts = module.counts
        lines.append("  steps: " + ", ".join(f"{kind} {counts[kind]}" for kind in counts))
        for step in module.steps:
            if step.kind == "unchanged":
                continue
            where = (
                f"{step.old_number} → {step.number}"
                if step.old_number and step.number and step.old_number != step.number
                else str(step.number or step.old_number)
            )
            note = " (brought back)" if step.restored else ""
            who = preview.learners_of(step.step_id)
            affected = (
                f"; learners with progress {who.progress}, notes {who.notes}, "
                f"review cards {who.cards}"
                if step.kind in ("changed", "retired")
                else ""
            )
            edited = "; overwrites admin edits" if step in module.admin_edits_overwritten else ""
            lines.append(f"  {step.kind} step {where}: {step.term}{note}{affected}{edited}")
            if step.kind == "changed":
                lines += [f"      {line}" for line in step.diff]
        for question in module.quick_checks_added:
            lines.append(f"  quick check added: {question}")
        for question in module.quick_checks_removed:
            lines.append(f"  quick check removed: {question}")
        exam = preview.exam[module.slug]
        lines.append(
            f"  exam items: created {exam.created}, updated {exam.updated}, "
            f"retired {exam.retired}, restored {exam.restored}, "
            f"back to review {exam.returned_to_draft}, review restored {exam.reviews_restored}"
        )
        for item in exam.returned_items:
            prompt = " ".join(item["prompt"].split())
            lines.append(
                f"    back to review: item {item['id']} ({', '.join(item['reasons'])}): {prompt}"
            )
        if exam.falls_below:
            lines.append(
                f"  approved items: {exam.approved_after} after the import (now "
                f"{exam.approved_now}), fewer than the {exam.items_per_attempt} an exam draws"
            )
    for card in preview.content.cards:
        lines.append(f"term card {card.kind}: {card.term} ({card.module_slug}, {card.path})")
    if preview.content.writes_nothing:
        lines.append("nothing to change: every document is as stored")
    return lines
