"""Importing a GIFT file into a module's item bank: all or nothing, skipping questions the bank
already holds; a malformed file raises ``GiftImportFailed`` with every problem."""

from __future__ import annotations

import dataclasses
import datetime
from collections import Counter
from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from courses import api as courses_api
from lms.errors import InvalidInput
from quizzes.answers import answer_key_errors
from quizzes.gift import (
    GiftError,
    GiftItem,
    GiftMessage,
    gift_decode,
    gift_parse,
    gift_write,
    step_tag_keep,
)
from quizzes.models import ExamItem, ExamPolicy, exam_item_shape_errors
from quizzes.selectors import gift_items
from quizzes.services.items import exam_policy_get

# A bank of a thousand questions is about 200 kB of GIFT.
MAX_GIFT_BYTES = 1_000_000
MAX_GIFT_ITEMS = 2_000


class GiftImportFailed(InvalidInput):
    """The file cannot be imported; ``problems`` are ``file:line: message`` lines."""

    code = "gift_invalid"

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__(_("The GIFT file was not imported."), detail=self.problems)


@dataclasses.dataclass(frozen=True)
class GiftImportPlan:
    """What importing the file would do: the new items, those already in the bank, and the
    warnings (``file:line: message``, translated)."""

    source: str
    items: list[GiftItem]
    duplicates: list[GiftItem]
    warnings: list[str]
    # The file's text (decoded): what the admin's confirmation imports.
    text: str = dataclasses.field(repr=False, default="")
    # The module's active steps by slug, for the items that name theirs ([tag:step:<slug>]).
    step_ids: dict[str, int] = dataclasses.field(default_factory=dict)

    def kinds(self) -> list[tuple[str, int]]:
        """(kind label, count) of the new items, in the bank's order of kinds."""
        counts = Counter(item.kind for item in self.items)
        return [(label, counts[kind]) for kind, label in ExamItem.Kind.choices if counts[kind]]


@dataclasses.dataclass(frozen=True)
class GiftImportReport:
    plan: GiftImportPlan
    created: int
    approved: bool


def _render(source: str, messages: Sequence[GiftMessage]) -> list[str]:
    return [message.render(source, _) for message in messages]


def exam_items_gift_plan(*, module_id: int, data: bytes | str, source: str) -> GiftImportPlan:
    """Read the file and compare it with the module's bank; writes nothing. Raises
    ``GiftImportFailed`` for a file that is too large, not UTF-8 or malformed."""
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_GIFT_BYTES:
        raise GiftImportFailed(
            [
                _("%(source)s: the file is larger than %(limit)s kB.")
                % {"source": source, "limit": MAX_GIFT_BYTES // 1000}
            ]
        )
    try:
        text = data if isinstance(data, str) else gift_decode(data, source=source)
        parsed = gift_parse(text, source=source)
    except GiftError as error:
        raise GiftImportFailed(_render(source, error.errors)) from error
    if len(parsed.items) > MAX_GIFT_ITEMS:
        raise GiftImportFailed(
            [
                _("%(source)s: more than %(limit)s questions; split the file.")
                % {"source": source, "limit": MAX_GIFT_ITEMS}
            ]
        )
    problems = []
    for item in parsed.items:
        # The bank's own rules, as the admin's form applies them.
        for problem in exam_item_shape_errors(
            kind=item.kind, options=item.options, correct_keys=item.correct_keys
        ) + answer_key_errors(kind=item.kind, answer_key=item.answer_key):
            problems.append(f"{source}:{item.line}: {problem}")
    if problems:
        raise GiftImportFailed(problems)
    known = {
        _fingerprint(item) for item in gift_items(ExamItem.objects.filter(module_id=module_id))
    }
    new, duplicates = [], []
    for item in parsed.items:
        fingerprint = _fingerprint(item)
        (duplicates if fingerprint in known else new).append(item)
        known.add(fingerprint)
    warnings = _render(source, parsed.warnings)
    warnings += [
        _("%(source)s:%(line)s: already in the bank (or earlier in the file): skipped.")
        % {"source": source, "line": item.line}
        for item in duplicates
    ]
    step_ids = {step.slug: step.id for step in courses_api.module_steps(module_id)}
    unknown = Counter(item.step for item in new if item.step and item.step not in step_ids)
    first_line = {}
    for item in reversed(new):
        first_line[item.step] = item.line
    warnings += [
        ngettext(
            "%(source)s:%(line)s: the module has no active step “%(step)s”: %(count)s question "
            "is imported without a step (the tag stays in its comment).",
            "%(source)s:%(line)s: the module has no active step “%(step)s”: %(count)s questions "
            "are imported without a step (the tag stays in their comments).",
            count,
        )
        % {"source": source, "line": first_line[slug], "step": slug, "count": count}
        for slug, count in unknown.items()
    ]
    return GiftImportPlan(
        source=source,
        items=new,
        duplicates=duplicates,
        warnings=warnings,
        text=text,
        step_ids=step_ids,
    )


def _fingerprint(item: GiftItem) -> str:
    """Two items are the same question when GIFT writes them alike (whatever their category,
    comment and step, which learners never see)."""
    return gift_write([dataclasses.replace(item, line=0, category="", comment="", step="")])


def _review_fields(*, approved_by_id: int | None, at: datetime.datetime) -> dict:
    """The bank review state of an imported item. A person wrote it, but nobody has reviewed
    it in Lernpfad yet: a draft (the model's default) unless the admin approves on import."""
    if approved_by_id is None:
        return {}
    return {"status": "approved", "reviewed_by_id": approved_by_id, "reviewed_at": at}


@transaction.atomic
def exam_items_gift_import(
    *,
    module_id: int,
    data: bytes | str,
    source: str,
    approved_by_id: int | None = None,
    now: datetime.datetime | None = None,
) -> GiftImportReport:
    """Import the file's questions into the module's bank in one transaction: every new
    question or none (``GiftImportFailed``, nothing written)."""
    now = now or timezone.now()
    # The policy row lock serialises imports, so a file imported twice at once adds it once.
    exam_policy_get(module_id=module_id)
    ExamPolicy.objects.select_for_update().get(module_id=module_id)
    plan = exam_items_gift_plan(module_id=module_id, data=data, source=source)
    review = _review_fields(approved_by_id=approved_by_id, at=now)
    ExamItem.objects.bulk_create(
        ExamItem(
            module_id=module_id,
            kind=item.kind,
            prompt=item.prompt,
            options=item.options,
            correct_keys=item.correct_keys,
            answer_key=item.answer_key,
            explanation=item.explanation,
            title=item.title,
            text_format=item.text_format,
            answer_feedback=item.answer_feedback,
            category=item.category,
            # A step the module lacks stays a tag in the comment: exported again, nothing is lost.
            gift_comment=item.comment
            if not item.step or item.step in plan.step_ids
            else step_tag_keep(item.comment, item.step),
            step_id=plan.step_ids.get(item.step),
            origin=ExamItem.Origin.HAND_WRITTEN,
            **review,
        )
        for item in plan.items
    )
    return GiftImportReport(plan=plan, created=len(plan.items), approved=bool(review))
