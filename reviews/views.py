"""The unsubscribe page of reminder e-mails and the private calendar address (no log-in). GET
only shows a confirmation (mail scanners open every link); POST unsubscribes (RFC 8058)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from lms.errors import DomainError, Gone, NotFound
from reviews.calendar_feed import feed_calendar
from reviews.selectors import calendar_feed_by_token, learner_exam_date, review_forecast
from reviews.services.reminder_unsubscribe import (
    reminder_email_unsubscribe,
    reminder_unsubscribe_target,
)

TEMPLATE = "reviews/unsubscribe.html"


def _page(request: HttpRequest, context: dict, *, status: int = 200) -> HttpResponse:
    response = render(request, TEMPLATE, context, status=status)
    # A page per secret link: not for shared caches, not for search engines.
    response["Cache-Control"] = "no-store"
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"
    return response


# No CSRF token: RFC 8058 mail clients POST without cookies, and the secret in the URL is the
# credential — a site that could forge this POST would have to know the link already.
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET (and HEAD): the confirmation page; POST: turn the learner's reminder e-mails off."""
    fallback = "en" if getattr(request, "LANGUAGE_CODE", "de").startswith("en") else "de"
    try:
        if request.method == "POST":
            language = reminder_email_unsubscribe(token=token)
            return _page(request, {"state": "done", "language": language})
        target = reminder_unsubscribe_target(token=token)
    except DomainError as exc:
        # An expired link still names its learner's language; else the browser's.
        detail = exc.detail if isinstance(exc.detail, dict) else {}
        language = detail.get("language") or fallback
        state = "expired" if exc.code == "unsubscribe_link_expired" else "invalid"
        status = 404 if isinstance(exc, NotFound) else 400
        return _page(request, {"state": state, "language": language}, status=status)
    state = "confirm" if target.reminders_on else "already_off"
    return _page(request, {"state": state, "language": target.language})


@require_http_methods(["GET", "HEAD"])
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """The private calendar address as iCalendar: reviews due per day and the exam date (404
    unknown, 410 revoked)."""
    try:
        feed = calendar_feed_by_token(token=token)
    except DomainError as exc:
        status = 410 if isinstance(exc, Gone) else 404
        response = HttpResponse(exc.message, status=status, content_type="text/plain")
    else:
        learner = feed.learner
        now = timezone.now()
        exam_date = learner_exam_date(learner_id=learner.pk)
        body = feed_calendar(
            feed_id=feed.pk,
            forecast=review_forecast(learner=learner, at=now),
            exam_date=exam_date,
            review_url=settings.SITE_URL + reverse("web:review"),
            exam_url=settings.SITE_URL + reverse("web:exam", args=[exam_date.module_slug])
            if exam_date
            else "",
            language=learner.language,
            now=now,
            host=urlsplit(settings.SITE_URL).hostname or "lernpfad",
        )
        response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = 'inline; filename="lernpfad.ics"'
    # A secret address: not for shared caches, search engines or the referrer of a link.
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"
    return response
