"""Helpers for the learner data export that every app's api.py uses: all concrete columns
except named secrets, so a column added later cannot be left out of the export by mistake.
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
