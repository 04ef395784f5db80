"""When a review happened: a client's offline review time, checked against the server's clock
and the card (FSRS counts days from the card's last review, so the log must stay in time order)."""

from __future__ import annotations

import datetime

from django.utils.translation import gettext as _

from lms.client_time import CLOCK_SKEW_TOLERANCE, EARLIEST_CLIENT_TIME
from lms.errors import InvalidInput
from lms.local_time import as_utc

REVIEWED_AT_IN_FUTURE = "reviewed_at_in_future"
REVIEWED_AT_TOO_EARLY = "reviewed_at_too_early"
# How long after the last review a review counts that started before it but applies after it.
_AFTER_THE_LAST = datetime.timedelta(microseconds=1)


def review_time(
    *,
    reviewed_at: datetime.datetime | None,
    now: datetime.datetime,
    created_at: datetime.datetime | None,
    last_review: datetime.datetime | None,
) -> datetime.datetime:
    """The instant a review counts at: ``reviewed_at`` (or ``now``), never later than ``now`` and
    never before the card's last review; of two concurrent reviews the later one counts 1 µs after.

    Refused (InvalidInput): over CLOCK_SKEW_TOLERANCE ahead (``reviewed_at_in_future``), or before
    the card's creation, last review or EARLIEST_CLIENT_TIME (``reviewed_at_too_early``).
    """
    if reviewed_at is None:
        if last_review is None or now > last_review:
            return now
        return as_utc(last_review) + _AFTER_THE_LAST
    reviewed_at = as_utc(reviewed_at)
    if reviewed_at > now + CLOCK_SKEW_TOLERANCE:
        raise InvalidInput(
            _("reviewed_at lies in the future; check the device clock."),
            code=REVIEWED_AT_IN_FUTURE,
            detail={"server_time": now.isoformat()},
        )
    earliest = max(
        [EARLIEST_CLIENT_TIME] + [as_utc(t) for t in (created_at, last_review) if t is not None]
    )
    # Within the tolerance the review happened "now" as far as the server can tell.
    at = min(reviewed_at, now)
    if at < earliest:
        raise InvalidInput(
            _("reviewed_at lies before the card's last review (or before the card existed)."),
            code=REVIEWED_AT_TOO_EARLY,
            detail={"earliest": earliest.isoformat(), "server_time": now.isoformat()},
        )
    return at
