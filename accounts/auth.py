"""Token authentication for mobile apps (knox), checking only the presented token's expiry; the
learner's language applies when the request has no ``Accept-Language``."""

import binascii
from hmac import compare_digest

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox import auth as knox_auth
from knox.crypto import hash_token
from knox.settings import CONSTANTS, knox_settings
from knox.signals import token_expired
from rest_framework import exceptions

from accounts.sql import tokens_with_user


class TokenAuthentication(knox_auth.TokenAuthentication):
    """``Authorization: Token <token>``: a hashed, expiring knox token."""

    def authenticate(self, request):
        authenticated = super().authenticate(request)
        if authenticated is not None and "HTTP_ACCEPT_LANGUAGE" not in request.META:
            language = authenticated[0].language
            translation.activate(language)
            request._request.LANGUAGE_CODE = language
        return authenticated

    def authenticate_credentials(self, token: bytes):
        """knox's own check (expired tokens deleted, digest compared, expiry renewed, user
        active), with the token and its user read in one plain-SQL statement (accounts/sql.py)."""
        message = _("Invalid token.")
        token = token.decode("utf-8")
        for auth_token in tokens_with_user(token[: CONSTANTS.TOKEN_KEY_LENGTH]):
            if self._cleanup_token(auth_token):
                continue
            try:
                digest = hash_token(token)
            except (TypeError, binascii.Error) as error:
                raise exceptions.AuthenticationFailed(message) from error
            if compare_digest(digest, auth_token.digest):
                if knox_settings.AUTO_REFRESH and auth_token.expiry:
                    self.renew_token(auth_token)
                return self.validate_user(auth_token)
        raise exceptions.AuthenticationFailed(message)

    # knox 5 calls this for every candidate token before comparing digests (knox>=5,<6 pinned).
    def _cleanup_token(self, auth_token) -> bool:
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            username = auth_token.user.get_username()
            auth_token.delete()
            token_expired.send(sender=self.__class__, username=username, source="auth_token")
            return True
        return False


class TokenScheme(KnoxTokenScheme):
    """The OpenAPI security scheme of this class: knox's (a bearer-like "Token" header)."""

    target_class = "accounts.auth.TokenAuthentication"
