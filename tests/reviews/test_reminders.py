"""Reminder digests through the planner and send services (mail in memory; the real worker,
broker and SMTP server are in test_reminders_worker.py)."""

from __future__ import annotations

import datetime
import re
from urllib.parse import urlparse

import pytest
from django.core import mail

from lms.local_time import zone_info
from reviews import api
from reviews.models import Notification, ReminderDigest, ReviewCard, ReviewLog
from reviews.services import reminder_planning, reminder_sending

pytestmark = pytest.mark.django_db

UTC = datetime.UTC
CREATED = datetime.datetime(2030, 1, 2, 8, 0, tzinfo=UTC)
# Wednesday 12 June 2030: 18:05 in Berlin (CEST, UTC+2) and in Tokyo (JST, UTC+9).
BERLIN_1805 = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=UTC)
TOKYO_1805 = datetime.datetime(2030, 6, 12, 9, 5, tzinfo=UTC)


def plan(now: datetime.datetime, *, send: bool = True) -> reminder_planning.PlannerReport:
    """Run the planner; its enqueue sends each digest right away (or drops it: a lost task)."""

    def enqueue(ids: list[int], at: datetime.datetime) -> None:
        if send:
            for digest_id in ids:
                reminder_sending.reminder_digest_send(digest_id=digest_id, now=at)

    return reminder_planning.reminders_plan(now=now, enqueue=enqueue)


def sent_to(address: str) -> list:
    return [message for message in mail.outbox if message.to == [address]]


@pytest.fixture
def studying(make_learner, steps, flashcards):
    """``studying("lena", time_zone=...)``: a learner with cards due since 2 January 2030 (step
    1: its definition card and two flashcards, so the digests count in the plural)."""

    def create(username: str, **fields):
        learner = make_learner(username, **fields)
        api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=CREATED)
        return learner

    return create


def test_berlin_and_tokyo_get_their_digest_at_their_own_1800(studying):
    berlin = studying("berlin", time_zone="Europe/Berlin")
    tokyo = studying("tokyo", time_zone="Asia/Tokyo", language="en")

    # Runs in time order, as beat makes them: each run moves the learners it read on to their
    # next reminder, so a run "earlier" than the last one would find nobody due.
    plan(TOKYO_1805)
    assert len(sent_to(tokyo.email)) == 1 and sent_to(berlin.email) == []
    plan(BERLIN_1805 - datetime.timedelta(minutes=10))  # 17:55 in Berlin: not yet
    assert sent_to(berlin.email) == []
    plan(BERLIN_1805)
    assert len(sent_to(berlin.email)) == 1 and len(sent_to(tokyo.email)) == 1

    claims = {c.learner_id: c for c in ReminderDigest.objects.all()}
    assert claims[berlin.pk].local_date == claims[tokyo.pk].local_date == datetime.date(2030, 6, 12)
    assert {c.status for c in claims.values()} == {"sent"}


def test_the_digest_says_how_many_cards_are_due_in_the_learners_language(studying):
    german = studying("lena", time_zone="Europe/Berlin")
    english = studying("sam", time_zone="Europe/Berlin", language="en")
    count = ReviewCard.objects.filter(learner=german).count()
    plan(BERLIN_1805)

    (de,) = sent_to(german.email)
    assert de.subject == f"Lernpfad: {count} Karten warten auf deine Wiederholung"
    assert f"{count} Karten sind heute zur Wiederholung fällig" in de.body
    assert "http://testserver.example/reviews/" in de.body
    html = de.alternatives[0][0]
    assert 'href="http://testserver.example/reviews/"' in html and 'lang="de"' in html

    (en,) = sent_to(english.email)
    assert en.subject == f"Lernpfad: {count} cards are due for review"
    assert f"{count} cards are due for review today" in en.body
    assert en.extra_headers["Content-Language"] == "en"

    for message in (de, en):
        unsubscribe = re.search(r"<(http[^>]+)>", message.extra_headers["List-Unsubscribe"])[1]
        assert unsubscribe in message.body
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert urlparse(unsubscribe).path.startswith("/reminders/unsubscribe/")


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = "http://testserver.example"


