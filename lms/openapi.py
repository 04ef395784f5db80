"""OpenAPI post-processing: every operation documents the error responses it can give.

Any view can answer in the one error shape (``lms.errors``): a bad query string (400: a NUL, by
``lms.request_guards``), authentication (401), permissions and CSRF (403), a missing object or
page (404), a body over the upload limit (413, ``lms.request_guards``), throttling (429), and for
operations that take input, validation (400), conflicts (409) and an unsupported body type (415).
drf-spectacular only documents the success response, so a client (and the schema fuzz tests)
would see statuses the schema does not know. This hook adds the missing ones; responses a view
documents itself win. A second hook declares the links between operations (``LINKS``).
"""

from __future__ import annotations

from typing import Any

ERROR_COMPONENT = "Error"
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The one error shape of the API.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "Machine-readable error code."},
                "message": {"type": "string", "description": "Human-readable message."},
                "detail": {
                    "description": "Field errors, limits or null.",
                    "nullable": True,
                },
            },
            "required": ["code", "message", "detail"],
        }
    },
    "required": ["error"],
}

_DESCRIPTIONS = {
    "400": "Invalid input.",
    "401": "Not authenticated, or the token is invalid or expired.",
    "403": "Not allowed (permission or CSRF).",
    "404": "Not found (or not yours).",
    "409": "Conflicts with the current state.",
    "413": "The request body is larger than the server takes (DATA_UPLOAD_MAX_MEMORY_SIZE).",
    "415": "Unsupported media type.",
    "429": "Too many requests; detail.retry_after_seconds says when to retry.",
}
# A wall-clock time of day (DRF's TimeField, "18:00:00"): JSON Schema's "time" format is RFC 3339
# full-time, which requires a UTC offset, so the schema would call every such value invalid.
LOCAL_TIME_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?$"
_UNSAFE = {"post", "put", "patch", "delete"}
_METHODS = {"get", "head", "options", *_UNSAFE}


def _statuses_for(method: str, operation: dict[str, Any]) -> list[str]:
    # Every request passes lms.request_guards first: a NUL in its query string is a 400 and a
    # body over the limit a 413, whatever the operation takes.
    statuses = ["400", "401", "403", "404", "413", "429"]
    if method in _UNSAFE:
        statuses += ["409", "415"]
    return statuses


def _local_times_describe(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "string" and node.get("format") == "time":
            del node["format"]
            node["pattern"] = LOCAL_TIME_PATTERN
            node.setdefault("description", "Local time of day, HH:MM[:SS].")
        for value in node.values():
            _local_times_describe(value)
    elif isinstance(node, list):
        for value in node:
            _local_times_describe(value)


def error_responses_add(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: add the error responses to every operation.

    It also describes times of day by a pattern instead of the "time" format (see above).
    """
    _local_times_describe(result)
    result.setdefault("components", {}).setdefault("schemas", {})[ERROR_COMPONENT] = ERROR_SCHEMA
    reference = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in _METHODS:
                continue
            responses = operation.setdefault("responses", {})
            for status in _statuses_for(method, operation):
                response = responses.setdefault(status, {"description": _DESCRIPTIONS[status]})
                # A view that documents an error status by its description alone still answers
                # in the error shape.
                response.setdefault("content", {"application/json": {"schema": reference}})
    return result


# OpenAPI links: where one answer names the object the next request takes, as a client goes on
# (and as Schemathesis' stateful phase walks the API, tests/reliability/test_live_schemathesis.py).
# Schemathesis infers the links from a module list, a module's progress and the notifications
# itself; these are the ones it cannot infer: an exam attempt from its start or the exam overview,
# and a card from the due queue. (from method, path, status) -> {name: (to method, path, params)}.
LINKS: dict[tuple[str, str, str], dict[str, tuple[str, str, dict[str, str]]]] = {
    ("post", "/api/v1/modules/{module}/exam/attempts/", "201"): {
        "GetAttempt": (
            "get",
            "/api/v1/exam-attempts/{attempt}/",
            {"attempt": "$response.body#/id"},
        ),
        "SaveAnswers": (
            "put",
            "/api/v1/exam-attempts/{attempt}/answers/",
            {"attempt": "$response.body#/id"},
        ),
        "SubmitAttempt": (
            "post",
            "/api/v1/exam-attempts/{attempt}/submit/",
            {"attempt": "$response.body#/id"},
        ),
    },
    ("get", "/api/v1/modules/{module}/exam/", "200"): {
        "GetLatestAttempt": (
            "get",
            "/api/v1/exam-attempts/{attempt}/",
            {"attempt": "$response.body#/attempts/0/id"},
        ),
    },
    ("get", "/api/v1/reviews/due/", "200"): {
        "GetFirstCard": (
            "get",
            "/api/v1/reviews/cards/{card_id}/",
            {"card_id": "$response.body#/cards/0/id"},
        ),
    },
}


def links_add(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: declare ``LINKS`` on the responses they start from
    (by the target's operationId). A link whose operations are not in the schema is left out."""
    paths = result.get("paths", {})
    for (method, path, status), links in LINKS.items():
        response = paths.get(path, {}).get(method, {}).get("responses", {}).get(status)
        if response is None:
            continue
        for name, (to_method, to_path, parameters) in links.items():
            target = paths.get(to_path, {}).get(to_method)
            if target is None:
                continue
            response.setdefault("links", {})[name] = {
                "operationId": target["operationId"],
                "parameters": parameters,
            }
    return result
