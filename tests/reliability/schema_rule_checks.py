"""Schemathesis checks that every rule the server enforces on a request's shape is in the schema,
both ways (issue 30): its positive_data_acceptance and negative_data_rejection, except the outcomes
a schema cannot state. Used by the in-process run (test_schema_fuzz.py) and, through
live_schemathesis_hooks.py, by the live one."""

from __future__ import annotations

import schemathesis
from schemathesis import checks as st_checks

# The codes of a request refused for its shape (the serializers, lms.errors): a 400 with one of
# them for a request the schema allows means a rule the schema does not state.
SHAPE_CODES = {"invalid", "parse_error", "invalid_query", "bad_request"}
# Offline batches: each item is applied or rejected on its own, and the 200 says which
# (results[].status), as the schema documents.
PER_ITEM_OPERATIONS = {"POST /api/v1/progress/sync/", "POST /api/v1/reviews/batch/"}


def same_verdict(component, generated, replaced) -> bool:
    """Whether the test's substitution of real values (learner A's objects) leaves a parameter
    or body as valid, or as invalid, as Schemathesis generated it: the checks below judge a
    case by how it was generated, so a substitution that turns a negative case positive (a
    too-short password replaced by the real one) or the reverse (a second log-in field) is not
    made. ``component`` is the operation's body or parameter (``is_valid``)."""
    if component is None or replaced is generated or replaced == generated:
        return True  # nothing replaced (also a body that is no JSON: bytes, none at all)
    return component.is_valid(generated) == component.is_valid(replaced)


def real_path_parameters(operation, generated: dict, real: dict) -> dict:
    """The generated path parameters with the learner's real value (``real``, by name) wherever
    that keeps the parameter as valid or invalid as generated (``same_verdict``)."""
    parameters = {parameter.name: parameter for parameter in operation.path_parameters}
    out = {}
    for name, value in generated.items():
        replaced = real.get(name, value)
        out[name] = replaced if same_verdict(parameters.get(name), value, replaced) else value
    return out


def _error(response) -> dict:
    try:
        return response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return {}


@schemathesis.check
def valid_requests_accepted(ctx, response, case):
    """Schemathesis' positive_data_acceptance, except the outcomes a schema cannot state: a 400
    for what the data names (an exam date past, wrong credentials, an item not in the attempt,
    an expired link: codes of their own, or item codes in ``detail``; a weak password), and a
    412 (a stale If-Match)."""
    if response.status_code == 412:
        return None
    if response.status_code == 400:
        error = _error(response)
        detail = error.get("detail")
        if error.get("code") not in SHAPE_CODES:
            return None
        # Password strength (too common, too like the username), quiet hours with the same start
        # and end, a name with characters that do not print, a user name that is an e-mail
        # address: JSON Schema cannot compare values, name Unicode categories or say Django's
        # address rule; the schema says them in prose. A user name already taken is data. (The
        # password's length and both ends or neither are in the schema:
        # invalid_requests_rejected checks them.)
        prose_rules = {"password", "quiet_hours", "full_name", "username"}
        if isinstance(detail, dict) and detail and set(detail) <= prose_rules:
            return None
        if (
            isinstance(detail, list)
            and detail
            and all(
                isinstance(item, dict) and item.get("code") not in SHAPE_CODES for item in detail
            )
        ):
            return None
    return st_checks.positive_data_acceptance(ctx, response, case)


@schemathesis.check
def invalid_requests_rejected(ctx, response, case):
    """Schemathesis' negative_data_rejection; an offline batch answers 200 and judges each item
    on its own (results[].status), as its schema documents."""
    if case.operation.label in PER_ITEM_OPERATIONS and response.status_code == 200:
        return None
    return st_checks.negative_data_rejection(ctx, response, case)
