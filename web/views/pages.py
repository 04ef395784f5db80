"""The start page (course list or dashboard) and the keyboard help page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from courses.selectors import module_catalog
from web.views.dashboard import dashboard


def home(request: HttpRequest) -> HttpResponse:
    """Signed-in learners get their dashboard; everyone else the course list."""
    if request.user.is_authenticated:
        return dashboard(request)
    return render(request, "web/home.html", {"modules": module_catalog(), "nav": "home"})


def keyboard_help(request: HttpRequest) -> HttpResponse:
    return render(request, "web/keyboard.html", {"nav": "keyboard"})
