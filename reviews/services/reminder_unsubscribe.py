"""The one-click unsubscribe of reminder e-mails: a signed token in every digest turns them
off without a log-in."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core import signing
from django.db import transaction

from lms.errors import InvalidInput

UNSUBSCRIBE_SALT = "reviews.reminder-email-unsubscribe"


def reminder_unsubscribe_token(learner_id: int) -> str:
    """A signed, non-expiring token that turns this learner's reminder e-mails off."""
    return signing.dumps({"learner": learner_id}, salt=UNSUBSCRIBE_SALT)


@transaction.atomic
def reminder_email_unsubscribe(*, token: str) -> str | None:
    """Turn reminder e-mails off for the learner the token names (idempotent, no log-in).

    Returns the learner's language for the confirmation page (None if the account is gone).
    """
    try:
        learner_id = int(signing.loads(token, salt=UNSUBSCRIBE_SALT)["learner"])
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise InvalidInput(
            "This unsubscribe link is not valid.", code="invalid_unsubscribe_token"
        ) from exc
    learners = get_user_model().objects.filter(pk=learner_id)
    language = learners.values_list("language", flat=True).first()
    learners.update(reminder_email=False, next_reminder_at=None)
    return language
