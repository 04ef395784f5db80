"""What a learner meets when a service refuses: a 404 for what the URL names but does not
exist, a message on the page the form came from for an action that cannot be done."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"


def shown(response) -> list[tuple[str, str]]:
    """The messages the response queued for the next page: (level, text)."""
    return [(message.level_tag, str(message)) for message in get_messages(response.wsgi_request)]


def test_posts_to_a_module_or_step_that_does_not_exist_are_404(learner_client, enrolled, course):
    assert learner_client.post("/modules/nope/enroll/").status_code == 404
    assert (
        learner_client.post("/modules/nope/steps/1/progress/", {"event": "completed"}).status_code
        == 404
    )
    assert (
        learner_client.post(MODULE + "steps/99/progress/", {"event": "reopened"}).status_code == 404
    )
    note = {"lernauftrag": "x"}
    assert learner_client.post(MODULE + "steps/99/notes/", note).status_code == 404
    rating = {"rating": "knew"}
    assert learner_client.post(MODULE + "steps/99/quick-checks/1/", rating).status_code == 404
    assert learner_client.post(MODULE + "steps/1/quick-checks/999999/", rating).status_code == 404


def test_progress_without_enrollment_sends_the_learner_to_the_module(learner_client, course):
    response = learner_client.post(MODULE + "steps/1/progress/", {"event": "completed"})
    assert response.status_code == 302 and response["Location"] == MODULE
    assert [level for level, _ in shown(response)] == ["error"]


def test_a_note_without_enrollment_is_404(learner_client, course):
    note = {"lernauftrag": "x"}
    assert learner_client.post(MODULE + "steps/1/notes/", note).status_code == 404


def test_an_unknown_action_is_a_message_on_the_step(learner_client, enrolled, course):
    response = learner_client.post(MODULE + "steps/1/progress/", {"event": "jumped"})
    assert response.status_code == 302 and response["Location"] == MODULE + "steps/1/"
    assert [level for level, _ in shown(response)] == ["error"]


def test_a_refused_completion_is_the_services_message_on_the_step(learner_client, enrolled, course):
    response = learner_client.post(MODULE + "steps/2/progress/", {"event": "completed"})
    assert response.status_code == 302
    assert response["Location"] == MODULE + "steps/2/?missing=1#complete"
    [(level, text)] = shown(response)
    assert level == "error"
    assert text.startswith(
        "Der Schritt ist noch nicht abgeschlossen: 9 Abschnitte noch nicht gesehen; "
        "1 Quick-Check noch nicht beantwortet; noch etwa"
    )


def test_a_refused_note_is_a_message_in_the_learners_language_at_the_note(
    learner_client, enrolled, course
):
    from progress.models import NOTE_MAX_LENGTH

    response = learner_client.post(
        MODULE + "steps/1/notes/", {"lernauftrag": "x" * (NOTE_MAX_LENGTH + 1)}
    )
    assert response.status_code == 302
    assert response["Location"] == MODULE + "steps/1/#note-lernauftrag"
    assert shown(response) == [("error", f"Eine Notiz hat höchstens {NOTE_MAX_LENGTH} Zeichen.")]
    from progress.models import StepNote

    assert not StepNote.objects.exists()  # nothing half-written


def test_both_notes_are_saved_by_one_form_and_an_absent_one_is_kept(
    learner_client, enrolled, course
):
    from progress.models import StepNote

    url = MODULE + "steps/1/notes/"
    learner_client.post(url, {"praxisaufgabe": "Praxis", "lernauftrag": "Auftrag"})
    assert dict(StepNote.objects.values_list("prompt", "text")) == {
        "praxisaufgabe": "Praxis",
        "lernauftrag": "Auftrag",
    }
    # A form with one field changes only that note; an empty one deletes it.
    learner_client.post(url, {"lernauftrag": ""})
    assert dict(StepNote.objects.values_list("prompt", "text")) == {"praxisaufgabe": "Praxis"}
    response = learner_client.post(url, {"unrelated": "x"})
    assert response.status_code == 302
    assert [level for level, _ in shown(response)][-1] == "error"


def test_rating_a_card_that_is_not_yours_is_a_message_in_the_session(learner_client, enrolled):
    response = learner_client.post("/review/rate/", {"card": 999999, "rating": 3})
    assert response.status_code == 302 and response["Location"] == "/review/"
    assert shown(response) == [("error", "Du hast keine Lernkarte mit dieser Nummer.")]


def test_undo_without_a_review_is_a_note_in_the_session(learner_client, enrolled):
    response = learner_client.post("/review/undo/")
    assert response.status_code == 302 and response["Location"] == "/review/"
    assert [level for level, _ in shown(response)] == ["info"]


def test_error_pages_are_styled_in_the_learners_language(client, course, settings):
    german = client.get("/no-such-page/")
    assert german.status_code == 404
    html = german.content.decode()
    assert "<h1>Seite nicht gefunden</h1>" in html and 'href="/static/' in html
    english = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="en")
    assert "<h1>Page not found</h1>" in english.content.decode()
    # The API keeps its error shape.
    assert client.get("/api/v1/no-such-thing/").json()["error"]["code"] == "not_found"


def test_the_500_page_is_styled_without_touching_the_database(rf, django_assert_num_queries):
    from django.contrib.auth.models import AnonymousUser

    from lms.views import server_error

    request = rf.get("/modules/x/")
    request.user = AnonymousUser()
    with django_assert_num_queries(0):
        response = server_error(request)
    assert response.status_code == 500
    assert "Etwas ist schiefgelaufen" in response.content.decode()


def test_a_throttled_form_is_a_styled_429_in_the_learners_language(client, course, monkeypatch):
    from lms import middleware

    monkeypatch.setattr(middleware.FormLoginRateThrottle, "allow_request", lambda *a: False)
    monkeypatch.setattr(middleware.FormLoginRateThrottle, "wait", lambda self: 42)
    response = client.post("/signup/", {}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 429 and response["Retry-After"] == "42"
    html = response.content.decode()
    assert "<h1>Too many attempts</h1>" in html and "42 seconds" in html
    german = client.post("/signup/", {})
    assert "Zu viele Versuche. Bitte warte eine Minute" in german.content.decode()
