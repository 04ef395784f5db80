"""The learner's notes on a step's writing prompts (Praxisaufgabe, Lernauftrag)."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from lms.errors import InvalidInput, PreconditionFailed
from lms.etags import etag_matches, weak
from progress.models import NOTE_MAX_LENGTH, StepNote
from progress.note_versions import notes_etag
from progress.services.step_context import step_context_lock_or_raise

NOTE_PROMPTS = tuple(StepNote.Prompt.values)


@transaction.atomic
def step_notes_put(
    *,
    learner_id: int,
    module_slug: str,
    number: int,
    notes: Mapping[str, str],
    if_match: str | None = None,
) -> dict[str, StepNote]:
    """Set the learner's notes for the given prompts of a step (an empty text deletes one) and
    return all of them. With ``if_match`` the write applies only while the notes are that version
    (checked under the step's lock), else PreconditionFailed; without it the last write wins."""
    unknown = sorted(set(notes) - set(NOTE_PROMPTS))
    if unknown:
        raise InvalidInput(
            _("Notes exist for the prompts %(prompts)s.") % {"prompts": ", ".join(NOTE_PROMPTS)},
            code="unknown_prompt",
            detail={"unknown": unknown},
        )
    too_long = sorted(prompt for prompt, text in notes.items() if len(text) > NOTE_MAX_LENGTH)
    if too_long:
        raise InvalidInput(
            _("A note has at most %(count)d characters.") % {"count": NOTE_MAX_LENGTH},
            code="note_too_long",
            detail={"prompts": too_long, "max_length": NOTE_MAX_LENGTH},
        )
    context = step_context_lock_or_raise(
        learner_id=learner_id, module_slug=module_slug, number=number
    )
    absent = sorted(
        prompt
        for prompt, text in notes.items()
        if text.strip() and prompt not in context.section_kinds
    )
    if absent:
        raise InvalidInput(
            _("This step does not ask for these notes."),
            code="prompt_not_in_step",
            detail={"prompts": absent},
        )
    now = timezone.now()
    existing = {
        note.prompt: note
        for note in StepNote.objects.filter(learner_id=learner_id, step_id=context.step_id)
    }
    if if_match is not None:
        current = {prompt: "" for prompt in NOTE_PROMPTS}
        current.update({prompt: note.text for prompt, note in existing.items()})
        updated = max((note.updated_at for note in existing.values()), default=None)
        etag = notes_etag(current, updated)
        if not etag_matches(if_match, etag):
            raise PreconditionFailed(
                "Your notes changed since you read them (on another device?). "
                "Here is the current text.",
                code="notes_changed",
                detail={
                    "etag": weak(etag),
                    **current,
                    "updated_at": updated.isoformat() if updated else None,
                },
            )
    for prompt, text in notes.items():
        text = text.strip()
        note = existing.get(prompt)
        if not text:
            if note is not None:
                note.delete()
                del existing[prompt]
        elif note is None:
            existing[prompt] = StepNote.objects.create(
                learner_id=learner_id,
                step_id=context.step_id,
                prompt=prompt,
                text=text,
                created_at=now,
                updated_at=now,
            )
        elif note.text != text:
            note.text = text
            note.updated_at = now
            note.save(update_fields=["text", "updated_at"])
    return existing
