"""What a launch, a grade and a roster do to Lernpfad: one function per action, one
transaction each; the network calls to the platform happen outside any transaction."""

from __future__ import annotations

import datetime
import itertools
import logging
import secrets
from dataclasses import dataclass
from decimal import Decimal

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import Key, LtiContext, LtiLaunch, LtiLineItem, LtiUser
from lti_tool.utils import sync_data_from_launch
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from accounts import api as accounts_api
from courses import api as courses_api
from lms.errors import ModuleNotFound
from lti.models import GradeSend, LaunchTicket, LinkTarget
from progress import api as progress_api
from quizzes import api as quizzes_api

log = logging.getLogger(__name__)

CUSTOM_TARGET = "lernpfad_target"
TICKET_LIFETIME = datetime.timedelta(minutes=2)
EXAM_LINE_ITEM_TAG = "lernpfad-exam"
# How long a worker may hold a grade send before another takes it as lost (killed worker).
GRADE_SEND_LEASE = datetime.timedelta(seconds=settings.LTI_GRADE_SEND_LEASE_SECONDS)
GRADE_SEND_MAX_TRIES = 12
# Seconds a call to the platform may take before the send counts as failed and is retried.
PLATFORM_TIMEOUT = 30
AGS_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
AGS_RESULT = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
AGS_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
TEACHER_ROLES = {ContextRole.INSTRUCTOR, ContextRole.ADMINISTRATOR, ContextRole.CONTENT_DEVELOPER}


class LaunchRefused(Exception):
    """A valid launch Lernpfad cannot serve; the message is for the person launching."""


@dataclass(frozen=True)
class Target:
    """What a link opens: a module or its exam, by the module's slug."""

    kind: str
    module_slug: str

    @classmethod
    def parse(cls, value: str | None) -> Target:
        kind, _sep, slug = (value or "").partition(":")
        if kind not in LinkTarget.Kind.values or not slug:
            raise LaunchRefused("link_without_target")
        return cls(kind=kind, module_slug=slug)

    def value(self) -> str:
        return f"{self.kind}:{self.module_slug}"

    def url(self) -> str:
        name = "web:exam" if self.kind == LinkTarget.Kind.EXAM else "web:module"
        return reverse(name, kwargs={"module": self.module_slug})


@dataclass(frozen=True)
class AcceptedLaunch:
    user_id: int
    target: Target
    title: str


def _roles(lti_launch: LtiLaunch) -> set[str]:
    return {normalize_role(role) for role in lti_launch.roles_claim}


def is_teacher(lti_launch: LtiLaunch) -> bool:
    return bool(_roles(lti_launch) & TEACHER_ROLES)


def _account_for(lti_user: LtiUser) -> int:
    """The Lernpfad account linked to the platform user, created on first sight. Never
    matched to an existing account by e-mail: an LTI identity is (platform, subject)."""
    if lti_user.auth_user_id is None:
        user = accounts_api.external_account_create(
            username_hint=lti_user.name or lti_user.given_name or "lti",
            full_name=lti_user.name or f"{lti_user.given_name} {lti_user.family_name}".strip(),
            email=lti_user.email,
        )
        lti_user.auth_user = user
        lti_user.save(update_fields=["auth_user", "datetime_modified"])
    return lti_user.auth_user_id


@transaction.atomic
def launch_accept(lti_launch: LtiLaunch, *, line_item_url: str | None = None) -> AcceptedLaunch:
    """A resource-link launch: django-lti's records of it, the learner's account and
    enrollment, a teacher's course-admin role and what the link opens (with its grade
    column for an exam). All or nothing."""
    custom = lti_launch.get_claim("https://purl.imsglobal.org/spec/lti/claim/custom") or {}
    target = Target.parse(custom.get(CUSTOM_TARGET))
    try:
        module = courses_api.module_by_slug(target.module_slug)
    except ModuleNotFound as exc:
        raise LaunchRefused("module_gone") from exc
    sync_data_from_launch(lti_launch)
    lti_user = lti_launch.user
    user_id = _account_for(lti_user)
    if is_teacher(lti_launch):
        # A course admin of the linked module only (courses.api.administered_module_ids).
        accounts_api.course_admin_role_grant(user_id=user_id)
        courses_api.module_administrator_platform_ensure(user_id=user_id, module_id=module.id)
    progress_api.platform_enrollment_ensure(learner_id=user_id, module_slug=module.slug)
    resource_link = lti_launch.resource_link
    line_item = None
    if target.kind == LinkTarget.Kind.EXAM and line_item_url:
        line_item, _created = LtiLineItem.objects.get_or_create(
            url=line_item_url,
            defaults={
                "context": resource_link.context,
                "resource_link": resource_link,
                "maximum_score": 100,
                "label": exam_label(module.title),
                "tag": EXAM_LINE_ITEM_TAG,
                "resource_id": target.value(),
            },
        )
    LinkTarget.objects.update_or_create(
        resource_link=resource_link,
        defaults={"kind": target.kind, "module_id": module.id, "line_item": line_item},
    )
    return AcceptedLaunch(user_id=user_id, target=target, title=module.title)


