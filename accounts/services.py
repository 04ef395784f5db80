"""Account writes: registration and confirmation, log-in and passwords, profile changes,
mobile tokens per device, and the learners' next reminder instants."""

from __future__ import annotations

import dataclasses
import datetime
import functools
import logging
import math
import operator
import secrets
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import authenticate, password_validation
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, update_last_login
from django.contrib.auth.signals import user_logged_in
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Cast
from django.http import HttpRequest
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from knox.models import AuthToken
from knox.settings import knox_settings

from accounts import tasks
from accounts.data import DESIRED_RETENTION_MAX, DESIRED_RETENTION_MIN
from accounts.device_names import device_name_from_user_agent
from accounts.lockout import lockout_seconds
from accounts.models import Device, User
from accounts.reminders import REMINDER_PREFERENCE_FIELDS, ReminderPreferences
from accounts.roles import COURSE_ADMIN_GROUP, course_admin_group_sync
from accounts.tokens import (
    ConfirmationTokenExpired,
    ConfirmationTokenInvalid,
    email_confirmation_claim,
)
from lms.errors import Forbidden, InvalidInput, NotFound, TooManyRequests
from lms.local_time import is_time_zone

logger = logging.getLogger(__name__)

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


class _Errors:
    """Collects messages per field, so one response names every problem at once."""

    def __init__(self) -> None:
        self.by_field: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.by_field.setdefault(field, []).append(message)

    def raise_if_any(self) -> None:
        if self.by_field:
            raise InvalidInput(_("The input is not valid."), detail=self.by_field)


def _looks_like_address(value: str) -> bool:
    try:
        validate_email(value)
    except ValidationError:
        return False
    return True


def _username_check(username: str, errors: _Errors) -> None:
    """The user name's rules: it may not look like or equal an e-mail address, since log-in takes
    either in one field."""
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError as error:
        errors.add("username", error.messages[0])
    if not username or len(username) > 150:
        errors.add("username", _("A username has 1 to 150 characters."))
    elif _looks_like_address(username):
        errors.add("username", _("A user name may not be an e-mail address."))
    elif User.objects.filter(Q(username__iexact=username) | Q(email__iexact=username)).exists():
        errors.add("username", _("This username is taken."))


def _email_check(email: str, errors: _Errors, *, exclude_user_id: int | None = None) -> int | None:
    """The address's rules; returns the id of another account that has this address (None: it
    is free, or not valid). Whether it is taken is the caller's to keep quiet about."""
    if not email:
        errors.add("email", _("An e-mail address is required."))
        return None
    try:
        validate_email(email)
    except ValidationError:
        errors.add("email", _("Enter a valid e-mail address."))
        return None
    # One query for both rules: another account's address or user name.
    others = (
        User.objects.filter(Q(email__iexact=email) | Q(username__iexact=email))
        .exclude(pk=exclude_user_id)
        .values_list("pk", "username")
    )
    owner_id = None
    for pk, username in others:
        if username.lower() == email.lower():
            errors.add("email", _("This address is another account's user name."))
            return None
        owner_id = pk
    return owner_id


def _account_mail_queue(task: Any, **kwargs: Any) -> None:
    """Hand an account mail to the worker once the transaction commits; without
    ``ACCOUNT_MAILS_QUEUED`` or a reachable broker (logged), send it here."""

    def enqueue() -> None:
        if settings.ACCOUNT_MAILS_QUEUED:
            try:
                task.delay(**kwargs)
                return
            except Exception:
                logger.exception("broker unreachable: sending %s in the request", task.name)
        task(**kwargs)

    transaction.on_commit(enqueue, robust=True)


def full_name_clean(value: str | None) -> str:
    """A full name as stored: outer whitespace gone, inner runs of whitespace one space."""
    return " ".join((value or "").split())


