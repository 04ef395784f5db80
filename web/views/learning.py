"""Module page and step reader, and the learner's actions on a step.

Content comes from ``courses.selectors`` (as in the content API); the learner's state and
every write go through the same services and selectors the REST API uses.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from courses.selectors import module_get, section_anchor, step_get, step_prompts
from lms.errors import Conflict, NotEnrolled
from progress import api as progress_api
from progress.selectors import MissingEvidence, outline_status_get, step_reader_state
from progress.services.enrollment import enrollment_create
from progress.services.notes import step_notes_put
from progress.services.step_events import COMPLETION_REFUSED, step_event_record
from quizzes.selectors import (
    exam_rule_get,
    quick_check_ratings_get,
)
from quizzes.services import quick_checks
from web.forms import NoteForm, QuickCheckRatingForm
from web.views.common import content_version, domain_errors_as_pages, safe_next
from web.views.fsrs import exam_date_context


@dataclass
class Block:
    """A section prepared for the template: its lines, each marked as text or command (the
    first line of a term card's exercise, "Sicher ausprobieren", as its subtitle); whether the
    learner has read it and their note on it."""

    section: Any  # a courses Section, as courses.selectors.step_get reads it
    note: str = ""
    read: bool = False
    # Where the page's path without JavaScript goes after this section ("complete": the end).
    next_anchor: str = "complete"

    @property
    def personal(self) -> bool:
        """The section shows the learner's quick-check forms or notes: never cached."""
        return self.section.kind in ("pruefen", "praxisaufgabe", "lernauftrag")

    @property
    def anchor(self) -> str:
        return section_anchor(self.section)

    @cached_property
    def items(self) -> list[dict]:
        section = self.section
        commands = set(section.commands or [])
        lines = [line for line in section.lines if line]
        return [
            {
                "text": line,
                "command": line in commands,
                # courses.documents: an exercise ("uebung") starts with its subtitle.
                "subtitle": section.kind == "uebung" and index == 0,
            }
            for index, line in enumerate(lines)
        ]


def _step_page(request: HttpRequest, *, module: str, number: int, **_url_kwargs) -> str:
    return reverse("web:step", args=[module, number])


def _step_page_at_note(request: HttpRequest, *, module: str, number: int) -> str:
    """The step page scrolled to the first note the form sent."""
    prompt = next((p for p in NoteForm.PROMPTS if p in request.POST), None)
    anchor = f"#note-{prompt}" if prompt else ""
    return f"{_step_page(request, module=module, number=number)}{anchor}"


def _step_page_at_section(request: HttpRequest, *, module: str, number: int) -> str:
    """The step page at the section after the one the learner just read (from the form)."""
    anchor = request.POST.get("next_anchor", "")
    fragment = f"#{anchor}" if anchor.replace("-", "").isalnum() else ""
    return f"{_step_page(request, module=module, number=number)}{fragment}"


def _step_page_at_quick_check(
    request: HttpRequest, *, module: str, number: int, quick_check: int
) -> str:
    return f"{_step_page(request, module=module, number=number)}#quick-check-{quick_check}"


@domain_errors_as_pages()
def module_detail(request: HttpRequest, module: str) -> HttpResponse:
    """The overview (steps, levels, reading time, term cards, the exam's rule), the outline
    with each step's status and sections read, and "continue where I left off"."""
    module_obj = module_get(slug=module)
    steps = module_obj.active_steps
    progress = None
    if request.user.is_authenticated:
        progress = _module_progress(learner_id=request.user.pk, module=module_obj)
    outline = [
        {
            "step": step,
            "status": progress["status_by_number"].get(step.number) if progress else None,
            "sections_total": len(step.section_kinds),
            "sections_read": progress["read_by_number"].get(step.number, 0) if progress else 0,
        }
        for step in steps
    ]
    exam = None
    if progress is not None:
        exam = exam_date_context(learner=request.user, module_id=module_obj.pk)
    return render(
        request,
        "web/courses/module.html",
        {
            "module": module_obj,
            "steps": steps,
            "outline": outline,
            # The outline's cached HTML varies on the content and on what it shows of the learner.
            "content_version": content_version(module_obj),
            "outline_state": [(row["status"], row["sections_read"]) for row in outline],
            "progress": progress,
            "levels": sorted({step.level for step in steps}),
            "term_cards": sum(1 for step in steps if getattr(step, "term_card", None)),
            "reading_minutes": progress_api.reading_minutes(sum(step.body_chars for step in steps)),
            "reading_wpm": progress_api.READING_WORDS_PER_MINUTE,
            "exam_rule": exam_rule_get(module_id=module_obj.pk),
            "exam": exam,
            "readiness": exam["readiness"] if exam else None,
        },
    )


@domain_errors_as_pages()
def step_detail(request: HttpRequest, module: str, number: int) -> HttpResponse:
    """A step's sections in document order, its quick checks, notes, term card and pager."""
    content = step_get(module_slug=module, number=number)
    blocks = [Block(section=section) for section in content.sections]
    for block, following in itertools.pairwise(blocks):
        block.next_anchor = following.anchor
    quick_checks, reflection_prompts = step_prompts(content.quick_check_links)
    learner = None
    if request.user.is_authenticated:
        learner = _step_learner_state(
            request, content=content, blocks=blocks, quick_checks=quick_checks
        )
    return render(
        request,
        "web/courses/step.html",
        {
            "module": content.step.module,
            "step": content.step,
            "blocks": blocks,
            "quick_checks": quick_checks,
            "reflection_prompts": reflection_prompts,
            "card": content.card,
            "card_blocks": [Block(section=section) for section in content.card_sections],
            "previous_number": content.previous_number,
            "next_number": content.next_number,
            "learner": learner,
            "content_version": content_version(content.step.module),
            "toc_state": [block.read for block in blocks],
        },
    )


def _module_progress(*, learner_id: int, module) -> dict | None:
    """Status and sections read per step, counts and the resume step for the module page
    (None: not enrolled)."""
    steps = module.active_steps
    outline = outline_status_get(
        learner_id=learner_id, module_slug=module.slug, module_id=module.pk, steps=steps
    )
    if outline is None:
        return None
    resume = next((s for s in steps if s.number == outline.next_step_number), None)
    read_by_number = {}
    for step in steps:
        viewed = outline.sections_viewed_by_step.get(step.pk, ())
        read_by_number[step.number] = len(set(step.section_kinds).intersection(viewed))
    return {
        "percent": outline.percent_complete,
        "completed": outline.completed_steps,
        "total": outline.total_steps,
        "status_by_number": {s.number: outline.status_by_step.get(s.pk) for s in steps},
        "read_by_number": read_by_number,
        "resume_number": resume.number if resume else None,
        "resume_term": resume.term if resume else "",
        # Anything opened, read or done: the button continues, else it begins.
        "started": any(
            outline.status_by_step.get(s.pk) not in (None, "not_started") for s in steps
        ),
    }


def _step_learner_state(
    request: HttpRequest, *, content, blocks: list[Block], quick_checks: list[dict]
) -> dict:
    """Read the learner's status, sections read, notes and ratings. The GET records nothing:
    the page sends the "opened" event itself (web/static/web/app.js), as an app does; without
    JavaScript the step counts as opened once the learner's first "read – on" button under a
    section records that section (``section_read``)."""
    step = content.step
    learner_id = request.user.pk
    state = step_reader_state(
        learner_id=learner_id, module_id=step.module_id, step_id=step.pk, now=timezone.now()
    )
    if state is None:
        return {"enrolled": False}
    for block in blocks:
        block.note = state.notes.get(block.section.kind, "")
        block.read = block.section.kind in state.sections_viewed
    quick_check_ids = [qc["id"] for qc in quick_checks]
    ratings = {}
    if quick_check_ids:
        ratings = quick_check_ratings_get(learner_id=learner_id, quick_check_ids=quick_check_ids)
    for qc in quick_checks:
        qc["rating"] = ratings.get(qc["id"])
    return {
        "enrolled": True,
        "status": state.status,
        "sections_read": sum(1 for block in blocks if block.read),
        # What completing still needs, shown with links after a refused completion (?missing).
        "missing": _missing_parts(state.missing, blocks=blocks, quick_checks=quick_checks)
        if "missing" in request.GET and state.status != "completed"
        else None,
    }


def _missing_parts(
    missing: MissingEvidence, *, blocks: list[Block], quick_checks: list[dict]
) -> dict | None:
    """The missing evidence as the page links it: sections by heading and anchor, quick checks
    by question and anchor, the time left in whole minutes. None when nothing is missing."""
    if not missing:
        return None
    return {
        "sections": [b for b in blocks if b.section.kind in missing.sections],
        "quick_checks": [qc for qc in quick_checks if qc["id"] in missing.quick_check_ids],
        "minutes_left": math.ceil(missing.seconds_left / 60),
    }


@login_required
@require_POST
@domain_errors_as_pages()
def enroll(request: HttpRequest, module: str) -> HttpResponse:
    _enrollment, created = enrollment_create(learner_id=request.user.pk, module_slug=module)
    if created:
        messages.success(request, _("You are enrolled. Have fun learning!"))
    return redirect(safe_next(request, reverse("web:module", args=[module])))


@login_required
@require_POST
@domain_errors_as_pages(back=_step_page)
def step_progress(request: HttpRequest, module: str, number: int) -> HttpResponse:
    """Mark a step complete (or not done again).

    Completing applies the API's rule (progress.completion_rules: the sections seen, the quick
    checks answered, a plausible time spent); refused, the page lists what is missing with links
    and nothing is recorded.
    """
    event = request.POST.get("event")
    step_url = _step_page(request, module=module, number=number)
    if event not in ("completed", "reopened"):
        messages.error(request, _("Unknown action."))
        return redirect(step_url)
    try:
        step_event_record(learner_id=request.user.pk, module_slug=module, number=number, kind=event)
    except NotEnrolled:
        messages.error(request, _("Enroll in the module first."))
        return redirect("web:module", module)
    except Conflict as refused:
        if refused.code != COMPLETION_REFUSED:
            raise
        messages.error(request, refused.message)
        return redirect(f"{step_url}?missing=1#complete")
    if event == "completed":
        messages.success(request, _("Step completed. Its review cards are in your queue."))
    else:
        messages.info(request, _("The step is marked as not done."))
    next_url = reverse("web:step", args=[module, number + 1])
    return redirect(next_url if request.POST.get("go_next") else step_url)


@login_required
@require_POST
@domain_errors_as_pages(back=_step_page_at_section)
def section_read(request: HttpRequest, module: str, number: int) -> HttpResponse:
    """Record a section as seen and go on to the next one: the step page's path without
    JavaScript, where no script reports the sections coming into view."""
    step_event_record(
        learner_id=request.user.pk,
        module_slug=module,
        number=number,
        kind="section_viewed",
        section=request.POST.get("section", ""),
    )
    return redirect(_step_page_at_section(request, module=module, number=number))


@login_required
@require_POST
@domain_errors_as_pages(back=_step_page_at_note)
def note_save(request: HttpRequest, module: str, number: int) -> HttpResponse:
    """Save both notes of the step in one go (one form spans both writing prompts)."""
    form = NoteForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(_step_page_at_note(request, module=module, number=number))
    step_notes_put(
        learner_id=request.user.pk, module_slug=module, number=number, notes=form.notes()
    )
    messages.success(request, _("Your notes are saved."))
    return redirect(_step_page_at_note(request, module=module, number=number))


@login_required
@require_POST
@domain_errors_as_pages(back=_step_page_at_quick_check)
def quick_check_rate(request: HttpRequest, module: str, number: int, quick_check: int):
    form = QuickCheckRatingForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the three ratings."))
        return redirect(_step_page(request, module=module, number=number))
    quick_checks.quick_check_rate(
        learner_id=request.user.pk,
        module_slug=module,
        step_number=number,
        quick_check_id=quick_check,
        rating=form.cleaned_data["rating"],
    )
    messages.success(request, _("Thanks! Your rating is saved."))
    return redirect(
        _step_page_at_quick_check(request, module=module, number=number, quick_check=quick_check)
    )
