"""Schemathesis against a live gunicorn with the production settings, over real HTTP.

The in-process run (``test_schema_fuzz.py``) calls the WSGI application inside the test's
transaction; it did not find issue 13's NUL and nesting cases, and it cannot see what only the
deployed stack does (the production middleware, the database log-in throttle, DEBUG off, one
request per database transaction, gunicorn itself). This run starts ``gunicorn -c
python:lms.gunicorn_conf lms.wsgi:application`` as the Dockerfile does, with
``DJANGO_SETTINGS_MODULE=lms.settings.production``, on its own port and control socket, against
the test database with learner A's world committed, and runs the ``schemathesis`` CLI over the
schema the server serves: the examples, coverage, fuzzing and stateful phases, the last one
walking the OpenAPI links (the ones in the schema, ``lms.openapi.LINKS``, and those Schemathesis
infers). Learner A's token comes from a dynamic auth provider that logs in again after a 401
(``live_schemathesis_hooks.py``), so the operations that end a session are tested too.

Bounded: ``LERNPFAD_LIVE_FUZZ_EXAMPLES`` cases per operation in the fuzzing phase (default 10)
and ``LERNPFAD_LIVE_SCENARIOS`` stateful scenarios (default 60), about three minutes here.
Checks: no 5xx, status codes, content types, headers and bodies as the schema says (enums
included), every error code one that its response lists in ``x-error-codes``, auth not ignored,
and the stateful checks (a deleted resource stays gone, a created one is there).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.error
import urllib.request

import pytest
from django.conf import settings
from reliability_world import CANARY, PASSWORD, path_values

from tests.helpers.production import production_env
from tests.live_gunicorn import BIN, Gunicorn

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

FUZZ_EXAMPLES = int(os.environ.get("LERNPFAD_LIVE_FUZZ_EXAMPLES", "10"))
SCENARIOS = int(os.environ.get("LERNPFAD_LIVE_SCENARIOS", "60"))
SEED = os.environ.get("LERNPFAD_FUZZ_SEED", "8")
PHASES = os.environ.get("LERNPFAD_LIVE_PHASES", "examples,coverage,fuzzing,stateful")
CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
        "ignored_auth",
        "use_after_free",
        "ensure_resource_availability",
        # live_schemathesis_hooks.py: every error code is one the response declares.
        "error_codes_declared",
        # schema_rule_checks.py: what the schema allows is accepted, what it forbids refused.
        "valid_requests_accepted",
        "invalid_requests_rejected",
    ]
)
SESSION_ENDERS = [
    "POST /api/v1/auth/logout/",
    "POST /api/v1/auth/logout-all/",
    "DELETE /api/v1/auth/tokens/{device_id}/",
]
RUN_TIMEOUT = 900  # seconds: the bound of a run that hangs


def _production_env(tmp_path) -> dict[str, str]:
    return production_env(
        # Nothing the API does enqueues a task; production only needs the variable set.
        CELERY_BROKER_URL=os.environ.get("CELERY_BROKER_URL", "memory://"),
        # The fuzzer sends thousands of requests a minute on purpose; the throttles are tested
        # elsewhere (tests/reliability/test_security.py, test_faults.py).
        THROTTLE_LOGIN="1000000/min",
        THROTTLE_EXAM="1000000/min",
        THROTTLE_REVIEW="1000000/min",
        GUNICORN_CONTROL_SOCKET=str(tmp_path / "gunicorn.ctl"),
        WEB_CONCURRENCY="1",
        # Production serves collected static files (their manifest names the styled error
        # pages' stylesheet and icon), collected below as the Dockerfile does.
        LERNPFAD_STATIC_ROOT=str(tmp_path / "static"),
    )


def _static_collect(env: dict[str, str]) -> None:
    subprocess.run(
        [str(BIN / "python"), "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        env=env,
        cwd=settings.BASE_DIR,
        check=True,
        timeout=300,
    )


def _config(tmp_path) -> str:
    path = tmp_path / "schemathesis.toml"
    path.write_text(
        # DRF refuses a NUL in every string, which the schema cannot say once for the API;
        # _known_bad_inputs_refused and test_bad_input.py send NULs on purpose.
        "[generation]\n"
        "allow-x00 = false\n"
        "[phases.fuzzing.generation]\n"
        f"max-examples = {FUZZ_EXAMPLES}\n"
        "[phases.stateful]\n"
        "max-steps = 12\n"
        "[phases.stateful.generation]\n"
        f"max-examples = {SCENARIOS}\n"
        # Valid requests walk the links (a 2xx answer names the next object); the invalid ones
        # are the fuzzing and coverage phases' job.
        'mode = "positive"\n'
        # A scenario that logs out or revokes its own device token ends with every later step a
        # 401: the stateful phase does not log in again (the other phases do, through the
        # hooks' auth provider, and test these operations).
        "[[operations]]\n"
        f"include-name = {json.dumps(SESSION_ENDERS)}\n"
        "phases.stateful.enabled = false\n",
        encoding="utf-8",
    )
    return str(path)


def _stateful_figures(output: str) -> dict[str, int]:
    """Scenarios and links of the stateful phase, from the CLI's summary."""
    scenarios = re.search(r"Scenarios:\s+(\d+)", output)
    links = re.search(r"API Links:\s+(\d+) covered / (\d+) selected / (\d+) total", output)
    reauth = re.search(r"Re-authenticated (\d+) time", output)
    assert scenarios and links, f"the stateful phase reported no scenarios or links:\n{output}"
    return {
        "scenarios": int(scenarios.group(1)),
        "links_covered": int(links.group(1)),
        "links_total": int(links.group(3)),
        "reauthenticated": int(reauth.group(1)) if reauth else 0,
    }


