"""Course documents -> Django fixtures (JSON, natural keys, stable order): pure Python, and
byte-identical from unchanged documents, so a test can tell stale fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from courses.content_plan import CoursePlan, ModuleRow, TermCardRow
from courses.documents import DocumentError


def fixture_files(plan: CoursePlan) -> dict[str, str]:
    """File name -> fixture text, one file per document."""
    files: dict[str, str] = {}
    modules_by_title = {m.title: m for m in plan.modules}
    for module in plan.modules:
        files[f"module-{module.slug}.json"] = _dump(_module_objects(module))
    for card in plan.cards:
        module = modules_by_title.get(card.module_title)
        if module is None:
            raise DocumentError(
                card.path, 2, f"no module titled {card.module_title!r} among the documents"
            )
        if not any(step.slug == card.slug for step in module.steps):
            raise DocumentError(
                card.path, 2, f"module {module.slug!r} has no step with the term {card.term!r}"
            )
        files[f"termcard-{module.slug}-{card.slug}.json"] = _dump(_card_objects(module, card))
    return files


def fixture_files_write(plan: CoursePlan, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in fixture_files(plan).items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _dump(objects: list[dict[str, Any]]) -> str:
    return json.dumps(objects, ensure_ascii=False, indent=2) + "\n"


def _module_objects(module: ModuleRow) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [{"model": "courses.module", "fields": module.fields()}]
    module_key = [module.slug]
    roles = module.quick_check_roles()
    seen_checks: set[str] = set()
    for step in module.steps:
        for qc in step.quick_checks:
            if qc.text_hash in seen_checks:
                continue
            seen_checks.add(qc.text_hash)
            objects.append(
                {
                    "model": "courses.quickcheck",
                    "fields": {
                        "module": module_key,
                        "question": qc.question,
                        "answer": qc.answer,
                        "text_hash": qc.text_hash,
                        "is_active": True,
                        "role": roles[qc.text_hash],
                    },
                }
            )
    for step in module.steps:
        step_key = [module.slug, step.slug]
        objects.append(
            {
                "model": "courses.step",
                "fields": {
                    "module": module_key,
                    **step.fields(),
                    "status": "active",
                    "retired_at": None,
                },
            }
        )
        objects += [
            {
                "model": "courses.section",
                "fields": {"step": step_key, "card": None, **section.fields()},
            }
            for section in step.sections
        ]
        objects += [
            {
                "model": "courses.stepquickcheck",
                "fields": {
                    "step": step_key,
                    "quick_check": [module.slug, qc.text_hash],
                    "position": position,
                },
            }
            for position, qc in enumerate(step.quick_checks, start=1)
        ]
    return objects


def _card_objects(module: ModuleRow, card: TermCardRow) -> list[dict[str, Any]]:
    card_key = [module.slug, card.slug]
    objects: list[dict[str, Any]] = [
        {
            "model": "courses.termcard",
            "fields": {"module": [module.slug], "step": card_key, **card.fields()},
        }
    ]
    objects += [
        {"model": "courses.section", "fields": {"step": None, "card": card_key, **s.fields()}}
        for s in card.sections
    ]
    return objects
