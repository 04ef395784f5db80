"""The compose healthchecks ``python -m lms.healthcheck web|beat``, without starting Django.

``web``: ``/health/ready/`` on gunicorn's bind address answers 200. ``beat``: the heartbeat file
(``lms/beat.py``) changed in the last ``BEAT_HEARTBEAT_MAX_AGE`` seconds.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.error
import urllib.request

from lms.gunicorn_conf import bind

# The beat ticks at least every 5 s; a minute without one is a hung or dead beat.
BEAT_HEARTBEAT_MAX_AGE = 60
WEB_TIMEOUT = 4  # seconds; compose's healthcheck timeout is 5
WILDCARD_HOSTS = ("", "0.0.0.0", "::", "[::]")


def web_readiness_url(gunicorn_bind: str | None = None) -> str:
    """The readiness URL on the loopback side of gunicorn's bind address (``host:port``)."""
    host, _, port = (gunicorn_bind or bind).rpartition(":")
    if host in WILDCARD_HOSTS:
        host = "127.0.0.1"
    return f"http://{host}:{port}/health/ready/"


def web_check() -> str | None:
    """None when the readiness endpoint answers 200, else why not."""
    url = web_readiness_url()
    try:
        with urllib.request.urlopen(url, timeout=WEB_TIMEOUT) as response:
            return None if response.status == 200 else f"{url}: {response.status}"
    except urllib.error.HTTPError as exc:  # 503 and its body (which check failed)
        return f"{url}: {exc.code} {exc.read(500).decode(errors='replace')}"
    except OSError as exc:
        return f"{url}: {exc}"


def beat_check() -> str | None:
    """None when the beat's heartbeat file is fresh, else why not."""
    path = os.environ.get("LERNPFAD_BEAT_HEARTBEAT_FILE", "")
    if not path:
        return "LERNPFAD_BEAT_HEARTBEAT_FILE is not set"
    try:
        age = time.time() - os.stat(path).st_mtime
    except OSError as exc:
        return f"no heartbeat yet: {exc}"
    return None if age <= BEAT_HEARTBEAT_MAX_AGE else f"last heartbeat {age:.0f} s ago"


CHECKS = {"web": web_check, "beat": beat_check}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in CHECKS:
        print(f"usage: python -m lms.healthcheck {'|'.join(CHECKS)}", file=sys.stderr)
        return 2
    problem = CHECKS[argv[0]]()
    if problem:
        print(f"{argv[0]} unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
