"""lms.svg_charts: the admin's bar and scatter charts. The pages that show them are tested in
tests/quizzes/test_course_admin_workspace.py; this checks what every chart carries: one shape and
one title per value, the labels asked for, escaped text and numbers written with a point."""

from __future__ import annotations

import re

from django.utils import translation

from lms.svg_charts import Bar, Point, bar_chart, scatter_chart


def test_a_bar_chart_has_a_titled_bar_per_value_and_every_nth_label():
    values = [0, 3, 7, 1]
    bars = [Bar(label=f"d{i}", value=v, title=f"day {i}: {v}") for i, v in enumerate(values)]
    svg = bar_chart(bars, label="Reviews per day", every_label=2)
    assert svg.startswith('<svg class="chart chart--bars"')
    assert 'role="img" aria-label="Reviews per day"' in svg
    assert svg.count('<rect class="chart__bar"') == 4
    assert re.findall(r"<title>([^<]*)</title>", svg) == [
        f"day {i}: {v}" for i, v in enumerate(values)
    ]
    assert re.findall(r'class="chart__label"[^>]*>([^<]*)<', svg) == ["d0", "d2"]
    # The tallest bar fills the plot: 220 high less 28 below and 12 above.
    assert 'height="180"><title>day 2: 7</title>' in svg


def test_charts_escape_their_text_and_write_numbers_with_a_point():
    with translation.override("de"):
        bars = bar_chart([Bar(label="<b>", value=2.5, title='a & "b"')], label="<x>", width=333)
        points = scatter_chart(
            [Point(x=0.33, y=0.5, title="<i>", flagged=True)],
            label="items & more",
            x_label="share <correct>",
            y_label="it's",
            y_threshold=0.2,
        )
    assert 'aria-label="&lt;x&gt;"' in bars and "<title>a &amp; &quot;b&quot;</title>" in bars
    assert ">&lt;b&gt;</text>" in bars and "<b>" not in bars
    assert 'aria-label="items &amp; more"' in points and ">share &lt;correct&gt;</text>" in points
    assert ">it&#x27;s</text>" in points
    assert '<circle class="chart__point chart__point--flagged"' in points
    assert "<title>&lt;i&gt;</title>" in points
    assert 'class="chart__threshold"' in points
    for svg in (bars, points):
        assert not re.search(r'="[^"]*\d,\d', svg), svg
        assert "style" not in svg and "<script" not in svg


def test_a_scatter_chart_leaves_out_the_threshold_when_none_is_given():
    svg = scatter_chart([], label="none", x_label="x", y_label="y")
    assert "chart__threshold" not in svg and "<circle" not in svg
