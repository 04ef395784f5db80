"""Frozen values the progress app hands to other apps (``progress.api``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepCompletions:
    number: int
    term: str
    learners: int


@dataclass(frozen=True)
class ModuleLearnerStats:
    """A module's learners at a glance (the course dashboard)."""

    enrolled: int
    active_7_days: int
    active_30_days: int
    # Learners who completed each active step, in step order (the completion funnel).
    funnel: tuple[StepCompletions, ...]
    # Learners who completed every active step, and the median days from enrolling to the last.
    completed_all: int
    median_days_to_completion: float | None


@dataclass(frozen=True)
class CompletionRuleData:
    """What completing a step of a module asks (``progress.completion_rules``)."""

    rule: str
    reading_time_share: int
