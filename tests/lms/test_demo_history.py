"""``manage.py demo_setup`` gives the demo learner a history: steps done on past days, reviews
on past days (through the real due queue and review service), cards due now; run again, it adds
nothing. Every learner page then shows something real."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from lms.management.commands.demo_setup import DEMO_COMPLETED_DAYS_AGO

pytestmark = pytest.mark.django_db


def test_the_demo_learner_starts_with_history(course, client):
    from accounts.models import User
    from progress.models import StepProgress
    from reviews.models import ReviewLog
    from reviews.selectors import due_queue, review_stats

    out = StringIO()
    call_command("demo_setup", stdout=out)
    lena = User.objects.get(username="lena")
    completed = StepProgress.objects.filter(learner=lena, status="completed")
    assert completed.count() == len(DEMO_COMPLETED_DAYS_AGO)
    assert StepProgress.objects.filter(learner=lena, status="in_progress").count() == 1
    days = {p.completed_at.date() for p in completed}
    assert len(days) == len(DEMO_COMPLETED_DAYS_AGO)  # on different days, over two weeks and more
    logs = ReviewLog.objects.filter(learner=lena, source="review")
    review_days = {log.reviewed_at.date() for log in logs}
    assert logs.count() >= 25 and len(review_days) >= 8
    assert all(log.reviewed_at < timezone.now() for log in logs)
    now = timezone.now()
    stats = review_stats(learner=lena, at=now)
    assert stats.streak_days >= 1 and stats.reviewed_today == 0
    assert due_queue(learner=lena, at=now).due_count > 0
    summary = r"lena: 8 step\(s\) of self-hosting-27 completed, \d+ past review"
    assert re.search(summary, out.getvalue())

    # Run again (make run does, every time): nothing is added.
    before = (logs.count(), completed.count())
    call_command("demo_setup", stdout=StringIO())
    assert (logs.count(), completed.count()) == before

    lena.refresh_from_db()  # the second run set the password again
    client.force_login(lena)
    response = client.get("/stats/")
    assert response.status_code == 200, response
    stats_html = response.content.decode()
    assert 'class="heat-4"' in stats_html and "Noch keinen Schritt" not in stats_html
    assert 'id="review-front"' in client.get("/review/").content.decode()
