"""Bad input against every API operation of the OpenAPI schema: the inputs issue 13's probe sent
by hand, sent to every operation, so a new endpoint is covered the day it is added.

For each operation (one subtest each), as learner A with A's real objects in the path, starting
from a valid body (the access matrix's ``BODIES``):

- every string of the body (each string leaf of the valid body, each string property of the
  request schema) and every path and query parameter, in turn: with a NUL, with a lone surrogate,
  as a 10 kB string;
- a body nested 10,000 deep, and one nested 40 deep (within ``json``'s reach, beyond the API's);
- a body one byte over ``DATA_UPLOAD_MAX_MEMORY_SIZE``.

What must hold: never a 5xx and never an HTML page; every 4xx in the error shape. A NUL or a
lone surrogate is refused with a 4xx, except where the API rejects one item of a batch on its
own (the offline sync: 200, that event ``rejected``). A nested body is a ``400 parse_error``
where the operation takes a body; an oversized one a ``413 request_too_large`` everywhere.
A 10 kB string may be accepted (a field without a length limit), never a 5xx.

Every request runs in a savepoint that is rolled back, with empty throttle counters, so every
case meets the same world. The Schemathesis runs (in-process: ``test_schema_fuzz.py``; against
a live gunicorn: ``test_live_schemathesis.py``) generate cases from the schema; this one sends
the cases known to have broken it.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import transaction
from reliability_world import caches_clear, path_values
from test_access_matrix import BODIES, OPERATIONS, SCHEMA

pytestmark = pytest.mark.django_db

NUL = "nul\x00here"
SURROGATE = "lone\ud800surrogate"
LONG = "x" * 10_240
# In a URL a lone surrogate can only arrive as its (invalid) UTF-8 bytes.
PATH_VALUES = {"nul": "%00", "surrogate": "%ED%A0%80", "10 kB": LONG}
QUERY_VALUES = {"nul": "%00", "surrogate": "%ED%A0%80", "10 kB": LONG}
# Operations that reject one item of a batch and answer 200 for the rest (and the batch's key).
PER_ITEM_REJECTION = {
    "POST /api/v1/progress/sync/": "events",
    "POST /api/v1/reviews/batch/": "reviews",
}


def _resolve(schema: dict) -> dict:
    while "$ref" in schema:
        schema = SCHEMA["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _request_schema(operation: dict) -> dict | None:
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    return _resolve(body["schema"]) if body else None


def _string_properties(schema: dict | None) -> list[str]:
    if not schema:
        return []
    return sorted(
        name
        for name, prop in schema.get("properties", {}).items()
        if _resolve(prop).get("type") == "string" and not _resolve(prop).get("readOnly")
    )


def _string_leaves(value: Any, path: tuple = ()) -> Iterator[tuple]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _string_leaves(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _string_leaves(child, (*path, index))
    elif isinstance(value, str):
        yield path


def _with(body: Any, path: tuple, text: str) -> Any:
    changed = copy.deepcopy(body) if body is not None else {}
    node = changed
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = text
    return changed


def _fill(path: str, values: dict[str, object]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)


@pytest.fixture
def send(world):
    """Send one request as learner A (raw JSON text or None), rolled back afterwards."""
    client = world.a.client

    def call(method: str, url: str, body: str | None):
        with transaction.atomic():
            caches_clear()
            response = client.generic(
                method, url, body if body is not None else "", content_type="application/json"
            )
            transaction.set_rollback(True)
        return response

    return call


def _check_shape(label: str, case: str, response) -> None:
    status = response.status_code
    assert status < 500, (label, case, status, response.content[:300])
    if status == 204 or (300 <= status < 400):
        return
    content_type = response.get("Content-Type", "")
    if status < 300 and content_type == "application/pdf":
        return  # a certificate download: a GET ignores the body it was sent
    assert content_type.startswith("application/json"), (label, case, status, content_type)
    if status >= 400:
        body = response.json()
        assert set(body) == {"error"}, (label, case, body)
        assert set(body["error"]) == {"code", "message", "detail"}, (label, case, body)


def _check_refused(label: str, case: str, response, *, where: tuple) -> None:
    """A NUL or a lone surrogate: refused with a 4xx, or, for a batch, that item rejected."""
    _check_shape(label, case, response)
    status = response.status_code
    batch = PER_ITEM_REJECTION.get(label)
    if batch and status == 200 and where and where[0] == batch:
        result = response.json()["results"][where[1]]
        assert result["status"] == "rejected", (label, case, result)
        return
    assert 400 <= status < 500, (label, case, status, response.content[:300])


def _cases(world, method: str, path: str, operation: dict):
    """(case name, URL, body text, kind, where) for every bad input of the operation."""
    label = f"{method} {path}"
    values = path_values(world)
    url = _fill(path, values)
    valid = BODIES[label](world, world.a.user.username) if label in BODIES else None
    schema = _request_schema(operation)

    fields = {leaf for leaf in _string_leaves(valid)} | {
        (name,) for name in _string_properties(schema)
    }
    for where in sorted(fields, key=repr):
        for name, text in (("nul", NUL), ("surrogate", SURROGATE), ("10 kB", LONG)):
            body = json.dumps(_with(valid, where, text))
            yield f"body {'.'.join(map(str, where))} {name}", url, body, name, where
    for parameter in operation.get("parameters", []):
        for name, text in PATH_VALUES.items():
            if parameter["in"] == "path":
                bad = _fill(path, {**values, parameter["name"]: quote(text, safe="%")})
                yield f"path {parameter['name']} {name}", bad, None, name, ()
            elif parameter["in"] == "query":
                bad = f"{url}?{parameter['name']}={quote(QUERY_VALUES[name], safe='%')}"
                yield f"query {parameter['name']} {name}", bad, None, name, ()
    valid_text = json.dumps(valid) if valid is not None else None
    yield "query unknown nul", f"{url}?x=%00", valid_text, "nul", ()
    for depth in (10_000, 40):
        yield f"nested {depth}", url, "[" * depth + "]" * depth, "nested", ()
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    oversized = json.dumps({"padding": "x" * limit})
    yield "over the size limit", url, oversized, "oversized", ()


def test_every_operation_refuses_bad_input_in_the_error_shape(world, send, subtests):
    """One world for all operations (building it is the slow part); one subtest each, which
    lists every case of its operation that failed."""
    assert len(OPERATIONS) > 30
    counted = 0
    for method, path, operation in OPERATIONS:
        label = f"{method} {path}"
        takes_body = _request_schema(operation) is not None
        failures: list[str] = []
        for case, url, body, kind, where in _cases(world, method, path, operation):
            counted += 1
            try:
                _check_case(label, case, send(method, url, body), kind, where, takes_body)
            except Exception as error:  # a 500 arrives as the view's exception
                failures.append(f"{case}: {type(error).__name__}: {str(error)[:300]}")
        with subtests.test(msg=label):
            assert not failures, "\n".join(failures)
    assert counted > 300


def _check_case(label: str, case: str, response, kind: str, where: tuple, takes_body: bool):
    if kind in ("nul", "surrogate"):
        _check_refused(label, case, response, where=where)
        return
    _check_shape(label, case, response)
    if kind == "nested" and takes_body:
        assert response.status_code == 400, (response.status_code, response.content[:200])
        assert response.json()["error"]["code"] == "parse_error"
    elif kind == "oversized":
        assert response.status_code == 413, (response.status_code, response.content[:200])
        assert response.json()["error"]["code"] == "request_too_large"


def test_every_operation_with_a_body_has_a_valid_one_to_start_from():
    """Guard: a new operation that takes a body needs one in the access matrix's BODIES, or
    only its schema's top-level strings would be tried."""
    missing = [
        f"{method} {path}"
        for method, path, operation in OPERATIONS
        if _request_schema(operation) is not None and f"{method} {path}" not in BODIES
    ]
    assert missing == []
