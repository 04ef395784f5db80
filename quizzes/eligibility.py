"""May a learner start an exam attempt now? Plain Python: every reason that stands in the way."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

# A certifying exam's reason while the learner's full name is missing (pages link the field).
FULL_NAME_MISSING = "full_name_missing"
FULL_NAME_FIELD = "full_name"
# Every reason code ``exam_eligibility`` gives (the API's EligibilityReasonEnum).
REASON_CODES = (
    "not_enrolled",
    "steps_incomplete",
    FULL_NAME_MISSING,
    "already_passed",
    "attempt_in_progress",
    "no_attempts_left",
    "waiting",
)


@dataclass(frozen=True)
class AttemptState:
    """What eligibility needs of one of the learner's attempts."""

    number: int
    finalized_at: datetime.datetime | None
    # Practice attempts and certifying attempts are counted apart (``exam_eligibility``).
    certifying: bool = True


@dataclass(frozen=True)
class Reason:
    code: str
    message: str


# --- the completion gate -----------------------------------------------------------


@dataclass(frozen=True)
class StepState:
    """One of the module's active steps, and whether the learner has completed it."""

    number: int
    slug: str
    term: str
    completed: bool


@dataclass(frozen=True)
class MissingStep:
    """An active step the learner has not completed yet (the exam page links to it)."""

    number: int
    slug: str
    term: str


@dataclass(frozen=True)
class StepGate:
    """The completion gate: how many steps the policy requires, how many are done, and the
    steps not completed yet (empty once the gate is open)."""

    required_share: int
    required: int
    completed: int
    total: int
    missing: tuple[MissingStep, ...] = ()

    @property
    def open(self) -> bool:
        return self.completed >= self.required


def step_gate(*, required_share: int, steps: Sequence[StepState]) -> StepGate:
    """The gate over the module's active steps: ``required_share`` percent of them, rounded up,
    must be completed (none for 0 % or a module without steps)."""
    share = max(0, min(100, required_share))
    total = len(steps)
    required = (share * total + 99) // 100
    completed = sum(1 for step in steps if step.completed)
    missing = (
        ()
        if completed >= required
        else tuple(
            MissingStep(number=s.number, slug=s.slug, term=s.term)
            for s in sorted(steps, key=lambda s: s.number)
            if not s.completed
        )
    )
    return StepGate(
        required_share=share, required=required, completed=completed, total=total, missing=missing
    )


def _gate_message(gate: StepGate) -> str:
    if gate.required >= gate.total:
        return _(
            "Complete every step of the module before the exam (%(completed)d of %(total)d "
            "completed)."
        ) % {"completed": gate.completed, "total": gate.total}
    return _(
        "Complete at least %(required)d of the module's %(total)d steps before the exam "
        "(%(completed)d completed, %(left)d to go)."
    ) % {
        "required": gate.required,
        "total": gate.total,
        "completed": gate.completed,
        "left": gate.required - gate.completed,
    }


# --- the rule ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Eligibility:
    can_start: bool
    reasons: tuple[Reason, ...]
    available_at: datetime.datetime | None
    # Of the attempts of the mode a start would have now (practice or certifying).
    attempts_used: int
    attempts_left: int
    steps: StepGate = field(default_factory=lambda: StepGate(0, 0, 0, 0))


def exam_eligibility(
    *,
    now: datetime.datetime,
    enrolled: bool,
    steps: StepGate,
    attempts: Sequence[AttemptState],
    certifying: bool,
    max_attempts: int,
    wait: datetime.timedelta,
    final_passed: bool,
    full_name_given: bool,
) -> Eligibility:
    """Whether a new attempt may start, with every reason against it (most fundamental first).
    Only attempts of the mode ``certifying`` count; a certifying start needs the full name."""
    reasons: list[Reason] = []
    available_at = None
    counted = [a for a in attempts if a.certifying == certifying]
    used = len(counted)
    if not enrolled:
        reasons.append(Reason("not_enrolled", _("Enroll in the module before taking its exam.")))
    if not steps.open:
        reasons.append(Reason("steps_incomplete", _gate_message(steps)))
    if certifying and not full_name_given and not final_passed:
        reasons.append(
            Reason(
                FULL_NAME_MISSING,
                _(
                    "Enter your full name (full_name in your settings or PATCH /api/v1/me/) "
                    "before this exam: the certificate states it."
                ),
            )
        )
    if final_passed:
        reasons.append(Reason("already_passed", _("You have passed this exam.")))
    if any(attempt.finalized_at is None for attempt in attempts):
        reasons.append(
            Reason("attempt_in_progress", _("Finish or submit your current attempt first."))
        )
    if used >= max_attempts:
        reasons.append(
            Reason(
                "no_attempts_left",
                _("All %(count)d attempts are used.") % {"count": max_attempts},
            )
        )
    # The wait runs from the last finished attempt of either mode.
    finished = [a.finalized_at for a in attempts if a.finalized_at is not None]
    if finished and wait > datetime.timedelta(0):
        ready = max(finished) + wait
        if ready > now:
            available_at = ready
            reasons.append(Reason("waiting", _("The next attempt is possible from available_at.")))
    return Eligibility(
        can_start=not reasons,
        reasons=tuple(reasons),
        available_at=available_at,
        attempts_used=used,
        attempts_left=max(0, max_attempts - used),
        steps=steps,
    )
