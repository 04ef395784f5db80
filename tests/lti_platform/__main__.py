"""Run the test platform: ``python -m tests.lti_platform --port P --issuer URL --state-dir DIR``.

A threaded stdlib WSGI server; SIGTERM or Ctrl-C stop it. The state and the platform key live
in the state folder (created when missing).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from tests.lti_platform.app import PlatformApp
from tests.lti_platform.lti import PlatformKey
from tests.lti_platform.state import PlatformState


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    """One thread per request: the browser, the tool's back channel and the tests at once."""

    daemon_threads = True
    allow_reuse_address = True


class QuietHandler(WSGIRequestHandler):
    """Request lines to stderr (the fixture keeps them in the log), without reverse DNS."""

    def address_string(self) -> str:
        return self.client_address[0]


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve until SIGTERM or Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--issuer", required=True, help="e.g. http://localhost:8340")
    parser.add_argument("--state-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    args.state_dir.mkdir(parents=True, exist_ok=True)
    issuer = args.issuer.rstrip("/")
    app = PlatformApp(
        issuer=issuer,
        state=PlatformState(args.state_dir, issuer=issuer),
        key=PlatformKey.load_or_create(args.state_dir),
    )
    server = make_server(
        args.host, args.port, app, server_class=ThreadingWSGIServer, handler_class=QuietHandler
    )
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    print(f"LTI test platform {issuer} on {args.host}:{args.port}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
