"""Two gunicorn instances on one host, started with ``lms/gunicorn_conf.py``: both serve, and
neither takes the other's control socket (issue 13: gunicorn 25.1+ puts it at one path per user,
``$XDG_RUNTIME_DIR/gunicorn.ctl``, so the second instance deleted the first one's).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.live_gunicorn import Gunicorn, http_status

control = pytest.importorskip("gunicorn.ctl.client", reason="gunicorn < 25.1 has no control socket")

pytestmark = pytest.mark.slow

PAGE = "/help/keyboard/"  # a page that needs no database


def process_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a host where gunicorn's default control socket path is shared."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "run").mkdir(exist_ok=True)
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
        DJANGO_SETTINGS_MODULE="lms.settings.test",
        DATABASE_URL="postgres://unused@127.0.0.1:1/unused",
        **extra,
    )
    env.pop("GUNICORN_CONTROL_SOCKET", None)
    env.update(extra)
    return env


def listeners(socket_path: Path) -> str:
    with control.ControlClient(str(socket_path), timeout=10) as client:
        return repr(client.send_command("show listeners"))


@pytest.fixture
def servers():
    started: list[Gunicorn] = []
    yield started
    for server in started:
        server.stop()


def test_two_instances_each_keep_a_control_socket_of_their_own(tmp_path, servers):
    sockets = [tmp_path / "first.ctl", tmp_path / "second.ctl"]
    for index, path in enumerate(sockets):
        env = process_env(tmp_path, GUNICORN_CONTROL_SOCKET=str(path))
        servers.append(Gunicorn(env=env, log=tmp_path / f"gunicorn-{index}.log"))
        servers[-1].wait_until_serving(PAGE)
    first, second = servers
    assert first.port != second.port
    assert http_status(first.url + PAGE) == http_status(second.url + PAGE) == 200
    # Each socket answers for its own instance: it names that instance's port.
    assert str(first.port) in listeners(sockets[0]), first.tail()
    assert str(second.port) in listeners(sockets[1]), second.tail()
    assert not (tmp_path / "run" / "gunicorn.ctl").exists()
    # Stopping one leaves the other running and reachable through its own socket.
    second.stop()
    assert http_status(first.url + PAGE) == 200
    assert sockets[0].exists() and not sockets[1].exists()
    assert str(first.port) in listeners(sockets[0])


def test_without_a_path_no_instance_opens_the_shared_default_socket(tmp_path, servers):
    for index in range(2):
        servers.append(Gunicorn(env=process_env(tmp_path), log=tmp_path / f"gunicorn-{index}.log"))
        servers[-1].wait_until_serving(PAGE)
    assert servers[0].port != servers[1].port
    defaults = [tmp_path / "run" / "gunicorn.ctl", tmp_path / "home" / ".gunicorn" / "gunicorn.ctl"]
    assert [path for path in defaults if path.exists()] == []
    assert all(http_status(server.url + PAGE) == 200 for server in servers)
