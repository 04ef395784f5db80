"""Celery beat's scheduler: django-celery-beat's DatabaseScheduler that also touches a heartbeat
file after every tick, so the container's healthcheck (``python -m lms.healthcheck beat``) can
tell a beat whose loop runs from one that hangs or died.

The schedule itself still lives in the database (``lms/periodic_tasks.py``). The scheduler ticks
at least every 5 seconds (django-celery-beat's maximum interval), whether or not a task is due.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django_celery_beat.schedulers import DatabaseScheduler


class DatabaseSchedulerWithHeartbeat(DatabaseScheduler):
    """DatabaseScheduler, plus ``LERNPFAD_BEAT_HEARTBEAT_FILE`` touched after each tick (when
    that setting names a file; ``make run`` sets none)."""

    def tick(self, *args, **kwargs):
        interval = super().tick(*args, **kwargs)
        heartbeat = settings.LERNPFAD_BEAT_HEARTBEAT_FILE
        if heartbeat:
            Path(heartbeat).touch()
        return interval
