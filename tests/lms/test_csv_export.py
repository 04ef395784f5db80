"""lms.csv_export: the one CSV writer. Cells a spreadsheet would run are text; the rest as is.

Each export has its own test of what it writes (tests/progress/test_progress_admin.py, the
enrollments; tests/quizzes/test_exam_admin.py, the grades); this one checks the writer and that
no code writes CSV another way.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings

from lms.csv_export import csv_cell, csv_response


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ('=HYPERLINK("https://evil.example","x")', '\'=HYPERLINK("https://evil.example","x")'),
        ("+49 30 123", "'+49 30 123"),
        ("-1+2", "'-1+2"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("\n=1", "'\n=1"),
        ("Lena = Lernende", "Lena = Lernende"),
        ("lena@example.org", "lena@example.org"),
        ("", ""),
    ],
)
def test_text_that_a_spreadsheet_would_run_is_text(value, written):
    assert csv_cell(value) == written


@pytest.mark.parametrize("value", [-5, 0, 3.5, Decimal("-1.50"), True, None])
def test_values_lernpfad_writes_itself_stay(value):
    assert csv_cell(value) is value


def test_the_response_is_an_attachment_that_reads_back():
    response = csv_response(
        filename="x.csv",
        header=["name", "=header", "n"],
        rows=[
            ["=cmd|' /C calc'!A0", 'say "hi", then\nleave', -3],
            ["plain", datetime.date(2026, 3, 1).isoformat(), Decimal("90.00")],
        ],
    )
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="x.csv"'
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))
    assert rows == [
        ["name", "'=header", "n"],
        ["'=cmd|' /C calc'!A0", 'say "hi", then\nleave', "-3"],
        ["plain", "2026-03-01", "90,00"],  # German, the default language: a decimal comma
    ]


def test_no_code_writes_csv_but_the_one_writer():
    """Every CSV export goes through lms.csv_export (issue 13: the grades export had its own
    DictWriter and wrote formulas raw)."""
    root = Path(settings.BASE_DIR)
    writers = re.compile(r"\bcsv\.(writer|DictWriter)\b|^\s*import csv\b|^\s*from csv import", re.M)
    offenders = [
        str(path.relative_to(root))
        for package in (
            "lms",
            "accounts",
            "courses",
            "progress",
            "reviews",
            "quizzes",
            "privacy",
            "web",
        )
        for path in (root / package).rglob("*.py")
        if writers.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == ["lms/csv_export.py"]


# --- for German offices: separator, BOM, local time, yes/no, the .xlsx twin (issue 27) ---------

EVIL = ['=HYPERLINK("https://evil.example","x")', "+49 30 123", "-1+2", "@SUM(A1:A9)"]
WINTER = datetime.datetime(2026, 12, 6, 16, 5, 42, 123456, tzinfo=datetime.UTC)


def _table(export_format: str):
    from lms.csv_export import table_response

    return table_response(
        export_format=export_format,
        filename_stem="t",
        header=["Name", "Bestanden", "Zeit", "Note"],
        rows=[[name, index % 2 == 0, WINTER, Decimal("87.50")] for index, name in enumerate(EVIL)],
    )


def test_the_csv_is_for_a_german_spreadsheet():
    from django.utils import timezone

    with timezone.override("Europe/Berlin"):
        response = _table("csv")
    assert response["Content-Disposition"] == 'attachment; filename="t.csv"'
    raw = response.content
    assert raw.startswith("\ufeff".encode()) and b"Name;Bestanden;Zeit;Note" in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))
    assert rows[0] == ["Name", "Bestanden", "Zeit", "Note"]
    # 16:05:42 UTC is 17:05 in Berlin in December; to the minute, no microseconds.
    assert rows[1][1:] == ["ja", "06.12.2026 17:05", "87,50"]
    assert rows[2][1] == "nein"
    assert [row[0] for row in rows[1:]] == ["'" + name for name in EVIL]


def test_the_csv_in_english_keeps_english_words_and_iso_minutes():
    from django.utils import timezone, translation

    with translation.override("en"), timezone.override("Europe/Berlin"):
        rows = list(
            csv.reader(io.StringIO(_table("csv").content.decode("utf-8-sig")), delimiter=";")
        )
    assert rows[1][1:] == ["yes", "2026-12-06 17:05", "87.50"]


def test_the_xlsx_reads_back_with_openpyxl_and_runs_no_formula():
    from django.utils import timezone
    from openpyxl import load_workbook

    with timezone.override("Europe/Berlin"):
        response = _table("xlsx")
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    assert response["Content-Disposition"] == 'attachment; filename="t.xlsx"'
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert rows[0] == ["Name", "Bestanden", "Zeit", "Note"]
    assert rows[1][1:] == ["ja", datetime.datetime(2026, 12, 6, 17, 5), 87.5]
    assert rows[2][1] == "nein"
    # Every name as text, exactly as given: a string cell, never a formula.
    assert [row[0] for row in rows[1:]] == EVIL
    assert {sheet.cell(row=index, column=1).data_type for index in range(2, 6)} == {"s"}
    assert sheet.cell(row=2, column=3).number_format == "DD.MM.YYYY HH:MM"
