from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = _("Quick checks and exams")

    def ready(self) -> None:
        from quizzes import checks  # noqa: F401  (registers the system checks)
