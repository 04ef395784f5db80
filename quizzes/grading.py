"""Grading arithmetic (all or nothing per item, score rounded half up), review visibility and
item statistics: plain Python."""

from __future__ import annotations

import math
from collections import defaultdict
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
# Share of learners in the upper and in the lower group of the discrimination index (Kelley).
DISCRIMINATION_GROUP_SHARE = 0.27
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


@dataclass(frozen=True)
class ItemResponse:
    """One finalized answer to a bank item, with the attempt it belongs to."""

    item_id: int
    learner_id: int
    attempt_number: int
    attempt_score: Decimal
    is_correct: bool


@dataclass(frozen=True)
class ItemStatistic:
    answered: int
    correct_share: float | None
    discrimination: float | None


def item_statistics(responses: Iterable[ItemResponse]) -> dict[int, ItemStatistic]:
    """Share correct and discrimination index (upper minus lower 27 %) per item, each learner
    counted once with their first finalized attempt."""
    first_number: dict[int, int] = {}
    responses = list(responses)
    for response in responses:
        known = first_number.get(response.learner_id)
        if known is None or response.attempt_number < known:
            first_number[response.learner_id] = response.attempt_number
    kept = [r for r in responses if r.attempt_number == first_number[r.learner_id]]

    learner_scores = {r.learner_id: r.attempt_score for r in kept}
    ranked = sorted(learner_scores, key=lambda learner: (-learner_scores[learner], learner))
    group = math.ceil(len(ranked) * DISCRIMINATION_GROUP_SHARE) if len(ranked) >= 2 else 0
    group = min(group, len(ranked) // 2)
    upper, lower = set(ranked[:group]), set(ranked[len(ranked) - group :] if group else [])

    by_item: dict[int, list[ItemResponse]] = defaultdict(list)
    for response in kept:
        by_item[response.item_id].append(response)

    def share(rows: list[ItemResponse]) -> float | None:
        return sum(1 for r in rows if r.is_correct) / len(rows) if rows else None

    statistics = {}
    for item_id, rows in by_item.items():
        upper_share = share([r for r in rows if r.learner_id in upper])
        lower_share = share([r for r in rows if r.learner_id in lower])
        discrimination = (
            None if upper_share is None or lower_share is None else upper_share - lower_share
        )
        statistics[item_id] = ItemStatistic(
            answered=len(rows), correct_share=share(rows), discrimination=discrimination
        )
    return statistics
