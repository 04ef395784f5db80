"""Account writes: registration, profile changes, mobile tokens issued per device, and the
learners' next reminder instants (``User.next_reminder_at``, which the reminder planner moves on).

Tokens are django-rest-knox tokens: stored as a hash, with an expiry; each belongs to one device
(accounts.Device), so a learner can see and revoke them one by one.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import math
import unicodedata
import zoneinfo
from collections.abc import Mapping
from typing import Any

from django.contrib.auth import authenticate, password_validation
from django.contrib.auth.signals import user_logged_in
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from knox.models import AuthToken
from knox.settings import knox_settings

from accounts import sql
from accounts.data import DESIRED_RETENTION_MAX, DESIRED_RETENTION_MIN
from accounts.models import Device, User
from accounts.reminders import REMINDER_PREFERENCE_FIELDS, ReminderPreferences
from lms.errors import InvalidInput, NotFound

DEFAULT_TIME_ZONE = "Europe/Berlin"
NEW_CARDS_PER_DAY_MAX = 500
REVIEWS_PER_DAY_MAX = 5000
DEVICE_NAME_MAX_LENGTH = 100
FULL_NAME_MAX_LENGTH = 150

# The fields a learner may change on /me/.
PROFILE_FIELDS = frozenset(
    {
        "email",
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
    }
)


@functools.cache
def _time_zones() -> frozenset[str]:
    # available_timezones() scans the tz database on every call; the set never changes at runtime.
    return frozenset(zoneinfo.available_timezones())


class _Errors:
    """Collects messages per field, so one response names every problem at once."""

    def __init__(self) -> None:
        self.by_field: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.by_field.setdefault(field, []).append(message)

    def raise_if_any(self) -> None:
        if self.by_field:
            raise InvalidInput("The input is not valid.", detail=self.by_field)


def _email_check(email: str, errors: _Errors, *, exclude_user_id: int | None = None) -> None:
    if not email:
        errors.add("email", "An e-mail address is required.")
        return
    try:
        validate_email(email)
    except ValidationError:
        errors.add("email", "Enter a valid e-mail address.")
        return
    taken = User.objects.filter(email__iexact=email).exclude(pk=exclude_user_id)
    if taken.exists():
        errors.add("email", "This e-mail address belongs to another account.")


def full_name_clean(value: str | None) -> str:
    """A full name as stored: outer whitespace gone, inner runs of whitespace one space."""
    return " ".join((value or "").split())


# Bidirectional embeddings, overrides and isolates: one would print the name reversed or
# reordered on a certificate. (Zero-width joiners stay: Persian and Indic names use them.)
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _full_name_check(full_name: str, errors: _Errors) -> None:
    # It is printed on certificates: control characters, unassigned code points and bidi
    # controls have no place in it.
    if any(
        unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn") or char in _BIDI_CONTROLS
        for char in full_name
    ):
        errors.add("full_name", "The name contains characters that cannot be printed.")
    if len(full_name) > FULL_NAME_MAX_LENGTH:
        errors.add("full_name", f"A name has at most {FULL_NAME_MAX_LENGTH} characters.")


def _language_check(language: str, errors: _Errors) -> None:
    if language not in User.Language.values:
        errors.add("language", f"Choose one of: {', '.join(User.Language.values)}.")


def _time_zone_check(time_zone: str, errors: _Errors) -> None:
    if time_zone not in _time_zones():
        errors.add(
            "time_zone", f"'{time_zone}' is not an IANA time zone name (e.g. Europe/Berlin)."
        )


def user_register(
    *,
    username: str,
    email: str,
    password: str,
    display_name: str = "",
    full_name: str = "",
    language: str = User.Language.GERMAN,
    time_zone: str = DEFAULT_TIME_ZONE,
) -> User:
    """Create a learner account; the password must pass the configured validators. The full
    name (for certificates) is optional here; a certifying exam asks for it."""
    username = username.strip()
    email = email.strip()
    full_name = full_name_clean(full_name)
    errors = _Errors()
    _full_name_check(full_name, errors)
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError as error:
        errors.add("username", error.messages[0])
    if not username or len(username) > 150:
        errors.add("username", "A username has 1 to 150 characters.")
    elif User.objects.filter(username__iexact=username).exists():
        errors.add("username", "This username is taken.")
    _email_check(email, errors)
    _language_check(language, errors)
    _time_zone_check(time_zone, errors)
    candidate = User(username=username, email=email, display_name=display_name)
    try:
        password_validation.validate_password(password, user=candidate)
    except ValidationError as error:
        for message in error.messages:
            errors.add("password", message)
    errors.raise_if_any()
    candidate.time_zone = time_zone
    try:
        with transaction.atomic():
            return User.objects.create_user(
                username=username,
                email=email,
                password=password,
                display_name=display_name.strip(),
                full_name=full_name,
                language=language,
                time_zone=time_zone,
                next_reminder_at=ReminderPreferences.of(candidate).next_after_change(
                    timezone.now()
                ),
            )
    except IntegrityError:
        # Someone registered the same name or address between the check and the insert.
        raise InvalidInput(
            "The input is not valid.",
            detail={"username": ["This username or e-mail address is taken."]},
        ) from None


def user_authenticate(*, password: str, username: str = "", email: str = "") -> User:
    """The active user with this username (or e-mail address) and password."""
    login = username.strip()
    if email.strip():
        match = User.objects.filter(email__iexact=email.strip()).values_list("username", flat=True)
        # An unknown address still runs the password hasher (inside authenticate), so the
        # response time does not tell which addresses have an account.
        login = match.first() or email.strip()
    user = authenticate(username=login, password=password) if login else None
    if user is None:
        raise InvalidInput("Username/e-mail or password is wrong.", code="invalid_credentials")
    return user


def user_authenticate_by_login(*, login: str, password: str) -> User:
    """The active user for a log-in form's one field: its username, else (when the field holds
    an @) its e-mail address. Usernames may contain @: a username wins over another account's
    e-mail address."""
    try:
        return user_authenticate(username=login, password=password)
    except InvalidInput:
        if "@" not in login:
            raise
        return user_authenticate(email=login, password=password)


@transaction.atomic
def user_update(*, user: User, changes: Mapping[str, Any]) -> User:
    """Change the learner's profile and preferences; every rule is checked before a write."""
    unknown = set(changes) - PROFILE_FIELDS
    if unknown:
        raise InvalidInput(
            "These fields cannot be changed here.", detail={"fields": sorted(unknown)}
        )
    errors = _Errors()
    merged = {name: changes.get(name, getattr(user, name)) for name in PROFILE_FIELDS}
    if "email" in changes:
        merged["email"] = (changes["email"] or "").strip()
        _email_check(merged["email"], errors, exclude_user_id=user.pk)
    if "display_name" in changes:
        merged["display_name"] = (changes["display_name"] or "").strip()
    if "full_name" in changes:
        # A later change does not touch certificates already issued: each keeps the name it
        # was issued with (quizzes.Certificate.learner_name).
        merged["full_name"] = full_name_clean(changes["full_name"])
        _full_name_check(merged["full_name"], errors)
    if "language" in changes:
        _language_check(merged["language"], errors)
    if "time_zone" in changes:
        _time_zone_check(merged["time_zone"], errors)
    low, high = DESIRED_RETENTION_MIN, DESIRED_RETENTION_MAX
    retention = merged["desired_retention"]
    if not isinstance(retention, int | float) or not math.isfinite(retention):
        errors.add("desired_retention", "A number is required.")
    elif not low <= retention <= high:
        errors.add("desired_retention", f"Choose a value from {low:.2f} to {high:.2f}.")
    start, end = merged["quiet_hours_start"], merged["quiet_hours_end"]
    if (start is None) != (end is None):
        errors.add("quiet_hours", "Set both the start and the end of the quiet hours, or neither.")
    elif start is not None and start == end:
        errors.add("quiet_hours", "Quiet hours need different start and end times.")
    for name in ("reminder_time", "quiet_hours_start", "quiet_hours_end"):
        if merged[name] is not None and not isinstance(merged[name], datetime.time):
            errors.add(name, "A time of day (HH:MM) is required.")
    for name, maximum in (
        ("new_cards_per_day", NEW_CARDS_PER_DAY_MAX),
        ("reviews_per_day", REVIEWS_PER_DAY_MAX),
    ):
        if not isinstance(merged[name], int) or not 0 <= merged[name] <= maximum:
            errors.add(name, f"Choose a whole number from 0 to {maximum}.")
    errors.raise_if_any()
    changed = [name for name in PROFILE_FIELDS if merged[name] != getattr(user, name)]
    for name in changed:
        setattr(user, name, merged[name])
    if REMINDER_PREFERENCE_FIELDS.intersection(changed):
        user.next_reminder_at = ReminderPreferences.of(user).next_after_change(timezone.now())
        changed.append("next_reminder_at")
    if changed:
        try:
            with transaction.atomic():
                user.save(update_fields=sorted(changed))
        except IntegrityError:
            raise InvalidInput(
                "The input is not valid.",
                detail={"email": ["This e-mail address belongs to another account."]},
            ) from None
    return user


