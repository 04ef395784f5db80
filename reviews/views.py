"""The one-click unsubscribe page linked from reminder e-mails (no log-in, a signed token)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from lms.errors import InvalidInput
from reviews.services.reminder_unsubscribe import reminder_email_unsubscribe


@csrf_exempt  # RFC 8058: mail clients POST "List-Unsubscribe=One-Click" without cookies.
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """Turn reminder e-mails off for the learner named by the signed token (GET or POST)."""
    fallback = "en" if getattr(request, "LANGUAGE_CODE", "de").startswith("en") else "de"
    try:
        language = reminder_email_unsubscribe(token=token)
    except InvalidInput:
        context = {"ok": False, "language": fallback}
        return render(request, "reviews/unsubscribe.html", context, status=400)
    response = render(
        request, "reviews/unsubscribe.html", {"ok": True, "language": language or fallback}
    )
    response["Cache-Control"] = "no-store"
    return response
