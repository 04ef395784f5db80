"""Item analysis of the certifying exam as Moodle's quiz statistics report computes it: plain
Python, no Django.

Input is each learner's first finalized attempt: the items in the order they were drawn and the
mark of each (0 or 1: grading is all or nothing). The figures and their formulas follow Moodle's
``question/classes/statistics/questions/calculator.php`` and
``mod/quiz/report/statistics/classes/calculator.php``:

- facility index F = mean mark ÷ maximum mark (here the share right), in %;
- standard deviation of the item's marks (n − 1), in % of its maximum;
- discrimination index = 100 × the correlation of the item's mark with the rest of the test (the
  attempt's total minus this item);
- discriminative efficiency = 100 × that covariance ÷ the largest covariance the two marginal
  distributions allow (both sorted ascending and paired);
- for the test, over draw positions ("slots", as Moodle does for random questions): coefficient of
  internal consistency (Cronbach's alpha) CIC = 100 × k/(k − 1) × (1 − Σ slot variances ÷ total
  variance), error ratio ER = 100 × √(1 − CIC/100), standard error SE = ER/100 × SD of the totals.

A figure that its formula cannot give (one answer, no spread) is ``None``, never 0.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Moodle's report marks a question whose discriminative efficiency is below 15 % as one to check
# (quiz_statistics_table::is_dubious_question).
DOUBTFUL_EFFICIENCY_BELOW = 15.0
# Moodle's documentation on the test's figures: a CIC above 75 % is satisfactory, below 64 % the
# test as a whole is unsatisfactory; an error ratio above 50 % means more than half the spread of
# the scores is noise.
CIC_SATISFACTORY_FROM = 75.0
CIC_UNSATISFACTORY_BELOW = 64.0
ERROR_RATIO_ACCEPTABLE_BELOW = 50.0


@dataclass(frozen=True)
class AttemptMarks:
    """One learner's first finalized attempt: item ids in the order drawn and each one's mark."""

    items: tuple[int, ...]
    marks: tuple[float, ...]

    @property
    def total(self) -> float:
        return sum(self.marks)


@dataclass(frozen=True)
class ItemFigures:
    answered: int
    facility: float | None
    standard_deviation: float | None
    discrimination_index: float | None
    discriminative_efficiency: float | None

    @property
    def doubtful(self) -> bool:
        return (
            self.discriminative_efficiency is not None
            and self.discriminative_efficiency < DOUBTFUL_EFFICIENCY_BELOW
        )


@dataclass(frozen=True)
class ExamFigures:
    attempts: int
    items_per_attempt: int | None
    mean_percent: float | None
    standard_deviation_percent: float | None
    internal_consistency: float | None
    error_ratio: float | None
    standard_error_percent: float | None


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _covariance(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 2:
        return None
    mx, my = _mean(xs), _mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / (len(xs) - 1)


def _figures(marks: list[float], rests: list[float]) -> ItemFigures:
    n = len(marks)
    facility = 100 * _mean(marks) if n else None
    variance = _covariance(marks, marks)
    rest_variance = _covariance(rests, rests)
    covariance = _covariance(marks, rests)
    most = _covariance(sorted(marks), sorted(rests))
    index = (
        100 * covariance / math.sqrt(variance * rest_variance)
        if covariance is not None and variance and rest_variance
        else None
    )
    efficiency = 100 * covariance / most if covariance is not None and most else None
    return ItemFigures(
        answered=n,
        facility=facility,
        standard_deviation=100 * math.sqrt(variance) if variance is not None else None,
        discrimination_index=index,
        discriminative_efficiency=efficiency,
    )


def item_figures(
    attempts: Iterable[AttemptMarks], *, only: dict[int, set[int]] | None = None
) -> dict[int, ItemFigures]:
    """Figures per item over the attempts that drew it. ``only`` limits an item to some attempts
    (by their index in ``attempts``): the figures of one version of the item."""
    marks: dict[int, list[float]] = defaultdict(list)
    rests: dict[int, list[float]] = defaultdict(list)
    for index, attempt in enumerate(attempts):
        total = attempt.total
        for item, mark in zip(attempt.items, attempt.marks, strict=True):
            if only is not None and index not in only.get(item, ()):
                continue
            marks[item].append(mark)
            rests[item].append(total - mark)
    return {item: _figures(marks[item], rests[item]) for item in marks}


def exam_figures(attempts: Iterable[AttemptMarks]) -> ExamFigures:
    """The test's figures over the attempts of the usual length (the most common number of items:
    a policy change leaves a few attempts of another length, whose slots do not line up)."""
    attempts = list(attempts)
    lengths = Counter(len(attempt.items) for attempt in attempts)
    if not lengths:
        return ExamFigures(0, None, None, None, None, None, None)
    k = max(lengths, key=lambda length: (lengths[length], length))
    kept = [attempt for attempt in attempts if len(attempt.items) == k]
    percents = [100 * attempt.total / k for attempt in kept] if k else []
    mean = _mean(percents) if percents else None
    total_variance = _covariance([a.total for a in kept], [a.total for a in kept])
    sd = math.sqrt(_covariance(percents, percents)) if len(kept) > 1 else None
    cic = error_ratio = standard_error = None
    if k > 1 and total_variance:
        slot_variances = sum(
            _covariance([a.marks[slot] for a in kept], [a.marks[slot] for a in kept])
            for slot in range(k)
        )
        cic = 100 * k / (k - 1) * (1 - slot_variances / total_variance)
        if cic <= 100:
            error_ratio = 100 * math.sqrt(1 - cic / 100)
            standard_error = error_ratio * sd / 100
    return ExamFigures(
        attempts=len(kept),
        items_per_attempt=k,
        mean_percent=mean,
        standard_deviation_percent=sd,
        internal_consistency=cic,
        error_ratio=error_ratio,
        standard_error_percent=standard_error,
    )


def bank_version(
    *, kind: str, prompt: str, options: list, correct_keys: list, answer_key: dict
) -> tuple:
    """What a learner sees of a bank item and how it is graded, in a form that does not depend
    on the order an attempt showed it in: two equal versions are the same question."""
    if kind == "matching":
        pairs = answer_key.get("pairs", [])
        return (
            kind,
            prompt,
            frozenset((p["left"], p["right"]) for p in pairs if p["left"].strip()),
            frozenset(p["right"] for p in pairs),
        )
    if options:
        correct = set(correct_keys)
        return (kind, prompt, frozenset((o["text"], o["key"] in correct) for o in options))
    return (kind, prompt, repr(sorted(answer_key.items())))


def attempt_version(
    *,
    kind: str,
    prompt: str,
    options: list,
    correct_keys: list,
    choices: list | None,
    answer_key: dict | None,
) -> tuple:
    """``bank_version`` of the item an attempt drew, read from the attempt's own relabelled copy
    (quizzes.services.attempt_start, quizzes.answers.matching_attempt_copy)."""
    if kind == "matching":
        texts = {c["key"]: c["text"] for c in choices or []}
        key = (answer_key or {}).get("pairs", {})
        return (
            kind,
            prompt,
            frozenset((o["text"], texts[key[o["key"]]]) for o in options),
            frozenset(texts.values()),
        )
    if options:
        correct = set(correct_keys)
        return (kind, prompt, frozenset((o["text"], o["key"] in correct) for o in options))
    return (kind, prompt, repr(sorted((answer_key or {}).items())))
