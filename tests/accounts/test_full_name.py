"""The learner's full name (``User.full_name``): the name a certificate states, asked at sign-up
(optional there), changed in the settings and through PATCH /api/v1/me/; not the display name,
which may be a nickname."""

import io

import pytest
from django.test import Client

from accounts.models import User
from tests.factories import api_client_for
from tests.helpers.migrations import migrate_to

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/"
STRONG = "ein-langes-Passwort-2026"


def test_register_takes_an_optional_full_name(api_client):
    with_name = api_client.post(
        "/api/v1/auth/register/",
        {
            "username": "mara",
            "email": "mara@example.org",
            "password": STRONG,
            "display_name": "Mara",
            "full_name": "  Mara   Musterfrau ",
        },
        format="json",
    )
    # register/ answers 202 without a token (the address is confirmed first); the account waits.
    assert with_name.status_code == 202, with_name.content
    assert User.objects.get(username="mara").full_name == "Mara Musterfrau"
    without = api_client.post(
        "/api/v1/auth/register/",
        {"username": "nina", "email": "nina@example.org", "password": STRONG},
        format="json",
    )
    assert without.status_code == 202 and User.objects.get(username="nina").full_name == ""


def test_sign_up_page_asks_for_the_full_name(client):
    page = client.get("/signup/").content.decode()
    assert 'name="full_name"' in page and 'autocomplete="name"' in page
    response = client.post(
        "/signup/",
        {
            "username": "kim",
            "email": "kim@example.org",
            "full_name": "Kim Lee-Schmidt",
            "password1": STRONG,
            "password2": STRONG,
        },
    )
    assert response.status_code == 302
    from accounts.models import User

    kim = User.objects.get(username="kim")
    assert kim.full_name == "Kim Lee-Schmidt" and kim.display_name == ""
    # A greeting without a display name uses the full name, not the username.
    assert kim.public_name == "Kim Lee-Schmidt"


def test_patch_me_changes_the_full_name(make_learner):
    lena = make_learner("lena", display_name="Lena")
    client = api_client_for(lena)
    assert client.get(ME).json()["full_name"] == ""
    response = client.patch(ME, {"full_name": "Lena Lernende"}, format="json")
    assert response.status_code == 200 and response.json()["full_name"] == "Lena Lernende"
    lena.refresh_from_db()
    assert lena.full_name == "Lena Lernende" and lena.display_name == "Lena"


@pytest.mark.parametrize(
    "name",
    [
        "x" * 151,
        "Lena\u202eedrenreL",  # a right-to-left override would print the name reversed
        "Lena \u2066Lernende\u2069",
        "Lena\x00",
        "Lena\x7f",
    ],
)
def test_patch_me_refuses_names_a_certificate_cannot_print(make_learner, name):
    lena = make_learner("lena", full_name="Lena Lernende")
    client = api_client_for(lena)
    response = client.patch(ME, {"full_name": name}, format="json")
    assert response.status_code == 400, response.content
    assert "full_name" in response.json()["error"]["detail"]
    lena.refresh_from_db()
    assert lena.full_name == "Lena Lernende"


def test_full_name_keeps_joiners_and_folds_whitespace(make_learner):
    lena = make_learner("lena")
    client = api_client_for(lena)
    persian = "\u0645\u062d\u0645\u062f\u200c\u0631\u0636\u0627 \u06a9\u0631\u06cc\u0645\u06cc"
    assert client.patch(ME, {"full_name": persian}, format="json").status_code == 200
    response = client.patch(ME, {"full_name": " Lena\n\tLernende "}, format="json")
    assert response.json()["full_name"] == "Lena Lernende"


def test_settings_page_changes_the_full_name(make_learner):
    lena = make_learner("lena", display_name="Lena")
    browser = Client()
    browser.force_login(lena)
    page = browser.get("/settings/").content.decode()
    assert 'id="id_full_name"' in page
    form = {
        "display_name": "Lena",
        "full_name": "Lena Lernende",
        "email": "lena@example.org",
        "language": "de",
        "time_zone": "Europe/Berlin",
        "reminder_email": "on",
        "reminder_time": "18:00",
        "desired_retention": "0.9",
        "new_cards_per_day": "20",
        "reviews_per_day": "200",
    }
    assert browser.post("/settings/", form).status_code == 302
    lena.refresh_from_db()
    assert lena.full_name == "Lena Lernende"


def test_full_names_are_filled_from_first_and_last_name_by_the_migration(
    migrated_back_afterwards,
):
    """Accounts an admin gave a first and last name get them as the full name (migration 0007)."""
    old = migrate_to([("accounts", "0004_user_next_reminder_at_fill")])
    users = old.get_model("accounts", "User").objects
    users.create(username="adm1", email="a1@example.org", first_name="Ada", last_name="Lovelace")
    users.create(username="adm2", email="a2@example.org", last_name="Nur Nachname")
    users.create(username="adm3", email="a3@example.org")
    new = migrate_to([("accounts", "0007_user_full_name")])
    names = dict(new.get_model("accounts", "User").objects.values_list("username", "full_name"))
    assert names == {"adm1": "Ada Lovelace", "adm2": "Nur Nachname", "adm3": ""}


def test_the_demo_learner_has_the_full_name_her_certificate_states():
    from django.core.management import call_command

    from accounts.models import User

    call_command("demo_setup", stdout=io.StringIO())
    assert User.objects.get(username="lena").full_name == "Lena Lernende"
