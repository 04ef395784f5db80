"""Which items an attempt shows and in which option order, reproducible from a seed: the
draw covers different steps first; true/false options keep their order."""

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
    # A matching item's answers to choose from (0 for every other kind).
    choice_count: int = 0


@dataclass(frozen=True)
class DrawnItem:
    """An item in the attempt, with its options' display order (indexes into its options)
    and, for a matching item, its choices' display order."""

    item_id: int
    option_order: tuple[int, ...]
    choice_order: tuple[int, ...] = ()


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
        choices = list(range(candidate.choice_count))
        rng.shuffle(choices)  # empty for all but matching: draws no random number then
        drawn.append(
            DrawnItem(
                item_id=candidate.item_id, option_order=tuple(order), choice_order=tuple(choices)
            )
        )
    return drawn
