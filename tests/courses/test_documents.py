"""Document parser: the seed documents, a document unlike them, malformed input, fuzzing.

Plain pytest without a database: ``courses.documents`` imports nothing from Django.
"""

from __future__ import annotations

import datetime
import itertools
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from courses.documents import (
    CARD_SECTION_KINDS,
    MODULE_SECTION_KINDS,
    DocumentError,
    ModuleDoc,
    StepDoc,
    TermCardDoc,
    document_decode,
    first_sentence,
    normalize_lines,
    parse_document,
    slugify_term,
)

DOCUMENTS_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "documents"
MODULE_PATH = next(DOCUMENTS_DIR.glob("003_*.txt"))
CARD_PATHS = sorted(DOCUMENTS_DIR.glob("00[0-2]_*.txt"))
SEED_MODULE_BYTES = MODULE_PATH.read_bytes()
SEED_HEADER = "Self-Hosting 27: GPU, CUDA und Inferenzoptimierung"
ALL_MODULE_HEADINGS = tuple(MODULE_SECTION_KINDS)
EXAM_BLOCK_HEADINGS = tuple(h for h in ALL_MODULE_HEADINGS if h != "Optionale Praxisaufgabe")


# --- losslessness: rebuild the source lines from the parsed fields ------------------------------


def step_field_lines(step: StepDoc) -> list[str]:
    lines = [f"Schritt {step.number} / {step.total}", step.term, *step.lead, step.level]
    for section in step.sections:
        lines += [section.heading, *section.lines]
    if step.footer:
        lines.append(step.footer)
    return lines


def card_field_lines(card: TermCardDoc) -> list[str]:
    lines = [card.kind_line, card.title_line, *card.lead]
    for section in card.sections:
        lines += [section.heading, *section.lines]
    return lines


def assert_lossless(doc: ModuleDoc | TermCardDoc, data: bytes | str) -> None:
    """Every non-empty source line is in exactly one field, in source order."""
    non_empty = [line for line in normalize_lines(data, path="check") if line]
    if isinstance(doc, ModuleDoc):
        rebuilt = [doc.header]
        for step in doc.steps:
            assert step_field_lines(step) == list(step.source_lines)
            rebuilt += step.source_lines
        if doc.exam is not None:
            rebuilt += [doc.exam.header, doc.exam.heading]
            rebuilt += itertools.chain.from_iterable(doc.exam.blocks)
        assert rebuilt == non_empty
    else:
        assert card_field_lines(doc) == list(doc.source_lines)
        # A glued "commandQuick-Check" line is the only place where lines are split.
        assert "".join(doc.source_lines) == "".join(non_empty)


# --- the seeds ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seed_module() -> ModuleDoc:
    doc = parse_document(SEED_MODULE_BYTES, path=str(MODULE_PATH))
    assert isinstance(doc, ModuleDoc)
    return doc


def test_seed_module_header_and_counts(seed_module: ModuleDoc) -> None:
    assert seed_module.header == SEED_HEADER
    assert (seed_module.series, seed_module.number) == ("Self-Hosting", 27)
    assert seed_module.title == "GPU, CUDA und Inferenzoptimierung"
    assert [step.number for step in seed_module.steps] == list(range(1, 33))
    assert {step.total for step in seed_module.steps} == {32}


