"""Pages of the quizzes app outside the API: the public certificate verification page."""

from django.urls import path

from quizzes.views import certificate_verify

urlpatterns = [
    path("certificates/<str:code>/", certificate_verify, name="certificate-verify"),
]