def exam_label(module_title: str) -> str:
    return f"{module_title} – Abschlussprüfung"


def exam_line_item_url(lti_launch: LtiLaunch, target: Target) -> str | None:
    """The exam's grade column for this link: the one the platform names in the launch, else
    found or created through AGS (a platform that made none at deep linking). None without
    AGS. Network calls: outside any transaction."""
    claim = lti_launch.ags_claim or {}
    if claim.get("lineitem"):
        return claim["lineitem"]
    if not claim.get("lineitems") or AGS_LINEITEM not in claim.get("scope", []):
        return None
    ags = AssignmentsGradesService(_connector(lti_launch.registration), claim)
    resource_link_id = lti_launch.resource_link_claim.get("id")
    item = ags.find_or_create_lineitem(
        LineItem()
        .set_tag(EXAM_LINE_ITEM_TAG)
        .set_resource_id(target.value())
        .set_resource_link_id(resource_link_id)
        .set_score_maximum(100)
        .set_label(exam_label(courses_api.module_by_slug(target.module_slug).title)),
        find_by="resource_link_id",
    )
    return item.get_id()


def launch_ticket_create(*, user_id: int, target_url: str) -> str:
    """A one-time token that logs the user in and opens ``target_url`` in a window of its own."""
    token = secrets.token_urlsafe(32)
    LaunchTicket.objects.create(
        token=token,
        user_id=user_id,
        target_url=target_url,
        expires_at=timezone.now() + TICKET_LIFETIME,
    )
    return token


@transaction.atomic
def launch_ticket_redeem(*, token: str) -> LaunchTicket | None:
    """The ticket, used up now; None when unknown, used or expired."""
    now = timezone.now()
    ticket = (
        LaunchTicket.objects.select_for_update()
        .select_related("user")
        .filter(token=token, used_at__isnull=True, expires_at__gt=now)
        .first()
    )
    if ticket is None:
        return None
    ticket.used_at = now
    ticket.save(update_fields=["used_at"])
    return ticket


@transaction.atomic
def deep_link_launch_record(lti_launch: LtiLaunch) -> None:
    """A teacher's content selection: the platform course and the teacher as django-lti
    records them (no account yet: that comes with the teacher's first resource launch)."""
    sync_data_from_launch(lti_launch)


def deep_link_choices() -> list[tuple[str, str]]:
    """(target value, title) of every module and its exam, for the teacher's picker."""
    choices = []
    for module in courses_api.modules_all():
        choices.append((Target(LinkTarget.Kind.MODULE, module.slug).value(), module.title))
        choices.append(
            (Target(LinkTarget.Kind.EXAM, module.slug).value(), exam_label(module.title))
        )
    return choices


def deep_link_response(lti_launch: LtiLaunch, *, choice: str) -> tuple[str, str]:
    """(the platform's return URL, the signed response naming the chosen link). An exam
    brings its grade column along (``lineItem``), so the gradebook shows it before the
    first score."""
    target = Target.parse(choice)
    title = dict(deep_link_choices()).get(choice)
    if title is None:
        raise LaunchRefused("module_gone")
    resource = (
        DeepLinkResource()
        .set_url(settings.SITE_URL + reverse("lti:launch"))
        .set_title(title)
        .set_custom_params({CUSTOM_TARGET: target.value()})
    )
    if target.kind == LinkTarget.Kind.EXAM:
        resource.set_lineitem(
            LineItem()
            .set_score_maximum(100)
            .set_label(title)
            .set_resource_id(target.value())
            .set_tag(EXAM_LINE_ITEM_TAG)
        )
    settings_claim = lti_launch.get_claim(
        "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
    )
    jwt = lti_launch.get_message_launch().get_deep_link().get_response_jwt([resource])
    return settings_claim["deep_link_return_url"], jwt


# --- Grades -----------------------------------------------------------------------------


