"""A learner's local time (lms.local_time): local days across DST, quiet hours, and the reminder
instants (ReminderSchedule): one per local day, across DST changes and quiet hours, and the same
instants PostgreSQL's AT TIME ZONE gives."""

from __future__ import annotations

import datetime

import pytest

from lms.local_time import ReminderSchedule, in_quiet_hours, local_day, local_day_of

UTC = datetime.UTC
DAY = datetime.timedelta(days=1)
# Zones with DST on either hemisphere, a 30-minute DST shift (Lord Howe), a change at midnight
# (Santiago, Havana), none at all (Kolkata, Tokyo).
ZONES = (
    "Europe/Berlin",
    "America/New_York",
    "America/Santiago",
    "America/Havana",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "Pacific/Auckland",
    "Asia/Kolkata",
    "Asia/Tokyo",
)
TIMES = tuple(
    datetime.time(hour, minute) for hour in (0, 1, 2, 3, 12, 23) for minute in (0, 30, 59)
)


def berlin(reminder: datetime.time, **quiet) -> ReminderSchedule:
    return ReminderSchedule(time_zone="Europe/Berlin", reminder_time=reminder, **quiet)


def test_an_ordinary_day():
    schedule = berlin(datetime.time(18, 0))
    assert schedule.instant_on(datetime.date(2030, 6, 12)) == datetime.datetime(
        2030, 6, 12, 16, 0, tzinfo=UTC
    )
    assert schedule.instant_on(datetime.date(2030, 1, 12)) == datetime.datetime(
        2030, 1, 12, 17, 0, tzinfo=UTC
    )


@pytest.mark.parametrize(
    ("date", "expected"),
    [
        # Clocks go forward at 02:00: 02:30 does not exist; read with the offset before the
        # change (+01:00), it is 03:30 summer time.
        (datetime.date(2030, 3, 31), datetime.datetime(2030, 3, 31, 1, 30, tzinfo=UTC)),
        # Clocks go back at 03:00: 02:30 happens twice; the second time (+01:00) counts.
        (datetime.date(2030, 10, 27), datetime.datetime(2030, 10, 27, 1, 30, tzinfo=UTC)),
    ],
)
def test_the_days_the_clocks_change_have_one_instant_as_postgresql_reads_it(date, expected):
    assert berlin(datetime.time(2, 30)).instant_on(date) == expected


@pytest.mark.parametrize("zone", ZONES)
def test_moving_on_from_each_reminder_gives_the_next_local_days_one(zone):
    """What the planner does every day, over a whole year: no local day is skipped or repeated,
    and from any moment the next reminder is the first instant after it."""
    for reminder in TIMES:
        schedule = ReminderSchedule(time_zone=zone, reminder_time=reminder)
        date = datetime.date(2030, 1, 1)
        instant = schedule.instant_on(date)
        for _ in range(366):
            following = schedule.next_after(instant)
            date += DAY
            assert following == schedule.instant_on(date), (zone, reminder, date)
            assert following > instant
            halfway = instant + (following - instant) / 2
            assert schedule.next_after(halfway) == following
            assert schedule.date_in_window(start=halfway, end=following) == date
            assert schedule.date_in_window(start=instant, end=halfway) is None
            instant = following


def test_a_reminder_inside_the_quiet_hours_moves_to_their_end():
    owl = berlin(
        datetime.time(23, 0),
        quiet_hours_start=datetime.time(22, 0),
        quiet_hours_end=datetime.time(7, 0),
    )
    assert owl.local_time == datetime.time(7, 0)
    evening = datetime.datetime(2030, 6, 12, 21, 5, tzinfo=UTC)  # 23:05 Berlin
    assert owl.quiet_at(evening)
    assert owl.next_after(evening) == datetime.datetime(2030, 6, 13, 5, 0, tzinfo=UTC)
    outside = berlin(
        datetime.time(18, 0),
        quiet_hours_start=datetime.time(22, 0),
        quiet_hours_end=datetime.time(7, 0),
    )
    assert outside.local_time == datetime.time(18, 0) and not outside.quiet_at(
        evening.replace(hour=12)
    )


def test_the_window_around_local_midnight_names_the_right_day():
    schedule = berlin(datetime.time(23, 50))
    # 23:45 on 12 June to 00:15 on 13 June, Berlin time.
    start = datetime.datetime(2030, 6, 12, 21, 45, tzinfo=UTC)
    assert schedule.date_in_window(start=start, end=start + datetime.timedelta(minutes=30)) == (
        datetime.date(2030, 6, 12)
    )
    early = berlin(datetime.time(0, 10))
    assert early.date_in_window(start=start, end=start + datetime.timedelta(minutes=30)) == (
        datetime.date(2030, 6, 13)
    )


