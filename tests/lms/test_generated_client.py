"""A mobile app's journey through a client generated from the live schema.

``openapi-python-client`` generates a Python client from the schema a live gunicorn (production
settings) serves, into a temporary folder; the scenario imports it and uses only what it
generated: its models for every body, its functions for every call, no casts, no hand-built
request. The client raises on any status the schema does not declare
(``raise_on_unexpected_status``), its models raise on a value an enum of the schema does not
list, and every error answer must parse as the ``Error`` body with a code that the response's
``x-error-codes`` names. Each part of the journey is one function (``STEPS``), so a new
endpoint is one more step: register with only the required fields, log in by username and by
e-mail, list and revoke devices, enroll, read the outline, download the module bundle and
re-check it (304), write notes with a stale ETag (412), post progress events, sync a batch with
a duplicate and a bad event, read the refusal of an exam start, complete the module offline,
review, review offline in a batch with reviewed_at, read stats and notifications, take the
exam, and read messages in the learner's language.
"""

from __future__ import annotations

import datetime
import importlib
import json
import subprocess
import sys
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.production import SECRET_KEY, production_env
from tests.live_gunicorn import BIN, Gunicorn

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PACKAGE = "lernpfad_client"
PASSWORD = "Mara-Lernpfad-Passwort-2026"


