"""The learner account: Django's user plus the preferences Lernpfad needs, and its devices."""

import datetime

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy as _
from knox.models import AuthToken

from accounts.data import (
    DEFAULT_DESIRED_RETENTION,
    DESIRED_RETENTION_MAX,
    DESIRED_RETENTION_MIN,
)
from lms.local_time import is_time_zone


def validate_time_zone(value: str) -> None:
    if not is_time_zone(value):
        raise ValidationError(f"'{value}' is not an IANA time zone name (e.g. Europe/Berlin).")


class User(AbstractUser):
    """A learner or admin. Preferences live here: they are read on nearly every request."""

    class Language(models.TextChoices):
        GERMAN = "de", "Deutsch"
        ENGLISH = "en", "English"

    # The name to greet the learner with (a nickname may do); never on a certificate.
    display_name = models.CharField(max_length=150, blank=True, verbose_name=_("display name"))
    # The real name a certificate prints, one field: not every name splits into given and
    # family name. Required before a certifying exam starts.
    full_name = models.CharField(max_length=150, blank=True, verbose_name=_("full name"))
    language = models.CharField(
        max_length=5, choices=Language.choices, default=Language.GERMAN, verbose_name=_("language")
    )
    time_zone = models.CharField(
        max_length=64,
        default="Europe/Berlin",
        validators=[validate_time_zone],
        verbose_name=_("time zone"),
    )
    # Reminder preferences (the spaced-repetition reminders read these).
    reminder_time = models.TimeField(default=datetime.time(18, 0), verbose_name=_("reminder time"))
    quiet_hours_start = models.TimeField(null=True, blank=True, verbose_name=_("quiet hours from"))
    quiet_hours_end = models.TimeField(null=True, blank=True, verbose_name=_("quiet hours until"))
    reminder_email = models.BooleanField(default=True, verbose_name=_("reminder e-mail"))
    # When the reminder planner must look at this learner next (NULL: no reminders); a row
    # created without it gets its creation time and the next run stores the exact instant.
    next_reminder_at = models.DateTimeField(
        null=True, default=timezone.now, editable=False, verbose_name=_("next reminder")
    )
    # When the confirmation link proved ``email`` reaches the learner; NULL while a sign-up
    # waits (no log-in, no reminders). Accounts made by an operator count as confirmed.
    email_confirmed_at = models.DateTimeField(
        null=True, default=timezone.now, editable=False, verbose_name=_("e-mail confirmed")
    )
    # An address the learner asked to change to, until its link is opened. Not unique.
    pending_email = models.EmailField(
        max_length=254,
        blank=True,
        default="",
        editable=False,
        verbose_name=_("requested new e-mail address"),
    )
    # Spaced-repetition preferences.
    desired_retention = models.FloatField(
        default=DEFAULT_DESIRED_RETENTION, verbose_name=_("desired retention")
    )
    new_cards_per_day = models.PositiveIntegerField(default=20, verbose_name=_("new cards per day"))
    reviews_per_day = models.PositiveIntegerField(default=200, verbose_name=_("reviews per day"))
    # Part of the session auth hash: raising it ends every browser session ("log out everywhere").
    session_epoch = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=_("session epoch")
    )
    # Moves on whenever every credential is revoked (a password set, "log out everywhere"): a
    # credential another app issued under an older epoch (the calendar address) is void.
    credentials_epoch = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=_("credentials epoch")
    )

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
        constraints = [
            models.CheckConstraint(
                condition=Q(desired_retention__gte=DESIRED_RETENTION_MIN)
                & Q(desired_retention__lte=DESIRED_RETENTION_MAX),
                name="user_desired_retention_range",
            ),
            models.CheckConstraint(
                condition=Q(language__in=["de", "en"]), name="user_language_known"
            ),
            # Log-in accepts the e-mail address instead of the username, so it must name one
            # account; accounts without an address (admin-created) are exempt.
            models.UniqueConstraint(
                Lower("email"), condition=~Q(email=""), name="user_email_ci_unique"
            ),
            # Quiet hours are a window: both ends or neither.
            models.CheckConstraint(
                condition=Q(quiet_hours_start__isnull=True, quiet_hours_end__isnull=True)
                | Q(quiet_hours_start__isnull=False, quiet_hours_end__isnull=False),
                name="user_quiet_hours_both_or_neither",
            ),
        ]
        indexes = [
            # The reminder planner reads the learners whose instant has come, in this order.
            models.Index(
                fields=["next_reminder_at", "id"],
                condition=Q(next_reminder_at__isnull=False),
                name="user_next_reminder",
            )
        ]

    @property
    def public_name(self) -> str:
        """The one rule for the name shown for a learner (greeting, e-mail): the chosen display
        name, else the full name, else the username."""
        return self.display_name or self.full_name or self.get_full_name() or self.username

    @property
    def certificate_name(self) -> str:
        """The name a certificate states: the full name, else the public name."""
        return self.full_name or self.public_name

    def __str__(self) -> str:
        return self.username

    # --- what keeps an account logged in -----------------------------------------------------

    _SESSION_HASH_SALT = "django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash"

    def _session_hash(self, secret: str | None) -> str:
        # Django's own hash while the epoch is 0; after that the epoch is part of the message.
        message = (
            self.password if not self.session_epoch else f"{self.password}|{self.session_epoch}"
        )
        return salted_hmac(
            self._SESSION_HASH_SALT, message, secret=secret, algorithm="sha256"
        ).hexdigest()

    def get_session_auth_hash(self) -> str:
        return self._session_hash(None)

    def get_session_auth_fallback_hash(self):
        for fallback_secret in settings.SECRET_KEY_FALLBACKS:
            yield self._session_hash(fallback_secret)


class Device(models.Model):
    """The device a mobile token was issued to: a name and a plain id for knox's token."""

    token = models.OneToOneField(
        AuthToken, on_delete=models.CASCADE, related_name="device", verbose_name=_("token")
    )
    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="devices", verbose_name=_("user")
    )
    name = models.CharField(max_length=100, blank=True, verbose_name=_("device name"))
    created_at = models.DateTimeField(verbose_name=_("created"))

    class Meta:
        verbose_name = _("device")
        verbose_name_plural = _("devices")
        indexes = [models.Index(fields=["user", "name"])]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.name or 'unnamed device'}"
