"""Bad launches: each refused with a page that says what happened (in German, the site's
language), a log line for the admin, and nothing written: no platform user, no account, no
enrollment. The id_tokens are the platform's own, changed and signed again with its key."""

from __future__ import annotations

import logging
import time
from urllib.parse import urljoin

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.lti.conftest import COURSE, ScriptlessBrowser, deep_link, page

pytestmark = pytest.mark.django_db(transaction=True)
DEPLOYMENT = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"


@pytest.fixture
def start(registered, lti_platform):
    """Starts learner-1's launch of a module link: (browser, launch URL, the platform's form)."""
    link = deep_link(lti_platform, "module:self-hosting-27")

    def start():
        browser = ScriptlessBrowser()
        login = browser.http.get(
            f"{lti_platform.url}/course/{COURSE}/launch/{link['id']}?user=learner-1&storage=off",
            timeout=30,
        )
        form = browser.http.get(page(login).data["data-auth-url"], timeout=30)
        action, fields = page(form).forms[0]
        return browser, urljoin(form.url, action), fields

    return start


def signed(platform, id_token: str, *, key: bytes | None = None, **changes) -> str:
    """The platform's token with ``changes`` (None removes a claim), signed with its key (or
    ``key``), under the same key id."""
    claims = jwt.decode(id_token, options={"verify_signature": False})
    for name, value in changes.items():
        claims.pop(name, None) if value is None else claims.__setitem__(name, value)
    key = key or (platform.state_dir / "platform_key.pem").read_bytes()
    kid = jwt.get_unverified_header(id_token)["kid"]
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})


def other_key() -> bytes:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def nothing_written() -> None:
    from lti_tool.models import LtiUser

    from accounts.models import User

    assert not LtiUser.objects.filter(sub="learner-1").exists()
    assert not User.objects.filter(lti_users__sub="learner-1").exists()


CASES = {
    "forged": (lambda p, t: signed(p, t, key=other_key()), "token_invalid", "nicht prüfen"),
    "expired": (
        lambda p, t: signed(p, t, exp=int(time.time()) - 60, iat=int(time.time()) - 400),
        "token_invalid",
        "nicht prüfen",
    ),
    "without expiry": (lambda p, t: signed(p, t, exp=None), "token_invalid", "nicht prüfen"),
    "for another tool": (
        lambda p, t: signed(p, t, aud="another-tool"),
        "token_invalid",
        "Gültigkeit",
    ),
    "from another issuer": (
        lambda p, t: signed(p, t, iss="https://lms.example.org"),
        "token_invalid",
        "nicht prüfen",
    ),
    "with a nonce never issued": (
        lambda p, t: signed(p, t, nonce="made-up"),
        "state",
        "abgelaufen",
    ),
    "for an unknown deployment": (
        lambda p, t: signed(p, t, **{DEPLOYMENT: "unknown-deployment"}),
        "deployment",
        "nicht registriert",
    ),
    "changed without signing": (
        lambda p, t: (
            t.split(".")[0]
            + "."
            + jwt.utils.base64url_encode(b'{"sub": "x"}').decode()
            + "."
            + t.split(".")[2]
        ),
        "token_invalid",
        "nicht prüfen",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_id_token_is_refused_and_nothing_written(start, lti_platform, case, caplog):
    change, code, words = CASES[case]
    browser, url, fields = start()
    with caplog.at_level(logging.WARNING, logger="lti.views"):
        answer = browser.http.post(
            url, data={**fields, "id_token": change(lti_platform, fields["id_token"])}, timeout=30
        )
    assert answer.status_code == 403
    assert page(answer).data["data-refused"] == code
    assert "Lernpfad konnte nicht starten" in answer.text and words in answer.text
    assert f"LTI /lti/launch/ refused ({code})" in caplog.text
    nothing_written()


def test_a_replayed_launch_is_refused(start):
    browser, url, fields = start()
    assert browser.http.post(url, data=fields, timeout=30).status_code == 200
    again = browser.http.post(url, data=fields, timeout=30)
    assert again.status_code == 403 and page(again).data["data-refused"] == "state"


def test_a_launch_from_another_browser_is_refused(start):
    """The state is genuine and unused, but this browser has neither its cookie nor the
    platform's storage: a login forced on someone else's browser does not go through."""
    _browser, url, fields = start()
    answer = ScriptlessBrowser().http.post(url, data=fields, timeout=30)
    assert answer.status_code == 403 and page(answer).data["data-refused"] == "cookies"
    nothing_written()


def test_an_inactive_registration_cannot_start(start, registered, lti_platform):
    registered.is_active = False
    registered.save()
    browser = ScriptlessBrowser()
    link = next(iter(lti_platform.client.state()["resource_links"]))
    login = browser.http.get(
        f"{lti_platform.url}/course/{COURSE}/launch/{link}?user=learner-1&storage=off", timeout=30
    )
    assert login.status_code == 400 and page(login).data["data-refused"] == "login_invalid"
    nothing_written()
