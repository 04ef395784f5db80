"""Bar and scatter charts drawn on the server as SVG for the admin's dashboards. Python works out
the geometry; the markup lives in ``lms/templates/lms/charts/`` (no script or inline style for the
CSP, colours from ``lms/static/lms/charts.css``, every value escaped and titled).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString


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
    """At most one decimal, written with a point whatever the locale."""
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
    drawn = []
    for index, bar in enumerate(bars):
        h = plot_h * max(bar.value, 0) / peak
        x = left + index * slot + gap / 2
        drawn.append(
            {
                "x": _number(x),
                "y": _number(top + plot_h - h),
                "width": _number(max(slot - gap, 1)),
                "height": _number(h),
                "title": bar.title,
                "label": bar.label if index % every_label == 0 else "",
                "label_x": _number(x + (slot - gap) / 2),
            }
        )
    return render_to_string(
        "lms/charts/bar.svg.html",
        {
            "label": label,
            "width": width,
            "height": height,
            "left": left,
            "right": width - 8,
            "top": top,
            "base": top + plot_h,
            "peak": _number(peak),
            "bars": drawn,
        },
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

    return render_to_string(
        "lms/charts/scatter.svg.html",
        {
            "label": label,
            "x_label": x_label,
            "y_label": y_label,
            "width": width,
            "height": height,
            "left": left,
            "top": top,
            "right": left + plot_w,
            "base": top + plot_h,
            "plot_w": plot_w,
            "plot_h": plot_h,
            "threshold_y": None if y_threshold is None else sy(y_threshold),
            "ends": {"x0": _number(x0), "x1": _number(x1), "y0": _number(y0), "y1": _number(y1)},
            "x_label_x": _number(left + plot_w / 2),
            "y_label_y": _number(top + plot_h / 2),
            "points": [
                {"x": sx(p.x), "y": sy(p.y), "title": p.title, "flagged": p.flagged} for p in points
            ],
        },
    )
