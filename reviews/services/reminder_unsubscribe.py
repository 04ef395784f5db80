"""The one-click unsubscribe of reminder e-mails: a signed token in every digest turns them
off without a log-in."""

from __future__ import annotations

from django.core import signing

from accounts import api as accounts_api
from lms.errors import InvalidInput

UNSUBSCRIBE_SALT = "reviews.reminder-email-unsubscribe"


def reminder_unsubscribe_token(learner_id: int) -> str:
    """A signed, non-expiring token that turns this learner's reminder e-mails off."""
    return signing.dumps({"learner": learner_id}, salt=UNSUBSCRIBE_SALT)


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
    return accounts_api.reminder_email_turn_off(learner_id=learner_id)
