"""Bar and scatter charts drawn on the server as SVG for the admin's dashboards: no script or
inline style (CSP), colours from ``lms/static/lms/charts.css``, every value escaped and titled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe


@dataclass(frozen=True)
class Bar:
    label: str  # under the bar (may be empty to leave it out)
    value: float
    title: str  # the tooltip: the bar's full label and value


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    title: str
    flagged: bool = False


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def bar_chart(
    bars: Sequence[Bar],
    *,
    label: str,
    width: int = 720,
    height: int = 220,
    every_label: int = 1,
) -> SafeString:
    """Vertical bars from 0 to the largest value, written with 0 at the value axis' ends;
    ``every_label``: write every n-th bar's label."""
    left, bottom, top = 40, 28, 12
    plot_w, plot_h = width - left - 8, height - bottom - top
    peak = max((b.value for b in bars), default=0) or 1
    slot = plot_w / max(len(bars), 1)
    gap = min(slot * 0.2, 6)
    rects, labels = [], []
    for index, bar in enumerate(bars):
        h = plot_h * max(bar.value, 0) / peak
        x = left + index * slot + gap / 2
        rects.append(
            (
                _number(x),
                _number(top + plot_h - h),
                _number(max(slot - gap, 1)),
                _number(h),
                bar.title,
            )
        )
        if bar.label and index % every_label == 0:
            labels.append((_number(x + (slot - gap) / 2), height - bottom + 16, bar.label))
    return format_html(
        '<svg class="chart chart--bars" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        'role="img" aria-label="{label}">'
        '<line class="chart__axis" x1="{left}" y1="{base}" x2="{right}" y2="{base}"/>'
        '<line class="chart__axis" x1="{left}" y1="{top}" x2="{left}" y2="{base}"/>'
        '<text class="chart__tick" x="{tick_x}" y="{top_text}" text-anchor="end">{peak}</text>'
        '<text class="chart__tick" x="{tick_x}" y="{base}" text-anchor="end">0</text>'
        "{rects}{labels}</svg>",
        w=width,
        h=height,
        label=label,
        left=left,
        right=width - 8,
        top=top,
        base=top + plot_h,
        tick_x=left - 4,
        top_text=top + 8,
        peak=_number(peak),
        rects=format_html_join(
            "",
            '<rect class="chart__bar" x="{}" y="{}" width="{}" height="{}"><title>{}</title>'
            "</rect>",
            rects,
        ),
        labels=format_html_join(
            "", '<text class="chart__label" x="{}" y="{}" text-anchor="middle">{}</text>', labels
        ),
    )


def scatter_chart(
    points: Sequence[Point],
    *,
    label: str,
    x_label: str,
    y_label: str,
    y_threshold: float | None = None,
    width: int = 520,
    height: int = 360,
) -> SafeString:
    """Points in a box from (0, -1) to (1, 1), axes labelled at their ends; flagged points get
    their own class; ``y_threshold`` draws a dashed line."""
    left, right, top, bottom = 48, 12, 12, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    (x0, x1), (y0, y1) = (0.0, 1.0), (-1.0, 1.0)

    def sx(value: float) -> str:
        return _number(left + plot_w * (min(max(value, x0), x1) - x0) / (x1 - x0))

    def sy(value: float) -> str:
        return _number(top + plot_h * (1 - (min(max(value, y0), y1) - y0) / (y1 - y0)))

    threshold = mark_safe("")
    if y_threshold is not None:
        threshold = format_html(
            '<line class="chart__threshold" x1="{}" y1="{}" x2="{}" y2="{}"/>',
            left,
            sy(y_threshold),
            left + plot_w,
            sy(y_threshold),
        )
    return format_html(
        '<svg class="chart chart--scatter" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        'role="img" aria-label="{label}">'
        '<rect class="chart__frame" x="{left}" y="{top}" width="{pw}" height="{ph}"/>'
        "{threshold}"
        '<text class="chart__tick" x="{left}" y="{xt}" text-anchor="start">{x0}</text>'
        '<text class="chart__tick" x="{xr}" y="{xt}" text-anchor="end">{x1}</text>'
        '<text class="chart__tick" x="{yt}" y="{ybottom}" text-anchor="end">{y0}</text>'
        '<text class="chart__tick" x="{yt}" y="{ytop}" text-anchor="end">{y1}</text>'
        '<text class="chart__label" x="{xmid}" y="{xl}" text-anchor="middle">{x_label}</text>'
        '<text class="chart__label" x="14" y="{ymid}" text-anchor="middle" '
        'transform="rotate(-90 14 {ymid})">{y_label}</text>'
        "{points}</svg>",
        w=width,
        h=height,
        label=label,
        left=left,
        top=top,
        pw=plot_w,
        ph=plot_h,
        threshold=threshold,
        xt=top + plot_h + 14,
        xr=left + plot_w,
        x0=_number(x0),
        x1=_number(x1),
        yt=left - 4,
        ybottom=top + plot_h,
        ytop=top + 10,
        y0=_number(y0),
        y1=_number(y1),
        xmid=left + plot_w / 2,
        xl=height - 6,
        ymid=top + plot_h / 2,
        x_label=x_label,
        y_label=y_label,
        points=format_html_join(
            "",
            '<circle class="{}" cx="{}" cy="{}" r="5"><title>{}</title></circle>',
            (
                (
                    "chart__point chart__point--flagged" if p.flagged else "chart__point",
                    sx(p.x),
                    sy(p.y),
                    p.title,
                )
                for p in points
            ),
        ),
    )
