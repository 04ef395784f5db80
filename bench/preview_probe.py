"""The import preview's time (``python -m bench.probes preview``): what the admin's preview page
computes (``publishing.preview.import_preview``: parse, plan, compare with the database, count
the learners affected, plan the exam items), on the full data set (10,000 learners with progress
on the seed module).

- the four seed documents, the module edited as in the browser test (one step's text changed,
  one removed, one added, 28 renumbered), previewed against the stored seed course;
- a generated 150-step module: new (every step added), then, stored inside a transaction that is
  rolled back, again with every step changed (a diff per step).
Median of 5 each, every round cold (the exam generator's text caches cleared), read only
(the 150-step module's import is rolled back).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from django.conf import settings
from django.db import transaction

ROUNDS = 5


def generated_module(steps: int, *, level: str = "B2") -> str:
    """A module document of ``steps`` steps in the seed format (every section, six checks)."""
    title = "Generiertes Modul"
    out = [f"Benchmark {steps}: {title}", ""]
    for index in range(1, steps + 1):
        term = f"Begriff {index}"
        out += [
            f"Schritt {index} / {steps}",
            term,
            f"{term} ist der {index}. Baustein des Moduls {title}. Die Karte zeigt den Weg.",
            level,
            "1. Verstehen",
            f"{term} verstehen heißt, Zweck und Grenzen von Baustein {index} zu kennen.",
            "2. Anwenden",
            f"Setze {term} in einer Testumgebung ein.",
            "Übung",
            f"Prüfe {term} mit folgendem Befehl:",
            "ip addr show",
            "Notiere die Ausgabe.",
            "3. Technisch einordnen",
            f"{term} hängt von Konfiguration und Zustand ab.",
            "4. Vertiefen",
            f"Vergleiche {term} mit dem vorigen Baustein.",
            "5. Prüfen",
            f"Was ist {term}? Der {index}. Baustein des Moduls.",
            "Wie prüfst du es? Mit ip addr show.",
            "Wann brichst du ab? Wenn Daten verloren gehen könnten.",
            "Zusammenfassung",
            f"{term} ist der {index}. Baustein.",
            "Optionale Praxisaufgabe",
            f"Erkläre {term} in drei Sätzen.",
            "Lernauftrag für diesen Schritt",
            "Formuliere die Kerndefinition in einem eigenen Satz.",
            "Stand: 2026-01-31 2 Quellen reviewed",
        ]
    return "\n\n".join(out) + "\n"


def _timed(documents) -> tuple[float, object]:
    from publishing.preview import import_preview
    from quizzes import generator

    text_caches = [f for f in vars(generator).values() if hasattr(f, "cache_clear")]
    times, preview = [], None
    for _ in range(ROUNDS):
        for cached in text_caches:  # every round cold, as the first view of a new upload
            cached.cache_clear()
        started = time.perf_counter()
        _plan, preview = import_preview(documents=documents)
        times.append(time.perf_counter() - started)
    return statistics.median(times), preview


class _Rollback(Exception):
    pass


def run() -> dict:
    from courses import api as courses_api
    from tests.publishing.edits import SEED_MODULE, edited_seed

    seeds = sorted(Path(settings.LERNPFAD_DOCUMENTS_DIR).glob("*.txt"))
    four = [
        (
            p.name,
            edited_seed(p.read_text("utf-8")).encode() if p.name == SEED_MODULE else p.read_bytes(),
        )
        for p in seeds
    ]
    from progress.models import StepProgress

    learners = (
        StepProgress.objects.filter(step__module__slug="self-hosting-27")
        .values("learner_id")
        .distinct()
        .count()
    )
    seed_seconds, seed_preview = _timed(four)
    seed_counts = seed_preview.content.modules[0].counts

    new_doc = [("benchmark-150.txt", generated_module(150).encode())]
    new_seconds, _preview = _timed(new_doc)
    changed_seconds = None
    try:
        with transaction.atomic():
            courses_api.plan_apply(plan=courses_api.documents_plan(new_doc))
            changed_seconds, changed_preview = _timed(
                [("benchmark-150.txt", generated_module(150, level="B1").encode())]
            )
            changed_counts = changed_preview.content.modules[0].counts
            raise _Rollback
    except _Rollback:
        pass
    return {
        "rows": [
            {
                "what": "preview of the four seed documents (module edited: "
                + ", ".join(f"{k} {v}" for k, v in seed_counts.items())
                + f"), {learners:,} learners with progress on the module",
                "measured": f"{seed_seconds:.3f} s",
                "target": "< 1 s",
                "passed": seed_seconds < 1.0,
            },
            {
                "what": "preview of a generated 150-step module, new (150 added)",
                "measured": f"{new_seconds:.3f} s",
                "target": "< 2 s",
                "passed": new_seconds < 2.0,
            },
            {
                "what": "preview of the 150-step module with every step changed ("
                + ", ".join(f"{k} {v}" for k, v in changed_counts.items())
                + ")",
                "measured": f"{changed_seconds:.3f} s",
                "target": "< 2 s",
                "passed": changed_seconds < 2.0,
            },
        ],
        "note": "Timed in-process around publishing.preview.import_preview (what the admin's "
        "preview page computes: parsing, the plan, the comparison with the database, the "
        "learners affected, the exam items), Django start-up and template rendering not "
        f"included. Median of {ROUNDS}, each cold (the generator's text caches cleared); the "
        "150-step module is stored in a rolled-back transaction for the changed case.",
    }
