"""User.next_reminder_at: every writer of the reminder preferences stores the learner's next
reminder instant (the planner reads only the learners whose instant has come)."""

from __future__ import annotations

import datetime
import importlib
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.models import User
from accounts.reminders import REMINDER_LOOKBACK
from accounts.services import email_confirm, reminder_schedules_reset, user_register, user_update
from accounts.tokens import email_confirmation_token
from lms.local_time import ReminderSchedule
from reviews.services import reminder_unsubscribe
from tests.factories import api_client_for, unsubscribe_token_for

pytestmark = pytest.mark.django_db

UTC = datetime.UTC
LONG_AGO = datetime.datetime(2001, 1, 1, tzinfo=UTC)


def local_next(user: User) -> datetime.datetime:
    user.refresh_from_db()
    return user.next_reminder_at.astimezone(ZoneInfo(user.time_zone))


def assert_upcoming(user: User, local_time: datetime.time) -> None:
    """The stored instant is the learner's next reminder at ``local_time`` on their clock, the
    first after now minus the planner's look-back."""
    at = local_next(user)
    now = timezone.now()
    assert at.time() == local_time
    assert now - REMINDER_LOOKBACK < at <= now + datetime.timedelta(days=1)


@pytest.fixture
def lena(make_learner):
    user = make_learner("lena")
    # Not what any writer would store: a test sees whether a change stored a new value.
    User.objects.filter(pk=user.pk).update(next_reminder_at=LONG_AGO)
    user.refresh_from_db()
    return user


@pytest.fixture
def api(lena):
    return api_client_for(lena)


def test_registration_stores_none_until_the_address_is_confirmed_then_the_first():
    user = user_register(username="neu", email="neu@example.org", password="a-long-passphrase-91")
    user.refresh_from_db()
    assert user.email_confirmed_at is None and user.next_reminder_at is None
    email_confirm(token=email_confirmation_token(user_id=user.pk, address="neu@example.org"))
    assert_upcoming(user, datetime.time(18, 0))


