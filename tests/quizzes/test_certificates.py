"""Certificates: issued on passing to the learner's full name, unguessable code, the public
verification page and its JSON twin, revocation, the PDF with its QR code, my list."""

from __future__ import annotations

import io
import re

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from quizzes.models import Certificate
from quizzes.services.certificates import certificates_revoke
from tests.helpers.queries import assert_queries_within

pytestmark = pytest.mark.django_db


def test_passing_issues_one_certificate_with_an_unguessable_code(learner_api, exam, bank):
    result = exam.take(learner_api, correct=8)
    certificate = Certificate.objects.get()
    assert result["certificate"]["code"] == certificate.code
    assert result["certificate"]["url"].endswith(f"/certificates/{certificate.code}/")
    assert len(certificate.code) >= 32
    assert certificate.learner_name == "Lena Lernende"
    assert str(certificate.score_percent) == "80.00"


def test_certificate_states_the_full_name_not_the_display_name(
    make_learner, enroll, client_for, exam, bank
):
    user = make_learner("neu9038", display_name="Lenchen", full_name="Lena Maria Lernende")
    enroll(user)
    exam.take(client_for(user), correct=10)
    assert Certificate.objects.get().learner_name == "Lena Maria Lernende"


def test_a_later_rename_leaves_the_issued_certificate_alone(
    make_learner, enroll, client_for, exam, bank
):
    user = make_learner("lena2", full_name="Lena Lernende")
    enroll(user)
    client = client_for(user)
    code = exam.take(client, correct=10)["certificate"]["code"]
    renamed = client.patch("/api/v1/me/", {"full_name": "Lena Neuname"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["full_name"] == "Lena Neuname"
    assert Certificate.objects.get().learner_name == "Lena Lernende"
    assert "Lena Lernende" in Client().get(f"/certificates/{code}/").content.decode()
    assert client.get("/api/v1/certificates/").json()["results"][0]["learner_name"] == (
        "Lena Lernende"
    )


def test_a_certifying_exam_does_not_start_without_the_full_name(
    make_learner, enroll, client_for, exam, bank
):
    user = make_learner("ohne", full_name="")
    enroll(user)
    client = client_for(user)
    overview = client.get("/api/v1/modules/self-hosting-27/exam/").json()
    assert overview["eligibility"]["can_start"] is False
    assert [r["code"] for r in overview["eligibility"]["reasons"]] == ["full_name_missing"]
    refused = exam.start(client, expect=409)["error"]
    assert refused["code"] == "full_name_missing"
    assert "full_name" in refused["message"]
    assert refused["detail"]["missing_fields"] == ["full_name"]
    assert not Certificate.objects.exists()
    # Given in the settings (PATCH /me/), the exam starts and the certificate states it.
    client.patch("/api/v1/me/", {"full_name": "  Ömer   Şahin  "}, format="json")
    user.refresh_from_db()
    exam.take(client_for(user), correct=10)
    assert Certificate.objects.get().learner_name == "Ömer Şahin"


def test_an_attempt_begun_without_the_name_issues_with_the_display_rule(
    make_learner, enroll, client_for, exam, bank
):
    """An attempt started before the name was asked (or the name emptied during it) still
    certifies, with the name every certificate stated before."""
    user = make_learner("alt", display_name="Alt", full_name="Alt Bekannt")
    enroll(user)
    client = client_for(user)
    attempt = exam.start(client)
    user.full_name = ""
    user.save()
    exam.save(client, attempt["id"], exam.answers(attempt, correct=10))
    exam.submit(client_for(user), attempt["id"])
    assert Certificate.objects.get().learner_name == "Alt"


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
    assert directives & {"no-cache", "no-store"}
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
def test_a_code_outside_the_code_alphabet_is_404_without_a_query(course, code):
    response = []
    assert_queries_within(lambda: response.append(Client().get(f"/certificates/{code}/")), budget=0)
    assert response[0].status_code == 404


def test_my_certificate_page_takes_only_codes(learner_api, exam, bank, learner):
    code = exam.take(learner_api, correct=10)["certificate"]["code"]
    page = Client()
    page.force_login(learner)
    assert page.get(f"/my/certificates/{code}/").status_code == 200
    for bad in ("%00", "x" * 65):
        assert page.get(f"/my/certificates/{bad}/").status_code == 404


# --- the JSON verification ----------------------------------------------------------------------


def _verify(code: str, **headers):
    return APIClient().get(f"/api/v1/certificates/verify/{code}/", **headers)


def test_json_verification_of_a_valid_certificate_is_public(learner_api, exam, bank, course):
    code = exam.take(learner_api, correct=9)["certificate"]["code"]
    response = _verify(code, HTTP_AUTHORIZATION="Token not-a-token")  # no log-in needed
    assert response.status_code == 200
    body = response.json()
    assert body == {
        "code": code,
        "valid": True,
        "url": f"{settings.SITE_URL}/certificates/{code}/",
        "learner_name": "Lena Lernende",
        "module": course.slug,
        "module_title": course.title,
        "score_percent": "90.00",
        "issued_at": body["issued_at"],
    }


def test_json_verification_answers_unknown_and_revoked_codes_alike(learner_api, exam, bank):
    code = exam.take(learner_api, correct=9)["certificate"]["code"]
    certificates_revoke(certificate_ids=Certificate.objects.values_list("pk", flat=True))
    revoked, unknown = _verify(code), _verify("A" * 32)
    assert revoked.status_code == unknown.status_code == 404
    assert (
        revoked.json()
        == unknown.json()
        == {
            "error": {
                "code": "not_found",
                "message": "Es gibt kein gültiges Zertifikat mit diesem Code.",
                "detail": None,
            }
        }
    )


def test_json_verification_is_throttled_per_client_address(course, settings):
    from django.core.cache import cache

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "certificate_verify": "3/min",
        },
    }
    from rest_framework.throttling import ScopedRateThrottle

    cache.clear()
    ScopedRateThrottle.THROTTLE_RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    try:
        statuses = [_verify(f"guess-{n}").status_code for n in range(4)]
        assert statuses == [404, 404, 404, 429]
        throttled = _verify("guess-x").json()["error"]
        assert throttled["code"] == "throttled" and throttled["detail"]["retry_after_seconds"] > 0
        # Another address has its own budget.
        assert _verify("guess-y", REMOTE_ADDR="10.0.0.9").status_code == 404
    finally:
        from rest_framework.settings import api_settings

        ScopedRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        cache.clear()


