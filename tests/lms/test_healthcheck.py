"""lms/healthcheck.py, the compose healthchecks of web and beat, without the stack
(tests/lms/test_production_image.py runs them against the real services)."""

from __future__ import annotations

import os
import time

import pytest

from lms import healthcheck


@pytest.mark.parametrize(
    ("bind", "url"),
    [
        ("0.0.0.0:8000", "http://127.0.0.1:8000/health/ready/"),
        ("[::]:8000", "http://127.0.0.1:8000/health/ready/"),
        (":8000", "http://127.0.0.1:8000/health/ready/"),
        ("127.0.0.1:18450", "http://127.0.0.1:18450/health/ready/"),
    ],
)
def test_web_check_asks_the_loopback_side_of_gunicorns_bind_address(bind, url):
    assert healthcheck.web_readiness_url(bind) == url


def test_web_check_fails_when_nothing_answers(monkeypatch):
    monkeypatch.setattr(healthcheck, "bind", "127.0.0.1:1")
    assert "127.0.0.1:1" in healthcheck.web_check()


def test_beat_check_wants_a_fresh_heartbeat(monkeypatch, tmp_path):
    heartbeat = tmp_path / "heartbeat"
    monkeypatch.setenv("LERNPFAD_BEAT_HEARTBEAT_FILE", str(heartbeat))
    assert "no heartbeat yet" in healthcheck.beat_check()
    heartbeat.touch()
    assert healthcheck.beat_check() is None
    stale = time.time() - healthcheck.BEAT_HEARTBEAT_MAX_AGE - 5
    os.utime(heartbeat, (stale, stale))
    assert "ago" in healthcheck.beat_check()
    monkeypatch.setenv("LERNPFAD_BEAT_HEARTBEAT_FILE", "")
    assert "not set" in healthcheck.beat_check()


def test_main_exits_with_the_checks_verdict(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("LERNPFAD_BEAT_HEARTBEAT_FILE", str(tmp_path / "missing"))
    assert healthcheck.main(["beat"]) == 1
    assert "beat unhealthy" in capsys.readouterr().err
    (tmp_path / "missing").touch()
    assert healthcheck.main(["beat"]) == 0
    assert healthcheck.main(["nonsense"]) == 2
