"""The tool's pages: the platform's log-in and launch, the teacher's picker (Deep Linking),
the step into a window of Lernpfad's own, Dynamic Registration and the public keys.

A platform shows these pages in its iframe, on another site: no cookie of Lernpfad's can be
counted on there (see ``lti.launch``), so none of them needs a session or a CSRF cookie; each
carries what it needs (a signed id_token, a launch id, a registration token, a ticket).
"""

from __future__ import annotations

import functools
import logging
from urllib.parse import urlencode, urlsplit

from django.contrib.auth import login as auth_login
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key, LtiLaunch
from pylti1p3.contrib.django import DjangoMessageLaunch
from pylti1p3.exception import LtiException, OIDCException

from lms.middleware import DEFAULT_CSP
from lti import launch as lti_launch_checks
from lti import registration as dynamic_registration
from lti import services, tasks

log = logging.getLogger(__name__)

# Shown inside any platform's frame, posting forms to the platform (Deep Linking).
PLATFORM_FRAME_CSP = DEFAULT_CSP.replace("frame-ancestors 'none'", "frame-ancestors *").replace(
    "form-action 'self'", "form-action *"
)
LOGIN_PARAMETERS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
)


def platform_frame(view):
    """The page may be framed by a platform and post to it; no CSRF cookie is needed."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["Content-Security-Policy"] = PLATFORM_FRAME_CSP
        response["Cache-Control"] = "no-store"
        return response

    return csrf_exempt(xframe_options_exempt(wrapped))


def _messages() -> dict[str, str]:
    return {
        "login_invalid": _(
            "The start from your learning platform was incomplete, or it came from a platform "
            "Lernpfad does not know."
        ),
        "state": _(
            "This start has expired or was already used. Please open the link in your learning "
            "platform again."
        ),
        "cookies": _(
            "Your browser did not let Lernpfad confirm that this start began here (it blocks "
            "cookies in embedded pages). Please open the link in your learning platform again; "
            "if this repeats, ask for the link to open in a new window."
        ),
        "token_invalid": _(
            "Lernpfad could not verify the sign-in sent by your learning platform (its "
            "signature, issuer, audience or validity)."
        ),
        "deployment": _(
            "This use of Lernpfad (its deployment) is not registered or not yet activated. "
            "Please ask your administrator."
        ),
        "link_without_target": _(
            "This link does not name a Lernpfad module. Your teacher can add it again with "
            "the content selection."
        ),
        "module_gone": _("The module this link opens no longer exists in Lernpfad."),
        "teachers_only": _("Only teachers can choose what a link opens."),
        "message_type": _("Lernpfad cannot handle this kind of start."),
        "ticket": _(
            "This link has expired or was already used. Please open Lernpfad from your "
            "learning platform again."
        ),
        "registration": _("The registration with your learning platform failed."),
    }


def refused(request: HttpRequest, code: str, *, detail: str = "", status: int = 400):
    """The page that tells the person what went wrong; the log line says why, for the admin."""
    log.warning("LTI %s refused (%s): %s", request.path, code, detail or "-")
    response = render(
        request,
        "lti/refused.html",
        {"message": _messages()[code], "code": code},
        status=status,
    )
    response["Content-Security-Policy"] = PLATFORM_FRAME_CSP
    response.xframe_options_exempt = True  # shown in the platform's frame, as the other pages
    return response


def _launch_error_code(exc: Exception) -> str:
    text = str(exc)
    if isinstance(exc, lti_launch_checks.StateNotBound):
        return "cookies"
    if text in ("State not found", "Invalid Nonce", "Missing state param"):
        return "state"
    if text == "Unable to find deployment":
        return "deployment"
    return "token_invalid"


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    """The public keys platforms check Lernpfad's messages with (every active key)."""
    services.key_ensure()
    response = JsonResponse(Key.objects.as_jwks())
    response["Cache-Control"] = "public, max-age=300"
    return response


