"""The read-only content API: shapes, ETag/304, 404 bodies and constant query counts."""

import pytest

from courses.services.importing import course_import
from tests.helpers.queries import assert_queries_constant, assert_queries_within

pytestmark = pytest.mark.django_db

MODULE = "/api/v1/modules/self-hosting-27/"


def test_module_list_is_public_and_paginated(course, api_client):
    response = api_client.get("/api/v1/modules/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    assert body["results"][0]["slug"] == "self-hosting-27"
    assert body["results"][0]["step_count"] == 32


def test_module_detail_has_the_outline(course, api_client):
    body = api_client.get(MODULE).json()
    assert body["title"] == "GPU, CUDA und Inferenzoptimierung"
    assert len(body["outline"]) == 32
    first = body["outline"][0]
    assert first["number"] == 1 and first["term"] == "GPU compute" and first["level"] == "S4"
    assert first["definition"].endswith("statt serieller CPU-Ausführung.")
    assert first["section_kinds"][:3] == ["verstehen", "anwenden", "uebung"]
    assert [s["number"] for s in body["outline"] if s["has_term_card"]] == [12, 18, 21]
    assert body["exam"] == {"heading": "Abschlussprüfung", "block_count": 10}


def test_step_detail(course, api_client):
    response = api_client.get(MODULE + "steps/12/")
    assert response.status_code == 200
    body = response.json()
    assert body["term"] == "CUDA out of memory"
    assert [s["heading"] for s in body["sections"]][:3] == ["1. Verstehen", "2. Anwenden", "Übung"]
    assert body["exercises"][0]["commands"] == ["nvidia-smi", "nvidia-smi"]
    assert body["exercises"][0]["instruction"].startswith("Führe in einer sicheren")
    assert len(body["quick_checks"]) == 6
    assert body["quick_checks"][2]["question"] == "Welche Best Practice schützt vor Ausfällen?"
    summary = next(s for s in body["sections"] if s["kind"] == "zusammenfassung")
    assert summary["is_truncated"] is True
    assert body["as_of"] == "2026-09-21" and body["source_count"] == 3
    assert body["source_status"] == "source_backed"
    assert body["term_card"]["title"] == "CUDA out of memory — GPU, CUDA und Inferenzoptimierung"
    assert body["term_card"]["command"] == "nvidia-smi"
    assert body["term_card"]["sections"][-1]["kind"] == "quick_check"
    assert (body["previous_number"], body["next_number"]) == (11, 13)
    assert api_client.get(MODULE + "steps/1/").json()["term_card"] is None


def test_etag_and_304(course, api_client):
    first = api_client.get(MODULE + "steps/3/")
    etag = first["ETag"]
    assert etag.startswith('W/"') and len(etag) > 10
    again = api_client.get(MODULE + "steps/3/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag and not again.content
    stale = api_client.get(MODULE + "steps/3/", HTTP_IF_NONE_MATCH='"something-else"')
    assert stale.status_code == 200
    assert api_client.get(MODULE + "steps/4/")["ETag"] != etag


def test_admin_edit_changes_the_etag(course, api_client, admin_client):
    step = course.steps.get(number=2)
    etag = api_client.get(MODULE + "steps/2/")["ETag"]
    section = step.sections.get(kind="verstehen")
    section.body = "Neu formuliert."
    section.save()
    from courses.services.importing import step_refresh_content_hash

    step_refresh_content_hash(step=step)
    response = api_client.get(MODULE + "steps/2/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response["ETag"] != etag


@pytest.mark.parametrize(
    "url, code",
    [
        ("/api/v1/modules/unknown/", "module_not_found"),
        (MODULE + "steps/33/", "step_not_found"),
        (MODULE + "steps/0/", "step_not_found"),
        ("/api/v1/modules/unknown/steps/1/", "step_not_found"),
        ("/api/v1/modules/unknown/term-cards/", "module_not_found"),
    ],
)
def test_unknown_things_are_404_with_a_json_body(course, api_client, url, code):
    response = api_client.get(url)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]


def test_unknown_route_under_api_is_json_404(api_client):
    response = api_client.get("/api/v1/nothing-here/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_term_cards_list(course, api_client):
    body = api_client.get(MODULE + "term-cards/").json()
    assert [c["step_number"] for c in body] == [12, 18, 21]


@pytest.fixture
def few_then_many(db, module_document, seed_paths):
    """A module of 5 steps to read; ``grow()`` imports one of 32 and makes it the one read."""
    course_import(paths=[module_document()])
    module = {"slug": "homelab-3"}

    def grow():
        course_import(paths=seed_paths)
        module["slug"] = "self-hosting-27"

    return module, grow


def test_module_detail_query_count_is_constant(few_then_many, api_client):
    module, grow = few_then_many

    def read():
        assert api_client.get(f"/api/v1/modules/{module['slug']}/").status_code == 200

    # Cold: the content version, the module, its steps, their sections.
    assert_queries_constant(read, grow=grow, budget=5)
    # Warm: the content version only.
    assert_queries_within(read, budget=1)


def test_step_detail_query_count_is_constant(few_then_many, api_client):
    module, grow = few_then_many

    def url(number=1):
        return f"/api/v1/modules/{module['slug']}/steps/{number}/"

    # Cold: the ETag, the content version, the step, its sections, its quick checks.
    assert_queries_constant(lambda: api_client.get(url(2)), grow=grow, budget=6)
    # The body kept under its ETag, and a 304: the ETag only.
    api_client.get(url())
    assert_queries_within(lambda: api_client.get(url()), budget=1)
    etag = api_client.get(url())["ETag"]
    response = api_client.get(url(), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert_queries_within(lambda: api_client.get(url(), HTTP_IF_NONE_MATCH=etag), budget=1)


def test_a_publish_elsewhere_is_served_at_once(course, api_client):
    """A publish on another host writes the content and a new content version to the database
    and tells this process nothing: the next request already serves it."""
    from courses.models import Step
    from courses.services.content_versions import module_content_version_renew

    first = api_client.get(MODULE + "steps/3/")
    assert api_client.get(MODULE + "steps/3/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    api_client.get(MODULE)
    Step.objects.filter(module=course, number=3).update(content_hash="f" * 64, term="Anders")
    module_content_version_renew(module_ids=[course.pk])
    changed = api_client.get(MODULE + "steps/3/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200
    assert changed["ETag"] == 'W/"' + "f" * 24 + '"' and changed.json()["term"] == "Anders"
    assert api_client.get(MODULE).json()["outline"][2]["term"] == "Anders"


def test_an_import_in_this_process_changes_the_etag_at_once(
    course, api_client, seed_paths, tmp_path
):
    first = api_client.get(MODULE + "steps/2/")
    document = next(p for p in seed_paths if p.name.startswith("003_"))
    edited = tmp_path / document.name
    text = document.read_text(encoding="utf-8")
    term = first.json()["term"]
    edited.write_text(text.replace(first.json()["lead"], "Neu formuliert.", 1), encoding="utf-8")
    course_import(paths=[edited, *(p for p in seed_paths if p != document)])
    after = api_client.get(MODULE + "steps/2/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200 and after["ETag"] != first["ETag"]
    assert after.json()["term"] == term and after.json()["lead"] == "Neu formuliert."


def test_content_is_read_only(course, api_client):
    assert api_client.post(MODULE, {}, format="json").status_code in (401, 403, 405)
    assert api_client.delete(MODULE + "steps/1/").status_code in (401, 403, 405)


def test_term_card_edit_changes_the_step_etag(course, api_client):
    from courses.models import TermCard
    from courses.services.importing import card_refresh_content_hash

    etag = api_client.get(MODULE + "steps/12/")["ETag"]
    card = TermCard.objects.get(step__number=12)
    unchanged = card.content_hash
    card_refresh_content_hash(card=card)
    assert card.content_hash == unchanged  # the import's hash equals the recomputed one
    card.lead = "Kürzer erklärt."
    card.save()
    card_refresh_content_hash(card=card)
    response = api_client.get(MODULE + "steps/12/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["term_card"]["lead"] == "Kürzer erklärt."


def test_a_changed_step_is_never_served_from_the_body_cache(course, api_client):
    from courses.models import Step
    from courses.services.importing import step_refresh_content_hash

    first = api_client.get(MODULE + "steps/3/")
    assert api_client.get(MODULE + "steps/3/").json() == first.json()  # now from the cache
    step = Step.objects.get(module__slug="self-hosting-27", number=3)
    step.lead = "Ein neuer Einstieg."
    step.save()
    step_refresh_content_hash(step=step)
    response = api_client.get(MODULE + "steps/3/")
    assert response.json()["lead"] == "Ein neuer Einstieg."
    assert response["ETag"] != first["ETag"]
