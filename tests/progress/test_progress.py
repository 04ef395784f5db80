"""Progress through the API: step events, opening a step, module progress, outline status."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courses.models import Section, Step
from courses.services.importing import course_import
from progress.models import ProgressEvent, StepProgress
from tests.factories import api_client_for, token_client
from tests.helpers.queries import assert_queries_constant, assert_queries_within

# Completing here needs every section seen (the evidence rule: test_step_complete.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("completion_by_sections_only")]

MODULE = "/api/v1/modules/self-hosting-27/"
# Statements that open or close a transaction (Django logs BEGIN/COMMIT and savepoints too): the
# budgets below count the statements that read or write data.
TRANSACTION_CONTROL = re.compile(
    r"^\s*(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT|BEGIN|COMMIT|ROLLBACK)\b"
)


def data_statements(context: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in context.captured_queries if not TRANSACTION_CONTROL.match(q["sql"])]


@pytest.fixture
def client(lena):
    return api_client_for(lena)


@pytest.fixture
def enrolled(course, client):
    assert client.post(MODULE + "enrollment/").status_code == 201
    return client


def started(learner) -> list[StepProgress]:
    """The learner's rows that record anything (enrolling creates a "not started" row per step)."""
    return list(
        StepProgress.objects.filter(learner=learner).exclude(
            status="not_started", first_opened_at__isnull=True
        )
    )


def kinds(module_slug: str, number: int) -> list[str]:
    return list(
        Section.objects.filter(
            step__module__slug=module_slug, step__number=number, step__status="active"
        )
        .order_by("position")
        .values_list("kind", flat=True)
    )


def event(client, number, name, section="", module="self-hosting-27"):
    data = {"event": name, **({"section": section} if section else {})}
    return client.post(f"/api/v1/modules/{module}/steps/{number}/progress/", data, format="json")


def complete(client, number, module="self-hosting-27"):
    for kind in kinds(module, number):
        assert event(client, number, "section_viewed", kind, module=module).status_code == 200
    response = event(client, number, "completed", module=module)
    assert response.status_code == 200, response.content
    return response.json()


def row(learner, number, module="self-hosting-27") -> StepProgress:
    return StepProgress.objects.get(
        learner=learner, step__module__slug=module, step__number=number, step__status="active"
    )


# --- events ------------------------------------------------------------------------------


def test_a_step_completes_only_after_every_section_was_viewed(enrolled, lena):
    step_kinds = kinds("self-hosting-27", 4)
    assert len(step_kinds) == 9 and step_kinds[-2:] == ["praxisaufgabe", "lernauftrag"]
    for kind in step_kinds[:-1]:
        body = event(enrolled, 4, "section_viewed", kind).json()
        assert body["result"] == "applied" and body["status"] == "in_progress"
    response = event(enrolled, 4, "completed")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "completion_evidence_missing"
    assert error["detail"] == {
        "missing_sections": ["lernauftrag"],
        "missing_quick_checks": [],
        "seconds_left": 0,
        "min_seconds": 0,
    }
    assert row(lena, 4).status == "in_progress"

    event(enrolled, 4, "section_viewed", "lernauftrag")
    body = event(enrolled, 4, "completed").json()
    assert body["status"] == "completed" and body["missing_sections"] == []
    assert body["sections_viewed"] == step_kinds
    progress = row(lena, 4)
    assert progress.status == "completed" and progress.completed_at is not None
    assert progress.first_opened_at <= progress.completed_at
    assert progress.last_section == "lernauftrag"


def test_repeating_an_event_changes_nothing(enrolled, lena):
    event(enrolled, 2, "section_viewed", "verstehen")
    before = list(StepProgress.objects.filter(learner=lena).values())
    again = event(enrolled, 2, "section_viewed", "verstehen").json()
    assert again["result"] == "unchanged"
    assert list(StepProgress.objects.filter(learner=lena).values()) == before

    complete(enrolled, 2)
    done = list(StepProgress.objects.filter(learner=lena).values())
    assert event(enrolled, 2, "completed").json()["result"] == "unchanged"
    assert list(StepProgress.objects.filter(learner=lena).values()) == done
    # Viewing a section of a completed step again keeps it completed.
    assert event(enrolled, 2, "section_viewed", "uebung").json()["status"] == "completed"


