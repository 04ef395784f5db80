"""System checks of the quizzes app: the certificate PDF's font is installed."""

from __future__ import annotations

from django.conf import settings
from django.core import checks

from quizzes.certificate_pdf import font_paths, fonts_available


@checks.register(checks.Tags.compatibility, deploy=False)
def certificate_font_check(app_configs, **kwargs) -> list[checks.CheckMessage]:
    if fonts_available():
        return []
    missing = ", ".join(str(path) for path in font_paths().values() if not path.is_file())
    return [
        checks.Warning(
            "The certificate PDF's Unicode font is missing; certificates fall back to a font "
            "that prints Latin-1 letters only.",
            hint=f"Install Debian's fonts-dejavu-core or set LERNPFAD_PDF_FONT_DIR "
            f"(now {settings.LERNPFAD_PDF_FONT_DIR}); missing: {missing}",
            id="quizzes.W001",
        )
    ]
