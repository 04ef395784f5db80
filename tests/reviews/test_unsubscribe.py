"""The unsubscribe link of reminder e-mails: GET only asks, POST (the page's button or an RFC 8058
one-click POST) unsubscribes; the link is an opaque, signed key that expires and names no learner.
"""

from __future__ import annotations

import base64
import datetime
import re
import time
from urllib.parse import urlparse

import pytest
from django.core import mail, signing
from django.test import Client

from reviews import api
from reviews.models import ReminderDigest
from reviews.services import reminder_planning, reminder_sending, reminder_unsubscribe
from tests.factories import unsubscribe_token_for
from tests.helpers.queries import queries_of

pytestmark = pytest.mark.django_db

UTC = datetime.UTC
CREATED = datetime.datetime(2030, 1, 2, 8, 0, tzinfo=UTC)
BERLIN_1805 = datetime.datetime(2030, 6, 12, 16, 5, tzinfo=UTC)  # 18:05 in Berlin
LINK = re.compile(r"^/reminders/unsubscribe/([A-Za-z0-9_-]{22}):([0-9A-Za-z]+):([A-Za-z0-9_-]+)/$")


def plan(now: datetime.datetime) -> None:
    def enqueue(ids: list[int], at: datetime.datetime) -> None:
        for digest_id in ids:
            reminder_sending.reminder_digest_send(digest_id=digest_id, now=at)

    reminder_planning.reminders_plan(now=now, enqueue=enqueue)


def mailed_link(message) -> str:
    return urlparse(re.search(r"<(http[^>]+)>", message.extra_headers["List-Unsubscribe"])[1]).path


@pytest.fixture
def studying(make_learner, steps):
    def create(username: str, **fields):
        learner = make_learner(username, **fields)
        api.cards_for_step_ensure(learner_id=learner.pk, step_id=steps[0].pk, at=CREATED)
        return learner

    return create


def reminders_on(learner) -> bool:
    learner.refresh_from_db()
    return learner.reminder_email and learner.next_reminder_at is not None


def url(token: str) -> str:
    return f"/reminders/unsubscribe/{token}/"


def test_the_mailed_link_is_an_opaque_signed_key_of_that_one_email(studying):
    studying("lena")
    plan(BERLIN_1805)
    plan(BERLIN_1805 + datetime.timedelta(days=1))
    first, second = (mailed_link(message) for message in mail.outbox)
    assert first != second
    for path, digest in zip(
        (first, second), ReminderDigest.objects.order_by("local_date"), strict=True
    ):
        key, _time, _signature = LINK.fullmatch(path).groups()
        # The key is the e-mail's random key: no learner id, no row id, nothing to decode.
        assert key == digest.unsubscribe_key
        assert b"learner" not in base64.urlsafe_b64decode(key + "==")
    # The text and HTML parts carry the same link as the List-Unsubscribe header.
    message = mail.outbox[0]
    assert first in message.body and first in message.alternatives[0][0]
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_opening_the_link_only_asks_and_changes_nothing(studying):
    learner = studying("lena", language="en")
    plan(BERLIN_1805)
    path = mailed_link(mail.outbox[0])
    # A mail scanner or a link preview: GET (and HEAD) as often as it likes.
    for _ in range(3):
        response = Client().get(path)
        assert response.status_code == 200
    assert Client().head(path).status_code == 200
    html = response.content.decode()
    assert "Stop reminder e-mails?" in html and 'lang="en"' in html
    assert re.search(r'<form method="post" action="' + re.escape(path) + '">', html)
    assert '<input type="hidden" name="List-Unsubscribe" value="One-Click">' in html
    assert response["Cache-Control"] == "no-store"
    assert reminders_on(learner)


def test_the_pages_button_unsubscribes_and_no_digest_follows(studying):
    learner = studying("lena")
    plan(BERLIN_1805)
    path = mailed_link(mail.outbox[0])
    client = Client(enforce_csrf_checks=True)
    page = client.get(path).content.decode()
    assert "Erinnerungs-E-Mails abbestellen?" in page
    response = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert "Erinnerungen abbestellt" in response.content.decode()
    assert not reminders_on(learner)
    # Again: still fine, still off; and the link's page now says so.
    assert client.post(path).status_code == 200
    assert "Erinnerungen abbestellt" in client.get(path).content.decode()
    plan(BERLIN_1805 + datetime.timedelta(days=1))
    assert len(mail.outbox) == 1


