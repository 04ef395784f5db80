"""A module's content versions: the one cached content is keyed by (renewed on every write of
the module's content), and the recorded manifests a bundle delta starts from
(``GET /api/v1/modules/{module}/bundle/?since=<version>``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.utils import timezone

from courses.models import Module, ModuleContentVersion
from courses.selectors import ModuleManifest


def module_content_version_renew(*, module_ids: Iterable[int]) -> None:
    """The content of these modules changed (an import, an admin edit): give each a new
    version, so that every host reads their content anew (``courses.selectors``)."""
    Module.objects.filter(pk__in=list(module_ids)).update(content_version=uuid.uuid4())


def module_version_record(*, manifest: ModuleManifest) -> None:
    """Keep what the manifest's version is made of (one INSERT … ON CONFLICT DO NOTHING). The
    row is a pure function of the content: reading a bundle records nothing of the reader."""
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
