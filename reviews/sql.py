"""The due queue, the learner's hottest read, as one plain statement.

Why not the ORM: today's review counts, the live due counts and the next page of cards with what
schedules each come in one round trip over the covering (learner, due) index; as ORM queries they
were three, whose construction cost more CPU than PostgreSQL spent answering them
(bench/results/latest.md, due queue). Everything else in the app uses the ORM.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from dataclasses import dataclass

from courses.data import RetiredContent
from lms.sql import dict_rows
from reviews.models import ReviewCard, ReviewLog
from reviews.scheduling import CARD_STATE_FIELDS, DEFAULT_PARAMETERS, CardState, Parameters

# ``live``: the learner's live cards due before the local day ends, read from the covering index.
# The live-card condition is the SQL twin of reviews.selectors.live_cards_q (a test compares them).
# The page: seen cards first (oldest due first), then new ones; each part read in the index's
# order with its own LIMIT, so a learner with thousands of due cards is not sorted whole. Cards of
# ``first_steps`` (the steps a failed exam attempt asks to review) come before all others, in the
# same order among themselves; with no such steps that part is empty.
_DUE_QUEUE_SQL = """
WITH live AS NOT MATERIALIZED (
    SELECT c.id, c.due, c.last_review IS NULL AS is_new,
           c.step_id = ANY(%(first_steps)s) AS is_first
    FROM reviews_reviewcard c
    WHERE c.learner_id = %(learner)s AND c.due < %(day_end)s
      AND NOT c.suspended
      AND NOT ((c.kind = %(definition)s AND c.step_id = ANY(%(retired_steps)s))
               OR (c.kind = %(quick_check)s AND c.quick_check_id = ANY(%(retired_quick_checks)s)))
),
counts AS (
    SELECT COUNT(*) FILTER (WHERE due <= %(at)s) AS due_total,
           COUNT(*) FILTER (WHERE due <= %(at)s AND is_new) AS due_new,
           COUNT(*) FILTER (WHERE due > %(at)s) AS due_later_today
    FROM live
),
today AS (
    SELECT COUNT(*) AS reviewed_today,
           COUNT(*) FILTER (WHERE l.before_last_review IS NULL) AS new_today
    FROM reviews_reviewlog l
    WHERE l.learner_id = %(learner)s AND l.source = %(review)s
      AND l.reviewed_at >= %(day_start)s AND l.reviewed_at < %(day_end)s
),
page AS (
    (SELECT id, is_new, due, is_first FROM live WHERE due <= %(at)s AND is_first
     ORDER BY is_new, due, id LIMIT %(limit)s)
    UNION ALL
    (SELECT id, is_new, due, is_first FROM live WHERE due <= %(at)s AND NOT is_first
     AND NOT is_new ORDER BY due, id LIMIT %(limit)s)
    UNION ALL
    (SELECT id, is_new, due, is_first FROM live WHERE due <= %(at)s AND NOT is_first
     AND is_new ORDER BY due, id LIMIT %(limit)s)
    ORDER BY is_first DESC, is_new, due, id LIMIT %(limit)s
)
SELECT today.reviewed_today, today.new_today,
       counts.due_total, counts.due_new, counts.due_later_today,
       card.id, card.kind, card.step_id, card.quick_check_id,
       card.state, card.learning_step, card.stability, card.difficulty, card.due, card.last_review,
       COALESCE(lp.parameters, mp.parameters) AS parameters,
       COALESCE(ed.exam_on, ep.exam_on) AS exam_on
