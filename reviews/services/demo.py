"""The demo learner's review history (``manage.py demo_setup``), replayed through the real due
queue and ``review_record`` at past times."""

from __future__ import annotations

import datetime

from reviews.models import ReviewLog
from reviews.selectors import DUE_PAGE_MAX, due_queue
from reviews.services.reviewing import review_record

# A learner who mostly remembers: Good, now and then Again, Hard or Easy (by review number).
_RATINGS = (3, 3, 1, 3, 4, 3, 2, 3, 3, 1, 3, 4)
# Sessions after this many cards stop (a day's limit holds back the rest, as it would).
_SESSION_CARDS = 40
_SESSION_WINDOW = datetime.timedelta(hours=1)
# How far ahead yesterday's session looks for a card to review early when none was due.
_EARLY_REVIEW_HORIZON = datetime.timedelta(days=30)


def demo_reviews_replay(*, learner, days: int, now: datetime.datetime) -> int:
    """Review what was due on each of the last ``days`` days, skipping one day in five; a learner
    who has reviewed before is left alone. Returns the reviews recorded."""
    if ReviewLog.objects.filter(learner_id=learner.pk).exists():
        return 0
    recorded = 0
    for days_ago in range(days, 0, -1):
        if days_ago % 5 == 4 and days_ago > 3:
            continue  # a day off
        at = now - datetime.timedelta(days=days_ago)
        # Yesterday's session was cut short, so the cards it left in learning are due now.
        for _round in range(1 if days_ago == 1 else 3):
            # What comes due within the session's hour too, so a minute does not leave one out.
            queue = due_queue(learner=learner, at=at + _SESSION_WINDOW, limit=DUE_PAGE_MAX)
            if not queue.cards and days_ago == 1 and _round == 0:
                # Nothing came due yesterday: review the next card early, so the streak is sure.
                queue = due_queue(learner=learner, at=now + _EARLY_REVIEW_HORIZON, limit=1)
            if not queue.cards:
                break
            for card in queue.cards[: _SESSION_CARDS - 1]:
                at += datetime.timedelta(seconds=20)
                review_record(
                    learner=learner,
                    card_id=card.id,
                    rating=_RATINGS[recorded % len(_RATINGS)],
                    duration_ms=6000 + (recorded * 1300) % 9000,
                    client_review_id=f"demo-{card.id}-{days_ago}-{recorded}",
                    at=at,
                )
                recorded += 1
            at += datetime.timedelta(minutes=12)
    return recorded
