"""The exam item bank and the exam policy: generating items from the content, policy defaults."""

from __future__ import annotations

import dataclasses

from django.db import transaction
from django.utils import timezone

from courses import api as courses_api
from quizzes.generator import StepSource, items_generate
from quizzes.models import ExamItem, ExamPolicy
from quizzes.services.item_review import CONTENT_FIELDS, review_fields


@dataclasses.dataclass
class GenerationReport:
    """What a regeneration changed; all zero but ``unchanged`` when the content did not change."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    retired: int = 0
    restored: int = 0
    # Approved or rejected items whose text changed: back to draft, to be reviewed again.
    returned_to_draft: int = 0

    def summary(self) -> str:
        return ", ".join(f"{k}: {v}" for k, v in dataclasses.asdict(self).items())


def exam_policy_get(*, module_id: int) -> ExamPolicy:
    """The module's exam policy, created with the defaults on first use."""
    policy, _created = ExamPolicy.objects.get_or_create(module_id=module_id)
    return policy


@transaction.atomic
def exam_items_generate(*, module_id: int) -> GenerationReport:
    """Bring the module's generated items in line with its active steps, matched by
    ``generator_key``; changed decided items return to draft, hand-written ones are untouched."""
    # The policy row lock serialises generations, so concurrent starts insert no key twice.
    exam_policy_get(module_id=module_id)
    ExamPolicy.objects.select_for_update().get(module_id=module_id)

    steps = [
        StepSource(id=s.id, slug=s.slug, number=s.number, term=s.term, definition=s.definition)
        for s in courses_api.module_steps(module_id)
    ]
    report, to_create, to_update = exam_items_changes(module_id=module_id, steps=steps)
    ExamItem.objects.bulk_create(to_create)
    if to_update:
        # bulk_update bypasses auto_now; the timestamp says when the text last changed.
        now = timezone.now()
        for item in to_update:
            item.updated_at = now
        ExamItem.objects.bulk_update(
            to_update,
            [
                "step_id",
                "kind",
                "prompt",
                "options",
                "correct_keys",
                "explanation",
                "is_retired",
                "status",
                "reviewed_by",
                "reviewed_at",
                "updated_at",
            ],
        )
    return report


def exam_items_changes(
    *, module_id: int | None, steps: list[StepSource]
) -> tuple[GenerationReport, list[ExamItem], list[ExamItem]]:
    """What ``exam_items_generate`` would do for ``steps``, written nowhere. One query; none for
    a module not yet stored."""
    wanted = {item.generator_key: item for item in items_generate(steps)}
    existing = {}
    if module_id is not None:
        existing = {
            item.generator_key: item
            for item in ExamItem.objects.filter(
                module_id=module_id, origin=ExamItem.Origin.GENERATED
            )
        }
    report = GenerationReport()
    to_create, to_update = [], []
    for key, generated in wanted.items():
        fields = {
            "step_id": generated.step_id,
            "kind": generated.kind,
            "prompt": generated.prompt,
            "options": generated.options_json(),
            "correct_keys": list(generated.correct_keys),
            "explanation": generated.explanation,
        }
        item = existing.get(key)
        if item is None:
            to_create.append(
                ExamItem(
                    module_id=module_id,
                    origin=ExamItem.Origin.GENERATED,
                    generator_key=key,
                    **fields,
                )
            )
            report.created += 1
            continue
        changed = any(getattr(item, name) != value for name, value in fields.items())
        if item.is_retired:
            report.restored += 1
        elif changed:
            report.updated += 1
        else:
            report.unchanged += 1
        if changed or item.is_retired:
            text_changed = any(getattr(item, name) != fields[name] for name in CONTENT_FIELDS)
            if text_changed and item.status != ExamItem.Status.DRAFT:
                for name, value in review_fields(
                    status=ExamItem.Status.DRAFT, reviewer_id=None, now=timezone.now()
                ).items():
                    setattr(item, name, value)
                report.returned_to_draft += 1
            for name, value in fields.items():
                setattr(item, name, value)
            item.is_retired = False
            to_update.append(item)
    for key, item in existing.items():
        if key not in wanted and not item.is_retired:
            item.is_retired = True
            to_update.append(item)
            report.retired += 1
    return report, to_create, to_update
