"""Celery beat's scheduler: django-celery-beat's DatabaseScheduler that also touches a heartbeat
file after every tick, so the container's healthcheck (``python -m lms.healthcheck beat``) can
tell a beat whose loop runs from one that hangs or died, and that stops on SIGTERM whenever the
signal comes.

The schedule itself still lives in the database (``lms/periodic_tasks.py``). The scheduler ticks
at least every 5 seconds (django-celery-beat's maximum interval), whether or not a task is due.

Stopping: Celery's SIGTERM/SIGINT handler saves the schedule (``close()``) right where the signal
finds the main thread, then raises SystemExit, and the beat loop's ``finally`` calls ``close()``
once more. If the signal comes while the beat waits on the database (each tick reads the
schedule's change marker), psycopg's connection lock is held by the interrupted query and is not
re-entrant: saving from the handler would wait on it for ever, and ``docker stop`` would end the
beat with SIGKILL after its grace period (issue 20's CI run caught a beat that hung so). Here the
handler's ``close()`` leaves the saving to the second call; that one first drops the connection
the interrupted query left mid-command and saves on a new one.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection
from django_celery_beat.schedulers import DatabaseScheduler
from psycopg import pq


def _connection_lock_held() -> bool:
    """Whether this thread's database connection is inside a call (its lock taken): true only
    in a signal handler that interrupted a query, since the beat uses its connection from the
    main thread alone."""
    raw = connection.connection
    lock = getattr(raw, "lock", None)
    return lock is not None and lock.locked()


def _connection_left_mid_command() -> bool:
    raw = connection.connection
    pgconn = getattr(raw, "pgconn", None)
    return pgconn is not None and pgconn.transaction_status == pq.TransactionStatus.ACTIVE


class DatabaseSchedulerWithHeartbeat(DatabaseScheduler):
    """DatabaseScheduler, plus ``LERNPFAD_BEAT_HEARTBEAT_FILE`` touched after each tick (when
    that setting names a file; ``make run`` sets none), and a ``close()`` a signal cannot
    deadlock (module docstring)."""

    def tick(self, *args, **kwargs):
        interval = super().tick(*args, **kwargs)
        heartbeat = settings.LERNPFAD_BEAT_HEARTBEAT_FILE
        if heartbeat:
            Path(heartbeat).touch()
        return interval

    def close(self):
        if _connection_lock_held():
            # Called from the signal handler inside a query: the handler's SystemExit unwinds
            # the query, and the beat loop's ``finally`` calls close() again.
            return
        if _connection_left_mid_command():
            with contextlib.suppress(DatabaseError):
                connection.close()
        super().close()