@transaction.atomic
def token_create(*, user: User, device_name: str = "") -> tuple[AuthToken, str]:
    """Issue a token for one device; returns the row and the token (shown only this once).

    A new token for a device name that already has one replaces it (the app was reinstalled);
    beyond the per-user limit the oldest tokens are revoked.
    """
    name = device_name.strip()[:DEVICE_NAME_MAX_LENGTH]
    now = timezone.now()
    tokens = AuthToken.objects.filter(user=user)
    tokens.filter(expiry__lte=now).delete()
    if name:
        tokens.filter(device__name=name).delete()
    limit = knox_settings.TOKEN_LIMIT_PER_USER
    if limit:
        surplus = list(tokens.order_by("-created").values_list("digest", flat=True)[limit - 1 :])
        if surplus:
            AuthToken.objects.filter(digest__in=surplus).delete()
    instance, token = AuthToken.objects.create(user=user, expiry=knox_settings.TOKEN_TTL)
    Device.objects.create(token=instance, user=user, name=name, created_at=now)
    user_logged_in.send(sender=user.__class__, request=None, user=user)
    return instance, token


def token_delete(*, token: AuthToken) -> None:
    """Revoke one token (log-out of this device)."""
    AuthToken.objects.filter(digest=token.digest).delete()


def tokens_delete_all(*, user_id: int) -> int:
    """Revoke every token of the user (log-out everywhere); returns how many there were."""
    return AuthToken.objects.filter(user_id=user_id).delete()[1].get("knox.AuthToken", 0)


