"""Grading arithmetic (all or nothing per item, score rounded half up), review visibility: plain
Python (item statistics: quizzes/item_analysis.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

HIGHEST, LAST, FIRST, AVERAGE = "highest", "last", "first", "average"
SCORE_ONLY, CORRECTNESS, CORRECT_ANSWERS = "score_only", "correctness", "correct_answers"
IMMEDIATELY, AFTER_PASSING, AFTER_LAST_ATTEMPT = (
    "immediately",
    "after_passing",
    "after_last_attempt",
)
_CENT = Decimal("0.01")


@dataclass(frozen=True)
class AttemptScore:
    correct_count: int
    item_count: int
    score_percent: Decimal


def answer_is_correct(*, correct_keys: Iterable[str], selected_keys: Iterable[str] | None) -> bool:
    """Exactly the correct keys selected (no answer is wrong)."""
    if not selected_keys:
        return False
    return set(selected_keys) == set(correct_keys)


def attempt_score(outcomes: Sequence[bool]) -> AttemptScore:
    """The score of an attempt from its items' outcomes."""
    correct = sum(1 for outcome in outcomes if outcome)
    total = len(outcomes)
    percent = Decimal(0) if total == 0 else Decimal(100 * correct) / Decimal(total)
    return AttemptScore(
        correct_count=correct,
        item_count=total,
        score_percent=percent.quantize(_CENT, rounding=ROUND_HALF_UP),
    )


def passes(*, score_percent: Decimal, pass_mark_percent: Decimal) -> bool:
    return score_percent >= pass_mark_percent


def final_grade(*, method: str, scores: Sequence[Decimal]) -> Decimal | None:
    """The module grade from the finalized attempts' scores (in attempt order); None if none."""
    if not scores:
        return None
    if method == HIGHEST:
        return max(scores)
    if method == LAST:
        return scores[-1]
    if method == FIRST:
        return scores[0]
    if method == AVERAGE:
        return (sum(scores, Decimal(0)) / len(scores)).quantize(_CENT, rounding=ROUND_HALF_UP)
    raise ValueError(f"unknown grading method {method!r}")


def review_level(
    *,
    content: str,
    timing: str,
    final_passed: bool,
    attempts_left: int,
    attempt_in_progress: bool = False,
) -> str:
    """What a learner may see of a finalized attempt beyond its score; "after the last attempt"
    waits until that attempt is finalized, as attempts share bank items."""
    if timing == IMMEDIATELY:
        due = True
    elif timing == AFTER_PASSING:
        due = final_passed
    elif timing == AFTER_LAST_ATTEMPT:
        due = final_passed or (attempts_left <= 0 and not attempt_in_progress)
    else:
        raise ValueError(f"unknown review timing {timing!r}")
    return content if due else SCORE_ONLY
