"""The one way Lernpfad writes a table for a spreadsheet, as CSV or as .xlsx, for an office
that opens it in a German spreadsheet: ``;`` between cells, UTF-8 with a BOM, times in the
admin's zone to the minute, decimals with the language's mark, yes/no as words.

A text cell a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, tab, line
break) stays text: in CSV it gets a leading apostrophe (OWASP "CSV Injection"), in .xlsx it
is written as a string cell, never as a formula.
"""

from __future__ import annotations

import csv
import datetime
import io
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from django.http import HttpResponse
from django.utils import formats, timezone
from django.utils.translation import get_language, pgettext
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
CSV_DELIMITER = ";"
# Excel reads a CSV file as UTF-8 only when it starts with the byte-order mark.
UTF8_BOM = "\ufeff"
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
XLSX_DATETIME_FORMAT = "DD.MM.YYYY HH:MM"
# A column is at most this wide in .xlsx (characters); longer texts wrap in the cell.
XLSX_MAX_WIDTH = 50
EXPORT_FORMATS = ("csv", "xlsx")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell: a text that a spreadsheet would run as a formula stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def yes_no(value: bool) -> str:
    """The word both exports write for a yes/no column ("ja"/"nein" in German)."""
    return pgettext("export", "yes") if value else pgettext("export", "no")


def local_minute(value: datetime.datetime) -> datetime.datetime:
    """An aware time in the current zone (the admin's, ``lms.admin_site``), to the minute."""
    return timezone.localtime(value).replace(second=0, microsecond=0)


def export_text(value: Any) -> str:
    """A cell value as the CSV writes it: the language's decimal mark, local time to the
    minute (German "06.12.2026 17:05", else ISO "2026-12-06 17:05"), yes/no as words."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, datetime.datetime):
        pattern = "d.m.Y H:i" if (get_language() or "").startswith("de") else "Y-m-d H:i"
        return formats.date_format(local_minute(value), pattern)
    if isinstance(value, Decimal | float):
        return formats.number_format(value, use_l10n=True)
    return csv_cell(str(value)) if isinstance(value, str) else str(value)


def csv_response(
    *, filename: str, header: Sequence[Any], rows: Iterable[Sequence[Any]]
) -> HttpResponse:
    """An attachment ``filename``: the header row and ``rows``, every cell through
    ``export_text`` (the header too: a column name is text like any other)."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.write(UTF8_BOM)
    writer = csv.writer(response, delimiter=CSV_DELIMITER)
    writer.writerow([export_text(str(name)) for name in header])
    writer.writerows([export_text(value) for value in row] for row in rows)
    return response


def xlsx_response(
    *, filename: str, header: Sequence[Any], rows: Iterable[Sequence[Any]]
) -> HttpResponse:
    """The same table as an .xlsx workbook of one sheet: numbers and times as numbers and
    times, yes/no as words, every text a string cell (never a formula)."""
    workbook = Workbook()
    sheet = workbook.active
    widths: dict[int, int] = {}
    for row_index, row in enumerate([[str(name) for name in header], *rows], start=1):
        for column_index, value in enumerate(row, start=1):
            cell = sheet.cell(row=row_index, column=column_index)
            if value is None:
                continue
            if isinstance(value, bool):
                value = yes_no(value)
            if isinstance(value, datetime.datetime):
                cell.value = local_minute(value).replace(tzinfo=None)
                cell.number_format = XLSX_DATETIME_FORMAT
                width = len(XLSX_DATETIME_FORMAT)
            elif isinstance(value, int | float | Decimal):
                cell.value = value
                width = len(str(value))
            else:
                cell.value = str(value)
                # openpyxl reads a text starting with "=" as a formula; a string cell it is.
                cell.data_type = "s"
                width = len(str(value))
                if "\n" in str(value):
                    cell.alignment = Alignment(wrap_text=True, vertical="top")
            widths[column_index] = max(widths.get(column_index, 0), width)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    for column_index, width in widths.items():
        letter = sheet.cell(row=1, column=column_index).column_letter
        sheet.column_dimensions[letter].width = min(width + 2, XLSX_MAX_WIDTH)
    buffer = io.BytesIO()
    workbook.save(buffer)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def table_response(
    *, export_format: str, filename_stem: str, header: Sequence[Any], rows: Iterable[Sequence[Any]]
) -> HttpResponse:
    """``csv_response`` or ``xlsx_response`` by ``export_format`` ("csv" or "xlsx")."""
    if export_format == "xlsx":
        return xlsx_response(filename=f"{filename_stem}.xlsx", header=header, rows=rows)
    return csv_response(filename=f"{filename_stem}.csv", header=header, rows=rows)
