"""Text that can be stored: PostgreSQL text cannot hold NUL and a lone surrogate has no UTF-8
form, so every input path checks strings with these and answers a 4xx, not a 500.
"""

from __future__ import annotations


def text_is_unicode(text: str) -> bool:
    """False for a string with a lone surrogate."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_is_storable(text: str) -> bool:
    """No NUL and no lone surrogate."""
    return "\x00" not in text and text_is_unicode(text)
