"""The single sign-on pages of our own: an inactive account (allauth's ``account_inactive``),
and the end of a SAML log-in guarded against input that is not XML."""

from __future__ import annotations

from allauth.socialaccount.helpers import render_authentication_error
from allauth.socialaccount.providers.saml.utils import get_app_or_404
from allauth.socialaccount.providers.saml.views import finish_acs
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from lxml.etree import XMLSyntaxError


def account_inactive(request: HttpRequest) -> HttpResponse:
    """A provider's identity whose account an admin deactivated: no log-in."""
    return render(request, "web/sso/inactive.html", {"nav": "login"}, status=403)


def saml_acs_finish(request: HttpRequest, organization_slug: str) -> HttpResponse:
    """allauth's end of a SAML log-in, with a SAML response that is not XML at all (python3-saml
    lets lxml's error through) refused like any other bad response: a 400 page and a log line,
    not a 500."""
    try:
        return finish_acs(request, organization_slug=organization_slug)
    except (XMLSyntaxError, ValueError) as error:
        provider = get_app_or_404(request, organization_slug).get_provider(request)
        return render_authentication_error(request, provider, exception=error)
