"""The course admin's views that join apps: the module dashboard (quizzes.admin_dashboard), the
enrollments' exam column and CSV (quizzes.admin_enrollments), the item statistics chart. Their
figures, their charts under the strict CSP, and query counts constant in steps, learners and
attempts (1 and many)."""

from __future__ import annotations

import csv
import datetime
import io
import re
from decimal import Decimal

import pytest
from django.utils import timezone

from progress.models import Enrollment
from quizzes.models import Certificate, ExamAttempt, ExamResult
from reviews.models import ReviewCard, ReviewLog
from tests.factories import enrollment_create, learner_create, steps_complete
from tests.helpers.csp import csp_violations
from tests.helpers.queries import assert_queries_constant, assert_queries_within

pytestmark = pytest.mark.django_db


def _attempt(learner, module, policy, *, number: int, score: str, passed: bool, at=None):
    at = at or timezone.now()
    attempt = ExamAttempt.objects.create(
        learner=learner,
        module=module,
        policy=policy,
        number=number,
        seed=number,
        item_count=10,
        pass_mark_percent=Decimal(60),
        certifying=True,
        started_at=at - datetime.timedelta(minutes=20),
        deadline_at=at + datetime.timedelta(minutes=10),
    )
    ExamResult.objects.create(
        attempt=attempt,
        learner=learner,
        module=module,
        score_percent=Decimal(score),
        correct_count=int(Decimal(score) / 10),
        item_count=10,
        passed=passed,
        reason="submitted",
        finalized_at=at,
    )
    return attempt


def _review(learner, step, *, rating: int, before_state: int, at):
    card = ReviewCard.objects.filter(learner=learner, step=step, kind="definition").first()
    if card is None:
        card = ReviewCard.objects.create(
            learner=learner, kind="definition", step=step, state=2, due=at, created_at=at
        )
    ReviewLog.objects.create(
        card=card,
        learner=learner,
        source="review",
        rating=rating,
        reviewed_at=at,
        before_state=before_state,
        before_due=at,
        after_state=2,
        after_stability=3.0,
        after_difficulty=5.0,
        after_due=at + datetime.timedelta(days=3),
    )


@pytest.fixture
def policy(course):
    from quizzes.services.items import exam_policy_get

    return exam_policy_get(module_id=course.pk)


def _learners(course, policy, count: int, *, start: int = 0):
    """``count`` learners: enrolled 10 days ago, each completes every step 4 days later, and
    has two finalized attempts (45 % failed, 85 % passed) and a certificate; and reviews."""
    now = timezone.now()
    steps = list(course.steps.active().order_by("number")[:2])
    for index in range(start, start + count):
        learner = learner_create(f"learner{index}", full_name=f"Learner {index}")
        enrollment_create(learner, course, at=now - datetime.timedelta(days=10))
        steps_complete(learner, course, at=now - datetime.timedelta(days=6))
        _attempt(learner, course, policy, number=1, score="45", passed=False)
        passed = _attempt(learner, course, policy, number=2, score="85", passed=True)
        Certificate.objects.create(
            learner=learner,
            module=course,
            attempt=passed,
            code=f"CODE{index:04d}",
            learner_name=f"Learner {index}",
            score_percent=Decimal(85),
            issued_at=now,
        )
        for day, rating in ((1, 3), (2, 1), (3, 4)):
            _review(
                learner,
                steps[0],
                rating=rating,
                before_state=2,
                at=now - datetime.timedelta(days=day),
            )
        _review(learner, steps[1], rating=1, before_state=1, at=now - datetime.timedelta(days=1))


@pytest.fixture
def course_admin(client):
    from django.contrib.auth.models import Group

    user = learner_create("karla", is_staff=True)
    user.groups.add(Group.objects.get(name="Kursverwaltung"))
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    return client


def _figures(page: str) -> dict[str, str]:
    return {
        label.strip(): value
        for value, label in re.findall(r"<li><strong>([^<]*)</strong>([^<]*)</li>", page)
    }


