"""The learner account: Django's user plus the preferences Lernpfad needs."""

import datetime
import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"'{value}' is not an IANA time zone name (e.g. Europe/Berlin).")


class User(AbstractUser):
    """A learner or admin. Preferences live here: they are read on nearly every request."""

    class Language(models.TextChoices):
        GERMAN = "de", "Deutsch"
        ENGLISH = "en", "English"

    display_name = models.CharField(max_length=150, blank=True)
    language = models.CharField(max_length=5, choices=Language.choices, default=Language.GERMAN)
    time_zone = models.CharField(
        max_length=64, default="Europe/Berlin", validators=[validate_time_zone]
    )
    # Reminder preferences (the spaced-repetition reminders read these).
    reminder_time = models.TimeField(default=datetime.time(18, 0))
    quiet_hours_start = models.TimeField(null=True, blank=True)
    quiet_hours_end = models.TimeField(null=True, blank=True)
    reminder_email = models.BooleanField(default=True)
    # Spaced-repetition preferences.
    desired_retention = models.FloatField(default=0.9)
    new_cards_per_day = models.PositiveIntegerField(default=20)
    reviews_per_day = models.PositiveIntegerField(default=200)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(desired_retention__gte=0.80) & Q(desired_retention__lte=0.97),
                name="user_desired_retention_range",
            ),
            models.CheckConstraint(
                condition=Q(language__in=["de", "en"]), name="user_language_known"
            ),
        ]

    @property
    def public_name(self) -> str:
        return self.display_name or self.get_full_name() or self.username

    def __str__(self) -> str:
        return self.username
