"""The learner's privacy rights across every app: export everything stored about them, and
erasure. The app owns no table; it asks each app's ``api``."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts import api as accounts_api
from courses import api as courses_api
from lti import api as lti_api
from progress import api as progress_api
from quizzes import api as quizzes_api
from reviews import api as reviews_api

EXPORT_FORMAT_VERSION = 1


def account_export(*, user) -> dict[str, Any]:
    """Everything Lernpfad stores about the user, as JSON-ready data: 28 queries, whatever size."""
    return {
        "format_version": EXPORT_FORMAT_VERSION,
        "exported_at": timezone.now(),
        # account, devices, tokens
        **accounts_api.learner_export(user),
        # Key kept as "courses" since format version 1.
        "courses": progress_api.learner_export(user.pk),
        "quizzes": quizzes_api.learner_export(user.pk),
        "reviews": reviews_api.learner_export(user.pk),
        # Who LTI platforms said the learner is (format version 1 gained this key).
        "lti": lti_api.learner_export(user.pk),
        # The modules a course admin administers (format version 1 gained this key).
        "module_administrators": courses_api.administered_modules_export(user.pk),
    }


@transaction.atomic
def account_delete(*, user, password: str | None = None, username: str | None = None) -> None:
    """Delete the account and the learner's data; a wrong password raises Forbidden and
    changes nothing. An account without a password (single sign-on, an LTI platform) confirms
    with its user name instead."""
    if user.has_usable_password() or username is None:
        accounts_api.password_confirm(user=user, password=password or "")
    else:
        accounts_api.username_confirm(user=user, username=username)
    # Lock the row: a second deletion (double click) waits and then finds nothing to delete.
    if not accounts_api.user_lock(user_id=user.pk):
        return
    quizzes_api.learner_erase(user.pk)
    lti_api.learner_erase(user.pk)
    accounts_api.user_delete(user_id=user.pk)
