"""The admin site "Lernpfad · Kursverwaltung": course admins see the course; the operators'
models (tokens, schedules, digests, lockouts) are wrapped so only a superuser sees or changes them.
"""

from __future__ import annotations

import functools
import zoneinfo

from django.contrib import admin
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# app label, or "app_label.model_name": for superusers only.
SUPERUSER_ONLY = frozenset(
    {
        "knox",
        "django_celery_beat",
        "axes",
        "accounts.device",
        # Who administers which module: assigned by superusers (and LTI platforms).
        "courses.moduleadministrator",
        "reviews.reminderdigest",
        "reviews.notification",
        # Single sign-on: the institutions' identity providers, identities, allauth's addresses.
        "socialaccount",
        "account",
        # LTI: the platforms, their keys and courses, what links open, the grade sends.
        "lti_tool",
        "lti",
    }
)

# The names the index shows for apps that are not Lernpfad's own.
APP_NAMES = {
    "auth": _("Groups and permissions"),
    "knox": _("API tokens"),
    "django_celery_beat": _("Scheduled tasks"),
    "axes": _("Log-in lockouts"),
    "socialaccount": _("Single sign-on"),
    "account": _("Single sign-on: e-mail addresses"),
    "lti_tool": _("LTI platforms: registrations and keys"),
}


def is_superuser_only(model) -> bool:
    meta = model._meta
    return meta.app_label in SUPERUSER_ONLY or meta.label_lower in SUPERUSER_ONLY


class SuperuserOnlyMixin:
    """Every permission of the model admin needs a superuser (staff get 403, no index entry)."""

    def has_module_permission(self, request):
        return request.user.is_superuser and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_view_permission(request, obj)

    def has_add_permission(self, request, *args, **kwargs):
        return request.user.is_superuser and super().has_add_permission(request, *args, **kwargs)

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)


def _zone_of(user) -> zoneinfo.ZoneInfo | None:
    name = getattr(user, "time_zone", "") or ""
    try:
        return zoneinfo.ZoneInfo(name) if name else None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


class LernpfadAdminSite(admin.AdminSite):
    site_header = _("Lernpfad · Kursverwaltung")
    site_title = _("Lernpfad · Kursverwaltung")
    index_title = _("Course administration")

    def admin_view(self, view, cacheable=False):
        """Every admin page shows times in the admin's own time zone (``User.time_zone``)."""
        inner = super().admin_view(view, cacheable)

        @functools.wraps(inner)
        def in_admins_zone(request, *args, **kwargs):
            with timezone.override(_zone_of(request.user)):
                response = inner(request, *args, **kwargs)
                # A template response renders later, outside this block: render it here.
                if hasattr(response, "render") and not response.is_rendered:
                    response.render()
                return response

        return in_admins_zone

    def register(self, model_or_iterable, admin_class=None, **options):
        models = (
            [model_or_iterable] if isinstance(model_or_iterable, type) else list(model_or_iterable)
        )
        for model in models:
            model_admin = admin_class or admin.ModelAdmin
            if is_superuser_only(model) and not issubclass(model_admin, SuperuserOnlyMixin):
                model_admin = type(
                    f"SuperuserOnly{model_admin.__name__}", (SuperuserOnlyMixin, model_admin), {}
                )
            super().register(model, model_admin, **options)

    def login(self, request, extra_context=None):
        """A course admin (staff, not superuser) who logs in without asking for a page lands on
        the module dashboard (quizzes' admin), the page their week starts with; superusers on
        the index."""
        asked = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME)
        response = super().login(request, extra_context)
        index = reverse("admin:index", current_app=self.name)
        user = request.user
        if (
            request.method == "POST"
            and response.status_code == 302
            and response["Location"] == index
            and asked in (None, "", index)
            and not user.is_superuser
            and user.has_perm("courses.view_module")
            and user.has_perm("progress.view_enrollment")
        ):
            return redirect("admin:quizzes_module_dashboard_first")
        return response

    def get_app_list(self, request, app_label=None):
        app_list = super().get_app_list(request, app_label)
        for app in app_list:
            if app["app_label"] in APP_NAMES:
                app["name"] = APP_NAMES[app["app_label"]]
        return app_list
