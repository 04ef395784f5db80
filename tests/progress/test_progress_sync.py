"""POST /api/v1/progress/sync/: offline events, deduplicated, in client-time order, one by one."""

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courses.models import Section
from courses.services.importing import course_import
from progress.models import ProgressEvent, StepProgress
from progress.services.sync import SYNC_MAX_EVENTS
from tests.factories import api_client_for

# Completing here needs every section seen (the evidence rule: test_step_complete.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("completion_by_sections_only")]

SYNC = "/api/v1/progress/sync/"
MODULE = "self-hosting-27"
TRANSACTION_CONTROL = re.compile(r"^\s*(SAVEPOINT|RELEASE SAVEPOINT|BEGIN|COMMIT)\b")


@pytest.fixture
def client(course, lena):
    client = api_client_for(lena)
    assert client.post(f"/api/v1/modules/{MODULE}/enrollment/").status_code == 201
    return client


def kinds(number: int, module: str = MODULE) -> list[str]:
    return list(
        Section.objects.filter(step__module__slug=module, step__number=number)
        .order_by("position")
        .values_list("kind", flat=True)
    )


def at(minutes_ago: float) -> str:
    return (timezone.now() - datetime.timedelta(minutes=minutes_ago)).isoformat()


def ev(event_id, event, step, minutes_ago, section=None, module=MODULE):
    data = {
        "client_event_id": event_id,
        "event": event,
        "module": module,
        "step": step,
        "occurred_at": at(minutes_ago),
    }
    if section:
        data["section"] = section
    return data


def step_completion_events(number: int, *, start_minutes_ago: float, prefix: str) -> list[dict]:
    """Views of every section, a minute apart, then the completion."""
    events = [
        ev(f"{prefix}-{i}", "section_viewed", number, start_minutes_ago - i, kind)
        for i, kind in enumerate(kinds(number))
    ]
    events.append(ev(f"{prefix}-done", "completed", number, start_minutes_ago - len(events)))
    return events


