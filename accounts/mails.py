"""The account mails (confirm an address, "someone used your address", new password), composed
and sent by the worker, at most ``ACCOUNT_MAILS_PER_HOUR`` of each kind per account."""

from __future__ import annotations

import logging
from enum import StrEnum

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import caches
from django.core.mail import EmailMessage
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.selectors import sso_local_password_allowed
from accounts.tokens import EMAIL_CONFIRMATION_MAX_AGE, email_confirmation_token

logger = logging.getLogger(__name__)

CONFIRM_EMAIL_PATH = "/confirm-email/{token}/"
CONFIRM_EMAIL_RESEND_PATH = "/confirm-email/"
PASSWORD_RESET_PATH = "/password-reset/"
PASSWORD_RESET_CONFIRM_PATH = "/password-reset/{uidb64}/{token}/"
LOGIN_PATH = "/login/"

ACCOUNT_MAILS_PER_HOUR = 3
MAIL_LIMIT_WINDOW_SECONDS = 60 * 60
MAIL_LANGUAGES = ("de", "en")


class MailKind(StrEnum):
    """The kinds of account mail; each has its own per-account limit."""

    CONFIRMATION = "confirmation"
    ADDRESS_IN_USE = "address-in-use"
    PASSWORD_RESET = "password-reset"


class Attempt(StrEnum):
    """What someone tried with an address that already names an account."""

    SIGNUP = "signup"
    CHANGE = "change"


def mail_allowed(*, kind: MailKind, user_id: int) -> bool:
    """Count one mail of this kind for the account; False beyond the hourly limit (a fixed window;
    a race may let one extra through)."""
    cache = caches["login"]
    key = f"account-mail:{kind}:{user_id}"
    cache.add(key, 0, timeout=MAIL_LIMIT_WINDOW_SECONDS)
    try:
        count = cache.incr(key)
    except ValueError:  # the window ended between add and incr
        cache.set(key, 1, timeout=MAIL_LIMIT_WINDOW_SECONDS)
        count = 1
    if count > ACCOUNT_MAILS_PER_HOUR:
        logger.info("account mail %s for user %s over the hourly limit: not sent", kind, user_id)
        return False
    return True


def _language(user: User) -> str:
    return user.language if user.language in MAIL_LANGUAGES else settings.LANGUAGE_CODE


def _send(*, user: User, to: str, subject: str, template: str, context: dict) -> None:
    """Render ``accounts/email/<template>.txt`` in the learner's language and send it."""
    context = {
        "name": user.public_name,
        "username": user.username,
        "site_url": settings.SITE_URL,
        **context,
    }
    EmailMessage(
        subject=subject,
        body=render_to_string(f"accounts/email/{template}.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={
            "Content-Language": translation.get_language(),
            # RFC 3834: sent by a program; auto-responders do not answer it.
            "Auto-Submitted": "auto-generated",
        },
    ).send()


def email_confirmation_mail_send(*, user_id: int, address: str = "") -> str:
    """Mail the confirmation link for the address the account waits to confirm (only if that is
    ``address``, when given); returns what happened ("sent", or why not)."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return "gone"
    # A sign-up's address waits for its link, else the address the learner asked to change to.
    waiting = user.email if user.email and user.email_confirmed_at is None else user.pending_email
    if not waiting or (address and waiting.lower() != address.lower()):
        return "nothing_to_confirm"
    address = waiting
    if not mail_allowed(kind=MailKind.CONFIRMATION, user_id=user.pk):
        return "limited"
    token = email_confirmation_token(user_id=user.pk, address=address)
    with translation.override(_language(user)):
        _send(
            user=user,
            to=address,
            subject=_("Lernpfad: confirm your e-mail address"),
            template="email_confirmation",
            context={
                "signup": address == user.email,
                "confirm_url": settings.SITE_URL + CONFIRM_EMAIL_PATH.format(token=token),
                "valid_days": EMAIL_CONFIRMATION_MAX_AGE.days,
            },
        )
    return "sent"


def address_in_use_mail_send(*, user_id: int, attempt: Attempt) -> str:
    """Tell the owner of an address that someone tried to sign up with it (or to move another
    account to it); nothing else happened. Returns "sent", or why not."""
    user = User.objects.filter(pk=user_id, is_active=True).exclude(email="").first()
    if user is None:
        return "gone"
    if not mail_allowed(kind=MailKind.ADDRESS_IN_USE, user_id=user.pk):
        return "limited"
    with translation.override(_language(user)):
        _send(
            user=user,
            to=user.email,
            subject=_("Lernpfad: someone used your e-mail address"),
            template="address_in_use",
            context={
                "signup": Attempt(attempt) is Attempt.SIGNUP,
                "login_url": settings.SITE_URL + LOGIN_PATH,
                "reset_url": settings.SITE_URL + PASSWORD_RESET_PATH,
            },
        )
    return "sent"


def _reset_recipients(email: str) -> list[User]:
    """The accounts a reset for this address goes to: Django's rule (active, with a usable
    password, the address matching case-insensitively), and accounts made through an
    institution's log-in whose provider allows local passwords (``sso_local_password_allowed``)."""
    return [
        user
        for user in User.objects.filter(email__iexact=email, is_active=True)
        if user.has_usable_password() or sso_local_password_allowed(user=user)
    ]


def password_reset_mails_send(*, email: str) -> int:
    """Mail a link to choose a new password to the account with this address (if any, and
    within its hourly limit); returns how many mails went out."""
    sent = 0
    for user in _reset_recipients(email.strip()):
        if not mail_allowed(kind=MailKind.PASSWORD_RESET, user_id=user.pk):
            continue
        path = PASSWORD_RESET_CONFIRM_PATH.format(
            uidb64=urlsafe_base64_encode(force_bytes(user.pk)),
            token=default_token_generator.make_token(user),
        )
        with translation.override(_language(user)):
            _send(
                user=user,
                to=user.email,
                subject=_("Lernpfad: choose a new password"),
                template="password_reset",
                context={"reset_url": settings.SITE_URL + path},
            )
        sent += 1
    return sent


def email_confirmation_resend(*, email: str) -> int:
    """Send the confirmation link again to whichever account waits to confirm this address
    (a sign-up, or a requested change); returns how many mails went out."""
    address = email.strip()
    if not address:
        return 0
    waiting = User.objects.filter(
        Q(email__iexact=address, email_confirmed_at__isnull=True)
        | Q(pending_email__iexact=address),
        is_active=True,
    ).values_list("pk", flat=True)
    sent = 0
    for user_id in waiting:
        if email_confirmation_mail_send(user_id=user_id, address=address) == "sent":
            sent += 1
    return sent
