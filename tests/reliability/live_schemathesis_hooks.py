"""Schemathesis hooks of the live run (``test_live_schemathesis.py``), loaded by the CLI through
``SCHEMATHESIS_HOOKS``: the learner's token, and the learner's real objects in paths and bodies.

Authentication is a dynamic provider, not a fixed header: the run calls every operation, also
those that end the session (log-out, log-out everywhere, revoking a device's token, which the
stateful phase reaches with the id that ``GET /auth/tokens/`` names). A 401 after such a call makes
Schemathesis log in again (``retry_on``) and replay the request, instead of testing the rest of
the API with a dead token.

Settings come from the environment the test sets: ``LERNPFAD_LIVE_URL``,
``LERNPFAD_LIVE_USERNAME``, ``LERNPFAD_LIVE_PASSWORD`` and ``LERNPFAD_LIVE_REAL`` (a JSON object
of path and body values that name the learner's own objects).
"""

from __future__ import annotations

import json
import os

import requests
import schemathesis
from hypothesis import strategies as st
from schema_rule_checks import (  # noqa: F401 (the checks register on import)
    invalid_requests_rejected,
    real_path_parameters,
    valid_requests_accepted,
)

BASE_URL = os.environ["LERNPFAD_LIVE_URL"]
REAL: dict = json.loads(os.environ.get("LERNPFAD_LIVE_REAL", "{}"))


@schemathesis.auth(retry_on=[401])
class LearnerToken:
    """A knox token of the seeded learner, fetched again whenever a request answers 401."""

    def get(self, case, context):
        response = requests.post(
            f"{BASE_URL}/api/v1/auth/token/",
            json={
                "username": os.environ["LERNPFAD_LIVE_USERNAME"],
                "password": os.environ["LERNPFAD_LIVE_PASSWORD"],
                "device_name": "schemathesis",
            },
            timeout=30,
        )
        response.raise_for_status()
        return response.json()["token"]

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


@schemathesis.hook
def flatmap_path_parameters(context, path_parameters):
    """Half the generated paths name the learner's real objects (as the in-process run does),
    so the request reaches the service instead of stopping at a 404."""

    def real(use_real: bool):
        if not use_real or not path_parameters:
            return path_parameters
        return real_path_parameters(context.operation, path_parameters, REAL)

    return st.booleans().map(real)


@schemathesis.check
def error_codes_declared(ctx, response, case):
    """An error answer's ``error.code`` is one its response lists in ``x-error-codes``
    (lms.openapi): a client may switch on the codes the schema names."""
    if response.status_code < 400:
        return None
    definition = case.operation.responses.find_by_status_code(response.status_code)
    declared = None if definition is None else definition.definition.get("x-error-codes")
    if declared is None:
        return None  # an undeclared status is status_code_conformance's finding
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None  # not in the error shape: response_schema_conformance's finding
    if code not in declared:
        raise AssertionError(
            f"{case.operation.label} answered {response.status_code} with the code {code!r}, "
            f"which its x-error-codes do not list: {declared}"
        )
    return None
