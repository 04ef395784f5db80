"""The module as a document: byte-identical to the document imported when nobody edited it,
admin edits written back otherwise, and the round trip (module → document → import) lossless
for every seed, writing no row."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from courses import api as courses_api
from courses.models import Module, Step, TermCard
from courses.services.importing import step_refresh_content_hash
from publishing.preview import base_texts
from publishing.services import course_import_draft_create, course_import_publish
from tests.conftest import SEED_DIR

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE")
SEEDS = sorted(SEED_DIR.glob("*.txt"))


def _normalized(path) -> str:
    return path.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@pytest.fixture
def published(db):
    files = [(p.name, p.read_bytes()) for p in SEEDS]
    draft, preview = course_import_draft_create(documents=files, user_id=None)
    course_import_publish(course_import_id=draft.pk, fingerprint=preview.fingerprint, user_id=None)
    return Module.objects.get(slug="self-hosting-27")


def _documents_of(module: Module, *, with_base: bool) -> dict[str, str]:
    base = base_texts([module.slug]).get(module.slug) if with_base else None
    stored = {d.name: d.text for d in _stored_documents()} if with_base else {}
    out = {module.source_path: courses_api.module_document(module_id=module.pk, base_text=base)}
    for card in TermCard.objects.filter(module=module):
        out[card.source_path] = courses_api.card_document(
            card_id=card.pk, base_text=stored.get(card.source_path)
        )
    return out


def _stored_documents():
    from publishing.models import ImportDocument

    return ImportDocument.objects.all()


def _writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_unedited_document_is_byte_identical_to_the_imported_one(published, seed):
    documents = _documents_of(published, with_base=True)
    assert documents[seed.name] == _normalized(seed)


@pytest.mark.parametrize("with_base", [True, False], ids=["stored-document", "rendered"])
def test_round_trip_of_every_seed_writes_no_row(published, with_base):
    documents = _documents_of(published, with_base=with_base)
    assert sorted(documents) == [p.name for p in SEEDS]
    plan = courses_api.documents_plan(sorted(documents.items()))
    with CaptureQueriesContext(connection) as ctx:
        report = courses_api.plan_apply(plan=plan)
    assert report.rows_written == 0
    assert _writes(ctx.captured_queries) == []


def test_admin_edits_are_written_back_into_the_document(published):
    step = published.steps.get(number=5)
    Step.objects.filter(pk=step.pk).update(lead=step.lead + " Vom Admin ergänzt.")
    step.refresh_from_db()
    step_refresh_content_hash(step=step)
    section = step.sections.get(kind="verstehen")
    section.body += "\nEine Zeile aus der Verwaltung."
    section.save()
    step_refresh_content_hash(step=step)

    text = _documents_of(published, with_base=True)[published.source_path]
    seed = _normalized(SEED_DIR / published.source_path)
    assert text != seed
    assert "Vom Admin ergänzt." in text and "Eine Zeile aus der Verwaltung." in text
    # Only the edited step's block differs from the imported document.
    start = seed.index("Schritt 5 / 32")
    end = seed.index("Schritt 6 / 32")
    assert text[:start] == seed[:start]
    assert text[text.index("Schritt 6 / 32") :] == seed[end:]
    # The document imports back to the same content.
    edited_hash = Step.objects.get(pk=step.pk).content_hash
    plan = courses_api.documents_plan([(published.source_path, text)])
    courses_api.plan_apply(plan=plan)
    assert Step.objects.get(pk=step.pk).content_hash == edited_hash