def test_seed_module_first_step(seed_module: ModuleDoc) -> None:
    step = seed_module.steps[0]
    assert (step.line, step.term, step.level) == (3, "GPU compute", "S4")
    assert step.lead == (
        "GPU Compute nutzt viele parallele Recheneinheiten für große Tensoroperationen statt "
        "serieller CPU-Ausführung. Die Lernkarte zeigt die Rolle im Modul „GPU, CUDA und "
        "Inferenzoptimierung“ und einen sicheren Diagnoseweg.",
    )
    assert step.definition == (
        "GPU Compute nutzt viele parallele Recheneinheiten für große Tensoroperationen statt "
        "serieller CPU-Ausführung."
    )
    assert [(s.kind, s.heading, s.line) for s in step.sections] == [
        ("verstehen", "1. Verstehen", 11),
        ("anwenden", "2. Anwenden", 15),
        ("uebung", "Übung", 19),
        ("einordnen", "3. Technisch einordnen", 29),
        ("vertiefen", "4. Vertiefen", 33),
        ("pruefen", "5. Prüfen", 37),
        ("zusammenfassung", "Zusammenfassung", 46),
        ("praxisaufgabe", "Optionale Praxisaufgabe", 52),
        ("lernauftrag", "Lernauftrag für diesen Schritt", 59),
    ]
    sections = {section.kind: section for section in step.sections}
    uebung = sections["uebung"]
    assert uebung.commands == ("nvidia-smi", "nvidia-smi")
    assert len(uebung.lines) == 4 and uebung.lines[1] == uebung.lines[3] == "nvidia-smi"
    assert all(s.commands == () for s in step.sections if s.kind != "uebung")
    assert sections["zusammenfassung"].truncated is True
    assert len(sections["zusammenfassung"].lines) == 3
    assert not any(s.truncated for s in step.sections if s.kind != "zusammenfassung")
    assert len(sections["praxisaufgabe"].lines) == 4
    assert (
        sections["lernauftrag"].lines[0] == "Formuliere die Kerndefinition in einem eigenen Satz."
    )

    assert len(step.quick_checks) == 6
    first = step.quick_checks[0]
    assert (first.question, first.line) == ("Was ist der Zweck?", 39)
    assert first.answer == step.definition
    assert step.quick_checks[5].question == "Wann brichst du ab?"

    assert step.footer == "Stand: 2026-09-21 3 Quellen source_backed"
    assert (step.as_of, step.source_count, step.status) == (
        datetime.date(2026, 9, 21),
        3,
        "source_backed",
    )
    assert step.source_lines[0] == "Schritt 1 / 32" and step.source_lines[-1] == step.footer
    assert re.fullmatch(r"[0-9a-f]{64}", step.source_hash)


def test_seed_module_every_step_is_complete(seed_module: ModuleDoc) -> None:
    for step in seed_module.steps:
        assert [s.kind for s in step.sections] == list(MODULE_SECTION_KINDS.values())
        assert len(step.quick_checks) == 6
        for check, line in zip(step.quick_checks, step.sections[5].lines, strict=True):
            assert f"{check.question} {check.answer}" == line
        assert step.sections[2].commands == ("nvidia-smi", "nvidia-smi")
        assert (step.as_of, step.source_count) == (datetime.date(2026, 9, 21), 3)
        assert step.definition.endswith(".") and step.definition in step.lead[0]
    # Terms shaped like a level line ("FP32", "INT8") are still terms.
    assert [s.term for s in seed_module.steps[21:26]] == ["FP32", "FP16", "BF16", "INT8", "INT4"]
    assert len({step.source_hash for step in seed_module.steps}) == 32


def test_seed_module_exam(seed_module: ModuleDoc) -> None:
    exam = seed_module.exam
    assert exam is not None
    assert (exam.header, exam.heading, exam.line) == (SEED_HEADER, "Abschlussprüfung", 2083)
    assert len(exam.blocks) == 10
    assert exam.blocks[:9] == (EXAM_BLOCK_HEADINGS,) * 9
    # The source ends mid-block, without a final newline: nothing is invented.
    assert exam.blocks[9] == EXAM_BLOCK_HEADINGS[:6]


@pytest.mark.parametrize(
    ("path", "term"),
    [
        (CARD_PATHS[0], "CUDA out of memory"),
        (CARD_PATHS[1], "Memory-efficient attention"),
        (CARD_PATHS[2], "Mixed precision"),
    ],
    ids=lambda value: getattr(value, "name", value),
)
def test_seed_cards(path: Path, term: str) -> None:
    card = parse_document(path.read_bytes(), path=str(path))
    assert isinstance(card, TermCardDoc)
    assert (card.kind_line, card.term, card.line) == ("Lernbegriff", term, 1)
    assert card.module_title == "GPU, CUDA und Inferenzoptimierung"
    assert card.title_line == f"{term} — GPU, CUDA und Inferenzoptimierung"
    assert len(card.lead) == 1 and card.lead[0].endswith("einen sicheren Diagnoseweg.")
    assert [(s.kind, s.line) for s in card.sections] == [
        ("orientierung", 4),
        ("praktische_anwendung", 6),
        ("technisches_verstaendnis", 8),
        ("betrieb_debugging", 10),
        ("uebung", 12),
        ("quick_check", 15),
    ]
    uebung, quick_check = card.sections[4], card.sections[5]
    assert uebung.lines[0] == "Sicher ausprobieren"
    assert "„nvidia-smi“" in uebung.lines[1]
    assert uebung.lines[2] == "nvidia-smi" and uebung.commands == ("nvidia-smi",)
    assert card.command == "nvidia-smi"
    # "nvidia-smiQuick-Check" is split into the command and the heading (both on line 15).
    assert card.source_lines[14:16] == ("nvidia-smi", "Quick-Check")
    assert len(quick_check.lines) == 1 and quick_check.lines[0].endswith("wirksam war?")
    assert [s.commands for s in card.sections if s.kind != "uebung"] == [()] * 5


