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
    role: str = quick_check_roles.FLASHCARD

    @property
    def makes_card(self) -> bool:
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
    """The ids of retired steps and of quick checks that make no card: their review cards leave
    the queue."""

    step_ids: frozenset[int]
    quick_check_ids: frozenset[int]
    # The content generation they were read under, which the card faces read with them take.
    generation: str


@dataclass(frozen=True)
class CardFronts:
    """What review cards show on their front."""

    step_terms: dict[int, str]
    quick_check_questions: dict[int, str]
    step_module_titles: dict[int, str]


@dataclass(frozen=True)
class CardBacks:
    """What review cards show on their back."""

    step_definitions: dict[int, str]
    quick_check_answers: dict[int, str]
