"""Built fixtures: committed, fresh, stable, and loaddata gives the same course as import."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from courses.content_plan import plan_documents
from courses.fixture_builder import fixture_files
from courses.models import Module, QuickCheck, Section, Step, StepQuickCheck, TermCard
from courses.services.importing import documents_parse

FIXTURES_DIR = Path(settings.LERNPFAD_FIXTURES_DIR)


def _built(seed_paths) -> dict[str, str]:
    return fixture_files(plan_documents(documents_parse(seed_paths)))


def test_committed_fixtures_match_the_documents(seed_paths):
    built = _built(seed_paths)
    committed = {p.name: p.read_text(encoding="utf-8") for p in FIXTURES_DIR.glob("*.json")}
    assert set(committed) == set(built), "run: python manage.py build_fixtures"
    for name, text in built.items():
        assert committed[name] == text, f"{name} is stale: run python manage.py build_fixtures"


def test_rebuild_is_byte_identical(seed_paths, tmp_path):
    call_command("build_fixtures", *map(str, seed_paths), output=str(tmp_path / "a"))
    call_command("build_fixtures", *map(str, seed_paths), output=str(tmp_path / "b"))
    first = {p.name: p.read_bytes() for p in (tmp_path / "a").iterdir()}
    second = {p.name: p.read_bytes() for p in (tmp_path / "b").iterdir()}
    assert first == second and len(first) == 4


def _snapshot():
    return {
        "modules": list(Module.objects.values_list("slug", "header", "exam_block_count")),
        "steps": list(
            Step.objects.order_by("number").values_list(
                "slug", "number", "term", "lead", "definition", "content_hash", "source_hash"
            )
        ),
        "sections": sorted(
            Section.objects.values_list(
                "step__slug", "card__slug", "position", "kind", "heading", "body"
            ),
            key=repr,
        ),
        "quick_checks": sorted(QuickCheck.objects.values_list("question", "answer", "text_hash")),
        "links": sorted(
            StepQuickCheck.objects.values_list("step__slug", "position", "quick_check__text_hash")
        ),
        "cards": sorted(TermCard.objects.values_list("slug", "step__slug", "content_hash")),
    }


@pytest.mark.django_db
def test_loaddata_gives_the_same_course_as_import_course(seed_paths):
    from courses.services.importing import course_import

    course_import(paths=seed_paths)
    imported = _snapshot()
    for model in (Section, StepQuickCheck, TermCard, QuickCheck, Step, Module):
        model.objects.all().delete()
    names = sorted(p.name for p in FIXTURES_DIR.glob("*.json"))
    call_command("loaddata", *[str(FIXTURES_DIR / n) for n in names], verbosity=0)
    assert _snapshot() == imported
    # Loading again updates in place (natural keys) instead of duplicating.
    call_command("loaddata", *[str(FIXTURES_DIR / n) for n in names], verbosity=0)
    assert _snapshot() == imported
