"""Schemathesis over Lernpfad's own OpenAPI schema, in-process, for every operation.

The schema is loaded from the WSGI application (``/api/schema/``) and each operation gets at
least ``LERNPFAD_FUZZ_EXAMPLES`` generated cases (default 50; ``make fuzz`` runs more), positive
and negative (schema-violating) ones, plus schemathesis' examples and coverage phases. Every
request is authenticated as learner A, who is enrolled, has completed steps, review cards, a
certificate and an exam attempt that is open; path parameters are half the time A's real objects,
so the generated bodies reach the services instead of stopping at a 404.

Checks: no 5xx; status code, content type, headers and body conform to the schema; an operation
that declares authentication does not answer 2xx without it; and every rule the server enforces
on a request's shape is in the schema, both ways (issue 30): a request the schema allows is not
refused as malformed, one it forbids is refused. Only outcomes the schema cannot know are let
through (``valid_requests_accepted``, ``invalid_requests_rejected``).

Each example runs in a savepoint that is rolled back, with an empty cache (throttles), so every
case meets the same world: the open attempt stays open, a deleted token stays deleted only for
that case.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from reliability_world import PASSWORD, caches_clear
from schema_rule_checks import (
    invalid_requests_rejected,
    real_path_parameters,
    same_verdict,
    valid_requests_accepted,
)
from schemathesis import checks as st_checks

pytestmark = [pytest.mark.slow]

EXAMPLES = int(os.environ.get("LERNPFAD_FUZZ_EXAMPLES", "50"))
# CI generates the same cases every run (a fixed seed); `make fuzz` sets LERNPFAD_FUZZ_SEED=random.
SEED = os.environ.get("LERNPFAD_FUZZ_SEED", "8")
CHECKS = [
    st_checks.not_a_server_error,
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_headers_conformance,
    st_checks.response_schema_conformance,
    st_checks.ignored_auth,
    # What the schema allows the server accepts, and what it forbids the server refuses: every
    # rule the server enforces is in the schema (issue 30).
    valid_requests_accepted,
    invalid_requests_rejected,
]

APPLICATION = WSGIHandler()
SCHEMA = schemathesis.openapi.from_wsgi("/api/schema/?format=json", APPLICATION)
# The test authenticates every case itself (learner A's token); generated credentials would only
# test knox's rejection of garbage, over and over.
SCHEMA.config.generation.update(with_security_parameters=False)
# DRF refuses a NUL in every string (ProhibitNullCharactersValidator), which JSON Schema cannot
# say once for the whole API; the NUL cases have their own tests (test_bad_input.py).
SCHEMA.config.generation.update(allow_x00=False)
if SEED != "random":
    SCHEMA.config.seed = int(SEED)

# Learner A's real objects for the current test; filled by the fixture, read at draw time.
REAL_PATH_VALUES: dict[str, object] = {}


@SCHEMA.hook
def flatmap_path_parameters(context, path_parameters):
    """Half the cases use A's real objects for the path, so the request reaches the service."""

    def real(use_real: bool) -> dict | None:
        if not use_real or not path_parameters:
            return path_parameters
        return real_path_parameters(context.operation, path_parameters, REAL_PATH_VALUES)

    return st.booleans().map(real)


# Body fields that name one of A's objects (or A's credentials) get the real value in half the
# bodies, so reviews, answers, sync events and log-ins get past "not found".
REAL_BODY_VALUES: dict[str, object] = {}


def _with_real_values(node, counter: list[int]):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            real = REAL_BODY_VALUES.get(key)
            if key == "item" and REAL_BODY_VALUES.get("items"):
                items = REAL_BODY_VALUES["items"]
                out[key] = items[counter[0] % len(items)]
                counter[0] += 1
            elif real is not None and not isinstance(value, dict | list):
                out[key] = real
            else:
                out[key] = _with_real_values(value, counter)
        return out
    if isinstance(node, list):
        return [_with_real_values(value, counter) for value in node]
    return node


@SCHEMA.hook
def flatmap_body(context, body):
    """Half the bodies name A's real objects where a field names an object (not registration's:
    A's username there is taken, which no schema can know)."""
    if context.operation.path.endswith("/auth/register/"):
        return st.just(body)
    component = context.operation.get_body_for_media_type("application/json")

    def real(use_real: bool):
        replaced = _with_real_values(body, [0]) if use_real else body
        return replaced if same_verdict(component, body, replaced) else body

    return st.booleans().map(real)


@pytest.fixture
def fuzz_world(world):
    """The world, with Django's per-request connection closing off (we share the test's)."""
    REAL_PATH_VALUES.clear()
    REAL_PATH_VALUES.update(
        {
            "module": world.module_slug,
            "number": 1,
            "attempt": world.ids["attempt"],
            "quick_check": world.ids["quick_check"],
            "card_id": world.ids["card_id"],
            "notification_id": world.ids["notification_id"],
            "device_id": world.ids["device_id"],
            "code": world.ids["certificate_code"],
        }
    )
    from quizzes.models import ExamAttemptItem

    REAL_BODY_VALUES.clear()
    REAL_BODY_VALUES.update(
        {
            "module": world.module_slug,
            "number": 1,
            "step": 1,
            "card": world.ids["card_id"],
            "quick_check": world.ids["quick_check"],
            "items": list(
                ExamAttemptItem.objects.filter(attempt_id=world.ids["attempt"])
                .order_by("position")
                .values_list("pk", flat=True)
            ),
            "username": world.a.user.username,
            "password": PASSWORD,
        }
    )
    # The WSGI handler closes "old" connections at each request's start and end; inside the
    # test's transaction that would close the connection the test runs in.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield world
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
        REAL_PATH_VALUES.clear()
        REAL_BODY_VALUES.clear()


@SCHEMA.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
def test_operation_conforms_to_the_schema(case, fuzz_world):
    with transaction.atomic():
        caches_clear()
        # The in-process WSGI transport hands over the body as sent and does not undo a
        # Content-Encoding, so ask for none here; compression has its own tests
        # (tests/lms/test_compression.py) and the live run goes through real HTTP clients.
        headers = {**fuzz_world.a.headers, "Accept-Encoding": "identity"}
        case.call_and_validate(headers=headers, checks=CHECKS)
        transaction.set_rollback(True)
