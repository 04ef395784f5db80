"""Admin: bulk enrollment from the users list, learners per module with progress, CSV export."""

import csv
import datetime
import io

import pytest
from django.utils import timezone

from courses.models import Step
from progress.models import Enrollment, StepProgress

pytestmark = pytest.mark.django_db


@pytest.fixture
def learners(make_learner):
    return [make_learner(name) for name in ("anna", "ben", "cem")]


def test_bulk_enroll_users_through_an_intermediate_page(course, admin_client, learners):
    anna, ben, _ = learners
    Enrollment.objects.create(learner=ben, module=course, enrolled_at=timezone.now())
    selected = {"action": "enroll_in_module", "_selected_action": [anna.pk, ben.pk]}
    page = admin_client.post("/admin/accounts/user/", selected)
    assert page.status_code == 200
    assert b"Enroll these 2 users" in page.content and course.header.encode() in page.content
    done = admin_client.post(
        "/admin/accounts/user/", {**selected, "apply": "1", "module": course.pk}, follow=True
    )
    assert b"Enrolled 1 user(s); 1 were enrolled already." in done.content
    sources = dict(Enrollment.objects.values_list("learner__username", "source"))
    assert sources == {"anna": "admin", "ben": "self"}


def test_bulk_enroll_rejects_an_unknown_module(course, admin_client, learners):
    selected = {"action": "enroll_in_module", "_selected_action": [learners[0].pk]}
    page = admin_client.post("/admin/accounts/user/", {**selected, "apply": "1", "module": 999})
    assert page.status_code == 200 and b"errorlist" in page.content
    assert not Enrollment.objects.exists()


def _progress(learner, module, numbers):
    now = timezone.now()
    StepProgress.objects.bulk_create(
        StepProgress(
            learner=learner,
            step=step,
            status="completed",
            completed_at=now,
            last_event_at=now,
            updated_at=now,
        )
        for step in Step.objects.filter(module=module, number__in=numbers)
    )


@pytest.fixture
def enrollments(course, learners):
    now = timezone.now()
    for learner in learners:
        Enrollment.objects.create(learner=learner, module=course, enrolled_at=now)
    anna, ben, _ = learners
    _progress(anna, course, range(1, 17))  # 16 of 32
    _progress(ben, course, [1])
    return learners


def test_learners_per_module_with_percent_and_last_activity(enrollments, admin_client, course):
    # The third column: progress (learner, module, progress, exam, last activity, enrolled).
    page = admin_client.get(f"/admin/progress/enrollment/?module__id__exact={course.pk}&o=3")
    assert page.status_code == 200
    text = page.content.decode()
    for expected in ("anna", "ben", "cem", "50 % · 16/32", "3 % · 1/32", "0 % · 0/32"):
        assert expected in text
    # Sorted by percent: cem (0), ben (3), anna (50).
    assert text.index(">cem<") < text.index(">ben<") < text.index(">anna<")


def test_search_and_activity_filter(enrollments, admin_client):
    text = admin_client.get("/admin/progress/enrollment/?q=anna").content.decode()
    assert ">anna<" in text and ">ben<" not in text
    never = admin_client.get("/admin/progress/enrollment/?activity=never").content.decode()
    assert ">cem<" in never and ">anna<" not in never
    recent = admin_client.get("/admin/progress/enrollment/?activity=7d").content.decode()
    assert ">anna<" in recent and ">cem<" not in recent


def test_csv_export(enrollments, admin_client, learners):
    learners[2].display_name = "=HYPERLINK(evil)"
    learners[2].save()
    learners[1].email = "@ben@example.org"
    learners[1].save()
    ids = list(Enrollment.objects.values_list("pk", flat=True))
    response = admin_client.post(
        "/admin/progress/enrollment/", {"action": "export_csv", "_selected_action": ids}
    )
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))
    by_name = {row["Username"]: row for row in rows}
    assert by_name["anna"]["Complete (%)"] == "50"
    assert by_name["anna"]["Steps completed"] == "16" and by_name["anna"]["Steps"] == "32"
    assert by_name["cem"]["Last activity"] == ""
    assert by_name["cem"]["Full name"] == "'=HYPERLINK(evil)"
    assert by_name["ben"]["E-mail"] == "'@ben@example.org"


def test_step_by_step_progress_of_a_learner(enrollments, admin_client):
    enrollment = Enrollment.objects.get(learner__username="ben")
    StepProgress.objects.filter(learner=enrollment.learner, step__number=1).update(
        sections_viewed=["verstehen", "anwenden"],
        completed_at=datetime.datetime(2026, 3, 1, 23, 30, 15, 123456, tzinfo=datetime.UTC),
    )
    page = admin_client.get(
        f"/admin/progress/enrollment/{enrollment.pk}/change/", HTTP_ACCEPT_LANGUAGE="de"
    )
    assert page.status_code == 200
    text = page.content.decode()
    # German, section kinds by their headings, times in the admin's zone (Europe/Berlin) to
    # the minute: no slugs, no UTC ISO with microseconds.
    assert (
        "<td>1</td><td>GPU compute</td><td>abgeschlossen</td>"
        "<td>1. Verstehen, 2. Anwenden</td>" in text
    )
    assert "<td>02.03.2026 00:30</td></tr>" in text
    assert "<td>2</td><td>CUDA</td><td>nicht begonnen</td>" in text
    assert "123456" not in text and "+00:00" not in text
    english = admin_client.get(
        f"/admin/progress/enrollment/{enrollment.pk}/change/", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "<td>2</td><td>CUDA</td><td>not started</td>" in english


def test_step_progress_list(enrollments, admin_client, course):
    url = f"/admin/progress/stepprogress/?step__module__id__exact={course.pk}"
    assert b"17 step progress" in admin_client.get(url).content
    german = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="de")
    assert "17 Lernfortschritte" in german.content.decode()


def test_enrollment_changelist_query_count_is_constant(
    enrollments, admin_client, make_learner, course
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        admin_client.get("/admin/progress/enrollment/")
    now = timezone.now()
    for index in range(10):
        learner = make_learner(f"more{index}")
        Enrollment.objects.create(learner=learner, module=course, enrolled_at=now)
        _progress(learner, course, [1, 2])
    with CaptureQueriesContext(connection) as many:
        admin_client.get("/admin/progress/enrollment/")
    assert len(many.captured_queries) == len(few.captured_queries)
