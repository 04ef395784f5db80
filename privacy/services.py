"""The learner's privacy rights across every app: a copy of everything stored about them, and
erasure. The privacy app owns no table; it asks each app for its part through its ``api``.

``account_export`` gathers the account (profile, preferences, devices and token metadata, never
a token or its hash) and every app's ``api.learner_export``. ``account_delete`` deletes the
account and everything personal after the password is entered again; item statistics keep the
answers anonymously and certificates are revoked (``quizzes.api.learner_erase``); everything
else goes with the account (CASCADE).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts import api as accounts_api
from progress import api as progress_api
from quizzes import api as quizzes_api
from reviews import api as reviews_api

EXPORT_FORMAT_VERSION = 1


def account_export(*, user) -> dict[str, Any]:
    """Everything Lernpfad stores about the user, as JSON-ready data: 23 queries, whatever size."""
    return {
        "format_version": EXPORT_FORMAT_VERSION,
        "exported_at": timezone.now(),
        # account, devices, tokens
        **accounts_api.learner_export(user),
        # Enrollments, progress, events and notes: "courses" since format version 1, when they
        # were the courses app's.
        "courses": progress_api.learner_export(user.pk),
        "quizzes": quizzes_api.learner_export(user.pk),
        "reviews": reviews_api.learner_export(user.pk),
    }


@transaction.atomic
def account_delete(*, user, password: str) -> None:
    """Delete the account and the learner's data; the password must be entered again.

    Raises Forbidden (password_incorrect) and changes nothing when the password is wrong.
    """
    accounts_api.password_confirm(user=user, password=password)
    # Lock the row: a second deletion (double click) waits and then finds nothing to delete.
    if not accounts_api.user_lock(user_id=user.pk):
        return
    quizzes_api.learner_erase(user.pk)
    accounts_api.user_delete(user_id=user.pk)
