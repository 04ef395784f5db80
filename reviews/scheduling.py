"""FSRS scheduling and local-day arithmetic, as plain Python (no Django, no database).

A card's scheduling state lives in database columns; ``CardState`` is that row's state as a value,
converted to and from ``fsrs.Card``. All instants are timezone-aware UTC.
"""

from __future__ import annotations

import datetime
import functools
import zoneinfo
from dataclasses import dataclass

import fsrs

UTC = datetime.UTC

# The quick-check self-ratings of the step page and the FSRS rating each one counts as.
QUICK_CHECK_RATINGS: dict[str, fsrs.Rating] = {
    "knew": fsrs.Rating.Good,
    "partly": fsrs.Rating.Hard,
    "not_yet": fsrs.Rating.Again,
}
RATING_NAMES: dict[int, str] = {1: "again", 2: "hard", 3: "good", 4: "easy"}
DEFAULT_DESIRED_RETENTION = 0.9


@dataclass(frozen=True)
class CardState:
    """The FSRS state of one card, as stored in its row."""

    state: int
    learning_step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime.datetime
    last_review: datetime.datetime | None

    @classmethod
    def new(cls, *, at: datetime.datetime) -> CardState:
        """A card nobody has reviewed yet: learning step 0, due at ``at``."""
        card = fsrs.Card(card_id=0, due=_utc(at))
        return cls.from_fsrs(card)

    @classmethod
    def from_fsrs(cls, card: fsrs.Card) -> CardState:
        return cls(
            state=int(card.state),
            learning_step=card.step,
            stability=card.stability,
            difficulty=card.difficulty,
            due=_utc(card.due),
            last_review=_utc(card.last_review) if card.last_review else None,
        )

    def to_fsrs(self) -> fsrs.Card:
        return fsrs.Card(
            card_id=0,
            state=fsrs.State(self.state),
            step=self.learning_step,
            stability=self.stability,
            difficulty=self.difficulty,
            due=_utc(self.due),
            last_review=_utc(self.last_review) if self.last_review else None,
        )

    @property
    def is_new(self) -> bool:
        return self.last_review is None


@dataclass(frozen=True)
class IntervalPreview:
    """What one rating would do to a card now (the label Anki shows above its buttons)."""

    rating: int
    name: str
    due: datetime.datetime
    seconds: int


@functools.lru_cache(maxsize=64)
def scheduler_for(*, desired_retention: float, fuzzing: bool = True) -> fsrs.Scheduler:
    """The FSRS scheduler for a learner's desired retention (0.80–0.97); one per setting."""
    return fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=fuzzing)


def card_review(
    *,
    state: CardState,
    rating: int,
    at: datetime.datetime,
    desired_retention: float,
    duration_ms: int | None = None,
) -> CardState:
    """The card's state after a review with ``rating`` (1–4) at ``at`` (fuzzing on)."""
    scheduler = scheduler_for(desired_retention=desired_retention)
    card, _log = scheduler.review_card(
        state.to_fsrs(), fsrs.Rating(rating), review_datetime=_utc(at), review_duration=duration_ms
    )
    return CardState.from_fsrs(card)


def intervals_preview(
    *, state: CardState, at: datetime.datetime, desired_retention: float
) -> list[IntervalPreview]:
    """The due date each rating 1–4 would give.

    Unfuzzed: like Anki, the buttons show the plain interval, and the review itself then adds
    the fuzz (a few percent on intervals of three days and more).
    """
    at = _utc(at)
    days_since_review = (at - state.last_review).days if state.last_review else None
    intervals = _preview_intervals(
        state.state,
        state.learning_step,
        state.stability,
        state.difficulty,
        days_since_review,
        desired_retention,
    )
    return [
        IntervalPreview(
            rating=rating,
            name=RATING_NAMES[rating],
            due=at + interval,
            seconds=max(0, int(interval.total_seconds())),
        )
        for rating, interval in enumerate(intervals, start=1)
    ]


# The four unfuzzed intervals of a card state. FSRS (fsrs 6) reads the review time only as whole
# days since the last review and adds the interval to it, so the intervals are a function of the
# state and that day count: the same card shown again in the due queue (most of the queue, each
# time a learner opens it) costs a dictionary look-up instead of four FSRS reviews. A test checks
# the cached intervals against FSRS for many states and review times.
_PREVIEW_ANCHOR = datetime.datetime(2000, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=20_000)
def _preview_intervals(
    state: int,
    learning_step: int | None,
    stability: float | None,
    difficulty: float | None,
    days_since_review: int | None,
    desired_retention: float,
) -> tuple[datetime.timedelta, ...]:
    scheduler = scheduler_for(desired_retention=desired_retention, fuzzing=False)
    # Any instant with that day count since the last review gives the same intervals.
    last_review = None if days_since_review is None else _PREVIEW_ANCHOR
    at = _PREVIEW_ANCHOR + datetime.timedelta(days=days_since_review or 0)
    card = fsrs.Card(
        card_id=0,
        state=fsrs.State(state),
        step=learning_step,
        stability=stability,
        difficulty=difficulty,
        due=at,
        last_review=last_review,
    )
    return tuple(
        _utc(scheduler.review_card(card, rating, review_datetime=at)[0].due) - at
        for rating in fsrs.Rating
    )


