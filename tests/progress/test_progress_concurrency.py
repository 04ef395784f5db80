"""Concurrent writes of one learner (browser and phone at once) on PostgreSQL.

The services lock the learner's enrollment row first, so two requests that both find no progress
row yet apply one after the other instead of racing into the unique constraint.
"""

import threading

import pytest
from django.db import connection

from courses.services.importing import course_import
from progress.models import ProgressEvent, StepProgress
from tests.factories import api_client_for

pytestmark = [pytest.mark.django_db(transaction=True)]

MODULE = "/api/v1/modules/homelab-3/"


def run_together(*calls):
    """Run the calls in threads released at the same moment; return their results."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def work(index, call):
        try:
            barrier.wait()
            results[index] = call()
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.fixture
def learner_client(module_document, make_learner):
    course_import(paths=[module_document()])
    learner = make_learner("lena")

    def client():
        return api_client_for(learner)

    assert client().post(MODULE + "enrollment/").status_code == 201
    return learner, client


@pytest.mark.parametrize("row", ["created at enrollment", "missing (step added later)"])
@pytest.mark.parametrize("attempt", range(2))
def test_simultaneous_events_on_a_step_all_apply(learner_client, row, attempt):
    learner, client = learner_client
    if row.startswith("missing"):
        StepProgress.objects.filter(learner=learner, step__number=2).delete()
    kinds = ["verstehen", "anwenden", "uebung", "pruefen"]
    calls = [
        (
            lambda kind=kind: (
                client()
                .post(
                    MODULE + "steps/2/progress/",
                    {"event": "section_viewed", "section": kind},
                    format="json",
                )
                .status_code
            )
        )
        for kind in kinds
    ]
    assert run_together(*calls) == [200] * len(kinds)
    row = StepProgress.objects.get(learner=learner, step__number=2)
    assert sorted(row.sections_viewed) == sorted(kinds)


def test_the_same_offline_batch_twice_at_once_applies_once(learner_client):
    learner, client = learner_client
    batch = {
        "events": [
            {
                "client_event_id": f"e{number}",
                "event": "section_viewed",
                "module": "homelab-3",
                "step": number,
                "section": "verstehen",
                "occurred_at": "2026-01-05T10:00:00Z",
            }
            for number in range(1, 6)
        ]
    }

    def sync():
        return client().post("/api/v1/progress/sync/", batch, format="json").json()["counts"]

    first, second = run_together(sync, sync)
    assert first["applied"] + second["applied"] == 5
    assert first["duplicate"] + second["duplicate"] == 5
    assert ProgressEvent.objects.filter(learner=learner).count() == 5
    assert StepProgress.objects.filter(learner=learner).count() == 5


def test_a_sync_and_online_events_at_once_lose_nothing(learner_client):
    learner, client = learner_client
    batch = {
        "events": [
            {
                "client_event_id": f"offline-{kind}",
                "event": "section_viewed",
                "module": "homelab-3",
                "step": 3,
                "section": kind,
                "occurred_at": "2026-01-05T10:00:00Z",
            }
            for kind in ("verstehen", "anwenden")
        ]
    }

    def sync():
        return client().post("/api/v1/progress/sync/", batch, format="json").status_code

    def online(kind):
        return lambda: (
            client()
            .post(
                MODULE + "steps/3/progress/",
                {"event": "section_viewed", "section": kind},
                format="json",
            )
            .status_code
        )

    assert run_together(sync, online("uebung"), online("pruefen")) == [200, 200, 200]
    row = StepProgress.objects.get(learner=learner, step__number=3)
    assert sorted(row.sections_viewed) == ["anwenden", "pruefen", "uebung", "verstehen"]
