"""Which items an attempt shows, and in which option order: plain Python, reproducible from a seed.

The draw prefers items of different steps, so ten items cover ten steps before any step is asked
twice. True/false options keep their order (Richtig, Falsch); choice options are shuffled.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

TRUE_FALSE = "true_false"


@dataclass(frozen=True)
class DrawCandidate:
    """An active item of the bank, as far as the draw needs it."""

    item_id: int
    step_id: int | None
    kind: str
    option_count: int


@dataclass(frozen=True)
class DrawnItem:
    """An item in the attempt, with its options' display order (indexes into its options)."""

    item_id: int
    option_order: tuple[int, ...]


def attempt_draw(*, candidates: Sequence[DrawCandidate], count: int, seed: int) -> list[DrawnItem]:
    """Draw up to ``count`` items; the same candidates and seed always give the same attempt."""
    rng = random.Random(seed)
    pool = sorted(candidates, key=lambda candidate: candidate.item_id)
    rng.shuffle(pool)
    chosen: list[DrawCandidate] = []
    seen_steps: set[int] = set()
    for candidate in pool:
        if len(chosen) == count:
            break
        # Hand-written items without a step count as a step of their own.
        if candidate.step_id is not None and candidate.step_id in seen_steps:
            continue
        chosen.append(candidate)
        if candidate.step_id is not None:
            seen_steps.add(candidate.step_id)
    if len(chosen) < count:
        taken = {candidate.item_id for candidate in chosen}
        chosen.extend(c for c in pool if c.item_id not in taken)
        chosen = chosen[:count]
    drawn = []
    for candidate in chosen:
        order = list(range(candidate.option_count))
        if candidate.kind != TRUE_FALSE:
            rng.shuffle(order)
        drawn.append(DrawnItem(item_id=candidate.item_id, option_order=tuple(order)))
    return drawn
