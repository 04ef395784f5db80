"""The exam: policy page, the timed attempt, submit confirmation, result and certificate link
(the certificate pages themselves: ``web.views.certificates``).

Reads and writes go through the quizzes app's selectors and services, the same as
``/api/v1/.../exam/``; what a learner may see of an attempt is decided there
(``attempt_item_view`` never carries correct keys, ``attempt_result_view`` applies the policy).
No GET writes: the result page of an attempt whose time is up reads the result its saved answers
get; the periodic task stores it.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from accounts import api as accounts_api
from lms.errors import DomainError
from quizzes.data import PRACTICE, AttemptItemView, AttemptView, ReviewItemWithAnswers
from quizzes.selectors import (
    attempt_study_plan,
    exam_attempt_get,
    exam_overview,
)
from quizzes.services.attempt_answers import exam_attempt_answers_save
from quizzes.services.attempt_finalize import exam_attempt_submit
from quizzes.services.attempt_start import exam_attempt_start
from web.views.common import domain_errors_as_pages, error_message


def exam_status_for_dashboard(
    *, learner, module_slug: str, completed_step_ids: frozenset[int] | None = None
) -> dict:
    """A short exam status for the dashboard card: passed (only ever by a certifying exam),
    running, open after the steps still missing, and whether it is a practice exam.
    ``completed_step_ids``: the learner's, when the caller read them (``exam_overview``)."""
    overview = exam_overview(
        learner_id=learner.pk,
        module_slug=module_slug,
        full_name_given=accounts_api.certificate_name_given(learner),
        completed_step_ids=completed_step_ids,
    )
    final = overview.final_grade
    gate = overview.eligibility.steps
    practice = overview.mode == PRACTICE
    if final.passed:
        label = _("passed (%(score)s %%)") % {"score": _score(final.score_percent)}
    elif overview.attempt_in_progress:
        label = _("attempt in progress")
    elif not gate.open:
        missing = gate.required - gate.completed
        label = ngettext(
            "open after %(missing)d more step", "open after %(missing)d more steps", missing
        ) % {"missing": missing}
    elif any(a.mode == overview.mode for a in overview.attempts):
        label = _("not passed yet, %(left)d attempts left") % {
            "left": overview.eligibility.attempts_left
        }
    else:
        label = _("not taken yet")
    if practice and not final.passed:
        label = _("practice exam, no certificate: %(status)s") % {"status": label}
    return {"label": label, "overview": overview, "practice": practice}


def _score(value) -> str:
    return f"{value:.0f}" if value is not None else "–"


@login_required
@domain_errors_as_pages()
def exam_page(request: HttpRequest, module: str) -> HttpResponse:
    """The policy, eligibility (with every reason against starting), my attempts, final grade."""
    overview = exam_overview(
        learner_id=request.user.pk,
        module_slug=module,
        full_name_given=accounts_api.certificate_name_given(request.user),
    )
    return render(request, "web/exams/policy.html", {"overview": overview, "module": module})


@login_required
@require_POST
@domain_errors_as_pages(back=lambda request, module: reverse("web:exam", args=[module]))
def exam_start(request: HttpRequest, module: str) -> HttpResponse:
    started = exam_attempt_start(
        learner_id=request.user.pk,
        module_slug=module,
        full_name_given=accounts_api.certificate_name_given(request.user),
    )
    return redirect("web:attempt", started.attempt.pk)


def _answers_from_post(request: HttpRequest, items: list[AttemptItemView]) -> list[dict]:
    """The form's answers in the service's shape: ``{"item": id}`` with ``selected`` (choice
    kinds), ``text`` (short answer), ``number`` (numerical) or ``pairs`` (matching: one select
    per option, ``item-<id>-<option key>``)."""
    answers = []
    for item in items:
        name = f"item-{item.id}"
        if item.kind == "short_answer":
            answers.append({"item": item.id, "text": request.POST.get(name, "")})
        elif item.kind == "numerical":
            answers.append({"item": item.id, "number": request.POST.get(name, "")})
        elif item.kind == "matching":
            pairs = [
                {"option": option.key, "choice": request.POST[f"{name}-{option.key}"]}
                for option in item.options
                if request.POST.get(f"{name}-{option.key}")
            ]
            answers.append({"item": item.id, "pairs": pairs})
        else:
            answers.append({"item": item.id, "selected": request.POST.getlist(name)})
    return answers


def _shown_items(view: AttemptView) -> list[dict]:
    """The attempt's items for the page; a matching item with each option's chosen key."""
    shown = []
    for item in view.items:
        chosen = {pair.option: pair.choice for pair in item.pairs}
        shown.append({"item": item, "matches": [(o, chosen.get(o.key, "")) for o in item.options]})
    return shown


def _attempt_view(request: HttpRequest, attempt: int) -> AttemptView:
    """The learner's own attempt as ``exam_attempt_get`` shows it (NotFound for anyone
    else's: a 404 through the views' decorator)."""
    return exam_attempt_get(learner_id=request.user.pk, attempt_id=attempt)


