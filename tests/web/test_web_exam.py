"""The exam pages: the attempt page never carries the answers; submit, result, certificate."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"


def start(client) -> tuple[int, str]:
    response = client.post(MODULE + "exam/start/")
    assert response.status_code == 302
    url = response["Location"]
    return int(re.search(r"(\d+)", url).group(1)), url


def test_exam_page_html_never_contains_the_answers(learner_client, studied, course):
    from quizzes.models import ExamAttemptItem

    attempt_id, url = start(learner_client)
    html = learner_client.get(url).content.decode()
    items = list(ExamAttemptItem.objects.filter(attempt_id=attempt_id))
    assert items
    for word in ("correct_keys", "is_correct", "correct", "explanation"):
        assert word not in html.lower(), word
    for item in items:
        shown = item.prompt + " ".join(option["text"] for option in item.options)
        if item.explanation and item.explanation not in shown:
            assert item.explanation not in html
        # A correct option's input looks exactly like a wrong one's, apart from its key.
        inputs = re.findall(rf'<input[^>]*name="item-{item.pk}"[^>]*>', html)
        assert len(inputs) == len(item.options)
        shapes = {re.sub(r'(value|id)="[^"]*"', "", tag).replace(" checked", "") for tag in inputs}
        assert len(shapes) == 1, shapes


def test_exam_flow_without_javascript(learner_client, studied, course):
    """Answer in the form, confirm, get the result and the certificate page."""
    from quizzes.models import ExamAttemptItem

    attempt_id, url = start(learner_client)
    answers = {
        f"item-{item_id}": keys
        for item_id, keys in ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list(
            "id", "correct_keys"
        )
    }
    response = learner_client.post(url, answers)
    assert response["Location"] == f"/exam/attempts/{attempt_id}/submit/"
    confirm = learner_client.get(response["Location"]).content.decode()
    assert "Prüfung abgeben?" in confirm and "Noch nicht beantwortet" not in confirm
    response = learner_client.post(f"/exam/attempts/{attempt_id}/submit/")
    assert response["Location"] == f"/exam/attempts/{attempt_id}/result/"
    result = learner_client.get(response["Location"]).content.decode()
    assert "Bestanden" in result and "100 %" in result
    code = re.search(r'href="/my/certificates/([^/]+)/"', result).group(1)
    certificate = learner_client.get(f"/my/certificates/{code}/").content.decode()
    assert (
        "GPU, CUDA und Inferenzoptimierung" in certificate
        and f"/certificates/{code}/" in certificate
    )
    # Submitting again changes nothing; the attempt page now shows the result.
    assert learner_client.post(f"/exam/attempts/{attempt_id}/submit/")["Location"].endswith(
        "/result/"
    )
    assert learner_client.get(url)["Location"].endswith("/result/")


def test_the_result_page_after_the_deadline_shows_the_result_and_writes_nothing(
    learner_client, studied, course
):
    """Time ran out before the learner submitted: the page shows the result their saved answers
    get, without storing it; the periodic task stores that same result (and the certificate)."""
    import datetime

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from quizzes.models import Certificate, ExamAttempt, ExamAttemptItem, ExamResult
    from quizzes.tasks import exam_attempts_finalize_expired

    attempt_id, url = start(learner_client)
    answers = {
        f"item-{item_id}": keys
        for item_id, keys in ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list(
            "id", "correct_keys"
        )
    }
    learner_client.post(url, answers)
    result_url = f"/exam/attempts/{attempt_id}/result/"
    assert learner_client.get(result_url)["Location"] == url  # time is left
    now = timezone.now()
    ExamAttempt.objects.filter(pk=attempt_id).update(
        started_at=now - datetime.timedelta(minutes=21),
        deadline_at=now - datetime.timedelta(minutes=1),
    )

    with CaptureQueriesContext(connection) as queries:
        page = learner_client.get(result_url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Bestanden" in html and "100 %" in html and "Die Zeit ist abgelaufen" in html
    writes = [q["sql"] for q in queries if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE")]
    assert writes == []
    assert not ExamResult.objects.exists() and not Certificate.objects.exists()

    assert exam_attempts_finalize_expired() == 1
    stored = ExamResult.objects.get(attempt_id=attempt_id)
    assert (stored.reason, stored.correct_count, stored.passed) == ("expired", 10, True)
    with CaptureQueriesContext(connection) as stored_queries:
        after = learner_client.get(result_url).content.decode()
    assert len(stored_queries) == len(queries)  # the same reads, before and after the task
    assert "Bestanden" in after and "100 %" in after and "Die Zeit ist abgelaufen" in after
    assert f'href="/my/certificates/{Certificate.objects.get().code}/"' in after


def test_unanswered_items_are_listed_before_submitting(learner_client, studied, course):
    attempt_id, _url = start(learner_client)
    confirm = learner_client.get(f"/exam/attempts/{attempt_id}/submit/").content.decode()
    assert "Noch nicht beantwortet" in confirm and confirm.count('href="/exam/attempts/') >= 10


def test_another_learners_attempt_and_certificate_are_404(client, learner_client, studied, course):
    from accounts.services import user_register
    from progress.services.enrollment import enrollment_create

    attempt_id, url = start(learner_client)
    other = user_register(
        username="otto", email="otto@example.org", password="yet-another-passphrase-99"
    )
    enrollment_create(learner_id=other.pk, module_slug=course.slug)
    client.force_login(other)
    assert client.get(url).status_code == 404
    assert client.get(f"/exam/attempts/{attempt_id}/submit/").status_code == 404
    assert client.post(f"/exam/attempts/{attempt_id}/submit/").status_code == 404
    assert client.get(f"/exam/attempts/{attempt_id}/result/").status_code == 404
    assert client.get("/my/certificates/not-mine/").status_code == 404


def test_starting_without_enrollment_explains_why(learner_client, course):
    page = learner_client.get(MODULE + "exam/").content.decode()
    assert "Schreib dich in das Modul ein" in page
    response = learner_client.post(MODULE + "exam/start/", follow=True)
    assert response.redirect_chain[-1][0] == MODULE + "exam/"


def test_exam_page_asks_for_the_full_name_and_links_to_the_settings_field(
    learner_client, studied, course
):
    enrolled = studied  # a certifying exam (approved bank, steps done) asks for the name
    enrolled.full_name = ""
    enrolled.save()
    page = learner_client.get(MODULE + "exam/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Gib zuerst deinen Vor- und Nachnamen an" in page
    assert 'href="/settings/#id_full_name"' in page
    assert 'action="/modules/self-hosting-27/exam/start/"' not in page
    # A start posted anyway is refused with the same reason, and nothing starts.
    refused = learner_client.post(MODULE + "exam/start/", follow=True).content.decode()
    assert "full_name" in refused
    from quizzes.models import ExamAttempt

    assert not ExamAttempt.objects.exists()
    enrolled.full_name = "Lena Lernende"
    enrolled.save()
    page = learner_client.get(MODULE + "exam/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Your certificate will state your full name “Lena Lernende”." in page
    assert 'action="/modules/self-hosting-27/exam/start/"' in page


def test_marks_for_later_reach_the_confirmation_without_javascript(learner_client, studied, course):
    """The attempt page has a question overview and a "mark for later" box per question; the
    marks travel with the form to the confirmation, which lists them (issue 18)."""
    from quizzes.models import ExamAttemptItem

    attempt_id, url = start(learner_client)
    html = learner_client.get(url).content.decode()
    items = list(ExamAttemptItem.objects.filter(attempt_id=attempt_id).order_by("position"))
    assert html.count('class="exam-overview__link') == len(items)
    assert html.count('name="marked"') == len(items)
    second = items[1]
    response = learner_client.post(url, {"marked": [str(second.id), "999999", "x"]})
    assert response.status_code == 302
    assert response["Location"].endswith(f"/submit/?marked={second.id}")
    confirm = learner_client.get(response["Location"]).content.decode()
    assert "Für später markiert:" in confirm
    assert f'href="{url}#item-{second.id}"' in confirm
    # Without marks the confirmation has no such list.
    plain = learner_client.get(url + "submit/").content.decode()
    assert "Für später markiert:" not in plain