def _password_for_production(user) -> None:
    """The tests hash with MD5 (lms.settings.test), which production does not accept: store A's
    password with a hasher production knows (it moves it to Argon2 at the first log-in)."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    hashed = PBKDF2PasswordHasher().encode(PASSWORD, "livesalt", iterations=1_000)
    type(user).objects.filter(pk=user.pk).update(password=hashed)


def _stateful_walk(events) -> tuple[int, set[str]]:
    """Steps of the stateful phase and the links its steps followed, from the NDJSON events."""
    steps, links = 0, set()
    for line in events.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if not finished or finished.get("phase") != "stateful":
            continue
        # A skipped scenario records no cases.
        cases = finished["recorder"].get("cases", {}).values()
        steps += len(cases)
        links |= {
            case["transition"]["id"]
            for case in cases
            if case.get("transition") and case.get("is_transition_applied")
        }
    return steps, links


def test_schemathesis_against_a_live_production_gunicorn(world, tmp_path):
    _password_for_production(world.a.user)
    env = _production_env(tmp_path)
    _static_collect(env)
    server = Gunicorn(env=env, log=tmp_path / "gunicorn.log")
    try:
        server.wait_until_serving("/api/v1/modules/")
        _known_bad_inputs_refused(server.url, world)
        report = tmp_path / "report.json"
        result = subprocess.run(
            [
                str(BIN / "schemathesis"),
                "--config-file",
                _config(tmp_path),
                "run",
                f"{server.url}/api/schema/?format=json",
                "--checks",
                CHECKS,
                "--workers",
                "1",
                *([] if SEED == "random" else ["--seed", SEED]),
                "--phases",
                PHASES,
                "--report",
                "json,ndjson",
                "--report-json-path",
                str(report),
                "--report-ndjson-path",
                str(tmp_path / "events.ndjson"),
                "--no-color",
            ],
            env={
                **os.environ,
                "PYTHONPATH": os.pathsep.join(
                    [os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]
                ),
                "SCHEMATHESIS_HOOKS": "live_schemathesis_hooks",
                "LERNPFAD_LIVE_URL": server.url,
                "LERNPFAD_LIVE_USERNAME": CANARY,
                "LERNPFAD_LIVE_PASSWORD": PASSWORD,
                "LERNPFAD_LIVE_REAL": json.dumps(path_values(world)),
            },
            # Its cache of crashes (.schemathesis/) stays out of the work tree.
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        output = result.stdout + result.stderr
        assert report.exists(), output[-5000:]
        summary = json.loads(report.read_text())
        assert summary["exit_code"] == 0 and not summary["failures"], output[-8000:]
        assert not summary["errors"], output[-8000:]
        if "fuzzing" in PHASES:
            assert summary["operations"]["tested"] == summary["operations"]["total"], output[-5000:]
        figures = _stateful_figures(output)
        steps, walked = _stateful_walk(tmp_path / "events.ndjson")
        print(
            f"\nlive Schemathesis: {summary['test_cases']['generated']} cases over "
            f"{summary['operations']['tested']} operations in {summary['running_time']:.0f} s; "
            f"stateful: {figures['scenarios']} scenarios, {figures['links_covered']} of "
            f"{figures['links_total']} links walked; re-authenticated "
            f"{figures['reauthenticated']} times; {steps} stateful steps, links followed:\n  "
            + "\n  ".join(sorted(walked))
        )
        assert figures["scenarios"] >= 1 and figures["links_covered"] >= 1, output[-5000:]
        assert "Traceback" not in server.log.read_text(errors="replace"), server.tail(80)
    finally:
        server.stop()


def _request(url: str, *, method: str = "GET", body: bytes | None = None, token: str = ""):
    """(status, content type, parsed JSON or None) of one request over HTTP."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, content_type, raw = (
                response.status,
                response.headers["Content-Type"],
                response.read(),
            )
    except urllib.error.HTTPError as error:
        status, content_type, raw = error.code, error.headers["Content-Type"] or "", error.read()
    parsed = json.loads(raw) if content_type.startswith("application/json") and raw else None
    return status, content_type, parsed


def _known_bad_inputs_refused(base: str, world) -> None:
    """Issue 13's findings, sent over HTTP to the production stack (gunicorn in front)."""
    login = json.dumps({"username": CANARY, "password": PASSWORD, "device_name": "probe"})
    token = _request(base + "/api/v1/auth/token/", method="POST", body=login.encode())[2]["token"]
    notes = f"{base}/api/v1/modules/{world.module_slug}/steps/1/notes/"

    status, content_type, _body = _request(base + "/certificates/%00/")
    assert status == 404 and content_type.startswith("text/html"), (status, content_type)
    status, _type, body = _request(notes, method="PUT", body=b"[" * 10_000, token=token)
    assert (status, body["error"]["code"]) == (400, "parse_error"), (status, body)
    event = {
        "client_event_id": "nul\x00",
        "event": "opened",
        "module": world.module_slug,
        "step": 1,
        "occurred_at": "2026-03-01T09:30:00Z",
    }
    sync = json.dumps({"events": [event]}).encode()
    status, _type, body = _request(
        base + "/api/v1/progress/sync/", method="POST", body=sync, token=token
    )
    assert status == 200 and body["results"][0]["status"] == "rejected", (status, body)
    oversized = b'{"lernauftrag": "' + b"x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b'"}'
    status, _type, body = _request(notes, method="PUT", body=oversized, token=token)
    assert (status, body["error"]["code"]) == (413, "request_too_large"), (status, body)
    status, _type, _body = _request(base + "/", method="TRACE")
    assert status == 405, status
