"""Certificates in a real browser: the public verification page in German and English, valid and
revoked, in the site's style; the owner's certificate page printed (print media: one A4
landscape page, no navigation) and downloaded as a PDF. Screenshots land in
test-artifacts/screenshots/ (cert-*.png)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.factories import (
    api_client_for,
    enrollment_create,
    exam_bank_approve,
    learner_create,
    steps_complete,
)
from tests.helpers.browser import doc_shot, log_in
from tests.quizzes.conftest import ExamDriver

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FULL_NAME = "Jürgen Łukasz Groß-Müller"


@pytest.fixture
def certificate(course, live_server, settings):
    """A learner who passed the seed module's exam; returns (learner, certificate code)."""
    from quizzes.services.items import exam_items_generate

    settings.SITE_URL = live_server.url  # the certificate's links and QR code are absolute
    exam_items_generate(module_id=course.id)
    exam_bank_approve(course)  # a certifying exam
    learner = learner_create("juergen", display_name="Jürgen", full_name=FULL_NAME)
    enrollment_create(learner, course)
    steps_complete(learner, course)  # the completion gate open
    result = ExamDriver(course.slug).take(api_client_for(learner), correct=10)
    return learner, result["certificate"]["code"]


def _shot(page: Page, directory, name: str) -> None:
    page.screenshot(path=str(directory / f"cert-{name}.png"), full_page=True)


def _errors_collected(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


@pytest.mark.parametrize(
    ("locale", "valid", "revoked", "issued"),
    [
        ("de-DE", "Zertifikat gültig", "Zertifikat widerrufen", "Ausgestellt am"),
        ("en-GB", "Certificate valid", "Certificate revoked", "Issued on"),
    ],
)
def test_public_verification_page_valid_then_revoked(
    chromium, live_server, certificate, screenshot_dir, locale, valid, revoked, issued
):
    from quizzes.models import Certificate
    from quizzes.services.certificates import certificates_revoke

    _learner, code = certificate
    context = chromium.new_context(locale=locale, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = _errors_collected(page)
    try:
        page.goto(f"{live_server.url}/certificates/{code}/")
        expect(page.locator("html")).to_have_attribute("lang", locale[:2])
        expect(page.get_by_role("heading", level=1)).to_have_text(valid)
        expect(page.locator(".verification--valid")).to_be_visible()
        facts = page.locator(".facts")
        for text in (FULL_NAME, "GPU, CUDA und Inferenzoptimierung", issued, code):
            expect(facts).to_contain_text(text)
        expect(facts).to_contain_text("100")
        # The site's own header and stylesheet, not bare HTML in Times.
        expect(page.locator(".site-header")).to_be_visible()
        font = page.evaluate("getComputedStyle(document.body).fontFamily")
        assert "Times" not in font, font
        _shot(page, screenshot_dir, f"public-{locale[:2]}-valid")

        certificates_revoke(certificate_ids=Certificate.objects.values_list("pk", flat=True))
        page.reload()
        expect(page.get_by_role("heading", level=1)).to_have_text(revoked)
        expect(page.locator(".verification--revoked")).to_be_visible()
        expect(page.locator(".verification--valid")).to_have_count(0)
        expect(page.locator(".facts")).to_contain_text(FULL_NAME)
        _shot(page, screenshot_dir, f"public-{locale[:2]}-revoked")
        doc_shot(page, f"certificate-revoked-{locale[:2]}")
        assert not errors, errors
    finally:
        context.close()


def test_public_page_switches_language_and_fits_a_phone(
    chromium, live_server, certificate, screenshot_dir
):
    _learner, code = certificate
    context = chromium.new_context(
        locale="de-DE", viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/certificates/{code}/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Zertifikat gültig")
        page.get_by_text("Menü", exact=True).click()  # a phone: the switch is in the menu
        page.get_by_label("Sprache").select_option("en")
        page.get_by_role("button", name="Wechseln").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Certificate valid")
        assert page.url.endswith(f"/certificates/{code}/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        _shot(page, screenshot_dir, "public-en-phone")
        page.goto(f"{live_server.url}/certificates/no-such-code/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Unknown certificate")
        _shot(page, screenshot_dir, "public-en-unknown")
    finally:
        context.close()


def test_owners_certificate_page_prints_on_one_a4_landscape_page_and_downloads_as_pdf(
    chromium, live_server, certificate, screenshot_dir
):
    import pypdf

    learner, code = certificate
    context = chromium.new_context(
        locale="de-DE", viewport={"width": 1280, "height": 900}, accept_downloads=True
    )
    page = context.new_page()
    errors = _errors_collected(page)
    try:
        log_in(page, live_server.url + "/login/", learner.username)
        page.goto(f"{live_server.url}/my/certificates/{code}/")
        expect(page.locator(".certificate__name")).to_have_text(FULL_NAME)
        expect(page.locator(".certificate .qr-code")).to_be_visible()
        expect(page.get_by_role("button", name="Drucken")).to_be_visible()
        _shot(page, screenshot_dir, "mine-screen")

        # Print media: no navigation, the certificate is the page (297 × 210 mm).
        page.emulate_media(media="print")
        expect(page.locator(".site-header")).to_be_hidden()
        expect(page.locator(".site-footer")).to_be_hidden()
        expect(page.locator(".certificate-actions")).to_be_hidden()
        box = page.locator(".certificate").bounding_box()
        millimetre = 96 / 25.4
        assert (
            abs(box["width"] - 297 * millimetre) < 2 and abs(box["height"] - 210 * millimetre) < 2
        )
        _shot(page, screenshot_dir, "mine-print")
        printed = pypdf.PdfReader(io.BytesIO(page.pdf(prefer_css_page_size=True)))
        assert len(printed.pages) == 1
        width, height = printed.pages[0].mediabox.width, printed.pages[0].mediabox.height
        assert width > height  # landscape
        assert abs(float(width) - 297 * 72 / 25.4) < 2  # A4, in points
        assert FULL_NAME in printed.pages[0].extract_text()
        page.emulate_media(media="screen")

        with page.expect_download() as download_info:
            page.get_by_role("link", name="Als PDF herunterladen").click()
        download = download_info.value
        assert download.suggested_filename == "lernpfad-certificate-self-hosting-27.pdf"
        content = Path(download.path()).read_bytes()
        text = pypdf.PdfReader(io.BytesIO(content)).pages[0].extract_text()
        assert FULL_NAME in text and code in text
        assert not errors, errors
    finally:
        context.close()
