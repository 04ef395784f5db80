"""An LTI 1.3 Advantage *platform* for the tool's tests: a real process that plays Moodle/Canvas.

Start: ``python -m tests.lti_platform --port P --issuer http://127.0.0.1:P --state-dir DIR``, or
from a test ``running_platform(folder)`` / the ``lti_platform`` fixture (tests/lti_platform/
fixtures.py). Built on lti1p3platform (id_token signing, claims, tool JWT checks, access tokens);
the glue it lacks is in lti.py, services.py, dynamic_registration.py, app.py. The tests run it at
``http://127.0.0.1:P`` and the tool at pytest-django's ``http://localhost:Q``: two sites, so the
tool's frame is cross-site and its cookies are blocked.

Endpoints (``I`` = issuer URL):
- ``GET /.well-known/openid-configuration`` (``Authorization: Bearer <registration token>``,
  else 401): issuer, authorization_endpoint ``I/auth``, token_endpoint ``I/token``, jwks_uri
  ``I/.well-known/jwks.json``, registration_endpoint ``I/register``, scopes_supported, and
  ``https://purl.imsglobal.org/spec/lti-platform-configuration`` (product_family_code
  ``lernpfad-test-platform``, messages_supported LtiResourceLinkRequest, LtiDeepLinkingRequest).
- ``POST /register`` (Bearer registration token, single use): LTI Dynamic Registration 1.0
  client JSON; 400 ``{"error": "invalid_client_metadata", "error_description"}`` lists every
  problem; 200 answers the request plus ``client_id`` and, in the ``lti-tool-configuration``,
  ``deployment_id``.
- ``GET /admin/register?url=<tool registration URL>``: the tool's URL in ``#registration-frame``
  with ``openid_configuration`` and ``registration_token``; ``#registration-status`` turns from
  "registering" to "registered" on the tool's ``{subject: "org.imsglobal.lti.close"}``.
- ``GET /course/<ctx>/?user=<id>[&open=<rl>][&add=1][&storage=parent|frame|off][&tool=<id>]``:
  the course page; ``li.resource[data-resource-link-id]`` rows with ``a.launch`` (opens
  ``iframe#lti-tool-frame`` on this page) and ``a.launch-window`` (new window, no platform
  storage); instructors get ``a#add-activity`` (deep-linking launch in the frame).
- ``GET /course/<ctx>/launch/<rl>?user=&storage=&target=window`` and
  ``GET /course/<ctx>/deep-link?user=&storage=&tool=``: 302 to the tool's initiate_login_uri with
  iss, login_hint, target_link_uri, lti_message_hint, client_id, lti_deployment_id and, when
  storage is on, ``lti_storage_target`` (``_parent``, or ``lti_storage_frame`` in frame mode).
- ``GET|POST /auth``: OIDC authorization (scope openid, response_type id_token, response_mode
  form_post, prompt none, registered redirect_uri, login_hint = launching user, nonce, state);
  answers a self-submitting form POST of id_token and state to redirect_uri; 400 page otherwise.
  Claims: resource link, context, roles, name/email, custom (tool's then link's), AGS endpoint
  (lineitems, and lineitem when the link has exactly one), NRPS, deep_linking_settings
  (accept_types ltiResourceLink, accept_multiple false, data), launch_presentation return_url
  ``I/course/<ctx>/return?user=``, tool_platform.
- Platform storage (course page, or ``GET /platform-storage-frame`` in frame mode, script
  ``/static/platform-storage.js``): ``lti.capabilities`` → ``.response`` with
  supported_messages put_data/get_data (``frame`` in frame mode); ``lti.put_data``/``lti.get_data``
  → ``.response`` with key/value, or ``error {code, message}``; values keyed by the sender's origin.
  Each message is reported to ``POST /storage-log`` (state ``storage_messages``).
- ``POST /deep-link-return`` (form field ``JWT``): verified against the tool's JWKS (kid), aud =
  issuer, iss = client_id, deployment_id, exp, the request's ``data``; one ltiResourceLink becomes a
  resource link, its ``lineItem`` a line item at once; 400 page with the reason otherwise.
- ``POST /token``: client_credentials with a JWT client_assertion (any kid of the tool's JWKS,
  aud ``I/token`` or ``I``, jti once); ``{"access_token", "token_type": "bearer", "expires_in",
  "scope"}``; OAuth errors ``{"error", "error_description"}`` (400, or 401 invalid_client).
- AGS 2.0 (Bearer access token, else 401): ``GET|POST /contexts/<ctx>/lineitems``
  (resource_link_id, resource_id, tag, limit), ``GET|PUT|DELETE /contexts/<ctx>/lineitems/<n>``,
  ``POST .../lineitems/<n>/scores`` (application/vnd.ims.lis.v1.score+json; 201 first result, 200
  update, 409 timestamp not newer, 400 schema, 415 media type, 422 user not in course),
  ``GET .../lineitems/<n>/results`` (user_id). NRPS 2.0: ``GET /contexts/<ctx>/memberships`` (role).

Control API (JSON, tests only): ``GET /control/health``; ``GET /control/state`` (tools,
contexts, resource_links, line_items, results, launches, deep_links, score_posts ``[{context_id,
line_item, content_type, body, status, injected, answer, at}]``, token_requests,
deep_link_returns, storage_messages, returns, storage_mode, score_failures); ``POST
/control/reset``; ``POST /control/registration-tokens`` → ``{registration_token,
openid_configuration}``; ``POST /control/tools`` (client registration JSON, no token);
``PUT /control/contexts/<ctx>`` ``{title, label, members: [{user_id, roles: ["Learner"|
"Instructor"|URI], name, given_name, family_name, email, status}]}``; ``POST
/control/resource-links`` ``{title, context_id, client_id, url, text, custom, line_item}``;
``POST /control/score-failures`` ``{count, status: 401|500|…}``; ``POST /control/score-delay``
``{count, seconds}`` (recorded at once, answered late); ``PUT /control/storage``
``{mode: parent|frame|off}``. A fresh state has course ``course-1`` with teacher-1 (Instructor),
learner-1 and learner-2 (Learners). State: ``<state dir>/state.json``, rewritten on every change.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import requests

from tests.helpers.ports import free_port
from tests.helpers.waiting import wait_until

REPOSITORY = Path(__file__).resolve().parents[2]


class PlatformClient:
    """The control API of a running platform, and the URLs a browser test opens."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        response = self.http.request(method, self.url + path, json=body, timeout=10)
        response.raise_for_status()
        return response.json()

    def state(self) -> dict[str, Any]:
        """Everything the platform knows and logged (see the package docstring)."""
        return self._call("GET", "/control/state")

    def reset(self) -> None:
        """Forget tools, courses, links, line items, scores and logs."""
        self._call("POST", "/control/reset")

    def registration_token(self) -> dict[str, str]:
        """``{registration_token, openid_configuration}`` for one dynamic registration."""
        return self._call("POST", "/control/registration-tokens")

    def register_tool(self, registration: dict[str, Any]) -> dict[str, Any]:
        """Register a tool directly; answers as ``/register`` does (client_id, deployment_id)."""
        return self._call("POST", "/control/tools", registration)

    def set_roster(
        self, context_id: str, members: list[dict[str, Any]], *, title: str = "", label: str = ""
    ) -> dict[str, Any]:
        """Create or replace a course and its members (roles "Learner", "Instructor" or URIs)."""
        body = {"members": members, "title": title, "label": label}
        return self._call("PUT", f"/control/contexts/{context_id}", body)

    def add_resource_link(self, *, title: str, context_id: str = "course-1", **fields: Any) -> dict:
        """An activity without deep linking (fields: client_id, url, text, custom, line_item)."""
        return self._call(
            "POST", "/control/resource-links", {"title": title, "context_id": context_id, **fields}
        )

    def fail_next_scores(self, count: int, status: int = 500) -> None:
        """The next ``count`` score POSTs answer ``status`` (401, 403, 500, 502 or 503)."""
        self._call("POST", "/control/score-failures", {"count": count, "status": status})

    def delay_next_scores(self, count: int, seconds: float) -> None:
        """The next ``count`` score POSTs are recorded at once and answered ``seconds`` later."""
        self._call("POST", "/control/score-delay", {"count": count, "seconds": seconds})

    def set_storage(self, mode: str) -> None:
        """Platform storage for later launches: "parent", "frame" or "off"."""
        self._call("PUT", "/control/storage", {"mode": mode})

    def score_posts(self) -> list[dict[str, Any]]:
        """Every score POST received, in order, with its body and the status answered."""
        return self.state()["score_posts"]

    def course_url(self, context_id: str = "course-1", *, user: str, **extra: str) -> str:
        """The course page as ``user`` sees it (extra: open, add, storage, tool)."""
        return f"{self.url}/course/{context_id}/?" + urlencode({"user": user, **extra})

    def register_page_url(self, tool_registration_url: str) -> str:
        """The administrator page that runs the tool's dynamic registration in a frame."""
        return f"{self.url}/admin/register?" + urlencode({"url": tool_registration_url})


