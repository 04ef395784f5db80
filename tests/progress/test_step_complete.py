"""Completing a step needs evidence (progress.completion_rules): its sections seen, its rated quick
checks answered, a plausible time spent; refused, every missing part is listed and nothing is
recorded. The same rule online, through the API, and in the offline sync with client time."""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from courses.models import Module, Section
from courses.services.importing import course_import
from lms.errors import Conflict, NotEnrolled, StepNotFound
from progress import api as progress_api
from progress.completion_rules import CompletionRequirement
from progress.models import StepProgress
from progress.selectors import requirement_of, with_completion_requirement
from progress.services.enrollment import enrollment_create
from progress.services.step_events import step_event_record
from progress.services.sync import progress_sync
from quizzes.services.quick_checks import quick_check_rate
from tests.factories import api_client_for, steps_complete

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


def requirement(learner, number, module=SEED) -> CompletionRequirement:
    """What completing the step asks, read as the services read it."""
    return requirement_of(
        with_completion_requirement(
            StepProgress.objects.filter(
                learner=learner, step__module__slug=module, step__number=number
            )
        ).get()
    )


def evidence(learner, number, *, at, module=SEED, quick_checks=True) -> CompletionRequirement:
    """Open the step at ``at``, see every section and (unless not) answer its quick checks."""
    common = {"learner_id": learner.pk, "module_slug": module, "number": number}
    step_event_record(**common, kind="opened", at=at)
    for kind in kinds(module, number):
        step_event_record(**common, kind="section_viewed", section=kind, at=at)
    needed = requirement(learner, number, module)
    if quick_checks:
        for quick_check_id in needed.quick_check_ids:
            quick_check_rate(
                learner_id=learner.pk,
                module_slug=module,
                step_number=number,
                quick_check_id=quick_check_id,
                rating="knew",
                at=at,
            )
    return needed


def complete(learner, number, *, at, module=SEED):
    return step_event_record(
        learner_id=learner.pk, module_slug=module, number=number, kind="completed", at=at
    )


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


def module_rule(rule: str, share: int, module=SEED) -> None:
    progress_api.completion_rule_set(
        module_id=Module.objects.get(slug=module).pk, rule=rule, reading_time_share=share
    )


# --- the default rule: sections, quick checks, time ----------------------------------------


def test_the_seed_steps_ask_for_sections_quick_checks_and_time_by_default(lena):
    needed = requirement(lena, 4)
    assert needed.rule == "sections_quick_check"
    assert needed.section_kinds == tuple(kinds(SEED, 4))
    assert needed.quick_check_ids and needed.min_seconds > 0


def test_completing_at_once_is_refused_with_every_missing_part_and_nothing_recorded(lena, cards):
    now = timezone.now()
    step_event_record(learner_id=lena.pk, module_slug=SEED, number=4, kind="opened", at=now)
    needed = requirement(lena, 4)
    before = rows(lena)
    with pytest.raises(Conflict) as refused:
        complete(lena, 4, at=now)
    assert refused.value.code == "completion_evidence_missing"
    assert refused.value.detail == {
        "missing_sections": list(needed.section_kinds),
        "missing_quick_checks": list(needed.quick_check_ids),
        "seconds_left": needed.min_seconds,
        "min_seconds": needed.min_seconds,
    }
    # Each part is named in the learner's language (German by default).
    assert "nicht gesehen" in refused.value.message
    assert rows(lena) == before and cards == []


def test_sections_quick_checks_and_the_plausible_time_complete_the_step(lena, cards):
    start = timezone.now() - datetime.timedelta(hours=1)
    needed = evidence(lena, 4, at=start)
    done_at = start + datetime.timedelta(seconds=needed.min_seconds)
    outcome = complete(lena, 4, at=done_at)
    assert outcome.result == "applied" and outcome.missing_sections == []
    progress = row(lena, 4)
    assert progress.status == "completed" and progress.completed_at == done_at
    assert progress.quick_checks_answered == list(needed.quick_check_ids)
    assert [(c[0], c[1], c[3]) for c in cards] == [(lena.pk, progress.step_id, True)]


