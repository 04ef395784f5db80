"""The frozen views the quizzes app's reads return (``quizzes.selectors``): what the REST
serializers, the web templates, the admin and other apps read of an exam, an attempt, a result
and a certificate."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

from quizzes.eligibility import Eligibility


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
    answer_grace_seconds: int


@dataclass(frozen=True)
class AttemptSummary:
    """One of the learner's attempts in the exam overview."""

    id: int
    number: int
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
    """The module's exam for a learner: policy, eligibility, attempts, final grade."""

    module: str
    title: str
    policy: PolicyView
    eligibility: Eligibility
    attempt_in_progress: int | None
    attempts: list[AttemptSummary]
    final_grade: FinalGrade
    certificate: CertificateLink | None


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """An item of a finalized attempt as a review showing correctness shows it."""

    id: int
    position: int
    selected_keys: list[str]
    is_correct: bool
    score: int


@dataclass(frozen=True, slots=True)
class ReviewItemWithAnswers(ReviewItem):
    """… and as a review showing the correct answers shows it."""

    correct_keys: list[str]
    explanation: str


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
    options: list[Option]
    selected_keys: list[str]


@dataclass(frozen=True)
class AttemptView:
    """An attempt with its items and saved answers; its result once finalized."""

    id: int
    module: str
    number: int
    started_at: datetime.datetime
    deadline_at: datetime.datetime
    seconds_left: int
    finalized: bool
    item_count: int
    answered_count: int
    items: list[AttemptItemView]
    result: ResultView | None


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
    """A learner's final grade in a module: one row of the grades CSV."""

    module: str
    username: str
    name: str
    email: str
    attempts: int
    scores: str
    grading_method: str
    final_grade: Decimal | None
    passed: bool
    last_finalized_at: str
    certificate_issued: bool


@dataclass(frozen=True)
class ItemStatisticsRow:
    """A bank item with how often it was answered, the share correct and its discrimination."""

    id: int
    step: int | None
    kind: str
    origin: str
    is_active: bool
    prompt: str
    answered: int
    correct_share: float | None
    discrimination: float | None