def test_an_rfc8058_one_click_post_needs_no_cookie_or_csrf_token(studying):
    learner = studying("lena", language="en")
    token = unsubscribe_token_for(learner)
    # What a mail client sends (RFC 8058 section 3.2): a bare form POST, no cookies.
    response = Client(enforce_csrf_checks=True).post(
        url(token),
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert "Reminders are off" in response.content.decode()
    assert not reminders_on(learner)


def _token_made_ago(monkeypatch, learner, age: datetime.timedelta) -> str:
    made_at = time.time() - age.total_seconds()
    with monkeypatch.context() as patched:
        patched.setattr(signing.time, "time", lambda: made_at)
        return unsubscribe_token_for(learner)


def test_the_link_expires_after_60_days(studying, monkeypatch):
    learner = studying("lena", language="en")
    fresh_enough = _token_made_ago(monkeypatch, learner, datetime.timedelta(days=59))
    expired = _token_made_ago(monkeypatch, learner, datetime.timedelta(days=61))
    for method in ("get", "post"):
        response = getattr(Client(), method)(url(expired))
        assert response.status_code == 400
        assert "This link has expired" in response.content.decode()
    assert reminders_on(learner)
    assert Client().get(url(fresh_enough)).status_code == 200
    assert Client().post(url(fresh_enough)).status_code == 200
    assert not reminders_on(learner)


def test_changed_forged_and_old_links_are_a_400_page_and_change_nothing(studying):
    learner = studying("lena")
    other = studying("other")
    token = unsubscribe_token_for(learner)
    key, stamp, signature = token.split(":")
    other_key = unsubscribe_token_for(other).split(":")[0]
    flipped = ("A" if key[0] != "A" else "B") + key[1:]
    bad_tokens = [
        f"{other_key}:{stamp}:{signature}",  # another e-mail's key with this signature
        f"{flipped}:{stamp}:{signature}",
        f"{key}:{stamp}:{signature[:-2]}",
        token[:-1],
        key,
        "nonsense",
        "%00",
        signing.TimestampSigner(salt="another-purpose").sign(key),
        # The links of e-mails sent before: the learner's id, signed, never expiring.
        signing.dumps({"learner": learner.pk}, salt="reviews.reminder-email-unsubscribe"),
    ]
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for bad in bad_tokens:
        for method in ("get", "post"):
            response = getattr(client, method)(url(bad))
            if bad == "%00":
                # A NUL in a path never reaches a view (lms.request_guards): 404.
                assert response.status_code == 404, (bad, method)
                continue
            assert response.status_code == 400, (bad, method)
            # The learner is unknown: the page speaks the browser's language.
            assert "This link is not valid" in response.content.decode()
    assert reminders_on(learner) and reminders_on(other)
    assert client.put(url(token)).status_code == 405


def test_a_link_whose_email_or_account_is_gone_is_a_404(studying):
    learner = studying("lena")
    token = unsubscribe_token_for(learner)
    ReminderDigest.objects.filter(learner=learner).delete()
    assert Client().get(url(token)).status_code == 404
    assert Client().post(url(token)).status_code == 404
    assert reminders_on(learner)


def test_the_service_reads_on_get_and_writes_on_post(studying):
    learner = studying("lena")
    token = unsubscribe_token_for(learner)
    targets = []

    def read():
        targets.append(reminder_unsubscribe.reminder_unsubscribe_target(token=token))

    # The digest's learner, then the learner; no write.
    sent = queries_of(read)
    assert len(sent) <= 3 and not any(sql.startswith(("UPDATE", "INSERT")) for sql in sent)
    (target,) = targets
    assert target.learner_id == learner.pk and target.reminders_on
    assert reminders_on(learner)
    assert reminder_unsubscribe.reminder_email_unsubscribe(token=token) == "de"
    assert not reminders_on(learner)
