"""What other apps may ask of the accounts app, as frozen data (``accounts.data``)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.utils.translation import gettext as _
from knox.models import AuthToken

from accounts import selectors, services
from accounts.models import Device, User
from accounts.reminders import REMINDER_LOOKBACK, ReminderPreferences
from lms.errors import Forbidden
from lms.privacy import export_rows

__all__ = [
    "REMINDER_LOOKBACK",
    "certificate_name",
    "certificate_name_given",
    "certificate_names",
    "course_admin_role_grant",
    "credentials_epoch",
    "credentials_epoch_lock",
    "demo_user_reset",
    "display_name",
    "external_account_create",
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
    "username_confirm",
]

# Columns never exported: the password hash, the token hash and the token's lookup prefix.
ACCOUNT_SECRET_FIELDS = ("password",)
TOKEN_SECRET_FIELDS = ("digest", "token_key")


def display_name(user: User) -> str:
    """The name Lernpfad shows or prints for a learner (``User.public_name``). No query."""
    return user.public_name


# --- the name on a certificate ----------------------------------------------------------------


def credentials_epoch(user: User) -> int:
    """Moves on whenever the account's credentials are revoked (a password is set, "log out
    everywhere"): a credential a higher app issued under an older epoch is void. No query."""
    return user.credentials_epoch


def credentials_epoch_lock(*, user_id: int) -> int | None:
    """The account's ``credentials_epoch`` with its row locked (inside ``transaction.atomic``),
    so no revocation passes a credential being issued; None when the account is gone."""
    return (
        User.objects.select_for_update()
        .filter(pk=user_id)
        .values_list("credentials_epoch", flat=True)
        .first()
    )


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
    """The ``next_reminder_at`` for a learner whose reminder preferences were set at ``changed_at``
    (None: no reminders); no query."""
    return ReminderPreferences.of(learner).next_after_change(changed_at)


def time_zones(learner_ids: Iterable[int]) -> dict[int, str]:
    """The time zone of each of these accounts (the ones that exist). One query."""
    rows = User.objects.filter(id__in=list(learner_ids)).values_list("id", "time_zone")
    return dict(rows)


def learner_export(user: User) -> dict[str, Any]:
    """The account's part of the data export: profile and preferences (with groups and
        permissions), devices and token metadata (never a token or its hash), single sign-on
    identities and addresses. Seven queries."""
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
        # Single sign-on: the institutions' identities of this account (what the provider said
        # at the last log-in, never a token) and the addresses allauth keeps for it.
        "sso_identities": export_rows(SocialAccount.objects.filter(user_id=user.pk)),
        "email_addresses": export_rows(EmailAddress.objects.filter(user_id=user.pk)),
    }


def password_confirm(*, user: User, password: str) -> None:
    """Raise Forbidden (password_incorrect) unless ``password`` is the user's password."""
    if not password or not user.check_password(password):
        raise Forbidden(_("The password is not correct."), code="password_incorrect")


def username_confirm(*, user: User, username: str) -> None:
    """Raise Forbidden (username_incorrect) unless ``username`` is the user's: how an account
    without a password confirms its deletion."""
    if user.has_usable_password() or username.strip() != user.get_username():
        raise Forbidden(_("That is not your user name."), code="username_incorrect")


def user_lock(*, user_id: int) -> bool:
    """Lock the user's row (inside ``transaction.atomic``); False when it is gone already."""
    return User.objects.select_for_update().filter(pk=user_id).exists()


def user_delete(*, user_id: int) -> None:
    """Delete the account; every row of every app that belongs to it goes with it (CASCADE)."""
    User.objects.filter(pk=user_id).delete()


# Thin names for the reads and writes other apps need (each documented where it is defined).
review_preferences = selectors.review_preferences
reminder_recipient = selectors.reminder_recipient
# Move each chunk on (``next_reminders_store``) before asking for the next.
reminder_learner_chunks = selectors.reminder_learner_chunks
next_reminders_store = services.next_reminders_update
reminder_schedules_reset = services.reminder_schedules_reset
reminder_email_turn_off = services.reminder_email_turn_off
demo_user_reset = services.demo_user_reset


def external_account_create(*, username_hint: str, full_name: str, email: str) -> User:
    """A password-less account for a user another system (an LTI platform) vouches for."""
    return services.external_account_create(
        username_hint=username_hint, full_name=full_name, email=email
    )


def course_admin_role_grant(*, user_id: int) -> None:
    """Give the user the course-admin role ("Kursverwaltung")."""
    services.course_admin_role_grant(user_id=user_id)