def test_a_second_too_early_is_refused_with_the_second_left(lena, cards):
    start = timezone.now() - datetime.timedelta(hours=1)
    needed = evidence(lena, 5, at=start)
    with pytest.raises(Conflict) as refused:
        complete(lena, 5, at=start + datetime.timedelta(seconds=needed.min_seconds - 1))
    assert refused.value.detail["seconds_left"] == 1
    assert refused.value.detail["missing_sections"] == []
    assert refused.value.detail["missing_quick_checks"] == []
    assert row(lena, 5).status == "in_progress" and cards == []


def test_an_unanswered_quick_check_alone_refuses(lena, cards):
    start = timezone.now() - datetime.timedelta(hours=1)
    needed = evidence(lena, 6, at=start, quick_checks=False)
    with pytest.raises(Conflict) as refused:
        complete(lena, 6, at=timezone.now())
    assert refused.value.detail["missing_quick_checks"] == list(needed.quick_check_ids)
    assert refused.value.detail["missing_sections"] == []
    assert refused.value.detail["seconds_left"] == 0


def test_rating_a_quick_check_is_its_evidence_on_that_step(lena):
    quick_check_id = requirement(lena, 7).quick_check_ids[0]
    quick_check_rate(
        learner_id=lena.pk,
        module_slug=SEED,
        step_number=7,
        quick_check_id=quick_check_id,
        rating="not_yet",
    )
    progress = row(lena, 7)
    assert progress.quick_checks_answered == [quick_check_id]
    assert progress.status == "in_progress" and progress.first_opened_at is not None


# --- the rule per module, and completions recorded before ------------------------------------


def test_the_course_admin_picks_the_rule_per_module(lena, cards):
    now = timezone.now()
    module_rule("sections", 0)
    common = {"learner_id": lena.pk, "module_slug": SEED}
    for kind in kinds(SEED, 8):
        step_event_record(**common, number=8, kind="section_viewed", section=kind, at=now)
    # Sections seen, no quick check, no time: enough under "sections" with 0 %.
    assert complete(lena, 8, at=now).result == "applied"
    module_rule("free", 30)
    assert complete(lena, 9, at=now).result == "applied"
    module_rule("sections_quick_check", 30)
    with pytest.raises(Conflict):
        complete(lena, 10, at=now)
    assert progress_api.completion_rule_get(
        module_id=Module.objects.get(slug=SEED).pk
    ) == progress_api.CompletionRuleData("sections_quick_check", 30)


def test_completions_from_before_the_rule_stay_completed(lena, cards):
    module = Module.objects.get(slug=SEED)
    # Written straight into the table, as the one-click page left them.
    assert steps_complete(lena, module, count=3) == 3
    done = rows(lena)
    assert len(progress_api.completed_step_ids(learner_id=lena.pk, module_id=module.pk)) == 3
    # Completing again changes nothing, under any rule.
    assert complete(lena, 2, at=timezone.now()).result == "unchanged"
    module_rule("sections", 100)
    assert complete(lena, 3, at=timezone.now()).result == "unchanged"
    assert rows(lena) == done and cards == []


def test_completing_again_and_a_stale_completion_change_nothing(lena, cards):
    start = timezone.now() - datetime.timedelta(hours=1)
    evidence(lena, 11, at=start)
    complete(lena, 11, at=start + datetime.timedelta(minutes=30))
    done = rows(lena)
    assert complete(lena, 11, at=timezone.now()).result == "unchanged"
    assert rows(lena) == done and len(cards) == 1
    step_event_record(learner_id=lena.pk, module_slug=SEED, number=11, kind="reopened")
    reopened = rows(lena)
    earlier = row(lena, 11).status_changed_at - datetime.timedelta(seconds=1)
    assert complete(lena, 11, at=earlier).result == "stale" and rows(lena) == reopened


def test_a_failing_card_hook_rolls_the_whole_completion_back(lena, monkeypatch):
    start = timezone.now() - datetime.timedelta(hours=1)
    evidence(lena, 12, at=start)

    def broken(**kwargs):
        raise RuntimeError("reviews down")

    monkeypatch.setattr("reviews.api.cards_for_step_ensure", broken)
    before = rows(lena)
    with pytest.raises(RuntimeError):
        complete(lena, 12, at=timezone.now())
    assert rows(lena) == before


def test_completing_needs_enrollment_and_an_active_step(course, make_learner, lena):
    stranger = make_learner("sam")
    with pytest.raises(NotEnrolled):
        complete(stranger, 1, at=timezone.now())
    with pytest.raises(StepNotFound):
        complete(lena, 99, at=timezone.now())
    assert not StepProgress.objects.filter(learner=stranger).exists()


