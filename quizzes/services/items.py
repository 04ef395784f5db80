"""The exam item bank and the exam policy: generating items from the content, policy defaults."""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import re

from django.db import transaction
from django.utils import timezone

from courses import api as courses_api
from quizzes.generator import StepSource, items_generate
from quizzes.models import ExamItem, ExamPolicy
from quizzes.services.item_review import CONTENT_FIELDS, review_fields

# Generated explanations once ended with "(Schritt N)": a step's number is no part of what an
# approval vouches for, so a stored text that still carries one compares equal without it.
_STEP_REFERENCE = re.compile(r"\s*\(Schritt \d+\)")


@dataclasses.dataclass
class GenerationReport:
    """What a regeneration changed; all zero but ``unchanged`` when the content did not change."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    retired: int = 0
    restored: int = 0
    # Approved or rejected items whose content changed: back to draft, to be reviewed again.
    returned_to_draft: int = 0
    # Drafts whose content is again what their last decision vouched for: the decision is back.
    reviews_restored: int = 0
    # Approved, drawable items leaving the approved bank (back to review or retired), and
    # items joining it (approval restored, an approved retired item back).
    approved_lost: int = 0
    approved_gained: int = 0
    # Per item returned to review: id, key, prompt, its decision and the fields that changed.
    returned_items: list[dict] = dataclasses.field(default_factory=list)

    def summary(self) -> str:
        return ", ".join(
            f"{k}: {v}" for k, v in dataclasses.asdict(self).items() if k != "returned_items"
        )


def content_substance(values: dict) -> dict:
    """What an approval vouches for: what a learner sees and how it is graded. The explanation
    counts without step numbers and with its spaces collapsed."""
    substance = {name: values[name] for name in CONTENT_FIELDS}
    explanation = _STEP_REFERENCE.sub("", values["explanation"] or "")
    substance["explanation"] = " ".join(explanation.split())
    return substance


def content_hash(values: dict) -> str:
    """A hash of the content's substance (``content_substance``)."""
    text = json.dumps(content_substance(values), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _in_approved_bank(item: ExamItem) -> bool:
    return item.is_active and not item.is_retired and item.status == ExamItem.Status.APPROVED


def exam_policy_get(*, module_id: int) -> ExamPolicy:
    """The module's exam policy, created with the defaults on first use."""
    policy, _created = ExamPolicy.objects.get_or_create(module_id=module_id)
    return policy


@transaction.atomic
def exam_items_generate(*, module_id: int) -> GenerationReport:
    """Bring the module's generated items in line with its active steps, matched by
    ``generator_key``; decided items whose content changed in substance return to draft (their
    decision kept, to come back with that content), hand-written ones are untouched."""
    # The policy row lock serialises generations, so concurrent starts insert no key twice.
    exam_policy_get(module_id=module_id)
    ExamPolicy.objects.select_for_update().get(module_id=module_id)

    steps = [
        StepSource(id=s.id, slug=s.slug, number=s.number, term=s.term, definition=s.definition)
        for s in courses_api.module_steps(module_id)
    ]
    report, to_create, to_update = exam_items_changes(module_id=module_id, steps=steps)
    # A restored decision keeps its reviewer only while the account exists.
    reviewer_ids = {item.reviewed_by_id for item in to_update if item.reviewed_by_id}
    if reviewer_ids:
        users = ExamItem._meta.get_field("reviewed_by").related_model.objects
        known = set(users.filter(pk__in=reviewer_ids).values_list("pk", flat=True))
        for item in to_update:
            if item.reviewed_by_id not in known:
                item.reviewed_by_id = None
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
                "review_before_change",
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
            was_approved = _in_approved_bank(item)
            current = {name: getattr(item, name) for name in CONTENT_FIELDS}
            old, new = content_substance(current), content_substance(fields)
            reasons = [name for name in CONTENT_FIELDS if old[name] != new[name]]
            memory = item.review_before_change or {}
            if reasons and item.status != ExamItem.Status.DRAFT:
                report.returned_items.append(
                    {
                        "id": item.pk,
                        "generator_key": key,
                        "prompt": item.prompt,
                        "status": item.status,
                        "reasons": reasons,
                    }
                )
                decision = {
                    "status": item.status,
                    "reviewed_by_id": item.reviewed_by_id,
                    "reviewed_at": item.reviewed_at.isoformat() if item.reviewed_at else None,
                    "content": content_hash(current),
                }
                for name, value in review_fields(
                    status=ExamItem.Status.DRAFT, reviewer_id=None, now=timezone.now()
                ).items():
                    setattr(item, name, value)
                item.review_before_change = decision
                report.returned_to_draft += 1
            elif item.status == ExamItem.Status.DRAFT and memory.get("content") == content_hash(
                fields
            ):
                # The content is again what the last decision vouched for (an undo).
                item.status = memory["status"]
                item.reviewed_by_id = memory["reviewed_by_id"]
                item.reviewed_at = (
                    datetime.datetime.fromisoformat(memory["reviewed_at"])
                    if memory["reviewed_at"]
                    else None
                )
                item.review_before_change = {}
                report.reviews_restored += 1
            for name, value in fields.items():
                setattr(item, name, value)
            item.is_retired = False
            now_approved = _in_approved_bank(item)
            report.approved_lost += was_approved and not now_approved
            report.approved_gained += now_approved and not was_approved
            to_update.append(item)
    for key, item in existing.items():
        if key not in wanted and not item.is_retired:
            report.approved_lost += _in_approved_bank(item)
            item.is_retired = True
            to_update.append(item)
            report.retired += 1
    return report, to_create, to_update
