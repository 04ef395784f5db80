"""My notes: every note the learner wrote on a step, by module and step, searchable."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from progress.selectors import NOTES_PAGE_MAX, learner_notes_list

# A search longer than this is cut: nobody types more to find a note.
SEARCH_MAX_LENGTH = 200


@login_required
def notes_page(request: HttpRequest) -> HttpResponse:
    """The learner's notes (``?q=`` filters by text, term or module), each linked to its step."""
    search = request.GET.get("q", "")[:SEARCH_MAX_LENGTH].strip()
    notes = learner_notes_list(learner_id=request.user.pk, search=search)
    return render(
        request,
        "web/notes.html",
        {"nav": "notes", "notes": notes, "search": search, "limited": len(notes) >= NOTES_PAGE_MAX},
    )
