"""Saving an attempt's answers (autosave): all or nothing, until the deadline plus the grace,
under the attempt's row lock so a save never interleaves with finalization."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from lms.errors import Conflict, InvalidInput, NotFound
from quizzes.answers import (
    MAX_ANSWER_TEXT,
    MAX_NUMBER_TEXT,
    TYPED_KINDS,
    NumberFormatError,
    item_is_answered,
    number_parse,
)
from quizzes.attempt_rules import answers_accepted
from quizzes.models import ExamAttempt, ExamAttemptItem, ExamItem, ExamResult


@dataclass(frozen=True)
class SavedAnswers:
    attempt: ExamAttempt
    saved_count: int
    answered_count: int
    saved_at: datetime.datetime


def exam_attempt_answers_save(
    *,
    learner_id: int,
    attempt_id: int,
    answers: Sequence[dict],
    now: datetime.datetime | None = None,
) -> SavedAnswers:
    """Save some or all answers, all or nothing: any problem (400, each in ``detail``) saves
    nothing; after the deadline plus grace or once finalized, 409."""
    now = now or timezone.now()
    with transaction.atomic():
        attempt = (
            ExamAttempt.objects.select_for_update()
            .filter(pk=attempt_id, learner_id=learner_id)
            .first()
        )
        if attempt is None:
            raise NotFound(_("There is no such exam attempt."), code="attempt_not_found")
        # A separate query after the lock: it sees a result committed while we waited for it.
        if ExamResult.objects.filter(attempt_id=attempt.pk).exists():
            raise Conflict(_("This attempt is finalized."), code="attempt_finalized")
        if not answers_accepted(deadline_at=attempt.deadline_at, now=now):
            raise Conflict(
                _("The time for this attempt is up; answers can no longer be saved."),
                code="deadline_passed",
                detail={"deadline_at": attempt.deadline_at.isoformat()},
            )
        items = {
            item.pk: item
            for item in ExamAttemptItem.objects.filter(attempt_id=attempt.pk).only(
                "id",
                "attempt_id",
                "position",
                "kind",
                "options",
                "choices",
                "selected_keys",
                "answer_text",
                "answer_pairs",
                "answered_at",
            )
        }
        problems = _answer_problems(answers=answers, items=items)
        if problems:
            raise InvalidInput(_("Some answers are not valid; nothing was saved."), detail=problems)
        changed = []
        for answer in answers:
            item = items[answer["item"]]
            if item.kind in TYPED_KINDS:
                _typed_answer_set(item, answer)
            else:
                order = [option["key"] for option in item.options]
                item.selected_keys = sorted(set(answer["selected"]), key=order.index)
            item.answered_at = now
            changed.append(item)
        if changed:
            ExamAttemptItem.objects.bulk_update(
                changed, ["selected_keys", "answer_text", "answer_pairs", "answered_at"]
            )
    answered = sum(
        1
        for item in items.values()
        if item_is_answered(
            kind=item.kind,
            option_count=len(item.options),
            selected_keys=item.selected_keys,
            answer_text=item.answer_text,
            answer_pairs=item.answer_pairs,
        )
    )
    return SavedAnswers(
        attempt=attempt, saved_count=len(changed), answered_count=answered, saved_at=now
    )


def _answer_problems(*, answers: Sequence[dict], items: dict[int, ExamAttemptItem]) -> list[dict]:
    problems = []
    seen: set[int] = set()
    for index, answer in enumerate(answers):
        item = items.get(answer["item"])
        if item is None:
            problems.append({"index": index, "code": "unknown_item", "item": answer["item"]})
            continue
        if answer["item"] in seen:
            problems.append({"index": index, "code": "duplicate_item", "item": answer["item"]})
            continue
        seen.add(answer["item"])
        field = _ANSWER_FIELDS.get(item.kind, "selected")
        given = [name for name in _ANSWER_FIELDS_ALL if answer.get(name) is not None]
        if given != [field]:
            problems.append(_wrong_field_problem(index, item, field))
            continue
        if item.kind in TYPED_KINDS:
            problem = _typed_answer_problem(index, item, answer)
            if problem:
                problems.append(problem)
            continue
        keys = {option["key"] for option in item.options}
        unknown = sorted(set(answer["selected"]) - keys)
        if unknown:
            problems.append(
                {"index": index, "code": "unknown_option", "item": item.pk, "keys": unknown}
            )
        elif item.kind != ExamItem.Kind.MULTIPLE_CHOICE and len(set(answer["selected"])) > 1:
            problems.append({"index": index, "code": "one_option_only", "item": item.pk})
    return problems


# --- the typed kinds (quizzes/answers.py) -------------------------------------------------------

# The answer field of each kind; the choice kinds take "selected".
_ANSWER_FIELDS = {
    ExamItem.Kind.SHORT_ANSWER: "text",
    ExamItem.Kind.NUMERICAL: "number",
    ExamItem.Kind.MATCHING: "pairs",
}
_ANSWER_FIELDS_ALL = ("selected", "text", "number", "pairs")


def _wrong_field_problem(index: int, item: ExamAttemptItem, field: str) -> dict:
    return {
        "index": index,
        "code": "wrong_answer_field",
        "item": item.pk,
        "expected": field,
        "message": _("Question %(position)s takes its answer in “%(field)s”.")
        % {"position": item.position, "field": field},
    }


def _typed_answer_problem(index: int, item: ExamAttemptItem, answer: dict) -> dict | None:
    """What is wrong with a typed answer (None: fine). A non-number is refused, not graded
    wrong: "7,5 GB" is a slip the learner can still correct."""
    problem = {"index": index, "item": item.pk}
    if item.kind == ExamItem.Kind.SHORT_ANSWER:
        if len(answer["text"]) > MAX_ANSWER_TEXT:
            return {
                **problem,
                "code": "text_too_long",
                "message": _("Question %(position)s: at most %(limit)s characters.")
                % {"position": item.position, "limit": MAX_ANSWER_TEXT},
            }
        return None
    if item.kind == ExamItem.Kind.NUMERICAL:
        if not answer["number"].strip():
            return None  # clears the answer
        try:
            number_parse(answer["number"])
        except NumberFormatError as exc:
            return {
                **problem,
                "code": "invalid_number",
                "reason": exc.code,
                **_number_message(item.position, answer["number"], exc.code),
            }
        return None
    options = {option["key"] for option in item.options}
    choices = {choice["key"] for choice in item.choices or []}
    paired = [pair["option"] for pair in answer["pairs"]]
    unknown_options = sorted(set(paired) - options)
    unknown_choices = sorted({pair["choice"] for pair in answer["pairs"]} - choices)
    if unknown_options or unknown_choices:
        return {
            **problem,
            "code": "unknown_option" if unknown_options else "unknown_choice",
            "keys": unknown_options or unknown_choices,
        }
    if len(set(paired)) != len(paired):
        return {**problem, "code": "duplicate_option", "keys": sorted(set(paired))}
    return None


def _number_message(position: int, text: str, reason: str) -> dict:
    if reason == "too_long":
        message = _("Question %(position)s: this number is too long.") % {"position": position}
    else:
        message = _(
            "Question %(position)s: “%(text)s” is not a number. Write only the number, with a "
            "decimal comma or point (7,5 or 7.5)."
        ) % {"position": position, "text": text.strip()[:MAX_NUMBER_TEXT]}
    return {"message": message}


def _typed_answer_set(item: ExamAttemptItem, answer: dict) -> None:
    """Store a checked typed answer on the item; an empty one clears it (NULL)."""
    if item.kind == ExamItem.Kind.MATCHING:
        order = [option["key"] for option in item.options]
        pairs = sorted(answer["pairs"], key=lambda pair: order.index(pair["option"]))
        item.answer_pairs = {pair["option"]: pair["choice"] for pair in pairs} or None
        return
    field = _ANSWER_FIELDS[item.kind]
    item.answer_text = answer[field].strip() or None
