"""Enrollment through the API: idempotent enroll, unenroll, my enrollments."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from courses.services.importing import course_import
from progress.models import Enrollment, StepProgress
from tests.factories import api_client_for
from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

MODULE = "/api/v1/modules/self-hosting-27/"


@pytest.fixture
def client(lena):
    return api_client_for(lena)


def test_enrolling_is_idempotent(course, client, lena):
    first = client.post(MODULE + "enrollment/")
    assert first.status_code == 201
    body = first.json()
    assert body["module"] == "self-hosting-27" and body["source"] == "self"
    assert (body["total_steps"], body["completed_steps"], body["percent_complete"]) == (32, 0, 0)
    assert body["last_activity_at"] is None
    again = client.post(MODULE + "enrollment/")
    assert again.status_code == 200
    assert again.json()["enrolled_at"] == body["enrolled_at"]
    assert Enrollment.objects.filter(learner=lena).count() == 1
    assert client.get(MODULE + "enrollment/").json() == again.json()


def test_enrolling_in_an_unknown_module_is_404(course, client):
    response = client.post("/api/v1/modules/nope/enrollment/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "module_not_found"
    assert not Enrollment.objects.exists()


def test_unenrolling_keeps_progress_for_a_later_return(course, client, lena):
    client.post(MODULE + "enrollment/")
    client.post(MODULE + "steps/1/progress/", {"event": "opened"}, format="json")
    assert client.delete(MODULE + "enrollment/").status_code == 204
    assert client.get(MODULE + "enrollment/").status_code == 404
    assert client.delete(MODULE + "enrollment/").json()["error"]["code"] == "not_enrolled"
    assert client.get(MODULE + "progress/").status_code == 404
    assert StepProgress.objects.filter(learner=lena, status="in_progress").count() == 1
    client.post(MODULE + "enrollment/")
    assert client.get(MODULE + "progress/").json()["in_progress_steps"] == 1


def test_my_enrollments_list_shows_progress(course, client, make_learner):
    client.post(MODULE + "enrollment/")
    client.post(MODULE + "steps/1/progress/", {"event": "opened"}, format="json")
    other = api_client_for(make_learner("mara"))
    other.post(MODULE + "enrollment/")
    body = client.get("/api/v1/enrollments/").json()
    assert body["count"] == 1
    item = body["results"][0]
    assert item["module"] == "self-hosting-27" and item["last_activity_at"] is not None


def test_enrollment_list_query_count_is_constant(db, module_document, client):
    course_import(paths=[module_document("a.txt", number=1)])
    client.post("/api/v1/modules/homelab-1/enrollment/")

    def grow():
        for number in (2, 3, 4):
            course_import(paths=[module_document(f"m{number}.txt", number=number)])
            client.post(f"/api/v1/modules/homelab-{number}/enrollment/")
            client.post(
                f"/api/v1/modules/homelab-{number}/steps/1/progress/",
                {"event": "opened"},
                format="json",
            )

    # The count and the page, with one or with four enrollments.
    assert_queries_constant(lambda: client.get("/api/v1/enrollments/"), grow=grow, budget=2)
    body = client.get("/api/v1/enrollments/").json()
    assert body["count"] == 4
    # Newest first.
    assert [item["module"] for item in body["results"]] == [f"homelab-{n}" for n in (4, 3, 2, 1)]


def data_statements(client, method, url) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as context:
        status = getattr(client, method)(url).status_code
    sql = [q["sql"] for q in context.captured_queries]
    return status, [q for q in sql if not re.match(r"(SAVEPOINT|RELEASE SAVEPOINT)\b", q)]


def test_enrollment_detail_and_enroll_query_counts(course, client):
    # Module id; get_or_create (select, insert); the step ids and one insert of 32 "not
    # started" rows; read back with the counts. Savepoints not counted.
    status, statements = data_statements(client, "post", MODULE + "enrollment/")
    assert (status, len(statements)) == (201, 6), statements
    status, statements = data_statements(client, "post", MODULE + "enrollment/")
    assert (status, len(statements)) == (200, 3), statements  # module id, select, read back
    status, statements = data_statements(client, "get", MODULE + "enrollment/")
    assert (status, len(statements)) == (200, 1), statements