FROM today
CROSS JOIN counts
LEFT JOIN page ON TRUE
LEFT JOIN reviews_reviewcard card ON card.id = page.id
LEFT JOIN reviews_learnerparameters lp ON lp.learner_id = card.learner_id
LEFT JOIN reviews_moduleparameters mp ON mp.module_id = card.module_id
LEFT JOIN reviews_examdate ed ON ed.learner_id = card.learner_id AND ed.module_id = card.module_id
LEFT JOIN reviews_moduleexamplan ep ON ep.module_id = card.module_id
ORDER BY page.is_first DESC, page.is_new, page.due, page.id
"""


def _parameters(text: str | None) -> Parameters:
    """A jsonb column as the driver hands it to Django (text), else the defaults."""
    return tuple(json.loads(text)) if text else DEFAULT_PARAMETERS


@dataclass(frozen=True)
class DueQueueCard:
    id: int
    kind: str
    step_id: int
    quick_check_id: int | None
    state: CardState
    # What schedules it: the learner's parameters (else the module's pooled ones, else the
    # defaults) and exam day (else the module's).
    parameters: Parameters
    exam_on: datetime.date | None


@dataclass(frozen=True)
class DueQueuePage:
    """Today's review counts, the live due counts (now, and later before the local day ends)
    and the next page of due cards."""

    reviewed_today: int
    new_today: int
    due_total: int
    due_new: int
    due_later_today: int
    cards: list[DueQueueCard]


def due_queue_read(
    *,
    learner_id: int,
    at: datetime.datetime,
    day_start: datetime.datetime,
    day_end: datetime.datetime,
    limit: int,
    retired: RetiredContent,
    first_step_ids: Iterable[int] = (),
) -> DueQueuePage:
    """The learner's live cards due at ``at``, ``limit`` at most, those of ``first_step_ids``
    first, with the counts."""
    rows = dict_rows(
        _DUE_QUEUE_SQL,
        {
            "learner": learner_id,
            "at": at,
            "day_start": day_start,
            "day_end": day_end,
            "limit": limit,
            "review": ReviewLog.Source.REVIEW.value,
            "definition": ReviewCard.Kind.DEFINITION.value,
            "quick_check": ReviewCard.Kind.QUICK_CHECK.value,
            "retired_steps": sorted(retired.step_ids),
            "retired_quick_checks": sorted(retired.quick_check_ids),
            "first_steps": sorted(set(first_step_ids)),
        },
    )
    first = rows[0]
    return DueQueuePage(
        reviewed_today=first["reviewed_today"],
        new_today=first["new_today"],
        due_total=first["due_total"],
        due_new=first["due_new"],
        due_later_today=first["due_later_today"],
        cards=[
            DueQueueCard(
                id=row["id"],
                kind=row["kind"],
                step_id=row["step_id"],
                quick_check_id=row["quick_check_id"],
                state=CardState(**{name: row[name] for name in CARD_STATE_FIELDS}),
                parameters=_parameters(row["parameters"]),
                exam_on=row["exam_on"],
            )
            for row in rows
            if row["id"] is not None
        ],
    )


# Why not the ORM: the card locked with what schedules it and the replay look-up in one statement;
# the ORM query with its four subqueries cost 2.5 times the CPU of the whole review request.
_CARD_FOR_REVIEW_SQL = """
SELECT card.created_at,
       card.state, card.learning_step, card.stability, card.difficulty, card.due, card.last_review,
       COALESCE(lp.parameters, mp.parameters) AS parameters,
       COALESCE(ed.exam_on, ep.exam_on) AS exam_on,
       (SELECT l.id FROM reviews_reviewlog l
        WHERE l.learner_id = card.learner_id AND l.client_review_id = %(client_review_id)s)
       AS earlier_log_id
FROM reviews_reviewcard card
LEFT JOIN reviews_learnerparameters lp ON lp.learner_id = card.learner_id
LEFT JOIN reviews_moduleparameters mp ON mp.module_id = card.module_id
LEFT JOIN reviews_examdate ed ON ed.learner_id = card.learner_id AND ed.module_id = card.module_id
LEFT JOIN reviews_moduleexamplan ep ON ep.module_id = card.module_id
WHERE card.id = %(card)s AND card.learner_id = %(learner)s
FOR UPDATE OF card
"""


@dataclass(frozen=True)
class CardForReview:
    created_at: datetime.datetime
    state: CardState
    parameters: Parameters
    exam_on: datetime.date | None
    # The learner's log with the request's client review id, if any (a replay).
    earlier_log_id: int | None


def card_for_review_lock(
    *, card_id: int, learner_id: int, client_review_id: str
) -> CardForReview | None:
    """Lock the learner's card (inside the caller's transaction) and read what a review needs."""
    rows = dict_rows(
        _CARD_FOR_REVIEW_SQL,
        {"card": card_id, "learner": learner_id, "client_review_id": client_review_id},
    )
    if not rows:
        return None
    row = rows[0]
    return CardForReview(
        created_at=row["created_at"],
        state=CardState(**{name: row[name] for name in CARD_STATE_FIELDS}),
        parameters=_parameters(row["parameters"]),
        exam_on=row["exam_on"],
        earlier_log_id=row["earlier_log_id"],
    )
