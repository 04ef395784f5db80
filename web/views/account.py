"""The settings page (language, time zone, reminders, quiet hours, desired retention, daily
limits), the password change, "log out everywhere", the data export and the account deletion."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.selectors import sso_local_password_allowed
from accounts.services import (
    credentials_revoke,
    password_change,
    password_reenter,
    user_update,
)
from lms.errors import DomainError, Forbidden, TooManyRequests
from privacy.services import account_delete, account_export
from reviews.selectors import parameters_overview
from web.forms import AccountDeleteForm, PasswordChangeForm, SettingsForm
from web.views.auth import login_locked, remember_language
from web.views.calendar_feed import calendar_feed_url


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    """Show and change the preferences through ``accounts.services.user_update``."""
    user = request.user
    form = SettingsForm(request.POST or None, initial=SettingsForm.initial_from(user))
    if request.method == "POST" and form.is_valid():
        asked_for = form.cleaned_data["email"].strip().lower()
        address_change = asked_for not in (user.email.lower(), user.pending_email.lower())
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
            if address_change:
                # The same words whether the address was free or another account's.
                messages.info(
                    request,
                    _(
                        "If the new address can be used, a confirmation link is on its way to "
                        "it. Your account keeps its current address until you open the link."
                    ),
                )
            return remember_language(redirect("web:settings"), user.language)
    return render(
        request,
        "web/account/settings.html",
        {
            "form": form,
            "nav": "settings",
            "fsrs": parameters_overview(learner_id=user.pk),
            "calendar_feed_url": calendar_feed_url(learner=user),
        },
    )


@login_required
def data_export(request: HttpRequest) -> HttpResponse:
    """Everything Lernpfad stores about the learner as a JSON download: the same
    ``privacy.services.account_export`` as ``GET /api/v1/me/export/``."""
    export = account_export(user=request.user)
    response = HttpResponse(
        json.dumps(export, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    filename = f"lernpfad-{request.user.username}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
def account_delete_page(request: HttpRequest) -> HttpResponse:
    """Delete the account after the password is entered again (``privacy.services
    .account_delete``, as ``DELETE /api/v1/me/``). The password is checked like a log-in first
    (``accounts.services.password_reenter``: django-axes counts wrong ones and locks), so a
    stolen session cannot guess it."""
    form = AccountDeleteForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        password = form.cleaned_data.get("password")
        try:
            if password is None:
                account_delete(user=request.user, username=form.cleaned_data["username"])
            else:
                password_reenter(request=request, user=request.user, password=password)
                account_delete(user=request.user, password=password)
        except TooManyRequests:
            return login_locked(request)
        except Forbidden:
            if password is None:
                form.add_error("username", _("That is not your user name. Nothing was deleted."))
            else:
                form.add_error("password", _("The password is not correct. Nothing was deleted."))
        else:
            logout(request)
            return redirect("web:account_deleted")
    return render(
        request,
        "web/account/delete.html",
        {"form": form, "nav": "settings", "export_url": reverse("web:data_export")},
    )


def account_deleted(request: HttpRequest) -> HttpResponse:
    """Where a deletion ends: the account is gone and this browser is logged out."""
    return render(request, "web/account/deleted.html")


# The service's field names on the form.
_PASSWORD_FIELDS = {"old_password": "old_password", "new_password": "new_password1"}


@login_required
def password_change_page(request: HttpRequest) -> HttpResponse:
    """Change the password (``accounts.services.password_change``); this browser stays logged
    in, every other one and every app token are logged out. An account made through an
    institution's log-in has no password to change: the page tells it where to log in, or (when
    its provider allows local passwords) how to get a link to set one."""
    if not request.user.has_usable_password():
        allowed = sso_local_password_allowed(user=request.user)
        return render(
            request,
            "web/account/password_none.html",
            {"nav": "settings", "local_password_allowed": allowed},
        )
    form = PasswordChangeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = password_change(
                request=request,
                user=request.user,
                old_password=form.cleaned_data["old_password"],
                new_password=form.cleaned_data["new_password1"],
            )
        except TooManyRequests:
            return login_locked(request)
        except DomainError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {}
            for field, errors in detail.items():
                for error in errors if isinstance(errors, list) else [errors]:
                    form.add_error(_PASSWORD_FIELDS.get(field), str(error))
            if not detail:
                form.add_error(None, exc.message)
        else:
            update_session_auth_hash(request, user)
            messages.success(
                request,
                _("Your password is changed. Every other browser and app is logged out."),
            )
            return redirect("web:settings")
    return render(request, "web/account/password_change.html", {"form": form, "nav": "settings"})


@require_POST
@login_required
def logout_everywhere(request: HttpRequest) -> HttpResponse:
    """End every browser session and revoke every app token of the account, this one too."""
    credentials_revoke(user_id=request.user.pk, sessions=True)
    logout(request)
    messages.success(request, _("You are logged out everywhere: in every browser and app."))
    return redirect("web:login")
