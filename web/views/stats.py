"""Statistics: a 90-day review heatmap and progress over time, drawn as inline SVG."""

from __future__ import annotations

import datetime

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.formats import date_format

from progress.selectors import enrollment_list, module_progress_get
from reviews.selectors import review_forecast, review_stats, true_retention
from web.views.review_charts import forecast_chart, retention_rows

# Heatmap geometry: one column per week, one row per weekday (Monday on top).
CELL = 13
GAP = 3
TOP = 18
LEFT = 28

# The progress chart shows at least this many days, so a first day's progress is not a wall.
MIN_CHART_DAYS = 30
# Progress chart geometry.
CHART_WIDTH = 560
CHART_HEIGHT = 200
PAD_LEFT = 36
PAD_BOTTOM = 24
PAD_TOP = 10
PAD_RIGHT = 10


def heat_level(count: int, peak: int) -> int:
    """0 for no reviews, else 1–4 by quarter of the busiest day."""
    if count <= 0 or peak <= 0:
        return 0
    return min(4, 1 + (count * 4 - 1) // peak)


def heatmap(per_day) -> dict:
    """Cells (x, y, level, label) for days in order; the first column starts on a Monday."""
    if not per_day:
        return {"cells": [], "width": 0, "height": 0, "months": []}
    peak = max(day.count for day in per_day)
    first = per_day[0].date
    offset = first.weekday()
    cells, months = [], []
    for index, day in enumerate(per_day):
        slot = index + offset
        column, row = divmod(slot, 7)
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
            months.append({"x": x, "label": date_format(day.date, "M")})
    columns = (len(per_day) + offset + 6) // 7
    return {
        "cells": cells,
        "months": months,
        "width": LEFT + columns * (CELL + GAP),
        "height": TOP + 7 * (CELL + GAP),
        "weekdays": [
            {"y": TOP + row * (CELL + GAP) + CELL - 2, "label": label}
            for row, label in (
                (0, date_format(datetime.date(2024, 1, 1), "D")),
                (2, date_format(datetime.date(2024, 1, 3), "D")),
                (4, date_format(datetime.date(2024, 1, 5), "D")),
            )
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
        "label_y": CHART_HEIGHT - 6,
    }


@login_required
def stats(request: HttpRequest) -> HttpResponse:
    """Review figures and heatmap (reviews selector) and per-module progress over time."""
    learner = request.user
    now = timezone.now()
    figures = review_stats(learner=learner, at=now)
    # The heatmap ends on the learner's local today as the reviews selector reads it (time
    # zone, unknown-zone fallback): the progress chart ends on the same day.
    today = figures.per_day[-1].date
    modules = []
    for enrollment in enrollment_list(learner_id=learner.pk):
        progress = module_progress_get(learner_id=learner.pk, module_slug=enrollment.module.slug)
        completed = [s.completed_at for s in progress.steps if s.completed_at]
        modules.append(
            {
                "module": enrollment.module,
                "chart": progress_chart(completed, progress.total_steps, today=today),
                "percent": progress.percent_complete,
            }
        )
    return render(
        request,
        "web/stats.html",
        {
            "nav": "stats",
            "figures": figures,
            "heatmap": heatmap(figures.per_day),
            "modules": modules,
            "cell": CELL,
            "forecast": forecast_chart(review_forecast(learner=learner, at=now)),
            "retention": retention_rows(true_retention(learner=learner, at=now)),
        },
    )
