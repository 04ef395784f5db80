"""Celery tasks of the accounts app: the account mails; a mail-server error retries later."""

from __future__ import annotations

from celery import shared_task

from accounts import mails

ACCOUNT_MAIL_MAX_RETRIES = 5
# Retries after 30 s, 60 s, 120 s, … (celery's retry_backoff, with jitter), at most 15 minutes.
_RETRY = {
    "autoretry_for": (OSError,),  # smtplib's errors are OSErrors
    "retry_backoff": 30,
    "retry_backoff_max": 15 * 60,
    "max_retries": ACCOUNT_MAIL_MAX_RETRIES,
    "acks_late": True,
    "ignore_result": True,
}


@shared_task(**_RETRY)
def email_confirmation_send(user_id: int) -> str:
    """The confirmation link for the address the account waits to confirm."""
    return mails.email_confirmation_mail_send(user_id=user_id)


@shared_task(**_RETRY)
def email_confirmation_resend(email: str) -> int:
    """The confirmation link again, to whichever account waits to confirm ``email``."""
    return mails.email_confirmation_resend(email=email)


@shared_task(**_RETRY)
def address_in_use_notify(user_id: int, attempt: str) -> str:
    """Tell the owner of an address that someone tried to use it (``attempt``: signup, change)."""
    return mails.address_in_use_mail_send(user_id=user_id, attempt=mails.Attempt(attempt))


@shared_task(**_RETRY)
def password_reset_send(email: str) -> int:
    """The link to choose a new password, to the account with this address if there is one."""
    return mails.password_reset_mails_send(email=email)
