"""FSRS conversion and interval previews: plain Python."""

from __future__ import annotations

import datetime

import fsrs
import pytest

from reviews.scheduling import CardState, card_review, intervals_preview, scheduler_for

UTC = datetime.UTC
AT = datetime.datetime(2030, 6, 12, 10, 0, tzinfo=UTC)


def test_a_new_card_round_trips_through_fsrs():
    state = CardState.new(at=AT)
    assert (state.state, state.learning_step, state.stability, state.last_review) == (
        1,
        0,
        None,
        None,
    )
    assert state.is_new and CardState.from_fsrs(state.to_fsrs()) == state


def test_a_review_moves_the_card_and_keeps_times_utc():
    berlin = datetime.timezone(datetime.timedelta(hours=2))
    after = card_review(
        state=CardState.new(at=AT), rating=3, at=AT.astimezone(berlin), desired_retention=0.9
    )
    assert after.last_review == AT and after.last_review.tzinfo == UTC
    assert after.due == AT + datetime.timedelta(minutes=10) and after.due.tzinfo == UTC
    assert after.stability == pytest.approx(2.3065) and after.learning_step == 1


def test_naive_times_are_refused():
    with pytest.raises(ValueError, match="naive"):
        CardState.new(at=datetime.datetime(2030, 1, 1))


def _review_state(stability: float) -> CardState:
    return CardState(
        state=int(fsrs.State.Review),
        learning_step=None,
        stability=stability,
        difficulty=5.0,
        due=AT,
        last_review=AT - datetime.timedelta(days=10),
    )


def test_previews_grow_from_again_to_easy_and_are_unfuzzed():
    first = intervals_preview(state=_review_state(10.0), at=AT, desired_retention=0.9)
    second = intervals_preview(state=_review_state(10.0), at=AT, desired_retention=0.9)
    assert first == second
    assert [p.rating for p in first] == [1, 2, 3, 4]
    assert [p.name for p in first] == ["again", "hard", "good", "easy"]
    seconds = [p.seconds for p in first]
    assert seconds == sorted(seconds) and seconds[0] == 600  # relearning step: 10 minutes
    assert all(p.due == AT + datetime.timedelta(seconds=p.seconds) for p in first)


def test_a_higher_desired_retention_gives_shorter_intervals():
    state = _review_state(20.0)

    def good(retention: float) -> int:
        return intervals_preview(state=state, at=AT, desired_retention=retention)[2].seconds

    assert good(0.97) < good(0.9) < good(0.8)


def _fsrs_preview(state: CardState, at: datetime.datetime, retention: float) -> list[int]:
    """The intervals straight from FSRS, the way the previews were computed before caching."""
    scheduler = scheduler_for(desired_retention=retention, fuzzing=False)
    return [
        int(
            (
                scheduler.review_card(state.to_fsrs(), rating, review_datetime=at)[0].due - at
            ).total_seconds()
        )
        for rating in fsrs.Rating
    ]


def test_cached_previews_equal_fsrs_for_many_states_and_review_times():
    """The previews are cached per (state, whole days since the last review, retention): for
    cards reviewed at every time of day and previewed at every other, they equal FSRS's own."""
    import random

    rng = random.Random(7)
    for _ in range(400):
        last_review = AT - datetime.timedelta(seconds=rng.randrange(0, 90 * 86400))
        at = last_review + datetime.timedelta(seconds=rng.randrange(0, 40 * 86400))
        retention = rng.choice([0.8, 0.85, 0.9, 0.95, 0.97])
        kind = rng.choice(["new", "learning", "review", "relearning"])
        if kind == "new":
            state = CardState.new(at=last_review)
            at = last_review + datetime.timedelta(seconds=rng.randrange(0, 86400))
        else:
            state = CardState(
                state={"learning": 1, "review": 2, "relearning": 3}[kind],
                learning_step=None if kind == "review" else rng.choice([0, 1]),
                stability=round(rng.uniform(0.5, 200.0), 4),
                difficulty=round(rng.uniform(1.0, 10.0), 4),
                due=at,
                last_review=last_review,
            )
        preview = intervals_preview(state=state, at=at, desired_retention=retention)
        assert [p.seconds for p in preview] == _fsrs_preview(state, at, retention), (state, at)
        assert all(p.due == at + datetime.timedelta(seconds=p.seconds) for p in preview)
