"""Log-in lockout: django-axes counts failed log-ins per account and, with a larger limit
(``LOGIN_FAILURE_LIMIT_ADDRESS``), per client address, since many learners share one."""

from __future__ import annotations

import datetime

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_lockout_parameters
from django.conf import settings
from django.db.models import Sum
from rest_framework.throttling import BaseThrottle


def client_address(request) -> str | None:
    """The client's address: the socket's, or behind ``DJANGO_NUM_PROXIES`` proxies the one they
    report, so a client cannot open a new budget by writing X-Forwarded-For itself."""
    return BaseThrottle().get_ident(request)


def lockout_seconds() -> int:
    """How long a lock lasts after the last counted failure, in whole seconds."""
    cool_off = get_cool_off() or datetime.timedelta(0)
    return int(cool_off.total_seconds())


class LoginFailureHandler(AxesDatabaseHandler):
    """axes' database handler with a limit per account and a larger one per address."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        # axes compares this number with AXES_FAILURE_LIMIT (the account's limit); an address
        # over its own limit reports that limit, which locks every log-in from it.
        parameters = get_lockout_parameters(request, credentials)
        attempts = self.get_user_attempts(request, credentials)
        counts = {
            parameter: queryset.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for parameter, queryset in zip(parameters, attempts, strict=True)
            if isinstance(parameter, str)
        }
        account = counts.get("username", 0)
        if counts.get("ip_address", 0) >= settings.LOGIN_FAILURE_LIMIT_ADDRESS:
            return max(account, settings.AXES_FAILURE_LIMIT)
        return account
