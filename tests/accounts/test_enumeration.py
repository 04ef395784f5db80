"""Account enumeration: sign-up, an address change and a password reset answer the same, after
the same work, whether the address has an account or not; reset mails are limited per account;
a user name and an e-mail address never name two different accounts."""

from __future__ import annotations

import re

import pytest
from celery.app.task import Task
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.db import connection
from django.test import Client, TestCase
from django.test.utils import CaptureQueriesContext
from kombu.exceptions import OperationalError
from rest_framework.test import APIClient

from accounts import mails
from accounts.models import User

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register/"
RESET = "/api/v1/auth/password-reset/"
STRONG = "Lernpfad-ist-toll-2026"


def json_client() -> APIClient:
    client = APIClient()
    client.default_format = "json"
    return client


def shape(sql: str) -> str:
    """A statement without its values and savepoint names: what it does, not for whom."""
    return re.sub(r"'[^']*'|\"s\d+_x\d+\"", "?", sql)


def without_csrf(html: str) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


@pytest.fixture
def lena(make_learner):
    return make_learner("lena", language="en")


@pytest.fixture
def work(monkeypatch, settings):
    """What a request costs, by kind: the SQL it runs, the password hashes it computes, the
    tasks it hands to the broker (with ACCOUNT_MAILS_QUEUED on, as in production; nothing is
    really sent to a broker) and the mails it sends itself. ``with work() as done: ...``."""
    settings.ACCOUNT_MAILS_QUEUED = True
    queued: list[tuple[str, dict]] = []
    hashes: list[str] = []
    monkeypatch.setattr(
        Task,
        "apply_async",
        lambda task, args=None, kwargs=None, **_: queued.append((task.name, kwargs)),
    )
    encode = MD5PasswordHasher.encode
    monkeypatch.setattr(
        MD5PasswordHasher,
        "encode",
        lambda self, *a, **k: hashes.append("md5") or encode(self, *a, **k),
    )

    class Work:
        def __enter__(self):
            queued.clear()
            hashes.clear()
            self.outbox_before = len(mail.outbox)
            # The request's commit callbacks run at the end (as after its real commit).
            self.commit = TestCase.captureOnCommitCallbacks(execute=True)
            self.commit.__enter__()
            self.queries = CaptureQueriesContext(connection)
            self.queries.__enter__()
            return self

        def __exit__(self, *exc):
            self.queries.__exit__(*exc)
            self.commit.__exit__(*exc)
            self.sql = [query["sql"] for query in self.queries.captured_queries]
            self.tasks = list(queued)
            self.hashes = len(hashes)
            self.mailed = len(mail.outbox) - self.outbox_before

    return Work


# --- sign-up -------------------------------------------------------------------------------


def test_registering_a_taken_address_answers_exactly_like_a_free_one(committed, lena):
    api = json_client()
    with committed():
        free = api.post(
            REGISTER, {"username": "mara", "email": "mara@example.org", "password": STRONG}
        )
        taken = api.post(
            REGISTER, {"username": "otto", "email": "LENA@example.org", "password": STRONG}
        )
    assert free.status_code == taken.status_code == 202
    assert free.json() == taken.json()
    assert free.headers.keys() == taken.headers.keys()
    assert not User.objects.filter(username="otto").exists()
    (notice,) = [message for message in mail.outbox if message.to == ["lena@example.org"]]
    assert notice.subject == "Lernpfad: someone used your e-mail address"
    assert "user name: lena" in notice.body and "/password-reset/" in notice.body
    assert "/confirm-email/" not in notice.body  # nothing for the stranger to confirm
    (link,) = [message for message in mail.outbox if message.to == ["mara@example.org"]]
    assert "/confirm-email/" in link.body


def test_the_sign_up_page_answers_a_taken_address_like_a_free_one(committed, lena):
    answers = []
    for username, email in (("mara", "mara@example.org"), ("otto", "lena@example.org")):
        client = Client()
        with committed():
            response = client.post(
                "/signup/",
                {"username": username, "email": email, "password1": STRONG, "password2": STRONG},
            )
        page = client.get(response["Location"])
        answers.append(
            (response.status_code, response["Location"], without_csrf(page.content.decode()))
        )
        assert "_auth_user_id" not in client.session
    assert answers[0] == answers[1]
    assert answers[0][:2] == (302, "/signup/sent/")
    assert [message.to for message in mail.outbox] == [["mara@example.org"], ["lena@example.org"]]


def test_sign_up_does_the_same_work_for_a_taken_address(work, lena):
    api = json_client()
    with work() as free:
        api.post(REGISTER, {"username": "mara", "email": "mara@example.org", "password": STRONG})
    with work() as taken:
        api.post(REGISTER, {"username": "otto", "email": "lena@example.org", "password": STRONG})
    # One password hash and one task for the worker each; no mail in the request.
    assert free.hashes == taken.hashes == 1
    assert [name for name, _ in free.tasks] == ["accounts.tasks.email_confirmation_send"]
    assert [name for name, _ in taken.tasks] == ["accounts.tasks.address_in_use_notify"]
    assert free.tasks[0][1] == {"user_id": User.objects.get(username="mara").pk}
    assert free.mailed == taken.mailed == 0
    # The same reads; the new account's INSERT (in its savepoint) is the only difference.
    free_shapes, taken_shapes = [shape(sql) for sql in free.sql], [shape(sql) for sql in taken.sql]
    assert free_shapes[: len(taken_shapes)] == taken_shapes
    extra = free_shapes[len(taken_shapes) :]
    assert [sql.split()[0] for sql in extra] == ["SAVEPOINT", "INSERT", "RELEASE"], extra


