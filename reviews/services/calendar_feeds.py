"""The learner's private calendar address: create (replacing the live one), rotate and revoke.

An address is live while it is not revoked and was made under the account's current credentials
epoch: a password set or "log out everywhere" moves the epoch on (accounts.services), so the old
address answers 410 as every token ends, without accounts knowing this app."""

from __future__ import annotations

import datetime
import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import api as accounts_api
from lms.errors import Conflict, NotFound
from reviews.models import CalendarFeed


def calendar_feed_missing_error() -> NotFound:
    """The learner has no live address (the API's read, rotate and revoke answer 404)."""
    return NotFound(_("You have no calendar address."), code="calendar_feed_missing")


@transaction.atomic
def calendar_feed_create(
    *, learner_id: int, at: datetime.datetime | None = None, replace: bool = True
) -> CalendarFeed:
    """A new private address for the learner. With ``replace`` the live one (if any) is revoked
    with it, so a leaked address is replaced by creating another; without, a live one is a
    Conflict (calendar_feed_exists), so a retried request does not end the address in use."""
    at = at or timezone.now()
    # The account's row lock orders this against a revocation and a second create.
    epoch = accounts_api.credentials_epoch_lock(user_id=learner_id) or 0
    if not replace and _live(learner_id=learner_id, epoch=epoch).exists():
        raise Conflict(
            _("You already have a calendar address: rotate it to get a new one."),
            code="calendar_feed_exists",
        )
    return _replace(learner_id=learner_id, epoch=epoch, at=at)


@transaction.atomic
def calendar_feed_rotate(*, learner_id: int, at: datetime.datetime | None = None) -> CalendarFeed:
    """Replace the learner's live address by a new one (the old answers 410); NotFound
    (calendar_feed_missing) when there is none."""
    epoch = accounts_api.credentials_epoch_lock(user_id=learner_id) or 0
    if not _live(learner_id=learner_id, epoch=epoch).exists():
        raise calendar_feed_missing_error()
    return _replace(learner_id=learner_id, epoch=epoch, at=at or timezone.now())


@transaction.atomic
def calendar_feed_revoke(*, learner_id: int, at: datetime.datetime | None = None) -> None:
    """Revoke the learner's live address (it answers 410); NotFound (calendar_feed_missing)
    when there is none."""
    epoch = accounts_api.credentials_epoch_lock(user_id=learner_id) or 0
    if not _live(learner_id=learner_id, epoch=epoch).exists():
        raise calendar_feed_missing_error()
    calendar_feed_revoke_all(learner_id=learner_id, at=at)


def calendar_feed_revoke_all(*, learner_id: int, at: datetime.datetime | None = None) -> int:
    """Revoke the learner's unrevoked addresses (how many: 0 or 1), live or voided by a newer
    credentials epoch."""
    return CalendarFeed.objects.filter(learner_id=learner_id, revoked_at__isnull=True).update(
        revoked_at=at or timezone.now()
    )


def _live(*, learner_id: int, epoch: int):
    return CalendarFeed.objects.filter(
        learner_id=learner_id, revoked_at__isnull=True, credentials_epoch=epoch
    )


def _replace(*, learner_id: int, epoch: int, at: datetime.datetime) -> CalendarFeed:
    calendar_feed_revoke_all(learner_id=learner_id, at=at)
    return CalendarFeed.objects.create(
        learner_id=learner_id,
        token=secrets.token_urlsafe(32),
        created_at=at,
        credentials_epoch=epoch,
    )
