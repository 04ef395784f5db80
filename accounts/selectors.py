"""Account reads: the learner's devices (mobile tokens), what reminders and spaced repetition
need of a learner, whether an e-mail confirmation link is good, and the single sign-on rules
(an identity is a provider's subject; local passwords per provider)."""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Iterator
from typing import Literal

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.data import ReminderLearner, ReminderRecipient, ReviewPreferences
from accounts.models import Device, User
from accounts.reminders import ReminderPreferences
from accounts.tokens import (
    ConfirmationTokenExpired,
    ConfirmationTokenInvalid,
    email_confirmation_claim,
)

_REMINDER_FIELDS = tuple(field.name for field in dataclasses.fields(ReminderPreferences))
_REVIEW_FIELDS = tuple(field.name for field in dataclasses.fields(ReviewPreferences))


def device_list(*, user_id: int) -> QuerySet[Device]:
    """The user's devices whose token has not expired, newest first: one query."""
    now = timezone.now()
    return (
        Device.objects.filter(user_id=user_id)
        .filter(Q(token__expiry__gt=now) | Q(token__expiry__isnull=True))
        .select_related("token")
        .order_by("-created_at", "-id")
    )


def review_preferences(learner_id: int) -> ReviewPreferences | None:
    """The learner's spaced-repetition settings (None: no such account): one query."""
    row = User.objects.filter(pk=learner_id).values(*_REVIEW_FIELDS).first()
    return None if row is None else ReviewPreferences(**row)


def reminder_recipient(learner_id: int) -> ReminderRecipient | None:
    """What a reminder digest's send step needs of the learner (None: no such account): one
    query."""
    user = (
        User.objects.filter(pk=learner_id)
        .only(
            "display_name",
            "full_name",
            "first_name",
            "last_name",
            "username",
            "language",
            *_REMINDER_FIELDS,
            *_REVIEW_FIELDS,
        )
        .first()
    )
    if user is None:
        return None
    return ReminderRecipient(
        id=user.pk,
        name=user.public_name,
        language=user.language,
        reminders=ReminderPreferences.of(user),
        review=ReviewPreferences(**{name: getattr(user, name) for name in _REVIEW_FIELDS}),
    )


def reminder_learner_chunks(
    *, at: datetime.datetime, chunk_size: int
) -> Iterator[list[ReminderLearner]]:
    """The learners whose next reminder instant has come, in keyset-paginated chunks along the
    partial index ``user_next_reminder``."""
    learners = (
        User.objects.filter(next_reminder_at__lte=at)
        .order_by("next_reminder_at", "pk")
        .values("id", "next_reminder_at", *_REMINDER_FIELDS)
    )
    page = learners
    while True:
        rows = [
            ReminderLearner(
                id=row["id"],
                next_reminder_at=row["next_reminder_at"],
                schedule=ReminderPreferences(
                    **{name: row[name] for name in _REMINDER_FIELDS}
                ).schedule,
            )
            for row in page[:chunk_size]
        ]
        if rows:
            yield rows
        if len(rows) < chunk_size:
            return
        last = rows[-1]
        page = learners.filter(
            Q(next_reminder_at__gt=last.next_reminder_at)
            | Q(next_reminder_at=last.next_reminder_at, pk__gt=last.id)
        )


def email_confirmation_link_state(*, token: str) -> Literal["valid", "expired", "invalid"]:
    """Whether a confirmation link would confirm something (reads only, at most one query)."""
    try:
        claim = email_confirmation_claim(token)
    except ConfirmationTokenExpired:
        return "expired"
    except ConfirmationTokenInvalid:
        return "invalid"
    user = (
        User.objects.filter(pk=claim.user_id, is_active=True).only("email", "pending_email").first()
    )
    if user is None or not (claim.names(user.email) or claim.names(user.pending_email)):
        return "invalid"
    return "valid"


# --- single sign-on -------------------------------------------------------------------------

# The SocialApp setting that lets accounts made through the provider have a password too.
SSO_LOCAL_PASSWORDS_SETTING = "local_passwords"
SSO_USERNAME_MAX_LENGTH = 30
_NOT_IN_USERNAME = re.compile(r"[^a-z0-9._-]+")


def sso_app_allows_local_passwords(app) -> bool:
    """A provider's accounts may have a password only if its settings say so (true)."""
    return (app.settings or {}).get(SSO_LOCAL_PASSWORDS_SETTING) is True


def sso_local_password_allowed(*, user: User) -> bool:
    """May this account log in with (and set) a password of its own? Yes for an account with a
    password already; for one made through a provider (no password), only when each of its
    providers allows local passwords; no for an account whose password an admin turned off.
    Two queries at most."""
    from allauth.socialaccount.models import SocialAccount, SocialApp

    if user.has_usable_password():
        return True
    providers = set(SocialAccount.objects.filter(user=user).values_list("provider", flat=True))
    if not providers:
        return False
    apps = SocialApp.objects.filter(Q(provider_id__in=providers) | Q(provider__in=providers))
    found = list(apps)
    return bool(found) and all(sso_app_allows_local_passwords(app) for app in found)


def sso_address_in_use(email: str) -> bool:
    """Does another account have this address (or use it as its user name)?"""
    address = (email or "").strip()
    if not address:
        return False
    return User.objects.filter(Q(email__iexact=address) | Q(username__iexact=address)).exists()


def sso_username_base(hints: list[str]) -> str:
    """A user name from what the provider said (preferred name, address, names): its part before
    an ``@`` (a user name may not look like an address), lower case, letters, digits ``._-``."""
    for hint in hints:
        local = (hint or "").split("@", 1)[0].strip().lower()
        cleaned = _NOT_IN_USERNAME.sub("-", local).strip("-._")[:SSO_USERNAME_MAX_LENGTH]
        if cleaned:
            return cleaned
    return "user"


def sso_username_unique(base: str) -> str:
    """``base``, or ``base`` with the smallest number appended that no account's user name or
    address takes (case-insensitively)."""
    base = base[:SSO_USERNAME_MAX_LENGTH]
    taken = {
        name.lower()
        for name in User.objects.filter(
            Q(username__istartswith=base) | Q(email__istartswith=base)
        ).values_list("username", flat=True)
    }
    taken |= {
        address.lower()
        for address in User.objects.filter(email__istartswith=base).values_list("email", flat=True)
    }
    if base.lower() not in taken:
        return base
    number = 2
    while f"{base}{number}".lower() in taken:
        number += 1
    return f"{base}{number}"
