"""An exam attempt's value types and the rules that read them: plain Python, no Django.

Starting, saving answers, finalizing and every read of an attempt share these: how long answers
still count after the deadline, when an attempt is finalized, and the final grade over a
learner's attempts. The reads and the writes both import them from here, so the reads never
depend on the writes.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from quizzes.eligibility import AttemptState
from quizzes.grading import final_grade, passes

# Answers saved up to this long after the deadline still count: the last autosave of a learner
# whose time ran out is usually on its way when the clock strikes.
ANSWER_GRACE = datetime.timedelta(seconds=30)


class GradingPolicy(Protocol):
    """What the final grade needs of a policy (``ExamPolicy`` or ``AttemptPolicy``)."""

    grading_method: str
    pass_mark_percent: Decimal


@dataclass(frozen=True, slots=True)
class AttemptPolicy:
    """The policy fields that grade an attempt and decide what its review shows."""

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


@dataclass(slots=True)
class LearnerAttempt:
    """One of the learner's attempts in a module, with its result once finalized."""

    id: int
    number: int
    result: AttemptResult | None


@dataclass(slots=True)
class GradedItem:
    """An attempt item as grading and the review need it; the result view decides how much of
    it the learner sees."""

    id: int
    position: int
    correct_keys: list[str]
    selected_keys: list[str] | None
    explanation: str
    is_correct: bool | None


def attempt_is_finalized(attempt: Any) -> bool:
    """The attempt (a ``LearnerAttempt`` or an ``ExamAttempt``) has its result."""
    return getattr(attempt, "result", None) is not None


def attempt_states(attempts: Sequence[Any]) -> list[AttemptState]:
    """What eligibility needs of each attempt."""
    return [
        AttemptState(
            number=a.number,
            finalized_at=a.result.finalized_at if attempt_is_finalized(a) else None,
        )
        for a in attempts
    ]


def final_score(*, policy: GradingPolicy, attempts: Sequence[Any]) -> tuple[Decimal | None, bool]:
    """(final grade, passed) over the finalized attempts, by the policy's grading method."""
    scores = [a.result.score_percent for a in attempts if attempt_is_finalized(a)]
    grade = final_grade(method=policy.grading_method, scores=scores)
    passed = grade is not None and passes(
        score_percent=grade, pass_mark_percent=policy.pass_mark_percent
    )
    return grade, passed
