"""Certificates: the learner's own (printable page and PDF download) and the public
verification page that a certificate's link and QR code open.

Reads go through ``quizzes.selectors`` as ``/api/v1/certificates/…`` do. The public page
shows a person whether a certificate is valid or revoked; the JSON verification answers a
revoked code with the same 404 as an unknown one.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from lms.downloads import private_download
from quizzes.selectors import certificate_by_code, learner_certificate, learner_certificate_pdf
from web.views.common import domain_errors_as_pages


@login_required
def certificate_page(request: HttpRequest, code: str) -> HttpResponse:
    """The learner's own certificate, printable (print stylesheet: A4 landscape, no navigation),
    with its PDF download and the public verification link."""
    certificate = learner_certificate(learner_id=request.user.pk, code=code)
    if certificate is None:
        raise Http404("no such certificate of yours")
    return render(request, "web/certificates/mine.html", {"certificate": certificate})


@login_required
@domain_errors_as_pages()
def certificate_pdf(request: HttpRequest, code: str) -> HttpResponse:
    """The learner's own valid certificate as a PDF (the API's ``certificates/{code}/pdf/``)."""
    pdf = learner_certificate_pdf(
        learner_id=request.user.pk, code=code, time_zone=request.user.time_zone
    )
    return private_download(pdf.content, content_type="application/pdf", filename=pdf.filename)


@require_safe
def certificate_verify_page(request: HttpRequest, code: str) -> HttpResponse:
    """Anyone holding the code: valid or revoked, with name, module, date and score, in the
    viewer's language; an unknown code is a 404 page in the site's style."""
    certificate = certificate_by_code(code=code)
    response = render(
        request,
        "web/certificates/verify.html",
        {"certificate": certificate, "code": code},
        status=200 if certificate is not None else 404,
    )
    # Whether a certificate is valid can change (revocation): no cache may keep the answer.
    response["Cache-Control"] = "no-store"
    return response
