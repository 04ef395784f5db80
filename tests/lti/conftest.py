"""The LTI tool against a real LTI 1.3 platform process (tests/lti_platform, on lti1p3platform):
the tool is pytest-django's live server on localhost, the platform runs on 127.0.0.1, so the
tool's frame is cross-site as in a real deployment.

``ScriptlessBrowser`` walks the HTTP steps a browser takes where lti.js would act (read the
login page's auth address, submit the platform's self-posting form); the Chromium journey
(tests/browser/test_lti_journey.py) walks the same with the script and blocked cookies.
"""

from __future__ import annotations

from html.parser import HTMLParser
from types import SimpleNamespace
from urllib.parse import urljoin

import pytest
import requests

from tests.lti_platform.fixtures import lti_platform  # noqa: F401  (a fixture)

COURSE = "course-1"


class _Forms(HTMLParser):
    """The forms of a page (action, fields) and the data-* attributes of every element."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []
        self.data: dict[str, str] = {}
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name, value in attributes.items():
            if name.startswith("data-") and value is not None:
                self.data.setdefault(name, value)
        if tag == "form":
            self.forms.append((attributes.get("action") or "", {}))
        elif tag == "input" and self.forms and attributes.get("name"):
            if attributes.get("type") != "radio" or "checked" in attributes:
                self.forms[-1][1][attributes["name"]] = attributes.get("value") or ""
        elif tag == "a" and attributes.get("href"):
            self.links.append((attributes.get("id") or "", attributes["href"]))


def page(response: requests.Response) -> _Forms:
    parsed = _Forms()
    parsed.feed(response.text)
    return parsed


class ScriptlessBrowser:
    """One person's browser, without JavaScript, keeping cookies as a top-level window does."""

    def __init__(self) -> None:
        self.http = requests.Session()

    def submit(
        self, response: requests.Response, *, action_ends: str = "", **fields: str
    ) -> requests.Response:
        """Submit the page's first form (whose action ends with ``action_ends``) as lti.js or
        the person would."""
        action, values = next(
            (action, values)
            for action, values in page(response).forms
            if action.endswith(action_ends)
        )
        return self.http.post(urljoin(response.url, action), data={**values, **fields}, timeout=30)

    def launch(self, url: str) -> requests.Response:
        """Open a platform launch address; the tool's answer after the id_token is posted."""
        login = self.http.get(url, timeout=30)
        assert login.status_code == 200, login.text
        auth_url = page(login).data["data-auth-url"]
        form = self.http.get(auth_url, timeout=30)
        assert form.status_code == 200, form.text
        return self.submit(form)


@pytest.fixture
def tool(live_server, settings, course):
    """The tool's address (its live server), the seed course imported."""
    settings.SITE_URL = live_server.url
    return live_server.url


@pytest.fixture
def registered(tool, lti_platform):  # noqa: F811
    """Lernpfad registered with the platform by Dynamic Registration, then activated."""
    from lti_tool.models import LtiRegistration

    offer = lti_platform.client.registration_token()
    browser = ScriptlessBrowser()
    confirm = browser.http.get(
        tool + "/lti/register/",
        params={
            "openid_configuration": offer["openid_configuration"],
            "registration_token": offer["registration_token"],
        },
        timeout=30,
    )
    assert confirm.status_code == 200, confirm.text
    done = browser.submit(confirm)
    assert done.status_code == 200, done.text
    registration = LtiRegistration.objects.get(issuer=lti_platform.url)
    registration.is_active = True
    registration.save()
    return registration


def deep_link(platform, choice: str, *, user: str = "teacher-1") -> dict:
    """The teacher adds Lernpfad's ``choice`` to the course; the platform's new resource link."""
    browser = ScriptlessBrowser()
    picker = browser.launch(f"{platform.url}/course/{COURSE}/deep-link?user={user}&storage=off")
    assert picker.status_code == 200, picker.text
    returned = browser.submit(browser.submit(picker, choice=choice))
    assert returned.status_code == 200, returned.text
    return list(platform.client.state()["resource_links"].values())[-1]


def learner_opens(platform, link: dict, *, user: str = "learner-1") -> ScriptlessBrowser:
    """The learner launches the link (new window: no platform storage) and opens Lernpfad."""
    browser = ScriptlessBrowser()
    rl = link["id"]
    handoff = browser.launch(f"{platform.url}/course/{COURSE}/launch/{rl}?user={user}&storage=off")
    assert handoff.status_code == 200, handoff.text
    opened = browser.http.get(urljoin(handoff.url, page(handoff).data["data-open-url"]), timeout=30)
    assert opened.status_code == 200, opened.text
    browser.landed = opened.url
    return browser


@pytest.fixture
def queued_sends(monkeypatch) -> list[int]:
    """The grade sends the receiver enqueues, kept here instead of going to a broker: for the
    tests that run the send themselves (the worker path: test_grades' first test)."""
    queued: list[int] = []
    monkeypatch.setattr(
        "lti.receivers.tasks", SimpleNamespace(grade_send=SimpleNamespace(delay=queued.append))
    )
    return queued
