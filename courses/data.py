"""Frozen views of course data that other apps receive from ``courses.api``."""

from dataclasses import dataclass


@dataclass(frozen=True)
class ModuleData:
    id: int
    slug: str
    title: str
    header: str


@dataclass(frozen=True)
class StepData:
    id: int
    module_id: int
    number: int
    slug: str
    term: str
    definition: str
    level: str
    is_active: bool


@dataclass(frozen=True)
class QuickCheckData:
    id: int
    module_id: int
    question: str
    answer: str


@dataclass(frozen=True)
class OutlineStep:
    """A step as an outline shows it, with its section kinds in document order."""

    id: int
    number: int
    slug: str
    term: str
    is_active: bool
    content_hash: str
    section_kinds: tuple[str, ...]


@dataclass(frozen=True)
class ModuleOutline:
    """A module and all its steps: the active ones in order, then the retired ones."""

    id: int
    slug: str
    title: str
    steps: tuple[OutlineStep, ...]

    @property
    def active_steps(self) -> tuple[OutlineStep, ...]:
        return tuple(step for step in self.steps if step.is_active)

    @property
    def step_ids(self) -> list[int]:
        return [step.id for step in self.steps]


@dataclass(frozen=True)
class RetiredContent:
    """Course content that has left its course: the ids of the steps no longer active and of the
    quick checks no longer in their module (few rows; other apps leave them out by id)."""

    step_ids: frozenset[int]
    quick_check_ids: frozenset[int]


@dataclass(frozen=True)
class CardFronts:
    """The front of review cards: the term of each step and the question of each quick check."""

    step_terms: dict[int, str]
    quick_check_questions: dict[int, str]
