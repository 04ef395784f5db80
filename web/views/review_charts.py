"""The statistics page's review forecast (a bar per day, drawn as SVG) and true-retention table:
geometry and labels from the reviews selectors' figures. Plain Python."""

from __future__ import annotations

import datetime
import functools

from django.utils.formats import date_format, localize
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from web.templatetags.lernpfad import percent

# Forecast chart geometry.
WIDTH = 560
HEIGHT = 180
LEFT = 36
BOTTOM = 22
TOP = 10
GAP = 3
# A date under every 7th bar (today, and a week later each time).
LABEL_EVERY = 7


@functools.lru_cache(maxsize=4096)
def _short_date(day: datetime.date, language: str | None) -> str:
    # What ``{{ day|date:"SHORT_DATE_FORMAT" }}`` writes, escaped; the same for every learner
    # (a date has no time zone), so each day's label is formatted once per language.
    return escape(date_format(day, "SHORT_DATE_FORMAT"))


def short_date(day: datetime.date, language: str | None = None) -> str:
    """The day as the page's language writes a short date ("01.12.2026"), escaped for HTML.
    A caller that writes many dates passes ``get_language()``, read once for all of them (a
    look-up in the request's thread-local state each time)."""
    return _short_date(day, language or get_language())


@functools.lru_cache(maxsize=4096)
def date_label(day: datetime.date, format_string: str, language: str | None) -> str:
    """``date_format(day, format_string)`` in ``language`` (the active one), escaped for HTML:
    the same for every learner, so formatted once per day, format and language."""
    return escape(date_format(day, format_string))


def _forecast_bars_markup(bars: list[dict], *, width: int) -> SafeString:
    """The forecast's bars, each with its tooltip, as one string: the template's loop did
    several look-ups and a date filter per day (bench.profile web_stats)."""
    language = get_language()
    return mark_safe(
        "".join(
            f'<rect class="forecast-bar" x="{bar["x"]}" y="{bar["y"]}" width="{width}" '
            f'height="{bar["height"]}"><title>{short_date(bar["date"], language)}: '
            f"{bar['count']}</title></rect>"
            for bar in bars
        )
    )


def _forecast_labels_markup(labels: list[dict], *, y: int) -> SafeString:
    """The date under every 7th bar ("Today" under the first)."""
    today = escape(_("Today"))
    language = get_language()
    return mark_safe(
        "".join(
            f'<text class="chart-text" x="{label["x"]}" y="{y}">'
            f"{today if label['today'] else date_label(label['date'], 'd.m.', language)}</text>"
            for label in labels
        )
    )


def _forecast_markup(chart: dict) -> SafeString:
    """The forecast's drawing and its summary, as the statistics page writes them: the
    template's block (a dozen localized numbers, two plural translations with their values)
    cost more than drawing the bars. The numbers are localized and escaped as a template
    writes them ("1,4" in German), the translations' own text is not escaped (blocktranslate)."""
    total = chart["total"]
    counter = escape(localize(total))
    title = ngettext(
        "%(counter)s review due in the next 30 days; one bar per day, today first",
        "%(counter)s reviews due in the next 30 days; one bar per day, today first",
        total,
    ) % {"counter": counter}
    summary = ngettext(
        "%(counter)s review in 30 days, %(average)s a day on average; %(overdue)s of today's "
        "were due before today.",
        "%(counter)s reviews in 30 days, %(average)s a day on average; %(overdue)s of today's "
        "were due before today.",
        total,
    ) % {
        "counter": counter,
        "average": escape(localize(chart["average"])),
        "overdue": escape(localize(chart["overdue"])),
    }
    width, height = chart["width"], chart["height"]
    x0, x1, y0, y_top = chart["x0"], chart["x1"], chart["y0"], chart["y_top"]
    return mark_safe(
        f'\n  <svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} '
        f'{height}" role="img" aria-labelledby="forecast-title">\n'
        f'    <title id="forecast-title">{title}</title>\n'
        f'    <line class="chart-axis" x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}"/>\n'
        f'    <line class="chart-axis" x1="{x0}" y1="{y_top}" x2="{x0}" y2="{y0}"/>\n'
        f'    <text class="chart-text" x="4" y="{y_top + 8}">'
        f"{escape(localize(chart['peak']))}</text>\n"
        f'    <text class="chart-text" x="4" y="{y0}">0</text>\n'
        f"    {chart['bars_markup']}\n"
        f"    {chart['labels_markup']}\n"
        "  </svg>\n"
        f'  <p class="muted">{summary}</p>\n  '
    )