# --- the API and the offline sync ----------------------------------------------------------


def test_the_api_refuses_an_early_completion_with_the_documented_error(lena):
    client = api_client_for(lena)
    url = f"/api/v1/modules/{SEED}/steps/3/progress/"
    assert client.post(url, {"event": "opened"}, format="json").status_code == 200
    before = rows(lena)
    response = client.post(url, {"event": "completed"}, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    needed = requirement(lena, 3)
    assert error["code"] == "completion_evidence_missing"
    assert error["detail"]["missing_sections"] == list(needed.section_kinds)
    assert error["detail"]["missing_quick_checks"] == list(needed.quick_check_ids)
    assert 0 < error["detail"]["seconds_left"] <= needed.min_seconds
    assert rows(lena) == before


def test_offline_events_complete_by_their_client_times(lena):
    now = timezone.now()
    start = now - datetime.timedelta(hours=2)
    needed = evidence(lena, 13, at=start, quick_checks=True)
    # Sync events of two more steps, sent late: one completed in time, one too early.
    for number in (14, 15):
        for quick_check_id in requirement(lena, number).quick_check_ids:
            quick_check_rate(
                learner_id=lena.pk,
                module_slug=SEED,
                step_number=number,
                quick_check_id=quick_check_id,
                rating="knew",
                at=start,
            )

    def events(number, done_after):
        opened = start + datetime.timedelta(minutes=1)
        sent = [
            {"event": "opened", "at": opened},
            *({"event": "section_viewed", "section": k, "at": opened} for k in kinds(SEED, number)),
            {"event": "completed", "at": start + done_after},
        ]
        return [
            {
                "client_event_id": f"s{number}-{index}",
                "module": SEED,
                "step": number,
                "occurred_at": item.pop("at").isoformat(),
                **item,
            }
            for index, item in enumerate(sent)
        ]

    enough = datetime.timedelta(seconds=needed.min_seconds * 3)
    results = progress_sync(
        learner_id=lena.pk,
        events=events(14, enough) + events(15, datetime.timedelta(seconds=1)),
        now=now,
    )
    by_id = {r.client_event_id: r for r in results}
    assert by_id[f"s14-{len(kinds(SEED, 14)) + 1}"].status == "applied"
    assert row(lena, 14).status == "completed"
    assert row(lena, 14).completed_at == start + enough
    refused = by_id[f"s15-{len(kinds(SEED, 15)) + 1}"]
    # The rating at ``start`` is the first event: a second after it is too early.
    assert (refused.status, refused.code) == ("rejected", "completion_evidence_missing")
    assert refused.detail["seconds_left"] == requirement(lena, 15).min_seconds - 1
    assert row(lena, 15).status == "in_progress"


# --- query counts ------------------------------------------------------------------------


@pytest.fixture(params=["5 sections a step", "9 sections a step"])
def sized(request, db, module_document, seed_paths, make_learner):
    """A learner enrolled in a module whose steps have 5 (a test document) or 9 (the seed)
    sections, with the evidence for step 2."""
    if request.param == "5 sections a step":
        course_import(paths=[module_document()])
        slug = "homelab-3"
    else:
        course_import(paths=seed_paths)
        slug = SEED
    learner = make_learner("lena")
    enrollment_create(learner_id=learner.pk, module_slug=slug)
    evidence(learner, 2, at=timezone.now() - datetime.timedelta(hours=1), module=slug)
    return learner, slug


def test_the_whole_completion_is_four_statements_whatever_the_sections(sized):
    learner, slug = sized
    with CaptureQueriesContext(connection) as context:
        complete(learner, 2, at=timezone.now(), module=slug)
    # Lock and read the row with what the rule asks, write it, and the review cards
    # (reviews.api.cards_for_step_ensure: the step's quick checks, one insert).
    statements = data_statements(context)
    assert len(statements) == 4, statements
    assert statements[0].rstrip().endswith('FOR UPDATE OF "courses_stepprogress"')
    assert row(learner, 2, module=slug).status == "completed"


def test_a_refused_completion_is_one_statement(sized):
    learner, slug = sized
    step_event_record(learner_id=learner.pk, module_slug=slug, number=3, kind="opened")
    with CaptureQueriesContext(connection) as context, pytest.raises(Conflict):
        complete(learner, 3, at=timezone.now(), module=slug)
    assert len(data_statements(context)) == 1
