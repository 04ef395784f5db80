from django.apps import AppConfig


class LmsConfig(AppConfig):
    """The project package as an app, for its management commands (runstack, demo_setup)."""

    name = "lms"
    verbose_name = "Lernpfad"
