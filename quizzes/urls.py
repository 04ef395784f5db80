"""Pages of the quizzes app outside the API: the public certificate verification page."""

from django.urls import path

import lms.converters  # noqa: F401  (registers <token:…>)
from quizzes.views import certificate_verify

urlpatterns = [
    path("certificates/<token:code>/", certificate_verify, name="certificate-verify"),
]