@login_required
@domain_errors_as_pages()
def attempt_page(request: HttpRequest, attempt: int) -> HttpResponse:
    """The running attempt: items, saved answers, countdown. POST saves and asks to confirm."""
    view = _attempt_view(request, attempt)
    if view.finalized:
        return redirect("web:attempt_result", attempt)
    if request.method == "POST":
        try:
            exam_attempt_answers_save(
                learner_id=request.user.pk,
                attempt_id=attempt,
                answers=_answers_from_post(request, view.items),
            )
        except DomainError as exc:
            error_message(request, exc)
            # A refused answer names its question (an answer that is no number, say).
            for problem in exc.detail if isinstance(exc.detail, list) else []:
                if isinstance(problem, dict) and problem.get("message"):
                    messages.error(request, problem["message"])
            if exc.code == "deadline_passed":
                return redirect("web:attempt_submit", attempt)
            return redirect("web:attempt", attempt)
        marked = _marked_item_ids(request.POST.getlist("marked"), view.items)
        submit_url = reverse("web:attempt_submit", args=[attempt])
        if marked:
            submit_url += "?" + urlencode({"marked": ",".join(map(str, marked))})
        return redirect(submit_url)
    return render(
        request,
        "web/exams/attempt.html",
        {
            "attempt": view,
            "items": _shown_items(view),
            "server_now": timezone.now(),
            "save_url": reverse("exam-attempt-answers", args=[attempt]),
        },
    )


@login_required
@domain_errors_as_pages(back=lambda request, attempt: reverse("web:attempt", args=[attempt]))
def attempt_submit(request: HttpRequest, attempt: int) -> HttpResponse:
    """Confirm the submission (with the count of unanswered items), then grade on the server."""
    view = _attempt_view(request, attempt)
    if view.finalized:
        return redirect("web:attempt_result", attempt)
    if request.method == "POST":
        exam_attempt_submit(learner=request.user, attempt_id=attempt)
        return redirect("web:attempt_result", attempt)
    unanswered = [item for item in view.items if not item.answered]
    marked_ids = set(_marked_item_ids(request.GET.get("marked", "").split(","), view.items))
    marked = [item for item in view.items if item.id in marked_ids]
    return render(
        request,
        "web/exams/confirm.html",
        {"attempt": view, "unanswered": unanswered, "marked": marked},
    )


def _marked_item_ids(values: list[str], items) -> list[int]:
    """The attempt's items the learner marked for later, in order; anything else is dropped.

    Marks live in the page (the browser keeps them per attempt, app.js) and travel to the
    confirmation with the form: they are a reminder for the learner, not part of the answers.
    """
    wanted = {value.strip() for value in values}
    return [item.id for item in items if str(item.id) in wanted]


@login_required
@domain_errors_as_pages()
def attempt_result(request: HttpRequest, attempt: int) -> HttpResponse:
    """Score, pass/fail, and as much review as the module's policy allows now.

    A read only: once the time is up the page shows the result even before the periodic task
    has stored it (``exam_attempt_get`` with ``time_up``); while time is left it sends back to the
    attempt.
    """
    view = exam_attempt_get(learner_id=request.user.pk, attempt_id=attempt, time_up=True)
    if view.result is None:
        return redirect("web:attempt", attempt)
    result = view.result
    review = None
    if result.items is not None:
        by_id = {item.id: item for item in view.items}
        review = []
        for entry in result.items:
            item = by_id[entry.id]
            shows_answers = isinstance(entry, ReviewItemWithAnswers)
            correct = set(entry.correct_keys) if shows_answers else set()
            review.append(
                {
                    "position": entry.position,
                    "kind": item.kind,
                    "prompt": item.prompt,
                    "text_format": item.text_format,
                    "is_correct": entry.is_correct,
                    "explanation": entry.explanation if shows_answers else "",
                    "feedback": entry.feedback if shows_answers else [],
                    "options": []
                    if item.kind == "matching"
                    else [
                        {
                            "text": option.text,
                            "selected": option.key in entry.selected_keys,
                            "correct": option.key in correct,
                        }
                        for option in item.options
                    ],
                    **_typed_review(item, entry, shows_answers),
                    "shows_answers": shows_answers,
                }
            )
    # A failed attempt says what to study and when the next attempt opens.
    study = (
        None
        if result.passed
        else attempt_study_plan(
            learner_id=request.user.pk,
            attempt=view,
            full_name_given=accounts_api.certificate_name_given(request.user),
        )
    )
    # The review link shows the due cards of the steps named first (the missed ones' first).
    review_first = [step.id for step in study.steps if step.due_cards] if study else []
    review_url = reverse("web:review")
    if review_first:
        review_url += "?" + urlencode({"steps": ",".join(map(str, review_first))})
    return render(
        request,
        "web/exams/result.html",
        {
            "attempt": view,
            "result": result,
            "review": review,
            "study": study,
            "review_url": review_url,
        },
    )


def _typed_review(item: AttemptItemView, entry, shows_answers: bool) -> dict:
    """What the result page shows of a typed item: the learner's text or number, the accepted
    answers (only ``shows_answers``), and a matching item's rows (option, the learner's
    choice, the right choice only ``shows_answers``)."""
    given = entry.text if item.kind == "short_answer" else entry.number
    choices = {choice.key: choice.text for choice in item.choices}
    mine = {pair.option: pair.choice for pair in entry.pairs}
    right = {pair.option: pair.choice for pair in entry.correct_pairs} if shows_answers else {}
    return {
        "given": given,
        "accepted": list(entry.accepted_answers) if shows_answers else [],
        "matches": [
            {
                "text": option.text,
                "given": choices.get(mine.get(option.key, ""), ""),
                "correct": choices.get(right.get(option.key, ""), ""),
            }
            for option in item.options
        ]
        if item.kind == "matching"
        else [],
    }
