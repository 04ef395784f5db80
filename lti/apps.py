from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LtiConfig(AppConfig):
    name = "lti"
    verbose_name = _("LTI platforms")

    def ready(self) -> None:
        from lti import receivers  # noqa: F401  (connects to quizzes' exam_grade_changed)
