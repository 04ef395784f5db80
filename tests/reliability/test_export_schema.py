"""GET /api/v1/me/export/ against its schema: a learner with every kind of data (world's A, plus
offline events, a reminder, calendar addresses, FSRS parameters and a fit, an exam date) and the
real export validated against the DataExport component, with no undeclared key allowed, so a
column added to the export fails here until the schema declares it."""

from __future__ import annotations

import copy
import datetime
from typing import Any

import jsonschema
import pytest
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from reliability_world import ok

from tests.factories import learner_create

pytestmark = pytest.mark.django_db

EXPORT_URL = "/api/v1/me/export/"
COMPONENT = "DataExport"


def _strict(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable`` as a null type, and every object with
    declared properties closed (``additionalProperties: false``)."""
    if isinstance(node, list):
        return [_strict(child) for child in node]
    if not isinstance(node, dict):
        return node
    node = {key: _strict(value) for key, value in node.items()}
    if node.get("type") == "object" and "properties" in node:
        node.setdefault("additionalProperties", False)
    if node.pop("nullable", False):
        if "type" in node and "enum" not in node:
            node["type"] = [node["type"], "null"]
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


def _validator() -> jsonschema.Validator:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = _strict(copy.deepcopy(schema["components"]["schemas"]))
    root = {"$ref": f"#/components/schemas/{COMPONENT}", "components": {"schemas": components}}
    return jsonschema.Draft202012Validator(root, format_checker=jsonschema.FormatChecker())


def _errors(validator: jsonschema.Validator, body: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(body)
    ]


@pytest.fixture
def full_world(world, second_module):
    """World's A with the rows the world does not make through the API yet."""
    from reviews.models import LearnerParameters, Notification, ParameterFit, ReminderDigest

    a = world.a
    ok(
        a.client.post(
            "/api/v1/progress/sync/",
            {
                "events": [
                    {
                        "client_event_id": "export-schema-1",
                        "event": "opened",
                        "module": world.module_slug,
                        "step": 3,
                        "occurred_at": timezone.now().isoformat(),
                    }
                ]
            },
        )
    )
    # A rotated address: one revoked row and a live one.
    ok(a.client.post("/api/v1/me/calendar-feed/"), 201)
    ok(a.client.post("/api/v1/me/calendar-feed/rotate/"))
    exam_on = timezone.localdate() + datetime.timedelta(days=20)
    ok(a.client.put(f"/api/v1/modules/{world.module_slug}/exam-date/", {"exam_on": exam_on}))
    now = timezone.now()
    digest = ReminderDigest.objects.create(
        learner=a.user,
        local_date=now.date(),
        status=ReminderDigest.Status.SENT,
        claimed_at=now,
        sent_at=now,
        due_count=3,
    )
    # A digest's notification as reviews.services.reminder_sending writes it.
    Notification.objects.create(
        learner=a.user,
        kind=Notification.Kind.REVIEW_DIGEST,
        title="3 Karten sind fällig",
        body="Zeit zum Wiederholen.",
        payload={
            "due_count": 3,
            "url": "https://lernpfad.example/review/",
            "local_date": digest.local_date.isoformat(),
        },
        digest=digest,
        created_at=now,
    )
    weights = [round(0.1 * n + 0.05, 2) for n in range(21)]  # FSRS-6: 21 parameters
    fit = ParameterFit.objects.create(
        learner=a.user,
        run_key="2026-12",
        fitted_at=now,
        review_count=1200,
        parameters=weights,
        log_loss=0.31,
        log_loss_before=0.35,
        rmse_bins=0.04,
        rmse_bins_before=0.06,
        adopted=True,
    )
    LearnerParameters.objects.create(learner=a.user, parameters=weights, version=1, fit=fit)
    # A course admin corrects a key of an item A answered and regrades: A's regrade row.
    from quizzes.models import ExamAttemptItem, ExamItem
    from quizzes.services.regrade import exam_item_regrade

    drawn = ExamAttemptItem.objects.filter(
        attempt__learner=a.user,
        attempt__result__isnull=False,
        item__kind__in=["single_choice", "true_false"],
    ).first()
    item = ExamItem.objects.get(pk=drawn.item_id)
    item.correct_keys = [o["key"] for o in item.options if o["key"] not in item.correct_keys][:1]
    item.save()
    exam_item_regrade(item_id=item.pk, admin=learner_create("pruefer", is_staff=True))
    # A came from an LTI platform once, and logs in through the institution's SSO.
    from allauth.account.models import EmailAddress
    from allauth.socialaccount.models import SocialAccount
    from lti_tool.models import LtiRegistration, LtiUser

    from lti import services as lti_services

    platform = LtiRegistration.objects.create(
        name="Moodle",
        issuer="https://moodle.example.org",
        client_id="lernpfad",
        auth_url="https://moodle.example.org/mod/lti/auth.php",
        token_url="https://moodle.example.org/mod/lti/token.php",
        keyset_url="https://moodle.example.org/mod/lti/certs.php",
    )
    LtiUser.objects.create(registration=platform, sub="42", name="A", auth_user=a.user)
    lti_services.launch_ticket_create(user_id=a.user.pk, target_url="/modules/x/")
    SocialAccount.objects.create(user=a.user, provider="uni-x", uid="a@uni-x.example")
    EmailAddress.objects.create(user=a.user, email=a.user.email, verified=True, primary=True)
    from courses.models import Module, ModuleAdministrator

    ModuleAdministrator.objects.create(
        user=a.user, module=Module.objects.get(slug=world.module_slug), source="platform"
    )
    return world


def test_a_full_export_matches_its_schema(full_world):
    export = ok(full_world.a.client.get(EXPORT_URL)).json()
    # Every table holds rows: the schema is checked on every kind of data, not on empty lists.
    sections = {
        "devices": export["devices"],
        "tokens": export["tokens"],
        **{f"courses.{key}": rows for key, rows in export["courses"].items()},
        **{f"quizzes.{key}": rows for key, rows in export["quizzes"].items()},
        **{f"reviews.{key}": rows for key, rows in export["reviews"].items()},
        **{f"lti.{key}": rows for key, rows in export["lti"].items()},
        "sso_identities": export["sso_identities"],
        "email_addresses": export["email_addresses"],
        "module_administrators": export["module_administrators"],
    }
    assert [name for name, rows in sections.items() if not rows] == []
    attempts = export["quizzes"]["exam_attempts"]
    assert {attempt["result"] is None for attempt in attempts} == {True, False}
    assert len(export["reviews"]["calendar_feeds"]) == 2
    errors = _errors(_validator(), export)
    assert not errors, "\n".join(errors)


def test_the_schema_refuses_an_undeclared_column_and_a_wrong_type(full_world):
    """The check above can fail: a key the schema does not declare, or a value of another type,
    is reported where it is."""
    export = ok(full_world.a.client.get(EXPORT_URL)).json()
    export["reviews"]["exam_dates"][0]["new_column"] = 1
    export["reviews"]["fsrs_parameter_fits"][0]["parameters"] = ["not a number"]
    export["account"]["groups"] = None
    errors = _errors(_validator(), export)
    assert any(e.startswith("reviews/exam_dates/0:") and "new_column" in e for e in errors), errors
    assert any(e.startswith("reviews/fsrs_parameter_fits/0/parameters/0:") for e in errors), errors
    assert any(e.startswith("account/groups:") for e in errors), errors


def test_the_export_declares_every_key_it_has():
    """No free-form object left in the export's schema: every object lists its properties."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    seen: set[str] = set()
    free_form: list[str] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref:
                name = ref.rsplit("/", 1)[-1]
                if name not in seen:
                    seen.add(name)
                    walk(components[name], name)
                return
            if node.get("type") == "object" and "properties" not in node:
                free_form.append(where)
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for child in node:
                walk(child, where)

    walk({"$ref": f"#/components/schemas/{COMPONENT}"}, COMPONENT)
    assert free_form == []
    assert {"ExportCalendarFeed", "ExportParameterFit", "ExportExamDate"} <= seen
