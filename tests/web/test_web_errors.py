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
    assert response.status_code == 302 and response["Location"] == MODULE + "steps/2/"
    assert shown(response) == [
        ("error", "The step is completed only after all its sections have been viewed.")
    ]


def test_a_refused_note_is_the_services_message_at_the_note(learner_client, enrolled, course):
    from progress.models import NOTE_MAX_LENGTH

    response = learner_client.post(
        MODULE + "steps/1/notes/", {"lernauftrag": "x" * (NOTE_MAX_LENGTH + 1)}
    )
    assert response.status_code == 302
    assert response["Location"] == MODULE + "steps/1/#note-lernauftrag"
    assert shown(response) == [("error", f"A note has at most {NOTE_MAX_LENGTH} characters.")]


def test_rating_a_card_that_is_not_yours_is_a_message_in_the_session(learner_client, enrolled):
    response = learner_client.post("/review/rate/", {"card": 999999, "rating": 3})
    assert response.status_code == 302 and response["Location"] == "/review/"
    assert shown(response) == [("error", "You have no review card with this id.")]


def test_undo_without_a_review_is_a_note_in_the_session(learner_client, enrolled):
    response = learner_client.post("/review/undo/")
    assert response.status_code == 302 and response["Location"] == "/review/"
    assert [level for level, _ in shown(response)] == ["info"]
