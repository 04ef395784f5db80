"""A re-import of a changed document keeps every progress row and note on the right step.

The seed module is imported, a learner works and writes notes, then a changed copy of the
document is imported: a sentence of step 2 edited, step 10 removed (the later steps move up),
a new step added at the end.
"""

import re
from pathlib import Path

import pytest

from courses.models import Section, Step
from courses.services.importing import course_import
from progress.models import StepNote, StepProgress
from tests.factories import api_client_for

# Completing here needs every section seen (the evidence rule: test_step_complete.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("completion_by_sections_only")]

MODULE = "/api/v1/modules/self-hosting-27/"
STEP_LINE = re.compile(r"^Schritt (\d+) / (\d+)$")
OLD_SENTENCE = "CUDA ist NVIDIAs Programmier- und Laufzeitplattform für allgemeine Berechnungen"
NEW_SENTENCE = "CUDA ist die Programmier- und Laufzeitplattform von NVIDIA für Berechnungen"


def changed_document(source: Path, target: Path) -> None:
    """Step 2's "1. Verstehen" reworded, step 10 removed, a new last step; renumbered."""
    lines = source.read_text(encoding="utf-8").split("\n")
    header = lines[0]
    starts = [i for i, line in enumerate(lines) if STEP_LINE.match(line)]
    exam = next(i for i in range(starts[-1], len(lines)) if lines[i] == header)
    blocks = [lines[a:b] for a, b in zip(starts, [*starts[1:], exam], strict=True)]
    assert len(blocks) == 32

    step2 = blocks[1]
    verstehen = step2.index("1. Verstehen")
    body = next(i for i in range(verstehen + 1, len(step2)) if step2[i])
    assert step2[body].startswith(OLD_SENTENCE)
    step2[body] = step2[body].replace(OLD_SENTENCE, NEW_SENTENCE)

    del blocks[9]  # step 10, "GPU passthrough"

    new_step = list(blocks[0])
    term = next(i for i in range(1, len(new_step)) if new_step[i])
    assert new_step[term] == "GPU compute"
    new_step[term] = "GPU Partitionierung"
    blocks.append(new_step)

    total = len(blocks)
    for number, block in enumerate(blocks, start=1):
        block[0] = f"Schritt {number} / {total}"
    out = lines[: starts[0]] + [line for block in blocks for line in block] + lines[exam:]
    target.write_text("\n".join(out), encoding="utf-8")


def section_kinds(number: int) -> list[str]:
    return list(
        Section.objects.filter(
            step__module__slug="self-hosting-27", step__number=number, step__status="active"
        )
        .order_by("position")
        .values_list("kind", flat=True)
    )


def post(client, number, event, section=""):
    data = {"event": event, **({"section": section} if section else {})}
    response = client.post(MODULE + f"steps/{number}/progress/", data, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def complete(client, number):
    for kind in section_kinds(number):
        post(client, number, "section_viewed", kind)
    assert post(client, number, "completed")["status"] == "completed"


def progress_by_slug(learner) -> dict[str, tuple]:
    return {
        row.step.slug: (row.pk, row.status, tuple(row.sections_viewed), row.completed_at)
        for row in StepProgress.objects.filter(learner=learner).select_related("step")
    }


def notes_by_slug(learner) -> dict[tuple[str, str], tuple]:
    return {
        (note.step.slug, note.prompt): (note.pk, note.text)
        for note in StepNote.objects.filter(learner=learner).select_related("step")
    }


def test_reimport_keeps_progress_and_notes_on_their_steps(
    course, make_learner, seed_paths, tmp_path
):
    learner = make_learner("lena")
    client = api_client_for(learner)
    client.post(MODULE + "enrollment/")
    for number in (1, 2, 3, 10):
        complete(client, number)
    for kind in ("verstehen", "anwenden", "uebung"):
        post(client, 11, "section_viewed", kind)
    notes = {
        2: {"lernauftrag": "CUDA in eigenen Worten."},
        10: {"praxisaufgabe": "Passthrough im Homelab getestet."},
        11: {"lernauftrag": "Notiz zu Schritt 11."},
    }
    for number, data in notes.items():
        assert client.put(MODULE + f"steps/{number}/notes/", data, format="json").status_code == 200
    before = client.get(MODULE + "progress/").json()
    assert before["percent_complete"] == 12 and before["completed_steps"] == 4  # 4 of 32
    slugs_before = {s["number"]: s["slug"] for s in before["steps"]}
    progress_before = progress_by_slug(learner)
    notes_before = notes_by_slug(learner)
    cuda = Step.objects.get(module=course, slug="cuda")

    document = tmp_path / "003_changed.txt"
    module_source = next(p for p in seed_paths if p.name.startswith("003_"))
    changed_document(module_source, document)
    cards = [p for p in seed_paths if not p.name.startswith("003_")]
    report = course_import(paths=[document, *cards])
    assert report.steps_retired == 1 and report.steps_created == 1
    assert report.steps_updated >= 23  # step 2 edited, steps 11-32 renumbered

    # Every row is still there and still on its step (steps are matched by their term).
    assert progress_by_slug(learner) == progress_before
    assert notes_by_slug(learner) == notes_before
    edited = Step.objects.get(pk=cuda.pk)
    assert edited.number == 2 and edited.source_hash != cuda.source_hash
    assert NEW_SENTENCE in edited.sections.get(kind="verstehen").body
    removed = Step.objects.get(module=course, slug=slugs_before[10])
    assert removed.status == "retired"

    after = client.get(MODULE + "progress/").json()
    slugs_after = {s["number"]: s["slug"] for s in after["steps"]}
    assert after["total_steps"] == 32
    # Steps 1-3 completed still count; the retired step 10 no longer does: 3 of 32.
    assert after["completed_steps"] == 3 and after["percent_complete"] == 9
    assert [s["status"] for s in after["steps"][:3]] == ["completed"] * 3
    # The former step 11 is now step 10, with its progress and note.
    assert slugs_after[10] == slugs_before[11]
    assert after["steps"][9]["status"] == "in_progress"
    assert after["steps"][9]["sections_viewed"] == ["verstehen", "anwenden", "uebung"]
    assert client.get(MODULE + "steps/10/notes/").json()["lernauftrag"] == "Notiz zu Schritt 11."
    # The edited step keeps its completion and needs no section again.
    assert after["steps"][1]["slug"] == "cuda" and after["steps"][1]["missing_sections"] == []
    assert client.get(MODULE + "steps/2/notes/").json()["lernauftrag"] == "CUDA in eigenen Worten."
    # The new step is last and untouched; the retired one is not listed.
    assert (after["steps"][31]["term"], after["steps"][31]["status"]) == (
        "GPU Partitionierung",
        "not_started",
    )
    assert slugs_before[10] not in slugs_after.values()
    # The outline of the module detail agrees with the progress endpoint.
    outline = client.get(MODULE).json()
    assert [s["status"] for s in outline["outline"]] == [s["status"] for s in after["steps"]]
    assert outline["progress"]["percent_complete"] == 9
    # Events go to the step now at that number.
    post(client, 10, "section_viewed", "einordnen")
    moved = StepProgress.objects.get(learner=learner, step__slug=slugs_before[11])
    assert moved.sections_viewed[-1] == "einordnen"
    # The new step had no row for this enrollment; its first event creates it.
    assert not StepProgress.objects.filter(learner=learner, step__slug=slugs_after[32]).exists()
    assert post(client, 32, "section_viewed", "verstehen")["status"] == "in_progress"
    assert client.get(MODULE + "progress/").json()["steps"][31]["status"] == "in_progress"
