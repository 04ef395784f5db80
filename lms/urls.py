"""URL root: the REST API under /api/v1/, its schema and docs, the admin and the web pages."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

import lms.converters  # noqa: F401  (registers <token:…>, <id:…>, <number:…>)
from web.views.certificates import certificate_verify_page

api_v1 = [
    path("", include("courses.rest.urls")),
    path("", include("progress.rest.urls")),
    path("", include("accounts.rest.urls")),
    path("", include("privacy.rest.urls")),
    path("", include("quizzes.rest.urls")),
    path("", include("reviews.rest.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start script from its own URL: the production
    # Content-Security-Policy (script-src 'self') blocks the inline script of the plain view.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", template_name="lms/swagger_ui.html"
        ),
        name="api-docs",
    ),
    path("admin/", admin.site.urls),
    # Single sign-on (django-allauth): the providers' log-in, callback and SAML metadata URLs,
    # the error pages and the connections page; allauth's own log-in and password pages are
    # not mounted (the site's are in web.urls).
    path("sso/", include("web.sso_urls")),
    # The public certificate verification page. Its URL is printed on every certificate and in
    # its QR code, so it keeps this path and name (quizzes.selectors.certificate_url).
    path("certificates/<token:code>/", certificate_verify_page, name="certificate-verify"),
    # The LTI 1.3 tool's log-in, launch, Deep Linking, registration and keys.
    path("lti/", include("lti.urls")),
    path("", include("reviews.urls")),
    path("", include("web.urls")),
]

handler403 = "lms.views.permission_denied"
handler404 = "lms.views.page_not_found"
handler500 = "lms.views.server_error"
