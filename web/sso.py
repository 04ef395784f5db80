"""django-allauth's adapters for single sign-on: how a provider's identity becomes a Lernpfad
account. An identity is the provider's subject (``SocialAccount``); an address that another
account has is refused, never matched; a new identity gets an account without a form, a free
user name and no password. Every refusal logs one line and shows a page that says what happened.
"""

from __future__ import annotations

import logging

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.providers.base import AuthProcess
from django.db import transaction
from django.http import HttpRequest
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation

from accounts.selectors import sso_address_in_use, sso_username_base, sso_username_unique

logger = logging.getLogger("lernpfad.sso")

# OAuth 2.0 / OIDC errors a provider returns when the user said no or did not log in, not
# because anything was wrong with the request; allauth counts only "access_denied" as a
# cancellation. LemonLDAP::NG answers a refused consent with "consent_required".
PROVIDER_ERRORS_OF_THE_USER = frozenset(
    {"access_denied", "consent_required", "login_required", "interaction_required"}
)

# The session of an SSO log-in is Django's, checked by ModelBackend like a password log-in's
# (axes' backend, first in AUTHENTICATION_BACKENDS, cannot load a user).
SESSION_BACKEND = "django.contrib.auth.backends.ModelBackend"


def login_providers(request: HttpRequest) -> list[dict[str, str]]:
    """The configured providers as the log-in page's buttons: name and log-in URL."""
    adapter = SocialAccountAdapter(request)
    return [
        {"name": provider.name, "url": provider.get_login_url(request, process="login")}
        for provider in adapter.list_providers(request)
        if not provider.app.settings.get("hidden")
    ]


class AccountAdapter(DefaultAccountAdapter):
    """allauth's account side: only what SSO needs (allauth's own forms are not mounted)."""

    def is_open_for_signup(self, request: HttpRequest) -> bool:
        return True

    def populate_username(self, request: HttpRequest, user) -> None:
        """A free user name from what the provider said (never an address: log-in takes either
        in one field)."""
        hints = [user.username, user.email, f"{user.first_name}.{user.last_name}".strip(".")]
        user.username = sso_username_unique(sso_username_base(hints))

    def login(self, request: HttpRequest, user) -> None:
        user.backend = SESSION_BACKEND
        super().login(request, user)

    def get_login_redirect_url(self, request: HttpRequest) -> str:
        return reverse("web:home")


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    """allauth's provider side: matching by subject, refusals with a page and a log line."""

    def pre_social_login(self, request: HttpRequest, sociallogin) -> None:
        """A new identity whose address another account has is refused: the owner logs in with
        the password and connects the provider in the settings (allauth's connect flow). Logging
        in as that account, or attaching the identity to it, would let a provider take over any
        account whose address it asserts."""
        if sociallogin.is_existing or sociallogin.state.get("process") == AuthProcess.CONNECT:
            return
        address = sociallogin.user.email or next(
            (entry.email for entry in sociallogin.email_addresses), ""
        )
        if address and sso_address_in_use(address):
            logger.warning(
                "SSO log-in refused: provider %s, subject %s asserts an address another account "
                "has; nothing was created",
                sociallogin.account.provider,
                sociallogin.account.uid,
            )
            raise ImmediateHttpResponse(
                render(
                    request,
                    "web/sso/address_in_use.html",
                    {"provider_name": sociallogin.account.get_provider(request).name},
                    status=409,
                )
            )

    def populate_user(self, request: HttpRequest, sociallogin, data):
        user = super().populate_user(request, sociallogin, data)
        language = (translation.get_language() or "de")[:2]
        user.language = language if language in {"de", "en"} else "de"
        # The institution vouches for the address it asserts.
        user.email_confirmed_at = timezone.now()
        return user

    def save_user(self, request: HttpRequest, sociallogin, form=None):
        """The account, its identity and its address in one transaction: nothing half-written.
        No password (``set_unusable_password``); see ``sso_local_password_allowed``."""
        with transaction.atomic():
            return super().save_user(request, sociallogin, form)

    def on_authentication_error(
        self, request, provider, error=None, exception=None, extra_context=None
    ) -> None:
        """Whatever went wrong at the provider or with its answer: one log line, and a 400 page
        that says so (allauth's would be a 200)."""
        extra_context = extra_context or {}
        reason = extra_context.get("saml_last_error_reason") or (
            f"{type(exception).__name__}: {exception}" if exception else ""
        )
        provider_id = getattr(provider, "sub_id", getattr(provider, "id", "?"))
        logger.warning("SSO log-in failed: provider %s, error %s %s", provider_id, error, reason)
        raise ImmediateHttpResponse(
            render(
                request,
                "socialaccount/authentication_error.html",
                {
                    "auth_error": {"provider": provider, "code": error},
                    "provider_name": getattr(provider, "name", ""),
                    "cancelled": error == "cancelled"
                    or request.GET.get("error") in PROVIDER_ERRORS_OF_THE_USER,
                },
                status=400,
            )
        )
