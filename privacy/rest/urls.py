"""REST routes of the privacy app: my data export, and /me/ with its DELETE (erasure)."""

from django.urls import path

from privacy.rest import views

urlpatterns = [
    path("me/", views.MeView.as_view(), name="me"),
    path("me/export/", views.DataExportView.as_view(), name="me-export"),
]
