"""The settings page's private calendar address: make one (replacing the live one) or revoke it.
The address itself is served by reviews.views.calendar_feed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from reviews.selectors import calendar_feed_get
from reviews.selectors import calendar_feed_url as feed_url
from reviews.services.calendar_feeds import calendar_feed_create, calendar_feed_revoke_all


def calendar_feed_url(*, learner) -> str | None:
    """The learner's live calendar address, absolute (for calendar apps), or None."""
    feed = calendar_feed_get(learner=learner)
    return None if feed is None else feed_url(feed)


@login_required
@require_POST
def calendar_feed_new(request: HttpRequest) -> HttpResponse:
    replaced = calendar_feed_get(learner=request.user) is not None
    calendar_feed_create(learner_id=request.user.pk)
    if replaced:
        messages.success(
            request, _("A new calendar address is ready; the old one no longer works.")
        )
    else:
        messages.success(request, _("Your calendar address is ready: add it to your calendar."))
    return redirect(reverse("web:settings") + "#calendar-feed")


@login_required
@require_POST
def calendar_feed_revoke(request: HttpRequest) -> HttpResponse:
    if calendar_feed_revoke_all(learner_id=request.user.pk):
        messages.success(request, _("The calendar address is revoked; calendars get nothing more."))
    return redirect(reverse("web:settings") + "#calendar-feed")
