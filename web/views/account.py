"""The settings page: language, time zone, reminders, quiet hours, desired retention."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.services import user_update
from lms.errors import DomainError
from lms.local_time import time_zone_names
from web.forms import SettingsForm
from web.views.auth import remember_language

FIELDS = tuple(SettingsForm.base_fields)


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    """Show and change the preferences through ``accounts.services.user_update``."""
    user = request.user
    initial = {name: getattr(user, name) for name in FIELDS}
    form = SettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            user_update(user=user, changes=form.cleaned_data)
        except DomainError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {}
            for field, errors in detail.items():
                name = "quiet_hours_start" if field == "quiet_hours" else field
                for error in errors if isinstance(errors, list) else [errors]:
                    form.add_error(name if name in form.fields else None, str(error))
            if not detail:
                form.add_error(None, exc.message)
        else:
            translation.activate(user.language)
            messages.success(request, _("Your settings are saved."))
            return remember_language(redirect("web:settings"), user.language)
    return render(
        request,
        "web/account/settings.html",
        {"form": form, "nav": "settings", "time_zones": _common_time_zones()},
    )


def _common_time_zones() -> list[str]:
    return sorted(z for z in time_zone_names() if "/" in z and not z.startswith("Etc"))
