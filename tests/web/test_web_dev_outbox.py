"""The dev outbox of ``make run``: mail written to var/mail/ by Django's file backend, listed at
/dev/outbox/ only with DEBUG, so a new learner confirms the sign-up without a mail server."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

from tests.accounts.conftest import CONFIRM_LINK
from tests.web.conftest import PASSWORD
from web.views.dev_outbox import FILE_BACKEND

pytestmark = pytest.mark.django_db


def test_a_sign_up_is_confirmed_through_the_dev_outbox(client, course, committed, tmp_path):
    with override_settings(DEBUG=True, EMAIL_BACKEND=FILE_BACKEND, EMAIL_FILE_PATH=str(tmp_path)):
        assert 'id="outbox-empty"' in client.get("/dev/outbox/").content.decode()
        with committed():
            client.post(
                "/signup/",
                {
                    "username": "neu",
                    "email": "neu@example.org",
                    "password1": PASSWORD,
                    "password2": PASSWORD,
                },
            )
        html = client.get("/dev/outbox/").content.decode()
    assert "neu@example.org" in html and str(tmp_path) in html
    # The mail is shown once, as a mail (not as a message of the messages framework).
    assert html.count('class="card outbox-mail"') == 1 and "{&#x27;subject&#x27;" not in html
    (link,) = {match[1] for match in CONFIRM_LINK.finditer(html)}
    # The link is clickable (urlize), and it confirms the account.
    assert re.search(rf'<a href="[^"]*{re.escape(link)}"', html)
    assert client.post(link)["Location"] == "/login/"
    assert client.post("/login/", {"username": "neu", "password": PASSWORD}).status_code == 302


def test_the_outbox_is_no_page_without_debug_or_without_the_file_backend(client, tmp_path):
    with override_settings(DEBUG=False, EMAIL_BACKEND=FILE_BACKEND, EMAIL_FILE_PATH=str(tmp_path)):
        assert client.get("/dev/outbox/").status_code == 404
    with override_settings(DEBUG=True):
        assert client.get("/dev/outbox/").status_code == 404  # the tests' in-memory backend


def test_make_run_writes_mail_to_var_mail_unless_a_mail_server_is_named(monkeypatch):
    import importlib

    import lms.settings.dev as dev

    monkeypatch.delenv("EMAIL_URL", raising=False)
    dev_settings = importlib.reload(dev)
    assert dev_settings.EMAIL_BACKEND == FILE_BACKEND
    assert str(dev_settings.LERNPFAD_VAR_DIR / "mail") == dev_settings.EMAIL_FILE_PATH
    monkeypatch.setenv("EMAIL_URL", "smtp://mail.example.org:25")
    dev_settings = importlib.reload(dev)
    # The mail server's backend, as the base settings read it from EMAIL_URL.
    assert dev_settings.EMAIL_BACKEND != FILE_BACKEND
