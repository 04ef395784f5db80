"""Completing a step with the sections a page showed (progress.services.step_events)."""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courses.models import Section
from courses.services.importing import course_import
from lms.errors import Conflict, NotEnrolled, StepNotFound
from progress.models import StepProgress
from progress.services.enrollment import enrollment_create
from progress.services.step_events import step_complete, step_event_record

pytestmark = pytest.mark.django_db

SEED = "self-hosting-27"
TRANSACTION_CONTROL = re.compile(
    r"^\s*(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT|BEGIN|COMMIT|ROLLBACK)\b"
)


def data_statements(context: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in context.captured_queries if not TRANSACTION_CONTROL.match(q["sql"])]


def kinds(module_slug: str, number: int) -> list[str]:
    return list(
        Section.objects.filter(
            step__module__slug=module_slug, step__number=number, step__status="active"
        )
        .order_by("position")
        .values_list("kind", flat=True)
    )


def row(learner, number, module=SEED) -> StepProgress:
    return StepProgress.objects.get(
        learner=learner, step__module__slug=module, step__number=number, step__status="active"
    )


def rows(learner) -> list[dict]:
    return list(StepProgress.objects.filter(learner=learner).order_by("id").values())


@pytest.fixture
def lena(make_learner, course):
    learner = make_learner("lena")
    enrollment_create(learner_id=learner.pk, module_slug=SEED)
    return learner


@pytest.fixture
def cards(monkeypatch):
    """The calls to reviews.api.cards_for_step_ensure, with whether a transaction was open."""
    calls = []

    def ensure(*, learner_id, step_id, at):
        calls.append((learner_id, step_id, at, connection.in_atomic_block))

    monkeypatch.setattr("reviews.api.cards_for_step_ensure", ensure)
    return calls


def test_the_shown_sections_count_as_viewed_and_the_step_completes(lena, cards):
    shown = kinds(SEED, 4)
    at = timezone.now()
    outcome = step_complete(
        learner_id=lena.pk, module_slug=SEED, number=4, sections_shown=shown, at=at
    )
    assert outcome.result == "applied" and outcome.missing_sections == []
    progress = row(lena, 4)
    assert progress.status == "completed" and progress.sections_viewed == shown
    assert progress.completed_at == progress.first_opened_at == progress.last_event_at == at
    # As the section_viewed events in document order would have left it.
    assert progress.last_section == shown[-1]
    assert [(c[0], c[1], c[3]) for c in cards] == [(lena.pk, progress.step_id, True)]


def test_sections_viewed_before_stay_and_only_the_missing_ones_are_added(lena, cards):
    step_kinds = kinds(SEED, 5)
    step_event_record(
        learner_id=lena.pk, module_slug=SEED, number=5, kind="section_viewed", section="uebung"
    )
    step_complete(learner_id=lena.pk, module_slug=SEED, number=5, sections_shown=step_kinds)
    progress = row(lena, 5)
    assert progress.status == "completed"
    assert sorted(progress.sections_viewed) == sorted(step_kinds)
    assert progress.sections_viewed[0] == "uebung"


def test_a_missing_section_the_page_did_not_show_refuses_and_writes_nothing(lena, cards):
    step_kinds = kinds(SEED, 6)
    before = rows(lena)
    with pytest.raises(Conflict) as refused:
        step_complete(
            learner_id=lena.pk,
            module_slug=SEED,
            number=6,
            sections_shown=[k for k in step_kinds if k not in ("uebung", "lernauftrag")],
        )
    assert refused.value.code == "sections_not_viewed"
    # Only what is still missing once the shown sections count, in document order.
    assert refused.value.detail == {
        "missing_sections": [k for k in step_kinds if k in ("uebung", "lernauftrag")]
    }
    assert rows(lena) == before and cards == []


def test_shown_sections_the_step_does_not_have_are_ignored(lena, cards):
    step_kinds = kinds(SEED, 7)
    step_complete(
        learner_id=lena.pk,
        module_slug=SEED,
        number=7,
        sections_shown=["kapitel-9", *step_kinds],
    )
    assert row(lena, 7).sections_viewed == step_kinds