def test_the_dashboard_shows_the_modules_figures(course, policy, course_admin):
    _learners(course, policy, 2)
    learner_create("idle")
    enrollment_create(learner_create("newcomer"), course)
    response = course_admin.get(f"/admin/quizzes/examattempt/dashboard/{course.slug}/")
    assert response.status_code == 200
    page = response.content.decode()
    figures = _figures(page)
    assert figures["eingeschriebene Lernende"] == "3"
    assert figures["aktiv in den letzten 7 Tagen"] == "2"
    assert figures["alle Schritte abgeschlossen"] == "2"
    assert figures["Median Tage von Einschreibung bis Abschluss"] == "4,0"
    assert figures["Prüfungsversuche"] == "4"
    assert figures["Bestehensquote (Lernende)"] == "100 %"
    assert figures["gültige Zertifikate"] == "2"
    assert figures["Wiederholungen in den letzten 90 Tagen"] == "8"
    # True retention counts only cards past learning: 4 of 6 recalled.
    assert figures["echte Behaltensquote (Anteil gewusst)"] == "67 %"
    # Funnel: one bar per active step, every step completed by 2 of 3 learners.
    steps = course.steps.active().count()
    assert page.count('<rect class="chart__bar"') == steps + 10 + 90
    assert "Schritt 1 · GPU compute: 2 Personen haben ihn abgeschlossen" in page
    assert "2 Versuche mit 80–89 %" in page and "2 Versuche mit 40–49 %" in page


def test_the_dashboard_holds_under_the_strict_csp(course, policy, course_admin):
    _learners(course, policy, 1)
    response = course_admin.get(f"/admin/quizzes/examattempt/dashboard/{course.slug}/")
    page = response.content.decode()
    assert csp_violations(page) == []
    body = page[page.index('<div id="content-main"') :]
    assert "<svg" in body and "<script" not in body


def test_the_module_pages_link_the_dashboard(course, course_admin):
    url = f"/admin/quizzes/examattempt/dashboard/{course.slug}/"
    assert url in course_admin.get("/admin/courses/module/").content.decode()
    assert url in course_admin.get(f"/admin/courses/module/{course.pk}/change/").content.decode()
    assert course_admin.get("/admin/quizzes/examattempt/dashboard/nope/").status_code == 404


def test_a_learner_without_staff_rights_gets_no_dashboard(course, client):
    client.force_login(learner_create("lena"))
    response = client.get(f"/admin/quizzes/examattempt/dashboard/{course.slug}/")
    assert response.status_code == 302  # to the admin's log-in


def _page(client, url: str):
    """A GET of ``url`` that must answer 200, run once to warm the per-process content caches
    (courses.api, one second)."""

    def get():
        assert client.get(url).status_code == 200

    get()
    return get


@pytest.mark.parametrize(
    ("url", "budget"),
    [
        ("/admin/quizzes/examattempt/dashboard/{slug}/", 16),
        ("/admin/progress/enrollment/", 14),
        ("/admin/quizzes/examattempt/", 11),
        ("/admin/quizzes/examitem/statistics/?module={slug}", 10),
        ("/admin/courses/step/", 10),
        ("/admin/progress/stepprogress/", 9),
        ("/admin/reviews/reviewcard/", 8),
        ("/admin/reviews/reviewlog/", 11),
        ("/admin/quizzes/certificate/", 9),
    ],
)
def test_admin_page_query_counts_do_not_grow(course, policy, course_admin, url, budget):
    url = url.format(slug=course.slug)
    _learners(course, policy, 1)
    get = _page(course_admin, url)
    assert_queries_constant(
        get, grow=lambda: (_learners(course, policy, 12, start=1), get()), budget=budget
    )


def test_the_step_page_query_count_does_not_grow_with_learners(course, policy, course_admin):
    step = course.steps.get(number=1)
    _learners(course, policy, 1)
    get = _page(course_admin, f"/admin/courses/step/{step.pk}/change/")
    assert_queries_constant(
        get, grow=lambda: (_learners(course, policy, 8, start=1), get()), budget=16
    )


def test_the_enrollments_exam_column_shows_best_score_passed_and_certificate(
    course, policy, course_admin
):
    _learners(course, policy, 1)
    enrollment_create(learner_create("notyet"), course)
    page = course_admin.get("/admin/progress/enrollment/").content.decode()
    assert "<th" in page and "Prüfung" in page
    assert "85 % · bestanden" in page and "CODE0000" in page
    assert "kein Versuch" in page


