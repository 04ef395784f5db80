"""The one way Lernpfad writes a CSV file: every cell is safe to open in a spreadsheet.

A learner chooses their user name and display name. A cell that starts with ``=``, ``+``, ``-``,
``@`` or a tab or line break is a formula to Excel and LibreOffice (``=HYPERLINK(…)`` sends the
admin's click anywhere, others run commands), so such a text gets a leading apostrophe, which
spreadsheets show as text and do not display (OWASP "CSV Injection"). Numbers, booleans, dates
and empty cells are written as they are: they come from Lernpfad, not from a learner.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from typing import Any

from django.http import HttpResponse

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell: a text that a spreadsheet would run as a formula stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_response(
    *, filename: str, header: Sequence[str], rows: Iterable[Sequence[Any]]
) -> HttpResponse:
    """An attachment ``filename`` with the header row and ``rows``, every cell through
    ``csv_cell`` (the header too: a column name is text like any other)."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow([csv_cell(name) for name in header])
    writer.writerows([csv_cell(value) for value in row] for row in rows)
    return response
