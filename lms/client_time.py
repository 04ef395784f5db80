"""How far a time a client reports (an offline event, an offline review) is believed: plain
Python, no Django. progress.event_rules and reviews.review_times apply it."""

from __future__ import annotations

import datetime

# A phone clock may run a little fast: within this a future timestamp is taken as "now";
# further ahead it is rejected, because it would pin "last activity" (or a card's last review)
# in the future.
CLOCK_SKEW_TOLERANCE = datetime.timedelta(minutes=5)
# Nothing was learned on Lernpfad before this; earlier timestamps are a broken client clock.
EARLIEST_CLIENT_TIME = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