@pytest.mark.parametrize("passes", [1, 3])
def test_json_verification_reads_a_fixed_number_of_queries(
    make_learner, enroll, client_for, exam, bank, passes
):
    codes = []
    for index in range(passes):
        user = make_learner(f"v{index}")
        enroll(user)
        codes.append(exam.take(client_for(user), correct=10)["certificate"]["code"])
    response = []
    # the certificate, its module
    assert_queries_within(lambda: response.append(_verify(codes[-1])), budget=2)
    assert response[0].status_code == 200


# --- the public page ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "valid", "revoked", "issued"),
    [
        ("de", "Zertifikat gültig", "Zertifikat widerrufen", "Ausgestellt am"),
        ("en", "Certificate valid", "Certificate revoked", "Issued on"),
    ],
)
def test_public_page_in_the_viewers_language_valid_then_revoked(
    learner_api, exam, bank, course, language, valid, revoked, issued
):
    code = exam.take(learner_api, correct=9)["certificate"]["code"]
    page = Client(HTTP_ACCEPT_LANGUAGE=language).get(f"/certificates/{code}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert f'<html lang="{language}">' in html
    assert f"<h1>{valid}</h1>" in html and issued in html
    assert 'href="/static/web/app.css"' in html  # the site's own style
    assert page["Cache-Control"] == "no-store"
    certificates_revoke(certificate_ids=Certificate.objects.values_list("pk", flat=True))
    html = Client(HTTP_ACCEPT_LANGUAGE=language).get(f"/certificates/{code}/").content.decode()
    assert f"<h1>{revoked}</h1>" in html and valid not in html
    assert "Lena Lernende" in html and course.title in html


def test_public_page_of_an_unknown_code_is_a_404_in_the_sites_style(course):
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get("/certificates/no-such-code/")
    assert page.status_code == 404
    assert "<h1>Unknown certificate</h1>" in page.content.decode()


# --- the PDF ------------------------------------------------------------------------------------


def _pdf_text(content: bytes) -> str:
    import pypdf

    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(content)).pages)