@pytest.mark.parametrize("path", [MODULE_PATH, *CARD_PATHS], ids=lambda path: path.name)
def test_seeds_are_lossless(path: Path) -> None:
    data = path.read_bytes()
    doc = parse_document(data, path=str(path))
    assert_lossless(doc, data)
    assert doc.path == str(path)


# --- a document unlike the seeds ---------------------------------------------------------------

GENERATED_LINES = [
    "Netzwerk-Grundlagen 3: DNS und DHCP im Heimnetz",  # 1
    "",
    "Schritt 1 / 3",  # 3
    "",
    "Resolver",  # 5
    "",
    "Ein Resolver beantwortet Namensanfragen, z. B. für example.org, und nutzt dafür u. a. "
    "einen Cache. Er fragt bei Bedarf weitere Server.",  # 7
    "Die Antwort bleibt bzw. verfällt nach ihrer TTL.",  # 8
    "",
    "B2",  # 10
    "",
    "1. Verstehen",  # 12
    "",
    "Der Resolver ist die erste Station jeder Namensauflösung.",  # 14
    "",
    "Übung",  # 16
    "",
    "Frage den lokalen Resolver nach einer bekannten Adresse:",  # 18
    "",
    "dig example.org",  # 20
    "",
    "Vergleiche die Antwortzeit beim zweiten Aufruf.",  # 22
    "",
    "5. Prüfen",  # 24
    "",
    "Was speichert der Resolver? Antworten bis zum Ablauf ihrer TTL.",  # 26
    "Wer fragt weiter? Der Resolver, wenn der Cache die Antwort nicht kennt.",  # 27
    "",
    "Stand: 2025-01-31 1 Quelle draft",  # 29
    "",
    "Schritt 2 / 3",  # 31
    "",
    "DHCP-Lease",  # 33
    "",
    "Eine DHCP-Lease ist eine befristete Adresszuteilung. Sie wird vor Ablauf erneuert.",  # 35
    "",
    "B2",  # 37
    "",
    "Zusammenfassung",  # 39
    "",
    "Der DHCP-Server vergibt Adressen nur auf Zeit…",  # 41
    "",
    "Stand: 2025-02-01 2 Quellen reviewed",  # 43
    "",
    "Schritt 3 / 3",  # 45
    "",
    "TTL",  # 47
    "",
    "Die TTL legt fest, wie lange eine Antwort gültig bleibt",  # 49
    "",
    "B2",  # 51
    "",
    "4. Vertiefen",  # 53
    "",
    "Eine kurze TTL erleichtert Umzüge, erhöht aber die Last auf dem Server.",  # 55
    "",
    "Lernauftrag für diesen Schritt",  # 57
    "",
    "Senke die TTL eines Testeintrags und beobachte den Cache.",  # 59
    "Notiere, wann die alte Antwort verschwindet.",  # 60
]


def generated_text(
    lines: list[str], *, newline: str = "\n", bom: bool = False, pad: str = ""
) -> str:
    body = newline.join(line + pad if line else line for line in lines)
    return ("\ufeff" if bom else "") + body


