"""The one way Lernpfad writes a CSV file: a text cell a spreadsheet would read as a formula
(``=``, ``+``, ``-``, ``@``, tab, line break) gets a leading apostrophe (OWASP "CSV Injection").
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