@transaction.atomic
def device_delete(*, user_id: int, device_id: int) -> None:
    """Revoke the token of one of the user's devices; another user's device is a 404."""
    digest = (
        Device.objects.filter(pk=device_id, user_id=user_id)
        .values_list("token_id", flat=True)
        .first()
    )
    if digest is None:
        raise NotFound("There is no such device.", code="device_not_found")
    AuthToken.objects.filter(digest=digest).delete()


def reminder_schedules_reset(*, after: datetime.datetime, batch_size: int = 2000) -> int:
    """Work out every learner's next reminder instant afresh: their first after ``after``
    (None without reminders). For bulk loads (the benchmark's COPY) and repairs; one read and
    one UPDATE per ``batch_size`` learners. Returns how many learners it went through."""
    fields = tuple(field.name for field in dataclasses.fields(ReminderPreferences))
    learners = User.objects.order_by("pk").values("pk", *fields)
    last_id, count = 0, 0
    while True:
        rows = list(learners.filter(pk__gt=last_id)[:batch_size])
        if not rows:
            return count
        sql.next_reminders_update(
            {
                row["pk"]: ReminderPreferences(**{name: row[name] for name in fields}).next_after(
                    after
                )
                for row in rows
            }
        )
        count += len(rows)
        last_id = rows[-1]["pk"]


@transaction.atomic
def reminder_email_turn_off(*, learner_id: int) -> str | None:
    """Turn the learner's reminder e-mails off (the one-click unsubscribe; idempotent).

    Returns their language for the confirmation page (None if the account is gone).
    """
    learners = User.objects.filter(pk=learner_id)
    language = learners.values_list("language", flat=True).first()
    learners.update(reminder_email=False, next_reminder_at=None)
    return language


@transaction.atomic
def demo_user_reset(
    *, username: str, password: str, display_name: str, is_staff: bool, full_name: str = ""
) -> User:
    """Create the demo account, or set it back to its demo state (``manage.py demo_setup``,
    local use only): the password, the name, staff and superuser flags, the next reminder."""
    user, _ = User.objects.get_or_create(
        username=username, defaults={"email": f"{username}@example.org"}
    )
    user.is_staff = user.is_superuser = is_staff
    user.display_name = display_name
    user.full_name = full_name_clean(full_name)
    user.set_password(password)
    user.next_reminder_at = ReminderPreferences.of(user).next_after_change(timezone.now())
    user.save()
    return user
