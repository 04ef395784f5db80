"""Text that can be stored: the rule every input path applies to strings it keeps or looks up.

PostgreSQL's text types cannot hold NUL (the driver refuses the whole statement), and a lone
surrogate (``"\\ud800"``, which JSON escapes can produce) is no character and has no UTF-8 form.
Either one in a looked-up value or a stored one was a 500; checked here, it is a 4xx.
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