def grade_sends_queue(*, learner_id: int, module_id: int, cause: str, at) -> list[int]:
    """In the transaction that changed the learner's exam grade: one send per grade column
    of this module's exam in a platform context the learner belongs to. Idempotent."""
    # One query where no platform links this exam (most deployments, most learners).
    columns = list(
        LinkTarget.objects.filter(
            kind=LinkTarget.Kind.EXAM,
            module_id=module_id,
            line_item__isnull=False,
            resource_link__context__memberships__user__auth_user_id=learner_id,
        )
        .values_list("line_item_id", "resource_link__context__memberships__user_id")
        .distinct()
    )
    if not columns:
        return []
    grade = quizzes_api.exam_grade(learner_id=learner_id, module_id=module_id)
    if grade is None:
        return []
    ids = []
    for line_item_id, lti_user_id in columns:
        send, _created = GradeSend.objects.get_or_create(
            line_item_id=line_item_id,
            lti_user_id=lti_user_id,
            cause=cause,
            defaults={"score_percent": grade, "changed_at": at},
        )
        ids.append(send.pk)
    return ids


def _claim(*, grade_send_id: int, now) -> GradeSend | None:
    with transaction.atomic():
        send = (
            GradeSend.objects.select_for_update(skip_locked=True)
            .select_related("line_item__context__deployment__registration", "lti_user")
            .filter(pk=grade_send_id, status=GradeSend.Status.PENDING)
            .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - GRADE_SEND_LEASE))
            .first()
        )
        if send is None:
            return None
        send.claimed_at = now
        send.tries += 1
        send.save(update_fields=["claimed_at", "tries"])
        return send


def grade_send(*, grade_send_id: int, now: datetime.datetime | None = None) -> str | None:
    """Send one score to the platform; the new status, or None when another worker holds it
    or it is done. A retry first reads the platform's result: a score that reached it
    before the worker died is not sent twice."""
    now = now or timezone.now()
    send = _claim(grade_send_id=grade_send_id, now=now)
    if send is None:
        return None
    registration = send.line_item.context.deployment.registration
    context = send.line_item.context
    scopes = [AGS_SCORE] + ([AGS_RESULT] if context.can_access_results else [])
    ags = AssignmentsGradesService(
        _connector(registration), {"scope": scopes, "lineitem": send.line_item.url}
    )
    status = None
    try:
        if send.tries > 1 and context.can_access_results and _platform_has(ags, send):
            status = 200
            log.info("LTI score %s: already on the platform, not sent again", _describe(send))
        else:
            response = ags.put_grade(_grade(send))
            status = response.get("status_code") if isinstance(response, dict) else None
            status = status or 200
            log.info("LTI score %s: sent, HTTP %s", _describe(send), status)
    except Exception as exc:  # the platform's answer or the network: retried below
        http_status = getattr(getattr(exc, "response", None), "status_code", None)
        if http_status != 409:
            return _send_failed(send, http_status=http_status, error=str(exc)[:2000], now=now)
        # 409: the platform holds a score at least as new as this one (an earlier try of this
        # send, or a later change): nothing is left to send.
        status = 409
        log.info("LTI score %s: the platform has an equal or newer score", _describe(send))
    GradeSend.objects.filter(pk=send.pk).update(
        status=GradeSend.Status.SENT,
        sent_at=timezone.now(),
        claimed_at=None,
        last_http_status=status,
        last_error="",
    )
    return GradeSend.Status.SENT


def _send_failed(send: GradeSend, *, http_status, error: str, now) -> str:
    give_up = send.tries >= GRADE_SEND_MAX_TRIES
    delay = datetime.timedelta(seconds=min(30 * 2 ** (send.tries - 1), 6 * 3600))
    status = GradeSend.Status.FAILED if give_up else GradeSend.Status.PENDING
    GradeSend.objects.filter(pk=send.pk).update(
        status=status,
        claimed_at=None,
        next_try_at=None if give_up else now + delay,
        last_http_status=http_status,
        last_error=error,
    )
    log.warning(
        "LTI score %s: platform answered %s (try %d), %s: %s",
        _describe(send),
        http_status or "no HTTP status",
        send.tries,
        "given up" if give_up else f"next try in {int(delay.total_seconds())} s",
        error[:300],
    )
    return status


def _describe(send: GradeSend) -> str:
    return (
        f"#{send.pk} ({send.cause}, user {send.lti_user.sub}, {send.score_percent} %, "
        f"column {send.line_item.url})"
    )


