"""The review session: one due card at a time, reveal, rate 1–4, undo.

Reads ``reviews.selectors`` (due queue with the interval per rating and the card's back) and
writes with ``reviews.services.reviewing`` – the same calls as ``/api/v1/reviews/``.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from lms.errors import Conflict
from reviews.selectors import daily_budget, due_queue
from reviews.services import reviewing
from web.forms import ReviewRatingForm
from web.views.common import domain_errors_as_pages


def rating_labels() -> dict[int, str]:
    return {
        1: pgettext("review rating", "Again"),
        2: pgettext("review rating", "Hard"),
        3: pgettext("review rating", "Good"),
        4: pgettext("review rating", "Easy"),
    }


# How many steps ``?steps=`` may name: a module's worth, so a hand-made URL stays a small array.
FIRST_STEPS_MAX = 100


def first_steps(value: str) -> tuple[int, ...]:
    """The step ids of ``?steps=12,13`` (the exam result page's link: their due cards first);
    what is not a number is left out."""
    ids = [int(part) for part in value.split(",") if part.strip().isdigit()]
    return tuple(dict.fromkeys(ids))[:FIRST_STEPS_MAX]


def _back_to_session(request: HttpRequest) -> HttpResponse:
    """The session again, still showing the steps it was asked to show first."""
    steps = first_steps(request.POST.get("steps", ""))
    url = reverse("web:review")
    return redirect(f"{url}?{urlencode({'steps': ','.join(map(str, steps))})}" if steps else url)


@login_required
def review_session(request: HttpRequest) -> HttpResponse:
    """The next due card (front, back, a button per rating with its next interval); with
    ``?steps=``, the due cards of those steps first."""
    steps = first_steps(request.GET.get("steps", ""))
    queue = due_queue(
        learner=request.user,
        at=timezone.now(),
        limit=1,
        include_back=True,
        first_step_ids=steps,
    )
    card = queue.cards[0] if queue.cards else None
    labels = rating_labels()
    buttons = [
        {"rating": p.rating, "label": labels[p.rating], "seconds": p.seconds}
        for p in (card.intervals if card else ())
    ]
    return render(
        request,
        "web/reviews/session.html",
        {
            "nav": "review",
            "queue": queue,
            "held_back": queue.due_total - queue.due_count,
            # Undo takes back this local day's reviews, as a session's undo does; yesterday's
            # history is not rewritten from a button that shows up on a fresh morning.
            "can_undo": queue.budget.reviewed_today > 0,
            "card": card,
            "buttons": buttons,
            # A fresh id per shown card: a double submit of the same form is one review.
            "client_review_id": uuid.uuid4().hex,
            "first_steps": ",".join(map(str, steps)),
        },
    )


# The card comes in the form, not the URL: a card that is not the learner's (any more) is a
# message in the session, not a 404 page.
@login_required
@require_POST
@domain_errors_as_pages(back=lambda request: reverse("web:review"), not_found_is_404=False)
def review_rate(request: HttpRequest) -> HttpResponse:
    form = ReviewRatingForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the four ratings."))
        return _back_to_session(request)
    reviewing.review_record(
        learner=request.user,
        card_id=form.cleaned_data["card"],
        rating=form.cleaned_data["rating"],
        duration_ms=form.cleaned_data.get("duration_ms"),
        client_review_id=form.cleaned_data.get("client_review_id") or uuid.uuid4().hex,
    )
    label = rating_labels()[form.cleaned_data["rating"]]
    messages.success(request, _("Rated “%(rating)s”.") % {"rating": label})
    return _back_to_session(request)


@login_required
@require_POST
@domain_errors_as_pages(back=lambda request: reverse("web:review"), not_found_is_404=False)
def review_undo(request: HttpRequest) -> HttpResponse:
    """Undo the last review of the learner's local day (the page offers nothing else)."""
    try:
        if daily_budget(learner=request.user, at=timezone.now()).reviewed_today == 0:
            raise Conflict("There is no review to undo today.", code="nothing_to_undo")
        reviewing.review_undo(learner=request.user)
    except Conflict as exc:
        if exc.code != "nothing_to_undo":
            raise
        # Not a failure: the button was pressed once too often.
        messages.info(request, _("There is no review to undo."))
    else:
        messages.success(request, _("The last review is undone."))
    return _back_to_session(request)