def test_the_enrollments_csv_has_the_exam(course, policy, course_admin):
    _learners(course, policy, 1)
    enrollment_create(learner_create("notyet"), course)
    ids = list(Enrollment.objects.values_list("pk", flat=True))
    response = course_admin.post(
        "/admin/progress/enrollment/", {"action": "export_csv", "_selected_action": ids}
    )
    text = io.StringIO(response.content.decode("utf-8-sig"))
    rows = {row["Benutzername"]: row for row in csv.DictReader(text, delimiter=";")}
    assert rows["learner0"]["Prüfungsversuche"] == "2"
    assert rows["learner0"]["Bestes Ergebnis (%)"] == "85,00"
    assert rows["learner0"]["Prüfung bestanden"] == "ja"
    assert rows["learner0"]["Prüfcode"] == "CODE0000"
    assert rows["notyet"]["Prüfungsversuche"] == "0"
    assert rows["notyet"]["Prüfung bestanden"] == "nein"


def test_item_statistics_show_a_chart_and_translated_kinds(course, course_admin):
    from tests.factories import exam_bank_approve

    exam_bank_approve(course)
    page = course_admin.get(f"/admin/quizzes/examitem/statistics/?module={course.slug}")
    text = page.content.decode()
    assert page.status_code == 200
    assert '<svg class="chart chart--scatter"' in text
    assert "Einfachauswahl" in text or "Mehrfachauswahl" in text
    assert "<td>single_choice</td>" not in text
    assert "Auffällige Aufgaben" in text


@pytest.mark.parametrize(
    ("url", "budget"),
    [
        ("/admin/quizzes/examattempt/dashboard/{slug}/", 16),
        # 3 of them: the sections and quick checks repeated across steps (courses.repetition).
        ("/admin/courses/module/{pk}/change/", 10),
        ("/admin/courses/step/?module__id__exact={pk}", 10),
        ("/admin/progress/enrollment/", 14),
        ("/admin/progress/enrollment/{enrollment}/change/", 10),
        ("/admin/quizzes/examitem/statistics/?module={slug}", 10),
    ],
)
def test_admin_page_query_counts_do_not_grow_with_steps(module_document, course_admin, url, budget):
    """The same pages for a module of 3 steps and one of 60 (one learner who did them all)."""
    from courses.models import Module
    from courses.services.importing import course_import

    counts = []
    for number, size in ((3, 3), (4, 60)):
        path = module_document(
            f"module-{number}.txt",
            number=number,
            title=f"Modul {number}",
            terms=tuple(f"Begriff {index}" for index in range(size)),
        )
        course_import(paths=[path])
        module = Module.objects.get(number=number, series="Homelab")
        learner = learner_create(f"walker{number}")
        enrollment = enrollment_create(learner, module)
        steps_complete(learner, module)
        page = url.format(slug=module.slug, pk=module.pk, enrollment=enrollment.pk)
        counts.append(assert_queries_within(_page(course_admin, page), budget=budget))
    assert counts[0] == counts[1]


def test_a_course_admin_lands_on_the_dashboard_after_logging_in(course, client):
    """The week starts on the module dashboard; a superuser and an asked-for page keep theirs."""
    from django.contrib.auth.models import Group

    from tests.factories import learner_password

    kurs = learner_create("kurs", is_staff=True)
    kurs.groups.add(Group.objects.get(name="Kursverwaltung"))
    login = {"username": "kurs", "password": learner_password("kurs"), "next": "/admin/"}
    landed = client.post("/admin/login/", login, follow=True)
    assert landed.redirect_chain[-1][0] == f"/admin/quizzes/examattempt/dashboard/{course.slug}/"
    assert landed.status_code == 200

    client.logout()
    asked = {**login, "next": "/admin/quizzes/examitem/"}
    assert client.post("/admin/login/", asked)["Location"] == "/admin/quizzes/examitem/"

    client.logout()
    learner_create("root", is_staff=True, is_superuser=True)
    root = {"username": "root", "password": learner_password("root"), "next": "/admin/"}
    assert client.post("/admin/login/", root)["Location"] == "/admin/"
