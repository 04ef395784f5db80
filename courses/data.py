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
