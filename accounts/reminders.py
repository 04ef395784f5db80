"""Who gets reminder e-mails and when the next one is due: the one rule, as plain Python."""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass
from typing import Any

from lms.local_time import ReminderSchedule
from lms.periodic_tasks import REMINDERS_PLAN

# How far back the planner looks: twice its 15-minute beat, so a late run loses nothing and a
# reminder time set a few minutes into the past still comes today.
REMINDER_LOOKBACK = 2 * datetime.timedelta(minutes=REMINDERS_PLAN.every_minutes)


@dataclass(frozen=True)
class ReminderPreferences:
    """What a learner's reminders follow; the fields are ``accounts.User``'s of the same name."""

    is_active: bool
    reminder_email: bool
    email: str
    # None while the address is not confirmed (a sign-up waiting for its link): nothing is
    # mailed to an address nobody has shown to be theirs.
    email_confirmed_at: datetime.datetime | None
    time_zone: str
    reminder_time: datetime.time
    quiet_hours_start: datetime.time | None
    quiet_hours_end: datetime.time | None

    @classmethod
    def of(cls, learner: Any) -> ReminderPreferences:
        """The preferences of a User (saved or not) or of any row with the same attributes."""
        return cls(**{field.name: getattr(learner, field.name) for field in _FIELDS})

    @property
    def unwanted_reason(self) -> str | None:
        """Why the learner gets no reminder e-mails: "reminders_off" (turned off, or the account
        is inactive), "no_address" or "email_unconfirmed"; None when they get them."""
        if not (self.is_active and self.reminder_email):
            return "reminders_off"
        if not self.email:
            return "no_address"
        if self.email_confirmed_at is None:
            return "email_unconfirmed"
        return None

    @property
    def wanted(self) -> bool:
        """Reminder e-mails are on, the account is active and has a confirmed address."""
        return self.unwanted_reason is None

    @property
    def schedule(self) -> ReminderSchedule | None:
        """The learner's daily reminder, or None when they get no reminders."""
        if not self.wanted:
            return None
        return ReminderSchedule(
            time_zone=self.time_zone,
            reminder_time=self.reminder_time,
            quiet_hours_start=self.quiet_hours_start,
            quiet_hours_end=self.quiet_hours_end,
        )

    def next_after(self, at: datetime.datetime) -> datetime.datetime | None:
        """The first reminder instant strictly after ``at`` (None: no reminders)."""
        schedule = self.schedule
        return None if schedule is None else schedule.next_after(at)

    def next_after_change(self, changed_at: datetime.datetime) -> datetime.datetime | None:
        """The ``next_reminder_at`` to store for preferences set at ``changed_at``."""
        return self.next_after(changed_at - REMINDER_LOOKBACK)


_FIELDS = dataclasses.fields(ReminderPreferences)
# A change of any of these stores the next reminder instant afresh.
REMINDER_PREFERENCE_FIELDS = frozenset(field.name for field in _FIELDS)