def test_generated_module_parses() -> None:
    data = generated_text(GENERATED_LINES, newline="\r\n", bom=True, pad=" \t ").encode("utf-8")
    doc = parse_document(data, path="netz.txt")
    assert isinstance(doc, ModuleDoc)
    assert (doc.series, doc.number, doc.title) == (
        "Netzwerk-Grundlagen",
        3,
        "DNS und DHCP im Heimnetz",
    )
    assert doc.exam is None
    assert [(s.number, s.total, s.term, s.level, s.line) for s in doc.steps] == [
        (1, 3, "Resolver", "B2", 3),
        (2, 3, "DHCP-Lease", "B2", 31),
        (3, 3, "TTL", "B2", 45),
    ]
    first, second, third = doc.steps
    assert first.definition == (
        "Ein Resolver beantwortet Namensanfragen, z. B. für example.org, und nutzt dafür u. a. "
        "einen Cache."
    )
    assert len(first.lead) == 2
    assert [s.kind for s in first.sections] == ["verstehen", "uebung", "pruefen"]
    assert first.sections[1].commands == ("dig example.org",)
    assert [(q.question, q.answer, q.line) for q in first.quick_checks] == [
        ("Was speichert der Resolver?", "Antworten bis zum Ablauf ihrer TTL.", 26),
        ("Wer fragt weiter?", "Der Resolver, wenn der Cache die Antwort nicht kennt.", 27),
    ]
    assert (first.as_of, first.source_count, first.status) == (
        datetime.date(2025, 1, 31),
        1,
        "draft",
    )
    assert first.footer == "Stand: 2025-01-31 1 Quelle draft"
    assert second.definition == "Eine DHCP-Lease ist eine befristete Adresszuteilung."
    assert second.sections[0].truncated and second.quick_checks == ()
    assert (second.source_count, second.status) == (2, "reviewed")
    # No footer, no closing punctuation in the lead.
    assert (third.footer, third.as_of, third.source_count, third.status) == ("", None, None, "")
    assert third.definition == "Die TTL legt fest, wie lange eine Antwort gültig bleibt"
    assert [s.kind for s in third.sections] == ["vertiefen", "lernauftrag"]
    assert third.source_lines[-1] == "Notiere, wann die alte Antwort verschwindet."
    assert_lossless(doc, data)


@pytest.mark.parametrize(
    ("newline", "bom", "pad", "as_bytes"),
    [
        ("\n", False, "", True),
        ("\r\n", True, "  ", True),
        ("\r", False, "\t", True),
        ("\r", True, " ", False),
        ("\n", True, "", False),
    ],
)
def test_newline_styles_bom_and_padding_parse_identically(
    newline: str, bom: bool, pad: str, as_bytes: bool
) -> None:
    reference = parse_document(generated_text(GENERATED_LINES), path="netz.txt")
    text = generated_text(GENERATED_LINES, newline=newline, bom=bom, pad=pad)
    data = text.encode("utf-8") if as_bytes else text
    assert parse_document(data, path="netz.txt") == reference


def test_module_with_exam_keeps_exam_content_as_is() -> None:
    lines = [
        *GENERATED_LINES,
        "Netzwerk-Grundlagen 3: DNS und DHCP im Heimnetz",
        "Abschlussprüfung",
        "1. Verstehen",
        "Was macht ein Resolver?",
        "5. Prüfen",
        "5. Prüfen",
        "Übung",
    ]
    data = generated_text(lines)
    doc = parse_document(data, path="netz.txt")
    assert isinstance(doc, ModuleDoc) and doc.exam is not None
    assert doc.exam.line == len(GENERATED_LINES) + 1
    assert doc.exam.blocks == (
        ("1. Verstehen", "Was macht ein Resolver?", "5. Prüfen"),
        ("5. Prüfen",),
        ("Übung",),
    )
    assert_lossless(doc, data)


# --- malformed module documents ----------------------------------------------------------------


def replace(old: str, new: str) -> Callable[[list[str]], list[str]]:
    return lambda lines: [new if line == old else line for line in lines]


def drop(*texts: str) -> Callable[[list[str]], list[str]]:
    return lambda lines: [line for line in lines if line not in texts]


def insert_after(anchor: str, *new: str) -> Callable[[list[str]], list[str]]:
    def mutate(lines: list[str]) -> list[str]:
        index = lines.index(anchor) + 1
        return lines[:index] + list(new) + lines[index:]

    return mutate


def line_of(lines: list[str], text: str, occurrence: int = 1) -> int:
    numbers = [number for number, line in enumerate(lines, start=1) if line == text]
    return numbers[occurrence - 1]


