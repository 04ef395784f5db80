"""The GIFT reader and writer (quizzes/gift.py): plain Python, no database.

The sample in data/moodle-sample.gift is written the way Moodle exports a bank (every type
Lernpfad imports, titles, comments, categories, [html]/[markdown]/[plain], escapes, weights,
feedback, an essay and a description).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.gift import GiftError, GiftItem, gift_decode, gift_parse, gift_write

SAMPLE = Path(__file__).parent / "data" / "moodle-sample.gift"


def parse(text: str):
    return gift_parse(text, source="test.gift")


def only(text: str) -> GiftItem:
    (item,) = parse(text).items
    return item


def error_of(text: str) -> GiftError:
    with pytest.raises(GiftError) as error:
        parse(text)
    return error.value


# --- the Moodle sample --------------------------------------------------------------------------


def test_the_moodle_sample_reads_every_supported_type():
    parsed = gift_parse(SAMPLE.read_text(encoding="utf-8"), source="moodle-sample.gift")
    by_title = {item.title: item for item in parsed.items}
    assert [item.kind for item in parsed.items] == [
        "single_choice",
        "multiple_choice",
        "true_false",
        "true_false",
        "short_answer",
        "short_answer",
        "numerical",
        "numerical",
        "numerical",
        "matching",
        "single_choice",
        "single_choice",
        "true_false",
    ]

    fp16 = by_title["FP16 Speicherbedarf"]
    assert fp16.line == 9
    # [html] kept, sanitised
    assert fp16.prompt == "<p>Wie viele <strong>Byte</strong> belegt ein Parameter in FP16?</p>"
    assert fp16.text_format == "html"
    assert fp16.answer_feedback == {
        "a": "Richtig: 16 Bit sind 2 Byte.",
        "b": "Das ist FP32.",
        "c": "Das wäre INT8.",
    }
    assert fp16.category == "$course$/Self-Hosting 27/Präzision und Speicher"
    assert fp16.comment == " question: 101  name: FP16 Speicherbedarf"
    assert [o["text"] for o in fp16.options] == ["2 Byte", "4 Byte", "1 Byte", "8 Byte"]
    assert fp16.correct_keys == ["a"]  # the 50 % answer counts as wrong
    assert fp16.explanation == "FP16 speichert jede Zahl in 16 Bit = 2 Byte."

    several = by_title["Präzisionen"]
    assert [o["text"] for o in several.options] == ["FP16", "BF16", "FP32", "INT4"]
    assert several.correct_keys == ["a", "b"]

    assert by_title["CUDA braucht einen Treiber"].correct_keys == ["true"]
    assert by_title["Quantisierung spart nichts"].correct_keys == ["false"]
    assert by_title["Quantisierung spart nichts"].options == [
        {"key": "true", "text": "Richtig"},
        {"key": "false", "text": "Falsch"},
    ]
    assert by_title["Compiler"].answer_key == {"accepted": ["nvcc", "NVIDIA CUDA Compiler"]}
    assert by_title["Umlaute"].answer_key == {"accepted": ["Präzision", "Genauigkeit"]}
    assert by_title["VRAM 7B"].answer_key == {"answers": [{"value": "14", "tolerance": "0.5"}]}
    assert by_title["Bereich"].answer_key == {"answers": [{"min": "7", "max": "9"}]}
    assert by_title["Mehrere Werte"].answer_key == {
        "answers": [{"value": "16", "tolerance": "0"}, {"value": "32", "tolerance": "0"}]
    }
    assert by_title["Bytes zuordnen"].answer_key == {
        "pairs": [
            {"left": "FP32", "right": "4 Byte"},
            {"left": "FP16", "right": "2 Byte"},
            {"left": "INT8", "right": "1 Byte"},
            {"left": "", "right": "8 Byte"},
        ]
    }
    assert by_title["Bytes zuordnen"].explanation == "Je weniger Bit, desto weniger VRAM."
    escaped = by_title["Escapes : Zeichen"]
    assert escaped.prompt == "Im Pfad C:\\CUDA steht _____ nach dem C."  # missing word
    assert [o["text"] for o in escaped.options] == [
        "ein Doppelpunkt",
        "ein Gleichheitszeichen =",
        "eine Klammer { }",
    ]
    assert by_title["Markdown"].prompt == "Was bedeutet **VRAM**?"
    assert by_title["Klartext"].prompt == "Ist 2 < 3 & 3 > 2?"

    warnings = {(w.code, w.line) for w in parsed.warnings}
    assert warnings == {
        ("partial_credit_wrong", 12),
        ("partial_answers_dropped", 36),
        ("feedback_dropped", 50),
        ("partial_answers_dropped", 49),
        ("essay_skipped", 70),
        ("description_skipped", 72),
    }


def test_the_sample_round_trips_through_the_writer():
    parsed = gift_parse(SAMPLE.read_text(encoding="utf-8"))
    written = gift_write(parsed.items)
    again = gift_parse(written)
    assert again.items == parsed.items
    assert again.warnings == []  # nothing Lernpfad writes is left out when read back
    assert gift_write(again.items) == written


# --- reading details ----------------------------------------------------------------------------


def test_escapes_comments_and_titles():
    item = only(
        "// a comment\n"
        "::Titel \\: mit \\{Klammern\\}::  1 \\= 1, \\~ \\# \\\\ und\\nZeile {\n"
        "  // a comment inside the answers\n"
        "  =ja ~nein\n"
        "}"
    )
    assert item.title == "Titel : mit {Klammern}"
    assert item.prompt == "1 = 1, ~ # \\ und\nZeile"
    assert [o["text"] for o in item.options] == ["ja", "nein"]
    assert item.line == 2


def test_a_question_right_below_a_category_line_is_read():
    parsed = parse("$CATEGORY: $course$/A\n::Q::Frage {=a ~b}\n\n$CATEGORY: $course$/B\n")
    assert [item.title for item in parsed.items] == ["Q"]


def test_html_is_kept_and_sanitised():
    item = only(
        "[html]<p>Erste&nbsp;Zeile<br>zweite <em>Zeile</em> &amp; mehr</p>"
        '<script>alert(1)</script><p onclick\\="x()">Dritte</p>{=a ~b}'
    )
    assert item.text_format == "html"
    assert item.prompt == (
        "<p>Erste&nbsp;Zeile<br>zweite <em>Zeile</em> &amp; mehr</p><p>Dritte</p>"
    )


def test_html_sanitising_removes_scripts_and_handlers_and_keeps_formatting():
    item = only(
        "[html]<p>Code\\: <code>x \\= 1</code></p><pre>a\\nb</pre><ul><li>eins</li></ul>"
        "<ol><li>zwei</li></ol><b>fett</b><img src\\=x onerror\\=alert(1)>"
        "<script>alert(2)</script>{=a#<b onmouseover\\=x>gut</b><script>x</script> ~b}"
    )
    assert item.prompt == (
        "<p>Code: <code>x = 1</code></p><pre>a\nb</pre><ul><li>eins</li></ul>"
        "<ol><li>zwei</li></ol><b>fett</b>"
    )
    assert "script" not in item.prompt and "onerror" not in item.prompt
    assert item.answer_feedback == {"a": "<b>gut</b>"}


def test_html_media_is_dropped_with_a_warning():
    parsed = parse('::I::[html]<p>Was zeigt das Bild?</p><img src="@@PLUGINFILE@@/x.png">{=a ~b}')
    assert parsed.items[0].prompt == "<p>Was zeigt das Bild?</p>"
    assert [w.code for w in parsed.warnings] == ["media_dropped"]


def test_answers_inherit_the_question_format():
    item = only("[html]<p>Frage</p>{=<b>fett</b> ~x &lt; y}")
    assert [o["text"] for o in item.options] == ["<b>fett</b>", "x &lt; y"]


def test_weights_and_all_or_nothing_warnings():
    parsed = parse("Wähle {~%70%a ~%30%b ~c}")
    assert parsed.items[0].kind == "multiple_choice"
    assert parsed.items[0].correct_keys == ["a", "b"]
    assert [w.code for w in parsed.warnings] == ["weights_all_or_nothing"]
    thirds = parse("Wähle {~%33.33333%a ~%33.33333%b ~%33.33333%c ~%-100%d}")
    assert thirds.warnings == [] and thirds.items[0].correct_keys == ["a", "b", "c"]


def test_numerical_forms():
    assert only("Zahl {#-3.5:0.25}").answer_key == {
        "answers": [{"value": "-3.5", "tolerance": "0.25"}]
    }
    assert only("Zahl {#-5..-3}").answer_key == {"answers": [{"min": "-5", "max": "-3"}]}
    assert only("Zahl {#7,5:0,5}").answer_key == {"answers": [{"value": "7.5", "tolerance": "0.5"}]}
    assert only("Zahl {#1e3}").answer_key == {"answers": [{"value": "1000", "tolerance": "0"}]}
    assert only("Zahl {#=14:0.50 =28.0}").answer_key == {
        "answers": [{"value": "14", "tolerance": "0.5"}, {"value": "28", "tolerance": "0"}]
    }


def test_true_false_spellings():
    for text, value in (("T", "true"), ("TRUE", "true"), ("F", "false"), ("FALSE", "false")):
        assert only(f"Aussage {{{text}}}").correct_keys == [value]
    # As in Moodle, a lower-case "true" is a short answer.
    assert only("Aussage {true}").kind == "short_answer"


def test_a_short_answer_without_equals_sign():
    assert only("Hauptstadt? {Berlin}").answer_key == {"accepted": ["Berlin"]}


def test_a_wildcard_is_literal_with_a_warning():
    parsed = parse("Name? {=CUDA*}")
    assert parsed.items[0].answer_key == {"accepted": ["CUDA*"]}
    assert [w.code for w in parsed.warnings] == ["wildcard_literal"]


# --- malformed files: file:line and nothing ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "code"),
    [
        ("Frage\n{=a\n~b\n", 2, "unclosed_brace"),
        ("Frage } {=a ~b}", 1, "stray_brace"),
        ("Frage {=a\n{~b}", 2, "nested_brace"),
        ("Frage {=a ~b} und {=c ~d}", 1, "second_block"),
        ("::Titel ohne Ende\nFrage {=a ~b}", 1, "title_unclosed"),
        ("::" + "x" * 256 + "::Frage {=a ~b}", 1, "title_too_long"),
        ("Frage {=a =b ~c}", 1, "single_choice_right_answers"),
        ("Frage {~%100%a =b ~c}", 1, "single_choice_right_answers"),
        ("Frage {~a ~b}", 1, "no_right_answer"),
        ("Frage {~%-50%a ~b}", 1, "no_right_answer"),
        ("Frage {~a}", 1, "too_few_answers"),
        ("Frage\n{\n~%150%a\n=b}", 3, "bad_weight"),
        ("Frage {=a\n~}", 2, "empty_answer"),
        ("Frage {=a ~ A }", 1, "duplicate_answer"),
        ("Frage {vorher =a ~b}", 1, "text_before_answers"),
        ("{=a ~b}", 1, "empty_prompt"),
        ("Zahl {#vierzehn}", 1, "not_a_number"),
        ("Zahl {#\n=14:x}", 2, "not_a_number"),
        ("Zahl {#1:-1}", 1, "negative_tolerance"),
        ("Zahl {#1e99}", 1, "number_too_long"),
        ("Zahl {#5..3}", 1, "range_reversed"),
        ("Zahl {#=%50%14}", 1, "no_full_answer"),
        ("Zahl {#}", 1, "no_full_answer"),
        ("Name {=%50%a}", 1, "no_full_answer"),
        ("Paare {\n=a -> 1\n=b\n}", 3, "pair_without_arrow"),
        ("Paare {\n=a -> 1\n=b ->\n}", 3, "pair_without_answer"),
        ("Paare {=a -> 1 = -> 2}", 1, "pair_count"),
        ("Paare {=a -> 1 =A -> 2 =c -> 3}", 1, "duplicate_pair"),
        ("Paare {x =a -> 1 =b -> 2}", 1, "text_before_pairs"),
        ("Name {=" + "x" * 501 + "}", 1, "answer_too_long"),
        ("// nur ein Kommentar\n\n$CATEGORY: x\n", 1, "no_questions"),
        ("", 1, "no_questions"),
    ],
)
def test_a_malformed_question_is_an_error_at_its_line(text, line, code):
    error = error_of(text)
    assert [(e.line, e.code) for e in error.errors] == [(line, code)]
    assert str(error).startswith(f"test.gift:{line}: ")


def test_every_malformed_question_is_reported_and_the_line_counts_the_whole_file():
    text = "Gut {=a ~b}\n\n// Kommentar\nSchlecht {=a\n\nAuch gut {T}\n\nSchlecht {#x}\n"
    error = error_of(text)
    assert [(e.line, e.code) for e in error.errors] == [
        (4, "unclosed_brace"),
        (8, "not_a_number"),
    ]
    assert str(error).splitlines() == [
        "test.gift:4: The answer block opened here is not closed with }.",
        "test.gift:8: x is not a number: write {#14}, {#14:0.5} (value:tolerance) or {#13..15} "
        "(range).",
    ]


def test_a_file_that_is_not_utf8_is_an_error_at_its_line():
    with pytest.raises(GiftError) as error:
        gift_decode("Frage {=ä ~b}\nZweite {=ö ~b}".encode()[:-5] + b"\xff\n", source="x")
    assert error.value.errors[0].code == "not_utf8"
    assert str(error.value).startswith("x:2: ")
    assert gift_decode(b"\xef\xbb\xbfFrage {T}") == "Frage {T}"


def test_messages_are_rendered_through_the_translation():
    error = error_of("Frage {~a}")
    assert error.errors[0].render("f.gift", lambda message: message.upper()) == (
        "f.gift:1: A CHOICE QUESTION NEEDS TWO ANSWERS."
    )


# --- writing ------------------------------------------------------------------------------------

TRICKY = [
    "Klammern {} und ~ = # : \\ Backslash",
    "%50% der Zeit",
    "// kein Kommentar",
    "[html]<b>kein HTML</b>",
    "a < b & c",
    "Zeile 1\nZeile 2",
    "::kein Titel::",
    "$CATEGORY: keine Kategorie",
    "TRUE",
    "-> Pfeil",
]


@pytest.mark.parametrize("text", TRICKY)
def test_any_text_survives_the_writer_and_the_reader(text):
    items = [
        GiftItem(
            kind="single_choice",
            prompt=text,
            options=[{"key": "a", "text": text}, {"key": "b", "text": "anders"}],
            correct_keys=["b"],
            explanation=text,
            title=text.replace("\n", " "),
        ),
        GiftItem(
            kind="multiple_choice",
            prompt=text,
            options=[{"key": "a", "text": text}, {"key": "b", "text": "anders"}],
            correct_keys=["a"],
        ),
        GiftItem(kind="true_false", prompt=text, correct_keys=["false"], explanation=text),
        GiftItem(
            kind="matching",
            prompt=text,
            answer_key={
                "pairs": [
                    {"left": text.replace("->", "=>"), "right": text},
                    {"left": "zwei", "right": "2"},
                ]
            },
        ),
    ]
    if "->" not in text:
        items.append(GiftItem(kind="short_answer", prompt=text, answer_key={"accepted": [text]}))
    written = gift_write(items)
    parsed = gift_parse(written)
    for item in parsed.items:
        if item.kind == "true_false":
            assert item.options[0] == {"key": "true", "text": "Richtig"}
    assert [(i.kind, i.prompt, i.title, i.explanation) for i in parsed.items] == [
        (i.kind, i.prompt, i.title, i.explanation) for i in items
    ]
    assert [i.answer_key for i in parsed.items] == [i.answer_key for i in items]
    assert [i.correct_keys for i in parsed.items] == [i.correct_keys for i in items]
    assert [o["text"] for o in parsed.items[0].options] == [text, "anders"]
    assert gift_write(parsed.items) == written


def test_written_form():
    written = gift_write(
        [
            GiftItem(
                kind="multiple_choice",
                prompt="Welche?",
                options=[
                    {"key": "a", "text": "x"},
                    {"key": "b", "text": "y"},
                    {"key": "c", "text": "z"},
                    {"key": "d", "text": "w"},
                ],
                correct_keys=["a", "b", "c"],
                title="M",
            ),
            GiftItem(
                kind="numerical",
                prompt="Zahl?",
                answer_key={"answers": [{"value": 14, "tolerance": 0.5}, {"min": "1", "max": "2"}]},
                explanation="Weil.",
            ),
            GiftItem(kind="true_false", prompt="Wahr?", correct_keys=["true"], explanation="Ja."),
        ]
    )
    assert written.split("\n", 1)[1] == (
        "\n::M::Welche?{\n\t~%33.33333%x\n\t~%33.33333%y\n\t~%33.33333%z\n\t~%-100%w\n}\n"
        "\nZahl?{#\n\t=14:0.5\n\t=1..2\n\t####Weil.\n}\n"
        "\nWahr?{TRUE####Ja.}\n"
    )
    assert written.startswith("// ")


def test_a_step_tag_names_the_questions_step_apart_from_its_comment():
    """Moodle's question tag ``[tag:step:<slug>]`` in the comment before a question names the
    step it is about; the comment keeps the rest, and the writer puts the tag back."""
    item = only("// Quelle: Kapitel 2\n// [id:q7] [tag:step:vram-fragmentation]\n::T::Frage {T}")
    assert item.step == "vram-fragmentation"
    assert item.comment == " Quelle: Kapitel 2\n [id:q7]"
    alone = only("// [tag:step:cuda]\nFrage {T}")
    assert (alone.step, alone.comment) == ("cuda", "")
    assert only("// [tag:kapitel-2]\nFrage {T}").step == ""
    written = gift_write([alone])
    assert "// [tag:step:cuda]\nFrage{TRUE}" in written.replace(" {", "{")
    assert only(written) == alone
    assert only(gift_write([item])) == item
