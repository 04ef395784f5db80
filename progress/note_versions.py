"""The version of a learner's notes on a step (their ETag): plain Python, no queries.

A hash of the texts by prompt, so it changes exactly when a text does, is the same in every
process, and needs no column: the service compares it under the step's lock.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping


def notes_etag(texts: Mapping[str, str]) -> str:
    """The quoted ETag of the notes ``texts`` (prompt → text; a missing prompt is "")."""
    payload = json.dumps(
        {prompt: text for prompt, text in texts.items() if text}, sort_keys=True
    ).encode()
    return f'"n{hashlib.sha256(payload).hexdigest()[:23]}"'
