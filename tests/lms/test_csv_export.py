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
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows == [
        ["name", "'=header", "n"],
        ["'=cmd|' /C calc'!A0", 'say "hi", then\nleave', "-3"],
        ["plain", "2026-03-01", "90.00"],
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
