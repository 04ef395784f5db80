"""The LTI tool's addresses (the platform admin enters these; docs/operations/lti.md)."""

from django.urls import path

from lti import views

app_name = "lti"
urlpatterns = [
    path("register/", views.register, name="register"),
    path("login/", views.login, name="login"),
    path("launch/", views.launch, name="launch"),
    path("deep-link/", views.deep_link, name="deep_link"),
    path("open/<str:token>/", views.open_ticket, name="open"),
    path("jwks/", views.jwks, name="jwks"),
]
