"""May a learner start an exam attempt now? Plain Python: every reason that stands in the way."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

# The reason code a certifying exam gives while the learner's full name is missing; the exam
# page links it to the settings field, the API's start refusal names the field in its detail.
FULL_NAME_MISSING = "full_name_missing"
FULL_NAME_FIELD = "full_name"


@dataclass(frozen=True)
class AttemptState:
    """What eligibility needs of one of the learner's attempts."""

    number: int
    finalized_at: datetime.datetime | None


@dataclass(frozen=True)
class Reason:
    code: str
    message: str


@dataclass(frozen=True)
class Eligibility:
    can_start: bool
    reasons: tuple[Reason, ...]
    available_at: datetime.datetime | None
    attempts_used: int
    attempts_left: int


def exam_eligibility(
    *,
    now: datetime.datetime,
    enrolled: bool,
    steps_required: bool,
    steps_completed: bool,
    attempts: Sequence[AttemptState],
    max_attempts: int,
    wait: datetime.timedelta,
    final_passed: bool,
    certifies: bool,
    full_name_given: bool,
) -> Eligibility:
    """Whether a new attempt may start, with every reason against it (most fundamental first).

    ``certifies``: passing this exam issues a certificate, which states the learner's full name;
    such an exam starts only once the learner gave it (``full_name_given``). The certificate
    keeps the name it holds when it is issued.
    """
    reasons: list[Reason] = []
    available_at = None
    used = len(attempts)
    if not enrolled:
        reasons.append(Reason("not_enrolled", "Enroll in the module before taking its exam."))
    if steps_required and not steps_completed:
        reasons.append(
            Reason("steps_incomplete", "Complete every step of the module before the exam.")
        )
    if certifies and not full_name_given and not final_passed:
        reasons.append(
            Reason(
                FULL_NAME_MISSING,
                "Enter your full name (full_name in your settings or PATCH /api/v1/me/) before "
                "this exam: the certificate states it.",
            )
        )
    if final_passed:
        reasons.append(Reason("already_passed", "You have passed this exam."))
    if any(attempt.finalized_at is None for attempt in attempts):
        reasons.append(
            Reason("attempt_in_progress", "Finish or submit your current attempt first.")
        )
    if used >= max_attempts:
        reasons.append(Reason("no_attempts_left", f"All {max_attempts} attempts are used."))
    finished = [a.finalized_at for a in attempts if a.finalized_at is not None]
    if finished and wait > datetime.timedelta(0):
        ready = max(finished) + wait
        if ready > now:
            available_at = ready
            reasons.append(Reason("waiting", "The next attempt is possible from available_at."))
    return Eligibility(
        can_start=not reasons,
        reasons=tuple(reasons),
        available_at=available_at,
        attempts_used=used,
        attempts_left=max(0, max_attempts - used),
    )