@dataclass(frozen=True)
class LocalDay:
    """A learner's local calendar day and its bounds as UTC instants."""

    date: datetime.date
    start: datetime.datetime
    end: datetime.datetime


def local_day(*, time_zone: str, at: datetime.datetime) -> LocalDay:
    """The local day (in ``time_zone``) that contains ``at``; DST days are 23 or 25 hours."""
    return local_day_of(time_zone=time_zone, date=_utc(at).astimezone(zone_info(time_zone)).date())


def local_day_of(*, time_zone: str, date: datetime.date) -> LocalDay:
    zone = zone_info(time_zone)
    start = datetime.datetime.combine(date, datetime.time.min, tzinfo=zone)
    end = datetime.datetime.combine(date + datetime.timedelta(days=1), datetime.time.min, zone)
    return LocalDay(date=date, start=start.astimezone(UTC), end=end.astimezone(UTC))


def in_quiet_hours(
    *, at: datetime.time, start: datetime.time | None, end: datetime.time | None
) -> bool:
    """True when the local time ``at`` lies in [start, end); the range may cross midnight."""
    if start is None or end is None or start == end:
        return False
    if start < end:
        return start <= at < end
    return at >= start or at < end


@dataclass(frozen=True)
class ReminderSchedule:
    """A learner's daily reminder: their time zone, reminder time and quiet hours.

    A reminder time inside the quiet hours moves to their end. Each local date has exactly one
    reminder instant (see ``instant_on``), so "one digest per local day" needs no DST exception.
    """

    time_zone: str
    reminder_time: datetime.time
    quiet_hours_start: datetime.time | None = None
    quiet_hours_end: datetime.time | None = None

    @property
    def local_time(self) -> datetime.time:
        """The local time of day the reminder is due (the quiet hours' end if it falls in them)."""
        if in_quiet_hours(
            at=self.reminder_time, start=self.quiet_hours_start, end=self.quiet_hours_end
        ):
            return self.quiet_hours_end
        return self.reminder_time

    def instant_on(self, date: datetime.date) -> datetime.datetime:
        """The reminder's UTC instant on the local ``date``."""
        return _local_instant(self.time_zone, date, self.local_time)

    def date_in_window(
        self, *, start: datetime.datetime, end: datetime.datetime
    ) -> datetime.date | None:
        """The local date whose reminder instant lies in (start, end], if any; the window is
        shorter than a day, so only the local dates of its two ends can qualify."""
        zone = zone_info(self.time_zone)
        for date in (end.astimezone(zone).date(), start.astimezone(zone).date()):
            if start < self.instant_on(date) <= end:
                return date
        return None

    def next_after(self, at: datetime.datetime) -> datetime.datetime:
        """The first reminder instant strictly after ``at``."""
        date = at.astimezone(zone_info(self.time_zone)).date()
        # The day before counts too: a nonexistent late-evening time can land after midnight.
        for offset in (-1, 0, 1, 2):
            instant = self.instant_on(date + datetime.timedelta(days=offset))
            if instant > at:
                return instant
        raise AssertionError("a reminder instant within two days")  # pragma: no cover

    def quiet_at(self, at: datetime.datetime) -> bool:
        """The instant ``at`` lies in the learner's quiet hours (on their clock)."""
        local = at.astimezone(zone_info(self.time_zone)).time()
        return in_quiet_hours(at=local, start=self.quiet_hours_start, end=self.quiet_hours_end)


@functools.lru_cache(maxsize=8192)
def _local_instant(time_zone: str, date: datetime.date, time: datetime.time) -> datetime.datetime:
    """The UTC instant of a local date and time, as PostgreSQL's ``AT TIME ZONE`` reads it: a time
    that does not exist (clocks go forward) uses the offset before the change, a time that
    happens twice (clocks go back) is its second occurrence. Both are the later of the two
    readings (fold 0 and fold 1). Cached: a planner run asks for the same few zones and times."""
    zone = zone_info(time_zone)
    local = datetime.datetime.combine(date, time)
    first = local.replace(tzinfo=zone, fold=0).astimezone(UTC)
    second = local.replace(tzinfo=zone, fold=1).astimezone(UTC)
    return max(first, second)


def zone_info(name: str) -> zoneinfo.ZoneInfo:
    """The IANA zone of that name (UTC for a name this machine does not know)."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        # The accounts validator rejects unknown names; a stale row falls back to UTC, not a 500.
        return zoneinfo.ZoneInfo("UTC")


def _utc(value: datetime.datetime) -> datetime.datetime:
    if value.tzinfo is None:
        raise ValueError("naive datetime: Lernpfad keeps every instant timezone-aware")
    return value.astimezone(UTC)
