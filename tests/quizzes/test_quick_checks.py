"""Quick-check self-assessment over the API: rate, re-rate, list my ratings for a step."""

from __future__ import annotations

import pytest

from courses.models import QuickCheck, Step
from quizzes.models import QuickCheckRating, QuickCheckRatingEvent
from tests.helpers.queries import assert_queries_constant, assert_queries_within

pytestmark = pytest.mark.django_db


def step_checks(number: int) -> list[QuickCheck]:
    step = Step.objects.get(number=number, status="active")
    return [link.quick_check for link in step.quick_check_links.order_by("position")]


def rate(client, number, quick_check_id, rating, module="self-hosting-27"):
    return client.post(
        f"/api/v1/modules/{module}/steps/{number}/quick-checks/{quick_check_id}/answers/",
        {"rating": rating},
        format="json",
    )


def test_rate_then_rate_again_keeps_latest_and_history(learner_api, learner, course):
    quick_check = step_checks(1)[0]
    first = rate(learner_api, 1, quick_check.pk, "not_yet")
    assert first.status_code == 201
    assert first.json()["rating"] == "not_yet" and first.json()["times_rated"] == 1
    second = rate(learner_api, 1, quick_check.pk, "knew")
    assert second.status_code == 200
    assert second.json()["rating"] == "knew" and second.json()["times_rated"] == 2
    assert QuickCheckRating.objects.get(learner=learner).rating == "knew"
    assert list(
        QuickCheckRatingEvent.objects.filter(learner=learner)
        .order_by("rated_at", "id")
        .values_list("rating", flat=True)
    ) == ["not_yet", "knew"]


def test_a_shared_quick_check_is_one_rating_across_steps(learner_api, course, flashcards):
    # A flashcard shown by steps 1 and 2: rating it at step 1 shows at step 2.
    shared = flashcards["shared"]
    assert rate(learner_api, 1, shared.pk, "partly").status_code == 201
    listed = learner_api.get("/api/v1/modules/self-hosting-27/steps/2/quick-checks/").json()
    by_id = {row["id"]: row for row in listed}
    assert by_id[shared.pk]["rating"] == "partly"
    assert rate(learner_api, 2, shared.pk, "knew").status_code == 200
    assert QuickCheckRating.objects.count() == 1


def test_a_reflection_prompt_takes_no_rating(learner_api, learner, course):
    """The generic lines every step shows (and instructions) are reflection prompts: the list
    says so, and a rating is refused without writing anything."""
    from reviews.models import ReviewCard, ReviewLog

    listed = learner_api.get("/api/v1/modules/self-hosting-27/steps/1/quick-checks/").json()
    roles = [(row["role"], row["takes_rating"]) for row in listed]
    assert roles == [("definition", True)] + [("generic", False)] * 5
    generic = next(row for row in listed if row["role"] == "generic")
    response = rate(learner_api, 1, generic["id"], "knew")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "reflection_prompt"
    assert not QuickCheckRating.objects.exists() and not QuickCheckRatingEvent.objects.exists()
    assert not ReviewCard.objects.exists() and not ReviewLog.objects.exists()


def test_rating_the_definition_line_reviews_the_definition_card(learner_api, learner, course):
    """ "Was ist der Zweck? <the definition>" is the definition card: its rating is that card's
    first review, and no quick-check card with the same back is made."""
    from reviews.models import ReviewCard

    definition_line = step_checks(1)[0]
    step = Step.objects.get(number=1, status="active")
    assert definition_line.role == "definition" and definition_line.answer == step.definition
    assert rate(learner_api, 1, definition_line.pk, "knew").status_code == 201
    card = ReviewCard.objects.get(learner=learner)
    assert (card.kind, card.step_id, card.quick_check_id) == ("definition", step.pk, None)
    assert card.last_review is not None and card.logs.get().source == "quick_check"


def test_list_for_step_shows_order_and_my_ratings_only(learner_api, make_learner, client_for):
    checks = step_checks(3)
    rate(learner_api, 3, checks[0].pk, "knew")
    other = client_for(make_learner("otto"))
    rate(other, 3, checks[1].pk, "not_yet")
    rows = learner_api.get("/api/v1/modules/self-hosting-27/steps/3/quick-checks/").json()
    assert [row["id"] for row in rows] == [qc.pk for qc in checks]
    assert [row["position"] for row in rows] == list(range(1, len(checks) + 1))
    assert rows[0]["rating"] == "knew" and rows[0]["rated_at"]
    assert all(row["rating"] is None for row in rows[1:])


def test_quick_check_of_another_step_is_404(learner_api, course):
    own = step_checks(2)[0]  # step 2's definition line is shown by step 2 only
    response = rate(learner_api, 1, own.pk, "knew")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "quick_check_not_found"
    assert not QuickCheckRating.objects.exists()


@pytest.mark.parametrize(
    ("module", "number"),
    [("self-hosting-27", 99), ("no-such-module", 1)],
)
def test_unknown_step_or_module_is_404(learner_api, course, module, number):
    quick_check = step_checks(1)[0]
    assert rate(learner_api, number, quick_check.pk, "knew", module=module).status_code == 404
    url = f"/api/v1/modules/{module}/steps/{number}/quick-checks/"
    assert learner_api.get(url).status_code == 404


