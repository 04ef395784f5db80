"""The API's one JSON parser: a bad body is a ``400 parse_error``, never a 500.

Besides DRF's checks it refuses what ``json`` lets through and fails later: bodies nested past
``JSON_MAX_DEPTH`` (or deep enough for ``RecursionError``) and lone surrogates (no UTF-8 form).
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
    """Why a parsed JSON value may not go further, or None (iterative: no stack to exhaust)."""
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
