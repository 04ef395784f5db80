"""Ids a client sends, at and beyond the range of their columns (issue 30).

Primary keys are BigAutoField (64-bit signed) and a step's number a PositiveIntegerField (32-bit);
PostgreSQL refuses a larger value with an error, which was a 500 (``GET
/exam-attempts/9223372036854775808/``, ``POST /reviews/`` with ``card`` = 2^63, the whole of a
batch). Every route's ids go through ``lms.converters`` and every body id through a serializer
field with a maximum: beyond it a 404 (path) or a 400 (body) in the one error shape; at it, the
query runs and finds nothing.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from reliability_world import CANARY, path_values

from lms.converters import ID_MAX, NUMBER_MAX

pytestmark = pytest.mark.django_db

CONVERTER = re.compile(r"<(\w+):(\w+)>")
# What each converter's column holds; one more is out of range.
LIMITS = {"id": ID_MAX, "number": NUMBER_MAX}
METHODS = ("get", "post", "put", "patch", "delete")


def _routes() -> list[str]:
    routes = []

    def walk(patterns, prefix=""):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                if not route.startswith("admin/"):
                    walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                routes.append(route)

    walk(get_resolver().url_patterns)
    return sorted(set(routes))


ID_ROUTES = [route for route in _routes() if re.search(r"<(id|number):", route)]


def test_no_route_takes_an_integer_without_a_bound():
    """Django's <int:…> takes any length of digits; every id and number has a bounded converter."""
    unbounded = [route for route in _routes() if "<int:" in route]
    assert not unbounded, unbounded
    # Every path id of the API and of the pages (attempts, cards, devices, notifications, quick
    # checks, step numbers).
    names = {
        name for route in ID_ROUTES for conv, name in CONVERTER.findall(route) if conv in LIMITS
    }
    assert names == {"attempt", "card_id", "device_id", "notification_id", "quick_check", "number"}
    assert len(ID_ROUTES) >= 18, ID_ROUTES


def _url(route: str, values: dict) -> str:
    return "/" + CONVERTER.sub(lambda m: str(values[m.group(2)]), route)


def _assert_refused(response, method: str, url: str, value, limit: int) -> None:
    """Beyond the limit the route does not match: 404. At it, the request reaches the view,
    which may refuse the (empty) body first (400; a page's form sends the learner back: 302);
    never a 500."""
    allowed = (404,) if isinstance(value, str) or value > limit else (302, 400, 404)
    assert response.status_code in allowed, (method, url, response.status_code)
    if url.startswith("/api/"):
        error = response.json()["error"]
        assert set(error) == {"code", "message", "detail"}, error
        if response.status_code == 404:
            assert error["code"].endswith("not_found") or error["code"] == "not_enrolled", error


def _probe_all(client, routes, methods, world) -> int:
    probed = 0
    for route in routes:
        for converter, name in CONVERTER.findall(route):
            if converter not in LIMITS:
                continue
            limit = LIMITS[converter]
            for value in (limit, limit + 1, 2**63, 2**64, "9" * 40):
                url = _url(route, {**path_values(world), name: value})
                for method in methods:
                    response = getattr(client, method)(url)
                    if response.status_code != 405:
                        _assert_refused(response, method, url, value, limit)
                        probed += 1
    return probed


def test_api_path_ids_out_of_range_are_a_404(world):
    routes = [r for r in ID_ROUTES if r.startswith("api/")]
    assert _probe_all(world.a.client, routes, METHODS, world) >= 5 * len(routes)


def test_page_path_ids_out_of_range_are_a_404(world):
    client = Client()
    client.force_login(world.a.user)
    routes = [r for r in ID_ROUTES if not r.startswith("api/")]
    assert _probe_all(client, routes, ("get", "post"), world) >= 5 * len(routes)


def test_the_issues_probes_are_404s(world):
    slug = world.module_slug
    for url in (
        "/api/v1/exam-attempts/9223372036854775808/",
        f"/api/v1/modules/{slug}/steps/9223372036854775808/",
        f"/api/v1/modules/{slug}/steps/2147483648/",
        "/api/v1/reviews/cards/9223372036854775808/",
    ):
        response = world.a.client.get(url)
        assert response.status_code == 404, (url, response.status_code)
        assert response.json()["error"]["code"] == "not_found"


# --- ids in bodies ----------------------------------------------------------------------------


def _review(card, n: int) -> dict:
    return {"card": card, "rating": 3, "client_review_id": f"{CANARY}-range-{n}"}


def test_a_review_of_a_card_beyond_64_bits_is_a_400(world):
    response = world.a.client.post("/api/v1/reviews/", _review(2**63, 1))
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and "card" in error["detail"], error
    # At the limit the value is valid, reaches the database and names no card.
    response = world.a.client.post("/api/v1/reviews/", _review(ID_MAX, 2))
    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "card_not_found"


def test_a_batch_rejects_only_the_review_with_an_out_of_range_card(world):
    card = world.ids["card_id"]
    reviews = [_review(2**63, 1), _review(card, 2), _review(ID_MAX, 3), _review(-(2**63) - 1, 4)]
    response = world.a.client.post("/api/v1/reviews/batch/", {"reviews": reviews})
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert [r["status"] for r in results] == ["rejected", "applied", "rejected", "rejected"]
    assert results[0]["error"]["code"] == "invalid" and "card" in results[0]["error"]["detail"]
    assert results[2]["error"]["code"] == "card_not_found"
    assert results[3]["error"]["code"] == "invalid"
    assert response.json()["counts"] == {"applied": 1, "duplicate": 0, "rejected": 3}


def test_exam_answers_for_an_item_beyond_64_bits_are_a_400(world):
    url = f"/api/v1/exam-attempts/{world.ids['attempt']}/answers/"
    for item in (2**63, 0, -1):
        response = world.a.client.put(url, {"answers": [{"item": item, "selected": ["a"]}]})
        assert response.status_code == 400, (item, response.content)
        assert response.json()["error"]["code"] == "invalid"
    response = world.a.client.put(url, {"answers": [{"item": ID_MAX, "selected": ["a"]}]})
    assert response.status_code == 400, response.content
    # Valid, it reached the attempt, which has no such item.
    assert response.json()["error"]["detail"][0]["code"] == "unknown_item", response.json()


def test_a_sync_event_for_a_step_beyond_32_bits_is_rejected_alone(world):
    def event(n: int, step: int) -> dict:
        return {
            "client_event_id": f"{CANARY}-range-{n}",
            "event": "opened",
            "module": world.module_slug,
            "step": step,
            "occurred_at": "2026-03-01T09:30:00Z",
        }

    events = [event(1, NUMBER_MAX + 1), event(2, 2**63), event(3, NUMBER_MAX), event(4, 1)]
    response = world.a.client.post("/api/v1/progress/sync/", {"events": events})
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert [r["status"] for r in results][:3] == ["rejected"] * 3, results
    assert results[3]["status"] != "rejected", results[3]
    assert [r["error"]["code"] for r in results[:2]] == ["invalid_step", "invalid_step"]
