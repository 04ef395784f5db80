"""import_course: the seed course imports, re-imports write nothing, changes update in place."""

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from courses.models import Module, QuickCheck, Section, Step, StepQuickCheck, TermCard
from courses.services.importing import course_import

pytestmark = pytest.mark.django_db

WRITE_PREFIXES = ("INSERT", "UPDATE", "DELETE")


def _writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITE_PREFIXES)]


def test_seed_course_imports_completely(course):
    assert course.header == "Self-Hosting 27: GPU, CUDA und Inferenzoptimierung"
    assert (course.series, course.number, course.title) == (
        "Self-Hosting",
        27,
        "GPU, CUDA und Inferenzoptimierung",
    )
    assert course.steps.filter(status=Step.Status.ACTIVE).count() == 32
    assert course.exam_heading == "Abschlussprüfung"
    assert course.exam_block_count == 10
    step = course.steps.get(number=1)
    assert step.term == "GPU compute"
    assert step.level == "S4"
    assert step.definition.startswith("GPU Compute nutzt viele parallele Recheneinheiten")
    assert str(step.as_of) == "2026-09-21"
    assert (step.source_count, step.source_status) == (3, "source_backed")
    kinds = list(step.sections.values_list("kind", flat=True))
    assert kinds == [
        "verstehen",
        "anwenden",
        "uebung",
        "einordnen",
        "vertiefen",
        "pruefen",
        "zusammenfassung",
        "praxisaufgabe",
        "lernauftrag",
    ]
    assert step.sections.get(kind="uebung").commands == ["nvidia-smi", "nvidia-smi"]
    assert step.sections.get(kind="zusammenfassung").is_truncated
    assert not step.sections.get(kind="verstehen").is_truncated


def test_quick_checks_are_stored_once_per_module(course):
    # Every step shows 6 lines; 5 of them are the same in all 32 steps, one is the definition.
    assert StepQuickCheck.objects.filter(step__module=course).count() == 32 * 6
    assert QuickCheck.objects.filter(module=course).count() == 32 + 5
    generic = QuickCheck.objects.get(module=course, question="Wann brichst du ab?")
    assert generic.links.count() == 32


def test_term_cards_attach_to_their_steps(course):
    cards = {card.term: card.step.number for card in TermCard.objects.select_related("step")}
    assert cards == {
        "CUDA out of memory": 12,
        "Memory-efficient attention": 18,
        "Mixed precision": 21,
    }
    card = TermCard.objects.get(term="CUDA out of memory")
    assert card.command == "nvidia-smi"
    assert list(card.sections.values_list("kind", flat=True)) == [
        "orientierung",
        "praktische_anwendung",
        "technisches_verstaendnis",
        "betrieb_debugging",
        "uebung",
        "quick_check",
    ]


def test_reimport_of_unchanged_documents_writes_nothing(course, seed_paths):
    with CaptureQueriesContext(connection) as ctx:
        report = course_import(paths=seed_paths)
    assert _writes(ctx.captured_queries) == []
    assert report.rows_written == 0
    assert report.steps_unchanged == 32


def _edited_module(tmp_path: Path, seed_paths, edit) -> Path:
    source = next(p for p in seed_paths if p.name.startswith("003_"))
    target = tmp_path / source.name
    target.write_text(edit(source.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def test_changed_sentence_updates_only_that_step_in_place(course, seed_paths, tmp_path):
    step = course.steps.get(number=5)
    other = course.steps.get(number=6)
    old_hash, other_hash = step.content_hash, other.content_hash
    changed = _edited_module(
        tmp_path,
        seed_paths,
        lambda text: text.replace(
            "Compute Capability kennzeichnet die von einer NVIDIA-GPU unterstützten "
            "Hardwarefunktionen und Instruktionen. Im Self-Hosting",
            "Compute Capability kennzeichnet die Hardwarefunktionen einer NVIDIA-GPU. "
            "Im Self-Hosting",
        ),
    )
    cards = [p for p in seed_paths if not p.name.startswith("003_")]
    report = course_import(paths=[changed, *cards])
    assert (report.steps_updated, report.steps_unchanged) == (1, 31)
    step.refresh_from_db()
    other.refresh_from_db()
    assert step.pk == course.steps.get(number=5).pk
    assert step.content_hash != old_hash
    assert other.content_hash == other_hash
    assert "die Hardwarefunktionen einer NVIDIA-GPU" in step.sections.get(kind="verstehen").body


def _drop_step(text: str, number: int, total: int) -> str:
    """Remove step `number` and renumber the rest (total becomes total-1)."""
    blocks = text.split("\nSchritt ")
    head, steps = blocks[0], blocks[1:]
    kept = [b for b in steps if not b.startswith(f"{number} / ")]
    renumbered = []
    for index, block in enumerate(kept, start=1):
        rest = block.split("\n", 1)[1]
        renumbered.append(f"{index} / {total - 1}\n{rest}")
    return "\nSchritt ".join([head, *renumbered])


def test_removed_step_is_retired_and_numbers_shift(course, seed_paths, tmp_path):
    removed = course.steps.get(number=3)
    changed = _edited_module(tmp_path, seed_paths, lambda t: _drop_step(t, 3, 32))
    cards = [p for p in seed_paths if not p.name.startswith("003_")]
    report = course_import(paths=[changed, *cards])
    assert report.steps_retired == 1
    removed.refresh_from_db()
    assert removed.status == Step.Status.RETIRED and removed.retired_at is not None
    active = course.steps.filter(status=Step.Status.ACTIVE).order_by("number")
    assert active.count() == 31
    assert list(active.values_list("number", flat=True)) == list(range(1, 32))
    assert active.get(number=3).term == "CUDA driver"
    # Putting it back revives the same row.
    course_import(paths=seed_paths)
    removed.refresh_from_db()
    assert removed.status == Step.Status.ACTIVE and removed.number == 3


def test_broken_document_imports_nothing(db, seed_paths, tmp_path):
    broken = _edited_module(
        tmp_path, seed_paths, lambda t: t.replace("Schritt 7 / 32", "Schritt 9 / 32")
    )
    with pytest.raises(CommandError) as excinfo:
        call_command("import_course", str(broken))
    message = str(excinfo.value)
    assert f"{broken}:" in message
    assert ":393:" in message  # the line of the out-of-sequence step
    assert Module.objects.count() == Step.objects.count() == Section.objects.count() == 0


def test_card_without_its_module_fails_and_imports_nothing(db, seed_paths):
    card = next(p for p in seed_paths if p.name.startswith("000_"))
    with pytest.raises(CommandError, match=r"000_.*:2: no module titled"):
        call_command("import_course", str(card))
    assert TermCard.objects.count() == 0


def test_a_failing_card_rolls_back_the_module_too(db, seed_paths, tmp_path):
    card = tmp_path / "card.txt"
    card.write_text(
        "Lernbegriff\nUnbekannter Begriff — GPU, CUDA und Inferenzoptimierung\n"
        "Ein Begriff, den das Modul nicht kennt.\nOrientierung\nText.\n",
        encoding="utf-8",
    )
    module_doc = next(p for p in seed_paths if p.name.startswith("003_"))
    with pytest.raises(CommandError, match=r"card\.txt:2: module 'self-hosting-27' has no step"):
        call_command("import_course", str(module_doc), str(card))
    assert Module.objects.count() == 0
