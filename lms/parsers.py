"""The API's one JSON parser: a bad body is a ``400 parse_error``, never a 500.

DRF's own JSONParser turns a ``ValueError`` into a ParseError, but ``json`` raises
``RecursionError`` for a body nested about a thousand levels deep (``[`` × 10,000 on a notes
``PUT`` was a 500), and it accepts ``"\\ud800"``: a lone surrogate, which is no character, cannot be
encoded as UTF-8 and failed later in the database driver. This parser rejects both, and any body
nested deeper than ``JSON_MAX_DEPTH`` (no request of this API needs more than four levels), before
a serializer or a service walks it.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from lms.text import text_is_unicode

# The deepest body the API takes is four levels ({"answers": [{"selected": ["a"]}]}); 32 leaves
# room for clients that wrap, and stays far below Python's recursion limit.
JSON_MAX_DEPTH = 32


def json_problem(value: Any) -> str | None:
    """Why a parsed JSON value may not go further (too deep, a lone surrogate), or None.

    Iterative, so a deep value cannot exhaust the stack here either.
    """
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, dict):
            if depth > JSON_MAX_DEPTH:
                return _too_deep()
            for key, child in node.items():
                if not text_is_unicode(key):
                    return _lone_surrogate()
                pending.append((child, depth + 1))
        elif isinstance(node, list):
            if depth > JSON_MAX_DEPTH:
                return _too_deep()
            pending.extend((child, depth + 1) for child in node)
        elif isinstance(node, str) and not text_is_unicode(node):
            return _lone_surrogate()
    return None


class JSONBodyParser(JSONParser):
    """DRF's JSONParser, plus: too deep, ``RecursionError`` and lone surrogates → ParseError."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            value = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(_too_deep()) from exc
        problem = json_problem(value)
        if problem is not None:
            raise ParseError(problem)
        return value


def _too_deep() -> str:
    return _("The JSON is nested deeper than %(depth)d levels.") % {"depth": JSON_MAX_DEPTH}


def _lone_surrogate() -> str:
    return _("The JSON contains a lone surrogate (\\ud800–\\udfff), which is not a character.")
