"""The frozen views ``quizzes.selectors`` returns to serializers, templates and other apps."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal

from quizzes.attempt_rules import CERTIFYING, PRACTICE
from quizzes.eligibility import Eligibility
from quizzes.item_analysis import ExamFigures, ItemFigures

__all__ = ["CERTIFYING", "PRACTICE"]  # the values of every ``mode`` field, for other apps


@dataclass(frozen=True)
class PolicyView:
    items_per_attempt: int
    time_limit_minutes: int
    pass_mark_percent: Decimal
    max_attempts: int
    wait_between_attempts_minutes: int
    grading_method: str
    review_content: str
    review_timing: str
    requires_all_steps_completed: bool
    required_step_share: int
    answer_grace_seconds: int


@dataclass(frozen=True)
class LearnerLimits:
    """The learner's own time limit and maximum attempts: the policy's plus their
    accommodation (extra minutes, extra attempts; 0 without one)."""

    time_limit_minutes: int
    max_attempts: int
    extra_time_minutes: int
    extra_attempts: int


@dataclass(frozen=True)
class AttemptSummary:
    """One of the learner's attempts in the exam overview."""

    id: int
    number: int
    mode: str
    started_at: datetime.datetime
    deadline_at: datetime.datetime
    finalized: bool
    finalized_at: datetime.datetime | None
    score_percent: Decimal | None
    passed: bool | None


@dataclass(frozen=True)
class FinalGrade:
    grading_method: str
    score_percent: Decimal | None
    passed: bool


@dataclass(frozen=True)
class CertificateLink:
    code: str
    url: str


@dataclass(frozen=True)
class ExamOverview:
    """The module's exam for a learner; ``mode`` is what an attempt started now would be."""

    module: str
    title: str
    mode: str
    policy: PolicyView
    limits: LearnerLimits
    eligibility: Eligibility
    attempt_in_progress: int | None
    attempts: list[AttemptSummary]
    final_grade: FinalGrade
    certificate: CertificateLink | None


@dataclass(frozen=True, slots=True)
class Pair:
    """A matching item's option paired with a choice (by their keys)."""

    option: str
    choice: str


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """An item of a finalized attempt as a review showing correctness shows it."""

    id: int
    position: int
    selected_keys: list[str]
    is_correct: bool
    score: int
    # The learner's answer to a typed item (None / [] for the other kinds).
    text: str | None
    number: str | None
    pairs: list[Pair]


@dataclass(frozen=True, slots=True)
class ReviewItemWithAnswers(ReviewItem):
    """… and as a review showing the correct answers shows it."""

    correct_keys: list[str]
    explanation: str
    # Short answer: the accepted answers; numerical: each accepted number or range as text.
    accepted_answers: list[str]
    # Matching: every option with its right choice.
    correct_pairs: list[Pair]
    # The feedback on the answers the learner gave (GIFT "#…"), in the item's text format.
    feedback: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ReviewInfo:
    shows: str
    review_content: str
    review_timing: str


@dataclass(frozen=True)
class ResultView:
    """A finalized attempt's result as the review policy lets the learner see it now; ``items``
    None while the review shows the score only."""

    attempt: int
    mode: str
    score_percent: Decimal
    passed: bool
    correct_count: int
    item_count: int
    reason: str
    finalized_at: datetime.datetime
    review: ReviewInfo
    items: list[ReviewItem] | None
    final_grade: FinalGrade
    certificate: CertificateLink | None


@dataclass(frozen=True)
class Option:
    key: str
    text: str


@dataclass(frozen=True)
class AttemptItemView:
    """An item as the learner answers it: no correct keys, correctness or explanation."""

    id: int
    position: int
    kind: str
    prompt: str
    # "html": prompt and options are sanitised HTML; "plain": text with its line breaks.
    text_format: str
    options: list[Option]
    selected_keys: list[str]
    # The typed kinds (quizzes/answers.py); a matching item is answered once every option is paired.
    choices: list[Option]
    text: str | None
    number: str | None
    pairs: list[Pair]
    answered: bool