def sync(client, events):
    response = client.post(SYNC, {"events": events}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def row(learner, number):
    return StepProgress.objects.get(learner=learner, step__module__slug=MODULE, step__number=number)


def test_events_apply_in_client_time_order_whatever_the_order_sent(client, lena):
    events = step_completion_events(3, start_minutes_ago=60, prefix="s3")
    body = sync(client, list(reversed(events)))  # the completion arrives first
    assert body["counts"]["applied"] == len(events) and body["counts"]["rejected"] == 0
    # Results come back in the order sent.
    assert [r["client_event_id"] for r in body["results"]] == [
        e["client_event_id"] for e in reversed(events)
    ]
    progress = row(lena, 3)
    assert progress.status == "completed"
    # Times are the client's: first opening at the first view, completion at its own time.
    assert progress.first_opened_at == datetime.datetime.fromisoformat(events[0]["occurred_at"])
    assert progress.completed_at == datetime.datetime.fromisoformat(events[-1]["occurred_at"])
    assert progress.last_section == kinds(3)[-1]


def test_a_replayed_batch_changes_nothing(client, lena):
    events = step_completion_events(2, start_minutes_ago=30, prefix="s2")
    sync(client, events)
    before = list(StepProgress.objects.values())
    logged = ProgressEvent.objects.count()
    body = sync(client, events)
    assert {r["status"] for r in body["results"]} == {"duplicate"}
    assert body["counts"]["duplicate"] == len(events)
    assert list(StepProgress.objects.values()) == before
    assert ProgressEvent.objects.count() == logged == len(events)


def test_a_duplicate_id_inside_one_batch_counts_once(client, lena):
    first = ev("same", "section_viewed", 1, 5, "verstehen")
    second = ev("same", "section_viewed", 1, 4, "anwenden")
    body = sync(client, [first, second])
    assert [r["status"] for r in body["results"]] == ["applied", "duplicate"]
    assert row(lena, 1).sections_viewed == ["verstehen"]


def test_bad_events_are_rejected_one_by_one_and_the_good_ones_apply(client, lena):
    naive = ev("naive", "opened", 1, 1)
    naive["occurred_at"] = "2026-03-01T09:30:00"
    future = ev("future", "opened", 1, 1)
    future["occurred_at"] = (timezone.now() + datetime.timedelta(hours=2)).isoformat()
    events = [
        ev("ok-1", "section_viewed", 4, 10, "verstehen"),
        "not an object",
        {"event": "opened", "module": MODULE, "step": 1, "occurred_at": at(1)},
        ev("x" * 65, "opened", 1, 1),
        ev("unknown-event", "gelesen", 1, 1),
        ev("unknown-module", "opened", 1, 1, module="gibt-es-nicht"),
        ev("unknown-step", "opened", 99, 1),
        ev("bad-step", "opened", "drei", 1),
        ev("bool-step", "opened", True, 1),
        ev("unknown-section", "section_viewed", 4, 9, "kapitel-9"),
        ev("no-section", "section_viewed", 4, 9),
        ev("too-early", "completed", 4, 8),
        naive,
        future,
        ev("ancient", "opened", 1, 60 * 24 * 365 * 30),
        ev("ok-2", "section_viewed", 4, 7, "anwenden"),
    ]
    body = sync(client, events)
    by_id = {r["client_event_id"]: r for r in body["results"]}
    assert len(body["results"]) == len(events)
    assert body["counts"] == {
        "applied": 2,
        "unchanged": 0,
        "stale": 0,
        "duplicate": 0,
        "rejected": len(events) - 2,
    }
    codes = {
        "unknown-event": "unknown_event",
        "unknown-module": "module_not_found",
        "unknown-step": "step_not_found",
        "bad-step": "invalid_step",
        "bool-step": "invalid_step",
        "unknown-section": "unknown_section",
        "no-section": "invalid_section",
        "too-early": "completion_evidence_missing",
        "naive": "invalid_timestamp",
        "future": "timestamp_in_future",
        "ancient": "timestamp_too_old",
    }
    for event_id, code in codes.items():
        assert by_id[event_id]["status"] == "rejected"
        assert by_id[event_id]["error"]["code"] == code, event_id
        assert by_id[event_id]["error"]["message"]
    assert body["results"][1]["error"]["code"] == "invalid_event"
    assert body["results"][2]["error"]["code"] == "invalid_client_event_id"
    assert body["results"][2]["client_event_id"] is None
    assert body["results"][3]["error"]["code"] == "invalid_client_event_id"
    # "too-early" came after the view of "verstehen" (ok-1) and before "anwenden" (ok-2).
    assert by_id["too-early"]["error"]["detail"]["missing_sections"] == kinds(4)[1:]
    assert by_id["ok-1"]["status"] == by_id["ok-2"]["status"] == "applied"
    assert row(lena, 4).sections_viewed == ["verstehen", "anwenden"]
    assert set(ProgressEvent.objects.values_list("client_event_id", flat=True)) == {"ok-1", "ok-2"}


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("client_event_id", "nul\x00id", "invalid_client_event_id"),
        ("client_event_id", "\x00", "invalid_client_event_id"),
        ("module", "self-hosting-27\x00", "invalid_module"),
        ("module", "\x00", "invalid_module"),
        ("section", "verstehen\x00", "invalid_section"),
        ("occurred_at", "2026-03-01T09:30:00Z\x00", "invalid_timestamp"),
    ],
)
def test_a_nul_rejects_its_event_and_the_rest_of_the_batch_applies(
    client, lena, field, value, code
):
    """Issue 13: NUL in client_event_id or module reached PostgreSQL and the whole batch was a
    500; now only that event is rejected."""
    bad = ev("bad", "section_viewed", 4, 9, "anwenden")
    bad[field] = value
    body = sync(
        client,
        [ev("ok-1", "section_viewed", 4, 10, "verstehen"), bad, ev("ok-2", "opened", 5, 8)],
    )
    statuses = [r["status"] for r in body["results"]]
    assert statuses == ["applied", "rejected", "applied"]
    assert body["results"][1]["error"]["code"] == code
    assert row(lena, 4).sections_viewed == ["verstehen"]
    assert row(lena, 5).status == "in_progress"
    assert set(ProgressEvent.objects.values_list("client_event_id", flat=True)) == {"ok-1", "ok-2"}


def test_events_of_a_module_without_enrollment_are_rejected_and_can_come_again(
    client, lena, module_document
):
    course_import(paths=[module_document()])
    event = ev("homelab-1", "section_viewed", 1, 3, "verstehen", module="homelab-3")
    body = sync(client, [event])
    assert body["results"][0]["error"]["code"] == "not_enrolled"
    client.post("/api/v1/modules/homelab-3/enrollment/")
    # A rejected event is not logged, so the app may send it again once the cause is fixed.
    assert sync(client, [event])["results"][0]["status"] == "applied"


