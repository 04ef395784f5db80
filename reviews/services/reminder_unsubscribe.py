"""The unsubscribe link of reminder e-mails: a signed, expiring key of one e-mail, no log-in.
GET only reads (mail scanners open every link); POST turns the reminders off (RFC 8058)."""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass

from django.core import signing

from accounts import api as accounts_api
from lms.errors import InvalidInput, NotFound
from reviews.models import ReminderDigest

UNSUBSCRIBE_SALT = "reviews.reminder-unsubscribe.v2"
# Two months: long after anyone acts on a reminder; an old leaked mail stops being a switch.
UNSUBSCRIBE_MAX_AGE = datetime.timedelta(days=60)


@dataclass(frozen=True)
class UnsubscribeTarget:
    """The learner an unsubscribe link is for, as its page needs them."""

    learner_id: int
    language: str
    reminders_on: bool


def reminder_unsubscribe_key() -> str:
    """A fresh random key for one e-mail's unsubscribe link (128 bits, URL-safe)."""
    return secrets.token_urlsafe(16)


def reminder_unsubscribe_token(key: str) -> str:
    """The signed, expiring token of the link with this key: ``<key>:<time>:<signature>``."""
    return _signer().sign(key)


def _signer() -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=UNSUBSCRIBE_SALT)


def _learner_of_key(key: str):
    learner_id = (
        ReminderDigest.objects.filter(unsubscribe_key=key)
        .values_list("learner_id", flat=True)
        .first()
    )
    return None if learner_id is None else accounts_api.reminder_recipient(learner_id)


def reminder_unsubscribe_target(*, token: str) -> UnsubscribeTarget:
    """Whose reminders the link turns off (reads only); InvalidInput for a changed or expired
    link, NotFound when its e-mail or account is gone."""
    try:
        key = _signer().unsign(token, max_age=UNSUBSCRIBE_MAX_AGE)
    except signing.SignatureExpired as exc:
        # Genuine but too old: it still says whose it was, so the page can speak their language.
        learner = _learner_of_key(_signer().unsign(token))
        raise InvalidInput(
            "This unsubscribe link has expired.",
            code="unsubscribe_link_expired",
            detail={"language": learner.language if learner else None},
        ) from exc
    except signing.BadSignature as exc:
        raise InvalidInput(
            "This unsubscribe link is not valid.", code="invalid_unsubscribe_token"
        ) from exc
    learner = _learner_of_key(key)
    if learner is None:
        raise NotFound("This unsubscribe link is no longer in use.", code="unsubscribe_link_gone")
    return UnsubscribeTarget(
        learner_id=learner.id,
        language=learner.language,
        reminders_on=learner.reminders.reminder_email,
    )


def reminder_email_unsubscribe(*, token: str) -> str:
    """Turn reminder e-mails off for the link's learner (idempotent); returns their language."""
    target = reminder_unsubscribe_target(token=token)
    language = accounts_api.reminder_email_turn_off(learner_id=target.learner_id)
    return language or target.language
