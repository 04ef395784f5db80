"""Admin for accounts: users with their preferences, and devices.

The users list also has "Enroll selected users in a module…": progress.admin adds it, since the
enrollments it writes are progress' rows.
"""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils import timezone
from knox.models import AuthToken

from accounts.models import Device, User
from accounts.reminders import REMINDER_PREFERENCE_FIELDS, ReminderPreferences


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (
            "Lernpfad",
            {
                "fields": (
                    "display_name",
                    "full_name",
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
    search_fields = (
        "username",
        "email",
        "display_name",
        "full_name",
        "first_name",
        "last_name",
    )

    def save_model(self, request, obj, form, change):
        # An admin who changes a learner's zone, reminder time, quiet hours, address or active
        # flag moves their next reminder, as the learner's own settings page does.
        if not change or REMINDER_PREFERENCE_FIELDS.intersection(form.changed_data):
            obj.next_reminder_at = ReminderPreferences.of(obj).next_after_change(timezone.now())
        super().save_model(request, obj, form, change)


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
