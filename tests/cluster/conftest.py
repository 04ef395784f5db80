"""The cluster of tests/cluster/hosts.py, started once per test session.

Every test here is marked ``cluster`` and ``slow`` (select them with ``-m cluster``). Without root,
``ip``, Caddy, PgBouncer or Redis they are skipped; under LERNPFAD_REQUIRE_SERVICES=1 (CI) they
fail instead. The cluster is torn down (every PID, the namespaces, the bridge) when the session
ends, also after a failed test or a failed start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster.hosts import Cluster, requirements_missing
from tests.conftest import _missing
from tests.mail_sink import MessageSink

HERE = Path(__file__).resolve().parent

# Small budgets, so a test reaches them in a few requests (the production defaults are larger).
THROTTLES = {
    "THROTTLE_LOGIN": "5/min",
    "THROTTLE_EXAM": "4/min",
    # Above the capacity test's 30 reviews a minute per learner (think time × 0.1).
    "THROTTLE_REVIEW": "60/min",
    "LOGIN_FAILURE_LIMIT_ACCOUNT": "4",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.cluster)
            item.add_marker(pytest.mark.slow)


class Mailbox(MessageSink):
    """An SMTP sink (aiosmtpd) on the test's side of the network, where the workers send.

    ``delay_before_mail``: seconds each message waits at MAIL FROM, before its content is sent,
    so a test can kill a worker between messages of a batch; ``holding_since`` is when the
    message waiting there began to (``time.monotonic()``), None while none waits.
    """

    def __init__(self) -> None:
        super().__init__()
        self.delay_before_mail = 0.0
        self.holding_since: float | None = None

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if self.delay_before_mail:
            import asyncio
            import time

            self.holding_since = time.monotonic()
            try:
                await asyncio.sleep(self.delay_before_mail)
            finally:
                self.holding_since = None
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"


@pytest.fixture(scope="session")
def cluster_mailbox() -> Mailbox:
    return Mailbox()


@pytest.fixture(scope="session")
def cluster(cluster_mailbox, tmp_path_factory):
    missing = requirements_missing()
    if missing:
        _missing("the cluster tests need " + ", ".join(missing))
    from aiosmtpd.controller import Controller

    from tests.helpers.ports import free_port

    smtp_port = free_port()
    cluster = Cluster(smtp_port=smtp_port, environment=THROTTLES)
    controller = None
    try:
        cluster.network_create()
        controller = Controller(cluster_mailbox, hostname=cluster.client_address, port=smtp_port)
        controller.start()
        cluster.services_start()
        yield cluster
    except BaseException:
        print(cluster.logs())
        raise
    finally:
        if controller is not None:
            controller.stop()
        cluster.stop()
