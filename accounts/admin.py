"""Admin for accounts: users with their preferences, bulk enrollment, and devices."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.template.response import TemplateResponse
from django.utils import timezone
from knox.models import AuthToken

from accounts.models import Device, User
from accounts.reminders import REMINDER_PREFERENCE_FIELDS, ReminderPreferences
from courses import api as courses_api


class BulkEnrollForm(forms.Form):
    module = forms.TypedChoiceField(coerce=int, label="Module")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["module"].choices = [
            (module.id, module.header) for module in courses_api.modules_all()
        ]


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (
            "Lernpfad",
            {
                "fields": (
                    "display_name",
                    "language",
                    "time_zone",
                    "reminder_time",
                    "quiet_hours_start",
                    "quiet_hours_end",
                    "reminder_email",
                    "desired_retention",
                    "new_cards_per_day",
                    "reviews_per_day",
                )
            },
        ),
    )
    list_display = ("username", "email", "display_name", "language", "time_zone", "is_staff")
    search_fields = ("username", "email", "display_name", "first_name", "last_name")
    actions = ("enroll_in_module",)

    def save_model(self, request, obj, form, change):
        # An admin who changes a learner's zone, reminder time, quiet hours, address or active
        # flag moves their next reminder, as the learner's own settings page does.
        if not change or REMINDER_PREFERENCE_FIELDS.intersection(form.changed_data):
            obj.next_reminder_at = ReminderPreferences.of(obj).next_after_change(timezone.now())
        super().save_model(request, obj, form, change)

    @admin.action(description="Enroll selected users in a module…", permissions=["change"])
    def enroll_in_module(self, request, queryset):
        """Intermediate page: choose the module, then enroll every selected user."""
        form = BulkEnrollForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            module_id = form.cleaned_data["module"]
            learner_ids = list(queryset.values_list("pk", flat=True))
            created = courses_api.enrollments_bulk_create(
                learner_ids=learner_ids, module_id=module_id
            )
            self.message_user(
                request,
                f"Enrolled {created} user(s); {len(learner_ids) - created} were enrolled already.",
                messages.SUCCESS,
            )
            return None
        return TemplateResponse(
            request,
            "admin/accounts/user/bulk_enroll.html",
            {
                **self.admin_site.each_context(request),
                "title": "Enroll in a module",
                "opts": self.model._meta,
                "users": queryset.order_by("username"),
                "form": form,
            },
        )


@admin.register(Device)
class DeviceAdmin(admin.ModelAdmin):
    """Mobile devices with a token; deleting one revokes its token."""

    list_display = ("user", "name", "created_at", "expiry")
    search_fields = ("user__username", "user__email", "name")
    list_select_related = ("user", "token")
    fields = ("user", "name", "created_at", "expiry")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    @admin.display(description="expires", ordering="token__expiry")
    def expiry(self, device: Device):
        return device.token.expiry

    def delete_model(self, request, obj):
        obj.token.delete()

    def delete_queryset(self, request, queryset):
        AuthToken.objects.filter(digest__in=queryset.values("token_id")).delete()
