"""The HTML an exam item may hold (GIFT's ``[html]`` texts): sanitised with nh3, never
stripped, so formatting survives and scripts or event handlers do not. Plain Python."""

from __future__ import annotations

import nh3

# Text formatting a question needs; no media, links or tables (an image would not reach the
# learner's offline copy, and a link leads out of the exam).
ITEM_TAGS = frozenset(
    {
        "p", "br", "b", "strong", "i", "em", "u", "s", "sub", "sup", "code", "pre", "kbd",
        "ul", "ol", "li", "blockquote", "span",
    }
)  # fmt: skip


def item_html_clean(html: str) -> str:
    """``html`` with only the tags above and no attributes: ``<script>``, ``onerror=`` and the
    like are removed, ``<b>``, ``<code>``, ``<pre>`` and lists are kept."""
    return nh3.clean(html, tags=set(ITEM_TAGS), attributes={}, strip_comments=True).strip()
