"""GET/PATCH /api/v1/me/: the learner's profile and reminder preferences, validated."""

import pytest

from tests.factories import api_client_for
from tests.helpers.queries import assert_queries_within

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/"


@pytest.fixture
def lena(make_learner):
    return make_learner("lena", display_name="Lena")


@pytest.fixture
def client(lena):
    return api_client_for(lena)


def test_me_shows_profile_and_preferences(client):
    # Authentication loaded the user: the profile asks the database only for the calendar
    # address it names (reviews owns it).
    assert_queries_within(lambda: client.get(ME), budget=1)
    body = client.get(ME).json()
    assert body["username"] == "lena" and body["display_name"] == "Lena"
    assert body["language"] == "de" and body["time_zone"] == "Europe/Berlin"
    assert body["reminder_time"] == "18:00:00" and body["reminder_email"] is True
    assert body["quiet_hours_start"] is None and body["quiet_hours_end"] is None
    assert body["desired_retention"] == 0.9
    assert "password" not in body and "is_staff" not in body


def test_patch_changes_and_stores_preferences(client, lena):
    response = client.patch(
        ME,
        {
            "display_name": "  Lena L.  ",
            "email": "lena.neu@example.org",
            "language": "en",
            "time_zone": "America/New_York",
            "reminder_time": "07:30",
            "quiet_hours_start": "22:00",
            "quiet_hours_end": "06:30",
            "reminder_email": False,
            "desired_retention": 0.85,
            "new_cards_per_day": 10,
            "reviews_per_day": 150,
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    lena.refresh_from_db()
    # The new address waits for its confirmation link (test_email_confirmation.py).
    assert lena.display_name == "Lena L." and lena.email == "lena@example.org"
    assert lena.pending_email == "lena.neu@example.org"
    assert response.json()["pending_email"] == "lena.neu@example.org"
    assert lena.language == "en" and lena.time_zone == "America/New_York"
    assert lena.reminder_time.isoformat() == "07:30:00"
    assert (lena.quiet_hours_start.isoformat(), lena.quiet_hours_end.isoformat()) == (
        "22:00:00",
        "06:30:00",
    )
    assert lena.reminder_email is False and lena.desired_retention == 0.85
    assert (lena.new_cards_per_day, lena.reviews_per_day) == (10, 150)
    assert response.json()["time_zone"] == "America/New_York"


def test_quiet_hours_can_be_cleared_together(client, lena):
    client.patch(ME, {"quiet_hours_start": "22:00", "quiet_hours_end": "06:00"}, format="json")
    response = client.patch(ME, {"quiet_hours_start": None, "quiet_hours_end": None}, format="json")
    assert response.status_code == 200
    lena.refresh_from_db()
    assert lena.quiet_hours_start is None and lena.quiet_hours_end is None


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"time_zone": "Europe/Atlantis"}, "time_zone"),
        ({"time_zone": "CEST"}, "time_zone"),
        ({"language": "fr"}, "language"),
        ({"desired_retention": 0.79}, "desired_retention"),
        ({"desired_retention": 0.98}, "desired_retention"),
        ({"desired_retention": "viel"}, "desired_retention"),
        ({"quiet_hours_start": "22:00"}, "quiet_hours"),
        ({"quiet_hours_start": "22:00", "quiet_hours_end": "22:00"}, "quiet_hours"),
        ({"reminder_time": "25:00"}, "reminder_time"),
        ({"reminder_time": None}, "reminder_time"),
        ({"email": "kaputt"}, "email"),
        ({"email": ""}, "email"),
        ({"email": "mara"}, "email"),  # another account's user name (and no address)
        ({"new_cards_per_day": -1}, "new_cards_per_day"),
        ({"reviews_per_day": 10**6}, "reviews_per_day"),
        ({"display_name": "x" * 151}, "display_name"),
    ],
)
def test_patch_rejects_bad_values_and_changes_nothing(client, lena, make_learner, changes, field):
    make_learner("mara")
    before = client.get(ME).json()
    response = client.patch(ME, {"display_name": "Neu", **changes}, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and field in error["detail"]
    lena.refresh_from_db()
    assert lena.display_name == "Lena"
    assert client.get(ME).json() == before


def test_username_and_flags_are_not_changed_through_me(client, lena):
    response = client.patch(ME, {"username": "boss", "is_staff": True}, format="json")
    assert response.status_code == 200
    lena.refresh_from_db()
    assert lena.username == "lena" and not lena.is_staff


def test_me_needs_log_in(api_client):
    assert api_client.get(ME).status_code == 401
    response = api_client.patch(ME, {"display_name": "x"}, format="json")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules", "posix/Europe/Berlin"])
def test_names_that_are_no_time_zone_are_refused(client, lena, zone):
    """Issue 13: "localtime" (the server's own zone) and "Factory" (the placeholder "-00") were
    accepted as a learner's time zone, because the host's tz database lists them."""
    response = client.patch(ME, {"time_zone": zone}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["detail"]["time_zone"]
    lena.refresh_from_db()
    assert lena.time_zone == "Europe/Berlin"


@pytest.mark.parametrize("zone", ["localtime", "Factory"])
def test_registration_refuses_them_too(api_client, zone):
    response = api_client.post(
        "/api/v1/auth/register/",
        {
            "username": "mara",
            "email": "mara@example.org",
            "password": "mara-Lernpfad-Passwort-2026",
            "time_zone": zone,
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["detail"]["time_zone"]


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires"])
def test_real_zones_and_their_iana_links_stay_accepted(client, lena, zone):
    assert client.patch(ME, {"time_zone": zone}, format="json").status_code == 200


def test_the_model_validator_follows_the_same_rule(lena):
    from django.core.exceptions import ValidationError

    lena.time_zone = "localtime"
    with pytest.raises(ValidationError) as refused:
        lena.full_clean()
    assert "time_zone" in refused.value.message_dict


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("de", "Ruhezeiten brauchen verschiedene Anfangs- und Endzeiten."),
        ("en", "Quiet hours need different start and end times."),
    ],
)
def test_the_services_rules_answer_in_the_learners_language(client, language, message):
    """A rule only the service knows (equal ends of the quiet hours) speaks the request's
    language as the serializers' do."""
    response = client.patch(
        ME,
        {"quiet_hours_start": "22:00", "quiet_hours_end": "22:00"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400
    assert response.json()["error"]["detail"]["quiet_hours"] == [message]


def test_a_taken_user_name_is_named_in_german(api_client, lena):
    response = api_client.post(
        "/api/v1/auth/register/",
        {"username": "LENA", "email": "mara@example.org", "password": "ein langes Passwort 7"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["detail"]["username"] == ["Dieser Benutzername ist vergeben."]


def test_the_retention_range_is_written_as_a_german_number(lena):
    from django.utils import translation

    from accounts.services import user_update
    from lms.errors import InvalidInput

    with translation.override("de"), pytest.raises(InvalidInput) as refused:
        user_update(user=lena, changes={"desired_retention": 0.99})
    assert refused.value.detail["desired_retention"] == ["Wähle einen Wert von 0,80 bis 0,97."]
