"""The course admin's attempt review and regrade pages (quizzes/admin.py), in German: the
figures, every question as the learner saw it, the dry run and the regrade itself."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from quizzes.models import Certificate, ExamAccommodation, ExamAttempt, ExamRegrade
from tests.factories import (
    REGRADE_OPTIONS,
    exam_attempt_take,
    exam_small_bank_create,
    learner_create,
)
from tests.helpers.queries import assert_queries_constant

pytestmark = pytest.mark.django_db

RIGHT, NEW_RIGHT, WRONG = REGRADE_OPTIONS


@pytest.fixture
def kurs(client):
    user = learner_create("kurs", is_staff=True)
    user.groups.add(Group.objects.get(name="Kursverwaltung"))
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    return client


@pytest.fixture
def petra(course, enroll):
    """Petra Prüfling (nickname "petzi"): x answered with the true answer its key calls wrong,
    two other items right, one wrong, one unanswered: 40 %."""
    items = exam_small_bank_create(course)
    user = learner_create("petra", full_name="Petra Prüfling", display_name="petzi")
    enroll(user)
    ExamAccommodation.objects.create(
        learner=user, module=course, extra_time_minutes=15, extra_attempts=1
    )
    x, a, b, c, _unanswered = items
    exam_attempt_take(
        user, course, answers={x.pk: NEW_RIGHT, a.pk: RIGHT, b.pk: RIGHT, c.pk: WRONG}
    )
    return user, items


def test_the_attempt_list_names_the_learner_and_shows_the_score(kurs, petra, course):
    page = kurs.get("/admin/quizzes/examattempt/").content.decode()
    assert "Petra Prüfling · Versuch 1" in page
    assert "40 %" in page
    assert "learner 5" not in page and "Seed" not in page


def test_the_attempt_page_reviews_every_question_as_the_learner_saw_it(kurs, petra, course):
    user, items = petra
    attempt = ExamAttempt.objects.get(learner=user)
    response = kurs.get(f"/admin/quizzes/examattempt/{attempt.pk}/change/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "Versuch 1 von Petra Prüfling · Modul 27" in page
    assert "40 %" in page and "nicht bestanden" in page
    assert "+15 min je Versuch, +1 Versuch(e)" in page
    assert "35 min erlaubt" in page  # 20 of the policy and 15 of the accommodation
    assert page.count('class="review-question ') == 5
    assert page.count("is-wrong") == 3 and page.count("is-right") == 2
    assert "nicht beantwortet" in page
    # The options in the order this attempt showed them, the chosen one and the key.
    first = attempt.items.get(item=items[0])
    shown = " ".join(f"{o['key']}) {o['text']}" for o in first.options)
    assert all(f"{o['key']}) {o['text']}" in page for o in first.options), shown
    assert "Seed" not in page and "seed" not in page


def test_the_review_page_reads_a_fixed_number_of_queries(kurs, petra, course, enroll):
    user, items = petra
    attempt = ExamAttempt.objects.get(learner=user)

    def more():
        for index in range(3):
            other = learner_create(f"more{index}", full_name=f"Mehr {index}")
            enroll(other)
            exam_attempt_take(other, course, answers={item.pk: RIGHT for item in items})

    assert_queries_constant(
        lambda: kurs.get(f"/admin/quizzes/examattempt/{attempt.pk}/change/"), grow=more, budget=12
    )


def test_a_course_admin_corrects_a_key_and_regrades(kurs, petra, course, enroll):
    _user, items = petra
    x = items[0]
    ben = learner_create("ben", full_name="Ben Bestanden")
    enroll(ben)
    exam_attempt_take(ben, course, answers={item.pk: RIGHT for item in items})
    form = kurs.get(f"/admin/quizzes/examitem/{x.pk}/change/")
    assert form.status_code == 200
    x.correct_keys = ["b"]
    x.save()
    dry = kurs.get(f"/admin/quizzes/examitem/{x.pk}/regrade/").content.decode()
    assert "Probelauf" in dry
    assert "Petra Prüfling" in dry and "Ben Bestanden" in dry
    assert "40 → 60 %" in dry and "100 → 80 %" in dry
    assert not ExamRegrade.objects.exists()
    done = kurs.post(f"/admin/quizzes/examitem/{x.pk}/regrade/")
    assert done.status_code == 200
    assert "2 Versuche neu bewertet." in done.content.decode()
    regrade = ExamRegrade.objects.get()
    assert regrade.performed_by_name == "kurs"
    assert Certificate.objects.get().learner == ben  # 80 %: still passed, score updated
    assert str(Certificate.objects.get().score_percent) == "80.00"
    audit = kurs.get(f"/admin/quizzes/examregrade/{regrade.pk}/change/").content.decode()
    assert "Petra Prüfling" in audit and "Versuch 1: 40,00 → 60,00" in audit
    assert "Petra Prüfling: 40,00 → 60,00" in audit


def test_a_regrade_needs_the_right_to_change_items(client, petra):
    _user, items = petra
    viewer = learner_create("nurlesen", is_staff=True)
    client.force_login(viewer)
    assert client.get(f"/admin/quizzes/examitem/{items[0].pk}/regrade/").status_code == 403
    assert client.post(f"/admin/quizzes/examitem/{items[0].pk}/regrade/").status_code == 403
    assert not ExamRegrade.objects.exists()


def test_the_regrade_action_takes_exactly_one_item(kurs, petra):
    _user, items = petra
    response = kurs.post(
        "/admin/quizzes/examitem/",
        {"action": "regrade", "_selected_action": [items[0].pk, items[1].pk]},
        follow=True,
    )
    assert "Wähle genau eine Aufgabe" in response.content.decode()
    response = kurs.post(
        "/admin/quizzes/examitem/", {"action": "regrade", "_selected_action": [items[0].pk]}
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"/admin/quizzes/examitem/{items[0].pk}/regrade/")


# --- the grades and enrollments exports, as a German office opens them -----------------------


def _csv_rows(response) -> list[dict]:
    import csv
    import io

    assert response.content.startswith("\ufeff".encode())
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))


def _xlsx_rows(response) -> list[dict]:
    import io

    from openpyxl import load_workbook

    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def test_the_grades_export_in_german_with_the_full_name_and_local_time(kurs, petra):
    user, _items = petra
    result = ExamAttempt.objects.get(learner=user).result
    from zoneinfo import ZoneInfo

    from django.utils import timezone

    berlin = timezone.localtime(result.finalized_at, ZoneInfo("Europe/Berlin"))
    [row] = _csv_rows(kurs.get("/admin/quizzes/examattempt/grades.csv"))
    assert list(row) == [
        "Modul",
        "Benutzername",
        "Vollständiger Name",
        "E-Mail",
        "Versuche",
        "Ergebnisse (%)",
        "Bewertungsmethode",
        "Endnote (%)",
        "Bestanden",
        "Letzter Versuch beendet",
        "Zertifikat ausgestellt",
    ]
    assert row["Vollständiger Name"] == "Petra Prüfling"  # not the nickname "petzi"
    assert row["Endnote (%)"] == "40,00" and row["Ergebnisse (%)"] == "40,00"
    assert row["Bestanden"] == "nein" and row["Zertifikat ausgestellt"] == "nein"
    assert row["Letzter Versuch beendet"] == berlin.strftime("%d.%m.%Y %H:%M")
    [sheet_row] = _xlsx_rows(kurs.get("/admin/quizzes/examattempt/grades.xlsx"))
    assert sheet_row["Vollständiger Name"] == "Petra Prüfling"
    assert sheet_row["Bestanden"] == "nein"
    assert sheet_row["Letzter Versuch beendet"] == berlin.replace(
        second=0, microsecond=0, tzinfo=None
    )
    assert kurs.get("/admin/quizzes/examattempt/grades.pdf").status_code == 404


def test_both_exports_say_ja_and_nein_alike(kurs, petra, course):
    from progress.models import Enrollment

    ids = list(Enrollment.objects.values_list("pk", flat=True))
    enrollments = _csv_rows(
        kurs.post("/admin/progress/enrollment/", {"action": "export_csv", "_selected_action": ids})
    )
    [row] = enrollments
    assert row["Vollständiger Name"] == "Petra Prüfling"
    assert row["Prüfung bestanden"] == "nein"
    assert row["Eingeschrieben"][2] == "." and len(row["Eingeschrieben"]) == 16
    [grades] = _csv_rows(kurs.get("/admin/quizzes/examattempt/grades.csv"))
    assert grades["Bestanden"] == row["Prüfung bestanden"]
    sheet = _xlsx_rows(
        kurs.post("/admin/progress/enrollment/", {"action": "export_xlsx", "_selected_action": ids})
    )
    assert sheet[0]["Prüfung bestanden"] == "nein"
    assert sheet[0]["Vollständiger Name"] == "Petra Prüfling"


def test_the_enrollment_xlsx_keeps_a_formula_name_as_text(kurs, petra):
    from progress.models import Enrollment

    user, _items = petra
    user.full_name = '=HYPERLINK("https://evil.example","Noten")'
    user.save()
    ids = list(Enrollment.objects.values_list("pk", flat=True))
    [row] = _xlsx_rows(
        kurs.post("/admin/progress/enrollment/", {"action": "export_xlsx", "_selected_action": ids})
    )
    assert row["Vollständiger Name"] == '=HYPERLINK("https://evil.example","Noten")'
    [csv_row] = _csv_rows(
        kurs.post("/admin/progress/enrollment/", {"action": "export_csv", "_selected_action": ids})
    )
    assert csv_row["Vollständiger Name"].startswith("'=HYPERLINK")
