"""Benchmark settings: the production settings, the benchmark's own database and the floor route.

Everything that production reads from the environment is given a bench-only value here, so the
harness runs the production middleware, authentication and throttles exactly as deployed. Only
what a benchmark must change is changed, and each change says why.
"""

import os

from django.core.exceptions import ImproperlyConfigured

# The benchmark's database. It is created and DROPPED by the harness, so it is never taken from
# DATABASE_URL (which may name the real or the CI database).
BENCH_DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/lernpfad_bench"
)
os.environ["DATABASE_URL"] = BENCH_DATABASE_URL
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-key-" + "x" * 50)
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")
# Its own Redis database number too: messages the planner probe enqueues must not reach a
# worker of another checkout (they are counted and purged).
BENCH_CELERY_BROKER_URL = os.environ.get("BENCH_CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
os.environ["CELERY_BROKER_URL"] = BENCH_CELERY_BROKER_URL
# wrk speaks plain HTTP to gunicorn; in production TLS ends at the proxy in front.
os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "False"
# The throttles stay in the request path (their cache look-ups are part of the cost), but with
# rates no benchmark reaches: one load generator is not one abusive learner.
for _scope in ("THROTTLE_LOGIN", "THROTTLE_EXAM", "THROTTLE_REVIEW"):
    os.environ[_scope] = "100000000/min"
os.environ.setdefault("LOG_LEVEL", "WARNING")

from lms.settings.production import *  # noqa: E402, F403
from lms.settings.production import DATABASES  # noqa: E402

if "bench" not in DATABASES["default"]["NAME"]:
    # The harness drops and re-creates this database; refuse anything not named for it.
    raise ImproperlyConfigured("BENCH_DATABASE_URL must name a database with 'bench' in its name.")

# The floor views live in bench.urls, in front of the project's routes.
ROOT_URLCONF = "bench.urls"
# Django's test client (used to count queries) sends Host: testserver.
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]  # noqa: F405
