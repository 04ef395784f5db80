"""The settings page: German number formats, the time-zone picker, the daily limits, the data
export and the account deletion (password entered again)."""

from __future__ import annotations

import json
import re

import pytest

from tests.web.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def settings_post(**changes) -> dict:
    data = {
        "display_name": "Lena",
        "email": "lena@example.org",
        "language": "de",
        "time_zone": "Europe/Berlin",
        "reminder_email": "on",
        "reminder_time": "18:00",
        "quiet_hours_start": "",
        "quiet_hours_end": "",
        "desired_retention": "0,90",
        "new_cards_per_day": "20",
        "reviews_per_day": "200",
    }
    data.update(changes)
    return data


def test_retention_is_written_the_german_way_on_a_german_page(learner_client, learner):
    html = learner_client.get("/settings/").content.decode()
    assert 'name="desired_retention" value="0,90"' in html
    assert "0,80 bis 0,97" in html
    response = learner_client.post("/settings/", settings_post(desired_retention="0,85"))
    assert response.status_code == 302
    learner.refresh_from_db()
    assert learner.desired_retention == 0.85


def test_retention_is_written_the_english_way_on_an_english_page(learner_client, learner):
    learner.language = "en"
    learner.save(update_fields=["language"])
    learner_client.post("/language/", {"language": "en"})
    html = learner_client.get("/settings/").content.decode()
    assert 'name="desired_retention" value="0.90"' in html and "0.80 to 0.97" in html


@pytest.mark.parametrize("value", ["0,5", "abc", "0,99", ""])
def test_a_retention_out_of_range_is_a_german_error_and_nothing_is_saved(
    learner_client, learner, value
):
    response = learner_client.post(
        "/settings/", settings_post(desired_retention=value, new_cards_per_day="7")
    )
    assert response.status_code == 200
    html = response.content.decode()
    errors = re.search(r'id="id_desired_retention_errors">(.*?)</ul>', html, re.S).group(1)
    assert re.search(r"Wert|Zahl|erforderlich|Dezimal", errors), errors
    learner.refresh_from_db()
    assert learner.desired_retention == 0.9 and learner.new_cards_per_day == 20


def test_the_time_zone_is_a_grouped_picker_with_the_learners_zone_selected(learner_client):
    html = learner_client.get("/settings/").content.decode()
    select = re.search(r'<select name="time_zone".*?</select>', html, re.S).group(0)
    assert '<optgroup label="Europa">' in select and '<optgroup label="Amerika">' in select
    assert '<option value="Europe/Berlin" selected>Berlin</option>' in select
    assert '<option value="America/Argentina/Buenos_Aires">Argentina – Buenos Aires</option>' in (
        select
    )
    assert 'value="UTC"' in select and 'value="localtime"' not in select
    assert "<datalist" not in html


def test_a_time_zone_off_the_list_is_refused(learner_client, learner):
    response = learner_client.post("/settings/", settings_post(time_zone="Mars/Olympus"))
    assert response.status_code == 200 and 'id="id_time_zone_errors"' in response.content.decode()
    learner.refresh_from_db()
    assert learner.time_zone == "Europe/Berlin"


def test_the_daily_limits_are_saved_and_bounded(learner_client, learner):
    html = learner_client.get("/settings/").content.decode()
    assert 'name="new_cards_per_day" value="20"' in html
    assert 'name="reviews_per_day" value="200"' in html
    response = learner_client.post(
        "/settings/", settings_post(new_cards_per_day="5", reviews_per_day="50")
    )
    assert response.status_code == 302
    learner.refresh_from_db()
    assert (learner.new_cards_per_day, learner.reviews_per_day) == (5, 50)
    response = learner_client.post(
        "/settings/", settings_post(new_cards_per_day="-1", reviews_per_day="99999")
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="id_new_cards_per_day_errors"' in html and 'id="id_reviews_per_day_errors"' in html
    learner.refresh_from_db()
    assert (learner.new_cards_per_day, learner.reviews_per_day) == (5, 50)


def test_the_data_export_downloads_everything_as_json(learner_client, learner):
    assert 'href="/settings/export/"' in learner_client.get("/settings/").content.decode()
    response = learner_client.get("/settings/export/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"] == 'attachment; filename="lernpfad-lena.json"'
    export = json.loads(response.content)
    assert export["account"]["username"] == "lena"
    assert {"courses", "quizzes", "reviews", "format_version"} <= set(export)


def test_the_export_and_the_deletion_need_a_log_in(client, learner):
    for url in ("/settings/export/", "/settings/delete/"):
        assert client.get(url)["Location"].startswith("/login/")


def test_a_wrong_password_deletes_nothing(learner_client, learner):
    from accounts.models import User

    response = learner_client.post("/settings/delete/", {"password": "falsch-falsch"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Das Passwort stimmt nicht. Es wurde nichts gelöscht." in html
    assert User.objects.filter(pk=learner.pk).exists()
    response = learner_client.post("/settings/delete/", {"password": ""})
    assert response.status_code == 200 and 'id="id_password_errors"' in response.content.decode()
    assert User.objects.filter(pk=learner.pk).exists()


def test_deleting_the_account_with_the_password(learner_client, learner, course):
    from accounts.models import User
    from progress.models import Enrollment
    from progress.services.enrollment import enrollment_create

    enrollment_create(learner_id=learner.pk, module_slug=course.slug)
    page = learner_client.get("/settings/delete/").content.decode()
    assert 'autocomplete="current-password"' in page
    response = learner_client.post("/settings/delete/", {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/account-deleted/"
    assert not User.objects.filter(pk=learner.pk).exists()
    assert not Enrollment.objects.filter(learner_id=learner.pk).exists()
    gone = learner_client.get("/account-deleted/")
    assert gone.status_code == 200 and "Dein Konto ist gelöscht" in gone.content.decode()
    assert learner_client.get("/settings/")["Location"].startswith("/login/")
