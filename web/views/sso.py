"""The single sign-on pages of our own: an inactive account (allauth's ``account_inactive``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def account_inactive(request: HttpRequest) -> HttpResponse:
    """A provider's identity whose account an admin deactivated: no log-in."""
    return render(request, "web/sso/inactive.html", {"nav": "login"}, status=403)