HEADER = GENERATED_LINES[0]
LEAD_1 = GENERATED_LINES[6]
EXAM = [HEADER, "Abschlussprüfung", "1. Verstehen"]

# (id, mutation, (text of the line the error must name, occurrence), message fragment)
MALFORMED_MODULES = [
    ("bad-first-line", replace(HEADER, "DNS und DHCP"), ("DNS und DHCP", 1), "first line"),
    ("text-before-step-1", insert_after(HEADER, "Vorwort"), ("Vorwort", 1), "Schritt 1"),
    ("no-steps", lambda lines: lines[:1], (HEADER, 1), "no 'Schritt 1"),
    (
        "step-out-of-sequence",
        replace("Schritt 2 / 3", "Schritt 3 / 3"),
        ("Schritt 3 / 3", 1),
        "sequence",
    ),
    ("step-skipped", drop("Schritt 2 / 3"), ("DHCP-Lease", 1), "footer of step 1"),
    (
        "total-disagrees",
        replace("Schritt 2 / 3", "Schritt 2 / 4"),
        ("Schritt 2 / 4", 1),
        "disagrees",
    ),
    (
        "first-total-disagrees",
        replace("Schritt 1 / 3", "Schritt 1 / 2"),
        ("Schritt 1 / 2", 1),
        "disagrees",
    ),
    (
        "count-wrong",
        lambda lines: [re.sub(r" / 3$", " / 4", line) for line in lines],
        ("Schritt 3 / 4", 1),
        "has 3",
    ),
    ("last-step-missing", lambda lines: lines[:44], ("Schritt 2 / 3", 1), "has 2"),
    (
        "malformed-step-line",
        replace("Schritt 2 / 3", "Schritt 2/3"),
        ("Schritt 2/3", 1),
        "malformed",
    ),
    ("term-missing", drop("Resolver"), (LEAD_1, 1), "no term"),
    ("heading-as-term", replace("Resolver", "1. Verstehen"), ("1. Verstehen", 1), "no term"),
    ("level-as-term", drop("Resolver", LEAD_1, GENERATED_LINES[7]), ("B2", 1), "no term"),
    ("level-missing", drop("B2"), ("1. Verstehen", 1), "level"),
    ("lead-missing", drop(LEAD_1, GENERATED_LINES[7]), ("B2", 1), "lead"),
    (
        "unknown-heading-after-level",
        replace("1. Verstehen", "Verstehen"),
        ("Verstehen", 1),
        "unknown heading",
    ),
    (
        "unknown-numbered-heading",
        insert_after("Vergleiche die Antwortzeit beim zweiten Aufruf.", "6. Wiederholen"),
        ("6. Wiederholen", 1),
        "unknown heading",
    ),
    (
        "heading-out-of-order",
        insert_after(GENERATED_LINES[26], "2. Anwenden", "Text."),
        ("2. Anwenden", 1),
        "out of order",
    ),
    (
        "heading-repeated",
        insert_after(GENERATED_LINES[26], "5. Prüfen", "Noch eine? Frage."),
        ("5. Prüfen", 2),
        "repeated",
    ),
    ("section-empty", drop(GENERATED_LINES[13]), ("1. Verstehen", 1), "empty"),
    (
        "quick-check-without-answer",
        replace(GENERATED_LINES[25], "Was speichert der Resolver."),
        ("Was speichert der Resolver.", 1),
        "Frage? Antwort",
    ),
    ("uebung-without-command", replace("dig example.org", "Starte dig."), ("Übung", 1), "command"),
    (
        "content-after-footer",
        insert_after("Stand: 2025-01-31 1 Quelle draft", "Nachtrag"),
        ("Nachtrag", 1),
        "footer of step 1",
    ),
    (
        "malformed-footer",
        replace("Stand: 2025-01-31 1 Quelle draft", "Stand: 31.01.2025"),
        ("Stand: 31.01.2025", 1),
        "malformed footer",
    ),
    (
        "invalid-footer-date",
        replace("Stand: 2025-01-31 1 Quelle draft", "Stand: 2025-02-30 1 Quelle draft"),
        ("Stand: 2025-02-30 1 Quelle draft", 1),
        "invalid date",
    ),
    (
        "exam-heading-missing",
        lambda lines: [*lines, HEADER, "Prüfung"],
        ("Prüfung", 1),
        "Abschlussprüfung",
    ),
    (
        "exam-without-header",
        lambda lines: [*lines, "Abschlussprüfung"],
        ("Abschlussprüfung", 1),
        "header",
    ),
    (
        "exam-text-before-heading",
        lambda lines: [*lines, HEADER, "Abschlussprüfung", "Frage eins"],
        ("Frage eins", 1),
        "section heading",
    ),
    (
        "step-after-exam",
        lambda lines: [*lines, *EXAM, "Schritt 4 / 4"],
        ("Schritt 4 / 4", 1),
        "exam",
    ),
    ("control-character", replace("Resolver", "Resol\x00ver"), ("Resol\x00ver", 1), "U+0000"),
]