def test_reopen_and_complete_again(enrolled, lena):
    complete(enrolled, 3)
    body = event(enrolled, 3, "reopened").json()
    assert body["result"] == "applied" and body["status"] == "in_progress"
    assert body["completed_at"] is None
    assert event(enrolled, 3, "reopened").json()["result"] == "unchanged"
    # The sections stay viewed, so completing again needs no second read-through.
    assert event(enrolled, 3, "completed").json()["status"] == "completed"
    assert StepProgress.objects.filter(learner=lena).exclude(status="not_started").count() == 1


@pytest.mark.parametrize(
    "data, code",
    [
        ({"event": "section_viewed", "section": "kapitel-9"}, "unknown_section"),
        ({"event": "section_viewed", "section": "orientierung"}, "unknown_section"),
        ({"event": "section_viewed"}, "invalid"),
        ({"event": "gelesen"}, "invalid"),
        ({}, "invalid"),
    ],
)
def test_bad_events_are_400_and_write_nothing(enrolled, lena, data, code):
    response = enrolled.post(MODULE + "steps/1/progress/", data, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not started(lena)


@pytest.mark.parametrize(
    "url, code",
    [
        ("/api/v1/modules/nope/steps/1/progress/", "module_not_found"),
        (MODULE + "steps/99/progress/", "step_not_found"),
    ],
)
def test_unknown_module_or_step_is_404(enrolled, url, code):
    response = enrolled.post(url, {"event": "opened"}, format="json")
    assert response.status_code == 404 and response.json()["error"]["code"] == code


def test_events_need_enrollment(course, client):
    response = event(client, 1, "section_viewed", "verstehen")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_enrolled"
    assert not StepProgress.objects.exists()


def test_enrolling_creates_a_not_started_row_per_step(enrolled, lena):
    rows = StepProgress.objects.filter(learner=lena)
    assert rows.count() == 32 and {row.status for row in rows} == {"not_started"}


def test_completion_creates_review_cards_inside_the_transaction(enrolled, lena, monkeypatch):
    calls = []

    def ensure(*, learner_id, step_id, at):
        calls.append((learner_id, step_id, at, connection.in_atomic_block))

    monkeypatch.setattr("reviews.api.cards_for_step_ensure", ensure)
    complete(enrolled, 5)
    step = Step.objects.get(module__slug="self-hosting-27", number=5)
    assert len(calls) == 1
    learner_id, step_id, at, in_transaction = calls[0]
    assert (learner_id, step_id, in_transaction) == (lena.pk, step.pk, True)
    assert at == row(lena, 5).completed_at
    event(enrolled, 5, "completed")  # unchanged: no second call
    assert len(calls) == 1


def test_a_failing_card_hook_rolls_the_completion_back(enrolled, lena, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("reviews down")

    for kind in kinds("self-hosting-27", 6):
        event(enrolled, 6, "section_viewed", kind)
    monkeypatch.setattr("reviews.api.cards_for_step_ensure", broken)
    with pytest.raises(RuntimeError):
        event(enrolled, 6, "completed")
    assert row(lena, 6).status == "in_progress"


# --- reading a step records nothing; opening is an explicit event ---------------------------


def progress_snapshot(learner) -> list[tuple]:
    return list(
        StepProgress.objects.filter(learner=learner)
        .order_by("step_id")
        .values_list("step_id", "status", "first_opened_at", "last_event_at", "sections_viewed")
    )


def test_a_token_get_of_a_step_changes_nothing(enrolled, lena):
    """An app that prefetches a module (GET of each step, and their 304s) must not scramble
    "continue where I left off": a read records no progress and moves no resume point."""
    from knox.models import AuthToken

    enrolled.post(MODULE + "steps/3/progress/", {"event": "opened"}, format="json")
    before = progress_snapshot(lena)
    resume = enrolled.get(MODULE + "progress/").json()["next_step"]
    _, token = AuthToken.objects.create(user=lena)
    app = token_client(token)
    with CaptureQueriesContext(connection) as context:
        for number in (7, 8, 9):
            response = app.get(MODULE + f"steps/{number}/")
            assert response.status_code == 200
            again = app.get(MODULE + f"steps/{number}/", HTTP_IF_NONE_MATCH=response["ETag"])
            assert again.status_code == 304
    progress_tables = (StepProgress._meta.db_table, ProgressEvent._meta.db_table)
    writes = [
        sql
        for sql in data_statements(context)
        if re.match(r"\s*(INSERT|UPDATE|DELETE)", sql) and any(t in sql for t in progress_tables)
    ]
    assert writes == []
    assert progress_snapshot(lena) == before
    assert enrolled.get(MODULE + "progress/").json()["next_step"] == resume


def test_the_opened_event_records_the_opening_and_moves_the_resume_point(enrolled, lena):
    response = enrolled.post(MODULE + "steps/7/progress/", {"event": "opened"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "in_progress"
    progress = row(lena, 7)
    assert progress.status == "in_progress" and progress.first_opened_at is not None
    assert progress.last_event_at == progress.first_opened_at
    first = progress.first_opened_at
    enrolled.post(MODULE + "steps/7/progress/", {"event": "opened"}, format="json")
    again = row(lena, 7)
    # Opening again moves the resume point (last event) but not the first opening.
    assert again.first_opened_at == first and again.last_event_at > first
    body = enrolled.get(MODULE + "progress/").json()
    assert body["next_step"]["number"] == 7
    assert body["last_activity_at"] is not None


def test_reading_records_nothing_without_enrollment_or_log_in(course, client, api_client, lena):
    assert client.get(MODULE + "steps/1/").status_code == 200
    assert api_client.get(MODULE + "steps/1/").status_code == 200
    assert not StepProgress.objects.exists()


def test_a_step_read_costs_its_etag_only_once_cached(enrolled, api_client):
    etag = api_client.get(MODULE + "steps/9/")["ETag"]
    # The body is cached under its ETag since the anonymous read: the learner's read, and a
    # 304, read the ETag only.
    with CaptureQueriesContext(connection) as first:
        assert enrolled.get(MODULE + "steps/9/").status_code == 200
    assert len(data_statements(first)) == 1
    with CaptureQueriesContext(connection) as cached:
        assert enrolled.get(MODULE + "steps/9/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert len(data_statements(cached)) == 1


# --- module progress ---------------------------------------------------------------------


def test_progress_of_a_new_learner(enrolled):
    body = enrolled.get(MODULE + "progress/").json()
    assert body["percent_complete"] == 0 and body["total_steps"] == 32
    assert (body["completed_steps"], body["in_progress_steps"], body["not_started_steps"]) == (
        0,
        0,
        32,
    )
    assert body["next_step"] == {
        "number": 1,
        "slug": "gpu-compute",
        "term": "GPU compute",
        "section": "verstehen",
    }
    assert body["last_activity_at"] is None
    assert body["steps"][0]["status"] == "not_started"
    assert body["steps"][0]["sections_total"] == 9


def test_progress_counts_percent_and_resume_point(enrolled, lena):
    complete(enrolled, 1)
    complete(enrolled, 2)
    event(enrolled, 3, "section_viewed", "verstehen")
    event(enrolled, 3, "section_viewed", "uebung")
    body = enrolled.get(MODULE + "progress/").json()
    assert body["percent_complete"] == 6  # 2 of 32, rounded down
    assert (body["completed_steps"], body["in_progress_steps"], body["not_started_steps"]) == (
        2,
        1,
        29,
    )
    assert body["next_step"]["number"] == 3 and body["next_step"]["section"] == "uebung"
    step3 = body["steps"][2]
    assert step3["status"] == "in_progress"
    assert step3["sections_viewed"] == ["verstehen", "uebung"]
    assert "anwenden" in step3["missing_sections"] and "uebung" not in step3["missing_sections"]
    assert body["last_activity_at"] is not None


def test_progress_body_is_what_the_declared_fields_give(enrolled, lena):
    """ModuleProgressSerializer writes its dict directly; DRF's generic walk over the declared
    fields (the OpenAPI contract) must give the same: completed, started and untouched steps,
    with a resume point and without one."""
    from rest_framework import serializers

    from progress.rest.serializers import ModuleProgressSerializer
    from progress.selectors import module_progress_get

    def both():
        progress = module_progress_get(learner_id=lena.pk, module_slug="self-hosting-27")
        generic = serializers.Serializer.to_representation(ModuleProgressSerializer(), progress)
        return ModuleProgressSerializer(progress).data, generic

    direct, generic = both()
    assert direct == generic and direct["last_activity_at"] is None
    complete(enrolled, 1)
    event(enrolled, 2, "section_viewed", "verstehen")
    direct, generic = both()
    assert direct == generic
    assert [step["status"] for step in direct["steps"][:3]] == [
        "completed",
        "in_progress",
        "not_started",
    ]
    now = timezone.now()
    StepProgress.objects.filter(learner=lena).update(
        status="completed", completed_at=now, updated_at=now
    )
    direct, generic = both()
    assert direct == generic and direct["next_step"] is None


def test_resume_goes_to_the_next_unfinished_step_and_wraps(enrolled, lena):
    complete(enrolled, 3)
    assert enrolled.get(MODULE + "progress/").json()["next_step"]["number"] == 4
    # Everything but step 1 done, the last one worked on is 32: resume wraps to step 1.
    now = timezone.now()
    StepProgress.objects.filter(learner=lena, step__number__gt=1).exclude(step__number=3).update(
        status="completed", completed_at=now, updated_at=now
    )
    complete(enrolled, 32)  # already completed: unchanged, the resume point stays at 3
    enrolled.get(MODULE + "steps/32/")
    body = enrolled.get(MODULE + "progress/").json()
    assert body["completed_steps"] == 31 and body["percent_complete"] == 96
    assert body["next_step"]["number"] == 1
    complete(enrolled, 1)
    body = enrolled.get(MODULE + "progress/").json()
    assert body["percent_complete"] == 100 and body["next_step"] is None


def test_progress_needs_enrollment(course, client):
    response = client.get(MODULE + "progress/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_enrolled"
    assert client.get("/api/v1/modules/nope/progress/").json()["error"]["code"] == (
        "module_not_found"
    )


# --- module detail with the learner's status ---------------------------------------------------


def test_module_detail_shows_step_status_to_an_enrolled_learner(enrolled, client, api_client):
    complete(enrolled, 1)
    event(enrolled, 2, "section_viewed", "verstehen")
    body = enrolled.get(MODULE).json()
    statuses = [step["status"] for step in body["outline"]]
    assert statuses[:3] == ["completed", "in_progress", "not_started"]
    assert body["progress"]["percent_complete"] == 3
    assert body["progress"]["completed_steps"] == 1 and body["progress"]["total_steps"] == 32
    assert body["progress"]["next_step_number"] == 2
    anonymous = api_client.get(MODULE).json()
    assert anonymous["progress"] is None
    assert {step["status"] for step in anonymous["outline"]} == {None}


def test_module_detail_for_a_learner_who_is_not_enrolled(course, client):
    body = client.get(MODULE).json()
    assert body["progress"] is None and body["outline"][0]["status"] is None


# --- query counts ------------------------------------------------------------------------


@pytest.fixture(params=["5 steps", "32 steps"])
def sized(request, db, module_document, seed_paths, lena):
    """A module of 5 or 32 steps, the learner enrolled in it."""
    if request.param == "5 steps":
        course_import(paths=[module_document()])
        slug = "homelab-3"
    else:
        course_import(paths=seed_paths)
        slug = "self-hosting-27"
    client = api_client_for(lena)
    assert client.post(f"/api/v1/modules/{slug}/enrollment/").status_code == 201
    return slug, Step.objects.filter(module__slug=slug).count(), client


def fill_progress(learner, slug):
    """Every step completed with every section viewed (set up directly, not under test)."""
    StepProgress.objects.filter(learner=learner).delete()
    now = timezone.now()
    rows = []
    for step in Step.objects.filter(module__slug=slug).prefetch_related("sections"):
        viewed = [section.kind for section in step.sections.all()]
        rows.append(
            StepProgress(
                learner=learner,
                step=step,
                status="completed",
                first_opened_at=now,
                completed_at=now,
                sections_viewed=viewed,
                last_section=viewed[-1],
                updated_at=now,
            )
        )
    StepProgress.objects.bulk_create(rows)


def test_progress_query_count_is_constant(sized, lena):
    slug, steps, client = sized

    def read():
        body = client.get(f"/api/v1/modules/{slug}/progress/").json()
        assert body["total_steps"] == steps

    # The first time the module's outline (then cached under its content version).
    assert_queries_within(read, budget=4)
    # The content version, the enrollment and the progress rows.
    assert_queries_constant(read, grow=lambda: fill_progress(lena, slug), budget=3)
    assert client.get(f"/api/v1/modules/{slug}/progress/").json()["completed_steps"] == steps


def test_a_publish_elsewhere_changes_the_progress_page_at_once(enrolled):
    """A publish on another host writes the content and a new content version to the database
    and tells this process nothing: the next request already shows it."""
    from courses.models import Module
    from courses.services.content_versions import module_content_version_renew

    assert enrolled.get(MODULE + "progress/").json()["total_steps"] == 32
    Step.objects.filter(module__slug="self-hosting-27", number=32).update(status="retired")
    module_content_version_renew(
        module_ids=Module.objects.filter(slug="self-hosting-27").values_list("pk", flat=True)
    )
    assert enrolled.get(MODULE + "progress/").json()["total_steps"] == 31


def test_progress_steps_show_the_sections_read_in_document_order(sized, lena, make_learner):
    """Each step's sections read and missing, from rows written in any order: in the step's
    document order, a kind the step no longer has left out, steps without a row not started;
    the same body on a second read (the selector remembers the split of each distinct text and
    each not-started step) and for a second learner with the same rows."""
    slug, _, client = sized
    other = make_learner("other")
    other_client = api_client_for(other)
    assert other_client.post(f"/api/v1/modules/{slug}/enrollment/").status_code == 201
    steps = list(Step.objects.filter(module__slug=slug).order_by("number"))
    now = timezone.now()
    written = {
        # read backwards, with a kind the step does not have
        steps[0].number: ("in_progress", [*reversed(kinds(slug, steps[0].number)), "gone"]),
        # every section, in document order
        steps[1].number: ("completed", kinds(slug, steps[1].number)),
        # none read yet
        steps[2].number: ("in_progress", []),
        # only the last one
        steps[-1].number: ("in_progress", kinds(slug, steps[-1].number)[-1:]),
    }
    for learner in (lena, other):
        StepProgress.objects.filter(learner=learner).delete()
        StepProgress.objects.bulk_create(
            StepProgress(
                learner=learner,
                step=step,
                status=written[step.number][0],
                first_opened_at=now,
                completed_at=now if written[step.number][0] == "completed" else None,
                sections_viewed=written[step.number][1],
                last_section="",
                updated_at=now,
            )
            for step in steps
            if step.number in written
        )
    body = client.get(f"/api/v1/modules/{slug}/progress/").json()
    for step, shown in zip(steps, body["steps"], strict=True):
        document = kinds(slug, step.number)
        status, viewed = written.get(step.number, ("not_started", []))
        assert shown["status"] == status
        assert shown["sections_viewed"] == [kind for kind in document if kind in viewed]
        assert shown["missing_sections"] == [kind for kind in document if kind not in viewed]
        assert shown["sections_total"] == len(document)
    assert client.get(f"/api/v1/modules/{slug}/progress/").json() == body
    assert other_client.get(f"/api/v1/modules/{slug}/progress/").json()["steps"] == body["steps"]


def test_module_detail_query_count_for_a_learner(sized, lena):
    slug, steps, client = sized

    def read():
        body = client.get(f"/api/v1/modules/{slug}/").json()
        assert len(body["outline"]) == steps
        return {step["status"] for step in body["outline"]}

    # The first time also the module, its steps and their sections (then cached).
    assert_queries_within(read, budget=6)
    # The content version, the enrollment and the progress rows.
    assert_queries_constant(read, grow=lambda: fill_progress(lena, slug), budget=3)
    assert read() == {"completed"}


@pytest.mark.parametrize(
    "name, section, expected",
    [
        ("opened", "", 2),  # lock + step + progress row in one, insert
        ("section_viewed", "verstehen", 2),
        ("section_viewed_again", "verstehen", 1),  # unchanged: no write at all
        ("completed", "", 4),  # 2 + reviews.api.cards_for_step_ensure (2)
    ],
)
def test_recording_an_event_takes_at_most_4_queries(sized, lena, name, section, expected):
    slug, _, client = sized
    if name == "completed":
        for kind in kinds(slug, 1):
            event(client, 1, "section_viewed", kind, module=slug)
    if name == "section_viewed_again":
        event(client, 1, "section_viewed", section, module=slug)
    with CaptureQueriesContext(connection) as context:
        response = event(client, 1, name.removesuffix("_again"), section, module=slug)
    assert response.status_code == 200
    assert len(data_statements(context)) == expected, data_statements(context)


@pytest.mark.django_db(transaction=True)
def test_an_event_locks_its_progress_row_in_a_real_transaction(module_document, make_learner):
    """Outside the test's wrapping transaction, as in production: BEGIN, 4 statements, COMMIT."""
    course_import(paths=[module_document()])
    learner = make_learner("lena")
    client = api_client_for(learner)
    client.post("/api/v1/modules/homelab-3/enrollment/")
    for kind in kinds("homelab-3", 2):
        event(client, 2, "section_viewed", kind, module="homelab-3")
    with CaptureQueriesContext(connection) as context:
        response = event(client, 2, "completed", module="homelab-3")
    assert response.json()["status"] == "completed"
    statements = data_statements(context)
    assert len(statements) == 4, statements
    # The first statement reads progress row, step and sections and locks only the progress row.
    assert statements[0].rstrip().endswith('FOR UPDATE OF "courses_stepprogress"')
    assert [q["sql"] for q in context.captured_queries][:: len(context.captured_queries) - 1] == [
        "BEGIN",
        "COMMIT",
    ]


def test_totals_with_a_real_token_stay_within_4_queries(sized, lena):
    """Authentication included: the token lookup is one query (accounts.auth)."""
    from knox.models import AuthToken

    slug, _, _ = sized
    fill_progress(lena, slug)
    _, token = AuthToken.objects.create(user=lena)
    client = token_client(token)
    client.get(f"/api/v1/modules/{slug}/")
    client.get(f"/api/v1/modules/{slug}/progress/")
    # Content cached: the token, the content version, the enrollment, the progress rows.
    assert_queries_within(lambda: client.get(f"/api/v1/modules/{slug}/progress/"), budget=4)
    assert_queries_within(lambda: client.get(f"/api/v1/modules/{slug}/"), budget=4)
    assert client.get(f"/api/v1/modules/{slug}/").json()["progress"]["percent_complete"] == 100


def test_learner_progress_gives_each_module_progress(
    db, module_document, seed_paths, lena, make_learner
):
    """The dashboard's and statistics' read (every enrollment and progress row at once) gives
    each module exactly what module_progress_get gives, newest enrollment first; a retired
    step's row counts as activity only, and a module not enrolled in is NotEnrolled."""
    from courses.api import module_outline
    from courses.services.content_versions import module_content_version_renew
    from lms.errors import NotEnrolled
    from progress.selectors import learner_progress_get, module_progress_get

    course_import(paths=[module_document(), *seed_paths])
    client = api_client_for(lena)
    assert client.post(MODULE + "enrollment/").status_code == 201
    complete(client, 1)
    complete(client, 3)
    event(client, 2, "section_viewed", kinds("self-hosting-27", 2)[0])
    assert client.post("/api/v1/modules/homelab-3/enrollment/").status_code == 201
    complete(client, 2, module="homelab-3")
    Step.objects.filter(module__slug="self-hosting-27", number=3).update(status="retired")
    ids = [module_outline(slug).id for slug in ("homelab-3", "self-hosting-27")]
    module_content_version_renew(module_ids=ids)
    assert_queries_within(lambda: learner_progress_get(learner_id=lena.pk), budget=2)
    progress = learner_progress_get(learner_id=lena.pk)
    assert progress.module_ids == ids
    for slug in ("homelab-3", "self-hosting-27"):
        whole = progress.module(slug)
        completion = progress.completion(slug)
        assert whole == module_progress_get(learner_id=lena.pk, module_slug=slug)
        assert completion.completed_at == [s.completed_at for s in whole.steps if s.completed_at]
        assert completion.total_steps == whole.total_steps
        assert completion.percent_complete == whole.percent_complete
    assert progress.completion("self-hosting-27").completed_at  # step 1; step 3 is retired
    assert len(progress.completion("self-hosting-27").completed_at) == 1
    newcomer = learner_progress_get(learner_id=make_learner("nora").pk)
    assert newcomer.module_ids == []
    with pytest.raises(NotEnrolled):
        newcomer.module("homelab-3")
    with pytest.raises(NotEnrolled):
        newcomer.completion("homelab-3")
