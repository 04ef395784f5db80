"""Celery beat's DatabaseScheduler plus a heartbeat file touched after every tick (for
``python -m lms.healthcheck beat``) and a ``close()`` that SIGTERM cannot deadlock.

If the signal interrupts a query, psycopg's connection lock is held and not re-entrant: the
handler's ``close()`` leaves the saving to the beat loop's second call, which first drops the
connection the interrupted query left mid-command.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection
from django_celery_beat.schedulers import DatabaseScheduler
from psycopg import pq


def _connection_lock_held() -> bool:
    """True only in a signal handler that interrupted a query (the beat has one thread)."""
    raw = connection.connection
    lock = getattr(raw, "lock", None)
    return lock is not None and lock.locked()


def _connection_left_mid_command() -> bool:
    raw = connection.connection
    pgconn = getattr(raw, "pgconn", None)
    return pgconn is not None and pgconn.transaction_status == pq.TransactionStatus.ACTIVE


class DatabaseSchedulerWithHeartbeat(DatabaseScheduler):
    """Touches ``LERNPFAD_BEAT_HEARTBEAT_FILE`` (if set) after each tick; see the module doc."""

    def tick(self, *args, **kwargs):
        interval = super().tick(*args, **kwargs)
        heartbeat = settings.LERNPFAD_BEAT_HEARTBEAT_FILE
        if heartbeat:
            Path(heartbeat).touch()
        return interval

    def close(self):
        if _connection_lock_held():
            # The beat loop's ``finally`` calls close() again once the query is unwound.
            return
        if _connection_left_mid_command():
            with contextlib.suppress(DatabaseError):
                connection.close()
        super().close()