# Bidirectional embeddings, overrides and isolates: one would print the name reversed or
# reordered on a certificate. (Zero-width joiners stay: Persian and Indic names use them.)
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _full_name_check(full_name: str, errors: _Errors) -> None:
    # Printed on certificates: no control characters, unassigned code points or bidi controls.
    if any(
        unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn") or char in _BIDI_CONTROLS
        for char in full_name
    ):
        errors.add("full_name", _("The name contains characters that cannot be printed."))
    if len(full_name) > FULL_NAME_MAX_LENGTH:
        errors.add(
            "full_name",
            _("A name has at most %(count)d characters.") % {"count": FULL_NAME_MAX_LENGTH},
        )


def _language_check(language: str, errors: _Errors) -> None:
    if language not in User.Language.values:
        errors.add(
            "language",
            _("Choose one of: %(values)s.") % {"values": ", ".join(User.Language.values)},
        )


def _time_zone_check(time_zone: str, errors: _Errors) -> None:
    if not is_time_zone(time_zone):
        errors.add(
            "time_zone",
            _("“%(zone)s” is not an IANA time zone name (e.g. Europe/Berlin).")
            % {"zone": time_zone},
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
) -> User | None:
    """Sign a learner up; the address gets a confirmation link. A taken address is answered like a
    free one (same work, its owner gets a mail, None returned); bad input raises InvalidInput."""
    username = username.strip()
    email = email.strip()
    full_name = full_name_clean(full_name)
    errors = _Errors()
    _full_name_check(full_name, errors)
    _username_check(username, errors)
    owner_id = _email_check(email, errors)
    _language_check(language, errors)
    _time_zone_check(time_zone, errors)
    candidate = User(username=username, email=email, display_name=display_name)
    try:
        password_validation.validate_password(password, user=candidate)
    except ValidationError as error:
        for message in error.messages:
            errors.add("password", message)
    errors.raise_if_any()
    if owner_id is not None:
        return _register_taken_address(owner_id=owner_id, password=password)
    candidate.time_zone = time_zone
    candidate.email_confirmed_at = None
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                username=username,
                email=email,
                password=password,
                display_name=display_name.strip(),
                full_name=full_name,
                language=language,
                time_zone=time_zone,
                email_confirmed_at=None,
                # None while unconfirmed; the confirmation stores the first instant.
                next_reminder_at=ReminderPreferences.of(candidate).next_after_change(
                    timezone.now()
                ),
            )
    except IntegrityError:
        # Someone registered the same name or address between the check and the insert.
        owner_id = User.objects.filter(email__iexact=email).values_list("pk", flat=True).first()
        if owner_id is None or User.objects.filter(username__iexact=username).exists():
            raise InvalidInput(
                _("The input is not valid."), detail={"username": [_("This username is taken.")]}
            ) from None
        return _register_taken_address(owner_id=owner_id, password=password)
    _account_mail_queue(tasks.email_confirmation_send, user_id=user.pk)
    return user


def _register_taken_address(*, owner_id: int, password: str) -> None:
    # The work a new account costs, minus the INSERT: the password hash (the slow part).
    make_password(password)
    _account_mail_queue(tasks.address_in_use_notify, user_id=owner_id, attempt="signup")


def user_authenticate(
    *, request: HttpRequest, password: str, username: str = "", email: str = ""
) -> User:
    """The active user with this username (or e-mail address) and password; django-axes counts
    failures on ``request`` and refuses a locked account (``login_locked``)."""
    login = username.strip()
    if email.strip():
        match = User.objects.filter(email__iexact=email.strip()).values_list("username", flat=True)
        # An unknown address still runs the password hasher: the time tells nothing.
        login = match.first() or email.strip()
    return _authenticate(request=request, username=login, password=password)


def user_authenticate_by_login(*, request: HttpRequest, login: str, password: str) -> User:
    """The active user for a log-in field: by username, else by e-mail; one password check."""
    login = login.strip()
    username = login
    if "@" in login:
        names = list(
            User.objects.filter(Q(username=login) | Q(email__iexact=login)).values_list(
                "username", flat=True
            )
        )
        if names and login not in names:
            username = names[0]
    return _authenticate(request=request, username=username, password=password)


