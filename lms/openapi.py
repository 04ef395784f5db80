"""OpenAPI post-processing hooks: every operation documents the error responses any view can
give (drf-spectacular only documents success), with body, codes (``x-error-codes``) and headers;
and the links between operations (``LINKS``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular import openapi
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

ERROR_COMPONENT = "Error"
ERROR_DETAIL_COMPONENT = "ErrorDetail"
ERROR_DETAIL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "Field errors (a list of messages per field, nested like the input), or the values an "
        "error names: retry_after_seconds (429), max_bytes (413), server_time (a client clock "
        "ahead of the server), reasons and steps (an exam start refused), allowed (the values "
        "a field takes) and others named in the operation's description."
    ),
    "properties": {
        "retry_after_seconds": {"type": "integer", "description": "429: seconds until retry."},
        "max_bytes": {"type": "integer", "description": "413: the largest body taken."},
        "server_time": {"type": "string", "format": "date-time"},
        "allowed": {"type": "array", "items": {"type": "string"}},
        "non_field_errors": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": True,
}
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The one error shape of the API.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": (
                        "Machine-readable error code: the contract (each error response lists "
                        "its codes in `x-error-codes`). A client tells errors apart by it."
                    ),
                },
                "message": {
                    "type": "string",
                    "description": "Human-readable message in the response's language "
                    "(Content-Language).",
                },
                "detail": {
                    "description": "Field errors or the values the error names; null when none. "
                    "A list of objects names one problem each (the exam answers' 400: `index`, "
                    "`code`, `item` and, where there is one, `message`).",
                    "nullable": True,
                    "anyOf": [
                        {"$ref": f"#/components/schemas/{ERROR_DETAIL_COMPONENT}"},
                        {"type": "array", "items": {"type": "string"}},
                        {
                            "type": "array",
                            "items": {"type": "object", "additionalProperties": True},
                        },
                    ],
                },
            },
            "required": ["code", "message", "detail"],
        }
    },
    "required": ["error"],
}


# Rules between the fields of one object (exactly one of, both or neither, at least one), which
# drf-spectacular cannot derive from a serializer's ``validate``: component name -> schema keys.
OBJECT_RULES: dict[str, dict[str, Any]] = {}


def object_rules(**rules: Any):
    """Class decorator: state in the schema what the serializer's ``validate`` enforces across
    its fields (``oneOf``, ``anyOf``, ``minProperties``) or on one field (``properties``: a rule
    its ``validate`` or the service checks with others), on its request components
    (``XRequest``, ``PatchedXRequest``; never on ``X``, the response, which always has every
    field, and whose generated types such a rule would blank). A rule the server enforces is in
    the schema, so a generated client knows it before sending."""

    def decorate(serializer_class):
        OBJECT_RULES[serializer_class.__name__.removesuffix("Serializer")] = rules
        return serializer_class

    return decorate


# What str.strip() removes: \s in ECMA regexes (clients) lacks \x1c-\x1f and \x85.
_BLANK: dict[str, Any] = {"type": "string", "pattern": r"^[\s\x1c-\x1f\x85]*$"}


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's, and a request's text field that DRF strips and then refuses blank
    (``trim_whitespace``, not ``allow_blank``) says so: ``"  "`` is as empty as ``""``."""

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and field.trim_whitespace
            and not field.allow_blank
            and schema.get("type") == "string"
            and not {"enum", "not"} & set(schema)
        ):
            schema["not"] = _BLANK
        return schema


def exactly_one_of(*names: str, non_blank: bool = False) -> dict[str, Any]:
    """``oneOf`` the fields ``names``: exactly one is given (``non_blank``: with a character
    other than white space, as a blank one counts as not given)."""

    def given(name: str) -> dict[str, Any]:
        if not non_blank:
            return {"required": [name]}
        return {"required": [name], "properties": {name: {"not": _BLANK}}}

    return {"oneOf": [given(name) for name in names]}


def both_or_neither(first: str, second: str) -> dict[str, Any]:
    """JSON Schema's ``dependentRequired`` both ways, written as OpenAPI 3.0 can say it."""
    return {
        "anyOf": [
            {"required": [first, second]},
            {"not": {"anyOf": [{"required": [first]}, {"required": [second]}]}},
        ]
    }


