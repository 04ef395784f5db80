"""The test platform's WSGI application: routing, request parsing and one handler per endpoint.

The endpoints and the control API are listed in the package docstring
(``tests/lti_platform/__init__.py``). Handlers parse the request, call the state or
lti1p3platform, and answer JSON or a rendered page.
"""

from __future__ import annotations

import json
import re
import time
import traceback
import typing as t
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import parse_qsl, urlencode

import jwt
from lti1p3platform.exceptions import (
    LineItemNotFoundException,
    LtiDeepLinkingResponseException,
    LtiException,
    MissingRequiredClaim,
    UnsupportedGrantType,
)
from lti1p3platform.response import Response, generate_next_link

from tests.lti_platform import dynamic_registration as registration
from tests.lti_platform.lti import (
    CLIENT_ASSERTION_TYPE,
    COURSE_OFFERING,
    PLATFORM_NAME,
    PRODUCT_FAMILY_CODE,
    ClientAssertions,
    LibraryRequest,
    PlatformKey,
    PlatformLaunch,
    PlatformOIDCLogin,
    ToolJwtError,
    deep_link_url,
    deep_linking_response_check,
    platform_config,
    unverified_claims,
)
from tests.lti_platform.pages import Html, render, static_text
from tests.lti_platform.services import (
    LINEITEM,
    LINEITEM_READONLY,
    RESULT_READONLY,
    SCORE,
    LineItemService,
    MembershipService,
)
from tests.lti_platform.state import INSTRUCTOR, PlatformState, StateError

STORAGE_FRAME = "lti_storage_frame"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
DL_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No Content",
    302: "Found",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    415: "Unsupported Media Type",
    422: "Unprocessable Entity",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass
