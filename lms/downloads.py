"""A file the server generated for one user, as a download (the certificate PDF)."""

from __future__ import annotations

from django.http import HttpResponse


def private_download(content: bytes, *, content_type: str, filename: str) -> HttpResponse:
    """``content`` as an attachment named ``filename`` that no shared cache keeps: it is one
    learner's, behind their log-in."""
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response
