"""The version (ETag) of a learner's notes on a step: a hash of the texts and when they were
last written, so it needs no column. Plain Python.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Mapping


def notes_etag(texts: Mapping[str, str], updated_at: datetime.datetime | None) -> str:
    """The quoted ETag of the notes ``texts`` (prompt → text; a missing prompt is "") last
    written at ``updated_at`` (part of the body, so part of its version)."""
    payload = json.dumps(
        {
            "texts": {prompt: text for prompt, text in texts.items() if text},
            "updated_at": updated_at.isoformat() if updated_at else None,
        },
        sort_keys=True,
    ).encode()
    return f'"n{hashlib.sha256(payload).hexdigest()[:23]}"'
