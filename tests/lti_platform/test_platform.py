"""The test platform speaks LTI 1.3 to a third-party tool library (pylti1p3), not only to ours.

pylti1p3 plays the tool: its OIDC login builds the authorization request, its MessageLaunch
validates the id_token against the platform's JWKS (signature, nonce, state, deployment,
claims), its ServiceConnector gets access tokens with a client assertion, and its AGS, NRPS and
DeepLink classes call the services. The tool's public keys are served by a small JWKS server in
this process; the browser is replaced by ``requests`` following the platform's redirects and
forms. No database and no browser.
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.cookie import CookieService
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.registration import Registration
from pylti1p3.request import Request
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfDict

from tests.helpers.ports import free_port
from tests.lti_platform import RunningPlatform
from tests.lti_platform.fixtures import lti_platform_module  # noqa: F401

TOOL = "http://127.0.0.1:9"  # the tool's pages are never fetched: the test plays the browser
LOGIN_URL = f"{TOOL}/lti/login"
LAUNCH_URL = f"{TOOL}/lti/launch"
DEEP_LINK_URL = f"{TOOL}/lti/deep-link"
AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"


# -- pylti1p3 needs a request, cookies and redirects of some web framework: plain ones here ------


class ToolRequest(Request):
    """A request to the tool: its parameters and the browser session's dict."""

    def __init__(self, params: dict[str, str], session: dict[str, Any]) -> None:
        self.params = params
        self._session = session

    @property
    def session(self) -> dict[str, Any]:
        return self._session

    def is_secure(self) -> bool:
        return False

    def get_param(self, key: str) -> str:
        return self.params.get(key, "")


