"""Statistics: a 90-day review heatmap, the review forecast, true retention and progress over
time. The drawings' geometry is built here; ``web/stats.html`` writes the SVG."""

from __future__ import annotations

import datetime

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from courses.selectors import module_catalog
from progress.selectors import learner_progress_get
from reviews.selectors import due_summary, review_forecast, review_stats, true_retention
from web.views.dashboard import enrolled_modules

# Heatmap geometry: one column per week, one row per weekday (Monday on top). The drawing is
# scaled to the page's width (CSS), so these are proportions more than pixels.
CELL = 16
GAP = 4
TOP = 22
LEFT = 34
# Room a month label ("Dez", "Sept") takes to the right of its column, and the fewest columns
# between two labels (a month that starts in the first days of the range gets no label).
MONTH_LABEL_WIDTH = 34
MONTH_LABEL_MIN_COLUMNS = 2

# The progress chart shows at least this many days, so a first day's progress is not a wall.
MIN_CHART_DAYS = 30
# Progress chart geometry (scaled to the page's width by CSS).
CHART_WIDTH = 720
CHART_HEIGHT = 260
PAD_LEFT = 40
PAD_BOTTOM = 28
PAD_TOP = 12
PAD_RIGHT = 12

# Forecast chart geometry; a date under every 7th bar (today, and a week later each time).
FORECAST_WIDTH = 560
FORECAST_HEIGHT = 180
FORECAST_LEFT = 36
FORECAST_BOTTOM = 22
FORECAST_TOP = 10
FORECAST_GAP = 3
LABEL_EVERY = 7


