"""A module's content version (the key of its cached content) and the recorded manifests a
bundle delta starts from."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.utils import timezone

from courses.models import Module, ModuleContentVersion
from courses.selectors import ModuleManifest


def module_content_version_renew(*, module_ids: Iterable[int]) -> None:
    """Give each of these modules a new content version after a write of its content."""
    Module.objects.filter(pk__in=list(module_ids)).update(content_version=uuid.uuid4())


def module_version_record(*, manifest: ModuleManifest) -> None:
    """Keep what the manifest's version is made of (an insert that ignores conflicts)."""
    ModuleContentVersion.objects.bulk_create(
        [
            ModuleContentVersion(
                module_id=manifest.module_id,
                version=manifest.version,
                manifest=manifest.items,
                created_at=timezone.now(),
            )
        ],
        ignore_conflicts=True,
    )
