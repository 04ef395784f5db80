"""Frozen views of course data that other apps receive from ``courses.api``."""

from dataclasses import dataclass

from courses import quick_check_roles


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
    # What it is for (courses.quick_check_roles): "flashcard", "definition", "generic",
    # "instruction".
    role: str = quick_check_roles.FLASHCARD

    @property
    def makes_card(self) -> bool:
        """A review card of its own (a flashcard)."""
        return self.role == quick_check_roles.FLASHCARD

    @property
    def is_definition(self) -> bool:
        """It repeats its step's definition: rating it is the definition card's review."""
        return self.role == quick_check_roles.DEFINITION

    @property
    def is_reflection_prompt(self) -> bool:
        """Shown as a reflection prompt: no rating, no card (generic, or an instruction)."""
        return self.role in quick_check_roles.REFLECTION_ROLES


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
    """Course content whose review cards leave the queue: the ids of the steps no longer active
    and of the quick checks that make no card (any more): gone from their module, or no
    flashcard (``QuickCheckData.makes_card``). Few rows; other apps leave them out by id."""

    step_ids: frozenset[int]
    quick_check_ids: frozenset[int]


@dataclass(frozen=True)
class CardFronts:
    """What review cards show on their front: the term of each step and its module's title,
    and the question of each quick check."""

    step_terms: dict[int, str]
    quick_check_questions: dict[int, str]
    step_module_titles: dict[int, str]


@dataclass(frozen=True)
class CardBacks:
    """What review cards show on their back: the definition of each step and the answer of
    each quick check."""

    step_definitions: dict[int, str]
    quick_check_answers: dict[int, str]
