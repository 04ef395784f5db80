"""Markup rules the production Content-Security-Policy and accessibility depend on.

Production sends ``script-src 'self'; style-src 'self'``: no inline script, no inline style
attribute and no event-handler attribute may appear, or the page would break there. Every
control has a label.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"
VISITOR_PAGES = [
    "/",
    "/login/",
    "/signup/",
    "/signup/sent/",
    "/confirm-email/",
    "/password-reset/",
    MODULE + "steps/3/",
]
PAGES = [
    "/",
    "/help/keyboard/",
    MODULE,
    MODULE + "steps/1/",
    MODULE + "steps/12/",
    "/review/",
    "/stats/",
    "/settings/",
    MODULE + "exam/",
]


def pages(client, urls=PAGES):
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        yield url, response.content.decode()


@pytest.fixture
def all_pages(client, learner, course):
    """Visitor pages, then the learner's pages (enrolled, one step done)."""
    from progress.services.enrollment import enrollment_create

    found = list(pages(client, VISITOR_PAGES))
    enrollment_create(learner_id=learner.pk, module_slug=course.slug)
    client.force_login(learner)
    return found + list(pages(client))


def test_no_inline_script_style_or_handlers(all_pages):
    for url, html in all_pages:
        for script in re.findall(r"<script\b[^>]*>(.*?)</script>", html, flags=re.S):
            assert not script.strip(), url
        assert not re.search(r"<[^>]+\sstyle=", html), url
        assert not re.search(r"<[^>]+\son[a-z]+=", html), url
        assert "<style" not in html, url


def test_every_control_has_a_label(all_pages):
    for url, html in all_pages:
        labelled = set(re.findall(r'<label[^>]*for="([^"]+)"', html))
        for tag in re.findall(r"<(?:input|select|textarea)\b[^>]*>", html):
            if re.search(r'type="(hidden|submit)"', tag):
                continue
            control_id = re.search(r'id="([^"]+)"', tag)
            assert control_id and control_id.group(1) in labelled, (url, tag)


def test_one_h1_and_a_main_landmark(all_pages):
    for url, html in all_pages:
        assert html.count("<h1") == 1, url
        assert '<main id="main"' in html and 'href="#main"' in html, url
