"""REST routes of the accounts app."""

from django.urls import path

import lms.converters  # noqa: F401  (registers <id:…> and <number:…>)
from accounts.rest import views

urlpatterns = [
    path("auth/register/", views.RegisterView.as_view(), name="auth-register"),
    path(
        "auth/email-confirmation/",
        views.EmailConfirmationView.as_view(),
        name="auth-email-confirmation",
    ),
    path(
        "auth/email-confirmation/resend/",
        views.EmailConfirmationResendView.as_view(),
        name="auth-email-confirmation-resend",
    ),
    path(
        "auth/password-reset/", views.PasswordResetRequestView.as_view(), name="auth-password-reset"
    ),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("auth/logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all/", views.LogoutAllView.as_view(), name="auth-logout-all"),
    path("auth/tokens/", views.DeviceListView.as_view(), name="auth-device-list"),
    path(
        "auth/tokens/<id:device_id>/",
        views.DeviceDetailView.as_view(),
        name="auth-device-detail",
    ),
    # me/ (GET, PATCH here; DELETE is erasure) and me/export/ are routed by privacy.rest.urls.
]