@pytest.mark.parametrize(
    ("mutate", "where", "fragment"),
    [case[1:] for case in MALFORMED_MODULES],
    ids=[case[0] for case in MALFORMED_MODULES],
)
def test_malformed_module_names_the_line(
    mutate: Callable[[list[str]], list[str]], where: tuple[str, int], fragment: str
) -> None:
    lines = mutate(list(GENERATED_LINES))
    expected_line = line_of(lines, *where)
    with pytest.raises(DocumentError) as caught:
        parse_document(generated_text(lines).encode("utf-8"), path="netz.txt")
    assert caught.value.line == expected_line, str(caught.value)
    assert fragment in caught.value.message
    assert str(caught.value) == f"netz.txt:{expected_line}: {caught.value.message}"


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b"\n  \r\n\t\n"])
def test_empty_file(data: bytes) -> None:
    with pytest.raises(DocumentError, match=r"^empty\.txt:1: the file is empty$"):
        parse_document(data, path="empty.txt")


@pytest.mark.parametrize("data", ["", "\n \n"])
def test_empty_document(data: str) -> None:
    with pytest.raises(DocumentError, match=r"^empty\.txt:1: empty document$"):
        parse_document(data, path="empty.txt")


def test_a_windows_module_is_converted_and_parses_as_the_utf8_one() -> None:
    text = SEED_MODULE_BYTES.decode("utf-8")
    data = text.encode("cp1252")
    decoded = document_decode(data, path="latin.txt")
    assert (decoded.text, decoded.encoding) == (text, "Windows-1252")
    assert parse_document(data, path="m.txt") == parse_document(SEED_MODULE_BYTES, path="m.txt")
    assert document_decode(SEED_MODULE_BYTES, path="m.txt").encoding == ""


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_binary_data_names_the_line_of_the_first_bad_byte(newline: bytes) -> None:
    data = newline.join([b"Lernbegriff", b"X \xe2\x80\x94 Y", b"ok", b"kaputt \x00\xff", b"mehr"])
    with pytest.raises(DocumentError) as caught:
        parse_document(data, path="bad.txt")
    assert (caught.value.path, caught.value.line) == ("bad.txt", 4)
    assert caught.value.message.startswith("not a text document (byte 0x00")


def test_an_image_renamed_txt_is_no_text_document() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
    with pytest.raises(DocumentError) as caught:
        document_decode(png, path="bild.txt")
    assert str(caught.value).startswith("bild.txt:1: not a text document (byte 0x89")


def test_messages_are_translated_where_they_are_shown() -> None:
    from django.utils import translation

    error = DocumentError("m.txt", 7, "step %(step)s ends before its term", {"step": 3})
    assert str(error) == "m.txt:7: step 3 ends before its term"
    with translation.override("de"):
        assert error.localized(translation.gettext) == "m.txt:7: Schritt 3 endet vor seinem Begriff"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"\xef\xbb\xbf\xef\xbb\xbfLernbegriff\nX \xe2\x80\x94 Y", 1),
        (b"Lernbegriff\nX \xe2\x80\x94 Y\nLead.\nMit\x0bSteuerzeichen", 4),
        ("Lernbegriff\r\nX — Y\r\nLead\u2028mit Zeilentrenner", 3),
        ("Lernbegriff\nX — Y\nkaputt \udcff", 3),
    ],
)
def test_control_characters_are_rejected(data: bytes | str, line: int) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document(data, path="ctrl.txt")
    assert caught.value.line == line
    assert "control character" in caught.value.message


