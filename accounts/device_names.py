"""A device's name from its User-Agent, for a log-in that gives no ``device_name``: the device
list then says "Firefox on Android" or "okhttp/4.12.0" instead of nothing. Pure rules, no
request: the caller passes the header."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

# First match wins: Edge and Opera also say "Chrome", Chrome also says "Safari", an iPhone and
# an Android phone also say "Linux" or "Mac OS X".
_BROWSERS = (
    ("Edge", r"\bEdg(?:e|A|iOS)?/"),
    ("Opera", r"\b(?:OPR|Opera)/"),
    ("Samsung Internet", r"\bSamsungBrowser/"),
    ("Firefox", r"\b(?:Firefox|FxiOS)/"),
    ("Chrome", r"\b(?:Chrome|CriOS)/"),
    ("Safari", r"\bVersion/[\d.]+.*\bSafari/"),
)
_SYSTEMS = (
    ("Android", r"\bAndroid\b"),
    ("iPadOS", r"\biPad\b"),
    ("iOS", r"\b(?:iPhone|iPod)\b"),
    ("ChromeOS", r"\bCrOS\b"),
    ("Windows", r"\bWindows\b"),
    ("macOS", r"\bMac OS X\b|\bMacintosh\b"),
    ("Linux", r"\bLinux\b"),
)
# A client library or app: its first product token ("okhttp/4.12.0", "Dart/3.5 (dart:io)").
_PRODUCT = re.compile(r"^[A-Za-z][\w.+-]*(?:/[\w.+-]+)?")


def _first(rules: tuple[tuple[str, str], ...], user_agent: str) -> str:
    return next((name for name, pattern in rules if re.search(pattern, user_agent)), "")


def device_name_from_user_agent(user_agent: str, *, max_length: int) -> str:
    """The name: "Firefox on Android", a browser or a system alone, else the first product token,
    else "Unknown device"; never empty, at most ``max_length`` characters."""
    user_agent = user_agent.strip()
    browser, system = _first(_BROWSERS, user_agent), _first(_SYSTEMS, user_agent)
    if browser and system:
        name = _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    elif browser or system:
        name = browser or system
    else:
        # "Mozilla/5.0" says nothing: every browser sends it.
        product = _PRODUCT.match(user_agent)
        name = product.group(0) if product and not product.group(0).startswith("Mozilla") else ""
    return (name or _("Unknown device"))[:max_length]
