"""The private calendar feed as iCalendar: an all-day event per local day with reviews due and
one for the exam date, with stable UIDs so calendar apps update events. No queries."""

from __future__ import annotations

import datetime

import icalendar
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from reviews.selectors import ReviewForecast, UpcomingExam

# How often calendar apps are asked to fetch again (most take their own interval).
REFRESH_INTERVAL = datetime.timedelta(hours=6)


def feed_calendar(
    *,
    feed_id: int,
    forecast: ReviewForecast,
    exam_date: UpcomingExam | None,
    review_url: str,
    language: str,
    exam_url: str = "",
    now: datetime.datetime,
    host: str,
) -> bytes:
    """The feed's iCalendar text, in the learner's ``language``; the exam day's event links
    ``exam_url`` (the module's exam page), the review days' events ``review_url``."""
    with translation.override(language):
        calendar = icalendar.Calendar()
        calendar.add("prodid", "-//Lernpfad//Reviews//EN")
        calendar.add("version", "2.0")
        calendar.add("calscale", "GREGORIAN")
        calendar.add("method", "PUBLISH")
        name = _("Lernpfad reviews")
        calendar.add("name", name)
        calendar.add("x-wr-calname", name)
        calendar.add("refresh-interval", REFRESH_INTERVAL, parameters={"VALUE": "DURATION"})
        calendar.add("x-published-ttl", REFRESH_INTERVAL)
        for day in forecast.days:
            if day.count == 0:
                continue
            summary = ngettext(
                "Lernpfad: %(count)s review due", "Lernpfad: %(count)s reviews due", day.count
            ) % {"count": day.count}
            calendar.add_component(
                _all_day_event(
                    uid=f"reviews-{day.date:%Y%m%d}-{feed_id}@{host}",
                    date=day.date,
                    summary=summary,
                    url=review_url,
                    now=now,
                )
            )
        if exam_date is not None:
            calendar.add_component(
                _all_day_event(
                    uid=f"exam-{exam_date.date:%Y%m%d}-{feed_id}@{host}",
                    date=exam_date.date,
                    summary=_("Exam: %(module)s") % {"module": exam_date.module_title},
                    url=exam_url or review_url,
                    now=now,
                )
            )
        return calendar.to_ical()


def _all_day_event(
    *, uid: str, date: datetime.date, summary: str, url: str, now: datetime.datetime
) -> icalendar.Event:
    event = icalendar.Event()
    event.add("uid", uid)
    event.add("dtstamp", now)
    event.add("dtstart", date)
    event.add("dtend", date + datetime.timedelta(days=1))
    event.add("summary", summary)
    event.add("url", url)
    # A reminder, not an appointment: the day stays free.
    event.add("transp", "TRANSPARENT")
    return event