def test_document_error_is_a_value_error_and_pickles() -> None:
    error = DocumentError("a/b.txt", 12, "something is off")
    assert isinstance(error, ValueError)
    assert (error.path, error.line, error.message) == ("a/b.txt", 12, "something is off")
    assert str(error) == "a/b.txt:12: something is off"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.path, copy.line, copy.message, str(copy)) == (
        error.path,
        error.line,
        error.message,
        str(error),
    )


# --- term cards --------------------------------------------------------------------------------

SEED_CARD_LINES = CARD_PATHS[0].read_text(encoding="utf-8").split("\n")

MALFORMED_CARDS = [
    ("kind-line-only", lambda lines: lines[:1], 1, "title"),
    (
        "title-without-separator",
        lambda lines: [lines[0], "CUDA out of memory - GPU", *lines[2:]],
        2,
        "' — '",
    ),
    ("title-without-term", lambda lines: [lines[0], " — GPU", *lines[2:]], 2, "term"),
    ("lead-missing", lambda lines: lines[:2] + lines[3:], 3, "lead"),
    (
        "heading-repeated",
        lambda lines: [*lines[:6], "Orientierung", "Text.", *lines[6:]],
        7,
        "out of order",
    ),
    ("section-empty", lambda lines: lines[:4] + lines[5:], 4, "empty"),
    ("uebung-without-subtitle", lambda lines: lines[:12] + lines[13:], 13, "subtitle"),
    (
        "uebung-without-command",
        lambda lines: [*lines[:14], "Quick-Check", *lines[15:]],
        12,
        "command",
    ),
    (
        "numbered-heading",
        lambda lines: [*lines[:4], "1. Verstehen", *lines[4:]],
        5,
        "unknown heading",
    ),
    (
        "module-heading",
        lambda lines: [*lines[:4], "Zusammenfassung", *lines[4:]],
        5,
        "module heading",
    ),
    ("two-cards-in-one-file", lambda lines: [*lines, *lines], 17, "one term card per file"),
]


@pytest.mark.parametrize(
    ("mutate", "line", "fragment"),
    [case[1:] for case in MALFORMED_CARDS],
    ids=[case[0] for case in MALFORMED_CARDS],
)
def test_malformed_card_names_the_line(
    mutate: Callable[[list[str]], list[str]], line: int, fragment: str
) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document("\n".join(mutate(list(SEED_CARD_LINES))), path="card.txt")
    assert caught.value.line == line, str(caught.value)
    assert fragment in caught.value.message


def test_card_with_blank_lines_crlf_and_few_sections() -> None:
    lines = [
        "Lernbegriff",
        "",
        "Anycast — DNS — Routing im Überblick",
        "Anycast verteilt eine Adresse auf mehrere Standorte.",
        "Der nächste Standort antwortet.",
        "",
        "Praktische Anwendung",
        "Miss die Antwortzeit von zwei Orten aus; vergleiche dann die Dauer dieser Übung",
        "",
        "Übung",
        "Sicher ausprobieren",
        "Führe „dig +short example.org“ aus.",
        "dig +short example.org",
        "dig +trace example.org",
    ]
    data = ("\ufeff" + "\r\n".join(lines)).encode("utf-8")
    card = parse_document(data, path="anycast.txt")
    assert isinstance(card, TermCardDoc)
    # Split at the last " — ".
    assert (card.term, card.module_title) == ("Anycast — DNS", "Routing im Überblick")
    assert card.lead == (lines[3], lines[4])
    # "… dieser Übung" has a space before "Übung": prose, not a glued heading.
    assert [s.kind for s in card.sections] == ["praktische_anwendung", "uebung"]
    assert card.sections[0].lines == (lines[7],)
    assert card.sections[1].commands == ("dig +short example.org", "dig +trace example.org")
    assert card.command == "dig +short example.org"
    assert card.sections[1].line == 10
    assert_lossless(card, data)


def test_card_without_uebung_has_no_command() -> None:
    card = parse_document("Lernbegriff\nX — Y\nX ist Y.\nQuick-Check\nWas ist X?", path="c.txt")
    assert isinstance(card, TermCardDoc)
    assert card.command is None
    assert [s.kind for s in card.sections] == ["quick_check"]