def test_a_user_name_may_not_be_an_address_or_anyones_address(make_learner):
    make_learner("lena")  # lena@example.org
    legacy = make_learner("old")
    User.objects.filter(pk=legacy.pk).update(email="old@intranet")  # from before validation
    api = json_client()
    for username in ("mara@example.org", "LENA@example.org", "old@intranet"):
        response = api.post(
            REGISTER, {"username": username, "email": "mara@example.org", "password": STRONG}
        )
        assert response.status_code == 400, username
        assert set(response.json()["error"]["detail"]) == {"username"}, username
    # An @ is fine where it makes no address: "mara@home" has no domain that could be one.
    with_at = api.post(
        REGISTER, {"username": "mara@home", "email": "m@example.org", "password": STRONG}
    )
    assert with_at.status_code == 202


def test_an_address_may_not_be_another_accounts_user_name(make_learner):
    """The other order: a user name from before the rule, and a new address equal to it."""
    sam = make_learner("sam@example.org", email="sam.owner@example.org")
    lena = make_learner("lena")
    api = json_client()
    response = api.post(
        REGISTER, {"username": "sam", "email": "SAM@example.org", "password": STRONG}
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["detail"]) == {"email"}
    api.force_authenticate(lena)
    change = api.patch("/api/v1/me/", {"email": "sam@example.org"})
    assert change.status_code == 400 and set(change.json()["error"]["detail"]) == {"email"}
    lena.refresh_from_db()
    assert lena.pending_email == "" and sam.username == "sam@example.org"


def test_changing_to_a_taken_address_answers_like_a_free_one(committed, make_learner, lena):
    mara = make_learner("mara")
    api = json_client()
    api.force_authenticate(mara)
    with committed():
        free = api.patch("/api/v1/me/", {"email": "mara.neu@example.org"})
    api.force_authenticate(make_learner("otto"))
    with committed():
        taken = api.patch("/api/v1/me/", {"email": "LENA@example.org"})
    assert free.status_code == taken.status_code == 200
    assert free.json()["pending_email"] == "mara.neu@example.org"
    assert taken.json()["pending_email"] == "LENA@example.org"
    assert set(free.json()) == set(taken.json())
    to_lena = [message for message in mail.outbox if message.to == ["lena@example.org"]]
    assert len(to_lena) == 1 and "move another Lernpfad account" in to_lena[0].body


# --- log-in ---------------------------------------------------------------------------------


def test_an_unconfirmed_account_fails_log_in_like_a_wrong_password(committed):
    from accounts.services import user_register

    user_register(username="mara", email="mara@example.org", password=STRONG)
    right = Client().post("/login/", {"username": "mara", "password": STRONG})
    wrong = Client().post("/login/", {"username": "mara", "password": "falsch-falsch-falsch"})
    assert right.status_code == wrong.status_code == 200
    assert without_csrf(right.content.decode()) == without_csrf(wrong.content.decode())


# --- password reset ---------------------------------------------------------------------------


@pytest.mark.parametrize("via", ["web", "api"])
def test_password_reset_does_the_same_work_for_a_known_and_an_unknown_address(work, lena, via):
    def ask(address: str):
        if via == "web":
            return Client().post("/password-reset/", {"email": address})
        return json_client().post(RESET, {"email": address})

    with work() as known:
        known_answer = ask("lena@example.org")
    with work() as unknown:
        unknown_answer = ask("nobody@example.org")
    assert known_answer.status_code == unknown_answer.status_code == (302 if via == "web" else 202)
    assert known_answer.content == unknown_answer.content
    # No look-up, no hash, no mail in the request: one task for the worker, either way.
    assert len(known.sql) == len(unknown.sql) == 0
    assert known.hashes == unknown.hashes == 0
    assert known.mailed == unknown.mailed == 0
    assert known.tasks == [("accounts.tasks.password_reset_send", {"email": "lena@example.org"})]
    assert unknown.tasks == [
        ("accounts.tasks.password_reset_send", {"email": "nobody@example.org"})
    ]

    # The worker's side: a mail for the account, none for the unknown address.
    from accounts import tasks

    assert tasks.password_reset_send(**known.tasks[0][1]) == 1
    assert tasks.password_reset_send(**unknown.tasks[0][1]) == 0
    (message,) = mail.outbox
    assert message.to == ["lena@example.org"] and "/password-reset/" in message.body
    assert message.subject == "Lernpfad: choose a new password"  # lena's language


def test_at_most_three_reset_mails_an_hour_per_account_silently(committed, lena, make_learner):
    make_learner("sam")
    client = Client()
    answers = set()
    with committed():
        for _ in range(5):
            response = client.post("/password-reset/", {"email": "LENA@example.org"})
            answers.add((response.status_code, response["Location"]))
        json_client().post(RESET, {"email": "sam@example.org"})
    assert answers == {(302, "/password-reset/sent/")}
    to = [message.to[0] for message in mail.outbox]
    assert to.count("lena@example.org") == mails.ACCOUNT_MAILS_PER_HOUR == 3
    assert to.count("sam@example.org") == 1  # its own budget


def test_when_the_broker_is_down_the_mail_is_sent_in_the_request(monkeypatch, settings, committed):
    settings.ACCOUNT_MAILS_QUEUED = True

    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(Task, "apply_async", refuse)
    with committed():
        response = json_client().post(
            REGISTER, {"username": "mara", "email": "mara@example.org", "password": STRONG}
        )
    assert response.status_code == 202
    (message,) = mail.outbox
    assert message.to == ["mara@example.org"]


def test_reset_and_notice_mails_go_only_to_active_accounts(committed, make_learner):
    make_learner("gone", is_active=False)
    with committed():
        Client().post("/password-reset/", {"email": "gone@example.org"})
        json_client().post(
            REGISTER, {"username": "otto", "email": "gone@example.org", "password": STRONG}
        )
    assert mail.outbox == []
