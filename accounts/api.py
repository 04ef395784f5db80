"""What other apps may ask of the accounts app. They never import accounts.models directly.

accounts sits below every app that has learners (reviews, progress, quizzes): it imports none of
them. What they need of a learner (the name to print, the preferences a reminder follows) comes
from here as frozen data (``accounts.data``).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from django.utils.translation import gettext as _
from knox.models import AuthToken

from accounts import selectors, services
from accounts.data import ReminderLearner, ReminderRecipient, ReviewPreferences
from accounts.models import Device, User
from accounts.reminders import REMINDER_LOOKBACK, ReminderPreferences
from lms.errors import Forbidden
from lms.privacy import export_rows

__all__ = [
    "REMINDER_LOOKBACK",
    "certificate_name",
    "certificate_name_given",
    "certificate_names",
    "demo_user_reset",
    "display_name",
    "display_names",
    "learner_export",
    "next_reminders_store",
    "password_confirm",
    "reminder_email_turn_off",
    "reminder_learner_chunks",
    "reminder_next_at",
    "reminder_recipient",
    "reminder_schedules_reset",
    "review_preferences",
    "user_delete",
    "user_lock",
]

# Columns never exported: the password hash, the token hash and the token's lookup prefix.
ACCOUNT_SECRET_FIELDS = ("password",)
TOKEN_SECRET_FIELDS = ("digest", "token_key")


def display_name(user: User) -> str:
    """The name Lernpfad shows or prints for a learner (``User.public_name``). No query."""
    return user.public_name


def display_names(learner_ids: Iterable[int]) -> dict[int, str]:
    """``display_name`` of each learner by id (one query; unknown ids are left out)."""
    users = User.objects.filter(pk__in=list(learner_ids)).only(
        "display_name", "full_name", "first_name", "last_name", "username"
    )
    return {user.pk: display_name(user) for user in users}


# --- the name on a certificate ----------------------------------------------------------------


def certificate_name_given(user: User) -> bool:
    """Whether the learner gave the full name a certificate states (a certifying exam needs
    it before it starts). No query."""
    return bool(user.full_name.strip())


def certificate_name(user: User) -> str:
    """The name a certificate issued now states (``User.certificate_name``). No query."""
    return user.certificate_name


def certificate_names(learner_ids: Iterable[int]) -> dict[int, str]:
    """``certificate_name`` of each learner by id (one query; unknown ids are left out)."""
    users = User.objects.filter(pk__in=list(learner_ids)).only(
        "full_name", "display_name", "first_name", "last_name", "username"
    )
    return {user.pk: certificate_name(user) for user in users}


def reminder_next_at(*, learner: User, changed_at: datetime.datetime) -> datetime.datetime | None:
    """The ``next_reminder_at`` to store for a learner whose reminder preferences (time zone,
    reminder time, quiet hours, reminder e-mail on/off, address, active) were set at
    ``changed_at``: their next reminder instant, or None when they get no reminders.

    ``learner`` is the account with the new values (saved or not); no query.
    """
    return ReminderPreferences.of(learner).next_after_change(changed_at)


def review_preferences(learner_id: int) -> ReviewPreferences | None:
    """The learner's spaced-repetition settings (time zone, desired retention, daily limits);
    None when there is no such account. One query."""
    return selectors.review_preferences(learner_id)


def time_zones(learner_ids: Iterable[int]) -> dict[int, str]:
    """The time zone of each of these accounts (the ones that exist). One query."""
    rows = User.objects.filter(id__in=list(learner_ids)).values_list("id", "time_zone")
    return dict(rows)


def reminder_recipient(learner_id: int) -> ReminderRecipient | None:
    """What a reminder e-mail needs of the learner: the address and whether they want it, the
    name (``display_name``), language, reminder schedule and review settings. One query."""
    return selectors.reminder_recipient(learner_id)


def reminder_learner_chunks(
    *, at: datetime.datetime, chunk_size: int
) -> Iterator[list[ReminderLearner]]:
    """The learners whose next reminder instant has come (``<= at``), ``chunk_size`` at a time,
    one query per chunk, oldest instant first. Move each chunk on (``next_reminders_store``)
    before asking for the next: the pages are what is left."""
    return selectors.reminder_learner_chunks(at=at, chunk_size=chunk_size)


def next_reminders_store(
    *,
    next_at: Mapping[int, datetime.datetime | None],
    read: Mapping[int, datetime.datetime] | None = None,
) -> None:
    """Store the learners' next reminder instants by id (None: no reminders), in one statement.
    With ``read`` (the ``next_reminder_at`` values the caller read), a learner is changed only
    while they still hold that value. Runs in the caller's transaction."""
    services.next_reminders_update(next_at, read=read)


def reminder_schedules_reset(*, after: datetime.datetime, batch_size: int = 2000) -> int:
    """Every learner's next reminder instant worked out afresh, the first after ``after`` (bulk
    loads, repairs); returns how many learners it went through."""
    return services.reminder_schedules_reset(after=after, batch_size=batch_size)


def reminder_email_turn_off(*, learner_id: int) -> str | None:
    """Turn the learner's reminder e-mails off (unsubscribe link); returns their language, None
    if the account is gone."""
    return services.reminder_email_turn_off(learner_id=learner_id)


def learner_export(user: User) -> dict[str, Any]:
    """The account's part of the data export: profile and preferences (with groups and
    permissions), devices and token metadata (never a token or its hash). Five queries."""
    account = export_rows(User.objects.filter(pk=user.pk), exclude=ACCOUNT_SECRET_FIELDS)[0]
    account["groups"] = list(user.groups.values_list("name", flat=True))
    account["permissions"] = list(user.user_permissions.values_list("codename", flat=True))
    return {
        "account": account,
        # A device's token reference is the token's hash (knox's primary key): not exported.
        "devices": export_rows(Device.objects.filter(user_id=user.pk), exclude=("token",)),
        "tokens": export_rows(
            AuthToken.objects.filter(user_id=user.pk), exclude=TOKEN_SECRET_FIELDS
        ),
    }


def password_confirm(*, user: User, password: str) -> None:
    """Raise Forbidden (password_incorrect) unless ``password`` is the user's password."""
    if not password or not user.check_password(password):
        raise Forbidden(_("The password is not correct."), code="password_incorrect")


def user_lock(*, user_id: int) -> bool:
    """Lock the user's row (inside ``transaction.atomic``); False when it is gone already."""
    return User.objects.select_for_update().filter(pk=user_id).exists()


def user_delete(*, user_id: int) -> None:
    """Delete the account; every row of every app that belongs to it goes with it (CASCADE)."""
    User.objects.filter(pk=user_id).delete()


def demo_user_reset(
    *,
    username: str,
    password: str,
    display_name: str,
    is_staff: bool,
    full_name: str = "",
    course_admin: bool = False,
) -> User:
    """Create or reset a demo account (``manage.py demo_setup``); ``course_admin``: staff in
    the group "Kursverwaltung", not a superuser."""
    return services.demo_user_reset(
        username=username,
        password=password,
        display_name=display_name,
        full_name=full_name,
        is_staff=is_staff,
        course_admin=course_admin,
    )
