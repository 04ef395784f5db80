"""What the strict Content-Security-Policy (no 'unsafe-inline') would block in a page."""

from __future__ import annotations

import re

INLINE = [
    ("inline script", re.compile(r"<script\b(?![^>]*\ssrc=)[^>]*>\s*\S", re.S)),
    ("style attribute", re.compile(r"<[a-zA-Z][^>]*\sstyle=")),
    ("event handler", re.compile(r"<[a-zA-Z][^>]*\son[a-z]+=")),
    ("style element", re.compile(r"<style\b")),
]


def csp_violations(html: str) -> list[str]:
    """The kinds of inline code in ``html``, by name ("inline script", "style attribute" …)."""
    return [name for name, pattern in INLINE if pattern.search(html)]
