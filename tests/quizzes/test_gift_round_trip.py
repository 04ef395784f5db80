"""GIFT both ways without loss: per-answer feedback, $CATEGORY:, comments and [html] (kept,
sanitised) survive export → import → export byte for byte, for every GIFT kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.gift import gift_parse, gift_write

# A held-out file in the exporter's style: every kind, feedback on single answers, two
# categories, comments before questions, [html] prompts, options, feedback and explanations.
EVERY_KIND = Path(__file__).parent / "data" / "every-kind-feedback.gift"


def test_the_file_covers_every_kind_with_feedback_categories_comments_and_html():
    items = gift_parse(EVERY_KIND.read_text(encoding="utf-8")).items
    assert {item.kind for item in items} == {
        "single_choice",
        "multiple_choice",
        "true_false",
        "short_answer",
        "numerical",
        "matching",
    }
    by_title = {item.title: item for item in items}
    assert by_title["Hauptstadt"].answer_feedback == {
        "a": "Richtig, seit dem Mittelalter.",
        "b": "Nein, Lyon ist die drittgrößte Stadt.",
    }
    assert by_title["Hauptstadt"].comment == " question: 101  name: Hauptstadt\n  Quelle: Kapitel 1"
    assert by_title["Hauptstadt"].prompt == (
        "Welche Stadt ist die Hauptstadt von Frankreich?\nBitte nur eine wählen."
    )
    assert by_title["Primzahlen"].text_format == "html"
    assert by_title["Primzahlen"].answer_feedback == {
        "a": "<i>Ja</i>, die einzige gerade.",
        "c": "<code>4 = 2·2</code>",
    }
    assert by_title["Erde"].answer_feedback == {"false": "Doch, sie ist rund.", "true": "Genau."}
    assert by_title["Wurzel"].answer_feedback == {"0": "Gut gerechnet."}
    assert by_title["Werkzeug"].answer_feedback == {"0": "Genau."}
    assert by_title["Paare"].explanation == "<p>Tiere und ihre <strong>Laute</strong>.</p>"
    assert [item.category for item in items] == ["$course$/top/Grundlagen"] * 3 + [
        "$course$/top/Rechnen"
    ] * 3


@pytest.mark.parametrize(
    "kind",
    ["single_choice", "multiple_choice", "true_false", "short_answer", "numerical", "matching"],
)
def test_every_kind_round_trips_byte_for_byte(kind):
    """One kind at a time: its questions from the file, written, read and written again."""
    items = [
        item
        for item in gift_parse(EVERY_KIND.read_text(encoding="utf-8")).items
        if item.kind == kind
    ]
    assert items
    written = gift_write(items)
    again = gift_parse(written)
    assert again.warnings == []
    assert again.items == items
    assert gift_write(again.items) == written


def test_the_whole_file_is_written_back_byte_for_byte():
    data = EVERY_KIND.read_bytes()
    assert gift_write(gift_parse(data.decode("utf-8")).items).encode("utf-8") == data


def test_feedback_with_special_characters_is_escaped_and_read_back():
    (item,) = gift_parse("Frage {=a#Rück\\#meldung \\= \\{x\\} ~b#c\\: d}").items
    assert item.answer_feedback == {"a": "Rück#meldung = {x}", "b": "c: d"}
    assert gift_parse(gift_write([item])).items == [item]


@pytest.mark.django_db
def test_import_into_the_bank_and_export_is_byte_identical(course):
    """Through the database: the import keeps every field the file carries."""
    from courses.models import Module
    from quizzes.models import ExamItem
    from quizzes.selectors import item_bank_gift
    from quizzes.services.gift_import import exam_items_gift_import

    module = Module.objects.create(
        slug="rund-1", series="Rund", number=1, title="Rundreise", header="Rund 1"
    )
    data = EVERY_KIND.read_bytes()
    report = exam_items_gift_import(module_id=module.id, data=data, source="every.gift")
    assert report.created == 6 and report.plan.warnings == []
    item = ExamItem.objects.get(module=module, title="Primzahlen")
    assert item.text_format == "html" and item.category == "$course$/top/Grundlagen"
    assert item.answer_feedback["c"] == "<code>4 = 2·2</code>"
    assert item_bank_gift(module_id=module.id).encode("utf-8") == data
    # Importing it again adds nothing: the same questions, whatever their comments.
    again = exam_items_gift_import(module_id=module.id, data=data, source="every.gift")
    assert again.created == 0
