"""The signed, expiring token of an e-mail confirmation link: the account and a keyed hash of
the address it confirms, so no address travels in a URL."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.core import signing
from django.utils.crypto import constant_time_compare, salted_hmac

EMAIL_CONFIRMATION_SALT = "accounts.email-confirmation"
# As long as Django's password-reset links (PASSWORD_RESET_TIMEOUT's default): long enough for a
# mail read after a weekend, short enough that an old mail in a shared inbox is worth little.
EMAIL_CONFIRMATION_MAX_AGE = datetime.timedelta(days=3)


class ConfirmationTokenExpired(Exception):
    """The token was genuine but is older than EMAIL_CONFIRMATION_MAX_AGE."""


class ConfirmationTokenInvalid(Exception):
    """The token was cut short, changed or made with another key."""


@dataclass(frozen=True)
class ConfirmationClaim:
    """What a genuine token says: this account asked to confirm an address with this hash."""

    user_id: int
    address_hash: str

    def names(self, address: str) -> bool:
        """The claim is about ``address`` (case does not matter, as for log-in)."""
        return bool(address) and constant_time_compare(self.address_hash, address_hash(address))


def address_hash(address: str) -> str:
    """A keyed hash of the address (lower-cased), short: the token's signature protects it."""
    return salted_hmac(EMAIL_CONFIRMATION_SALT, address.strip().lower()).hexdigest()[:24]


def email_confirmation_token(*, user_id: int, address: str) -> str:
    """The token of a link that confirms ``address`` for the account ``user_id``."""
    return signing.dumps([user_id, address_hash(address)], salt=EMAIL_CONFIRMATION_SALT)


def email_confirmation_claim(token: str) -> ConfirmationClaim:
    """What the token says, if it is genuine and young enough; raises ConfirmationTokenExpired
    or ConfirmationTokenInvalid otherwise."""
    try:
        user_id, hashed = signing.loads(
            token, salt=EMAIL_CONFIRMATION_SALT, max_age=EMAIL_CONFIRMATION_MAX_AGE
        )
    except signing.SignatureExpired as exc:
        raise ConfirmationTokenExpired from exc
    except (signing.BadSignature, TypeError, ValueError, UnicodeError) as exc:
        raise ConfirmationTokenInvalid from exc
    if not isinstance(user_id, int) or not isinstance(hashed, str):
        raise ConfirmationTokenInvalid
    return ConfirmationClaim(user_id=user_id, address_hash=hashed)
