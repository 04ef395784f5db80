"""The module bundle (a whole module in one request, for offline use), its version and delta,
and the ETags of the outline and the term cards."""

import pytest

from courses.models import ModuleContentVersion, QuickCheck, Step, TermCard
from courses.services.content_versions import module_content_version_renew
from courses.services.importing import (
    card_refresh_content_hash,
    course_import,
    step_refresh_content_hash,
)
from tests.helpers.queries import assert_queries_constant, assert_queries_within

pytestmark = pytest.mark.django_db

MODULE = "/api/v1/modules/self-hosting-27/"
BUNDLE = MODULE + "bundle/"


def test_the_bundle_holds_the_whole_module_as_the_single_endpoints_give_it(course, api_client):
    response = api_client.get(BUNDLE)
    assert response.status_code == 200
    body = response.json()
    assert body["module"]["slug"] == "self-hosting-27"
    assert body["module"]["exam"] == {"heading": "Abschlussprüfung", "block_count": 10}
    assert body["delta"] is False and body["since"] is None
    assert response["ETag"] == f'W/"{body["version"]}"'
    assert len(body["outline"]) == 32 and len(body["steps"]) == 32
    # Every step exactly as the step endpoint serves it, and the outline's hash is its ETag.
    for number in (1, 12, 32):
        single = api_client.get(MODULE + f"steps/{number}/")
        assert body["steps"][number - 1] == single.json()
        assert f'W/"{body["outline"][number - 1]["content_hash"]}"' == single["ETag"]
    assert body["term_cards"] == api_client.get(MODULE + "term-cards/").json()
    # The outline is the module detail's, without a learner's status.
    detail = api_client.get(MODULE).json()["outline"]
    assert body["outline"] == [{k: v for k, v in s.items() if k != "status"} for s in detail]
    # Quick checks with their role, as the step page shows them (reflection prompts unrated).
    checks = {check["id"]: check for check in body["quick_checks"]}
    shown = {qc["id"] for step in body["steps"] for qc in step["quick_checks"]}
    assert set(checks) == shown
    for check in QuickCheck.objects.filter(pk__in=shown):
        assert checks[check.pk]["role"] == check.role
        assert checks[check.pk]["takes_rating"] is (not check.is_reflection_prompt)
    assert {c["role"] for c in checks.values()} >= {"definition", "generic"}
    assert body["removed"] == {"steps": [], "term_cards": [], "quick_checks": []}


