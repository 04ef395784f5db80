"""Recording a module's content versions, so a bundle can later send only what changed since
one (``GET /api/v1/modules/{module}/bundle/?since=<version>``)."""

from __future__ import annotations

from django.utils import timezone

from courses.models import ModuleContentVersion
from courses.selectors import ModuleManifest
from lms.content_cache import ContentCache

# The versions this process has recorded: each is written once, so a warm bundle read writes
# nothing. A version is a hash of its manifest, so an entry is never stale.
_recorded = ContentCache(name="recorded module versions", max_entries=2000)


def module_version_record(*, manifest: ModuleManifest) -> None:
    """Keep what the manifest's version is made of (one INSERT … ON CONFLICT DO NOTHING the
    first time this process sees the version, nothing after). The row is a pure function of
    the content, like a cache entry that does not expire: reading a bundle records nothing of
    the reader."""
    key = (manifest.module_id, manifest.version)
    if _recorded.get(key):
        return
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
    _recorded.put(key, True)
