"""Template helpers: the progress ring, the QR code and a few small formatters."""

from __future__ import annotations

import math

import segno
from django import template
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

register = template.Library()

RING_RADIUS = 26


@register.inclusion_tag("web/includes/ring.html")
def progress_ring(percent: float | int | None, size: int = 64) -> dict:
    """An SVG ring for a percentage; its length is an attribute so no inline style is needed."""
    value = max(0.0, min(100.0, float(percent or 0)))
    circumference = 2 * math.pi * RING_RADIUS
    return {
        "percent": round(value),
        "size": size,
        "radius": RING_RADIUS,
        "circumference": f"{circumference:.2f}",
        "dash": f"{circumference * value / 100:.2f}",
    }


@register.filter
def interval(seconds: float | int | None) -> str:
    """A review interval in the largest unit that fits: "10 min", "3 d", "2 mo"."""
    if seconds is None:
        return ""
    seconds = int(seconds)
    minutes = max(1, round(seconds / 60))
    if minutes < 60:
        return _("%(n)d min") % {"n": minutes}
    hours = round(seconds / 3600)
    if hours < 24:
        return _("%(n)d h") % {"n": hours}
    days = round(seconds / 86400)
    if days < 31:
        return ngettext("%(n)d day", "%(n)d days", days) % {"n": days}
    months = round(days / 30.4)
    if months < 12:
        return ngettext("%(n)d month", "%(n)d months", months) % {"n": months}
    years = round(days / 365, 1)
    return _("%(n)s years") % {"n": f"{years:g}"}


@register.filter
def percent(value: float | int | None) -> str:
    """0.87 → "87 %"."""
    if value is None:
        return "–"
    return f"{round(float(value) * 100)} %"


@register.filter
def learner_zone(user) -> str:
    """The signed-in learner's time zone for display; UTC for visitors."""
    if not getattr(user, "is_authenticated", False):  # also no user at all (the 500 page)
        return "UTC"
    return getattr(user, "time_zone", "") or "UTC"


@register.filter
def qr_svg(url: str) -> str:
    """The QR code of ``url`` as inline SVG (no style attributes, so the CSP holds); the
    certificate page shows the same code as the certificate PDF."""
    code = segno.make(url, error="m", micro=False)
    return mark_safe(
        code.svg_inline(
            scale=4,
            border=4,
            dark="#000",
            light="#fff",
            title=_("QR code of the verification page"),
            svgclass="qr-code",
        )
    )


@register.simple_tag
def reading_time(minutes: int) -> str:
    """An estimated reading time: "about 45 min", "about 3 h 20 min" (rounded to 5 minutes
    from an hour on)."""
    if minutes < 60:
        return _("about %(m)d min") % {"m": minutes}
    minutes = 5 * round(minutes / 5)
    hours, rest = divmod(minutes, 60)
    if not rest:
        return _("about %(h)d h") % {"h": hours}
    return _("about %(h)d h %(m)d min") % {"h": hours, "m": rest}
