"""Helpers for the serializers that write their output directly (the hot read endpoints).

They must give exactly what DRF's fields give; the tests of those serializers compare both.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from django.utils import timezone


def datetime_formatter() -> Callable[[datetime.datetime | None], str | None]:
    """DRF's DateTimeField output (ISO 8601 in the current time zone, UTC as ``Z``), with the
    time zone looked up once per response instead of once per value."""
    zone = timezone.get_current_timezone()

    def iso(value: datetime.datetime | None) -> str | None:
        if value is None:
            return None
        text = value.astimezone(zone).isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text

    return iso