def test_a_current_bundle_is_a_304(course, api_client):
    first = api_client.get(BUNDLE)
    again = api_client.get(BUNDLE, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and not again.content and again["ETag"] == first["ETag"]
    # The strong form (as a client that kept it from before may send) matches too.
    strong = api_client.get(BUNDLE, HTTP_IF_NONE_MATCH=first["ETag"].removeprefix("W/"))
    assert strong.status_code == 304
    assert api_client.get(BUNDLE, HTTP_IF_NONE_MATCH='"old"').status_code == 200


def _edit_step(number: int, text: str) -> Step:
    step = Step.objects.get(module__slug="self-hosting-27", number=number)
    section = step.sections.get(kind="verstehen")
    section.body = text
    section.save()
    return step_refresh_content_hash(step=step)


def test_a_delta_sends_only_what_changed(course, api_client):
    before = api_client.get(BUNDLE).json()
    version = before["version"]
    _edit_step(4, "Neu formuliert.")
    card = TermCard.objects.get(step__number=18)
    card.lead = "Kürzer erklärt."
    card.save()
    card_refresh_content_hash(card=card)

    after = api_client.get(BUNDLE, HTTP_IF_NONE_MATCH=f'"{version}"')
    assert after.status_code == 200 and after.json()["version"] != version
    delta = api_client.get(BUNDLE + f"?since={version}").json()
    assert delta["delta"] is True and delta["since"] == version
    assert delta["version"] == after.json()["version"]
    # Step 4 changed; step 18 because its term card is part of it.
    assert [step["number"] for step in delta["steps"]] == [4, 18]
    assert delta["steps"][0]["sections"][0]["lines"] == ["Neu formuliert."]
    assert [card["step_number"] for card in delta["term_cards"]] == [18]
    assert delta["quick_checks"] == []
    assert len(delta["outline"]) == 32  # always whole, with the new hashes
    changed = {s["number"] for s in delta["outline"]} & {4, 18}
    old = {s["number"]: s["content_hash"] for s in before["outline"]}
    assert all(
        s["content_hash"] != old[s["number"]] for s in delta["outline"] if s["number"] in changed
    )
    assert delta["removed"] == {"steps": [], "term_cards": [], "quick_checks": []}
    # Since the current version: nothing changed.
    empty = api_client.get(BUNDLE + f"?since={delta['version']}").json()
    assert (empty["steps"], empty["term_cards"], empty["quick_checks"]) == ([], [], [])


def test_a_delta_lists_what_was_removed(course, api_client):
    before = api_client.get(BUNDLE).json()
    step_32 = before["outline"][31]
    # Retired, as a re-import retires a step that left its document.
    Step.objects.filter(module__slug="self-hosting-27", number=32).update(status="retired")
    module_content_version_renew(module_ids=[course.pk])
    delta = api_client.get(BUNDLE + f"?since={before['version']}").json()
    assert delta["removed"]["steps"] == [step_32["slug"]]
    assert len(delta["outline"]) == 31
    gone = {qc["id"] for qc in before["steps"][31]["quick_checks"]} - {
        qc["id"] for step in before["steps"][:31] for qc in step["quick_checks"]
    }
    assert delta["removed"]["quick_checks"] == sorted(gone)


@pytest.mark.parametrize("since", ["0" * 24, "f" * 24])
def test_an_unknown_version_gets_the_whole_bundle(course, api_client, since):
    response = api_client.get(f"{BUNDLE}?since={since}")
    assert response.status_code == 200
    body = response.json()
    assert body["delta"] is False and body["since"] is None and len(body["steps"]) == 32


# Empty too: ?since= names no version (leave it out for the whole bundle), as every query
# parameter given empty (lms.query).
@pytest.mark.parametrize("since", ["", "not-a-version", "A" * 24, "%ED%A0%80", "%00", "a" * 65])
def test_a_since_that_cannot_be_a_version_is_a_400(course, api_client, since):
    response = api_client.get(f"{BUNDLE}?since={since}")
    assert response.status_code == 400
    assert response.json()["error"]["code"] in {"invalid", "invalid_query"}


def test_each_version_is_recorded_once(course, api_client):
    api_client.get(BUNDLE)
    api_client.get(BUNDLE)
    assert ModuleContentVersion.objects.count() == 1
    _edit_step(2, "Anders.")
    api_client.get(BUNDLE)
    assert ModuleContentVersion.objects.count() == 2


def test_an_unknown_module_is_a_404(course, api_client):
    response = api_client.get("/api/v1/modules/unknown/bundle/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "module_not_found"


def test_reading_the_bundle_records_no_progress(course, make_learner):
    from progress.models import StepProgress
    from tests.factories import api_client_for

    learner = make_learner("lena")
    client = api_client_for(learner)
    client.post(MODULE + "enrollment/")
    before = list(StepProgress.objects.values_list("id", "status", "last_event_at"))
    assert client.get(BUNDLE).status_code == 200
    assert list(StepProgress.objects.values_list("id", "status", "last_event_at")) == before


def test_the_bundle_query_count_is_constant(db, module_document, seed_paths, api_client):
    course_import(paths=[module_document()])
    module = {"slug": "homelab-3"}

    def grow():
        course_import(paths=seed_paths)
        module["slug"] = "self-hosting-27"

    def url():
        return f"/api/v1/modules/{module['slug']}/bundle/"

    # The content version and the manifest (module, steps with cards, quick checks), recording
    # its version, then module, steps with cards, sections, quick-check links.
    assert_queries_constant(lambda: api_client.get(url()), grow=grow, budget=10)
    response = api_client.get(url())
    # A 304: the content version only (the manifest is cached under it).
    etag = response["ETag"]
    assert api_client.get(url(), HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert_queries_within(lambda: api_client.get(url(), HTTP_IF_NONE_MATCH=etag), budget=1)
    # A delta: the earlier manifest and the build.
    since = url() + "?since=" + response.json()["version"]
    assert api_client.get(since).json()["delta"] is True
    assert_queries_within(lambda: api_client.get(since), budget=8)


# --- ETags of the outline and the term cards --------------------------------------------


@pytest.mark.parametrize("path", ["", "term-cards/"])
def test_outline_and_term_cards_have_an_etag(course, api_client, path):
    first = api_client.get(MODULE + path)
    assert first.status_code == 200 and first["ETag"].startswith('W/"')
    again = api_client.get(MODULE + path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and not again.content
    assert api_client.get(MODULE + path, HTTP_IF_NONE_MATCH='"x"').status_code == 200


def test_the_outline_etag_changes_with_the_content_and_with_my_progress(course, make_learner):
    from tests.factories import api_client_for

    client = api_client_for(make_learner("lena"))
    client.post(MODULE + "enrollment/")
    etag = client.get(MODULE)["ETag"]
    client.post(MODULE + "steps/2/progress/", {"event": "opened"}, format="json")
    mine = client.get(MODULE, HTTP_IF_NONE_MATCH=etag)
    assert mine.status_code == 200 and mine["ETag"] != etag
    assert "private" in mine["Cache-Control"]
    _edit_step(3, "Neu.")
    assert client.get(MODULE, HTTP_IF_NONE_MATCH=mine["ETag"]).status_code == 200


def test_a_term_card_edit_changes_the_term_cards_etag(course, api_client):
    etag = api_client.get(MODULE + "term-cards/")["ETag"]
    card = TermCard.objects.get(step__number=12)
    card.lead = "Anders."
    card.save()
    card_refresh_content_hash(card=card)
    assert api_client.get(MODULE + "term-cards/", HTTP_IF_NONE_MATCH=etag).status_code == 200
