"""Writes of per-module course admins (``ModuleAdministrator``)."""

from __future__ import annotations

from django.db import transaction

from courses.models import ModuleAdministrator


@transaction.atomic
def module_administrator_ensure(*, user_id: int, module_id: int, source: str) -> bool:
    """Make the user an administrator of the module; True when the row is new. An existing
    row keeps its source (an admin's assignment stays the admin's)."""
    _row, created = ModuleAdministrator.objects.get_or_create(
        user_id=user_id, module_id=module_id, defaults={"source": source}
    )
    return created
