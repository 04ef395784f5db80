"""The admin's item editor: one set of fields per kind instead of JSON, German messages for
what is wrong, the JSON columns written from the fields, and the learner's preview."""

from __future__ import annotations

import pytest
from django.utils import translation

from quizzes.admin_item_form import ExamItemForm
from quizzes.models import ExamItem

pytestmark = pytest.mark.django_db


def _data(course, kind: str, **fields) -> dict:
    return {
        "module": course.pk,
        "kind": kind,
        "prompt": "Eine Frage?",
        "text_format": "plain",
        "status": "draft",
        "is_active": "on",
        **fields,
    }


def _rows(name: str, *rows: dict) -> dict:
    return {
        f"{name}-{index}-{column}": value
        for index, row in enumerate(rows)
        for column, value in row.items()
    }


def _saved(course, kind: str, **fields) -> ExamItem:
    form = ExamItemForm(_data(course, kind, **fields))
    assert form.is_valid(), form.errors
    return form.save()


def _errors(form: ExamItemForm, field: str) -> list[str]:
    assert not form.is_valid()
    return list(form.errors.get(field, []))


@pytest.fixture(autouse=True)
def german():
    with translation.override("de"):
        yield


def test_single_choice_is_saved_from_rows_with_the_right_one_ticked(course):
    item = _saved(
        course,
        "single_choice",
        **_rows(
            "choice_rows",
            {"text": "Paris", "correct": "on", "feedback": "Richtig."},
            {"text": "Lyon", "feedback": ""},
            {"text": "", "feedback": ""},  # a spare row left empty is dropped
        ),
    )
    assert item.options == [{"key": "a", "text": "Paris"}, {"key": "b", "text": "Lyon"}]
    assert item.correct_keys == ["a"]
    assert item.answer_feedback == {"a": "Richtig."}
    assert item.answer_key == {}


@pytest.mark.parametrize(
    ("kind", "rows", "message"),
    [
        (
            "single_choice",
            [{"text": "A", "correct": "on"}, {"text": "B", "correct": "on"}],
            "Bei Einfachauswahl ist genau eine Antwort richtig",
        ),
        (
            "multiple_choice",
            [{"text": "A"}, {"text": "B"}],
            "Kreuzen Sie mindestens eine richtige Antwort an.",
        ),
        (
            "single_choice",
            [{"text": "A", "correct": "on"}, {"text": "", "feedback": "nur Rückmeldung"}],
            "Jede Antwortmöglichkeit braucht einen Text",
        ),
        (
            "multiple_choice",
            [{"text": "A", "correct": "on"}],
            "Eine Auswahlfrage braucht mindestens zwei Antwortmöglichkeiten.",
        ),
        (
            "multiple_choice",
            [{"text": "Eins", "correct": "on"}, {"text": " eins "}],
            "Zwei Antwortmöglichkeiten lauten gleich.",
        ),
    ],
)
def test_choice_rows_are_checked_in_german(course, kind, rows, message):
    form = ExamItemForm(_data(course, kind, **_rows("choice_rows", *rows)))
    assert any(message in error for error in _errors(form, "choice_rows"))
    # The model's own (English) check is not repeated above the form.
    assert form.non_field_errors() == []


def test_multiple_choice_takes_several_right_options(course):
    item = _saved(
        course,
        "multiple_choice",
        **_rows(
            "choice_rows",
            {"text": "2", "correct": "on"},
            {"text": "3", "correct": "on"},
            {"text": "4"},
        ),
    )
    assert item.correct_keys == ["a", "b"]


def test_true_false_needs_a_choice_and_keeps_feedback(course):
    form = ExamItemForm(_data(course, "true_false"))
    assert _errors(form, "true_false_correct") == ["Wählen Sie, ob die Aussage richtig ist."]
    item = _saved(
        course,
        "true_false",
        true_false_correct="false",
        true_false_feedback_true="Leider nicht.",
    )
    assert item.correct_keys == ["false"]
    assert [o["key"] for o in item.options] == ["true", "false"]
    assert item.answer_feedback == {"true": "Leider nicht."}


def test_short_answer_with_accepted_answers_and_the_case_rule(course):
    form = ExamItemForm(_data(course, "short_answer"))
    assert _errors(form, "accepted_rows") == ["Geben Sie mindestens eine akzeptierte Antwort an."]
    item = _saved(
        course,
        "short_answer",
        case_sensitive="on",
        **_rows("accepted_rows", {"text": "NaCl", "feedback": "Kochsalz."}, {"text": "Salz"}),
    )
    assert item.answer_key == {"accepted": ["NaCl", "Salz"], "case_sensitive": True}
    assert item.answer_feedback == {"0": "Kochsalz."}
    assert item.options == [] and item.correct_keys == []


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"min": "15", "max": "13"}, "Zeile 1: der Anfang des Bereichs darf nicht über"),
        ({"value": "14", "tolerance": "-1"}, "Zeile 1: die Toleranz darf nicht negativ sein."),
        ({"value": "vierzehn"}, "Zeile 1: „vierzehn“ ist keine Zahl."),
        ({"value": "14", "min": "13", "max": "15"}, "nicht beides"),
        ({"min": "13", "feedback": "x"}, "beide Enden eines Bereichs"),
    ],
)
def test_numerical_rows_are_checked_in_german(course, row, message):
    form = ExamItemForm(_data(course, "numerical", **_rows("number_rows", row)))
    assert any(message in error for error in _errors(form, "number_rows"))