def _grade(send: GradeSend) -> Grade:
    return (
        Grade()
        .set_score_given(float(send.score_percent))
        .set_score_maximum(100)
        .set_timestamp(send.changed_at.isoformat())
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_user_id(send.lti_user.sub)
    )


def _platform_has(ags: AssignmentsGradesService, send: GradeSend) -> bool:
    results = ags.get_grades()
    for result in results:
        if result.get("userId") != send.lti_user.sub:
            continue
        maximum = Decimal(str(result.get("resultMaximum") or 100))
        score = result.get("resultScore")
        if score is not None and Decimal(str(score)) * 100 / maximum == send.score_percent:
            return True
    return False


def grade_sends_due(*, now: datetime.datetime | None = None) -> list[int]:
    """Sends to try now: pending and not held (or held longer than the lease), their next
    try due. The beat task enqueues them; a lost task or a killed worker is caught here."""
    now = now or timezone.now()
    return list(
        GradeSend.objects.filter(status=GradeSend.Status.PENDING)
        .filter(Q(next_try_at__isnull=True) | Q(next_try_at__lte=now))
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - GRADE_SEND_LEASE))
        .order_by("pk")
        .values_list("pk", flat=True)[:500]
    )


class _TimeoutSession(requests.Session):
    """pylti1p3 calls the platform without a timeout; a hung platform must not hang a worker."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", PLATFORM_TIMEOUT)
        return super().request(*args, **kwargs)


def _connector(registration) -> ServiceConnector:
    key_ensure()
    return ServiceConnector(registration.to_registration(), requests_session=_TimeoutSession())


# --- Roster -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RosterSynced:
    members: int
    accounts_created: int
    enrolled: int
    course_admins: int


def roster_sync(*, context_id: int) -> RosterSynced:
    """The platform course's members (NRPS) as Lernpfad accounts: learners enrolled in every
    module linked in that course, teachers made course admins of those modules. Members who
    left keep their account and progress; their membership is marked inactive."""
    context = LtiContext.objects.select_related("deployment__registration").get(pk=context_id)
    members = NamesRolesProvisioningService(
        _connector(context.deployment.registration),
        {"context_memberships_url": context.memberships_url},
    ).get_members()
    with transaction.atomic():
        context.update_memberships(members)
        linked = dict(
            LinkTarget.objects.filter(resource_link__context=context).values_list(
                "module_id", "module__slug"
            )
        )
        slugs = set(linked.values())
        created = enrolled = admins = 0
        memberships = context.memberships.select_related("user").filter(is_active=True)
        for membership in memberships:
            had_account = membership.user.auth_user_id is not None
            user_id = _account_for(membership.user)
            created += not had_account
            # Only with a module to administer: the role without one would be site-wide.
            if (membership.is_instructor or membership.is_administrator) and linked:
                accounts_api.course_admin_role_grant(user_id=user_id)
                for module_id in linked:
                    courses_api.module_administrator_platform_ensure(
                        user_id=user_id, module_id=module_id
                    )
                admins += 1
            if membership.is_learner:
                for slug in slugs:
                    enrolled += progress_api.platform_enrollment_ensure(
                        learner_id=user_id, module_slug=slug
                    )
    log.info(
        "LTI roster of %s synced: %d members, %d accounts created, %d enrollments, "
        "%d course admins",
        context,
        len(members),
        created,
        enrolled,
        admins,
    )
    return RosterSynced(len(members), created, enrolled, admins)


# --- Keys -------------------------------------------------------------------------------

KEY_GRACE = datetime.timedelta(days=settings.LTI_KEY_GRACE_DAYS)


def key_ensure() -> None:
    """There is a key to sign with (the first one is made on first use)."""
    if not Key.objects.active().exists():
        Key.objects.generate()


@transaction.atomic
def key_rotate(
    *, now: datetime.datetime | None = None, new_key: bool = True
) -> tuple[Key | None, int]:
    """A new signing key (the newest active key signs); keys whose successor has signed for
    ``LTI_KEY_GRACE_DAYS`` leave the JWKS, so platforms that cached it keep working until
    then. (the new key or None, how many keys were retired)."""
    now = now or timezone.now()
    key = Key.objects.generate() if new_key else None
    keys = list(Key.objects.active().select_for_update().order_by("-datetime_created", "-pk"))
    retired = [
        older.pk
        for newer, older in itertools.pairwise(keys)
        if newer.datetime_created <= now - KEY_GRACE
    ]
    Key.objects.filter(pk__in=retired).update(is_active=False)
    log.info("LTI keys rotated: %s new, %d retired", "1" if key else "none", len(retired))
    return key, len(retired)
