"""The project's routes plus the floor: minimal views behind the same middleware and auth.

The floor is what the framework costs before any Lernpfad code runs: the production middleware,
DRF's request handling with the project's authentication classes (knox token, session), content
negotiation and the JSON renderer, returning a fixed small JSON. Its routes come first so URL
resolution costs it less than any endpoint: a floor that errs on the fast side.

The HTML floor is the same for the learner's web pages: a signed-in session (the session and
user look-ups of every page) and the base template every page extends (web/base.html: the
navigation, the language switch, the learner's time zone) around a fixed body.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.template import engines
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from lms.urls import handler404, handler500
from lms.urls import urlpatterns as project_urlpatterns

FLOOR_BODY = {"floor": True, "items": [1, 2, 3], "message": "ok"}


class AnonymousFloorView(APIView):
    """The floor for public endpoints: DRF with the project's defaults, anyone may read."""

    permission_classes = [AllowAny]

    def get(self, request):
        return Response(FLOOR_BODY)


class AuthenticatedFloorView(APIView):
    """The floor for personal endpoints: the default authentication and IsAuthenticated."""

    def get(self, request):
        return Response(FLOOR_BODY)

    def post(self, request):
        # Parse the body as a real endpoint would, then answer the same fixed JSON.
        request.data  # noqa: B018
        return Response(FLOOR_BODY)


HTML_FLOOR_TEMPLATE = engines["django"].from_string(
    '{% extends "web/base.html" %}{% block title %}Floor{% endblock %}'
    "{% block content %}<h1>Floor</h1><p>A fixed body: what every page costs before its own "
    "content.</p>{% endblock %}"
)


@login_required
def html_floor(request):
    """The floor for the web pages: session log-in, base template, fixed body."""
    return HttpResponse(HTML_FLOOR_TEMPLATE.render({"nav": "home"}, request))


def plain_django_floor(request):
    """For reference only: a plain Django view without DRF (not used for the ratios)."""
    return JsonResponse(FLOOR_BODY)


urlpatterns = [
    path("bench/floor/", AnonymousFloorView.as_view(), name="bench-floor"),
    path("bench/floor/auth/", AuthenticatedFloorView.as_view(), name="bench-floor-auth"),
    path("bench/floor/django/", plain_django_floor, name="bench-floor-django"),
    path("bench/floor/html/", html_floor, name="bench-floor-html"),
    *project_urlpatterns,
]

__all__ = ["handler404", "handler500", "urlpatterns"]