def test_numerical_with_a_tolerance_a_range_and_a_decimal_comma(course):
    item = _saved(
        course,
        "numerical",
        **_rows(
            "number_rows",
            {"value": "14", "tolerance": "0,5", "feedback": "Genau."},
            {"min": "13", "max": "15,0"},
        ),
    )
    assert item.answer_key == {
        "answers": [{"value": "14", "tolerance": "0.5"}, {"min": "13", "max": "15"}]
    }
    assert item.answer_feedback == {"0": "Genau."}


def test_matching_pairs_are_checked_and_saved(course):
    form = ExamItemForm(
        _data(course, "matching", **_rows("pair_rows", {"left": "Hund", "right": "bellt"}))
    )
    assert _errors(form, "pair_rows") == ["Eine Zuordnungsfrage braucht mindestens zwei Paare."]
    item = _saved(
        course,
        "matching",
        **_rows(
            "pair_rows",
            {"left": "Hund", "right": "bellt"},
            {"left": "Katze", "right": "miaut"},
            {"left": "", "right": "quakt"},
        ),
    )
    assert item.answer_key == {
        "pairs": [
            {"left": "Hund", "right": "bellt"},
            {"left": "Katze", "right": "miaut"},
            {"left": "", "right": "quakt"},
        ]
    }


def test_an_html_item_is_sanitised_not_stripped(course):
    item = _saved(
        course,
        "single_choice",
        text_format="html",
        prompt='<p>Was ist <b>fett</b>?</p><script>alert(1)</script><img src=x onerror="x()">',
        **_rows(
            "choice_rows",
            {"text": "<code>x</code>", "correct": "on", "feedback": "<i>ja</i><script>"},
            {"text": "y"},
        ),
    )
    assert item.prompt == "<p>Was ist <b>fett</b>?</p>"
    assert str(item) == "Was ist fett?"  # lists, titles and breadcrumbs show no tags
    assert item.options[0]["text"] == "<code>x</code>"
    assert item.answer_feedback == {"a": "<i>ja</i>"}


def test_the_form_shows_an_item_as_rows_and_no_json(course):
    item = ExamItem.objects.create(
        module=course,
        kind="multiple_choice",
        prompt="Welche?",
        options=[{"key": "x", "text": "FP16"}, {"key": "y", "text": "FP32"}],
        correct_keys=["x"],
        answer_feedback={"y": "Zu breit."},
    )
    form = ExamItemForm(instance=item)
    assert "options" not in form.fields and "answer_key" not in form.fields
    html = str(form["choice_rows"])
    assert 'name="choice_rows-0-text" value="FP16"' in html
    assert 'name="choice_rows-0-correct" aria-label="richtig" checked' in html
    assert 'name="choice_rows-1-feedback" value="Zu breit."' in html
    assert "[{" not in html


def test_editing_an_approved_items_options_sends_it_back_to_draft(course, admin_client):
    item = ExamItem.objects.create(
        module=course,
        kind="single_choice",
        prompt="Welche?",
        options=[{"key": "a", "text": "A"}, {"key": "b", "text": "B"}],
        correct_keys=["a"],
        status="approved",
        reviewed_at="2026-01-01T00:00:00Z",
    )
    data = _data(
        course,
        "single_choice",
        prompt="Welche?",
        status="approved",
        **_rows("choice_rows", {"text": "A"}, {"text": "B", "correct": "on"}),
    )
    response = admin_client.post(f"/admin/quizzes/examitem/{item.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    item.refresh_from_db()
    assert item.correct_keys == ["b"] and item.status == "draft"


def test_an_invalid_edit_answers_the_form_in_german_and_writes_nothing(course, admin_client):
    item = ExamItem.objects.create(
        module=course,
        kind="single_choice",
        prompt="Welche?",
        options=[{"key": "a", "text": "A"}, {"key": "b", "text": "B"}],
        correct_keys=["a"],
    )
    data = _data(course, "single_choice", **_rows("choice_rows", {"text": "A"}, {"text": "B"}))
    response = admin_client.post(
        f"/admin/quizzes/examitem/{item.pk}/change/", data, HTTP_ACCEPT_LANGUAGE="de"
    )
    assert response.status_code == 200
    assert "Kreuzen Sie mindestens eine richtige Antwort an." in response.content.decode()
    item.refresh_from_db()
    assert item.correct_keys == ["a"]


def test_the_preview_renders_the_learners_template_from_unsaved_data(course, admin_client):
    data = _data(
        course,
        "multiple_choice",
        prompt="Erste Zeile\nzweite Zeile",
        **_rows("choice_rows", {"text": "Option eins"}, {"text": "Option <zwei>"}),
    )
    response = admin_client.post("/admin/quizzes/examitem/preview/", data)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="exam-item"' in html  # web/exams/includes/attempt_item.html
    assert "Erste Zeile<br>zweite Zeile" in html
    assert 'type="checkbox" name="item-0"' in html
    assert "Option &lt;zwei&gt;" in html
    assert not ExamItem.objects.exists()
    assert admin_client.get("/admin/quizzes/examitem/preview/").status_code == 405
