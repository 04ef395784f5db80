"""Simulated learners' real memory, for the FSRS simulation (bench/fsrs_sim.py) and its tests.

Each simulated learner has *true* FSRS-6 parameters; a card's true memory state follows FSRS-6
under them (py-fsrs's arithmetic, unfuzzed: it decides nothing, it only remembers), and each
answer is drawn from the true recall probability at the moment of the review. Lernpfad never
sees the true parameters: it schedules with its own and reads only the ratings.
"""

from __future__ import annotations

import datetime
import math
import random
from dataclasses import dataclass, field

import fsrs
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from reviews.scheduling import DEFAULT_PARAMETERS, recall_probability

# How a learner rates a card they see for the first time, and one they recall (Hard, Good,
# Easy); Anki's simulator uses numbers of this size.
FIRST_RATINGS = ((1, 0.2), (2, 0.1), (3, 0.6), (4, 0.1))
RECALLED_RATINGS = ((2, 0.15), (3, 0.75), (4, 0.1))


@dataclass(frozen=True)
class Population:
    """How a population's true parameters differ from the defaults: each parameter times a
    fixed factor (``shift``) and a learner's own log-normal noise (``spread``)."""

    name: str
    shift: dict[int, float]
    spread: float
    away: bool  # far from the defaults

    def draw(self, rng: random.Random) -> tuple[float, ...]:
        values = []
        for index, default in enumerate(DEFAULT_PARAMETERS):
            value = default * self.shift.get(index, 1.0) * math.exp(rng.gauss(0, self.spread))
            low, high = LOWER_BOUNDS_PARAMETERS[index], UPPER_BOUNDS_PARAMETERS[index]
            values.append(round(min(high, max(low, value)), 4))
        return tuple(values)


POPULATIONS = (
    Population("near the defaults", shift={}, spread=0.05, away=False),
    Population("spread around them", shift={}, spread=0.25, away=False),
    # Forgets fast: first stabilities a third, stability grows less after a recall.
    Population(
        "forgets fast (away)",
        shift={0: 0.3, 1: 0.3, 2: 0.3, 3: 0.4, 8: 0.75},
        spread=0.1,
        away=True,
    ),
    # Remembers well: first stabilities three times, a flatter curve (smaller decay).
    Population(
        "remembers well (away)",
        shift={0: 3.0, 1: 3.0, 2: 2.5, 3: 2.0, 8: 1.15, 20: 0.6},
        spread=0.1,
        away=True,
    ),
)


def _draw(rng: random.Random, table: tuple[tuple[int, float], ...]) -> int:
    point = rng.random()
    for rating, share in table:
        point -= share
        if point < 0:
            return rating
    return table[-1][0]


@dataclass
class TrueMemory:
    """One learner's real memory of their cards."""

    parameters: tuple[float, ...]
    rng: random.Random
    cards: dict[int, fsrs.Card] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._scheduler = fsrs.Scheduler(parameters=self.parameters, enable_fuzzing=False)

    def recall(self, card_id: int, at: datetime.datetime) -> float | None:
        """The true probability of recalling the card now (None: never seen)."""
        card = self.cards.get(card_id)
        if card is None or card.last_review is None:
            return None
        days = (at - card.last_review).total_seconds() / 86_400
        return recall_probability(stability=card.stability, days=days, parameters=self.parameters)

    def answer(self, card_id: int, at: datetime.datetime) -> int:
        """The learner's rating of the card now, and their memory updated by the review."""
        probability = self.recall(card_id, at)
        if probability is None:
            rating = _draw(self.rng, FIRST_RATINGS)
        elif self.rng.random() < probability:
            rating = _draw(self.rng, RECALLED_RATINGS)
        else:
            rating = 1
        card = self.cards.get(card_id) or fsrs.Card(card_id=card_id, due=at)
        self.cards[card_id], _ = self._scheduler.review_card(
            card, fsrs.Rating(rating), review_datetime=at
        )
        return rating
