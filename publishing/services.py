"""Writes of the import workspace: a draft from uploaded documents, its publish, and publishing
an earlier import again (the undo). One transaction each."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import PurePath

from django.db import transaction
from django.utils import timezone

from courses import api as courses_api
from publishing.models import CourseImport, ImportDocument
from publishing.preview import ImportPreview, import_preview, plan_counts, plan_lines
from quizzes import api as quizzes_api


class ImportStale(Exception):
    """The documents' plan or the database changed since the preview that was confirmed."""

    def __init__(self, preview: ImportPreview) -> None:
        super().__init__("the import changed since its preview")
        self.preview = preview


class ImportNotDraft(Exception):
    """The import was published already."""


def _documents(course_import: CourseImport) -> list[tuple[str, str]]:
    return [(d.name, d.text) for d in course_import.documents.order_by("position")]


@transaction.atomic
def course_import_draft_create(
    *,
    documents: Sequence[tuple[str, bytes | str]],
    user_id: int | None,
    origin: str = CourseImport.Origin.ADMIN,
    again_of_id: int | None = None,
) -> tuple[CourseImport, ImportPreview]:
    """Store uploaded documents as a draft import with its preview. Raises
    ``courses.api.DocumentErrors`` (nothing stored) when a document is empty, binary or does not
    parse; a document in another text encoding is stored converted to UTF-8."""
    # An empty or binary file is refused by name; another text encoding is converted (and said).
    decoded = courses_api.documents_decode(documents)
    # Stored under the file's own name (the command passes paths; errors name them in full).
    texts = [
        (PurePath(name).name, courses_api.normalized_text(text), encoding)
        for name, text, encoding in decoded
    ]
    plan, preview = import_preview(documents=[(name, text) for name, text, _enc in decoded])
    course_import = CourseImport.objects.create(
        origin=origin,
        created_by_id=user_id,
        created_at=timezone.now(),
        again_of_id=again_of_id,
        module_slugs=[m.slug for m in plan.modules],
        plan_text="\n".join(plan_lines(preview)),
        counts=plan_counts(preview),
    )
    module_by_path = {m.source_path: m.slug for m in plan.modules}
    module_by_title = courses_api.module_slugs_by_title(c.module_title for c in plan.cards)
    module_by_title.update({m.title: m.slug for m in plan.modules})
    card_by_path = {c.source_path: module_by_title.get(c.module_title, "") for c in plan.cards}
    ImportDocument.objects.bulk_create(
        ImportDocument(
            course_import=course_import,
            position=position,
            name=name,
            kind=ImportDocument.Kind.MODULE if name in module_by_path else ImportDocument.Kind.CARD,
            module_slug=module_by_path.get(name) or card_by_path.get(name, ""),
            text=text,
            sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
            source_encoding=encoding,
        )
        for position, (name, text, encoding) in enumerate(texts, start=1)
    )
    return course_import, preview


@transaction.atomic
def course_import_publish(
    *, course_import_id: int, fingerprint: str, user_id: int | None
) -> CourseImport:
    """Apply exactly the confirmed preview's plan, regenerate exam items and record it. Raises
    ``ImportStale`` (nothing written) when anything changed since, ``ImportNotDraft`` if
    published."""
    course_import = CourseImport.objects.select_for_update().get(pk=course_import_id)
    if course_import.status != CourseImport.Status.DRAFT:
        raise ImportNotDraft
    documents = _documents(course_import)
    courses_api.modules_lock(slugs=course_import.module_slugs)
    plan, preview = import_preview(documents=documents)
    if preview.fingerprint != fingerprint:
        raise ImportStale(preview)
    report = courses_api.plan_apply(plan=plan)
    module_ids = courses_api.module_ids_by_slug(m.slug for m in plan.modules)
    exam = {
        slug: quizzes_api.exam_items_regenerate(module_id=module_ids[slug])
        for slug in (m.slug for m in plan.modules)
    }
    course_import.status = CourseImport.Status.PUBLISHED
    course_import.published_by_id = user_id
    course_import.published_at = timezone.now()
    course_import.plan_text = "\n".join(plan_lines(preview))
    course_import.counts = plan_counts(preview)
    course_import.exam_items = exam
    course_import.rows_written = report.rows_written
    course_import.save()
    return course_import


def course_import_again(
    *, course_import_id: int, user_id: int | None
) -> tuple[CourseImport, ImportPreview]:
    """Publishing an earlier import again starts as a new draft of its documents, with its own
    preview (the undo of what came after it)."""
    return course_import_draft_create(
        documents=_documents(CourseImport.objects.get(pk=course_import_id)),
        user_id=user_id,
        origin=CourseImport.Origin.AGAIN,
        again_of_id=course_import_id,
    )
