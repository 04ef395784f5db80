from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = "Quick checks and exams"

    def ready(self) -> None:
        from quizzes import checks  # noqa: F401  (registers the system checks)
