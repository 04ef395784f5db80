"""Per-process caches of course content, so the busiest reads skip the database.

Two kinds, both bounded (when full they start over), neither needing the web processes to agree
(README, "Scaling out"):

- ``ContentCache``: keyed by a content hash (a step's ETag, the hashes of a module's active
  steps). An entry is never stale: content that changes gets a new hash, hence a new key.
- ``ShortLivedCache``: what the current content hash *is* (a step's ETag by module and number).
  An entry lives ``max_age`` seconds, so a change made by another process (an import, an admin
  edit) is served everywhere within that time; this process forgets at once
  (``content_changed``).
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

_caches: list[ContentCache | ShortLivedCache] = []


def _now() -> float:
    """The clock ShortLivedCache entries expire by (tests stop it, so that what a test counts
    does not depend on how fast the machine runs it)."""
    return time.monotonic()


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


class ShortLivedCache:
    """A bounded dict whose entries are trusted for ``max_age`` seconds after they were read."""

    def __init__(self, *, name: str, max_entries: int, max_age: float) -> None:
        self.name = name
        self.max_entries = max_entries
        self.max_age = max_age
        self._entries: dict[Hashable, tuple[float, Any]] = {}
        _caches.append(self)

    def get(self, key: Hashable) -> Any | None:
        entry = self._entries.get(key)
        if entry is None or entry[0] < _now():
            return None
        return entry[1]

    def put(self, key: Hashable, value: Any) -> None:
        if len(self._entries) >= self.max_entries:
            self._entries.clear()
        self._entries[key] = (_now() + self.max_age, value)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def content_changed() -> None:
    """Course content was written in this process: forget what may have changed at once."""
    for cache in _caches:
        if isinstance(cache, ShortLivedCache):
            cache.clear()


def content_caches_clear() -> None:
    """Empty every content cache of this process (tests that count queries start cold)."""
    for cache in _caches:
        cache.clear()
