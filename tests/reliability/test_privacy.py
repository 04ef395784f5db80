"""Privacy: GET /api/v1/me/export/ holds everything stored about me; DELETE /api/v1/me/ erases it.

The export is checked against the database itself: every model with a foreign key to the user
must have a place in the export, with all its rows and all its columns (except named secrets),
so a model or column added later fails here until the export includes it.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from reliability_world import CANARY, PASSWORD, actor_create, ok, user_models

from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

EXPORT_URL = "/api/v1/me/export/"

# Where each model that belongs to a user appears in the export.
SECTIONS = {
    "accounts.User": lambda e: [e["account"]],
    "accounts.Device": lambda e: e["devices"],
    "knox.AuthToken": lambda e: e["tokens"],
    "progress.Enrollment": lambda e: e["courses"]["enrollments"],
    "progress.StepProgress": lambda e: e["courses"]["step_progress"],
    "progress.ProgressEvent": lambda e: e["courses"]["progress_events"],
    "progress.StepNote": lambda e: e["courses"]["notes"],
    "quizzes.QuickCheckRating": lambda e: e["quizzes"]["quick_check_ratings"],
    "quizzes.QuickCheckRatingEvent": lambda e: e["quizzes"]["quick_check_rating_events"],
    "quizzes.ExamAttempt": lambda e: e["quizzes"]["exam_attempts"],
    "quizzes.ExamResult": lambda e: [a["result"] for a in e["quizzes"]["exam_attempts"]],
    "quizzes.Certificate": lambda e: e["quizzes"]["certificates"],
    "quizzes.ExamAccommodation": lambda e: e["quizzes"]["exam_accommodations"],
    "quizzes.ExamRegradeLearner": lambda e: e["quizzes"]["exam_regrades"],
    "reviews.ReviewCard": lambda e: e["reviews"]["cards"],
    "reviews.ReviewLog": lambda e: e["reviews"]["review_logs"],
    "reviews.ReminderDigest": lambda e: e["reviews"]["reminders"],
    "reviews.Notification": lambda e: e["reviews"]["notifications"],
    "reviews.ParameterFit": lambda e: e["reviews"]["fsrs_parameter_fits"],
    "reviews.LearnerParameters": lambda e: e["reviews"]["fsrs_parameters"],
    "reviews.ExamDate": lambda e: e["reviews"]["exam_dates"],
    "reviews.CalendarFeed": lambda e: e["reviews"]["calendar_feeds"],
    "lti_tool.LtiUser": lambda e: e["lti"]["identities"],
    "lti.LaunchTicket": lambda e: e["lti"]["launch_tickets"],
    "socialaccount.SocialAccount": lambda e: e["sso_identities"],
    "account.EmailAddress": lambda e: e["email_addresses"],
    "courses.ModuleAdministrator": lambda e: e["module_administrators"],
}
# Columns deliberately not exported, and why.
NOT_EXPORTED = {
    "accounts.User": {"password"},  # a hash of the secret, useless to the learner
    "knox.AuthToken": {"digest", "token_key"},  # the token's hash and lookup prefix: secrets
    "accounts.Device": {"token_id"},  # the token's hash (knox's primary key)
    # The attempt's row is exported in the shape the learner knows from the API; its shuffle
    # seed is the exam's (with the bank it reproduces the draw and the option order).
    "quizzes.ExamAttempt": {"learner_id", "module_id", "policy_id", "seed"},
    "quizzes.ExamResult": {"id", "attempt_id", "learner_id", "module_id"},
    "reviews.CalendarFeed": {"token"},  # the private calendar address's credential
    "lti.LaunchTicket": {"token"},  # the one-time link's credential
}
# Not learner data: the admin's audit trail of staff actions (deleted with the account), and the
# course admin who reviewed an exam item (the item is course content; the decision stays when
# the reviewer's account goes, ``reviewed_by`` becomes empty), and the course admin who uploaded
# or published a course import (the history is the course's; both become empty likewise), and
# the course admin who regraded an item (the audit line keeps their username as they acted).
NOT_PERSONAL = {
    "admin.LogEntry",
    "quizzes.ExamItem",
    "publishing.CourseImport",
    "quizzes.ExamRegrade",
}


def test_export_holds_every_row_and_column_stored_about_me(world):
    export = ok(world.a.client.get(EXPORT_URL)).json()
    user_id = world.a.user.pk
    for model, field in user_models():
        label = model._meta.label
        if label in NOT_PERSONAL:
            continue
        assert label in SECTIONS, f"{label} holds user data but has no place in the export"
        rows = model.objects.filter(**{field: user_id})
        exported = [row for row in SECTIONS[label](export) if row is not None]
        assert len(exported) == rows.count(), label
        columns = {f.attname for f in model._meta.concrete_fields} - NOT_EXPORTED.get(label, set())
        for row in exported:
            missing = columns - set(row)
            assert not missing, f"{label} export lacks {sorted(missing)}"
    # The world made sure there is something in every section that matters.
    assert export["courses"]["notes"][0]["text"].startswith(f"Notiz von {CANARY}")
    assert {a["result"] is None for a in export["quizzes"]["exam_attempts"]} == {True, False}
    assert export["quizzes"]["certificates"][0]["code"] == world.ids["certificate_code"]
    assert export["quizzes"]["exam_accommodations"][0]["extra_time_minutes"] == 10
    # The shuffle seed is in no attempt.
    assert not any("seed" in attempt for attempt in export["quizzes"]["exam_attempts"])
    assert f"{CANARY}-review-1" in {r["client_review_id"] for r in export["reviews"]["review_logs"]}
    assert len(export["tokens"]) == 2 and {d["name"] for d in export["devices"]} == {
        "phone",
        "tablet",
    }


def test_export_has_no_secrets(world):
    from knox.models import AuthToken

    from reviews.services.calendar_feeds import calendar_feed_create

    feed = calendar_feed_create(learner_id=world.a.user.pk)
    response = ok(world.a.client.get(EXPORT_URL))
    text = response.content.decode()
    assert world.a.token not in text and world.ids["second_token"] not in text
    # The private calendar address is exported without its token.
    assert feed.token not in text
    assert [f["id"] for f in response.json()["reviews"]["calendar_feeds"]] == [feed.pk]
    for token in AuthToken.objects.filter(user=world.a.user):
        assert token.digest not in text and f'"{token.token_key}"' not in text
    assert world.a.user.password not in text
    assert response["Content-Disposition"] == f'attachment; filename="lernpfad-{CANARY}.json"'
    # The open attempt's answer key is exam content, not the learner's: never exported
    # (the answer scanner checks every response of this test as well).
    open_attempt = next(
        a for a in response.json()["quizzes"]["exam_attempts"] if a["id"] == world.ids["attempt"]
    )
    assert open_attempt["review_shows"] == "nothing"
    assert all(set(item) >= {"prompt", "selected_keys"} for item in open_attempt["items"])
    assert not any("correct_keys" in item for item in open_attempt["items"])


def test_export_is_only_mine(world):
    text = ok(world.b.client.get(EXPORT_URL)).content.decode().lower()
    assert CANARY not in text
    assert Client().get(EXPORT_URL).status_code == 401


def test_export_query_count_does_not_grow_with_the_data(world):
    """An empty account and a full one (world's A) cost the same queries: through the API
    (token authentication included) and in the service (one query per table of the account,
    its courses, quizzes and reviews)."""
    from privacy.services import account_export

    actor = actor_create("nina")

    def fill() -> None:
        nonlocal actor
        actor = world.a

    assert_queries_constant(lambda: ok(actor.client.get(EXPORT_URL)), grow=fill, budget=35)
    actor = actor_create("otto")
    assert_queries_constant(lambda: account_export(user=actor.user), grow=fill, budget=31)


def _finish_second_module(actor, slug: str, correct: int) -> None:
    from courses.models import Module
    from quizzes.models import ExamAttemptItem
    from tests.factories import steps_complete

    ok(actor.client.post(f"/api/v1/modules/{slug}/enrollment/"))
    steps_complete(actor.user, Module.objects.get(slug=slug))
    attempt = ok(actor.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
    answers = []
    for position, item in enumerate(
        ExamAttemptItem.objects.filter(attempt_id=attempt["id"]).order_by("position")
    ):
        keys = list(item.correct_keys)
        if position >= correct:
            keys = [o["key"] for o in item.options if o["key"] not in keys][:1]
        answers.append({"item": item.pk, "selected": keys})
    ok(actor.client.put(f"/api/v1/exam-attempts/{attempt['id']}/answers/", {"answers": answers}))
    ok(actor.client.post(f"/api/v1/exam-attempts/{attempt['id']}/submit/"))


def _figures(analysis) -> list:
    """The exam's and each item's overall figures in one flat list, to compare to a tolerance
    (kept answers have no version: they count in neither "now" nor "before")."""
    from dataclasses import astuple

    figures = list(astuple(analysis.exam))
    for row in analysis.rows:
        figures.extend(astuple(row.figures) if row.figures else [None])
    return figures


def _my_rows(user_id: int) -> dict[str, int]:
    return {
        model._meta.label: model.objects.filter(**{field: user_id}).count()
        for model, field in user_models()
    }


def test_delete_needs_the_password_and_changes_nothing_without_it(world):
    before = _my_rows(world.a.user.pk)
    refused = world.a.client.delete("/api/v1/me/", {"password": "not-my-password"})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "password_incorrect"
    assert world.a.client.delete("/api/v1/me/", {}).status_code == 400
    assert world.a.client.delete("/api/v1/me/").status_code == 400
    assert _my_rows(world.a.user.pk) == before


def test_delete_erases_me_and_keeps_statistics_anonymously(world):
    from courses.models import Module
    from quizzes.models import ArchivedItemResponse, Certificate
    from quizzes.selectors import item_analysis

    slug = world.second_module_slug
    module_id = Module.objects.get(slug=slug).pk
    # Two more learners finish the second module's exam with other scores than A's 100 %, on
    # the very items A was shown (the rest of the bank is switched off), so every item's answers
    # vary and its discrimination index exists.
    from quizzes.models import ExamAttemptItem, ExamItem

    shown = ExamAttemptItem.objects.filter(attempt_id=world.ids["attempt_passed"]).values("item_id")
    ExamItem.objects.filter(module_id=module_id).exclude(id__in=shown).update(is_active=False)
    _finish_second_module(actor_create("lutz"), slug, correct=0)
    _finish_second_module(actor_create("mara"), slug, correct=2)
    statistics = item_analysis(module_id=module_id)
    assert (
        sum(
            row.figures is not None and row.figures.discrimination_index is not None
            for row in statistics.rows
        )
        == 3
    )
    b_export = ok(world.b.client.get(EXPORT_URL)).json()
    code = world.ids["certificate_code"]
    assert Client().get(f"/certificates/{code}/").status_code == 200
    user_id = world.a.user.pk

    ok(world.a.client.delete("/api/v1/me/", {"password": PASSWORD}), 204)

    assert not any(_my_rows(user_id).values()), _my_rows(user_id)
    assert world.a.client.get("/api/v1/me/").status_code == 401
    refused = Client().post("/login/", {"username": CANARY, "password": PASSWORD})
    assert refused.status_code == 200 and not refused.context["form"].is_valid()
    # The item analysis is the same as before (summed in another order), and the kept answers
    # name nobody.
    after = item_analysis(module_id=module_id)
    assert _figures(after) == pytest.approx(_figures(statistics), abs=1e-9)
    archived = ArchivedItemResponse.objects.filter(module_id=module_id)
    assert archived.count() == 3
    assert {f.name for f in ArchivedItemResponse._meta.fields} == {
        "id",
        "item",
        "module",
        "respondent",
        "attempt_number",
        "attempt_score",
        "is_correct",
        "position",
    }
    # The certificate is revoked: its public page no longer verifies it.
    assert not Certificate.objects.filter(code=code).exists()
    assert Client().get(f"/certificates/{code}/").status_code == 404
    # Nobody else lost anything.
    after = ok(world.b.client.get(EXPORT_URL)).json()
    for key in ("courses", "quizzes", "reviews", "devices"):
        assert json.dumps(after[key], sort_keys=True) == json.dumps(b_export[key], sort_keys=True)


def test_delete_from_the_browser_ends_the_session(world):
    browser = Client()
    browser.force_login(world.a.user)
    response = browser.delete(
        "/api/v1/me/", json.dumps({"password": PASSWORD}), content_type="application/json"
    )
    assert response.status_code == 204
    assert browser.get("/api/v1/me/").status_code in (401, 403)
    assert "sessionid" not in browser.cookies or not browser.cookies["sessionid"].value
