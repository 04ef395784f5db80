"""gunicorn's settings wherever Lernpfad's web process runs: docker-compose, the Dockerfile and
the benchmark (``gunicorn -c python:lms.gunicorn_conf lms.wsgi:application``).

Command-line options still override these (the benchmark binds to a free loopback port).
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# Sync workers: each serves one request at a time and waits while PostgreSQL answers (a write
# waits for the commit to reach the disk). gunicorn's rule of thumb, 2 workers per core plus one,
# keeps the cores busy meanwhile. WEB_CONCURRENCY overrides it (the common name for it on PaaS).
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
accesslog = "-"