class HttpRequest:
    """The parts of a WSGI request the handlers read."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    @classmethod
    def from_environ(cls, environ: dict[str, t.Any]) -> HttpRequest:
        """Parse method, path, query, headers (lower-case names) and body."""
        length = int(environ.get("CONTENT_LENGTH") or 0)
        headers = {
            key[5:].replace("_", "-").lower(): value
            for key, value in environ.items()
            if key.startswith("HTTP_")
        }
        headers["content-type"] = environ.get("CONTENT_TYPE", "")
        return cls(
            method=environ["REQUEST_METHOD"],
            path=environ.get("PATH_INFO", "/"),
            query=dict(parse_qsl(environ.get("QUERY_STRING", ""))),
            headers=headers,
            body=environ["wsgi.input"].read(length) if length else b"",
        )

    @property
    def media_type(self) -> str:
        """The Content-Type without parameters."""
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @cached_property
    def form(self) -> dict[str, str]:
        """The urlencoded form of a POST."""
        if self.media_type != "application/x-www-form-urlencoded":
            return {}
        return dict(parse_qsl(self.body.decode("utf-8", "replace")))

    @cached_property
    def json(self) -> t.Any:
        """The JSON body, or None when there is none or it does not parse."""
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    def bearer(self) -> str | None:
        """The token of an ``Authorization: Bearer`` header."""
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        return token.strip() or None if scheme.lower() == "bearer" else None


@dataclass
class HttpResponse:
    """A status, a body and headers."""

    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)


def json_response(value: t.Any, status: int = 200, **headers: str) -> HttpResponse:
    """A JSON answer (``content_type`` overrides the media type)."""
    media_type = headers.pop("content_type", "application/json")
    extra = [(name.replace("_", "-"), value) for name, value in headers.items()]
    return HttpResponse(status, json.dumps(value).encode(), [("Content-Type", media_type), *extra])


def html_response(page: str, status: int = 200) -> HttpResponse:
    """An HTML page."""
    return HttpResponse(status, page.encode(), [("Content-Type", "text/html; charset=utf-8")])


def message_page(heading: str, message: str, status: int, back: str = "") -> HttpResponse:
    """A short page with a heading, a message and perhaps a link back to the course."""
    link = render("back_link.html", url=back) if back else Html("")
    return html_response(
        render("message.html", heading=heading, message=message, back=link), status
    )


def redirect(url: str) -> HttpResponse:
    """A 302 to ``url``."""
    return HttpResponse(302, b"", [("Location", url)])


def unauthorized(message: str) -> HttpResponse:
    """A 401 with the bearer challenge."""
    return json_response(
        {"error": "invalid_token", "error_description": message},
        401,
        WWW_Authenticate='Bearer error="invalid_token"',
    )


class PlatformApp:
    """The WSGI application of one platform (issuer, state, key)."""

    def __init__(self, *, issuer: str, state: PlatformState, key: PlatformKey) -> None:
        self.issuer = issuer.rstrip("/")
        self.state = state
        self.key = key
        self.assertions = ClientAssertions()
        c = r"/contexts/(?P<context_id>[^/]+)"
        k = r"/course/(?P<context_id>[^/]+)"
        item = rf"{c}/lineitems/(?P<number>\d+)"
        patterns: list[tuple[str, str, t.Callable[..., HttpResponse]]] = [
            ("GET", r"/\.well-known/openid-configuration", self.openid_configuration),
            ("GET", r"/\.well-known/jwks\.json", self.jwks),
            ("POST", r"/register", self.register),
            ("GET", r"/admin/register", self.register_page),
            ("GET", rf"{k}/?", self.course_page),
            ("GET", rf"{k}/launch/(?P<link_id>[^/]+)", self.launch_start),
            ("GET", rf"{k}/deep-link", self.deep_link_start),
            ("GET", rf"{k}/return", self.launch_return),
            ("GET POST", r"/auth", self.authorize),
            ("POST", r"/deep-link-return", self.deep_link_return),
            ("POST", r"/token", self.token),
            ("GET POST", rf"{c}/lineitems/?", self.line_items),
            ("GET PUT DELETE", rf"{item}/?", self.line_item),
            ("POST", rf"{item}/scores/?", self.scores),
            ("GET", rf"{item}/results/?", self.results),
            ("GET", rf"{c}/memberships/?", self.memberships),
            ("GET", r"/static/platform-storage\.js", self.storage_script),
            ("GET", r"/platform-storage-frame", self.storage_frame),
            ("POST", r"/storage-log", self.storage_log),
            ("GET", r"/control/health", self.control_health),
            ("GET", r"/control/state", self.control_state),
            ("POST", r"/control/reset", self.control_reset),
            ("POST", r"/control/registration-tokens", self.control_registration_token),
            ("POST", r"/control/tools", self.control_tool),
            ("PUT", r"/control/contexts/(?P<context_id>[^/]+)", self.control_context),
            ("POST", r"/control/resource-links", self.control_resource_link),
            ("POST", r"/control/score-failures", self.control_score_failures),
            ("POST", r"/control/score-delay", self.control_score_delay),
            ("PUT", r"/control/storage", self.control_storage),
        ]
        self.routes = [
            (methods, re.compile(pattern + r"\Z"), handler)
            for methods, pattern, handler in patterns
        ]

    # -- WSGI -----------------------------------------------------------------------------------

    def __call__(self, environ: dict[str, t.Any], start_response: t.Callable) -> list[bytes]:
        """Route the request; a StateError becomes its status, anything else a logged 500."""
        request = HttpRequest.from_environ(environ)
        try:
            response = self.dispatch(request)
        except StateError as error:
            response = json_response({"error": error.message}, error.status)
        except Exception:
            traceback.print_exc()
            response = json_response({"error": traceback.format_exc(limit=3)}, 500)
        status = f"{response.status} {STATUS_TEXT.get(response.status, 'Status')}"
        headers = [*response.headers, ("Cache-Control", "no-store")]
        start_response(status, headers)
        return [response.body]

    def dispatch(self, request: HttpRequest) -> HttpResponse:
        """The handler whose pattern matches the path (405 for another method, else 404)."""
        matched = False
        for methods, pattern, handler in self.routes:
            match = pattern.match(request.path)
            if match:
                matched = True
                if request.method in methods.split():
                    return handler(request, **match.groupdict())
        if matched:
            return json_response({"error": f"{request.method} not allowed here"}, 405)
        return json_response({"error": f"no page at {request.path}"}, 404)

    # -- helpers --------------------------------------------------------------------------------

    def _config(self, tool: dict[str, t.Any]) -> t.Any:
        return platform_config(issuer=self.issuer, tool=tool, key=self.key)

    def _storage_mode(self, request: HttpRequest) -> str:
        mode = request.query.get("storage") or self.state.storage_mode()
        return mode if mode in ("parent", "frame", "off") else "parent"

    def _course_url(self, context_id: str, user_id: str, **extra: str) -> str:
        return f"{self.issuer}/course/{context_id}/?" + urlencode({"user": user_id, **extra})

    # -- dynamic registration -------------------------------------------------------------------

    def openid_configuration(self, request: HttpRequest) -> HttpResponse:
        """The platform configuration; only for a holder of a registration token."""
        token = request.bearer()
        if not token or not self.state.registration_token_valid(token, unused=False):
            return unauthorized("a registration token is required")
        return json_response(registration.openid_configuration(self.issuer))

    def jwks(self, request: HttpRequest) -> HttpResponse:
        """The platform's public keys."""
        return json_response(self.key.jwks())

    def register(self, request: HttpRequest) -> HttpResponse:
        """Dynamic registration: store the tool, answer its client_id and deployment_id."""
        token = request.bearer()
        if not token or not self.state.registration_token_valid(token, unused=True):
            return unauthorized("registration token missing, unknown or already used")
        try:
            tool = registration.client_registration_validate(request.json)
        except registration.RegistrationError as error:
            body = {"error": "invalid_client_metadata", "error_description": str(error)}
            return json_response(body, 400)
        stored = self.state.tool_register(token=token, tool=tool)
        return json_response(registration.registration_response(stored))

    def register_page(self, request: HttpRequest) -> HttpResponse:
        """The administrator's page that opens the tool's registration URL in a frame."""
        url = request.query.get("url", "")
        if not url.startswith(("http://", "https://")):
            return message_page("Registration", "url must be the tool's registration URL", 400)
        token = self.state.registration_token_create()
        params = urlencode(
            {
                "openid_configuration": f"{self.issuer}/.well-known/openid-configuration",
                "registration_token": token,
            }
        )
        src = f"{url}{'&' if '?' in url else '?'}{params}"
        return html_response(render("register.html", src=src))

    # -- course pages and launches --------------------------------------------------------------

    def course_page(self, request: HttpRequest, context_id: str) -> HttpResponse:
        """The course: its activities, each opening the tool in a frame or a new window."""
        user_id = request.query.get("user", "")
        context = self.state.context_get(context_id)
        member = self.state.member_get(context_id, user_id)
        mode = self._storage_mode(request)
        instructor = INSTRUCTOR in member["roles"]
        rows = Html(
            "".join(
                render(
                    "course_row.html",
                    id=link["id"],
                    title=link["title"],
                    open_url=self._course_url(context_id, user_id, open=link["id"], storage=mode),
                    window_url=f"{self.issuer}/course/{context_id}/launch/{link['id']}?"
                    + urlencode({"user": user_id, "target": "window"}),
                )
                for link in self.state.resource_links_in(context_id)
            )
        )
        add_link = Html("")
        if instructor:
            add_url = self._course_url(context_id, user_id, add="1", storage=mode)
            add_link = render("add_link.html", url=add_url)
        frame = Html("")
        launch_query = urlencode({"user": user_id, "storage": mode})
        if request.query.get("open"):
            link = self.state.resource_link_get(request.query["open"])
            src = f"/course/{context_id}/launch/{link['id']}?{launch_query}"
            frame = render("tool_frame.html", title=link["title"], src=src)
        elif request.query.get("add") and instructor:
            tool = request.query.get("tool")
            query = launch_query + (f"&{urlencode({'tool': tool})}" if tool else "")
            src = f"/course/{context_id}/deep-link?{query}"
            frame = render("tool_frame.html", title="Add activity", src=src)
        storage_frame = render("storage_frame.html", name=STORAGE_FRAME) if mode == "frame" else ""
        page = render(
            "course.html",
            title=context["title"],
            context_id=context_id,
            user_id=user_id,
            user_name=member["name"],
            role_label="Instructor" if instructor else "Learner",
            storage_mode=mode,
            storage_frame_name=STORAGE_FRAME,
            rows=rows,
            add_link=add_link,
            storage_frame=Html(storage_frame),
            tool_frame=frame,
        )
        return html_response(page)

    def _login_redirect(
        self, *, tool: dict[str, t.Any], user_id: str, hint: str, target: str | None, dl: bool
    ) -> HttpResponse:
        login = PlatformOIDCLogin(None, self._config(tool))
        login.set_lti_message_hint(hint=hint)
        if dl:
            login.set_deeplinking_launch_url()
        elif target:
            login.set_launch_url(target)
        url = login.initiate_login(user_id)
        storage_target = self.state.launch_get(hint)["storage_target"]
        if storage_target:
            url += "&" + urlencode({"lti_storage_target": storage_target})
        return redirect(url)

    def _storage_target(self, request: HttpRequest, document_target: str) -> str | None:
        mode = self._storage_mode(request)
        if mode == "off" or document_target == "window":
            return None
        return "_parent" if mode == "parent" else STORAGE_FRAME

    def launch_start(self, request: HttpRequest, context_id: str, link_id: str) -> HttpResponse:
        """Start a resource link launch: the OIDC login initiation to the tool."""
        user_id = request.query.get("user", "")
        self.state.member_get(context_id, user_id)
        link = self.state.resource_link_get(link_id)
        if link["context_id"] != context_id:
            raise StateError(f"{link_id} is not a link of {context_id}", 404)
        tool = self.state.tool_get(link["client_id"])
        document_target = "window" if request.query.get("target") == "window" else "iframe"
        hint = self.state.launch_create(
            message_type="LtiResourceLinkRequest",
            context_id=context_id,
            user_id=user_id,
            client_id=tool["client_id"],
            resource_link_id=link_id,
            document_target=document_target,
            storage_target=self._storage_target(request, document_target),
        )
        target = link["url"] or tool["target_link_uri"]
        return self._login_redirect(tool=tool, user_id=user_id, hint=hint, target=target, dl=False)

    def deep_link_start(self, request: HttpRequest, context_id: str) -> HttpResponse:
        """Start an instructor's "add activity": a deep-linking launch."""
        user_id = request.query.get("user", "")
        member = self.state.member_get(context_id, user_id)
        if INSTRUCTOR not in member["roles"]:
            raise StateError("only instructors add activities", 403)
        tool = self.state.tool_get(request.query.get("tool"))
        data = self.state.deep_link_create(
            context_id=context_id, user_id=user_id, client_id=tool["client_id"]
        )
        hint = self.state.launch_create(
            message_type="LtiDeepLinkingRequest",
            context_id=context_id,
            user_id=user_id,
            client_id=tool["client_id"],
            deep_link_data=data,
            document_target="iframe",
            storage_target=self._storage_target(request, "iframe"),
        )
        return self._login_redirect(tool=tool, user_id=user_id, hint=hint, target=None, dl=True)

    def launch_return(self, request: HttpRequest, context_id: str) -> HttpResponse:
        """The launch_presentation return_url: shows the tool's lti_msg or lti_errormsg."""
        self.state.log("returns", {"context_id": context_id, **request.query})
        message = request.query.get("lti_errormsg") or request.query.get("lti_msg") or ""
        back = self._course_url(context_id, request.query.get("user", ""))
        return message_page("Back from the tool", message, 200, back)

    def authorize(self, request: HttpRequest) -> HttpResponse:
        """The OIDC authorization endpoint: check the request, answer the id_token form post."""
        params = request.query if request.method == "GET" else request.form
        problems = []
        expected = {
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
        }
        for name, value in expected.items():
            if params.get(name) != value:
                problems.append(f"{name} must be {value}")
        if "openid" not in params.get("scope", "").split():
            problems.append("scope must contain openid")
        for name in ("client_id", "redirect_uri", "login_hint", "state", "nonce"):
            if not params.get(name):
                problems.append(f"{name} is missing")
        if problems:
            return message_page("Launch refused", "; ".join(problems), 400)
        tool = self.state.tool_get(params["client_id"])
        if params["redirect_uri"] not in tool["redirect_uris"]:
            return message_page("Launch refused", "redirect_uri is not registered", 400)
        hint = params.get("lti_message_hint", "")
        launch = self.state.launch_get(hint)
        if launch["client_id"] != tool["client_id"]:
            return message_page("Launch refused", "lti_message_hint is another tool's", 400)
        if launch["user_id"] != params["login_hint"]:
            return message_page("Launch refused", "login_hint is not the launching user", 400)
        form = self._id_token_form(request, params, tool, launch)
        self.state.launch_issued(hint, claims=unverified_claims(form["id_token"]))
        page = render(
            "launch_form.html",
            action=form["launch_url"],
            id_token=form["id_token"],
            state=form["state"],
        )
        return html_response(page)

    def _id_token_form(
        self,
        request: HttpRequest,
        params: dict[str, str],
        tool: dict[str, t.Any],
        launch: dict[str, t.Any],
    ) -> dict[str, str]:
        context_id, user_id = launch["context_id"], launch["user_id"]
        context = self.state.context_get(context_id)
        member = self.state.member_get(context_id, user_id)
        get_data = params if request.method == "GET" else {}
        form_data = params if request.method == "POST" else {}
        library_request = LibraryRequest(
            {"method": request.method, "get_data": get_data, "form_data": form_data}
        )
        message = PlatformLaunch(library_request, self._config(tool))
        message.set_user_data(
            user_id, member["roles"], full_name=member["name"], email_address=member["email"]
        )
        message.set_extra_claims(
            {
                "given_name": member["given_name"],
                "family_name": member["family_name"],
                "https://purl.imsglobal.org/spec/lti/claim/tool_platform": {
                    "guid": self.issuer,
                    "name": PLATFORM_NAME,
                    "product_family_code": PRODUCT_FAMILY_CODE,
                    "version": "0.1",
                },
            }
        )
        message.set_launch_context_claim(
            context_id, [COURSE_OFFERING], context["title"], context["label"]
        )
        return_url = f"{self.issuer}/course/{context_id}/return?" + urlencode({"user": user_id})
        message.set_launch_presentation_claim(launch["document_target"], return_url)
        message.set_nrps(f"{self.issuer}/contexts/{context_id}/memberships")
        lineitems_url = self.state.line_items_url(context_id)
        if launch["message_type"] == "LtiResourceLinkRequest":
            link = self.state.resource_link_get(launch["resource_link_id"])
            message.set_resource_link_claim(
                link["id"], description=link["text"] or None, title=link["title"]
            )
            message.set_custom_parameters_claim({**tool["custom_parameters"], **link["custom"]})
            items = self.state.line_items_find(
                context_id=context_id, client_id=tool["client_id"], resource_link_id=link["id"]
            )
            lineitem_url = items[0]["id"] if len(items) == 1 else None
            message.set_ags(lineitems_url, lineitem_url)
            message.set_launch_url(link["url"] or tool["target_link_uri"])
        else:
            message.set_custom_parameters_claim(dict(tool["custom_parameters"]))
            message.deep_linking_settings(
                return_url=f"{self.issuer}/deep-link-return",
                data=launch["deep_link_data"],
                title=f"Add an activity to {context['title']}",
            )
            message.set_ags(lineitems_url)
            message.set_launch_url(deep_link_url(tool))
        return message.lti_launch()

    def deep_link_return(self, request: HttpRequest) -> HttpResponse:
        """The deep-linking response: verify the tool's JWT, add the activity (and line item)."""
        token = request.form.get("JWT", "")
        try:
            return self._deep_link_accept(token)
        except (ToolJwtError, StateError) as error:
            message = error.message if isinstance(error, StateError) else str(error)
        except (jwt.PyJWTError, LtiException, LtiDeepLinkingResponseException) as error:
            message = f"{type(error).__name__}: {error}"
        except (KeyError, TypeError) as error:
            message = f"malformed content items: {error!r}"
        self.state.log("deep_link_returns", {"status": 400, "error": message})
        return message_page("Deep linking refused", message, 400)

    def _deep_link_accept(self, token: str) -> HttpResponse:
        if not token:
            raise ToolJwtError("the form has no JWT field")
        tool = self.state.tool_get(str(unverified_claims(token).get("iss")))
        config = self._config(tool)
        config.set_accepted_deeplinking_types(["ltiResourceLink"])
        items = config.validate_deeplinking_resp({"JWT": token})
        # The library verified signature and expiry; the claims it does not check follow.
        claims = unverified_claims(token)
        deep_linking_response_check(claims, issuer=self.issuer, tool=tool)
        if not isinstance(items, list) or len(items) > 1:
            raise ToolJwtError("accept_multiple is false: at most one content item")
        request = self.state.deep_link_consume(
            str(claims.get(DL_DATA)), client_id=tool["client_id"]
        )
        context_id, user_id = request["context_id"], request["user_id"]
        links = []
        for item in items:
            custom = item.get("custom") or {}
            if not isinstance(custom, dict):
                raise ToolJwtError("custom must be an object")
            links.append(
                self.state.resource_link_create(
                    context_id=context_id,
                    client_id=tool["client_id"],
                    title=item.get("title") or "Untitled activity",
                    url=item.get("url"),
                    text=item.get("text", ""),
                    custom={str(key): str(value) for key, value in custom.items()},
                    line_item=item.get("lineItem"),
                )
            )
        self.state.log(
            "deep_link_returns",
            {
                "status": 200,
                "context_id": context_id,
                "content_items": claims.get(DL_ITEMS, []),
                "resource_links": [link["id"] for link in links],
                "msg": claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/msg"),
                "errormsg": claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/errormsg"),
            },
        )
        back = self._course_url(context_id, user_id)
        if not links:
            return message_page("Nothing added", "The tool returned no activity.", 200, back)
        return message_page("Activity added", links[0]["title"], 200, back)

    # -- OAuth 2 and services -------------------------------------------------------------------

    def token(self, request: HttpRequest) -> HttpResponse:
        """The client_credentials grant with a JWT client assertion (LTI Security Framework)."""
        form = request.form
        entry: dict[str, t.Any] = {"scope": form.get("scope", "")}

        def refuse(error: str, description: str, status: int = 400) -> HttpResponse:
            self.state.log("token_requests", {**entry, "status": status, "error": description})
            return json_response({"error": error, "error_description": description}, status)

        if form.get("grant_type") != "client_credentials":
            return refuse("unsupported_grant_type", "grant_type must be client_credentials")
        if form.get("client_assertion_type") != CLIENT_ASSERTION_TYPE:
            return refuse(
                "invalid_request", f"client_assertion_type must be {CLIENT_ASSERTION_TYPE}"
            )
        try:
            claims = unverified_claims(form.get("client_assertion", ""))
            tool = self.state.tool_get(str(claims.get("sub")))
        except (ToolJwtError, StateError) as error:
            return refuse("invalid_client", str(error), 401)
        entry["client_id"] = tool["client_id"]
        requested = form.get("scope", "").split()
        granted = [scope for scope in requested if scope in tool["scope"]]
        if not granted:
            return refuse("invalid_scope", f"none of the scopes is granted to {tool['client_id']}")
        try:
            answer = self._config(tool).get_access_token({**form, "scope": " ".join(granted)})
            audiences = [f"{self.issuer}/token", self.issuer]
            self.assertions.check(claims, client_id=tool["client_id"], audiences=audiences)
        except (MissingRequiredClaim, UnsupportedGrantType) as error:
            return refuse("invalid_request", f"{type(error).__name__}: {error}")
        except (jwt.PyJWTError, LtiException, ToolJwtError) as error:
            return refuse("invalid_client", f"{type(error).__name__}: {error}", 401)
        self.state.log("token_requests", {**entry, "status": 200, "granted": answer["scope"]})
        return json_response(answer)

    def _service(
        self,
        request: HttpRequest,
        build: t.Callable[[LibraryRequest, t.Any, dict[str, t.Any]], t.Any],
        call: t.Callable[[t.Any], Response],
        query_names: tuple[str, ...] = (),
    ) -> HttpResponse:
        token = request.bearer()
        if not token:
            return unauthorized("Missing LTI 1.3 authentication token")
        try:
            tool = self.state.tool_get(str(unverified_claims(token).get("sub")))
        except (ToolJwtError, StateError):
            return unauthorized("Invalid LTI 1.3 authentication token")
        get_data: dict[str, t.Any] = {}
        for name in query_names:
            if name in request.query:
                value = request.query[name]
                get_data[name] = (
                    int(value) if name in ("page", "limit") and value.isdigit() else value
                )
        library_request = LibraryRequest(
            {
                "method": request.method,
                "get_data": get_data,
                "form_data": {},
                "headers": {"Authorization": f"Bearer {token}"},
                "content_type": request.media_type,
                "json": request.json,
                "path": request.path,
            }
        )
        service = build(library_request, self._config(tool), tool)
        try:
            answer = service.handle_resp(call, service=service)
        except LineItemNotFoundException as error:
            return json_response({"error": str(error)}, 404)
        except (jwt.PyJWTError, LtiException) as error:
            return unauthorized(f"{type(error).__name__}: {error}")
        return self._library_response(answer)

    @staticmethod
    def _library_response(answer: Response) -> HttpResponse:
        if answer.result is None:
            if answer.code == 401:
                return unauthorized(answer.message)
            if answer.code >= 400:
                return json_response({"error": answer.message}, answer.code)
            return HttpResponse(answer.code)
        result = answer.result
        headers = {}
        if isinstance(result, dict) and "content" in result and "has_next" in result:
            if result.get("next"):
                headers["Link"] = generate_next_link(result["next"])
            result = result["content"]
        return json_response(result, answer.code, content_type=answer.media_type, **headers)

    def _ags(self, context_id: str, scopes: list[str]) -> t.Callable[..., LineItemService]:
        def build(library_request: LibraryRequest, config: t.Any, tool: dict) -> LineItemService:
            self.state.context_get(context_id)
            return LineItemService(
                library_request,
                config,
                state=self.state,
                context_id=context_id,
                client_id=tool["client_id"],
                scopes=scopes,
            )

        return build

    def line_items(self, request: HttpRequest, context_id: str) -> HttpResponse:
        """AGS line item container: GET (filters resource_link_id, resource_id, tag) and POST."""
        if request.method == "GET":
            return self._service(
                request,
                self._ags(context_id, [LINEITEM, LINEITEM_READONLY]),
                lambda service: service.handle_get_lineitems(),
                ("resource_link_id", "resource_id", "tag", "limit", "page"),
            )
        return self._service(
            request,
            self._ags(context_id, [LINEITEM]),
            lambda service: service.handle_create_lineitem(),
        )

    def line_item(self, request: HttpRequest, context_id: str, number: str) -> HttpResponse:
        """One AGS line item: GET, PUT, DELETE."""
        if request.method == "GET":
            scopes = [LINEITEM, LINEITEM_READONLY]
            call = lambda service: service.handle_get_lineitem(number)  # noqa: E731
        elif request.method == "PUT":
            if not isinstance(request.json, dict):
                return json_response({"error": "the line item must be a JSON object"}, 400)
            scopes = [LINEITEM]
            call = lambda service: service.handle_update_lineitem(number)  # noqa: E731
        else:
            scopes = [LINEITEM]
            call = lambda service: service.handle_delete_lineitem(number)  # noqa: E731
        return self._service(request, self._ags(context_id, scopes), call)

    def scores(self, request: HttpRequest, context_id: str, number: str) -> HttpResponse:
        """AGS score POST; every one is logged with the status answered (failures injectable)."""
        injected = self.state.score_failure_take()
        if injected is not None:
            if injected == 401:
                response = unauthorized("injected failure")
            else:
                response = json_response({"error": "injected failure"}, injected)
        else:
            response = self._service(
                request,
                self._ags(context_id, [SCORE]),
                lambda service: service.handle_update_score(number),
            )
        body = request.json if request.json is not None else request.body.decode("utf-8", "replace")
        self.state.log(
            "score_posts",
            {
                "context_id": context_id,
                "line_item": f"{self.state.line_items_url(context_id)}/{number}",
                "content_type": request.headers.get("content-type", ""),
                "body": body,
                "status": response.status,
                "injected": injected is not None,
                "answer": response.body.decode("utf-8", "replace"),
            },
        )
        # Recorded above, answered late: the tool may be killed while it waits.
        time.sleep(self.state.score_delay_take())
        return response

    def results(self, request: HttpRequest, context_id: str, number: str) -> HttpResponse:
        """AGS results of a line item (filter user_id)."""
        return self._service(
            request,
            self._ags(context_id, [RESULT_READONLY]),
            lambda service: service.handle_get_results(number),
            ("user_id", "limit", "page"),
        )

    def memberships(self, request: HttpRequest, context_id: str) -> HttpResponse:
        """NRPS 2.0 membership container of a course (filters role, rlid)."""

        def build(library_request: LibraryRequest, config: t.Any, tool: dict) -> MembershipService:
            self.state.context_get(context_id)
            return MembershipService(
                library_request, config, state=self.state, context_id=context_id
            )

        return self._service(
            request,
            build,
            lambda service: service.handle_get_members(),
            ("role", "rlid", "limit", "page"),
        )

    # -- platform storage -----------------------------------------------------------------------

    def storage_script(self, request: HttpRequest) -> HttpResponse:
        """The platform storage script of the course page and the storage frame."""
        body = static_text("platform-storage.js").encode()
        return HttpResponse(200, body, [("Content-Type", "text/javascript; charset=utf-8")])

    def storage_frame(self, request: HttpRequest) -> HttpResponse:
        """The named frame that answers lti.put_data and lti.get_data in "frame" mode."""
        return html_response(render("storage_frame_page.html", name=STORAGE_FRAME))

    def storage_log(self, request: HttpRequest) -> HttpResponse:
        """The storage script reports each message it answered."""
        if not isinstance(request.json, dict):
            return json_response({"error": "a JSON object is expected"}, 400)
        self.state.log("storage_messages", request.json)
        return HttpResponse(204)

    # -- control API (tests only) ---------------------------------------------------------------

    def control_health(self, request: HttpRequest) -> HttpResponse:
        """Whether the platform answers (the fixture waits for this)."""
        return json_response({"ok": True, "issuer": self.issuer})

    def control_state(self, request: HttpRequest) -> HttpResponse:
        """Everything the platform knows and logged."""
        return json_response(self.state.snapshot())

    def control_reset(self, request: HttpRequest) -> HttpResponse:
        """Forget every tool, course change, link, line item, score and log."""
        self.state.reset()
        return json_response({"ok": True})

    def control_registration_token(self, request: HttpRequest) -> HttpResponse:
        """A registration token and the configuration URL a tool registers with."""
        return json_response(
            {
                "registration_token": self.state.registration_token_create(),
                "openid_configuration": f"{self.issuer}/.well-known/openid-configuration",
            }
        )

    def control_tool(self, request: HttpRequest) -> HttpResponse:
        """Register a tool without the browser dance (same JSON and answer as /register)."""
        try:
            tool = registration.client_registration_validate(request.json)
        except registration.RegistrationError as error:
            return json_response({"error": str(error)}, 400)
        stored = self.state.tool_register(token=None, tool=tool)
        return json_response(registration.registration_response(stored))

    def control_context(self, request: HttpRequest, context_id: str) -> HttpResponse:
        """Create or replace a course and its roster."""
        body = request.json
        if not isinstance(body, dict) or not isinstance(body.get("members"), list):
            return json_response({"error": "members (a list) is required"}, 400)
        context = self.state.context_set(
            context_id=context_id,
            members=body["members"],
            title=str(body.get("title", "")),
            label=str(body.get("label", "")),
        )
        return json_response(context)

    def control_resource_link(self, request: HttpRequest) -> HttpResponse:
        """Add an activity without deep linking (optionally with its line item)."""
        body = request.json
        if not isinstance(body, dict) or not body.get("title"):
            return json_response({"error": "title is required"}, 400)
        tool = self.state.tool_get(body.get("client_id"))
        link = self.state.resource_link_create(
            context_id=str(body.get("context_id", "course-1")),
            client_id=tool["client_id"],
            title=str(body["title"]),
            url=body.get("url"),
            text=str(body.get("text", "")),
            custom=body.get("custom") or {},
            line_item=body.get("line_item"),
        )
        return json_response(link, 201)

    def control_score_failures(self, request: HttpRequest) -> HttpResponse:
        """Make the next N score POSTs answer 401 or 500 (or 403, 502, 503)."""
        body = request.json if isinstance(request.json, dict) else {}
        self.state.score_failures_arm(
            count=int(body.get("count", 1)), status=int(body.get("status", 500))
        )
        return json_response(self.state.snapshot()["score_failures"])

    def control_score_delay(self, request: HttpRequest) -> HttpResponse:
        """Answer the next N score POSTs S seconds after recording them."""
        body = request.json if isinstance(request.json, dict) else {}
        self.state.score_delay_arm(
            count=int(body.get("count", 1)), seconds=float(body.get("seconds", 10))
        )
        return json_response(self.state.snapshot()["score_delay"])

    def control_storage(self, request: HttpRequest) -> HttpResponse:
        """Switch platform storage: "parent", "frame" or "off"."""
        body = request.json if isinstance(request.json, dict) else {}
        self.state.storage_mode_set(mode=str(body.get("mode")))
        return json_response({"mode": self.state.storage_mode()})
