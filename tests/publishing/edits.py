"""The seed module edited as a course admin would: one step's text changed, one removed, one
added (shared by the service, admin and browser tests)."""

from __future__ import annotations

from pathlib import Path

SEED_MODULE = "003_918bc7d482ad82e8.txt"
CHANGED_FROM = (
    "Compute Capability kennzeichnet die von einer NVIDIA-GPU unterstützten "
    "Hardwarefunktionen und Instruktionen. Im Self-Hosting"
)
CHANGED_TO = (
    "Compute Capability kennzeichnet die Hardwarefunktionen einer NVIDIA-GPU. Im Self-Hosting"
)
ADDED_TERM = "GPU-Partitionierung"


def seed_text(seed_dir: Path) -> str:
    return (seed_dir / SEED_MODULE).read_text(encoding="utf-8")


def edited_seed(text: str, *, change: int = 5, remove: int = 3) -> str:
    """Step ``change``'s lead changed, step ``remove`` gone, a new last step: still 32 steps."""
    header = text.split("\n", 1)[0]
    exam_at = text.rindex(f"\n{header}\n")
    body, exam = text[:exam_at], text[exam_at:]
    head, *steps = body.split("\nSchritt ")
    total = len(steps)
    assert CHANGED_FROM in steps[change - 1]
    steps[change - 1] = steps[change - 1].replace(CHANGED_FROM, CHANGED_TO)
    last = steps[-1]
    old_term = last.split("\n")[2]
    added = last.replace(f"\n{old_term}\n", f"\n{ADDED_TERM}\n", 1)
    kept = [b for index, b in enumerate(steps, start=1) if index != remove] + [added]
    renumbered = [
        f"{index} / {total}\n{block.split(chr(10), 1)[1]}"
        for index, block in enumerate(kept, start=1)
    ]
    return "\nSchritt ".join([head, *renumbered]) + exam


def broken_seed(text: str) -> str:
    """Two problems in one module document: a step out of sequence … (the parser stops at the
    first problem of a document)."""
    return text.replace("Schritt 7 / 32", "Schritt 9 / 32")


# A step in the middle that no other step's items draw on (a distractor or a false statement's
# predicate), and one that four other items do (measured on the seed module).
MIDDLE_STEP_ALONE = 13  # VRAM-Fragmentierung
MIDDLE_STEP_DRAWN_ON = 16  # VAE offloading


def without_step(text: str, remove: int) -> str:
    """The module document with step ``remove`` deleted and the steps after it renumbered."""
    header = text.split("\n", 1)[0]
    exam_at = text.rindex(f"\n{header}\n")
    body, exam = text[:exam_at], text[exam_at:]
    head, *steps = body.split("\nSchritt ")
    kept = [block for index, block in enumerate(steps, start=1) if index != remove]
    renumbered = [
        f"{index} / {len(kept)}\n{block.split(chr(10), 1)[1]}"
        for index, block in enumerate(kept, start=1)
    ]
    return "\nSchritt ".join([head, *renumbered]) + exam
