"""Certificates: issued on passing, unguessable code, public verification page, my list."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from quizzes.models import Certificate

pytestmark = pytest.mark.django_db


def test_passing_issues_one_certificate_with_an_unguessable_code(learner_api, exam, bank):
    result = exam.take(learner_api, correct=8)
    certificate = Certificate.objects.get()
    assert result["certificate"]["code"] == certificate.code
    assert result["certificate"]["url"].endswith(f"/certificates/{certificate.code}/")
    assert len(certificate.code) >= 32
    assert certificate.learner_name == "Lena Lernende"
    assert str(certificate.score_percent) == "80.00"


@pytest.mark.parametrize(
    ("display_name", "first_name", "last_name", "expected"),
    [("", "Lena", "Lernende", "Lena Lernende"), ("", "", "", "lena2")],
)
def test_certificate_states_the_public_name(
    make_learner, enroll, client_for, exam, bank, display_name, first_name, last_name, expected
):
    user = make_learner("lena2", display_name=display_name)
    user.first_name, user.last_name = first_name, last_name
    user.save()
    enroll(user)
    exam.take(client_for(user), correct=10)
    assert Certificate.objects.get().learner_name == expected == user.public_name


def test_codes_differ_between_learners(make_learner, enroll, client_for, exam, bank):
    codes = set()
    for name in ("a1", "a2", "a3"):
        user = make_learner(name)
        enroll(user)
        codes.add(exam.take(client_for(user), correct=10)["certificate"]["code"])
    assert len(codes) == 3


def test_failing_issues_no_certificate(learner_api, exam, bank):
    result = exam.take(learner_api, correct=7)
    assert result["certificate"] is None
    assert not Certificate.objects.exists()
    assert learner_api.get("/api/v1/certificates/").json()["count"] == 0


def test_public_verification_page(learner_api, exam, bank, course):
    code = exam.take(learner_api, correct=9)["certificate"]["code"]
    page = Client().get(f"/certificates/{code}/")  # anonymous
    assert page.status_code == 200
    html = page.content.decode()
    assert "Lena Lernende" in html
    assert course.title in html
    assert re.search(r"<dd>90[,.]00 %</dd>", html)  # localized decimal
    certificate = Certificate.objects.get()
    assert certificate.issued_at.strftime("%Y") in html
    assert 'name="robots" content="noindex"' in html


@pytest.mark.parametrize("code", ["nope", "A" * 32])
def test_unknown_code_is_404(course, code):
    assert Client().get(f"/certificates/{code}/").status_code == 404


def test_my_certificates(learner_api, exam, bank, course):
    exam.take(learner_api, correct=10)
    body = learner_api.get("/api/v1/certificates/").json()
    assert body["count"] == 1
    entry = body["results"][0]
    assert entry["module"] == course.slug and entry["module_title"] == course.title
    assert entry["score_percent"] == "100.00" and entry["learner_name"] == "Lena Lernende"
    assert entry["code"] == Certificate.objects.get().code


def test_a_revoked_certificate_stops_verifying_at_once(learner_api, exam, bank, course):
    """Issue 13: the page said "public, max-age=300", so a shared cache kept showing a revoked
    certificate for five minutes. Now every cache must ask again before reusing it."""
    code = exam.take(learner_api, correct=9)["certificate"]["code"]
    page = Client().get(f"/certificates/{code}/")
    assert page.status_code == 200
    directives = {part.strip() for part in page["Cache-Control"].split(",")}
    assert "no-cache" in directives
    assert not any(d.startswith(("max-age=", "s-maxage=")) and d[-1] != "0" for d in directives)
    assert "public" not in directives
    # Revocation: an admin deletes it (or the account is erased with it).
    Certificate.objects.filter(code=code).delete()
    assert Client().get(f"/certificates/{code}/").status_code == 404


@pytest.mark.parametrize(
    "code",
    ["%00", "a%00b", "a" * 65, "with space", "%C3%A4", "dot.ted", "%ED%A0%80"],
    ids=["nul", "nul-inside", "too-long", "space", "umlaut", "dot", "surrogate-bytes"],
)
def test_a_code_outside_the_code_alphabet_is_404_without_a_query(
    course, code, django_assert_num_queries
):
    with django_assert_num_queries(0):
        assert Client().get(f"/certificates/{code}/").status_code == 404


def test_my_certificate_page_takes_only_codes(learner_api, exam, bank, learner):
    code = exam.take(learner_api, correct=10)["certificate"]["code"]
    page = Client()
    page.force_login(learner)
    assert page.get(f"/my/certificates/{code}/").status_code == 200
    for bad in ("%00", "x" * 65):
        assert page.get(f"/my/certificates/{bad}/").status_code == 404