class ToolCookies(CookieService):
    """The tool's cookies, as a browser that keeps them would."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get_cookie(self, name: str) -> str | None:
        return self.values.get(name)

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self.values[name] = str(value)


class UrlRedirect(Redirect[str]):
    """A redirect is its URL."""

    def __init__(self, url: str) -> None:
        self.url = url

    def do_redirect(self) -> str:
        return self.url

    def do_js_redirect(self) -> str:
        return self.url

    def set_redirect_url(self, location: str) -> None:
        self.url = location

    def get_redirect_url(self) -> str:
        return self.url


class ToolLogin(OIDCLogin):
    def get_redirect(self, url: str) -> UrlRedirect:
        return UrlRedirect(url)


class ToolLaunch(MessageLaunch):
    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


def key_pair() -> tuple[str, str]:
    """A new RSA key as (private PEM, public PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public.decode()


class JwksServer:
    """The tool's jwks_uri: serves the public keys in ``keys`` (a test may rotate them)."""

    def __init__(self, public_keys: list[str]) -> None:
        self.keys = [Registration.get_jwk(public) for public in public_keys]
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = json.dumps({"keys": server.keys}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Tool:
    """pylti1p3 configured for one registration, with one browser session."""

    def __init__(self, platform: RunningPlatform, registration: dict, private_key: str) -> None:
        self.platform = platform
        self.client_id = registration["client_id"]
        self.deployment_id = registration[TOOL_CONFIGURATION]["deployment_id"]
        self.session: dict[str, Any] = {}
        self.cookies = ToolCookies()
        self.conf = self.config(private_key)

    def config(self, private_key: str) -> ToolConfDict:
        """pylti1p3's configuration of this platform, signing with ``private_key``."""
        issuer = self.platform.url
        conf = ToolConfDict(
            {
                issuer: [
                    {
                        "default": True,
                        "client_id": self.client_id,
                        "auth_login_url": f"{issuer}/auth",
                        "auth_token_url": f"{issuer}/token",
                        "key_set_url": f"{issuer}/.well-known/jwks.json",
                        "deployment_ids": [self.deployment_id],
                    }
                ]
            }
        )
        public = serialization.load_pem_private_key(private_key.encode(), None).public_key()
        public_pem = public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()
        conf.set_private_key(issuer, private_key, client_id=self.client_id)
        conf.set_public_key(issuer, public_pem, client_id=self.client_id)
        return conf

    def authorization_request(self, login_initiation: str) -> str:
        """The tool's answer to the platform's login initiation: the /auth URL."""
        params = dict(parse_qsl(urlsplit(login_initiation).query))
        request = ToolRequest(params, self.session)
        login = ToolLogin(request, self.conf, SessionService(request), self.cookies)
        target = params["target_link_uri"]
        return login.redirect(LAUNCH_URL if target == LAUNCH_URL else target)

    def launch(self, platform_launch_url: str) -> tuple[ToolLaunch, dict[str, str]]:
        """Follow a platform launch URL through OIDC to a validated pylti1p3 launch."""
        initiation = requests.get(platform_launch_url, allow_redirects=False, timeout=10)
        assert initiation.status_code == 302, initiation.text
        login_params = dict(parse_qsl(urlsplit(initiation.headers["Location"]).query))
        answer = requests.get(
            self.authorization_request(initiation.headers["Location"]), timeout=10
        )
        assert answer.status_code == 200, answer.text
        form = launch_form(answer.text)
        request = ToolRequest({"id_token": form["id_token"], "state": form["state"]}, self.session)
        launch = ToolLaunch(request, self.conf, SessionService(request), self.cookies)
        launch.validate()
        assert (
            form["action"]
            == launch.get_launch_data()["https://purl.imsglobal.org/spec/lti/claim/target_link_uri"]
        )
        return launch, login_params


def launch_form(page: str) -> dict[str, str]:
    """The action, id_token and state of the platform's self-submitting launch form."""
    found = {"action": re.search(r'<form[^>]*action="([^"]*)"', page)}
    for name in ("id_token", "state"):
        found[name] = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert all(found.values()), page
    return {name: html.unescape(match.group(1)) for name, match in found.items() if match}


def client_registration(jwks_uri: str) -> dict[str, Any]:
    """A tool's LTI Dynamic Registration request."""
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": LOGIN_URL,
        "redirect_uris": [LAUNCH_URL, DEEP_LINK_URL],
        "client_name": "pylti1p3 test tool",
        "jwks_uri": jwks_uri,
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(
            [
                AGS + "lineitem",
                AGS + "lineitem.readonly",
                AGS + "result.readonly",
                AGS + "score",
                NRPS,
            ]
        ),
        TOOL_CONFIGURATION: {
            "domain": "127.0.0.1:9",
            "target_link_uri": LAUNCH_URL,
            "custom_parameters": {"tool_param": "from-registration"},
            "claims": ["iss", "sub", "name", "email"],
            "messages": [
                {"type": "LtiResourceLinkRequest"},
                {"type": "LtiDeepLinkingRequest", "target_link_uri": DEEP_LINK_URL},
            ],
        },
    }


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def platform(lti_platform_module) -> RunningPlatform:  # noqa: F811
    return lti_platform_module


@pytest.fixture(scope="module")
def keys() -> list[tuple[str, str]]:
    """Two tool keys, both in the JWKS: the tool may sign with either (key rotation)."""
    return [key_pair(), key_pair()]


@pytest.fixture(scope="module")
def jwks(keys) -> Iterator[JwksServer]:
    server = JwksServer([public for _, public in keys])
    yield server
    server.stop()


@pytest.fixture(scope="module")
def registration(platform, jwks) -> dict[str, Any]:
    """A dynamic registration as a tool makes it: configuration, then the registration POST."""
    token = platform.client.registration_token()
    auth = {"Authorization": f"Bearer {token['registration_token']}"}
    configuration = requests.get(token["openid_configuration"], headers=auth, timeout=10).json()
    response = requests.post(
        configuration["registration_endpoint"],
        json=client_registration(jwks.url),
        headers=auth,
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def tool(platform, registration, keys) -> Tool:
    return Tool(platform, registration, keys[0][0])


@pytest.fixture(scope="module")
def activity(platform, registration) -> dict[str, Any]:
    """An activity with its line item in course-1."""
    return platform.client.add_resource_link(
        title="Quiz 1",
        client_id=registration["client_id"],
        url=LAUNCH_URL,
        custom={"quiz": "q1"},
        line_item={"scoreMaximum": 10, "resourceId": "quiz-1", "tag": "quiz"},
    )


def launch_url(platform: RunningPlatform, activity: dict, user: str, **extra: str) -> str:
    query = "&".join(f"{key}={value}" for key, value in {"user": user, **extra}.items())
    return f"{platform.url}/course/course-1/launch/{activity['id']}?{query}"


def grade(user: str, score: float, stamp: datetime | None = None) -> Grade:
    stamp = stamp or datetime.now(UTC)
    return (
        Grade()
        .set_user_id(user)
        .set_score_given(score)
        .set_score_maximum(10)
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_timestamp(stamp.isoformat())
    )


# -- tests ------------------------------------------------------------------------------------


def test_the_configuration_needs_the_registration_token(platform):
    url = f"{platform.url}/.well-known/openid-configuration"
    assert requests.get(url, timeout=10).status_code == 401
    wrong = {"Authorization": "Bearer not-issued"}
    assert requests.get(url, headers=wrong, timeout=10).status_code == 401

    token = platform.client.registration_token()["registration_token"]
    answer = requests.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=10)

    assert answer.status_code == 200
    configuration = answer.json()
    assert configuration["issuer"] == platform.url
    assert configuration["registration_endpoint"] == f"{platform.url}/register"
    assert {AGS + "lineitem", AGS + "score", AGS + "result.readonly", NRPS} <= set(
        configuration["scopes_supported"]
    )
    lti = configuration["https://purl.imsglobal.org/spec/lti-platform-configuration"]
    assert lti["product_family_code"] == "lernpfad-test-platform"
    assert {message["type"] for message in lti["messages_supported"]} == {
        "LtiResourceLinkRequest",
        "LtiDeepLinkingRequest",
    }


def test_dynamic_registration_answers_client_and_deployment(platform, jwks):
    token = platform.client.registration_token()["registration_token"]
    auth = {"Authorization": f"Bearer {token}"}
    register = f"{platform.url}/register"

    refused = requests.post(register, json={"client_name": "x"}, headers=auth, timeout=10)
    answer = requests.post(register, json=client_registration(jwks.url), headers=auth, timeout=10)
    again = requests.post(register, json=client_registration(jwks.url), headers=auth, timeout=10)

    assert refused.status_code == 400
    for field in ("initiate_login_uri", "jwks_uri", "redirect_uris", TOOL_CONFIGURATION):
        assert field in refused.json()["error_description"]
    assert answer.status_code == 200
    body = answer.json()
    assert body["client_id"]
    assert body[TOOL_CONFIGURATION]["deployment_id"]
    assert body["client_id"] in platform.client.state()["tools"]
    assert again.status_code == 401  # a registration token registers once


def test_a_resource_link_launch_validates_in_pylti1p3(platform, tool, activity):
    launch, login = tool.launch(launch_url(platform, activity, "learner-1"))

    assert login["lti_storage_target"] == "_parent"
    assert login["client_id"] == tool.client_id
    assert login["lti_deployment_id"] == tool.deployment_id
    assert launch.is_resource_launch()
    claims = launch.get_launch_data()
    lti = "https://purl.imsglobal.org/spec/lti/claim/"
    assert claims["sub"] == "learner-1"
    assert claims[lti + "roles"] == [LEARNER]
    assert claims[lti + "resource_link"]["id"] == activity["id"]
    assert claims[lti + "context"]["id"] == "course-1"
    assert claims[lti + "custom"] == {"tool_param": "from-registration", "quiz": "q1"}
    assert claims[lti + "launch_presentation"]["return_url"].startswith(
        f"{platform.url}/course/course-1/return"
    )
    endpoint = claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"]
    assert endpoint["lineitems"] == f"{platform.url}/contexts/course-1/lineitems"
    assert endpoint["lineitem"].startswith(endpoint["lineitems"] + "/")
    assert launch.has_nrps()


def test_the_authorization_endpoint_refuses_an_unregistered_redirect(platform, tool, activity):
    initiation = requests.get(
        launch_url(platform, activity, "learner-1"), allow_redirects=False, timeout=10
    )
    auth_url = tool.authorization_request(initiation.headers["Location"])

    answer = requests.get(auth_url.replace("lti%2Flaunch", "evil"), timeout=10)

    assert answer.status_code == 400
    assert "redirect_uri is not registered" in answer.text


def test_storage_target_follows_the_switch(platform, tool, activity):
    def login_params(**extra: str) -> dict[str, str]:
        url = launch_url(platform, activity, "learner-1", **extra)
        location = requests.get(url, allow_redirects=False, timeout=10).headers["Location"]
        return dict(parse_qsl(urlsplit(location).query))

    assert login_params(storage="frame")["lti_storage_target"] == "lti_storage_frame"
    page = requests.get(
        platform.client.course_url(user="learner-1", open=activity["id"], storage="frame"),
        timeout=10,
    )
    assert page.status_code == 200
    assert 'id="lti-tool-frame"' in page.text
    assert 'name="lti_storage_frame"' in page.text
    frame = requests.get(f"{platform.url}/platform-storage-frame", timeout=10)
    assert 'data-frame="lti_storage_frame"' in frame.text
    assert "lti_storage_target" not in login_params(target="window")
    platform.client.set_storage("off")
    try:
        assert "lti_storage_target" not in login_params()
    finally:
        platform.client.set_storage("parent")


def test_scores_results_and_memberships_through_pylti1p3(platform, tool, activity, keys):
    launch, _ = tool.launch(launch_url(platform, activity, "learner-1"))
    ags = launch.get_ags()
    first = datetime.now(UTC)

    ags.put_grade(grade("learner-1", 7, first))
    ags.put_grade(grade("learner-1", 9, first + timedelta(seconds=1)))
    with pytest.raises(LtiServiceException) as old:
        ags.put_grade(grade("learner-1", 3, first - timedelta(seconds=1)))
    results = [result for result in ags.get_grades() if result["userId"] == "learner-1"]
    created = ags.find_or_create_lineitem(
        LineItem().set_label("Essay").set_score_maximum(20).set_tag("essay")
    )
    members = launch.get_nrps().get_members()

    assert old.value.response.status_code == 409
    assert [(result["userId"], result["resultScore"]) for result in results] == [("learner-1", 9)]
    assert created.get_id().startswith(f"{platform.url}/contexts/course-1/lineitems/")
    assert ags.find_lineitem_by_tag("essay").get_id() == created.get_id()
    roles = {member["user_id"]: member["roles"] for member in members}
    assert roles == {"teacher-1": [INSTRUCTOR], "learner-1": [LEARNER], "learner-2": [LEARNER]}
    assert {"name", "given_name", "family_name", "email", "status"} <= set(members[0])
    posts = platform.client.score_posts()
    assert [post["status"] for post in posts[-3:]] == [201, 200, 409]
    assert posts[-1]["body"]["scoreGiven"] == 3

    # Key rotation: a token asked for with the tool's second key (another kid) is granted too.
    rotated = Tool(
        platform,
        {"client_id": tool.client_id, TOOL_CONFIGURATION: {"deployment_id": tool.deployment_id}},
        keys[1][0],
    )
    rotated_launch, _ = rotated.launch(launch_url(platform, activity, "learner-2"))
    rotated_launch.get_ags().put_grade(grade("learner-2", 5))
    assert platform.client.score_posts()[-1]["status"] in (200, 201)


def test_injected_score_failures_are_answered_and_logged(platform, tool, activity):
    launch, _ = tool.launch(launch_url(platform, activity, "learner-2"))
    ags = launch.get_ags()
    platform.client.fail_next_scores(2, status=401)

    for _ in range(2):
        with pytest.raises(LtiServiceException) as failed:
            ags.put_grade(grade("learner-2", 4))
        assert failed.value.response.status_code == 401
    ags.put_grade(grade("learner-2", 6))

    posts = platform.client.score_posts()[-3:]
    assert [(post["status"], post["injected"]) for post in posts[:2]] == [(401, True), (401, True)]
    # 201 when learner-2 had no result yet, 200 when another test scored them first.
    assert (posts[2]["status"], posts[2]["injected"]) in [(201, False), (200, False)]
    assert posts[0]["body"]["userId"] == "learner-2"
    on_disk = json.loads((platform.state_dir / "state.json").read_text())
    assert on_disk["score_posts"][-3:] == posts


def test_services_refuse_missing_or_wrong_tokens(platform, tool, activity, keys):
    lineitems = f"{platform.url}/contexts/course-1/lineitems"
    assert requests.get(lineitems, timeout=10).status_code == 401
    bogus = {"Authorization": "Bearer abc.def.ghi"}
    assert requests.get(lineitems, headers=bogus, timeout=10).status_code == 401

    def assertion(**claims: Any) -> str:
        body = {
            "iss": tool.client_id,
            "sub": tool.client_id,
            "aud": f"{platform.url}/token",
            "iat": int(time.time()),
            "exp": int(time.time()) + 60,
            "jti": str(uuid.uuid4()),
            **claims,
        }
        kid = Registration.get_jwk(keys[0][1])["kid"]
        return jwt.encode(body, keys[0][0], algorithm="RS256", headers={"kid": kid})

    def token(client_assertion: str, scope: str) -> requests.Response:
        form = {
            "grant_type": "client_credentials",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": client_assertion,
            "scope": scope,
        }
        return requests.post(f"{platform.url}/token", data=form, timeout=10)

    reused = assertion()
    readonly = token(reused, AGS + "lineitem.readonly")
    assert readonly.status_code == 200
    assert token(reused, AGS + "lineitem.readonly").status_code == 401  # jti replayed
    assert token(assertion(aud="http://elsewhere"), AGS + "score").status_code == 401
    assert token(assertion(exp=int(time.time()) - 10), AGS + "score").status_code == 401

    bearer = {"Authorization": f"Bearer {readonly.json()['access_token']}"}
    assert requests.get(lineitems, headers=bearer, timeout=10).status_code == 200
    score = requests.post(
        f"{lineitems}/1/scores",
        data=grade("learner-1", 1).get_value(),
        headers={**bearer, "Content-Type": "application/vnd.ims.lis.v1.score+json"},
        timeout=10,
    )
    assert score.status_code == 401  # lineitem.readonly does not allow posting scores


def test_deep_linking_adds_the_activity_and_its_line_item(platform, tool, keys):
    dl_url = f"{platform.url}/course/course-1/deep-link?user=teacher-1&tool={tool.client_id}"
    launch, _ = tool.launch(dl_url)
    assert launch.is_deep_link_launch()
    settings = launch.get_launch_data()[
        "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
    ]
    assert settings["accept_types"] == ["ltiResourceLink"]
    assert settings["accept_multiple"] is False
    return_url = settings["deep_link_return_url"]
    resource = (
        DeepLinkResource()
        .set_url(LAUNCH_URL)
        .set_title("Chapter 3 exam")
        .set_custom_params({"exam": "ch3"})
        .set_lineitem(
            LineItem()
            .set_score_maximum(30)
            .set_label("Chapter 3")
            .set_tag("exam")
            .set_resource_id("exam-ch3")
        )
    )
    deep_link = launch.get_deep_link()
    claims = deep_link.get_message_jwt([resource])

    def post(token: str) -> requests.Response:
        return requests.post(return_url, data={"JWT": token}, timeout=10)

    kid = Registration.get_jwk(keys[0][1])["kid"]
    foreign, _ = key_pair()
    refused = [
        post(jwt.encode(claims, foreign, algorithm="RS256", headers={"kid": kid})),
        post(deep_link.encode_jwt({**claims, "aud": ["http://another-platform"]})),
        post(deep_link.encode_jwt({**claims, "exp": int(time.time()) - 60})),
    ]
    accepted = post(deep_link.encode_jwt(claims))
    replayed = post(deep_link.encode_jwt(claims))

    assert [answer.status_code for answer in refused] == [400, 400, 400]
    assert "Signature" in refused[0].text
    assert "aud must be the platform issuer" in refused[1].text
    assert "expired" in refused[2].text
    assert accepted.status_code == 200, accepted.text
    assert "Chapter 3 exam" in accepted.text
    assert replayed.status_code == 400
    state = platform.client.state()
    link = next(
        link for link in state["resource_links"].values() if link["title"] == "Chapter 3 exam"
    )
    assert link["custom"] == {"exam": "ch3"}
    item = next(item for item in state["line_items"].values() if item.get("tag") == "exam")
    assert (item["resourceLinkId"], item["scoreMaximum"], item["resourceId"]) == (
        link["id"],
        30,
        "exam-ch3",
    )
    course = requests.get(platform.client.course_url(user="learner-1"), timeout=10).text
    assert f'data-resource-link-id="{link["id"]}"' in course


def test_learners_cannot_add_activities(platform, tool):
    answer = requests.get(
        f"{platform.url}/course/course-1/deep-link?user=learner-1",
        allow_redirects=False,
        timeout=10,
    )
    assert answer.status_code == 403