def heat_level(count: int, peak: int) -> int:
    """0 for no reviews, else 1–4 by quarter of the busiest day."""
    if count <= 0 or peak <= 0:
        return 0
    return min(4, 1 + (count * 4 - 1) // peak)


def heatmap(per_day) -> dict:
    """Cells (x, y, level, date, count) for days in order; the first column starts on a
    Monday; month labels above and weekday labels (Monday, Wednesday, Friday) beside."""
    if not per_day:
        return {"cells": [], "width": 0, "height": 0, "months": [], "weekdays": []}
    peak = max(day.count for day in per_day)
    offset = per_day[0].date.weekday()
    cells, months = [], []
    for index, day in enumerate(per_day):
        column, row = divmod(index + offset, 7)
        x = LEFT + column * (CELL + GAP)
        cells.append(
            {
                "x": x,
                "y": TOP + row * (CELL + GAP),
                "level": heat_level(day.count, peak),
                "date": day.date,
                "count": day.count,
            }
        )
        if day.date.day == 1 or index == 0:
            months.append({"x": x, "column": column, "date": day.date})
    # The range's first, partial month keeps its label only if the next one leaves it room.
    if len(months) > 1 and months[1]["column"] - months[0]["column"] < MONTH_LABEL_MIN_COLUMNS:
        months.pop(0)
    columns = (len(per_day) + offset + 6) // 7
    width = LEFT + columns * (CELL + GAP)
    if months:
        width = max(width, months[-1]["x"] + MONTH_LABEL_WIDTH)
    return {
        "cells": cells,
        "cell": CELL,
        "months": months,
        "width": width,
        "height": TOP + 7 * (CELL + GAP),
        # 1 January 2024 was a Monday.
        "weekdays": [
            {"y": TOP + row * (CELL + GAP) + CELL - 2, "date": datetime.date(2024, 1, 1 + row)}
            for row in (0, 2, 4)
        ],
    }


def progress_chart(completed_at: list[datetime.datetime], total: int, *, today: datetime.date):
    """A step line of completed steps over time, from the first completion to today."""
    dates = sorted(moment.date() for moment in completed_at)
    if not dates or total <= 0:
        return None
    start = min(dates[0], today - datetime.timedelta(days=MIN_CHART_DAYS - 1))
    span = max(1, (today - start).days)
    inner_w = CHART_WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = CHART_HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(day: datetime.date) -> float:
        return round(PAD_LEFT + (day - start).days / span * inner_w, 1)

    def y(count: int) -> float:
        return round(PAD_TOP + inner_h - count / total * inner_h, 1)

    points = [(x(start), y(0))]
    done = 0
    for day in dates:
        points.append((x(day), y(done)))
        done += 1
        points.append((x(day), y(done)))
    points.append((x(today), y(done)))
    return {
        "points": " ".join(f"{px},{py}" for px, py in points),
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "x0": PAD_LEFT,
        "x1": CHART_WIDTH - PAD_RIGHT,
        "y0": PAD_TOP + inner_h,
        "y_top": PAD_TOP,
        "total": total,
        "done": done,
        "start": start,
        "today": today,
        "label_y": CHART_HEIGHT - 8,
    }


def forecast_chart(forecast) -> dict:
    """Bars (x, y, height, date, count) for the forecast's days, the y-axis maximum and date
    labels; a day without reviews gets a bar of height 0 (its tooltip still says 0)."""
    days = forecast.days
    peak = max(forecast.peak, 1)
    plot_height = FORECAST_HEIGHT - FORECAST_TOP - FORECAST_BOTTOM
    slot = (FORECAST_WIDTH - FORECAST_LEFT) / max(len(days), 1)
    y0 = FORECAST_HEIGHT - FORECAST_BOTTOM
    bars = []
    for index, day in enumerate(days):
        height = round(plot_height * day.count / peak)
        bars.append(
            {
                "x": FORECAST_LEFT + round(index * slot) + 1,
                "y": y0 - height,
                "height": height,
                "date": day.date,
                "count": day.count,
                "labelled": index % LABEL_EVERY == 0,
            }
        )
    return {
        "width": FORECAST_WIDTH,
        "height": FORECAST_HEIGHT,
        # Whole pixels: a template localizes a float ("36,5" in German), which SVG cannot read.
        "bar_width": max(1, int(slot) - FORECAST_GAP),
        "bars": bars,
        "x0": FORECAST_LEFT,
        "y0": y0,
        "y_top": FORECAST_TOP,
        "x1": FORECAST_WIDTH,
        "label_y": FORECAST_HEIGHT - 6,
        "peak": forecast.peak,
        "total": forecast.total,
        "overdue": forecast.overdue,
        "average": round(forecast.total / len(days), 1) if days else 0,
    }


# The period of the "recalled" tile: one row of the true-retention table.
RECALLED_PERIOD = "month"


def retention_rows(periods) -> list[dict]:
    """The true-retention table's rows (young, mature, total), labelled in the page's
    language."""
    names = {
        "today": _("Today"),
        "yesterday": _("Yesterday"),
        "week": _("Last 7 days"),
        "month": _("Last 30 days"),
        "year": _("Last 365 days"),
        "all": _("All time"),
    }
    return [
        {"label": names[period.period], "cells": [period.young, period.mature, period.total]}
        for period in periods
    ]


@login_required
def stats(request: HttpRequest) -> HttpResponse:
    """Review figures and heatmap (reviews selectors), what is due now and later today (the
    review page's due queue read, so both pages say the same) and per-module progress."""
    learner = request.user
    now = timezone.now()
    # Due now and later today are the cards due today, which review_stats need not count again.
    queue = due_summary(learner=learner, at=now)
    figures = review_stats(
        learner=learner, at=now, due_today=queue.due_total + queue.due_later_today
    )
    # The heatmap ends on the learner's local today as the reviews selector reads it (time
    # zone, unknown-zone fallback): the progress chart ends on the same day.
    retention = true_retention(learner=learner, at=now)
    # The tile and the table say one figure: the true retention of the last 30 days.
    recalled = next(period.total for period in retention if period.period == RECALLED_PERIOD)
    today = figures.per_day[-1].date
    learner_progress = learner_progress_get(learner_id=learner.pk)
    modules = []
    for module in enrolled_modules(learner_progress.module_ids, module_catalog()):
        progress = learner_progress.completion(module.slug)
        modules.append(
            {
                "module": module,
                "chart": progress_chart(progress.completed_at, progress.total_steps, today=today),
                "percent": progress.percent_complete,
            }
        )
    return render(
        request,
        "web/stats.html",
        {
            "nav": "stats",
            "figures": figures,
            "queue": queue,
            "held_back": queue.due_total - queue.due_count,
            "heatmap": heatmap(figures.per_day),
            "modules": modules,
            "forecast": forecast_chart(review_forecast(learner=learner, at=now)),
            "retention": retention_rows(retention),
            "recalled": recalled,
        },
    )
