"""Helpers for the learner data export (GET /api/v1/me/export/) that every app's api.py uses.

An export must hold everything stored about the learner, including columns added later, so rows
are exported with all their concrete columns except the ones named as secret or not the
learner's (an answer key, a token digest). This is the one place that does not list fields one
by one: forgetting a new column here would silently make the export incomplete.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Model, QuerySet


def export_fields(model: type[Model], *, exclude: Iterable[str] = ()) -> list[str]:
    """The attribute names of the model's concrete columns (``step_id`` for a foreign key)."""
    skipped = set(exclude)
    return [
        field.attname
        for field in model._meta.concrete_fields
        if field.name not in skipped and field.attname not in skipped
    ]


def export_rows(
    queryset: QuerySet, *, exclude: Iterable[str] = (), context: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Every row of the queryset as a dict of its columns, in primary-key order: one query.

    ``context`` adds looked-up values that make a row readable (``step__term``), joined in.
    """
    fields = [*export_fields(queryset.model, exclude=exclude), *context]
    return list(queryset.order_by("pk").values(*fields))
