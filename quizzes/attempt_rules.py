"""An exam attempt's value types and rules (grace, finalization, final grade): plain Python,
shared by the reads and the writes so reads never depend on writes."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from quizzes.answers import item_is_correct
from quizzes.eligibility import AttemptState
from quizzes.grading import (
    CORRECT_ANSWERS,
    CORRECTNESS,
    attempt_score,
    final_grade,
    passes,
    review_level,
)

# Answers saved this long after the deadline still count: the last autosave is often in flight.
ANSWER_GRACE = datetime.timedelta(seconds=30)
# Why an attempt was finalized (the values of ``ExamResult.Reason``).
SUBMITTED, EXPIRED = "submitted", "expired"
# An attempt either can earn the certificate, or is practice (graded, never a certificate).
CERTIFYING, PRACTICE = "certifying", "practice"


class GradingPolicy(Protocol):
    """What the final grade needs of a policy (``ExamPolicy`` or ``AttemptPolicy``)."""

    grading_method: str
    pass_mark_percent: Decimal


@dataclass(frozen=True, slots=True)
class AttemptPolicy:
    """The policy fields that grade an attempt and decide what its review shows;
    ``max_attempts`` is the learner's own maximum (the policy's plus any extra attempts)."""

    grading_method: str
    pass_mark_percent: Decimal
    max_attempts: int
    review_content: str
    review_timing: str


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """An attempt's graded result (the fields of ``ExamResult`` the result view shows)."""

    score_percent: Decimal
    passed: bool
    correct_count: int
    item_count: int
    reason: str
    finalized_at: datetime.datetime


@dataclass(frozen=True, slots=True)
class LearnerAttempt:
    """One of the learner's attempts in a module, with its result once finalized."""

    id: int
    number: int
    result: AttemptResult | None
    certifying: bool = True


@dataclass(frozen=True, slots=True)
class GradedItem:
    """An attempt item as grading and the review need it (``is_correct`` None until graded);
    the result view decides how much of it the learner sees."""

    id: int
    position: int
    correct_keys: list[str]
    selected_keys: list[str] | None
    explanation: str
    is_correct: bool | None
    # The typed kinds (quizzes/answers.py): their key and the learner's typed answer or pairs.
    kind: str = ""
    answer_key: dict | None = None
    answer_text: str | None = None
    answer_pairs: dict | None = None
    # Feedback on single answers (by option key or accepted answer's index).
    answer_feedback: dict | None = None
    text_format: str = "plain"


@dataclass(frozen=True, slots=True)
class GradedAttempt:
    """An attempt graded from its saved answers: each item's outcome and the result."""

    items: list[GradedItem]
    result: AttemptResult


def seconds_left(*, deadline_at: datetime.datetime, now: datetime.datetime) -> int:
    """Whole seconds until the deadline; 0 once the attempt's time is up."""
    return max(0, int((deadline_at - now).total_seconds()))


def answers_accepted(*, deadline_at: datetime.datetime, now: datetime.datetime) -> bool:
    """Answers saved now still count: the deadline plus the grace period has not passed."""
    return now <= deadline_at + ANSWER_GRACE


def result_reason(*, deadline_at: datetime.datetime, now: datetime.datetime) -> str:
    """Why an attempt finalized now is: submitted while its answers counted, else expired."""
    return SUBMITTED if answers_accepted(deadline_at=deadline_at, now=now) else EXPIRED


def attempt_is_finalized(attempt: Any) -> bool:
    """The attempt (a ``LearnerAttempt`` or an ``ExamAttempt``) has its result."""
    return getattr(attempt, "result", None) is not None


def attempt_states(attempts: Sequence[Any]) -> list[AttemptState]:
    """What eligibility needs of each attempt."""
    return [
        AttemptState(
            number=a.number,
            finalized_at=a.result.finalized_at if attempt_is_finalized(a) else None,
            certifying=a.certifying,
        )
        for a in attempts
    ]


# --- certifying or practice --------------------------------------------------------


def exam_is_certifying(*, approved_items: int, items_per_attempt: int) -> bool:
    """An attempt started now certifies only if the approved items fill a whole attempt; else it
    is practice, drawn from the drafts and the approved items (never the rejected ones)."""
    return approved_items >= items_per_attempt


def mode_name(certifying: bool) -> str:
    return CERTIFYING if certifying else PRACTICE


def practice_review_content(review_content: str) -> str:
    """What a practice attempt's review shows at once: the policy's content, but at least which
    answers were right."""
    return CORRECT_ANSWERS if review_content == CORRECT_ANSWERS else CORRECTNESS


def attempt_review_level(
    *, policy: AttemptPolicy, certifying: bool, attempts: Sequence[Any]
) -> str:
    """What the learner may see now of a finalized attempt beyond its score. An open attempt
    of either mode holds back "after the last attempt": practice draws from the same items."""
    if not certifying:
        return practice_review_content(policy.review_content)
    _grade, final_passed = final_score(policy=policy, attempts=attempts)
    used = sum(1 for a in attempts if a.certifying)
    return review_level(
        content=policy.review_content,
        timing=policy.review_timing,
        final_passed=final_passed,
        attempts_left=policy.max_attempts - used,
        attempt_in_progress=not all(attempt_is_finalized(a) for a in attempts),
    )


def final_score(*, policy: GradingPolicy, attempts: Sequence[Any]) -> tuple[Decimal | None, bool]:
    """(final grade, passed) over the finalized certifying attempts, by the policy's grading
    method: practice attempts never count towards the grade or the certificate."""
    scores = [a.result.score_percent for a in attempts if attempt_is_finalized(a) and a.certifying]
    grade = final_grade(method=policy.grading_method, scores=scores)
    passed = grade is not None and passes(
        score_percent=grade, pass_mark_percent=policy.pass_mark_percent
    )
    return grade, passed


def attempts_with_result(
    attempts: Sequence[LearnerAttempt], *, attempt_id: int, result: AttemptResult
) -> list[LearnerAttempt]:
    """The learner's attempts with ``result`` as the result of attempt ``attempt_id``."""
    return [dataclasses.replace(a, result=result) if a.id == attempt_id else a for a in attempts]


def attempt_grade(
    *,
    items: Sequence[GradedItem],
    pass_mark_percent: Decimal,
    reason: str,
    at: datetime.datetime,
) -> GradedAttempt:
    """Grade the attempt's items from their saved answers, and the attempt from its items."""
    graded = [
        dataclasses.replace(
            item,
            is_correct=item_is_correct(
                kind=item.kind,
                correct_keys=item.correct_keys,
                answer_key=item.answer_key,
                selected_keys=item.selected_keys,
                answer_text=item.answer_text,
                answer_pairs=item.answer_pairs,
            ),
        )
        for item in items
    ]
    score = attempt_score([item.is_correct for item in graded])
    return GradedAttempt(
        items=graded,
        result=AttemptResult(
            score_percent=score.score_percent,
            passed=passes(score_percent=score.score_percent, pass_mark_percent=pass_mark_percent),
            correct_count=score.correct_count,
            item_count=score.item_count,
            reason=reason,
            finalized_at=at,
        ),
    )
