"""The statistics drawings: heatmap levels and cells, the progress line."""

from __future__ import annotations

import datetime
import re

import pytest

from web.views.stats import heat_level, heatmap, progress_chart


class Day:
    def __init__(self, date, count):
        self.date, self.count = date, count


def test_heat_levels_split_the_busiest_day_in_quarters():
    assert [heat_level(n, 8) for n in (0, 1, 2, 3, 4, 5, 6, 7, 8)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert heat_level(3, 0) == 0


def test_heatmap_has_a_cell_per_day_in_weekday_rows():
    first = datetime.date(2026, 9, 1)  # a Tuesday
    days = [Day(first + datetime.timedelta(days=i), i % 5) for i in range(90)]
    drawing = heatmap(days)
    assert len(drawing["cells"]) == 90
    # Tuesday is the second row; the next Monday starts the second column in the first row.
    rows = sorted({c["y"] for c in drawing["cells"]})
    assert drawing["cells"][0]["y"] == rows[1] and drawing["cells"][6]["y"] == rows[0]
    assert drawing["cells"][6]["x"] > drawing["cells"][0]["x"]
    assert max(c["level"] for c in drawing["cells"]) == 4


def test_progress_line_rises_by_one_step_per_completion():
    today = datetime.date(2026, 11, 30)
    moments = [datetime.datetime(2026, 11, d, 12, tzinfo=datetime.UTC) for d in (2, 2, 20)]
    chart = progress_chart(moments, 32, today=today)
    ys = [float(p.split(",")[1]) for p in chart["points"].split()]
    assert ys == sorted(ys, reverse=True)  # SVG y grows downwards: the line never falls
    assert chart["done"] == 3 and (today - chart["start"]).days >= 29
    assert progress_chart([], 32, today=today) is None


@pytest.mark.django_db
def test_stats_page_draws_the_learners_reviews(learner_client, enrolled, course):
    from django.utils import timezone

    from reviews.api import cards_for_step_ensure
    from reviews.models import ReviewCard
    from reviews.services.reviewing import review_record

    step = course.steps.get(number=1)
    cards_for_step_ensure(learner_id=enrolled.pk, step_id=step.pk, at=timezone.now())
    for index, card in enumerate(ReviewCard.objects.filter(learner=enrolled)):
        review_record(
            learner=enrolled,
            card_id=card.pk,
            rating=3,
            duration_ms=900,
            client_review_id=f"s{index}",
        )
    html = learner_client.get("/stats/").content.decode()
    assert len(re.findall(r'<rect class="heat-\d"[^>]*><title>', html)) == 90
    assert html.count('class="heat-4"') >= 1
    assert "Wiederholungen der letzten 90 Tage" in html
    # The forecast: a bar per day with its date and count, a date under every 7th, "Heute" first.
    bars = re.findall(
        r'<rect class="forecast-bar"[^>]*><title>\d\d\.\d\d\.\d{4}: \d+</title>', html
    )
    assert len(bars) == 30
    assert re.search(r'<text class="chart-text" x="\d+" y="174">Heute</text>', html)
    # True retention: a row per period, three cells each (a share with passed/reviews, or a dash).
    assert html.count('<th scope="row">') == 6
    share = r'\d+ % <span class="muted retention-table__count">\(\d+/\d+\)</span>'
    cell = rf'<td>({share}|<span class="muted">–</span>)</td>'
    assert len(re.findall(cell, html)) == 18


def test_the_forecast_has_a_bar_per_day_scaled_to_the_busiest():
    from reviews.selectors import DayCount, ReviewForecast
    from web.views.stats import forecast_chart

    today = datetime.date(2026, 12, 2)
    counts = [12, 0, 1, 5] + [3] * 26
    days = [
        DayCount(date=today + datetime.timedelta(days=i), count=n) for i, n in enumerate(counts)
    ]
    chart = forecast_chart(ReviewForecast(days=days, overdue=11))
    assert [bar["count"] for bar in chart["bars"]] == counts
    assert chart["bars"][1]["height"] == 0 and chart["bars"][0]["y"] == chart["y_top"]
    assert [i for i, bar in enumerate(chart["bars"]) if bar["labelled"]] == [0, 7, 14, 21, 28]
    assert chart["average"] == 3.2 and chart["peak"] == 12


@pytest.mark.django_db
@pytest.mark.parametrize("time_zone", ["Pacific/Kiritimati", "Pacific/Pago_Pago"])
def test_the_progress_chart_ends_on_the_learners_local_today(
    learner_client, enrolled, course, time_zone
):
    """UTC+14 and UTC-11 are never on the same date: the chart follows the learner's zone, and
    ends on the heatmap's last day."""
    import zoneinfo

    from django.utils import timezone

    from tests.factories import steps_complete_through_rules

    enrolled.time_zone = time_zone
    enrolled.save(update_fields=["time_zone"])
    steps_complete_through_rules(enrolled, course.slug, count=1)
    response = learner_client.get("/stats/")
    today = timezone.localdate(timezone.now(), timezone=zoneinfo.ZoneInfo(time_zone))
    chart = response.context["modules"][0]["chart"]
    assert chart["today"] == today == response.context["heatmap"]["cells"][-1]["date"]