def _qr_texts(content: bytes) -> list[str]:
    """The QR codes on the PDF's first page: rendered to an image and decoded."""
    import pypdfium2
    import zxingcpp

    image = pypdfium2.PdfDocument(content)[0].render(scale=2).to_pil()
    return [barcode.text for barcode in zxingcpp.read_barcodes(image)]


def test_pdf_download_states_the_certificate_and_its_qr_opens_the_verification_page(
    make_learner, enroll, client_for, exam, bank, course
):
    user = make_learner("jurgen", full_name="Jürgen Łukasz Groß-Müller", language="de")
    enroll(user)
    client = client_for(user)
    code = exam.take(client, correct=10)["certificate"]["code"]
    response = client.get(f"/api/v1/certificates/{code}/pdf/", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["Cache-Control"] == "private, no-store"
    assert response.content.startswith(b"%PDF-")
    text = _pdf_text(response.content)
    for expected in ("Zertifikat", "Jürgen Łukasz Groß-Müller", course.title, code, "100 %"):
        assert expected in text, (expected, text)
    assert _qr_texts(response.content) == [f"{settings.SITE_URL}/certificates/{code}/"]
    # In English on asking, and for a client that asks for a PDF by its media type.
    english = client.get(
        f"/api/v1/certificates/{code}/pdf/",
        HTTP_ACCEPT_LANGUAGE="en",
        HTTP_ACCEPT="application/pdf",
    )
    assert english.status_code == 200 and "This certifies that" in _pdf_text(english.content)


def test_pdf_is_the_owners_only_and_not_of_a_revoked_certificate(
    make_learner, enroll, client_for, exam, bank
):
    owner = make_learner("owner")
    enroll(owner)
    code = exam.take(client_for(owner), correct=10)["certificate"]["code"]
    other = client_for(make_learner("other"))
    for client, accept in ((other, "application/json"), (other, "application/pdf")):
        refused = client.get(f"/api/v1/certificates/{code}/pdf/", HTTP_ACCEPT=accept)
        assert refused.status_code == 404
        assert refused["Content-Type"] == "application/json"
        assert refused.json()["error"]["code"] == "not_found"
    assert APIClient().get(f"/api/v1/certificates/{code}/pdf/").status_code in (401, 403)
    certificates_revoke(certificate_ids=Certificate.objects.values_list("pk", flat=True))
    assert client_for(owner).get(f"/api/v1/certificates/{code}/pdf/").status_code == 404


def test_web_pdf_download_for_the_owner(make_learner, enroll, client_for, exam, bank):
    owner = make_learner("webpdf")
    enroll(owner)
    code = exam.take(client_for(owner), correct=10)["certificate"]["code"]
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/my/certificates/{code}/").content.decode()
    assert f'href="/my/certificates/{code}/pdf"' in page and "<svg" in page
    response = browser.get(f"/my/certificates/{code}/pdf")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert "Lena Lernende" in _pdf_text(response.content)
    stranger = Client()
    stranger.force_login(make_learner("fremd"))
    assert stranger.get(f"/my/certificates/{code}/pdf").status_code == 404


def test_pdf_without_the_unicode_font_falls_back_to_latin_1(settings, tmp_path):
    """A server without fonts-dejavu-core still produces a PDF; Latin-1 letters (umlauts, ß)
    stay, others lose their accents, and the system check warns."""
    import datetime
    from decimal import Decimal

    from quizzes.certificate_pdf import certificate_pdf
    from quizzes.checks import certificate_font_check
    from quizzes.data import CertificateView

    settings.LERNPFAD_PDF_FONT_DIR = str(tmp_path)
    certificate = CertificateView(
        code="c0de",
        url="https://lernpfad.example.org/certificates/c0de/",
        module="m",
        module_title="Prüfungsmodul",
        learner_name="Jürgen Dvořák Groß",
        score_percent=Decimal("95.00"),
        issued_at=datetime.datetime(2026, 5, 3, 12, 0, tzinfo=datetime.UTC),
    )
    text = _pdf_text(certificate_pdf(certificate))
    assert "Jürgen Dvorák Groß" in text and "Prüfungsmodul" in text  # ř → r, á is Latin-1
    assert [message.id for message in certificate_font_check(None)] == ["quizzes.W001"]
