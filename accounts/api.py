"""What other apps may ask of the accounts app. They never import accounts.models directly.

accounts sits below every app that has learners (reviews, progress, quizzes): it imports none of
them. What they need of a learner (the name to print, the preferences a reminder follows) comes
from here as frozen data (``accounts.data``).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from accounts.models import User
from accounts.reminders import REMINDER_LOOKBACK, ReminderPreferences

__all__ = [
    "REMINDER_LOOKBACK",
    "ReminderPreferences",
    "display_name",
    "display_names",
    "reminder_next_at",
]


def display_name(user: User) -> str:
    """The name Lernpfad shows or prints for a learner (``User.public_name``). No query."""
    return user.public_name


def display_names(learner_ids: Iterable[int]) -> dict[int, str]:
    """``display_name`` of each learner by id (one query; unknown ids are left out)."""
    users = User.objects.filter(pk__in=list(learner_ids)).only(
        "display_name", "first_name", "last_name", "username"
    )
    return {user.pk: display_name(user) for user in users}


def reminder_next_at(*, learner: User, changed_at: datetime.datetime) -> datetime.datetime | None:
    """The ``next_reminder_at`` to store for a learner whose reminder preferences (time zone,
    reminder time, quiet hours, reminder e-mail on/off, address, active) were set at
    ``changed_at``: their next reminder instant, or None when they get no reminders.

    ``learner`` is the account with the new values (saved or not); no query.
    """
    return ReminderPreferences.of(learner).next_after_change(changed_at)
