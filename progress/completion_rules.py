"""When a step counts as completed: the evidence a learner must have left on it. Plain Python,
no Django import; the services read the evidence, the web page and the API show what is missing.

The course admin picks per module which evidence counts (``RULES``, the strictest by default):

- ``free``: any completion is accepted, as before evidence was asked for.
- ``sections``: every section of the step was seen, and the plausible time was spent.
- ``sections_quick_check``: as ``sections``, and every rated quick check of the step answered
  (reflection prompts take no answer and do not count).

Time spent, as the server measures it (``time_spent_seconds``): the time between the learner's
first event on the step (``first_opened_at``: the earliest "opened" or "section_viewed", in client
time when it came through the offline sync) and the completion request (its client time when
synced, the server's clock online). It is the time the step was open, not the time the learner
looked at it: a learner who opens a step and completes it an hour later has spent an hour on it.
That is enough to stop clicking through (32 steps in 19 seconds), which is all it claims. The
plausible time is ``reading_time_share`` percent of the step's estimated reading time
(``reading_seconds``); 0 % asks for no time.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

RULE_FREE = "free"
RULE_SECTIONS = "sections"
RULE_SECTIONS_QUICK_CHECK = "sections_quick_check"
RULES = (RULE_FREE, RULE_SECTIONS, RULE_SECTIONS_QUICK_CHECK)
DEFAULT_RULE = RULE_SECTIONS_QUICK_CHECK
DEFAULT_READING_TIME_SHARE = 30

# Words a minute an adult reads a German technical text at, and the characters of one word
# with its space: a step's estimated reading time (and the module overview's) comes from these.
READING_WORDS_PER_MINUTE = 180
CHARACTERS_PER_WORD = 7


def reading_seconds(characters: int) -> int:
    """Seconds to read ``characters`` of text at READING_WORDS_PER_MINUTE (rounded up)."""
    return math.ceil(max(0, characters) * 60 / CHARACTERS_PER_WORD / READING_WORDS_PER_MINUTE)


@dataclass(frozen=True)
class CompletionRequirement:
    """What completing one step asks for under its module's rule."""

    rule: str
    section_kinds: tuple[str, ...]
    quick_check_ids: tuple[int, ...]
    min_seconds: int

    @classmethod
    def for_step(
        cls,
        *,
        rule: str,
        reading_time_share: int,
        section_kinds: Sequence[str],
        quick_check_ids: Sequence[int],
        body_chars: int,
    ) -> CompletionRequirement:
        """The requirement of a step with these sections, rated quick checks and text length
        under the module's ``rule`` and ``reading_time_share`` (percent)."""
        share = max(0, min(100, reading_time_share))
        return cls(
            rule=rule if rule in RULES else DEFAULT_RULE,
            section_kinds=tuple(section_kinds),
            quick_check_ids=tuple(quick_check_ids),
            min_seconds=math.ceil(reading_seconds(body_chars) * share / 100),
        )


@dataclass(frozen=True)
class MissingEvidence:
    """What stands between a learner and completing a step; empty (falsy) when nothing does."""

    sections: tuple[str, ...] = ()
    quick_check_ids: tuple[int, ...] = ()
    seconds_left: int = 0
    min_seconds: int = 0

    def __bool__(self) -> bool:
        return bool(self.sections or self.quick_check_ids or self.seconds_left)


def time_spent_seconds(*, first_opened_at: datetime.datetime | None, at: datetime.datetime) -> int:
    """Whole seconds from the learner's first event on the step to ``at`` (0 before any event)."""
    if first_opened_at is None or at <= first_opened_at:
        return 0
    return int((at - first_opened_at).total_seconds())


def completion_missing(
    requirement: CompletionRequirement,
    *,
    sections_viewed: Collection[str],
    quick_checks_answered: Collection[int],
    first_opened_at: datetime.datetime | None,
    at: datetime.datetime,
) -> MissingEvidence:
    """Everything missing for completing the step at ``at``, not only the first thing."""
    if requirement.rule == RULE_FREE:
        return MissingEvidence()
    sections = tuple(kind for kind in requirement.section_kinds if kind not in sections_viewed)
    quick_checks: tuple[int, ...] = ()
    if requirement.rule == RULE_SECTIONS_QUICK_CHECK:
        quick_checks = tuple(
            i for i in requirement.quick_check_ids if i not in quick_checks_answered
        )
    spent = time_spent_seconds(first_opened_at=first_opened_at, at=at)
    return MissingEvidence(
        sections=sections,
        quick_check_ids=quick_checks,
        seconds_left=max(0, requirement.min_seconds - spent),
        min_seconds=requirement.min_seconds,
    )
