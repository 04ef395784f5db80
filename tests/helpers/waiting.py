"""Waiting for another process: a worker, a server, a mail."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any


def wait_until(
    predicate: Callable[[], Any],
    *,
    timeout: float = 60,
    what: str = "",
    logs: Iterable[Any] = (),
    step: float = 0.1,
) -> None:
    """Return once ``predicate()`` holds; after ``timeout`` seconds (a step that takes a minute
    is stuck) fail with ``what`` and the ``tail()`` of each process in ``logs``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(step)
    tails = "\n".join(process.tail() for process in logs)
    raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}\n{tails}")
