"""The admin shows cards, the review log, reminder claims and notifications, and the planner's
schedule (created by a data migration) under django-celery-beat's periodic tasks."""

from __future__ import annotations

import datetime

import pytest
from django_celery_beat.models import PeriodicTask

from reviews import api
from reviews.models import ReviewCard

pytestmark = pytest.mark.django_db


def test_the_planner_runs_every_15_minutes_from_the_database_schedule():
    task = PeriodicTask.objects.get(task="reviews.tasks.reminders_plan")
    assert task.enabled and task.interval.every == 15 and task.interval.period == "minutes"


@pytest.mark.parametrize(
    "url",
    [
        "/admin/reviews/reviewcard/",
        "/admin/reviews/reviewlog/",
        "/admin/reviews/reminderdigest/",
        "/admin/reviews/notification/",
        "/admin/django_celery_beat/periodictask/",
    ],
)
def test_admin_lists_load(admin_client, learner, steps, url):
    at = datetime.datetime(2030, 6, 1, tzinfo=datetime.UTC)
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=at)
    response = admin_client.get(url)
    assert response.status_code == 200


def test_admin_can_suspend_cards(admin_client, learner, steps):
    at = datetime.datetime(2030, 6, 1, tzinfo=datetime.UTC)
    api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=at)
    card = ReviewCard.objects.get(kind="definition")
    response = admin_client.post(
        "/admin/reviews/reviewcard/",
        {"action": "suspend", "_selected_action": [card.pk]},
    )
    assert response.status_code == 302
    card.refresh_from_db()
    assert card.suspended is True
