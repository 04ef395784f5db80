"""gunicorn's settings wherever Lernpfad's web process runs: docker-compose, the Dockerfile and
the benchmark (``gunicorn -c python:lms.gunicorn_conf lms.wsgi:application``).

Command-line options still override these (the benchmark binds to a free loopback port).
"""

import gc
import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# Sync workers, one per core by default. On one server that also runs PostgreSQL, Redis and
# Celery, more only added context switches: in the benchmark (bench/README.md, one 8-second
# round each) the token floor served 1,725 req/s with 2 workers on 2 cores, 1,486 with 3 and
# 1,386 with 5, and every endpoint lost likewise; the writes too, though each waits ~2.3 ms for
# its commit to reach this machine's disk (reviews: 516-536 req/s with 2 workers, 423-657 with
# 3, 447-478 with 4; 2026-12-02, alternating runs). A host that runs only gunicorn, with the
# database elsewhere, keeps its cores busy while workers wait for PostgreSQL with more:
# gunicorn's rule of thumb is 2 per core + 1.
# WEB_CONCURRENCY sets the number (the common name for it on PaaS hosts).
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
accesslog = "-"

# gunicorn 25.1+ opens a control socket for ``gunicornc``, by default at one path per user
# ($XDG_RUNTIME_DIR/gunicorn.ctl, else ~/.gunicorn/gunicorn.ctl). A second instance on the host
# deletes the first one's socket and takes the path over, and whichever stops first deletes the
# other's: two instances (two projects, a blue/green deploy, the benchmark beside a server)
# collided. An instance gets a control socket only at a path of its own, from
# GUNICORN_CONTROL_SOCKET; without it none, as the containers are run by their runtime, not by
# gunicornc. Older gunicorns ignore both settings.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket


def post_worker_init(worker) -> None:
    """Once a worker has loaded Django: move everything loaded so far (modules, settings, URL
    patterns, templates) out of the cyclic garbage collector's sight. They live as long as the
    worker, and the collector otherwise walks all of them again in each full collection."""
    gc.freeze()
