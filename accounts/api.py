"""What other apps may ask of the accounts app. They never import accounts.models directly.

accounts sits below every app that has learners (reviews, progress, quizzes): it imports none of
them. What they need of a learner (the name to print, the preferences a reminder follows) comes
from here as frozen data (``accounts.data``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from knox.models import AuthToken

from accounts.models import Device, User
from lms.errors import Forbidden
from lms.privacy import export_rows

# Columns never exported: the password hash, the token hash and the token's lookup prefix.
ACCOUNT_SECRET_FIELDS = ("password",)
TOKEN_SECRET_FIELDS = ("digest", "token_key")


def display_name(user: User) -> str:
    """The name Lernpfad shows or prints for a learner (``User.public_name``). No query."""
    return user.public_name


def display_names(learner_ids: Iterable[int]) -> dict[int, str]:
    """``display_name`` of each learner by id (one query; unknown ids are left out)."""
    users = User.objects.filter(pk__in=list(learner_ids)).only(
        "display_name", "first_name", "last_name", "username"
    )
    return {user.pk: display_name(user) for user in users}


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
        raise Forbidden("The password is not correct.", code="password_incorrect")


def user_lock(*, user_id: int) -> bool:
    """Lock the user's row (inside ``transaction.atomic``); False when it is gone already."""
    return User.objects.select_for_update().filter(pk=user_id).exists()


def user_delete(*, user_id: int) -> None:
    """Delete the account; every row of every app that belongs to it goes with it (CASCADE)."""
    User.objects.filter(pk=user_id).delete()
