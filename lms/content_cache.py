"""Per-process caches of values derived from course content, keyed by the content's own hashes.

A key is a content hash (a step's ETag, the hashes of a module's active steps), so an entry is
never stale: content that changes gets a new hash, hence a new key, and the old entry is simply
never asked for again. There is nothing to invalidate and nothing the web processes must agree
on (README, "Scaling out"). Each cache is bounded; when full it starts over.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

_caches: list[ContentCache] = []


class ContentCache:
    """A bounded dict for values that are a pure function of their (content-hash) key."""

    def __init__(self, *, name: str, max_entries: int) -> None:
        self.name = name
        self.max_entries = max_entries
        self._entries: dict[Hashable, Any] = {}
        _caches.append(self)

    def get(self, key: Hashable) -> Any | None:
        return self._entries.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        if len(self._entries) >= self.max_entries:
            self._entries.clear()
        self._entries[key] = value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def content_caches_clear() -> None:
    """Empty every content cache of this process (tests that count queries start cold)."""
    for cache in _caches:
        cache.clear()
