"""The single sign-on pages of our own: an inactive account (allauth's ``account_inactive``),
and the end of a SAML log-in guarded against input that is not XML and against a replayed
answer."""

from __future__ import annotations

from allauth.socialaccount.helpers import render_authentication_error
from allauth.socialaccount.providers.saml.utils import get_app_or_404
from allauth.socialaccount.providers.saml.views import finish_acs
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from lxml.etree import XMLSyntaxError


def account_inactive(request: HttpRequest) -> HttpResponse:
    """A provider's identity whose account an admin deactivated: no log-in."""
    return render(request, "web/sso/inactive.html", {"nav": "login"}, status=403)


def saml_acs_finish(request: HttpRequest, organization_slug: str) -> HttpResponse:
    """allauth's end of a SAML log-in, with two refusals made like any other bad response's (a
    400 page and a log line): a SAML response that is not XML at all (python3-saml lets lxml's
    error through: a 500), and a valid answer to a request this browser has no longer pending
    (allauth's bare 403). The request's state is stored in the session and used up by the first
    answer, so an answer POSTed again, by the same browser or by anyone who copied it, ends here.
    """
    try:
        return finish_acs(request, organization_slug=organization_slug)
    except (XMLSyntaxError, ValueError) as error:
        provider = get_app_or_404(request, organization_slug).get_provider(request)
        return render_authentication_error(request, provider, exception=error)
    except PermissionDenied:
        provider = get_app_or_404(request, organization_slug).get_provider(request)
        return render_authentication_error(
            request,
            provider,
            exception=PermissionDenied(
                "answer to no pending request of this browser (replayed or used up)"
            ),
        )