def _authenticate(*, request: HttpRequest, username: str, password: str) -> User:
    user = authenticate(request, username=username, password=password) if username else None
    # An unconfirmed account answers like a wrong password, so sign-up tells nothing.
    if user is not None and user.email_confirmed_at is not None:
        return user
    if getattr(request, "axes_locked_out", False):
        raise login_locked_error()
    raise InvalidInput(
        _("Username/e-mail or password is wrong, or the e-mail address is not confirmed yet."),
        code="invalid_credentials",
    )


def login_locked_error() -> TooManyRequests:
    """The error of a locked log-in, in the request's language, with the wait until it ends."""
    minutes = max(1, lockout_seconds() // 60)
    return TooManyRequests(
        ngettext(
            "Too many failed log-ins for this account or from this network. Wait %(minutes)d "
            "minute and try again, or ask a course admin to lift the lock.",
            "Too many failed log-ins for this account or from this network. Wait %(minutes)d "
            "minutes and try again, or ask a course admin to lift the lock.",
            minutes,
        )
        % {"minutes": minutes},
        code="login_locked",
        detail={"retry_after_seconds": lockout_seconds()},
    )


def login_lockouts_lift(*, usernames: Iterable[str]) -> int:
    """Lift these accounts' log-in lock (admin action); returns the failure records removed."""
    return sum(axes_reset(username=name) for name in set(usernames) if name)


def _password_counted_check(*, request: HttpRequest, user: User, password: str) -> bool:
    """Whether ``password`` is the user's, checked like a log-in: django-axes counts a wrong
    one, and a locked account or address raises TooManyRequests (login_locked)."""
    if password and authenticate(request, username=user.get_username(), password=password) == user:
        return True
    if getattr(request, "axes_locked_out", False):
        raise login_locked_error()
    return False


def password_reenter(*, request: HttpRequest, user: User, password: str) -> None:
    """Check the password before a grave step, counted like a log-in: Forbidden
    (password_incorrect) or TooManyRequests (login_locked)."""
    if not _password_counted_check(request=request, user=user, password=password):
        raise Forbidden(_("The password is not correct."), code="password_incorrect")


def password_change(
    *, request: HttpRequest, user: User, old_password: str, new_password: str
) -> User:
    """Change the learner's own password after checking the old one like a log-in (outside a
    transaction, so a counted failure is not rolled back)."""
    errors = _Errors()
    if not _password_counted_check(request=request, user=user, password=old_password):
        errors.add("old_password", _("Your current password is not correct."))
    try:
        password_validation.validate_password(new_password, user=user)
    except ValidationError as error:
        for message in error.messages:
            errors.add("new_password", message)
    errors.raise_if_any()
    return password_set(user=user, password=new_password)


@transaction.atomic
def password_set(*, user: User, password: str | None) -> User:
    """Set the account's password (None: no password log-in) and revoke every mobile token; every
    way a password is set calls this."""
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    user.save(update_fields=["password"])
    credentials_revoke(user_id=user.pk, sessions=False)
    return user


@transaction.atomic
def user_update(*, user: User, changes: Mapping[str, Any]) -> User:
    """Change the learner's profile and preferences; every rule is checked before a write."""
    unknown = set(changes) - PROFILE_FIELDS
    if unknown:
        raise InvalidInput(
            _("These fields cannot be changed here."), detail={"fields": sorted(unknown)}
        )
    errors = _Errors()
    merged = {name: changes.get(name, getattr(user, name)) for name in PROFILE_FIELDS}
    # A new address waits in pending_email until its confirmation link is opened.
    address_change: tuple[str, int | None] | None = None
    if "email" in changes:
        requested = (changes["email"] or "").strip()
        merged["email"] = user.email
        if requested.lower() != user.email.lower():
            owner_id = _email_check(requested, errors, exclude_user_id=user.pk)
            address_change = (requested, owner_id)
        else:
            merged["email"] = requested  # the same address, another spelling
    if "display_name" in changes:
        merged["display_name"] = (changes["display_name"] or "").strip()
    if "full_name" in changes:
        # Certificates already issued keep the name they were issued with.
        merged["full_name"] = full_name_clean(changes["full_name"])
        _full_name_check(merged["full_name"], errors)
    if "language" in changes:
        _language_check(merged["language"], errors)
    if "time_zone" in changes:
        _time_zone_check(merged["time_zone"], errors)
    low, high = DESIRED_RETENTION_MIN, DESIRED_RETENTION_MAX
    retention = merged["desired_retention"]
    if not isinstance(retention, int | float) or not math.isfinite(retention):
        errors.add("desired_retention", _("A number is required."))
    elif not low <= retention <= high:
        errors.add(
            "desired_retention",
            _("Choose a value from %(low)s to %(high)s.")
            % {
                "low": number_format(low, decimal_pos=2),
                "high": number_format(high, decimal_pos=2),
            },
        )
    start, end = merged["quiet_hours_start"], merged["quiet_hours_end"]
    if (start is None) != (end is None):
        errors.add(
            "quiet_hours", _("Set both the start and the end of the quiet hours, or neither.")
        )
    elif start is not None and start == end:
        errors.add("quiet_hours", _("Quiet hours need different start and end times."))
    for name in ("reminder_time", "quiet_hours_start", "quiet_hours_end"):
        if merged[name] is not None and not isinstance(merged[name], datetime.time):
            errors.add(name, _("A time of day (HH:MM) is required."))
    for name, maximum in (
        ("new_cards_per_day", NEW_CARDS_PER_DAY_MAX),
        ("reviews_per_day", REVIEWS_PER_DAY_MAX),
    ):
        if not isinstance(merged[name], int) or not 0 <= merged[name] <= maximum:
            errors.add(name, _("Choose a whole number from 0 to %(max)d.") % {"max": maximum})
    errors.raise_if_any()
    changed = [name for name in PROFILE_FIELDS if merged[name] != getattr(user, name)]
    for name in changed:
        setattr(user, name, merged[name])
    if address_change is not None:
        # Answered the same whether the address is free or taken (its owner is told).
        requested, owner_id = address_change
        user.pending_email = requested
        changed.append("pending_email")
        if owner_id is None:
            _account_mail_queue(tasks.email_confirmation_send, user_id=user.pk)
        else:
            _account_mail_queue(tasks.address_in_use_notify, user_id=owner_id, attempt="change")
    if REMINDER_PREFERENCE_FIELDS.intersection(changed):
        user.next_reminder_at = ReminderPreferences.of(user).next_after_change(timezone.now())
        changed.append("next_reminder_at")
    if changed:
        try:
            with transaction.atomic():
                user.save(update_fields=sorted(changed))
        except IntegrityError:
            raise InvalidInput(
                _("The input is not valid."),
                detail={"email": [_("This e-mail address belongs to another account.")]},
            ) from None
    return user


@transaction.atomic
def email_confirm(*, token: str) -> User:
    """Open a confirmation link: confirm a sign-up's address or apply an address change
    (idempotent); InvalidInput for a bad, expired or stale link."""
    try:
        claim = email_confirmation_claim(token)
    except ConfirmationTokenExpired:
        raise InvalidInput(
            _("This confirmation link has expired. Ask for a new one."),
            code="confirmation_link_expired",
        ) from None
    except ConfirmationTokenInvalid:
        claim = None
    user = (
        None
        if claim is None
        else User.objects.select_for_update().filter(pk=claim.user_id, is_active=True).first()
    )
    invalid = InvalidInput(
        _("This confirmation link is not valid (any more)."), code="confirmation_link_invalid"
    )
    if user is None:
        raise invalid
    now = timezone.now()
    if claim.names(user.email):
        if user.email_confirmed_at is not None:
            return user
        user.email_confirmed_at = now
        fields = ["email_confirmed_at"]
    elif claim.names(user.pending_email):
        address = user.pending_email
        taken = (
            User.objects.filter(Q(email__iexact=address) | Q(username__iexact=address))
            .exclude(pk=user.pk)
            .exists()
        )
        if taken:
            raise InvalidInput(
                _("This address belongs to another account now."), code="email_taken"
            )
        user.email, user.pending_email, user.email_confirmed_at = address, "", now
        fields = ["email", "pending_email", "email_confirmed_at"]
    else:
        raise invalid
    user.next_reminder_at = ReminderPreferences.of(user).next_after_change(now)
    try:
        with transaction.atomic():
            user.save(update_fields=[*fields, "next_reminder_at"])
    except IntegrityError:
        # Another account took the address between the check and the update.
        raise InvalidInput(
            _("This address belongs to another account now."), code="email_taken"
        ) from None
    return user


def email_mark_confirmed(*, user: User) -> None:
    """The account's address, if still waiting for its link, counts as confirmed (a completed
    password reset, or an admin vouching for it)."""
    if user.email and user.email_confirmed_at is None:
        now = timezone.now()
        user.email_confirmed_at = now
        user.next_reminder_at = ReminderPreferences.of(user).next_after_change(now)
        user.save(update_fields=["email_confirmed_at", "next_reminder_at"])


def email_confirmation_resend_request(*, email: str) -> None:
    """Ask for the confirmation link again. The same for every address (no look-up here): the
    worker finds the account waiting to confirm it, if any, within its hourly limit."""
    _account_mail_queue(tasks.email_confirmation_resend, email=email.strip())


def password_reset_request(*, email: str) -> None:
    """Ask for a new-password link: the same work for every address (the worker looks the account
    up), so neither the answer nor its time tells whether it has an account."""
    _account_mail_queue(tasks.password_reset_send, email=email.strip())


@transaction.atomic
def token_create(
    *, user: User, device_name: str = "", request: HttpRequest | None = None
) -> tuple[AuthToken, str]:
    """Issue a token for one device (replacing the token of the device of that name; the oldest
    beyond the limit are revoked); returns the row and the token, shown only this once. Without
    a name the device is named after the request's User-Agent, and replaces none."""
    name = device_name.strip()[:DEVICE_NAME_MAX_LENGTH]
    now = timezone.now()
    tokens = AuthToken.objects.filter(user=user)
    tokens.filter(expiry__lte=now).delete()
    if name:
        tokens.filter(device__name=name).delete()
    else:
        name = device_name_from_user_agent(
            request.headers.get("User-Agent", "") if request is not None else "",
            max_length=DEVICE_NAME_MAX_LENGTH,
        )
    limit = knox_settings.TOKEN_LIMIT_PER_USER
    if limit:
        surplus = list(tokens.order_by("-created").values_list("digest", flat=True)[limit - 1 :])
        if surplus:
            AuthToken.objects.filter(digest__in=surplus).delete()
    instance, token = AuthToken.objects.create(user=user, expiry=knox_settings.TOKEN_TTL)
    Device.objects.create(token=instance, user=user, name=name, created_at=now)
    if request is None:
        update_last_login(None, user)
    else:
        user_logged_in.send(sender=user.__class__, request=request, user=user)
    return instance, token


def token_delete(*, token: AuthToken) -> None:
    """Revoke one token (log-out of this device)."""
    AuthToken.objects.filter(digest=token.digest).delete()


@transaction.atomic
def credentials_revoke(*, user_id: int, sessions: bool) -> int:
    """Revoke every mobile token and, with ``sessions``, end every browser session (the
    ``session_epoch`` moves on). The ``credentials_epoch`` moves on either way, which voids the
    credentials higher apps issued (they compare it: ``accounts.api.credentials_epoch``).
    Returns how many tokens were revoked."""
    epochs: dict[str, Any] = {"credentials_epoch": F("credentials_epoch") + 1}
    if sessions:
        epochs["session_epoch"] = F("session_epoch") + 1
    User.objects.filter(pk=user_id).update(**epochs)
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
        raise NotFound(_("There is no such device."), code="device_not_found")
    AuthToken.objects.filter(digest=digest).delete()


def next_reminders_update(
    next_at: Mapping[int, datetime.datetime | None],
    *,
    read: Mapping[int, datetime.datetime] | None = None,
) -> None:
    """Set ``next_reminder_at`` of each learner id in one UPDATE; with ``read``, only where the
    value is still the one read (compare-and-swap)."""
    if not next_at:
        return
    learners = User.objects.filter(pk__in=list(next_at))
    if read is not None:
        learners = learners.filter(
            functools.reduce(
                operator.or_, (Q(pk=pk, next_reminder_at=at) for pk, at in read.items())
            )
        )
    # Cast: a branch of only NULLs would leave the CASE typed as text.
    instants = Case(*(When(pk=pk, then=Value(at)) for pk, at in next_at.items()))
    learners.update(next_reminder_at=Cast(instants, User._meta.get_field("next_reminder_at")))


def reminder_schedules_reset(*, after: datetime.datetime, batch_size: int = 2000) -> int:
    """Recompute every learner's next reminder instant after ``after``, in batches (bulk loads and
    repairs). Returns how many learners it went through."""
    fields = tuple(field.name for field in dataclasses.fields(ReminderPreferences))
    learners = User.objects.order_by("pk").values("pk", *fields)
    last_id, count = 0, 0
    while True:
        rows = list(learners.filter(pk__gt=last_id)[:batch_size])
        if not rows:
            return count
        next_reminders_update(
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
    """Turn the learner's reminder e-mails off (idempotent); returns their language, or None."""
    learners = User.objects.filter(pk=learner_id)
    language = learners.values_list("language", flat=True).first()
    learners.update(reminder_email=False, next_reminder_at=None)
    return language


@transaction.atomic
def demo_user_reset(
    *,
    username: str,
    password: str,
    display_name: str,
    is_staff: bool,
    full_name: str = "",
    course_admin: bool = False,
) -> User:
    """Create the demo account, or reset it to its demo state (``manage.py demo_setup``); a
    ``course_admin`` is staff in "Kursverwaltung", other staff are superusers."""
    user, _created = User.objects.get_or_create(
        username=username, defaults={"email": f"{username}@example.org"}
    )
    user.is_staff = is_staff or course_admin
    user.is_superuser = is_staff and not course_admin
    user.display_name = display_name
    user.email_confirmed_at = user.email_confirmed_at or timezone.now()
    user.full_name = full_name_clean(full_name)
    user.set_password(password)
    user.next_reminder_at = ReminderPreferences.of(user).next_after_change(timezone.now())
    user.save()
    credentials_revoke(user_id=user.pk, sessions=False)
    if course_admin:
        course_admin_group_sync()
        user.groups.set([Group.objects.get(name=COURSE_ADMIN_GROUP)])
    return user


@transaction.atomic
def external_account_create(*, username_hint: str, full_name: str, email: str) -> User:
    """An account for an identity another system vouches for (an LTI platform's user): no
    password, so it logs in only through that system. It is never matched to an existing
    account by address: the address is kept only when no other account has it."""
    base = slugify(username_hint)[:100] or "lti"
    username = base
    while User.objects.filter(username__iexact=username).exists():
        username = f"{base}-{secrets.token_hex(3)}"
    address_free = bool(email) and not User.objects.filter(email__iexact=email).exists()
    user = User(
        username=username,
        full_name=full_name_clean(full_name),
        email=email if address_free else "",
        # The platform vouches for the address it sends, as it does for the person.
        email_confirmed_at=timezone.now() if address_free else None,
    )
    user.set_unusable_password()
    user.next_reminder_at = ReminderPreferences.of(user).next_after_change(timezone.now())
    user.save()
    return user


@transaction.atomic
def course_admin_role_grant(*, user_id: int) -> None:
    """Make the user a course admin ("Kursverwaltung"); a superuser stays what they are."""
    course_admin_group_sync()
    user = User.objects.select_for_update().get(pk=user_id)
    if not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    user.groups.add(Group.objects.get(name=COURSE_ADMIN_GROUP))
