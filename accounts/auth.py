"""Token authentication for mobile apps: django-rest-knox, one query per request.

knox's own class loads every token of the user on each request to delete the expired ones.
Here only the presented token's expiry is checked (an expired token is still refused and
deleted); the user's other expired tokens are removed when the user logs in again
(accounts.services.token_create).

A token request without ``Accept-Language`` gets its messages in the learner's language setting
(LocaleMiddleware chose the default before the token was known); with the header, the header
decides, as for every other request.
"""

from django.utils import timezone, translation
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox import auth as knox_auth
from knox.signals import token_expired


class TokenAuthentication(knox_auth.TokenAuthentication):
    """``Authorization: Token <token>``: a hashed, expiring knox token."""

    def authenticate(self, request):
        authenticated = super().authenticate(request)
        if authenticated is not None and "HTTP_ACCEPT_LANGUAGE" not in request.META:
            language = authenticated[0].language
            translation.activate(language)
            request._request.LANGUAGE_CODE = language
        return authenticated

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