def test_a_zone_this_machine_does_not_know_counts_as_utc():
    schedule = ReminderSchedule(time_zone="Mars/Olympus", reminder_time=datetime.time(18, 0))
    assert schedule.instant_on(datetime.date(2030, 6, 12)) == datetime.datetime(
        2030, 6, 12, 18, 0, tzinfo=UTC
    )


@pytest.mark.django_db
def test_the_instants_agree_with_postgresql_at_time_zone():
    """The planner's instants were PostgreSQL's ``(date + time) AT TIME ZONE zone`` before they
    were stored: on every DST change of 2030 in these zones, both read local times alike."""
    from django.db import connection

    cases = []
    for zone in ZONES:
        schedule = ReminderSchedule(time_zone=zone, reminder_time=datetime.time(0, 0))
        date = datetime.date(2030, 1, 1)
        while date.year == 2030:
            # A day whose length is not 24 hours, and the days either side of it.
            length = schedule.instant_on(date + DAY) - schedule.instant_on(date)
            if length != DAY:
                for day in (date - DAY, date, date + DAY):
                    cases += [(zone, day, time) for time in TIMES]
            date += DAY
    assert len(cases) > 500
    with connection.cursor() as cursor:
        for zone, day, time in cases:
            cursor.execute("SELECT (%s::date + %s::time) AT TIME ZONE %s", [day, time, zone])
            (expected,) = cursor.fetchone()
            schedule = ReminderSchedule(time_zone=zone, reminder_time=time)
            assert schedule.instant_on(day) == expected, (zone, day, time)


@pytest.mark.parametrize(
    ("zone", "date", "hours"),
    [
        ("Europe/Berlin", datetime.date(2030, 3, 31), 23),
        ("Europe/Berlin", datetime.date(2030, 10, 27), 25),
        ("Europe/Berlin", datetime.date(2030, 6, 12), 24),
        ("Asia/Tokyo", datetime.date(2030, 3, 31), 24),
    ],
)
def test_local_days_have_their_real_length(zone, date, hours):
    day = local_day_of(time_zone=zone, date=date)
    assert day.end - day.start == datetime.timedelta(hours=hours)
    assert day.start.tzinfo == UTC


def test_local_day_of_an_instant():
    late = datetime.datetime(2030, 6, 12, 22, 30, tzinfo=UTC)  # 00:30 on 13 June in Berlin
    assert local_day(time_zone="Europe/Berlin", at=late).date == datetime.date(2030, 6, 13)
    assert local_day(time_zone="UTC", at=late).date == datetime.date(2030, 6, 12)
    assert local_day(time_zone="Asia/Tokyo", at=late).start == datetime.datetime(
        2030, 6, 12, 15, 0, tzinfo=UTC
    )
    # An unknown zone name (a stale row) counts as UTC instead of failing.
    assert local_day(time_zone="Mars/Olympus", at=late).date == datetime.date(2030, 6, 12)


T = datetime.time


@pytest.mark.parametrize(
    ("at", "start", "end", "quiet"),
    [
        (T(18, 0), T(17, 0), T(19, 0), True),
        (T(19, 0), T(17, 0), T(19, 0), False),
        (T(17, 0), T(17, 0), T(19, 0), True),
        (T(23, 0), T(22, 0), T(7, 0), True),
        (T(6, 59), T(22, 0), T(7, 0), True),
        (T(7, 0), T(22, 0), T(7, 0), False),
        (T(12, 0), T(22, 0), T(7, 0), False),
        (T(12, 0), None, T(7, 0), False),
        (T(12, 0), T(7, 0), T(7, 0), False),
    ],
)
def test_quiet_hours(at, start, end, quiet):
    assert in_quiet_hours(at=at, start=start, end=end) is quiet


def test_time_zone_names_are_the_iana_zones_without_the_hosts_extras():
    import zoneinfo

    from lms.local_time import NOT_TIME_ZONES, is_time_zone, time_zone_names

    names = time_zone_names()
    assert {"Europe/Berlin", "UTC", "Asia/Kolkata", "America/New_York"} <= names
    assert not names & NOT_TIME_ZONES
    assert not any(name.startswith(("posix/", "right/")) for name in names)
    # Everything else the host's tz database names stays: aliases IANA keeps ("US/Eastern").
    assert zoneinfo.available_timezones() - names <= NOT_TIME_ZONES
    assert not is_time_zone("localtime") and not is_time_zone("Factory")
    assert is_time_zone("US/Eastern")
