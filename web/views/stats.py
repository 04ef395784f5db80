"""Statistics: a 90-day review heatmap and progress over time, drawn as inline SVG."""

from __future__ import annotations

import datetime

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from progress.selectors import learner_progress_get
from reviews.selectors import due_summary, review_forecast, review_stats, true_retention
from web.views.dashboard import enrolled_modules
from web.views.review_charts import (
    date_label,
    forecast_chart,
    retention_markup,
    retention_rows,
    short_date,
)

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


def heat_level(count: int, peak: int) -> int:
    """0 for no reviews, else 1–4 by quarter of the busiest day."""
    if count <= 0 or peak <= 0:
        return 0
    return min(4, 1 + (count * 4 - 1) // peak)


def _cells_markup(cells: list[dict]) -> SafeString:
    """The heatmap's squares, each with its tooltip, as one string: the template's loop over 90
    days (several look-ups and a date filter each) was the page's costliest rendering
    (bench.profile web_stats)."""
    language = get_language()
    return mark_safe(
        "".join(
            f'<rect class="heat-{c["level"]}" x="{c["x"]}" y="{c["y"]}" width="{CELL}" '
            f'height="{CELL}" rx="2"><title>{short_date(c["date"], language)}: {c["count"]}'
            "</title></rect>"
            for c in cells
        )
    )


def heatmap(per_day) -> dict:
    """Cells (x, y, level, label) for days in order; the first column starts on a Monday."""
    if not per_day:
        return {"cells": [], "width": 0, "height": 0, "months": []}
    peak = max(day.count for day in per_day)
    language = get_language()
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
            months.append({"x": x, "column": column, "label": date_label(day.date, "M", language)})
    # The range's first, partial month keeps its label only if the next one leaves it room.
    if len(months) > 1 and months[1]["column"] - months[0]["column"] < MONTH_LABEL_MIN_COLUMNS:
        months.pop(0)
    columns = (len(per_day) + offset + 6) // 7
    width = LEFT + columns * (CELL + GAP)
    if months:
        width = max(width, months[-1]["x"] + MONTH_LABEL_WIDTH)
    weekdays = [
        {"y": TOP + row * (CELL + GAP) + CELL - 2, "label": label}
        for row, label in (
            (0, date_label(datetime.date(2024, 1, 1), "D", language)),
            (2, date_label(datetime.date(2024, 1, 3), "D", language)),
            (4, date_label(datetime.date(2024, 1, 5), "D", language)),
        )
    ]
    return {
        "cells": cells,
        "cells_markup": _cells_markup(cells),
        # The labels as markup, as the cells (escaped labels and numbers only).
        "months_markup": mark_safe(
            "".join(
                f'<text class="chart-text" x="{month["x"]}" y="14">{month["label"]}</text>'
                for month in months
            )
        ),
        "weekdays_markup": mark_safe(
            "".join(
                f'<text class="chart-text" x="0" y="{day["y"]}">{day["label"]}</text>'
                for day in weekdays
            )
        ),
        "months": months,
        "width": width,
        "height": TOP + 7 * (CELL + GAP),
        "weekdays": weekdays,
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


def _progress_chart_markup(chart: dict, number: int) -> SafeString:
    """One module's progress chart as the page writes it (its ``number``-th on the page, for
    the title's id): the template's block of ten tags, each value a look-up, localized and
    escaped, with a translation and two date filters, cost more than drawing the line."""
    language = get_language()
    start = short_date(chart["start"], language)
    # As blocktranslate writes it: the translation as it is, its values escaped (integers, a
    # date already escaped).
    title = _("Completed steps from %(start)s until today: %(done)s of %(total)s") % {
        "start": start,
        "done": chart["done"],
        "total": chart["total"],
    }
    width, height = chart["width"], chart["height"]
    x0, x1, y0, y_top = chart["x0"], chart["x1"], chart["y0"], chart["y_top"]
    label_y = chart["label_y"]
    return mark_safe(
        '\n      <div class="chart-frame">\n'
        f'      <svg class="chart chart--progress" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="chart-{number}">\n'
        f'        <title id="chart-{number}">{title}</title>\n'
        f'        <line class="chart-axis" x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}"/>\n'
        f'        <line class="chart-axis" x1="{x0}" y1="{y_top}" x2="{x0}" y2="{y0}"/>\n'
        f'        <text class="chart-text" x="4" y="{y_top + 8}">{chart["total"]}</text>\n'
        f'        <text class="chart-text" x="4" y="{y0}">0</text>\n'
        f'        <text class="chart-text" x="{x0}" y="{label_y}">{start}</text>\n'
        f'        <text class="chart-text" x="{x1}" y="{label_y}" text-anchor="end">'
        f"{short_date(chart['today'], language)}</text>\n"
        f'        <polyline class="chart-line" points="{escape(chart["points"])}"/>\n'
        "      </svg>\n      </div>\n      "
    )


@login_required
def stats(request: HttpRequest) -> HttpResponse:
    """Review figures and heatmap (reviews selectors), what is due now and later today (the
    review page's due queue read, so both pages say the same) and per-module progress."""
    learner = request.user
    now = timezone.now()
    # What is due now, and later today, counted as the review page counts it (the due queue's
    # statement, one read); together they are the cards due today, which review_stats then need
    # not count again.
    queue = due_summary(learner=learner, at=now)
    figures = review_stats(
        learner=learner, at=now, due_today=queue.due_total + queue.due_later_today
    )
    # The heatmap ends on the learner's local today as the reviews selector reads it (time
    # zone, unknown-zone fallback): the progress chart ends on the same day.
    today = figures.per_day[-1].date
    modules = []
    # The enrollments and every progress row in one statement; a chart needs only each active
    # step's completion time (building the whole module progress, a status per step, cost more
    # than the read).
    learner_progress = learner_progress_get(learner_id=learner.pk)
    for number, module in enumerate(enrolled_modules(learner_progress.module_ids), start=1):
        progress = learner_progress.completion(module.slug)
        chart = progress_chart(progress.completed_at, progress.total_steps, today=today)
        modules.append(
            {
                "module": module,
                "chart": chart,
                "chart_markup": _progress_chart_markup(chart, number) if chart else "",
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
            "retention_markup": retention_markup(
                retention_rows(true_retention(learner=learner, at=now))
            ),
        },
    )
