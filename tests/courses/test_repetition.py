"""Repetition across steps: the pure report, the import preview and the module's admin page tell
the course admin which sections are word for word the same and which questions repeat."""

from __future__ import annotations

import re

import pytest

from courses.repetition import StepText, repetition_report


def test_identical_sections_and_repeated_questions_are_reported_most_repeated_first():
    steps = [
        StepText(
            sections=[("Definition", f"Begriff {n}"), ("Anwenden", "Probiere es  aus.")],
            questions=["Was ist der Zweck?", f"Frage {n}"],
        )
        for n in range(3)
    ] + [StepText(sections=[("Anwenden", "Etwas anderes."), ("Vertiefen", "Lies mehr.")])]
    report = repetition_report(steps)
    assert [(s.heading, s.steps, s.total) for s in report.sections] == [("Anwenden", 3, 4)]
    assert [(q.question, q.steps, q.total) for q in report.questions] == [
        ("Was ist der Zweck?", 3, 4)
    ]
    assert report


def test_a_text_that_differs_only_by_the_step_s_term_and_definition_is_the_same():
    steps = [
        StepText(
            sections=[("Anwenden", f"Nutze {term} bewusst: {definition} Prüfe {term} zuerst.")],
            term=term,
            definition=definition,
        )
        for term, definition in (("FP16", "Halbe Genauigkeit."), ("BF16", "Breiter Exponent."))
    ]
    assert [(s.heading, s.steps) for s in repetition_report(steps).sections] == [("Anwenden", 2)]


def test_a_course_without_repetition_reports_nothing():
    report = repetition_report(
        [StepText(sections=[("Anwenden", "eins")]), StepText(sections=[("Anwenden", "zwei")])]
    )
    assert not report and report.sections == () and report.questions == ()


@pytest.mark.django_db
def test_the_module_admin_page_reports_the_shipped_course_s_repetition(course, admin_client):
    html = admin_client.get(
        f"/admin/courses/module/{course.pk}/change/", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "Wiederholt über Schritte hinweg" in html
    assert re.search(r"Anwenden: in 3\d von 32 Schritten wortgleich", html)
    assert "Quick-Check „Was ist der Zweck?“: in " in html


@pytest.mark.django_db
def test_the_import_preview_reports_the_repetition_before_publishing(admin_client):
    from tests.publishing.test_import_admin import _files, _upload

    response = _upload(admin_client, _files())
    page = admin_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert re.search(r"Anwenden: in 3\d von 32 Schritten wortgleich", page)
    assert "Quick-Check „Was ist der Zweck?“: in " in page
