"""When a review happened: the time a client reports for a review done offline, checked against
the server's clock and the card. No queries; the review service applies it to the card it read.

A review is scheduled from its own time (FSRS reads the days elapsed since the card's last
review), so a review done offline and synced a day later must not count from the sync. The
client's clock is believed as far as lms.client_time says (the same rule as the offline progress
events): up to 5 minutes ahead counts as "now", further ahead is refused. A review cannot have
happened before the card existed or before its last review: the review log would no longer be
in time order, and FSRS would see a negative elapsed time.
"""

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
    """The instant a review counts at: ``now`` when the client sent no time (but after the
    card's last review), else its ``reviewed_at`` (timezone-aware), no later than ``now``.

    ``now`` is taken when the request starts. Of two requests reviewing one card at once, the
    one that applies second (it waited for the card's lock until the other committed) may hold
    the earlier ``now``. Its review still comes after the
    other one, so it counts a microsecond (PostgreSQL's resolution) after it, 0 days elapsed:
    the card's ``last_review`` never goes back, stays its newest log's ``reviewed_at``, and each
    review applied without a client time has a time of its own (tests/cluster/test_failures.py
    and tests/reliability/test_races.py check that under load).

    Refused (InvalidInput, 400): more than CLOCK_SKEW_TOLERANCE ahead of ``now``
    (``reviewed_at_in_future``, detail ``server_time``), or before the card's creation, its
    last review or EARLIEST_CLIENT_TIME (``reviewed_at_too_early``, detail ``earliest`` and
    ``server_time``). A review at the very instant of the last one is allowed (0 days elapsed).
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
