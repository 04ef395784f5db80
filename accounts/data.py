"""Frozen views of account data that other apps receive from ``accounts.api``, and the account
settings' ranges other apps follow. Plain Python (no Django)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from accounts.reminders import ReminderPreferences
from lms.local_time import ReminderSchedule

# The desired retention (FSRS's target recall) a learner may choose, and its default.
DESIRED_RETENTION_MIN = 0.80
DESIRED_RETENTION_MAX = 0.97
DEFAULT_DESIRED_RETENTION = 0.90


@dataclass(frozen=True)
class ReviewPreferences:
    """What spaced repetition follows for a learner: their clock, retention and daily limits."""

    id: int
    time_zone: str
    desired_retention: float
    new_cards_per_day: int
    reviews_per_day: int


@dataclass(frozen=True)
class ReminderLearner:
    """A learner whose stored next reminder instant has come (the reminder planner's read)."""

    id: int
    # As read: the planner stores the next instant only if the row still holds this one.
    next_reminder_at: datetime.datetime
    # Their daily reminder; None when they get no reminders (off, inactive, no address).
    schedule: ReminderSchedule | None


@dataclass(frozen=True)
class ReminderRecipient:
    """The learner a reminder digest is for, as its send step needs them."""

    id: int
    # The one display-name rule (accounts.api.display_name).
    name: str
    language: str
    reminders: ReminderPreferences
    review: ReviewPreferences
