"""The statistics page's review forecast (a bar per day, drawn as SVG) and true-retention table:
geometry and labels from the reviews selectors' figures. Plain Python."""

from __future__ import annotations

from django.utils.translation import gettext as _

# Forecast chart geometry.
WIDTH = 560
HEIGHT = 180
LEFT = 36
BOTTOM = 22
TOP = 10
GAP = 3
# A date under every 7th bar (today, and a week later each time).
LABEL_EVERY = 7


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
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "bar_width": bar_width,
        "bars": bars,
        "labels": labels,
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
    return [
        {
            "label": names[period.period],
            # Young, mature, total: the table's columns.
            "cells": [period.young, period.mature, period.total],
        }
        for period in periods
    ]