def client_generate(schema: dict[str, Any], folder: Path) -> Any:
    """Generate the client package from ``schema`` into ``folder`` and import it (offline:
    openapi-python-client reads the file and writes Python, nothing else)."""
    # openapi-python-client names an enum's members after their values, and the IANA names
    # "Etc/GMT+1" and "Etc/GMT-1" (two zones) both become ETCGMT1: its Python client takes the
    # time zone as a plain string, as an app developer with this generator would configure it.
    schema = json.loads(json.dumps(schema))
    schemas = schema["components"]["schemas"]
    if "TimeZoneEnum" in schemas:
        schemas["TimeZoneEnum"] = {"type": "string", "description": "An IANA time zone name."}
    # It also reads a request body's cross-field rules (exactly one of login/username/email as
    # a top-level oneOf of ``required`` lists) as a union of empty models and drops the body's
    # own class; the server still enforces them (the TypeScript client, tests/mobile, keeps
    # them in its types).
    for component in schemas.values():
        for rule in ("oneOf", "anyOf", "not", "minProperties"):
            if "properties" in component:
                component.pop(rule, None)
    (folder / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    (folder / "config.yaml").write_text(
        f"package_name_override: {PACKAGE}\nproject_name_override: lernpfad-client\n"
        "post_hooks: []\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(folder / "schema.json"),
            "--config",
            str(folder / "config.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(folder / PACKAGE),
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # Only the certificate PDF (a binary body) is left out: a Python client downloads it raw.
    output = (result.stdout + result.stderr).splitlines()
    skipped = [line for line in output if line.startswith("WARNING parsing")]
    assert skipped == ["WARNING parsing GET /api/v1/certificates/{code}/pdf/ within certificates."]
    sys.path.insert(0, str(folder))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    return importlib.import_module(PACKAGE)


def _module(dotted: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{dotted}")


@dataclass
class Journey:
    """What the steps share: the server, its schema, the generated package, the tokens."""

    url: str
    schema: dict[str, Any]
    module: str
    anonymous: Any = None
    learner: Any = None
    username: str = "mara"
    email: str = "mara@example.org"
    tokens: dict[str, str] = field(default_factory=dict)
    outline: list[Any] = field(default_factory=list)
    figures: dict[str, int] = field(default_factory=dict)
    errors_seen: list[tuple[str, str, int, str]] = field(default_factory=list)

    def api(self, dotted: str) -> Any:
        return _module(f"api.{dotted}")

    @property
    def models(self) -> Any:
        return _module("models")

    def client(self, token: str | None = None, **headers: str) -> Any:
        client_module = _module("client")
        if token is None:
            return client_module.Client(
                base_url=self.url, raise_on_unexpected_status=True, headers=headers
            )
        return client_module.AuthenticatedClient(
            base_url=self.url,
            token=token,
            prefix="Token",
            raise_on_unexpected_status=True,
            headers=headers,
        )

    def call(self, operation: str, *path: Any, **kwargs: Any) -> Any:
        """``sync_detailed`` of an operation (``"reviews.reviews_create"``); a 4xx must parse
        as the Error body with a code its response declares."""
        name = operation.split(".")[1]
        response = self.api(operation).sync_detailed(*path, **kwargs)
        status = int(response.status_code)
        if status >= 400:
            self.error_check(name, status, response.parsed)
        return response

    def error_check(self, operation_id: str, status: int, parsed: Any) -> None:
        # The Error body, or an operation's own error shape with a typed detail (the notes' 412).
        assert type(parsed).__name__.endswith("Error"), (operation_id, status, parsed)
        assert parsed.error.message, (operation_id, status, parsed)
        method, path, responses = self.operation(operation_id)
        declared = responses[str(status)]["x-error-codes"]
        assert parsed.error.code in declared, (operation_id, status, parsed.error.code, declared)
        self.errors_seen.append((method, path, status, parsed.error.code))

    def operation(self, operation_id: str) -> tuple[str, str, dict[str, Any]]:
        for path, item in self.schema["paths"].items():
            for method, operation in item.items():
                if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                    return method, path, operation["responses"]
        raise AssertionError(f"no operation {operation_id}")


# --- the steps of the journey ------------------------------------------------------------


def register_with_only_the_required_fields(j: Journey) -> None:
    m = j.models
    response = j.call(
        "auth.auth_register_create",
        client=j.anonymous,
        body=m.RegisterRequest(username=j.username, email=j.email, password=PASSWORD),
    )
    assert response.status_code == 202, response.content
    assert response.parsed.status == m.AcceptedStatusEnum.MAIL_SENT
    # The link the confirmation mail carries (the worker would send it).
    from accounts.models import User
    from accounts.tokens import email_confirmation_token

    user = User.objects.get(username=j.username)
    assert (user.language, user.display_name) == ("de", "")
    token = email_confirmation_token(user_id=user.pk, address=user.email)
    response = j.call(
        "auth.auth_email_confirmation_create",
        client=j.anonymous,
        body=m.EmailConfirmRequest(token=token),
    )
    assert response.status_code == 200, response.content


def log_in_by_username_and_by_email(j: Journey) -> None:
    m = j.models
    ways = {
        "by-username": m.TokenRequestRequest(
            username=j.username, password=PASSWORD, device_name="phone"
        ),
        "by-email": m.TokenRequestRequest(email=j.email, password=PASSWORD, device_name="tablet"),
        "by-login": m.TokenRequestRequest(login=j.email, password=PASSWORD),
    }
    for name, body in ways.items():
        response = j.call("auth.auth_token_create", client=j.anonymous, body=body)
        assert response.status_code == 200, (name, response.content)
        assert response.parsed.user.username == j.username
        j.tokens[name] = response.parsed.token
    wrong = j.call(
        "auth.auth_token_create",
        client=j.anonymous,
        body=m.TokenRequestRequest(login=j.username, password="not-the-password"),
    )
    assert wrong.status_code == 400 and wrong.parsed.error.code == "invalid_credentials"
    j.learner = j.client(j.tokens["by-username"])


def list_and_revoke_devices(j: Journey) -> None:
    devices = j.call("auth.auth_tokens_list", client=j.learner).parsed
    assert len(devices) == 3 and sum(device.current for device in devices) == 1
    tablet = next(device for device in devices if device.name == "tablet")
    response = j.call("auth.auth_tokens_destroy", tablet.id, client=j.learner)
    assert response.status_code == 204
    refused = j.call("auth.auth_tokens_list", client=j.client(j.tokens["by-email"]))
    assert refused.status_code == 401
    again = j.call("auth.auth_tokens_destroy", tablet.id, client=j.learner)
    assert again.status_code == 404 and again.parsed.error.code == "device_not_found"
    assert len(j.call("auth.auth_tokens_list", client=j.learner).parsed) == 2


def enroll(j: Journey) -> None:
    response = j.call("modules.modules_enrollment_create", j.module, client=j.learner)
    assert response.status_code == 201, response.content
    assert response.headers["Location"] == f"/api/v1/modules/{j.module}/enrollment/"
    modules = j.call("modules.modules_list", client=j.learner).parsed
    assert modules.next_ is None and modules.next_page is None
    assert j.module in [module.slug for module in modules.results]


def read_the_outline(j: Journey) -> None:
    m = j.models
    detail = j.call("modules.modules_retrieve", j.module, client=j.learner).parsed
    assert detail.progress.total_steps == len(detail.outline) > 0
    first = detail.outline[0]
    assert first.status == m.StepProgressStatusEnum.NOT_STARTED
    assert all(isinstance(kind, m.SectionKindEnum) for kind in first.section_kinds)
    j.outline = detail.outline
    step = j.call("modules.modules_steps_retrieve", j.module, 1, client=j.learner)
    assert step.status_code == 200 and step.headers["ETag"]


def download_the_module_bundle_and_recheck_it(j: Journey) -> None:
    """The whole module in one request; checking it again is a 304, a delta since the version
    held sends nothing."""
    whole = j.call("modules.modules_bundle_retrieve", j.module, client=j.learner)
    assert whole.status_code == 200, whole.content
    bundle = whole.parsed
    assert [step.number for step in bundle.steps] == [step.number for step in j.outline]
    assert bundle.version and not bundle.delta
    etag = whole.headers["ETag"]
    again = j.call(
        "modules.modules_bundle_retrieve", j.module, client=j.learner, if_none_match=etag
    )
    assert again.status_code == 304 and again.content == b""
    delta = j.call(
        "modules.modules_bundle_retrieve", j.module, client=j.learner, since=bundle.version
    ).parsed
    assert delta.delta and delta.steps == [] and delta.version == bundle.version
    j.figures["bundle_bytes"] = len(whole.content)


def write_notes_with_a_stale_etag(j: Journey) -> None:
    """A phone and a browser edit one note: the write with the ETag read before the other
    device's write is a 412 with the current text, and nothing is written."""
    m = j.models
    step = next(step for step in j.outline if m.SectionKindEnum.LERNAUFTRAG in step.section_kinds)
    read = j.call("modules.modules_steps_notes_retrieve", j.module, step.number, client=j.learner)
    stale = read.headers["ETag"]
    first = j.call(
        "modules.modules_steps_notes_update",
        j.module,
        step.number,
        client=j.learner,
        body=m.StepNotesRequest(lernauftrag="vom Telefon"),
        if_match=stale,
    )
    assert first.status_code == 200 and first.parsed.lernauftrag == "vom Telefon"
    refused = j.call(
        "modules.modules_steps_notes_update",
        j.module,
        step.number,
        client=j.learner,
        body=m.StepNotesRequest(lernauftrag="vom Browser"),
        if_match=stale,
    )
    assert refused.status_code == 412
    assert refused.parsed.error.code == m.NotesConflictCodeEnum.NOTES_CHANGED
    assert refused.parsed.error.detail.lernauftrag == "vom Telefon"
    assert refused.parsed.error.detail.etag == first.headers["ETag"]


def post_progress_events(j: Journey) -> None:
    m = j.models
    first = j.outline[0]
    opened = j.call(
        "modules.modules_steps_progress_create",
        j.module,
        1,
        client=j.learner,
        body=m.StepEventRequest(event=m.ProgressEventKindEnum.OPENED),
    ).parsed
    assert opened.status == m.StepProgressStatusEnum.IN_PROGRESS
    viewed = j.call(
        "modules.modules_steps_progress_create",
        j.module,
        1,
        client=j.learner,
        body=m.StepEventRequest(
            event=m.ProgressEventKindEnum.SECTION_VIEWED, section=first.section_kinds[0]
        ),
    ).parsed
    assert viewed.result == m.ProgressEventResultEnum.APPLIED
    too_early = j.call(
        "modules.modules_steps_progress_create",
        j.module,
        1,
        client=j.learner,
        body=m.StepEventRequest(event=m.ProgressEventKindEnum.COMPLETED),
    )
    assert too_early.status_code == 409
    assert too_early.parsed.error.code == "completion_evidence_missing"
    # Every missing part, as the schema documents it: the sections not seen among them.
    assert too_early.parsed.error.detail.missing_sections == list(first.section_kinds[1:])


def sync_a_batch_with_a_duplicate_and_a_bad_event(j: Journey) -> None:
    m = j.models
    now = datetime.datetime.now(datetime.UTC)
    opened = m.SyncOpenedEventRequest(
        client_event_id=str(uuid.uuid4()),
        event=m.SyncOpenedEventEventEnum.OPENED,
        module=j.module,
        step=2,
        occurred_at=now - datetime.timedelta(minutes=3),
    )
    no_such_step = m.SyncOpenedEventRequest(
        client_event_id=str(uuid.uuid4()),
        event=m.SyncOpenedEventEventEnum.OPENED,
        module=j.module,
        step=999,
        occurred_at=now,
    )
    body = m.SyncRequestRequest(events=[opened, opened, no_such_step])
    result = j.call("progress.progress_sync_create", client=j.learner, body=body).parsed
    statuses = [r.status for r in result.results]
    assert statuses == [
        m.SyncResultStatusEnum.APPLIED,
        m.SyncResultStatusEnum.DUPLICATE,
        m.SyncResultStatusEnum.REJECTED,
    ]
    assert result.results[2].error.code == "step_not_found"
    assert (result.counts.applied, result.counts.duplicate, result.counts.rejected) == (1, 1, 1)


def complete_every_step_offline(j: Journey) -> None:
    """The whole module read offline and synced: every section viewed, every step completed
    (section_viewed and completed events, in batches of at most 500)."""
    m = j.models
    start = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=2)
    events: list[Any] = []
    for step in j.outline:
        for kind in step.section_kinds:
            events.append(
                m.SyncSectionViewedEventRequest(
                    client_event_id=str(uuid.uuid4()),
                    event=m.SyncSectionViewedEventEventEnum.SECTION_VIEWED,
                    module=j.module,
                    step=step.number,
                    section=kind,
                    occurred_at=start + datetime.timedelta(seconds=len(events)),
                )
            )
        events.append(
            m.SyncCompletedEventRequest(
                client_event_id=str(uuid.uuid4()),
                event=m.SyncCompletedEventEventEnum.COMPLETED,
                module=j.module,
                step=step.number,
                occurred_at=start + datetime.timedelta(seconds=len(events)),
            )
        )
    for offset in range(0, len(events), 500):
        batch = m.SyncRequestRequest(events=events[offset : offset + 500])
        result = j.call("progress.progress_sync_create", client=j.learner, body=batch).parsed
        assert result.counts.rejected == 0, [r.error for r in result.results if r.error]
    progress = j.call("modules.modules_progress_retrieve", j.module, client=j.learner).parsed
    assert progress.completed_steps == progress.total_steps


def review_cards_and_read_stats(j: Journey) -> None:
    m = j.models
    due = j.call("reviews.reviews_due_retrieve", client=j.learner).parsed
    assert due.cards, "completed steps make review cards"
    card = due.cards[0]
    assert isinstance(card.kind, m.CardKindEnum) and isinstance(card.state, m.CardStateEnum)
    reviewed = j.call(
        "reviews.reviews_create",
        client=j.learner,
        body=m.ReviewCreateRequest(
            card=card.id, rating=m.ReviewRatingEnum.VALUE_3, client_review_id=str(uuid.uuid4())
        ),
    ).parsed
    assert reviewed.rating == m.ReviewRatingEnum.VALUE_3 and not reviewed.replayed
    stats = j.call("reviews.reviews_stats_retrieve", client=j.learner).parsed
    assert stats.reviews_total == 1
    faces = j.call("reviews.reviews_cards_retrieve", card.id, client=j.learner).parsed
    assert faces.back
    missing = j.call("reviews.reviews_cards_retrieve", 10**9, client=j.learner)
    assert missing.status_code == 404 and missing.parsed.error.code == "card_not_found"


def review_offline_in_a_batch(j: Journey) -> None:
    """A session done offline (the due queue with the backs), synced as one batch: each review
    from its own reviewed_at, a replay a duplicate, a time ahead of the server rejected."""
    m = j.models
    due = j.call(
        "reviews.reviews_due_retrieve", client=j.learner, include=m.ReviewsDueRetrieveInclude.BACK
    ).parsed
    cards = [card for card in due.cards if card.is_new][:2]
    assert len(cards) == 2 and all(card.back for card in cards)
    now = datetime.datetime.now(datetime.UTC)
    first = m.ReviewCreateRequest(
        card=cards[0].id,
        rating=m.ReviewRatingEnum.VALUE_3,
        client_review_id=str(uuid.uuid4()),
        reviewed_at=now,
    )
    reviews = [
        first,
        m.ReviewCreateRequest(
            card=cards[1].id,
            rating=m.ReviewRatingEnum.VALUE_1,
            client_review_id=str(uuid.uuid4()),
            reviewed_at=now,
        ),
        first,
        m.ReviewCreateRequest(
            card=cards[1].id,
            rating=m.ReviewRatingEnum.VALUE_4,
            client_review_id=str(uuid.uuid4()),
            reviewed_at=now + datetime.timedelta(hours=1),
        ),
    ]
    result = j.call(
        "reviews.reviews_batch_create", client=j.learner, body=m.ReviewBatchRequest(reviews=reviews)
    ).parsed
    statuses = [item.status for item in result.results]
    assert statuses == [
        m.ReviewBatchItemStatusEnum.APPLIED,
        m.ReviewBatchItemStatusEnum.APPLIED,
        m.ReviewBatchItemStatusEnum.DUPLICATE,
        m.ReviewBatchItemStatusEnum.REJECTED,
    ]
    assert result.results[3].error.code == m.ReviewBatchErrorCodeEnum.REVIEWED_AT_IN_FUTURE
    assert result.results[0].review.rating == m.ReviewRatingEnum.VALUE_3


def read_notifications(j: Journey) -> None:
    m = j.models
    # The reminder worker writes the digest's notification (reviews.services.reminder_sending).
    from django.utils import timezone

    from accounts.models import User
    from reviews.models import Notification

    user = User.objects.get(username=j.username)
    Notification.objects.create(
        learner_id=user.pk,
        kind=Notification.Kind.REVIEW_DIGEST,
        title="3 Karten sind fällig",
        body="Wiederhole sie jetzt.",
        payload={
            "due_count": 3,
            "url": "http://127.0.0.1/reviews/",
            "local_date": timezone.localdate().isoformat(),
        },
        created_at=timezone.now(),
    )
    page = j.call("notifications.notifications_list", client=j.learner).parsed
    assert page.count == 1 and page.next_page is None
    notification = page.results[0]
    assert notification.kind == m.NotificationKindEnum.REVIEW_DIGEST
    assert notification.payload.app_url == "lernpfad://reviews/due"
    assert notification.payload.due_count == 3
    read = j.call(
        "notifications.notifications_read_create", notification.id, client=j.learner
    ).parsed
    assert read.read_at is not None


def read_the_refused_exam_start(j: Journey) -> None:
    """Before the completion gate is open: the refusal's body, typed."""
    other = j.client(j.tokens["by-login"])
    overview = j.call("modules.modules_exam_retrieve", j.module, client=other).parsed
    assert overview.eligibility.can_start is False
    reasons = [reason.code for reason in overview.eligibility.reasons]
    assert j.models.EligibilityReasonEnum.STEPS_INCOMPLETE in reasons
    refused = j.call("modules.modules_exam_attempts_create", j.module, client=other)
    assert refused.status_code == 409
    error = refused.parsed.error
    assert error.code == "steps_incomplete" and error.message
    assert error.detail.additional_properties["reasons"][0]["code"] == "steps_incomplete"
    assert error.detail.additional_properties["steps_required"] > 0


def take_the_exam(j: Journey) -> None:
    m = j.models
    started = j.call("modules.modules_exam_attempts_create", j.module, client=j.learner)
    assert started.status_code == 201, started.content
    attempt = started.parsed
    assert started.headers["Location"] == f"/api/v1/exam-attempts/{attempt.id}/"
    answers = []
    for item in attempt.items:
        if item.kind == m.ExamItemKindEnum.SHORT_ANSWER:
            answers.append(m.AnswerInputRequest(item=item.id, text="eine Antwort"))
        elif item.kind == m.ExamItemKindEnum.NUMERICAL:
            answers.append(m.AnswerInputRequest(item=item.id, number="1"))
        elif item.kind == m.ExamItemKindEnum.MATCHING:
            pairs = [
                m.PairRequest(option=option.key, choice=item.choices[0].key)
                for option in item.options
            ]
            answers.append(m.AnswerInputRequest(item=item.id, pairs=pairs))
        else:
            answers.append(m.AnswerInputRequest(item=item.id, selected=[item.options[0].key]))
    saved = j.call(
        "exam_attempts.exam_attempts_answers_update",
        attempt.id,
        client=j.learner,
        body=m.AnswersInputRequest(answers=answers),
    ).parsed
    assert saved.answered_count == attempt.item_count
    result = j.call("exam_attempts.exam_attempts_submit_create", attempt.id, client=j.learner)
    assert result.status_code == 200, result.content
    assert result.parsed.item_count == attempt.item_count
    late = j.call(
        "exam_attempts.exam_attempts_answers_update",
        attempt.id,
        client=j.learner,
        body=m.AnswersInputRequest(answers=answers[:1]),
    )
    assert late.status_code == 409 and late.parsed.error.code == "attempt_finalized"


def messages_in_one_language(j: Journey) -> None:
    """An app's message and DRF's field details in the same language: the learner's setting
    (de) without Accept-Language, English when the request asks for it."""
    m = j.models
    body = m.ReviewCreateRequest(
        card=10**9, rating=m.ReviewRatingEnum.VALUE_1, client_review_id="x"
    )
    german = j.call("reviews.reviews_create", client=j.learner, body=body)
    assert german.headers["Content-Language"] == "de"
    assert german.parsed.error.message == "Du hast keine Lernkarte mit dieser Nummer."
    english = j.call(
        "reviews.reviews_create",
        client=j.client(j.tokens["by-username"], **{"Accept-Language": "en"}),
        body=body,
    )
    assert english.headers["Content-Language"] == "en"
    assert english.parsed.error.message == "You have no review card with this id."


STEPS = [
    register_with_only_the_required_fields,
    log_in_by_username_and_by_email,
    list_and_revoke_devices,
    enroll,
    read_the_outline,
    download_the_module_bundle_and_recheck_it,
    write_notes_with_a_stale_etag,
    post_progress_events,
    sync_a_batch_with_a_duplicate_and_a_bad_event,
    read_the_refused_exam_start,
    complete_every_step_offline,
    review_cards_and_read_stats,
    review_offline_in_a_batch,
    read_notifications,
    take_the_exam,
    messages_in_one_language,
]


def test_a_generated_client_walks_the_mobile_journey(course, tmp_path, settings):
    # The test signs the e-mail confirmation link the server would mail: the same key.
    settings.SECRET_KEY = SECRET_KEY
    # The phone syncs every step completed by its sections: the course admin's "sections" rule
    # without a minimum time (the strict default, offline too: tests/progress/test_step_complete).
    from progress import api as progress_api

    progress_api.completion_rule_set(module_id=course.pk, rule="sections", reading_time_share=0)
    env = production_env(
        GUNICORN_CONTROL_SOCKET=str(tmp_path / "gunicorn.ctl"), WEB_CONCURRENCY="1"
    )
    server = Gunicorn(env=env, log=tmp_path / "gunicorn.log")
    try:
        server.wait_until_serving("/api/v1/modules/")
        with urllib.request.urlopen(f"{server.url}/api/schema/?format=json", timeout=30) as r:
            schema = json.loads(r.read())
        client_generate(schema, tmp_path)
        journey = Journey(url=server.url, schema=schema, module=course.slug)
        journey.anonymous = journey.client()
        for step in STEPS:
            step(journey)
        print(
            f"\ngenerated client: {len(STEPS)} steps, error answers checked against "
            f"x-error-codes: {sorted(set(journey.errors_seen))}; {journey.figures}"
        )
        assert "Traceback" not in server.log.read_text(errors="replace"), server.tail(80)
    finally:
        server.stop()
        sys.path[:] = [p for p in sys.path if p != str(tmp_path)]
