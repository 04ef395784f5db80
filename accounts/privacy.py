"""The learner's privacy rights: a copy of everything stored about them, and erasure.

``account_export`` gathers the account (profile, preferences, devices and token metadata, never
a token or its hash) and asks every app for its part through its ``api.learner_export``.
``account_delete`` deletes the account and everything personal after the password is entered
again; item statistics keep the answers anonymously and certificates are revoked
(``quizzes.api.learner_erase``); everything else goes with the account (CASCADE).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from knox.models import AuthToken

from accounts.models import Device, User
from courses import api as courses_api
from lms.errors import Forbidden
from lms.privacy import export_rows
from quizzes import api as quizzes_api
from reviews import api as reviews_api

EXPORT_FORMAT_VERSION = 1
# Columns never exported: the password hash, the token hash and the token's lookup prefix.
ACCOUNT_SECRET_FIELDS = ("password",)
TOKEN_SECRET_FIELDS = ("digest", "token_key")


def account_export(*, user: User) -> dict[str, Any]:
    """Everything Lernpfad stores about the user, as JSON-ready data: 18 queries, whatever size."""
    account = export_rows(User.objects.filter(pk=user.pk), exclude=ACCOUNT_SECRET_FIELDS)[0]
    account["groups"] = list(user.groups.values_list("name", flat=True))
    account["permissions"] = list(user.user_permissions.values_list("codename", flat=True))
    return {
        "format_version": EXPORT_FORMAT_VERSION,
        "exported_at": timezone.now(),
        "account": account,
        # A device's token reference is the token's hash (knox's primary key): not exported.
        "devices": export_rows(Device.objects.filter(user_id=user.pk), exclude=("token",)),
        "tokens": export_rows(
            AuthToken.objects.filter(user_id=user.pk), exclude=TOKEN_SECRET_FIELDS
        ),
        "courses": courses_api.learner_export(user.pk),
        "quizzes": quizzes_api.learner_export(user.pk),
        "reviews": reviews_api.learner_export(user.pk),
    }


@transaction.atomic
def account_delete(*, user: User, password: str) -> None:
    """Delete the account and the learner's data; the password must be entered again.

    Raises Forbidden (password_incorrect) and changes nothing when the password is wrong.
    """
    if not password or not user.check_password(password):
        raise Forbidden("The password is not correct.", code="password_incorrect")
    # Lock the row: a second deletion (double click) waits and then finds nothing to delete.
    locked = User.objects.select_for_update().filter(pk=user.pk).first()
    if locked is None:
        return
    quizzes_api.learner_erase(user.pk)
    locked.delete()
