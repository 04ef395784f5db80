"""gunicorn's settings wherever the web process runs (``gunicorn -c python:lms.gunicorn_conf``);
command-line options override them."""

import gc
import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# Sync workers, one per core: on a server that also runs PostgreSQL, Redis and Celery more
# workers only add context switches (bench/README.md). WEB_CONCURRENCY overrides it.
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
accesslog = "-"

# gunicorn 25.1+ opens a control socket at one path per user, which a second instance on the
# host would take over and delete: only at a path of its own (GUNICORN_CONTROL_SOCKET), else none.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket


def post_worker_init(worker) -> None:
    """Hide what the worker loaded at start (it lives as long as the worker) from the cyclic
    garbage collector, which would otherwise walk it again in each full collection."""
    gc.freeze()
