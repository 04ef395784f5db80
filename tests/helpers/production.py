"""The environment of a process a test starts on production settings (gunicorn, a worker)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import quote

from django.db import connection

SECRET_KEY = "production-test-" + "s" * 50


def database_url() -> str:
    """The test database as a DATABASE_URL, for a process of its own."""
    db = connection.settings_dict
    user = quote(db["USER"] or "")
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    host = db["HOST"] or "localhost"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{quote(db['NAME'])}"


def production_env(base: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """``base`` (this process's environment by default) without its Django, database and broker
    settings, on lms.settings.production with the test database, ``SECRET_KEY``, an in-memory
    broker and plain HTTP on loopback (TLS ends at the proxy in front); ``extra`` on top."""
    excluded = ("DJANGO_", "DATABASE_", "CELERY_")
    env = {k: v for k, v in (base or os.environ).items() if not k.startswith(excluded)}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings.production",
        DJANGO_SECRET_KEY=SECRET_KEY,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=database_url(),
        CELERY_BROKER_URL="memory://",
        DJANGO_SECURE_SSL_REDIRECT="false",
    )
    env.update(extra)
    return env
