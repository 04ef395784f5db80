"""Free TCP ports for the servers a test starts.

``LERNPFAD_TEST_PORTS=18000-18099`` keeps them in a range (a machine shared by several test runs
gives each its own); without it the system picks a free port.
"""

from __future__ import annotations

import os
import random
import socket

# Ports this test process handed out: a server may not have bound its port yet when the next
# one asks for a free port.
_handed_out: set[int] = set()


def _bindable(port: int, host: str) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on at ``host`` now ("0.0.0.0": on every address) and not handed
    out before in this process (a server started right after may still lose a race)."""
    span = os.environ.get("LERNPFAD_TEST_PORTS", "")
    if span:
        low, _, high = span.partition("-")
        candidates = list(range(int(low), int(high or low) + 1))
        # A random order: two runs that share the range rarely try the same port first.
        random.shuffle(candidates)
        port = next((p for p in candidates if p not in _handed_out and _bindable(p, host)), None)
        if port is None:
            raise RuntimeError(f"no free port in LERNPFAD_TEST_PORTS={span}")
    else:
        with socket.socket() as sock:
            sock.bind((host, 0))
            port = sock.getsockname()[1]
    _handed_out.add(port)
    return port
