"""Admin for accounts."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import User


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
