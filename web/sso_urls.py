"""The single sign-on URLs under /sso/: allauth's provider URLs (OIDC log-in and callback, SAML
log-in, ACS and metadata), its error, cancel and connections pages. allauth's own account pages
are not mounted: the names its code reverses point at the site's pages instead."""

from allauth.urls import build_provider_urlpatterns
from django.urls import include, path
from django.views.generic import RedirectView

from web.views import sso


def _to(pattern_name: str) -> RedirectView:
    return RedirectView.as_view(pattern_name=pattern_name, query_string=True)


urlpatterns = [
    # Before allauth's own route of the same path: refuses a response that is not XML (400).
    path(
        "saml/<str:organization_slug>/acs/finish/",
        sso.saml_acs_finish,
        name="saml_finish_acs",
    ),
    *build_provider_urlpatterns(),
    path("3rdparty/", include("allauth.socialaccount.urls")),
    path("inactive/", sso.account_inactive, name="account_inactive"),
    # Names allauth reverses (after a log-out, in its templates), answered by the site's pages.
    path("login/", _to("web:login"), name="account_login"),
    path("signup/", _to("web:signup"), name="account_signup"),
    path("logout/", _to("web:logout"), name="account_logout"),
    path("password/", _to("web:password_change"), name="account_change_password"),
    path("password/set/", _to("web:password_change"), name="account_set_password"),
    path("password/reset/", _to("web:password_reset"), name="account_reset_password"),
    path("email/", _to("web:settings"), name="account_email"),
]