def test_patch_me_moves_it_to_the_new_time_and_zone(api, lena):
    response = api.patch(
        "/api/v1/me/", {"time_zone": "America/New_York", "reminder_time": "07:30"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert_upcoming(lena, datetime.time(7, 30))


def test_a_reminder_time_inside_the_quiet_hours_moves_to_their_end(api, lena):
    response = api.patch(
        "/api/v1/me/",
        {"reminder_time": "23:00", "quiet_hours_start": "22:00", "quiet_hours_end": "07:00"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert_upcoming(lena, datetime.time(7, 0))


def test_reminders_off_clear_it_and_on_again_store_it(api, lena):
    api.patch("/api/v1/me/", {"reminder_email": False}, format="json")
    lena.refresh_from_db()
    assert lena.next_reminder_at is None
    api.patch("/api/v1/me/", {"reminder_email": True}, format="json")
    assert_upcoming(lena, datetime.time(18, 0))


def test_changing_something_else_leaves_it(lena):
    user_update(user=lena, changes={"display_name": "Lena L.", "desired_retention": 0.85})
    lena.refresh_from_db()
    assert lena.next_reminder_at == LONG_AGO
    # A new address waits for its link; the reminders follow it once it is confirmed.
    user_update(user=lena, changes={"email": "lena.neu@example.org"})
    lena.refresh_from_db()
    assert lena.next_reminder_at == LONG_AGO and lena.pending_email == "lena.neu@example.org"
    email_confirm(token=email_confirmation_token(user_id=lena.pk, address="lena.neu@example.org"))
    assert_upcoming(lena, datetime.time(18, 0))


def test_the_settings_page_moves_it(client, lena):
    client.force_login(lena)
    response = client.post(
        "/settings/",
        {
            "display_name": "",
            "email": lena.email,
            "language": "de",
            "time_zone": "Asia/Tokyo",
            "reminder_email": "on",
            "reminder_time": "07:30",
            "quiet_hours_start": "",
            "quiet_hours_end": "",
            "desired_retention": "0.9",
            "new_cards_per_day": "20",
            "reviews_per_day": "200",
        },
    )
    assert response.status_code == 302
    assert_upcoming(lena, datetime.time(7, 30))


def _admin_change(client, user: User, **changes) -> None:
    data = {
        "username": user.username,
        "email": user.email,
        "first_name": "",
        "last_name": "",
        "is_active": "on",
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "display_name": user.display_name,
        "language": user.language,
        "time_zone": user.time_zone,
        "reminder_time": user.reminder_time.strftime("%H:%M"),
        "reminder_email": "on",
        "desired_retention": str(user.desired_retention),
        "new_cards_per_day": str(user.new_cards_per_day),
        "reviews_per_day": str(user.reviews_per_day),
        **changes,
    }
    data = {key: value for key, value in data.items() if value is not None}
    response = client.post(f"/admin/accounts/user/{user.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[-3000:]


def test_an_admin_edit_moves_it_and_deactivating_clears_it(client, lena):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "x-admin-9876"))
    _admin_change(client, lena, display_name="Lena")
    lena.refresh_from_db()
    assert lena.next_reminder_at == LONG_AGO  # nothing the reminder depends on changed
    _admin_change(client, lena, time_zone="Asia/Tokyo", reminder_time="06:15")
    assert_upcoming(lena, datetime.time(6, 15))
    _admin_change(client, lena, is_active=None)
    lena.refresh_from_db()
    assert lena.is_active is False and lena.next_reminder_at is None


def test_unsubscribing_clears_it(lena):
    reminder_unsubscribe.reminder_email_unsubscribe(token=unsubscribe_token_for(lena))
    lena.refresh_from_db()
    assert lena.reminder_email is False and lena.next_reminder_at is None


def test_demo_setup_stores_it(capsys):
    call_command("demo_setup")
    assert_upcoming(User.objects.get(username="lena"), datetime.time(18, 0))


def test_an_account_created_without_it_is_due_for_the_next_planner_run(make_learner):
    """createsuperuser, the admin's add form, tests: the column's default is the creation time,
    so the next planner run reads the account and stores its exact instant."""
    before = timezone.now()
    user = make_learner("neu")
    assert before <= user.next_reminder_at <= timezone.now()


@pytest.fixture
def accounts_of_every_kind(make_learner):
    made = [
        make_learner("tokyo", time_zone="Asia/Tokyo", reminder_time=datetime.time(7, 0)),
        make_learner(
            "owl",
            reminder_time=datetime.time(23, 0),
            quiet_hours_start=datetime.time(22, 0),
            quiet_hours_end=datetime.time(7, 0),
        ),
        make_learner("off", reminder_email=False),
        make_learner("gone", is_active=False),
        make_learner("nomail", email=""),
    ]
    User.objects.update(next_reminder_at=LONG_AGO)
    return made


def _expected(user: User, after: datetime.datetime) -> datetime.datetime | None:
    if not (user.is_active and user.reminder_email and user.email):
        return None
    return ReminderSchedule(
        time_zone=user.time_zone,
        reminder_time=user.reminder_time,
        quiet_hours_start=user.quiet_hours_start,
        quiet_hours_end=user.quiet_hours_end,
    ).next_after(after)


def test_the_data_migration_fills_existing_accounts(accounts_of_every_kind):
    from django.apps import apps

    fill = importlib.import_module("accounts.migrations.0004_user_next_reminder_at_fill")
    before = timezone.now()
    fill.next_reminder_fill(apps, None)
    after = timezone.now()
    for user in User.objects.all():
        expected_early = _expected(user, before - REMINDER_LOOKBACK)
        expected_late = _expected(user, after - REMINDER_LOOKBACK)
        assert user.next_reminder_at in {expected_early, expected_late}, user.username
    assert set(User.objects.filter(next_reminder_at=None).values_list("username", flat=True)) == {
        "off",
        "gone",
        "nomail",
    }


def test_reminder_schedules_reset_stores_the_first_instant_after(accounts_of_every_kind):
    after = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=UTC)
    assert reminder_schedules_reset(after=after, batch_size=2) == 5
    stored = {user.username: user.next_reminder_at for user in User.objects.all()}
    assert stored == {user.username: _expected(user, after) for user in User.objects.all()}
    # 07:00 in Tokyo on 13 June; the owl's 23:00 moved to the end of the quiet hours, 07:00.
    assert stored["tokyo"] == datetime.datetime(2030, 6, 12, 22, 0, tzinfo=UTC)
    assert stored["owl"] == datetime.datetime(2030, 6, 13, 5, 0, tzinfo=UTC)
