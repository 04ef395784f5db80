"""lms.openapi: what the schema promises about errors, and the links between operations."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from drf_spectacular.generators import SchemaGenerator

from lms.openapi import LINKS

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
OPERATIONS = [
    (method, path, operation)
    for path, item in SCHEMA["paths"].items()
    for method, operation in item.items()
    if method in {"get", "post", "put", "patch", "delete"}
]


def test_every_operation_documents_the_guards_answers():
    """lms.request_guards answers any API request with a NUL in its query (400) or a body over
    the upload limit (413), so every operation documents both, in the error shape."""
    for method, path, operation in OPERATIONS:
        for status in ("400", "413"):
            response = operation["responses"].get(status)
            assert response, (method, path, status)
            schema = response["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)


def test_every_declared_link_is_in_the_schema():
    operation_ids = {operation["operationId"] for _m, _p, operation in OPERATIONS}
    declared = 0
    for (method, path, status), links in LINKS.items():
        response = SCHEMA["paths"][path][method]["responses"][status]
        assert set(response["links"]) == set(links), (method, path)
        for name, link in response["links"].items():
            assert link["operationId"] in operation_ids, name
            target_path = links[name][1]
            for parameter in link["parameters"]:
                assert "{" + parameter + "}" in target_path, (name, parameter)
            declared += 1
    assert declared == 5


# --- what a generated client needs of the schema ------------------------------------------


def _walk(node, path=()):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, (*path, index))


def _in_error_shape(schema) -> bool:
    """The Error component, or one of its own for a response whose detail is typed further
    (the notes' 412): ``{"error": {"code", "message", "detail"}}``."""
    if schema == {"$ref": "#/components/schemas/Error"}:
        return True
    schemas = SCHEMA["components"]["schemas"]
    component = schemas[schema["$ref"].rsplit("/", 1)[1]]
    error = component["properties"]["error"]
    error = schemas[error["$ref"].rsplit("/", 1)[1]] if "$ref" in error else error
    return {"code", "message", "detail"} <= set(error["required"])


def test_every_error_response_has_the_error_body_and_its_codes():
    """A response without a body in the schema made the generated client return None."""
    for method, path, operation in OPERATIONS:
        for status, response in operation["responses"].items():
            if not status.startswith(("4", "5")):
                continue
            schema = response["content"]["application/json"]["schema"]
            assert _in_error_shape(schema), (method, path, status, schema)
            codes = response["x-error-codes"]
            assert codes and codes == sorted(set(codes)), (method, path, status)
            assert all(f"`{code}`" in response["description"] for code in codes)


def test_every_operation_has_a_summary():
    assert [(m, p) for m, p, operation in OPERATIONS if not operation.get("summary")] == []


def test_no_request_field_has_a_blank_default():
    """``default: ""`` made generated clients send "" for a field left out (and TypeScript
    types require it); minLength 1 then refused it."""
    for name, component in SCHEMA["components"]["schemas"].items():
        if not name.endswith("Request"):
            continue
        for field, spec in component.get("properties", {}).items():
            assert spec.get("default") != "", (name, field)
            if field not in component.get("required", []):
                assert "default" not in spec, (name, field)


def test_log_in_and_registration_need_only_what_they_need():
    schemas = SCHEMA["components"]["schemas"]
    assert schemas["TokenRequestRequest"]["required"] == ["password"]
    assert set(schemas["TokenRequestRequest"]["properties"]) >= {"login", "username", "email"}
    assert sorted(schemas["RegisterRequest"]["required"]) == ["email", "password", "username"]


def test_the_schema_names_a_server_and_no_example_host():
    assert SCHEMA["servers"] == [
        {"url": "/", "description": "The server this schema was read from."}
    ]
    for where, node in _walk(SCHEMA):
        for value in node.values():
            assert not (isinstance(value, str) and "example.org/" in value and "://" in value), (
                where
            )


def test_pagination_is_relative_with_the_next_page_number():
    page = SCHEMA["components"]["schemas"]["PaginatedModuleListList"]
    assert page["properties"]["next"]["format"] == "uri-reference"
    assert page["properties"]["next_page"]["type"] == "integer"


def test_fixed_values_are_enums():
    schemas = SCHEMA["components"]["schemas"]
    for name in (
        "SectionKindEnum",
        "CardKindEnum",
        "CardStateEnum",
        "ReviewRatingEnum",
        "LanguageEnum",
        "QuickCheckRatingEnum",
        "ExamItemKindEnum",
        "EligibilityReasonEnum",
        "SyncResultStatusEnum",
        "NotificationKindEnum",
    ):
        assert schemas[name]["enum"], name
    assert schemas["ReviewRatingEnum"]["enum"] == [1, 2, 3, 4]
    events = schemas["SyncRequestRequest"]["properties"]["events"]["items"]
    assert events["$ref"] == "#/components/schemas/SyncEventRequest"
    union = schemas["SyncEventRequest"]
    assert union["discriminator"]["propertyName"] == "event"
    assert set(union["discriminator"]["mapping"]) == {
        "opened",
        "section_viewed",
        "completed",
        "reopened",
    }
    payload = schemas["Notification"]["properties"]["payload"]
    assert payload["allOf"] == [{"$ref": "#/components/schemas/ReviewDigestPayload"}]
    assert "app_url" in schemas["ReviewDigestPayload"]["required"]


def test_headers_are_declared():
    step = SCHEMA["paths"]["/api/v1/modules/{module}/steps/{number}/"]["get"]
    assert {p["name"] for p in step["parameters"] if p["in"] == "header"} == {"If-None-Match"}
    assert "ETag" in step["responses"]["200"]["headers"]
    assert "ETag" in step["responses"]["304"]["headers"]
    for method, path, operation in OPERATIONS:
        assert "Retry-After" in operation["responses"]["429"]["headers"], (method, path)
    start = SCHEMA["paths"]["/api/v1/modules/{module}/exam/attempts/"]["post"]
    assert "Location" in start["responses"]["201"]["headers"]


def test_an_operation_declares_its_own_error_codes_besides_the_common_ones():
    start = SCHEMA["paths"]["/api/v1/modules/{module}/exam/attempts/"]["post"]["responses"]
    assert {"steps_incomplete", "no_attempts_left", "waiting", "conflict"} <= set(
        start["409"]["x-error-codes"]
    )
    token = SCHEMA["paths"]["/api/v1/auth/token/"]["post"]["responses"]
    assert "login_locked" in token["429"]["x-error-codes"]
    assert "invalid_credentials" in token["400"]["x-error-codes"]


# Codes a service raises that no API operation answers with: they reach a person on a page
# (the unsubscribe link, the admin's GIFT import) or a synced event's result (SyncError, where
# the sync operation's description and SyncError list them), not an error response.
NOT_AN_API_ERROR = {
    "username_incorrect": "the deletion page of an account without a password (web only)",
    "unsubscribe_link_expired": "the unsubscribe page",
    "invalid_unsubscribe_token": "the unsubscribe page",
    "unsubscribe_link_gone": "the unsubscribe page",
    "gift_invalid": "the admin's GIFT import",
    "item_not_found": "the admin's regrade of a deleted item",
    "regrade_conflict": "the admin's regrade",
    "invalid_client_event_id": "a rejected synced event",
    "invalid_event": "a rejected synced event",
    "invalid_module": "a rejected synced event",
    "invalid_step": "a rejected synced event",
    "invalid_section": "a rejected synced event",
    "invalid_timestamp": "a rejected synced event",
    "timestamp_in_future": "a rejected synced event",
    "timestamp_too_old": "a rejected synced event",
    "password_too_guessable": "a field message's code (Django's ValidationError) in detail",
    "calendar_feed_not_found": "the private calendar address (/calendar/<token>.ics)",
    "calendar_feed_revoked": "the private calendar address (/calendar/<token>.ics)",
    "gone": "lms.errors.Gone's default, raised only with the calendar's own codes",
}
_CODE_LITERAL = re.compile(r"""(?:\bcode\s*=\s*|Reason\(\s*)"([a-z][a-z_]+)\"""")
# A constant passed as a code: ``code=REVIEWED_AT_IN_FUTURE`` or ``Reason(FULL_NAME_MISSING, …)``.
_CODE_CONSTANT = re.compile(r"""^([A-Z][A-Z_]+)\s*=\s*"([a-z][a-z_]+)\"""", re.M)
_CODE_BY_NAME = re.compile(r"(?:\bcode\s*=\s*|Reason\(\s*)([A-Z][A-Z_]+)\b")


def _raised_codes() -> dict[str, str]:
    """Every error code the apps' code names: ``code="…"`` (also as a class attribute), an
    eligibility ``Reason("…")``, or a constant passed as either."""
    root = Path(settings.BASE_DIR)
    found: dict[str, str] = {}
    constants: dict[str, tuple[str, str]] = {}
    by_name: set[str] = set()
    for app in ("accounts", "courses", "progress", "quizzes", "reviews", "privacy", "lms"):
        for path in (root / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            where = str(path.relative_to(root))
            for match in _CODE_LITERAL.finditer(text):
                found.setdefault(match.group(1), where)
            for name, value in _CODE_CONSTANT.findall(text):
                constants.setdefault(name, (value, where))
            by_name.update(_CODE_BY_NAME.findall(text))
    for name in by_name & set(constants):
        found.setdefault(*constants[name])
    return found


def test_every_error_code_a_service_raises_is_declared_by_an_operation():
    declared = {
        code
        for _m, _p, operation in OPERATIONS
        for response in operation["responses"].values()
        for code in response.get("x-error-codes", ())
    }
    raised = _raised_codes()
    # The scan finds codes of every form (a literal, a Reason, a constant, a class attribute).
    assert {"undo_conflict", "steps_incomplete", "reviewed_at_in_future", "not_enrolled"} <= set(
        raised
    )
    missing = {
        code: where
        for code, where in raised.items()
        if code not in declared and code not in NOT_AN_API_ERROR
    }
    assert missing == {}, missing