@platform_frame
@require_http_methods(["GET", "POST"])
def login(request: HttpRequest) -> HttpResponse:
    """OIDC third-party log-in initiation: a page that keeps the state where this browser
    can prove it later (the platform's storage, else a cookie) and goes on to the platform."""
    params = request.POST if request.method == "POST" else request.GET
    storage_target = params.get("lti_storage_target", "")
    services.key_ensure()
    try:
        oidc, auth_url, state = lti_launch_checks.oidc_login(request, storage_target=storage_target)
    except (LtiException, OIDCException) as exc:
        return refused(request, "login_invalid", detail=str(exc))
    new_window = (
        reverse("lti:login")
        + "?"
        + urlencode({name: params[name] for name in LOGIN_PARAMETERS if params.get(name)})
    )
    response = render(
        request,
        "lti/login.html",
        {
            "auth_url": auth_url,
            "storage_target": storage_target,
            "storage_key": lti_launch_checks.STORAGE_KEY_PREFIX + state,
            "state": state,
            "platform_origin": _origin(auth_url),
            "new_window_url": new_window,
        },
    )
    oidc._cookie_service.update_response(response)  # the state cookie, where it is kept
    return response


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@platform_frame
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    """The platform's id_token: checked, then the teacher's picker or the link's target."""
    storage_state = request.POST.get("lernpfad_storage_state")
    message = lti_launch_checks.PlatformLaunch(request, storage_state=storage_state)
    try:
        message.validate()
    except lti_launch_checks.StateNotBound as exc:
        storage = lti_launch_checks.state_storage(request.POST.get("state", ""))
        if storage and storage_state is None:
            return render(
                request,
                "lti/launch_storage.html",
                {
                    "id_token": request.POST.get("id_token", ""),
                    "state": request.POST.get("state", ""),
                    "storage_target": storage["target"],
                    "storage_key": lti_launch_checks.STORAGE_KEY_PREFIX + request.POST["state"],
                    "platform_origin": storage["origin"],
                },
            )
        return refused(request, "cookies", detail=str(exc), status=403)
    except LtiException as exc:
        code = _launch_error_code(exc)
        return refused(request, code, detail=str(exc), status=403)
    lti_launch = LtiLaunch(message)
    if lti_launch.is_deep_link_launch:
        if not services.is_teacher(lti_launch):
            return refused(request, "teachers_only", status=403)
        services.deep_link_launch_record(lti_launch)
        return render(
            request,
            "lti/deep_link.html",
            {"launch_id": message.get_launch_id(), "choices": services.deep_link_choices()},
        )
    if not lti_launch.is_resource_launch:
        return refused(
            request,
            "message_type",
            detail=str(
                lti_launch.get_claim("https://purl.imsglobal.org/spec/lti/claim/message_type")
            ),
        )
    try:
        custom = lti_launch.get_claim("https://purl.imsglobal.org/spec/lti/claim/custom") or {}
        target = services.Target.parse(custom.get(services.CUSTOM_TARGET))
        line_item_url = None
        if target.kind == services.LinkTarget.Kind.EXAM:
            line_item_url = services.exam_line_item_url(lti_launch, target)
        accepted = services.launch_accept(lti_launch, line_item_url=line_item_url)
    except services.LaunchRefused as exc:
        return refused(request, str(exc), detail=str(exc))
    if services.is_teacher(lti_launch) and lti_launch.context.memberships_url:
        try:
            tasks.roster_sync.delay(lti_launch.context.pk)
        except Exception:  # the broker is down: the launch goes on, the admin can sync later
            log.exception("LTI roster sync of %s not queued", lti_launch.context)
    token = services.launch_ticket_create(
        user_id=accepted.user_id, target_url=accepted.target.url()
    )
    return render(
        request,
        "lti/launch.html",
        {
            "title": accepted.title,
            "is_exam": accepted.target.kind == services.LinkTarget.Kind.EXAM,
            "open_url": reverse("lti:open", kwargs={"token": token}),
        },
    )


@platform_frame
@require_POST
def deep_link(request: HttpRequest) -> HttpResponse:
    """The teacher's choice, signed and posted back to the platform."""
    launch_id = request.POST.get("launch_id", "")
    storage = lti_launch_checks.launch_data_storage()
    try:
        message = DjangoMessageLaunch.from_cache(
            launch_id, request, lti_launch_checks.ToolConfig(), launch_data_storage=storage
        )
    except LtiException as exc:
        return refused(request, "state", detail=str(exc))
    lti_launch = LtiLaunch(message)
    if not lti_launch.is_deep_link_launch or not services.is_teacher(lti_launch):
        return refused(request, "teachers_only", status=403)
    try:
        return_url, jwt = services.deep_link_response(
            lti_launch, choice=request.POST.get("choice", "")
        )
    except services.LaunchRefused as exc:
        return refused(request, str(exc))
    # The launch is used: a second submit of the same picker finds nothing.
    storage.value_take(launch_id)
    return render(request, "lti/deep_link_return.html", {"return_url": return_url, "jwt": jwt})


@require_GET
def open_ticket(request: HttpRequest, token: str) -> HttpResponse:
    """In a window of Lernpfad's own: the ticket logs the person in and opens the target."""
    ticket = services.launch_ticket_redeem(token=token)
    if ticket is None or not ticket.user.is_active:
        return refused(request, "ticket", status=404)
    auth_login(request, ticket.user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(ticket.target_url)


@platform_frame
@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    """Dynamic Registration: the platform opens this with ``openid_configuration`` and
    ``registration_token``; the admin confirms, Lernpfad registers."""
    params = request.POST if request.method == "POST" else request.GET
    url = params.get("openid_configuration", "")
    token = params.get("registration_token", "")
    if not url or not token:
        return refused(request, "registration", detail="openid_configuration or token missing")
    try:
        if request.method == "GET":
            config = dynamic_registration.platform_configuration(url=url, token=token)
            return render(
                request,
                "lti/register.html",
                {"platform": config, "openid_configuration": url, "registration_token": token},
            )
        registration = dynamic_registration.platform_register(url=url, token=token)
    except dynamic_registration.RegistrationFailed as exc:
        return refused(request, "registration", detail=str(exc), status=502)
    log.info(
        "LTI platform %s registered dynamically (inactive until activated)", registration.issuer
    )
    return render(request, "lti/register_done.html", {"registration": registration})