def test_the_digest_comes_with_an_in_app_notification(studying, api_client):
    learner = studying("lena")
    plan(BERLIN_1805)
    notification = Notification.objects.get(learner=learner)
    count = ReviewCard.objects.filter(learner=learner).count()
    assert notification.payload["due_count"] == count
    assert notification.payload["url"] == "http://testserver.example/reviews/"
    assert notification.digest.status == "sent" and notification.read_at is None

    api_client.force_authenticate(learner)
    body = api_client.get("/api/v1/notifications/").json()
    assert body["count"] == 1
    item = body["results"][0]
    assert item["kind"] == "review_digest" and item["title"] == mail.outbox[0].subject
    assert item["read_at"] is None

    read = api_client.post(f"/api/v1/notifications/{item['id']}/read/")
    assert read.status_code == 200 and read.json()["read_at"] is not None
    assert api_client.get("/api/v1/notifications/", {"unread": "true"}).json()["count"] == 0


def test_notifications_are_private(studying, make_learner, api_client):
    learner = studying("lena")
    plan(BERLIN_1805)
    notification = Notification.objects.get(learner=learner)
    api_client.force_authenticate(make_learner("other"))
    assert api_client.get("/api/v1/notifications/").json()["count"] == 0
    response = api_client.post(f"/api/v1/notifications/{notification.id}/read/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "notification_not_found"
    assert api_client.post("/api/v1/notifications/read-all/").json() == {"marked": 0}
    notification.refresh_from_db()
    assert notification.read_at is None

    api_client.force_authenticate(learner)
    assert api_client.post("/api/v1/notifications/read-all/").json() == {"marked": 1}


def test_at_most_one_digest_per_local_day_however_often_the_planner_runs(studying):
    learner = studying("lena")
    for minutes in range(0, 60, 5):  # overlapping windows, and a repeat of each run
        plan(BERLIN_1805 + datetime.timedelta(minutes=minutes))
        plan(BERLIN_1805 + datetime.timedelta(minutes=minutes))
    assert len(sent_to(learner.email)) == 1
    assert ReminderDigest.objects.filter(learner=learner).count() == 1
    # The next day brings the next one.
    plan(BERLIN_1805 + datetime.timedelta(days=1))
    assert len(sent_to(learner.email)) == 2


def test_a_send_task_run_twice_sends_once(studying):
    learner = studying("lena")
    claimed: list[int] = []
    reminder_planning.reminders_plan(now=BERLIN_1805, enqueue=lambda ids, at: claimed.extend(ids))
    (digest_id,) = claimed
    assert reminder_sending.reminder_digest_send(digest_id=digest_id, now=BERLIN_1805) == "sent"
    assert (
        reminder_sending.reminder_digest_send(digest_id=digest_id, now=BERLIN_1805) == "not_claimed"
    )
    assert len(sent_to(learner.email)) == 1
    assert Notification.objects.filter(learner=learner).count() == 1
    assert ReminderDigest.objects.get(id=digest_id).attempts == 1


def test_a_lost_send_task_is_enqueued_again_by_a_later_planner_run(studying):
    learner = studying("lena")
    plan(BERLIN_1805, send=False)  # claimed and enqueued, but the worker died with the task
    digest = ReminderDigest.objects.get(learner=learner)
    assert digest.status == "claimed" and digest.enqueued_at == BERLIN_1805
    # Two minutes later the task may still be on its way: not enqueued again yet.
    assert plan(BERLIN_1805 + datetime.timedelta(minutes=2)).dispatched == 0
    assert mail.outbox == []
    report = plan(
        BERLIN_1805 + reminder_planning.REMINDER_RESEND_AFTER + datetime.timedelta(minutes=1)
    )
    assert report.dispatched == 1
    assert len(sent_to(learner.email)) == 1
    digest.refresh_from_db()
    assert digest.status == "sent"


def test_a_claim_too_old_to_be_useful_is_skipped(studying):
    learner = studying("lena")
    plan(BERLIN_1805, send=False)
    plan(BERLIN_1805 + reminder_sending.REMINDER_MAX_DELAY + datetime.timedelta(minutes=1))
    assert sent_to(learner.email) == []
    digest = ReminderDigest.objects.get(learner=learner)
    assert (digest.status, digest.last_error) == ("skipped", "too_late")


def _run_day(start: datetime.datetime, end: datetime.datetime) -> None:
    at = start
    while at <= end:
        plan(at)
        at += datetime.timedelta(minutes=15)


@pytest.mark.parametrize(
    ("local_date", "hours"),
    [
        (datetime.date(2030, 3, 31), 23),  # clocks go forward at 02:00: 02:30 does not exist
        (datetime.date(2030, 10, 27), 25),  # clocks go back at 03:00: 02:30 happens twice
    ],
)
def test_the_day_the_clock_changes_sends_exactly_one(studying, local_date, hours):
    night = studying("night", time_zone="Europe/Berlin", reminder_time=datetime.time(2, 30))
    evening = studying("evening", time_zone="Europe/Berlin")
    from lms.local_time import local_day_of

    day = local_day_of(time_zone="Europe/Berlin", date=local_date)
    assert day.end - day.start == datetime.timedelta(hours=hours)
    _run_day(day.start, day.end - datetime.timedelta(minutes=1))

    for learner in (night, evening):
        assert len(sent_to(learner.email)) == 1
        (claim,) = ReminderDigest.objects.filter(learner=learner)
        assert claim.local_date == local_date and claim.status == "sent"
    evening_claim = ReminderDigest.objects.get(learner=evening)
    # 18:00 local is 16:00 UTC in summer time and 17:00 UTC in winter time.
    evening_utc = 16 if local_date.month == 3 else 17
    assert evening_claim.claimed_at.hour == evening_utc
    assert evening_claim.claimed_at.minute < 30
    # Each moved on to the next local day's reminder (02:30 exists again: 00:30 or 01:30 UTC).
    night.refresh_from_db()
    evening.refresh_from_db()
    next_day = datetime.datetime.combine(local_date + datetime.timedelta(days=1), datetime.time())
    assert night.next_reminder_at == next_day.replace(
        hour=0 if local_date.month == 3 else 1, minute=30, tzinfo=UTC
    )
    assert evening.next_reminder_at == next_day.replace(hour=evening_utc, tzinfo=UTC)


def test_quiet_hours_hold_and_move_the_reminder_to_their_end(studying):
    learner = studying(
        "lena", quiet_hours_start=datetime.time(17, 0), quiet_hours_end=datetime.time(19, 0)
    )
    plan(BERLIN_1805)
    assert mail.outbox == []
    plan(BERLIN_1805 + datetime.timedelta(minutes=30))  # 18:35
    assert mail.outbox == []
    plan(BERLIN_1805 + datetime.timedelta(hours=1))  # 19:05: the end of the quiet hours
    assert len(sent_to(learner.email)) == 1


def test_quiet_hours_across_midnight(studying):
    learner = studying(
        "owl",
        reminder_time=datetime.time(23, 0),
        quiet_hours_start=datetime.time(22, 0),
        quiet_hours_end=datetime.time(7, 0),
    )
    # 23:05 Berlin on 12 June: inside the quiet hours.
    plan(datetime.datetime(2030, 6, 12, 21, 5, tzinfo=UTC))
    assert mail.outbox == []
    # 07:05 Berlin on 13 June: the reminder moved to the end of the quiet hours.
    plan(datetime.datetime(2030, 6, 13, 5, 5, tzinfo=UTC))
    assert len(sent_to(learner.email)) == 1
    assert ReminderDigest.objects.get(learner=learner).local_date == datetime.date(2030, 6, 13)


def test_a_planner_run_late_into_quiet_hours_sends_nothing(studying):
    learner = studying(
        "lena", quiet_hours_start=datetime.time(18, 15), quiet_hours_end=datetime.time(23, 0)
    )
    plan(BERLIN_1805 + datetime.timedelta(minutes=15))  # 18:20, inside the quiet hours
    assert sent_to(learner.email) == []


def test_nothing_due_means_no_digest(studying, make_learner):
    nothing = make_learner("nothing")
    later = studying("later")
    ReviewCard.objects.filter(learner=later).update(due=BERLIN_1805 + datetime.timedelta(days=2))
    suspended = studying("suspended")
    ReviewCard.objects.filter(learner=suspended).update(suspended=True)
    plan(BERLIN_1805)
    assert mail.outbox == []
    assert not ReminderDigest.objects.filter(learner__in=[nothing, later, suspended]).exists()


def test_no_digest_after_reviewing_today_or_with_reminders_off(studying):
    reviewed = studying("reviewed")
    card = ReviewCard.objects.filter(learner=reviewed).first()
    morning = datetime.datetime(2030, 6, 12, 6, 0, tzinfo=UTC)  # 08:00 Berlin
    ReviewLog.objects.create(
        card=card,
        learner=reviewed,
        rating=3,
        reviewed_at=morning,
        before_state=1,
        before_due=card.due,
        after_state=1,
        after_stability=2.3,
        after_difficulty=2.1,
        after_due=morning + datetime.timedelta(minutes=10),
    )
    studying("off", reminder_email=False)
    studying("nomail", email="")
    plan(BERLIN_1805)
    assert mail.outbox == []
    assert not ReminderDigest.objects.exists()


def test_no_digest_goes_to_an_unconfirmed_address(studying):
    """A sign-up whose confirmation link was not opened: its instant has come and cards are
    due, but the planner claims nothing and moves it to "no reminders"; once confirmed, the
    digest comes."""
    from accounts.models import User

    pending = studying("pending")
    User.objects.filter(pk=pending.pk).update(email_confirmed_at=None)
    report = plan(BERLIN_1805)
    assert mail.outbox == [] and not ReminderDigest.objects.exists(), report
    pending.refresh_from_db()
    assert pending.next_reminder_at is None

    User.objects.filter(pk=pending.pk).update(
        email_confirmed_at=CREATED, next_reminder_at=BERLIN_1805 - datetime.timedelta(minutes=5)
    )
    plan(BERLIN_1805)
    assert len(sent_to(pending.email)) == 1


def test_the_send_step_skips_an_address_that_is_not_confirmed(studying):
    learner = studying("lena")
    claimed: list[int] = []
    reminder_planning.reminders_plan(now=BERLIN_1805, enqueue=lambda ids, at: claimed.extend(ids))
    type(learner).objects.filter(pk=learner.pk).update(email_confirmed_at=None)
    assert [
        reminder_sending.reminder_digest_send(digest_id=digest_id, now=BERLIN_1805)
        for digest_id in claimed
    ] == ["email_unconfirmed"]
    assert mail.outbox == []


def test_a_review_yesterday_evening_does_not_count_for_today(studying):
    learner = studying("lena")
    card = ReviewCard.objects.filter(learner=learner).first()
    yesterday = datetime.datetime(2030, 6, 11, 21, 30, tzinfo=UTC)  # 23:30 Berlin, 11 June
    ReviewLog.objects.create(
        card=card,
        learner=learner,
        rating=3,
        reviewed_at=yesterday,
        before_state=1,
        before_due=card.due,
        after_state=1,
        after_stability=2.3,
        after_difficulty=2.1,
        after_due=yesterday + datetime.timedelta(minutes=10),
    )
    plan(BERLIN_1805)
    assert len(sent_to(learner.email)) == 1


def test_the_send_step_skips_a_learner_who_reviewed_or_unsubscribed_after_the_claim(studying):
    reviewer = studying("reviewer")
    leaver = studying("leaver")
    claimed: list[int] = []
    reminder_planning.reminders_plan(now=BERLIN_1805, enqueue=lambda ids, at: claimed.extend(ids))
    card = ReviewCard.objects.filter(learner=reviewer).first()
    ReviewLog.objects.create(
        card=card,
        learner=reviewer,
        rating=3,
        reviewed_at=BERLIN_1805,
        before_state=1,
        before_due=card.due,
        after_state=1,
        after_stability=2.3,
        after_difficulty=2.1,
        after_due=BERLIN_1805 + datetime.timedelta(minutes=10),
    )
    type(leaver).objects.filter(pk=leaver.pk).update(reminder_email=False)
    for digest_id in claimed:
        reminder_sending.reminder_digest_send(digest_id=digest_id, now=BERLIN_1805)
    assert mail.outbox == []
    reasons = dict(ReminderDigest.objects.values_list("learner__username", "last_error"))
    assert reasons == {"reviewer": "reviewed_today", "leaver": "reminders_off"}


# The unsubscribe link (GET confirms, POST and RFC 8058 one-click unsubscribe, expiry, forged
# links) is tested in test_unsubscribe.py.


def test_the_review_link_of_the_email_leads_to_the_review_page(client):
    response = client.get(urlparse(reminder_sending.REVIEW_PAGE_PATH).path)
    assert response.status_code == 302
    assert response["Location"] == "/review/"


def test_a_time_zone_the_database_does_not_know_counts_as_utc_and_breaks_nobody(studying):
    berlin = studying("berlin")
    stale = studying("stale")
    # The form validates zone names; a stale row (or a zone newer than the server's) must not
    # fail the planner for everyone.
    type(stale).objects.filter(pk=stale.pk).update(time_zone="Mars/Olympus")
    plan(BERLIN_1805)
    assert len(sent_to(berlin.email)) == 1 and sent_to(stale.email) == []
    plan(datetime.datetime(2030, 6, 12, 18, 5, tzinfo=UTC))  # 18:05 UTC
    assert len(sent_to(stale.email)) == 1


# --- the stored next reminder instant (User.next_reminder_at) ---------------------------------

BERLIN_1800_TOMORROW = datetime.datetime(2030, 6, 13, 16, 0, tzinfo=UTC)


def test_a_missed_run_is_caught_up_by_the_next_within_the_look_back(studying):
    learner = studying("lena")
    # Beat missed 18:00 and 18:15; the 18:25 run's window reaches back to 17:55.
    plan(BERLIN_1805 + datetime.timedelta(minutes=20))
    assert len(sent_to(learner.email)) == 1
    learner.refresh_from_db()
    assert learner.next_reminder_at == BERLIN_1800_TOMORROW


def test_a_run_hours_late_sends_nothing_that_day_and_the_next_day_as_usual(studying):
    learner = studying("lena")
    plan(BERLIN_1805 + datetime.timedelta(hours=3))  # 21:05: 18:00 is out of the window
    assert mail.outbox == []
    learner.refresh_from_db()
    assert learner.next_reminder_at == BERLIN_1800_TOMORROW
    plan(BERLIN_1805 + datetime.timedelta(days=1))
    assert len(sent_to(learner.email)) == 1


def test_after_days_without_a_planner_todays_digest_comes_once(studying):
    learner = studying("lena")
    type(learner).objects.filter(pk=learner.pk).update(
        next_reminder_at=BERLIN_1805 - datetime.timedelta(days=3)
    )
    plan(BERLIN_1805)
    plan(BERLIN_1805 + datetime.timedelta(minutes=15))
    (claim,) = ReminderDigest.objects.filter(learner=learner)
    assert claim.local_date == datetime.date(2030, 6, 12) and len(mail.outbox) == 1


def test_a_run_moves_everyone_it_reads_on_to_their_next_reminder(studying, make_learner):
    """Claimed, nothing due, reviewed today, quiet hours: each waits for the next local day,
    so the next runs that day do not read them again. Reminders off: no instant at all."""
    claimed = studying("claimed")
    make_learner("idle")
    reviewed = studying("reviewed")
    card = ReviewCard.objects.filter(learner=reviewed).first()
    ReviewLog.objects.create(
        card=card,
        learner=reviewed,
        rating=3,
        reviewed_at=BERLIN_1805 - datetime.timedelta(hours=2),
        before_state=1,
        before_due=card.due,
        after_state=1,
        after_stability=2.3,
        after_difficulty=2.1,
        after_due=BERLIN_1805,
    )
    # 18:00 is before the quiet hours, the 18:05 run inside them.
    studying("quiet", quiet_hours_start=datetime.time(18, 4), quiet_hours_end=datetime.time(23, 0))
    off = studying("off")
    type(off).objects.filter(pk=off.pk).update(reminder_email=False)
    tokyo = studying("tokyo", time_zone="Asia/Tokyo")

    report = plan(BERLIN_1805)
    assert report.looked_at == 6 and report.candidates == 1
    assert [m.to for m in mail.outbox] == [[claimed.email]]
    stored = dict(type(claimed).objects.values_list("username", "next_reminder_at"))
    assert stored == {
        "claimed": BERLIN_1800_TOMORROW,
        "idle": BERLIN_1800_TOMORROW,
        "reviewed": BERLIN_1800_TOMORROW,
        "quiet": BERLIN_1800_TOMORROW,
        "off": None,
        "tokyo": datetime.datetime(2030, 6, 13, 9, 0, tzinfo=UTC),
    }
    assert plan(BERLIN_1805 + datetime.timedelta(minutes=15)).looked_at == 0
    assert tokyo.email not in {m.to[0] for m in mail.outbox}


def test_a_preference_change_saved_during_a_run_is_kept(studying, monkeypatch):
    """The run moves a learner on only if their stored instant is still the one it read."""
    from accounts.services import user_update

    learner = studying("lena")
    chunk_plan = reminder_planning._chunk_plan

    def plan_while_the_learner_saves_settings(learners, **kwargs):
        result = chunk_plan(learners, **kwargs)
        user_update(user=learner, changes={"reminder_time": datetime.time(20, 0)})
        return result

    monkeypatch.setattr(reminder_planning, "_chunk_plan", plan_while_the_learner_saves_settings)
    plan(BERLIN_1805)
    saved = learner.next_reminder_at
    learner.refresh_from_db()
    assert learner.next_reminder_at == saved != BERLIN_1800_TOMORROW
    assert learner.next_reminder_at.astimezone(zone_info("Europe/Berlin")).time() == (
        datetime.time(20, 0)
    )
