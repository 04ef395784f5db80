"""The learner's FSRS parameters ("Optimize" on the settings page) and exam dates (module page)."""

from __future__ import annotations

import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_POST

from lms.errors import InvalidInput
from lms.local_time import local_day
from reviews.selectors import exam_date_for, exam_readiness
from reviews.services import exam_dates
from reviews.services import parameters as parameters_services
from web.views.common import domain_errors_as_pages

_FIT_MESSAGES = {
    "adopted": gettext_noop(
        "New parameters fitted to your reviews: they predict your recent reviews better and "
        "schedule your cards from now on."
    ),
    "kept": gettext_noop(
        "Your parameters stay as they are: the new fit did not predict your recent reviews better."
    ),
    "too_few_reviews": gettext_noop(
        "There are not enough reviews to fit parameters of your own yet."
    ),
    "already_fitted": gettext_noop("Your parameters were fitted a moment ago."),
}


@login_required
@require_POST
@domain_errors_as_pages(back=lambda request: reverse("web:settings"))
def fsrs_optimize(request: HttpRequest) -> HttpResponse:
    """Fit the learner's parameters now (reviews.services.parameters)."""
    report = parameters_services.parameters_fit_requested(
        learner_id=request.user.pk, at=timezone.now()
    )
    text = _(_FIT_MESSAGES[report.outcome])
    (messages.success if report.outcome == "adopted" else messages.info)(request, text)
    return redirect(reverse("web:settings") + "#fsrs-parameters")


def _back_to_module(request: HttpRequest, module: str) -> str:
    return reverse("web:module", args=[module]) + "#exam-date"


@login_required
@require_POST
@domain_errors_as_pages(back=_back_to_module)
def exam_date_save(request: HttpRequest, module: str) -> HttpResponse:
    """Set, move or (``remove``) remove the learner's exam date for the module."""
    if "remove" in request.POST:
        exam_on = None
    else:
        try:
            exam_on = datetime.date.fromisoformat(request.POST.get("exam_on", "").strip())
        except ValueError:
            raise InvalidInput(
                _("Enter the exam date as a date, e.g. 2031-06-30."), code="invalid_date"
            ) from None
    exam_dates.exam_date_set(
        learner=request.user, module_slug=module, exam_on=exam_on, at=timezone.now()
    )
    if exam_on is None:
        messages.success(request, _("Your exam date is removed."))
    else:
        messages.success(request, _("Your exam date is saved; your reviews now prepare for it."))
    return redirect(_back_to_module(request, module))


def exam_date_context(*, learner, module_id: int) -> dict:
    """What the module page's exam-date card shows: the date in force, who set it, the limits
    of the date field and the readiness."""
    now = timezone.now()
    exam_date = exam_date_for(learner_id=learner.pk, module_id=module_id)
    exam_on, set_by, max_days_ahead = exam_date
    today = local_day(time_zone=learner.time_zone, at=now).date
    return {
        "exam_on": exam_on,
        "set_by": set_by,
        "max_days_ahead": max_days_ahead,
        "today": today,
        "latest": today + datetime.timedelta(days=max_days_ahead),
        "readiness": exam_readiness(
            learner=learner, module_id=module_id, at=now, exam_date=exam_date
        ),
    }