def test_a_clock_slightly_ahead_is_clamped_to_now(client, lena):
    event = ev("ahead", "opened", 6, 0)
    event["occurred_at"] = (timezone.now() + datetime.timedelta(minutes=2)).isoformat()
    before = timezone.now()
    assert sync(client, [event])["results"][0]["status"] == "applied"
    opened = row(lena, 6).first_opened_at
    assert before <= opened <= timezone.now()


def test_an_old_offline_status_change_does_not_undo_a_newer_one(client, lena):
    sync(client, step_completion_events(5, start_minutes_ago=120, prefix="s5"))
    # Completed online just now ...
    client.post(f"/api/v1/modules/{MODULE}/steps/5/progress/", {"event": "reopened"}, format="json")
    client.post(
        f"/api/v1/modules/{MODULE}/steps/5/progress/", {"event": "completed"}, format="json"
    )
    # ... then the phone syncs a reopening from an hour ago.
    body = sync(client, [ev("old-reopen", "reopened", 5, 60)])
    assert body["results"][0]["status"] == "stale"
    assert row(lena, 5).status == "completed"


def test_old_offline_views_do_not_move_the_resume_point_back(client, lena):
    opened = client.post(
        f"/api/v1/modules/{MODULE}/steps/9/progress/", {"event": "opened"}, format="json"
    )
    assert opened.status_code == 200  # opened online just now
    sync(client, [ev("old-view", "section_viewed", 2, 90, "verstehen")])
    body = client.get(f"/api/v1/modules/{MODULE}/progress/").json()
    assert body["next_step"]["number"] == 9
    assert row(lena, 2).sections_viewed == ["verstehen"]


def test_completion_through_sync_creates_review_cards(client, lena, monkeypatch):
    calls = []
    monkeypatch.setattr(
        "reviews.api.cards_for_step_ensure",
        lambda **kwargs: calls.append((kwargs, connection.in_atomic_block)),
    )
    events = step_completion_events(7, start_minutes_ago=20, prefix="s7")
    sync(client, events)
    assert len(calls) == 1
    kwargs, in_transaction = calls[0]
    assert kwargs["learner_id"] == lena.pk and in_transaction
    assert kwargs["at"] == datetime.datetime.fromisoformat(events[-1]["occurred_at"])


def test_the_batch_size_is_bounded(client, lena):
    events = [ev(f"e{i}", "opened", 1, 1) for i in range(SYNC_MAX_EVENTS + 1)]
    response = client.post(SYNC, {"events": events}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert not StepProgress.objects.exclude(status="not_started").exists()
    assert not ProgressEvent.objects.exists()
    assert client.post(SYNC, {"events": "viele"}, format="json").status_code == 400
    assert client.post(SYNC, {}, format="json").status_code == 400
    assert sync(client, [])["results"] == []


def test_sync_needs_log_in(api_client):
    assert api_client.post(SYNC, {"events": []}, format="json").status_code == 401


def test_sync_query_count_does_not_grow_with_the_batch(client, lena):
    def statements(events):
        with CaptureQueriesContext(connection) as context:
            sync(client, events)
        return [
            q["sql"] for q in context.captured_queries if not TRANSACTION_CONTROL.match(q["sql"])
        ]

    one = statements([ev("one", "section_viewed", 1, 50, "verstehen")])
    many = statements(
        [
            ev(f"many-{number}-{kind}", "section_viewed", number, 40, kind)
            for number in range(2, 12)
            for kind in kinds(number)
        ]
    )
    # module, enrollment lock, steps, known events, progress rows, insert rows, insert log.
    assert len(one) == len(many) == 7, many
    # A second batch on the same steps updates the rows instead: still 7.
    again = statements(
        [
            ev(f"again-{number}", "section_viewed", number, 30, "verstehen")
            for number in range(1, 12)
        ]
    )
    assert len(again) == 7, again


def test_the_sync_answer_carries_the_server_time(client):
    """An app checks its clock against the 5-minute rule with it."""
    before = timezone.now()
    body = sync(client, [ev("clock-1", "opened", 2, 1)])
    after = timezone.now()
    server_time = datetime.datetime.fromisoformat(body["server_time"])
    assert server_time.utcoffset() is not None
    assert before <= server_time <= after
    # Also for an empty batch, the cheapest clock check.
    assert sync(client, [])["server_time"]
