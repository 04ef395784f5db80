"""The statistics page's forecast drawing and true-retention rows, written in Python, are
byte for byte what their templates (web/includes/forecast.html, true_retention.html, removed)
wrote."""

from __future__ import annotations

import datetime

import pytest
from django.template import engines
from django.utils import translation

from reviews.selectors import DayCount, RetentionCount, RetentionPeriod, ReviewForecast
from web.views.review_charts import forecast_chart, retention_markup, retention_rows

# The blocks of the two includes the markup replaces (between the forecast's {% with %} and
# {% endwith %}, the retention table's row loop), as they were.
_FORECAST_TEMPLATE = (
    "{% load i18n lernpfad %}{% with ch=forecast %}\n"
    '  <svg class="chart" width="{{ ch.width }}" height="{{ ch.height }}" viewBox="0 '
    '0 {{ ch.width }} {{ ch.height }}" role="img" aria-labelledby="forecast-title">\n'
    '    <title id="forecast-title">{% blocktranslate count counter=ch.total trimmed '
    "%}{{ counter }} review due in the next 30 days; one bar per day, today first{% "
    "plural %}{{ counter }} reviews due in the next 30 days; one bar per day, today "
    "first{% endblocktranslate %}</title>\n"
    '    <line class="chart-axis" x1="{{ ch.x0 }}" y1="{{ ch.y0 }}" x2="{{ ch.x1 }}" '
    'y2="{{ ch.y0 }}"/>\n'
    '    <line class="chart-axis" x1="{{ ch.x0 }}" y1="{{ ch.y_top }}" x2="{{ ch.x0 '
    '}}" y2="{{ ch.y0 }}"/>\n'
    '    <text class="chart-text" x="4" y="{{ ch.y_top|add:8 }}">{{ ch.peak }}</text>\n'
    '    <text class="chart-text" x="4" y="{{ ch.y0 }}">0</text>\n'
    "    {{ ch.bars_markup }}\n"
    "    {{ ch.labels_markup }}\n"
    "  </svg>\n"
    '  <p class="muted">{% blocktranslate with average=ch.average overdue=ch.overdue '
    "count counter=ch.total trimmed %}{{ counter }} review in 30 days, {{ average }} "
    "a day on average; {{ overdue }} of today's were due before today.{% plural %}{{ "
    "counter }} reviews in 30 days, {{ average }} a day on average; {{ overdue }} of "
    "today's were due before today.{% endblocktranslate %}</p>\n"
    "  {% endwith %}"
)

_RETENTION_TEMPLATE = (
    "{% load i18n lernpfad %}{% for row in retention %}\n"
    "      <tr>\n"
    '        <th scope="row">{{ row.label }}</th>\n'
    "        {{ row.cells_markup }}\n"
    "      </tr>\n"
    "      {% endfor %}"
)


def _forecast(counts: list[int], overdue: int) -> ReviewForecast:
    today = datetime.date(2026, 12, 2)
    return ReviewForecast(
        days=[
            DayCount(date=today + datetime.timedelta(days=i), count=count)
            for i, count in enumerate(counts)
        ],
        overdue=overdue,
    )


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize(
    ("counts", "overdue"),
    [
        ([0] * 30, 0),  # nothing due
        ([1] + [0] * 29, 1),  # one review (the singular), overdue
        ([12, 0, 1, 5] + [3] * 26, 11),  # an average with a decimal ("1,4" in German)
        ([1500] + [40] * 29, 1200),  # four-digit numbers
        ([], 0),  # no days
    ],
)
def test_the_forecast_markup_is_what_the_template_wrote(language, counts, overdue):
    template = engines["django"].from_string(_FORECAST_TEMPLATE)
    with translation.override(language):
        chart = forecast_chart(_forecast(counts, overdue))
        expected = template.render({"forecast": chart})
        assert chart["markup"] == expected


def _period(name: str, young: tuple[int, int], mature: tuple[int, int]) -> RetentionPeriod:
    return RetentionPeriod(
        period=name,
        young=RetentionCount(passed=young[0], failed=young[1]),
        mature=RetentionCount(passed=mature[0], failed=mature[1]),
    )


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_retention_rows_are_what_the_template_wrote(language):
    periods = [
        _period("today", (4, 0), (29, 0)),
        _period("yesterday", (0, 0), (0, 0)),
        _period("week", (3, 1), (0, 0)),
        _period("month", (2, 7), (1, 2)),
        _period("year", (1000, 3), (5, 5)),
        _period("all", (1, 2), (2, 1)),
    ]
    template = engines["django"].from_string(_RETENTION_TEMPLATE)
    with translation.override(language):
        rows = retention_rows(periods)
        assert retention_markup(rows) == template.render({"retention": rows})
    assert retention_markup([]) == ""