class RunningPlatform:
    """A platform process on a free port of 127.0.0.1 (the tool's live server is localhost); its
    output in ``<state dir>/platform.log`` and its state in ``<state dir>/state.json``."""

    def __init__(self, state_dir: Path, *, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.state_dir = state_dir
        state_dir.mkdir(parents=True, exist_ok=True)
        self.log = state_dir / "platform.log"
        self._log_file = self.log.open("ab")
        command = [
            sys.executable,
            "-m",
            "tests.lti_platform",
            "--port",
            str(self.port),
            "--issuer",
            self.url,
            "--state-dir",
            str(state_dir),
        ]
        self.popen = subprocess.Popen(
            command, cwd=REPOSITORY, stdout=self._log_file, stderr=subprocess.STDOUT
        )
        self.client = PlatformClient(self.url)

    def tail(self, lines: int = 40) -> str:
        """The end of the platform's log, for failure messages."""
        text = self.log.read_text(errors="replace").splitlines()
        return f"--- LTI platform :{self.port} ---\n" + "\n".join(text[-lines:])

    def answers(self) -> bool:
        """Whether the health endpoint answers (fails at once if the process died)."""
        if self.popen.poll() is not None:
            raise AssertionError(f"the platform exited with {self.popen.returncode}\n{self.tail()}")
        try:
            return requests.get(f"{self.url}/control/health", timeout=2).ok
        except requests.RequestException:
            return False

    def stop(self) -> None:
        """SIGTERM to this process's PID, SIGKILL if it lingers."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.popen.pid, signal.SIGKILL)
                self.popen.wait(timeout=10)
        self._log_file.close()


@contextlib.contextmanager
def running_platform(state_dir: Path, *, port: int | None = None) -> Iterator[RunningPlatform]:
    """Start a platform, wait until it answers, stop it (by PID) afterwards."""
    platform = RunningPlatform(state_dir, port=port)
    try:
        wait_until(platform.answers, timeout=30, what="the LTI platform", logs=[platform])
        yield platform
    finally:
        platform.stop()
