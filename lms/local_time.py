"""A learner's local time as plain Python (no Django, no database): local days, quiet hours and
the daily reminder instant, across daylight-saving changes.
All instants are timezone-aware UTC.
"""

from __future__ import annotations

import datetime
import functools
import zoneinfo
from dataclasses import dataclass

UTC = datetime.UTC


@dataclass(frozen=True)
class LocalDay:
    """A learner's local calendar day and its bounds as UTC instants."""

    date: datetime.date
    start: datetime.datetime
    end: datetime.datetime


def local_day(*, time_zone: str, at: datetime.datetime) -> LocalDay:
    """The local day (in ``time_zone``) that contains ``at``; DST days are 23 or 25 hours."""
    return local_day_of(
        time_zone=time_zone, date=as_utc(at).astimezone(zone_info(time_zone)).date()
    )


def local_day_of(*, time_zone: str, date: datetime.date) -> LocalDay:
    """The local ``date`` in ``time_zone``, from its local midnight to the next one."""
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


# Names a tz database answers that are no place's zone: "localtime" is the host's own zone,
# "Factory" a placeholder, "posixrules" a template; "posix/…" and "right/…" repeat the zones.
NOT_TIME_ZONES = frozenset({"localtime", "Factory", "posixrules"})
_NOT_TIME_ZONE_FOLDERS = ("posix/", "right/")


@functools.cache
def time_zone_names() -> frozenset[str]:
    """The IANA time zone names a learner may choose; cached, as reading them walks the tz files."""
    return frozenset(
        name
        for name in zoneinfo.available_timezones()
        if name not in NOT_TIME_ZONES and not name.startswith(_NOT_TIME_ZONE_FOLDERS)
    )


def is_time_zone(name: str) -> bool:
    return name in time_zone_names()


def zone_info(name: str) -> zoneinfo.ZoneInfo:
    """The IANA zone of that name (UTC for a name this machine does not know)."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        # The accounts validator rejects unknown names; a stale row falls back to UTC, not a 500.
        return zoneinfo.ZoneInfo("UTC")


def as_utc(value: datetime.datetime) -> datetime.datetime:
    """The same instant in UTC; a naive datetime is an error (it names no instant)."""
    if value.tzinfo is None:
        raise ValueError("naive datetime: Lernpfad keeps every instant timezone-aware")
    return value.astimezone(UTC)
