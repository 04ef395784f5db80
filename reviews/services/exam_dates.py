"""A learner's exam date for a module: set, moved or removed. No card's due date changes: the
next reviews follow the new date."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils.translation import gettext as _

from courses import api as courses_api
from lms.errors import InvalidInput
from lms.local_time import local_day
from reviews.models import ExamDate, ModuleExamPlan

DEFAULT_MAX_DAYS_AHEAD = 365


@transaction.atomic
def exam_date_set(
    *, learner, module_slug: str, exam_on: datetime.date | None, at: datetime.datetime
) -> ExamDate | None:
    """Set (or with ``None`` remove) the learner's exam date for the module, within today and the
    module plan's limit."""
    module = courses_api.module_by_slug(module_slug)
    if exam_on is None:
        ExamDate.objects.filter(learner_id=learner.pk, module_id=module.id).delete()
        return None
    today = local_day(time_zone=learner.time_zone, at=at).date
    if exam_on < today:
        raise InvalidInput(
            _("The exam date is in the past. Choose today or a later day."),
            detail={"exam_on": [_("Choose today or a later day.")]},
            code="exam_date_past",
        )
    plan = ModuleExamPlan.objects.filter(module_id=module.id).values("max_days_ahead").first()
    days_ahead = plan["max_days_ahead"] if plan else DEFAULT_MAX_DAYS_AHEAD
    latest = today + datetime.timedelta(days=days_ahead)
    if exam_on > latest:
        message = _(
            "The exam date is too far ahead: this module allows at most %(days)s days, "
            "until %(latest)s."
        ) % {"days": days_ahead, "latest": latest.isoformat()}
        raise InvalidInput(
            message,
            detail={"exam_on": [message], "latest": latest.isoformat()},
            code="exam_date_too_far",
        )
    exam, _created = ExamDate.objects.update_or_create(
        learner_id=learner.pk,
        module_id=module.id,
        defaults={"exam_on": exam_on, "set_at": at},
    )
    return exam
