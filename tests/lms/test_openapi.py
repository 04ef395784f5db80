"""lms.openapi: what the schema promises about errors, and the links between operations."""

from __future__ import annotations

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