def object_rules_add(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook: apply ``OBJECT_RULES`` to the request components; a body whose
    rules ask for a field is required (no body is refused as a body without the field is)."""
    schemas = result.get("components", {}).get("schemas", {})
    demanding = set()
    for name, rules in OBJECT_RULES.items():
        branches = rules.get("oneOf") or rules.get("anyOf") or [{}]
        for component in (f"{name}Request", f"Patched{name}Request"):
            if component in schemas:
                # ``properties``: more rules on the fields drf-spectacular has mapped.
                for field, more in rules.get("properties", {}).items():
                    schemas[component]["properties"][field].update(more)
                schemas[component].update({k: v for k, v in rules.items() if k != "properties"})
                if all("required" in branch for branch in branches):
                    demanding.add(f"#/components/schemas/{component}")
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body and any(
                media.get("schema", {}).get("$ref") in demanding
                for media in body.get("content", {}).values()
            ):
                body["required"] = True
    return result


@extend_schema_field(ERROR_SCHEMA["properties"]["error"]["properties"]["detail"])
class ErrorDetailField(serializers.JSONField):
    """An error's ``detail`` inside a serializer, typed as the error shape's."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, **kwargs)


_DESCRIPTIONS = {
    "400": "Invalid input.",
    "401": "Not authenticated, or the token is invalid or expired.",
    "403": "Not allowed (permission or CSRF).",
    "404": "Not found (or not yours).",
    "409": "Conflicts with the current state.",
    "412": "The precondition (If-Match) does not hold.",
    "413": "The request body is larger than the server takes (DATA_UPLOAD_MAX_MEMORY_SIZE).",
    "415": "Unsupported media type.",
    "429": "Too many requests; detail.retry_after_seconds says when to retry.",
}
# The codes any operation can answer with, by status; an operation adds its own (``error_codes``).
COMMON_ERROR_CODES: dict[str, tuple[str, ...]] = {
    "400": ("invalid", "parse_error", "invalid_query", "bad_request"),
    "401": ("not_authenticated", "authentication_failed"),
    "403": ("permission_denied", "forbidden"),
    "404": ("not_found",),
    "409": ("conflict",),
    "412": ("precondition_failed",),
    "413": ("request_too_large",),
    "415": ("unsupported_media_type",),
    "429": ("throttled",),
}
ERROR_CODES_EXTENSION = "x-error-codes"
# A wall-clock time of day (DRF's TimeField, "18:00:00"): JSON Schema's "time" format is RFC 3339
# full-time, which requires a UTC offset, so the schema would call every such value invalid.
LOCAL_TIME_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?$"
_UNSAFE = {"post", "put", "patch", "delete"}
_METHODS = {"get", "head", "options", *_UNSAFE}
_CONTENT_LANGUAGE = {
    "description": "The language of the response's messages (de or en): Accept-Language, "
    "else the learner's language setting, else de.",
    "schema": {"type": "string", "enum": ["de", "en"]},
}
_STATUS_HEADERS: dict[str, dict[str, Any]] = {
    "429": {
        "Retry-After": {
            "description": "Seconds until a retry may succeed.",
            "schema": {"type": "integer"},
        }
    },
    "401": {
        "WWW-Authenticate": {
            "description": "How to authenticate (`Token`).",
            "schema": {"type": "string"},
        }
    },
}


def error_codes(by_status: dict[int, Iterable[str]]) -> dict[str, Any]:
    """``extend_schema(extensions=error_codes({409: ["nothing_to_undo"]}))``: the error codes an
    operation answers with besides the common ones (``COMMON_ERROR_CODES``), by status."""
    return {
        ERROR_CODES_EXTENSION: {
            str(status): sorted(set(codes)) for status, codes in by_status.items()
        }
    }


def _statuses_for(method: str, declared: dict[str, Any]) -> list[str]:
    # lms.request_guards answers 400 and 413 whatever the operation takes.
    statuses = ["400", "401", "403", "404", "413", "429"]
    if method in _UNSAFE:
        statuses += ["409", "415"]
    statuses += [s for s in declared if s not in statuses]
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
    """drf-spectacular hook: add the error responses to every operation, and describe times of
    day by a pattern instead of the "time" format (see above)."""
    _local_times_describe(result)
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas[ERROR_COMPONENT] = ERROR_SCHEMA
    schemas[ERROR_DETAIL_COMPONENT] = ERROR_DETAIL_SCHEMA
    reference = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in _METHODS:
                continue
            declared = operation.pop(ERROR_CODES_EXTENSION, {})
            responses = operation.setdefault("responses", {})
            for status in _statuses_for(method, declared):
                response = responses.setdefault(status, {"description": _DESCRIPTIONS[status]})
                response.setdefault("content", {"application/json": {"schema": reference}})
                codes = sorted({*COMMON_ERROR_CODES.get(status, ()), *declared.get(status, ())})
                response[ERROR_CODES_EXTENSION] = codes
                description = response["description"].rstrip()
                if description and not description.endswith("."):
                    description += "."
                response["description"] = (
                    description + " Codes: " + ", ".join(f"`{code}`" for code in codes) + "."
                )
                for name, header in _STATUS_HEADERS.get(status, {}).items():
                    response.setdefault("headers", {}).setdefault(name, header)
            for response in responses.values():
                response.setdefault("headers", {}).setdefault("Content-Language", _CONTENT_LANGUAGE)
    return result


# The links Schemathesis cannot infer, where one answer names the object the next request takes:
# (from method, path, status) -> {name: (to method, path, params)}.
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
    """drf-spectacular hook: declare ``LINKS`` where both operations are in the schema."""
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