def test_section_kind_maps_are_ordered() -> None:
    assert list(MODULE_SECTION_KINDS.items()) == [
        ("1. Verstehen", "verstehen"),
        ("2. Anwenden", "anwenden"),
        ("Übung", "uebung"),
        ("3. Technisch einordnen", "einordnen"),
        ("4. Vertiefen", "vertiefen"),
        ("5. Prüfen", "pruefen"),
        ("Zusammenfassung", "zusammenfassung"),
        ("Optionale Praxisaufgabe", "praxisaufgabe"),
        ("Lernauftrag für diesen Schritt", "lernauftrag"),
    ]
    assert list(CARD_SECTION_KINDS.values()) == [
        "orientierung",
        "praktische_anwendung",
        "technisches_verstaendnis",
        "betrieb_debugging",
        "uebung",
        "quick_check",
    ]


# --- helpers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("Erster Satz. Zweiter Satz.", "Erster Satz."),
        ("Grenzen, z. B. Speicher, bzw. Zeit. Danach mehr.", "Grenzen, z. B. Speicher, bzw. Zeit."),
        (
            "Etwa ca. 5 GB d. h. viel, vgl. Tabelle, u. a. Logs etc. Neu.",
            "Etwa ca. 5 GB d. h. viel, vgl. Tabelle, u. a. Logs etc. Neu.",
        ),
        ("Modul „GPU“. Rest.", "Modul „GPU“."),
        ("Was ist das? Eine Frage.", "Was ist das?"),
        ("Version 2.0 ist aktuell. Danach 3.0.", "Version 2.0 ist aktuell."),
        ("Ohne Punkt am Ende", "Ohne Punkt am Ende"),
    ],
)
def test_first_sentence(text: str, sentence: str) -> None:
    assert first_sentence(text) == sentence


@pytest.mark.parametrize(
    ("term", "slug"),
    [
        ("NVIDIA_VISIBLE_DEVICES", "nvidia-visible-devices"),
        ("GPU compute", "gpu-compute"),
        ("Memory-efficient attention", "memory-efficient-attention"),
        ("Größe über Äpfel", "groesse-ueber-aepfel"),
        ("Café  (Crème)", "cafe-creme"),
        ("  --  ", "step"),
        ("数据", "step"),
        ("Self-Hosting 27", "self-hosting-27"),
    ],
)
def test_slugify_term(term: str, slug: str) -> None:
    assert slugify_term(term) == slug


# --- fuzzing: mutated seed module --------------------------------------------------------------

SEED_MODULE_LINES = SEED_MODULE_BYTES.split(b"\n")


@st.composite
def mutated_seed_module(draw: st.DrawFn) -> bytes:
    lines = list(SEED_MODULE_LINES)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if not lines:
            break
        index = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        operation = draw(
            st.sampled_from(
                ["drop", "duplicate", "swap", "truncate", "garbage", "garbage-line", "latin-1"]
            )
        )
        if operation == "drop":
            del lines[index]
        elif operation == "duplicate":
            lines.insert(index, lines[index])
        elif operation == "swap":
            other = draw(st.integers(min_value=0, max_value=len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif operation == "truncate":
            cut = draw(st.integers(min_value=0, max_value=len(lines[index])))
            lines = [*lines[:index], lines[index][:cut]]
        elif operation == "garbage":
            junk = draw(st.binary(min_size=1, max_size=8))
            at = draw(st.integers(min_value=0, max_value=len(lines[index])))
            lines[index] = lines[index][:at] + junk + lines[index][at:]
        elif operation == "garbage-line":
            lines.insert(index, draw(st.binary(min_size=1, max_size=12)))
        else:
            text = lines[index].decode("utf-8", errors="replace")
            lines[index] = text.encode("latin-1", errors="replace")
    return b"\n".join(lines)


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=mutated_seed_module())
def test_mutated_module_parses_losslessly_or_raises_document_error(data: bytes) -> None:
    try:
        doc = parse_document(data, path="mutated.txt")
    except DocumentError as error:
        line_count = len(re.split(rb"\r\n|\r|\n", data))
        assert 1 <= error.line <= line_count
        assert str(error).startswith(f"mutated.txt:{error.line}: ")
        return
    assert_lossless(doc, data)
