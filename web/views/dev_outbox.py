"""The dev outbox (``make run`` only): the mails Django's file backend wrote to var/mail/, newest
first, so a new account can be confirmed without a mail server. A 404 unless DEBUG is on and
mail goes to files."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

FILE_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
# The line Django's file backend writes after each message.
SEPARATOR = b"\n" + b"-" * 79 + b"\n"
# The page shows the newest mails only: an outbox of a long dev session grows without end.
OUTBOX_MAX = 50


def outbox_messages(folder: Path, *, limit: int = OUTBOX_MAX) -> list[dict]:
    """The newest ``limit`` mails in ``folder``: subject, recipients, date and plain text."""
    files = sorted(folder.glob("*.log"), key=lambda path: path.stat().st_mtime, reverse=True)
    shown: list[dict] = []
    for path in files:
        chunks = [chunk for chunk in path.read_bytes().split(SEPARATOR) if chunk.strip()]
        for chunk in reversed(chunks):
            message = email.message_from_bytes(chunk.lstrip(), policy=email.policy.default)
            body = message.get_body(preferencelist=("plain",))
            shown.append(
                {
                    "subject": message["subject"] or "",
                    "to": message["to"] or "",
                    "date": message["date"].datetime if message["date"] else None,
                    "text": body.get_content() if body is not None else "",
                }
            )
            if len(shown) >= limit:
                return shown
    return shown


def dev_outbox(request: HttpRequest) -> HttpResponse:
    if not settings.DEBUG or settings.EMAIL_BACKEND != FILE_BACKEND:
        raise Http404
    folder = Path(settings.EMAIL_FILE_PATH)
    mails = outbox_messages(folder) if folder.is_dir() else []
    return render(
        request,
        "web/dev_outbox.html",
        {"mails": mails, "folder": folder},
    )
