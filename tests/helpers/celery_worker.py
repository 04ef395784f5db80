"""A real Celery worker in a thread, consuming from the configured broker (Redis) on a queue of
its own, so parallel test runs and a dev worker on the same Redis never take each other's tasks.
The app is made current, so ``task.delay()`` anywhere in this process (the live server's
threads too) goes to that queue."""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import Iterator
from types import SimpleNamespace

from celery import Celery, signals
from celery import _state as celery_state
from celery.contrib.testing.worker import start_worker


@contextlib.contextmanager
def celery_worker_thread(name: str) -> Iterator[SimpleNamespace]:
    """The worker's app, queue and the (task name, task id, state) of every task it ran."""
    previous_env = os.environ.get("CELERY_SKIP_CHECKS")
    # The suite runs the system checks itself; the worker's Django fixup need not repeat them.
    os.environ["CELERY_SKIP_CHECKS"] = "1"
    previous_current, previous_default = celery_state.get_current_app(), celery_state.default_app
    app = Celery("lernpfad-test", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    queue = f"lernpfad-test-{name}-{uuid.uuid4().hex[:12]}"
    app.conf.task_default_queue = queue
    assert app.conf.broker_url.startswith("redis://"), app.conf.broker_url

    done: list[tuple[str, str, str]] = []
    lock = threading.Lock()

    def on_postrun(sender=None, task_id=None, task=None, state=None, **kwargs):
        with lock:
            done.append((task.name, task_id, state))

    signals.task_postrun.connect(on_postrun, weak=False)
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            app.set_current()
            yield SimpleNamespace(app=app, queue=queue, done=done, lock=lock)
    finally:
        signals.task_postrun.disconnect(on_postrun)
        with app.connection_for_write() as connection:
            connection.default_channel.queue_delete(queue)
        celery_state.set_default_app(previous_default)
        previous_current.set_current()
        if previous_env is None:
            os.environ.pop("CELERY_SKIP_CHECKS", None)
        else:
            os.environ["CELERY_SKIP_CHECKS"] = previous_env