def forecast_chart(forecast) -> dict:
    """Bars (x, y, height, date, count) for the forecast's days, the y-axis maximum and date
    labels; a day without reviews gets a bar of height 0 (its tooltip still says 0)."""
    days = forecast.days
    peak = max(forecast.peak, 1)
    plot_height = HEIGHT - TOP - BOTTOM
    slot = (WIDTH - LEFT) / max(len(days), 1)
    # Whole pixels: a template localizes a float ("36,5" in German), which SVG cannot read.
    bar_width = max(1, int(slot) - GAP)
    y0 = HEIGHT - BOTTOM
    bars, labels = [], []
    for index, day in enumerate(days):
        height = round(plot_height * day.count / peak)
        x = LEFT + round(index * slot) + 1
        bars.append(
            {"x": x, "y": y0 - height, "height": height, "date": day.date, "count": day.count}
        )
        if index % LABEL_EVERY == 0:
            labels.append({"x": x, "date": day.date, "today": index == 0})
    chart = {
        "width": WIDTH,
        "height": HEIGHT,
        "bar_width": bar_width,
        "bars": bars,
        "bars_markup": _forecast_bars_markup(bars, width=bar_width),
        "labels": labels,
        "labels_markup": _forecast_labels_markup(labels, y=HEIGHT - 6),
        "x0": LEFT,
        "y0": y0,
        "y_top": TOP,
        "x1": WIDTH,
        "label_y": HEIGHT - 6,
        "peak": forecast.peak,
        "total": forecast.total,
        "overdue": forecast.overdue,
        "average": round(forecast.total / len(days), 1) if days else 0,
    }
    chart["markup"] = _forecast_markup(chart)
    return chart


def retention_markup(rows: list[dict]) -> SafeString:
    """The true-retention table's body rows (``retention_rows``), as the template's loop wrote
    them."""
    return mark_safe(
        "".join(
            f'\n      <tr>\n        <th scope="row">{escape(row["label"])}</th>\n'
            f"        {row['cells_markup']}\n      </tr>\n      "
            for row in rows
        )
    )


def retention_rows(periods) -> list[dict]:
    """The true-retention table's rows, labelled in the page's language."""
    names = {
        "today": _("Today"),
        "yesterday": _("Yesterday"),
        "week": _("Last 7 days"),
        "month": _("Last 30 days"),
        "year": _("Last 365 days"),
        "all": _("All time"),
    }
    rows = []
    for period in periods:
        # Young, mature, total: the table's columns.
        cells = [period.young, period.mature, period.total]
        rows.append(
            {"label": names[period.period], "cells": cells, "cells_markup": _cells_markup(cells)}
        )
    return rows


def _cells_markup(cells) -> SafeString:
    """A row's cells: the share recalled with passed/reviews, or a dash without reviews (the
    template's loop with a filter and four look-ups per cell, written here once)."""
    parts = []
    for count in cells:
        if count.reviews:
            inner = (
                f'{percent(count.retention)} <span class="muted">'
                f"({count.passed}/{count.reviews})</span>"
            )
        else:
            inner = '<span class="muted">–</span>'
        parts.append(f"\n        <td>{inner}</td>\n        ")
    return mark_safe("".join(parts))
