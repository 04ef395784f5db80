"""Template helpers: the progress ring, a few small formatters and the cache of
learner-independent HTML fragments (``content_fragment``)."""

from __future__ import annotations

import math

import segno
from django import template
from django.template import Context
from django.template.defaulttags import CsrfTokenNode
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from lms.content_cache import ContentCache

register = template.Library()

# Rendered HTML of learner-independent page parts (a step's sections, a module's outline rows),
# by what they are a pure function of: rendering them on every request was most of the reading
# pages' CPU (bench.profile web_step, web_module: URL reversals, translations, localized numbers
# and ~10,000 variable look-ups a page). Never stale: the key holds the content's render key
# (a hash of everything shown, courses.selectors), the language and the time zone.
_fragments = ContentCache(name="HTML fragments", max_entries=20_000)

# A {% csrf_token %} inside a fragment is the request's own: the fragment is rendered with a
# placeholder token, and every use puts in the hidden input {% csrf_token %} renders for this
# request (one token for the whole page: Django's context processor reads it once a request).
# No text that can be stored holds a NUL (lms.text), so the placeholder never meets content.
_CSRF_NODE = CsrfTokenNode()
_CSRF_PLACEHOLDER = "\x00csrf\x00"
_CSRF_PLACEHOLDER_INPUT = _CSRF_NODE.render(Context({"csrf_token": _CSRF_PLACEHOLDER}))


class ContentFragmentNode(template.Node):
    def __init__(self, nodelist, name: str, vary: list) -> None:
        self.nodelist = nodelist
        self.name = name
        self.vary = vary

    def render(self, context) -> str:
        values = tuple(value.resolve(context) for value in self.vary)
        if not values[0]:
            # No render key (the admin's preview builds its own context): rendered as is.
            return self.nodelist.render(context)
        key = (self.name, values, get_language(), timezone.get_current_timezone_name())
        html = _fragments.get(key)
        if html is None:
            with context.push(csrf_token=_CSRF_PLACEHOLDER):
                html = self.nodelist.render(context)
            _fragments.put(key, html)
        if _CSRF_PLACEHOLDER_INPUT in html:
            html = mark_safe(html.replace(_CSRF_PLACEHOLDER_INPUT, _CSRF_NODE.render(context)))
        return html


@register.tag
def content_fragment(parser, token):
    """``{% content_fragment "name" render_key [more values] %}…{% endcontent_fragment %}``:
    the enclosed HTML rendered once per name, values, language and time zone, then reused.

    Only for what is the same for every reader: the first value must be a render key that
    changes with everything the fragment shows (an empty one renders without the cache), the
    others tell apart the places one template uses it (a section's position) and name what of
    the learner it shows (a status, the ratings). Nothing else of the learner (a note) may be
    inside; a ``{% csrf_token %}`` may: it is filled in for each request.
    """
    bits = token.split_contents()
    if len(bits) < 3 or bits[1][0] not in "\"'" or bits[1][0] != bits[1][-1]:
        raise template.TemplateSyntaxError(
            f"'{bits[0]}' takes a quoted name, a render key and optional values"
        )
    nodelist = parser.parse(("endcontent_fragment",))
    parser.delete_first_token()
    vary = [parser.compile_filter(bit) for bit in bits[2:]]
    return ContentFragmentNode(nodelist, bits[1][1:-1], vary)


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