def test_completing_again_changes_nothing(lena, cards):
    step_kinds = kinds(SEED, 8)
    step_complete(learner_id=lena.pk, module_slug=SEED, number=8, sections_shown=step_kinds)
    done = rows(lena)
    later = timezone.now() + datetime.timedelta(minutes=1)
    outcome = step_complete(
        learner_id=lena.pk, module_slug=SEED, number=8, sections_shown=step_kinds, at=later
    )
    assert outcome.result == "unchanged"
    assert rows(lena) == done and len(cards) == 1


def test_a_completion_older_than_the_last_status_change_is_stale(lena, cards):
    step_kinds = kinds(SEED, 9)
    step_complete(learner_id=lena.pk, module_slug=SEED, number=9, sections_shown=step_kinds)
    step_event_record(learner_id=lena.pk, module_slug=SEED, number=9, kind="reopened")
    reopened = rows(lena)
    earlier = row(lena, 9).status_changed_at - datetime.timedelta(seconds=1)
    outcome = step_complete(
        learner_id=lena.pk, module_slug=SEED, number=9, sections_shown=step_kinds, at=earlier
    )
    assert outcome.result == "stale" and rows(lena) == reopened


def test_a_failing_card_hook_rolls_the_whole_completion_back(lena, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("reviews down")

    monkeypatch.setattr("reviews.api.cards_for_step_ensure", broken)
    before = rows(lena)
    with pytest.raises(RuntimeError):
        step_complete(
            learner_id=lena.pk, module_slug=SEED, number=10, sections_shown=kinds(SEED, 10)
        )
    # The sections the page showed are not recorded either: one transaction.
    assert rows(lena) == before


def test_completing_needs_enrollment_and_an_active_step(course, make_learner, lena):
    stranger = make_learner("sam")
    with pytest.raises(NotEnrolled):
        step_complete(
            learner_id=stranger.pk, module_slug=SEED, number=1, sections_shown=kinds(SEED, 1)
        )
    with pytest.raises(StepNotFound):
        step_complete(learner_id=lena.pk, module_slug=SEED, number=99, sections_shown=[])
    assert not StepProgress.objects.filter(learner=stranger).exists()


# --- query counts ------------------------------------------------------------------------


@pytest.fixture(params=["5 sections a step", "9 sections a step"])
def sized(request, db, module_document, seed_paths, make_learner):
    """A learner enrolled in a module whose steps have 5 (a test document) or 9 (the seed)
    sections."""
    if request.param == "5 sections a step":
        course_import(paths=[module_document()])
        slug = "homelab-3"
    else:
        course_import(paths=seed_paths)
        slug = SEED
    learner = make_learner("lena")
    enrollment_create(learner_id=learner.pk, module_slug=slug)
    return learner, slug


def test_the_whole_completion_is_four_statements_whatever_the_sections(sized):
    learner, slug = sized
    shown = kinds(slug, 2)
    with CaptureQueriesContext(connection) as context:
        step_complete(learner_id=learner.pk, module_slug=slug, number=2, sections_shown=shown)
    # Lock and read the row with the step's sections, write it, and the review cards
    # (reviews.api.cards_for_step_ensure: the step's quick checks, one insert).
    statements = data_statements(context)
    assert len(statements) == 4, statements
    assert row(learner, 2, module=slug).status == "completed"


@pytest.mark.django_db(transaction=True)
def test_the_completion_is_one_real_transaction(module_document, make_learner):
    """Outside the test's wrapping transaction, as in production: BEGIN, 4 statements (and
    the review cards' savepoint), COMMIT."""
    course_import(paths=[module_document()])
    learner = make_learner("lena")
    enrollment_create(learner_id=learner.pk, module_slug="homelab-3")
    shown = kinds("homelab-3", 3)
    with CaptureQueriesContext(connection) as context:
        step_complete(
            learner_id=learner.pk, module_slug="homelab-3", number=3, sections_shown=shown
        )
    sql = [q["sql"] for q in context.captured_queries]
    assert (sql[0], sql[-1]) == ("BEGIN", "COMMIT")
    assert "BEGIN" not in sql[1:-1] and "COMMIT" not in sql[1:-1]
    statements = data_statements(context)
    assert len(statements) == 4, statements
    assert statements[0].rstrip().endswith('FOR UPDATE OF "courses_stepprogress"')
