"""Free TCP ports on loopback for the servers a test starts.

``LERNPFAD_TEST_PORTS=18000-18099`` keeps them in a range (a machine shared by several test runs
gives each its own); without it the system picks a free port.
"""

from __future__ import annotations

import os
import random
import socket


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A port nothing listens on now (a server started right after may still lose a race)."""
    span = os.environ.get("LERNPFAD_TEST_PORTS", "")
    if span:
        low, _, high = span.partition("-")
        candidates = list(range(int(low), int(high or low) + 1))
        # A random order: two runs that share the range rarely try the same port first.
        random.shuffle(candidates)
        for port in candidates:
            if _bindable(port):
                return port
        raise RuntimeError(f"no free port in LERNPFAD_TEST_PORTS={span}")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