@dataclass(frozen=True)
class AttemptView:
    """An attempt with its items and saved answers; its result once finalized."""

    id: int
    module: str
    number: int
    mode: str
    started_at: datetime.datetime
    deadline_at: datetime.datetime
    # The learner's own limit for this attempt (the policy's plus any extra time), in minutes.
    time_limit_minutes: int
    seconds_left: int
    finalized: bool
    item_count: int
    answered_count: int
    items: list[AttemptItemView]
    result: ResultView | None
    # The module's title for breadcrumbs ("" where the caller did not read it).
    module_title: str = ""


@dataclass(frozen=True)
class StepQuickCheck:
    """One of a step's quick checks with the learner's latest self-rating (or none)."""

    id: int
    position: int
    question: str
    answer: str
    # courses.api QuickCheckData.role; a reflection prompt takes no rating.
    role: str
    takes_rating: bool
    rating: str | None
    rated_at: datetime.datetime | None
    times_rated: int


@dataclass(frozen=True)
class CertificateView:
    code: str
    # The public verification page (SITE_URL + path): printed on the certificate, in its QR code.
    url: str
    module: str
    module_title: str
    learner_name: str
    score_percent: Decimal
    issued_at: datetime.datetime
    revoked_at: datetime.datetime | None = None

    @property
    def is_valid(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True)
class CertificatePdf:
    """A certificate as a PDF document and the file name to download it as."""

    filename: str
    content: bytes


@dataclass(frozen=True)
class GradesRow:
    """A learner's final grade in a module: one row of the grades export. ``name`` is the
    full name a certificate states, not the nickname."""

    module: str
    username: str
    name: str
    email: str
    attempts: int
    scores: tuple[Decimal, ...]
    grading_method: str
    final_grade: Decimal | None
    passed: bool
    last_finalized_at: datetime.datetime
    certificate_issued: bool


@dataclass(frozen=True)
class ItemAnalysisRow:
    """A bank item with its figures (quizzes.item_analysis): over every first attempt that drew
    it, over those that drew it as it reads now, and over those that drew an earlier version."""

    id: int
    step: int | None
    kind: str
    origin: str
    status: str
    is_active: bool
    prompt: str
    figures: ItemFigures | None
    current: ItemFigures | None
    earlier: ItemFigures | None


@dataclass(frozen=True)
class ItemAnalysis:
    exam: ExamFigures
    rows: list[ItemAnalysisRow]


@dataclass(frozen=True)
class ExamItemsPlan:
    """What an import would do to a module's exam bank (``quizzes.api.exam_items_plan``): the
    regeneration's counts, the items it would return to review, and the approved bank against
    what a certifying attempt draws."""

    created: int
    updated: int
    retired: int
    restored: int
    returned_to_draft: int
    reviews_restored: int
    returned_items: tuple[dict, ...]
    approved_now: int
    approved_after: int
    items_per_attempt: int

    @property
    def approvals_lost(self) -> int:
        """Approved items the import sends back to review."""
        return sum(1 for item in self.returned_items if item["status"] == "approved")

    @property
    def falls_below(self) -> bool:
        """The approved bank fills an attempt now and would not after the import: new
        attempts would be practice, not certifying."""
        return self.approved_after < self.items_per_attempt <= self.approved_now


@dataclass(frozen=True)
class StudyStep:
    """A step an attempt's questions came from, with what to review of it."""

    id: int
    number: int
    term: str
    # Still an active step: the result page links to it.
    is_active: bool
    asked: int
    # None where the review policy does not reveal which answers were wrong yet.
    missed: int | None
    due_cards: int


@dataclass(frozen=True)
class StudyPlan:
    """What a failed attempt's result page suggests: the steps its questions came from (the
    missed ones first, where the policy reveals them), the due cards of those steps, and when
    the next attempt opens."""

    reveals_missed: bool
    steps: list[StudyStep]
    # Questions of an authored bank that name no step.
    items_without_step: int
    missed_without_step: int | None
    due_cards: int
    attempts_left: int
    next_attempt_at: datetime.datetime | None
    can_start: bool