@pytest.mark.parametrize("body", [{}, {"rating": "perfect"}, {"rating": None}, {"rating": 3}])
def test_bad_rating_is_400(learner_api, course, body):
    quick_check = step_checks(1)[0]
    response = learner_api.post(
        f"/api/v1/modules/self-hosting-27/steps/1/quick-checks/{quick_check.pk}/answers/",
        body,
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert not QuickCheckRating.objects.exists()


def test_anonymous_cannot_rate(api_client, course):
    quick_check = step_checks(1)[0]
    assert rate(api_client, 1, quick_check.pk, "knew").status_code in (401, 403)
    url = "/api/v1/modules/self-hosting-27/steps/1/quick-checks/"
    assert api_client.get(url).status_code in (401, 403)


def test_rating_is_passed_to_the_reviews_app(learner_api, learner, course, monkeypatch):
    calls = []
    monkeypatch.setattr(
        "reviews.api.quick_check_rated", lambda **kwargs: calls.append(kwargs), raising=True
    )
    quick_check = step_checks(4)[0]
    rate(learner_api, 4, quick_check.pk, "partly")
    step = Step.objects.get(number=4, status="active")
    assert len(calls) == 1
    call = calls[0]
    assert (call["learner_id"], call["step_id"], call["quick_check_id"], call["rating"]) == (
        learner.pk,
        step.pk,
        quick_check.pk,
        "partly",
    )
    assert call["at"].tzinfo is not None


def test_failing_reviews_call_leaves_no_rating(learner_api, course, monkeypatch):
    def boom(**kwargs):
        raise RuntimeError("reviews down")

    monkeypatch.setattr("reviews.api.quick_check_rated", boom)
    quick_check = step_checks(1)[0]
    with pytest.raises(RuntimeError):
        rate(learner_api, 1, quick_check.pk, "knew")
    # One transaction: no rating without its review card.
    assert not QuickCheckRating.objects.exists()
    assert not QuickCheckRatingEvent.objects.exists()


def test_list_query_count_is_constant(learner_api, learner, course):
    from django.utils import timezone

    step = Step.objects.get(number=5, status="active")
    now = timezone.now()
    url = "/api/v1/modules/self-hosting-27/steps/5/quick-checks/"

    def rate_stored(quick_checks):
        # Ratings as they are stored (reflection prompts too: rated before they became prompts).
        for quick_check in quick_checks:
            QuickCheckRating.objects.create(
                learner=learner,
                quick_check=quick_check,
                step=step,
                rating="knew",
                first_rated_at=now,
                updated_at=now,
            )

    rate_stored(step_checks(5)[:1])
    # step, its quick checks, my ratings
    assert_queries_constant(
        lambda: learner_api.get(url), grow=lambda: rate_stored(step_checks(5)[1:6]), budget=3
    )
    assert sum(1 for row in learner_api.get(url).json() if row["rating"]) == 6


def test_rate_query_count(learner_api, course, monkeypatch):
    monkeypatch.setattr("reviews.api.quick_check_rated", lambda **kwargs: None)
    quick_check = step_checks(5)[0]
    # step, its quick checks, savepoint, lock the enrollment, lock row, insert rating, insert
    # history, the answer as the step's evidence (savepoint, lock and read the progress row,
    # update it, release), release
    statuses = []
    for rating in ("knew", "partly"):
        assert_queries_within(
            lambda rating=rating: statuses.append(
                rate(learner_api, 5, quick_check.pk, rating).status_code
            ),
            budget=13,
        )
    assert statuses == [201, 200]
    assert QuickCheckRating.objects.get(quick_check=quick_check).times_rated == 2


def test_rating_needs_an_enrollment(make_learner, client_for, course):
    """Issue 13: an unenrolled learner's rating answered 201 and created a review card. It needs
    an enrollment, as progress does: 404 not_enrolled in the error shape, nothing written."""
    from reviews.models import ReviewCard, ReviewLog

    outsider = make_learner("otto")
    quick_check = step_checks(1)[0]
    response = rate(client_for(outsider), 1, quick_check.pk, "knew")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "not_enrolled" and "schreib dich zuerst ein" in error["message"]
    assert not QuickCheckRating.objects.exists()
    assert not QuickCheckRatingEvent.objects.exists()
    assert not ReviewCard.objects.filter(learner=outsider).exists()
    assert not ReviewLog.objects.filter(learner=outsider).exists()


def test_rating_after_unenrolling_is_refused(learner_api, learner, course):
    quick_check = step_checks(1)[0]
    assert rate(learner_api, 1, quick_check.pk, "knew").status_code == 201
    assert learner_api.delete("/api/v1/modules/self-hosting-27/enrollment/").status_code == 204
    response = rate(learner_api, 1, quick_check.pk, "not_yet")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_enrolled"
    assert QuickCheckRating.objects.get(learner=learner).rating == "knew"
