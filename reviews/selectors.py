"""Reads of the reviews app: the due queue with today's limits, card faces, stats, notifications."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import fsrs
from django.conf import settings
from django.db.models import Count, F, IntegerField, Q, QuerySet, Value
from django.db.models.functions import TruncDate
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import api as accounts_api
from courses import api as courses_api
from courses.data import CardBacks, RetiredContent
from lms.errors import Gone, NotFound
from lms.local_time import local_day, local_day_of, zone_info
from reviews import sql
from reviews.data import DayReviews, ModuleReviewStats
from reviews.fitting import MIN_REVIEWS_FOR_FIT, LoggedReview
from reviews.fronts import card_front
from reviews.models import (
    CalendarFeed,
    ExamDate,
    LearnerParameters,
    ModuleExamPlan,
    ModuleParameters,
    Notification,
    ParameterFit,
    ReviewCard,
    ReviewLog,
)
from reviews.scheduling import (
    DEFAULT_PARAMETERS,
    CardState,
    IntervalPreview,
    Parameters,
    exam_forecast,
    exam_start,
    intervals_preview,
)

if TYPE_CHECKING:
    from accounts.models import User


class Learner(Protocol):
    """What the reads need of a learner: an accounts User (a request's) or the
    accounts.data.ReviewPreferences another process reads through accounts.api."""

    id: int
    time_zone: str
    desired_retention: float
    new_cards_per_day: int
    reviews_per_day: int


DUE_PAGE_DEFAULT = 10
DUE_PAGE_MAX = 50
# With the backs (an offline session): a whole day's default limits in one page.
DUE_PAGE_OFFLINE_MAX = 500
HEATMAP_DAYS = 90


def live_cards_q(retired: RetiredContent) -> Q:
    """The live-card rule: not suspended, and its step or quick check not retired."""
    return Q(suspended=False) & ~(
        Q(kind=ReviewCard.Kind.DEFINITION, step_id__in=retired.step_ids)
        | Q(kind=ReviewCard.Kind.QUICK_CHECK, quick_check_id__in=retired.quick_check_ids)
    )


def live_cards(*, learner_id: int) -> QuerySet[ReviewCard]:
    """The learner's cards that can be reviewed (suspended and retired content left out)."""
    return ReviewCard.objects.filter(
        live_cards_q(courses_api.retired_content()), learner_id=learner_id
    )


@dataclass(frozen=True)
class DailyBudget:
    """How much of today's limits is left (by the learner's local day)."""

    new_cards_per_day: int
    reviews_per_day: int
    reviewed_today: int
    new_today: int

    @property
    def reviews_left(self) -> int:
        return max(0, self.reviews_per_day - self.reviewed_today)

    @property
    def new_left(self) -> int:
        return max(0, min(self.new_cards_per_day - self.new_today, self.reviews_left))

    def split(self, *, due: int, due_new: int) -> tuple[int, int]:
        """(reviews, new cards) the learner may do now of ``due`` due cards, ``due_new`` of
        them new: seen cards first, new ones only within what is left."""
        review_count = min(due - due_new, self.reviews_left)
        return review_count, min(due_new, self.new_left, self.reviews_left - review_count)


def daily_budget(*, learner: Learner, at: datetime.datetime) -> DailyBudget:
    """Today's review counts against the learner's limits (one query)."""
    day = local_day(time_zone=learner.time_zone, at=at)
    counts = ReviewLog.objects.filter(
        learner_id=learner.id,
        source=ReviewLog.Source.REVIEW,
        reviewed_at__gte=day.start,
        reviewed_at__lt=day.end,
    ).aggregate(
        reviewed=Count("id"),
        new=Count("id", filter=Q(before_last_review__isnull=True)),
    )
    return DailyBudget(
        new_cards_per_day=learner.new_cards_per_day,
        reviews_per_day=learner.reviews_per_day,
        reviewed_today=counts["reviewed"],
        new_today=counts["new"],
    )


@dataclass(frozen=True)
class DueCard:
    id: int
    kind: str
    # Names the step's term (reviews.fronts), with the module's title beside it.
    front: str
    term: str
    module_title: str
    state: int
    is_new: bool
    due: datetime.datetime
    intervals: list[IntervalPreview]
    # The back (definition or answer) when the queue was asked for it (an offline session).
    back: str | None = None
    # A card of the steps the queue was asked to show first (``due_queue(first_step_ids=…)``).
    is_first: bool = False


@dataclass(frozen=True)
class DueQueue:
    """``due_count``: reviewable now within today's limits; ``due_total``: every live card due
    now; ``due_later_today``: live cards due later, before local midnight."""

    due_count: int
    new_count: int
    review_count: int
    due_total: int
    due_later_today: int
    budget: DailyBudget
    cards: list[DueCard]


def _due_read(
    *,
    learner: Learner,
    at: datetime.datetime,
    limit: int,
    retired: RetiredContent,
    first_step_ids: Iterable[int] = (),
) -> tuple[DueQueue, list[sql.DueQueueCard]]:
    """The due queue's counts for the learner's local day with today's budget split of what is
    due (no cards), and the next ``limit`` due cards (those of ``first_step_ids`` first): the
    due queue's one statement."""
    day = local_day(time_zone=learner.time_zone, at=at)
    page = sql.due_queue_read(
        learner_id=learner.id,
        at=at,
        day_start=day.start,
        day_end=day.end,
        limit=limit,
        retired=retired,
        first_step_ids=first_step_ids,
    )
    budget = DailyBudget(
        new_cards_per_day=learner.new_cards_per_day,
        reviews_per_day=learner.reviews_per_day,
        reviewed_today=page.reviewed_today,
        new_today=page.new_today,
    )
    review_count, new_count = budget.split(due=page.due_total, due_new=page.due_new)
    summary = DueQueue(
        due_count=review_count + new_count,
        new_count=new_count,
        review_count=review_count,
        due_total=page.due_total,
        due_later_today=page.due_later_today,
        budget=budget,
        cards=[],
    )
    return summary, page.cards


def due_queue(
    *,
    learner: Learner,
    at: datetime.datetime,
    limit: int = DUE_PAGE_DEFAULT,
    include_back: bool = False,
    first_step_ids: Iterable[int] = (),
) -> DueQueue:
    """The due counts and the next ``limit`` cards with each rating's interval (and their backs
    when ``include_back``): seen cards first, then new ones up to today's new-card budget.

    With ``first_step_ids`` (the steps a failed exam attempt names) their due cards come first,
    seen before new; the counts stay the whole queue's. Should today's new-card budget hold back
    every card of those steps the page read, the page is read again without them.
    """
    limit = max(1, min(limit, DUE_PAGE_OFFLINE_MAX if include_back else DUE_PAGE_MAX))
    first_step_ids = frozenset(first_step_ids)
    retired = courses_api.retired_content()
    summary, page = _due_read(
        learner=learner, at=at, limit=limit, retired=retired, first_step_ids=first_step_ids
    )
    shown = _within_budget(page, limit=limit, summary=summary)
    if first_step_ids and not shown and summary.due_count:
        summary, page = _due_read(learner=learner, at=at, limit=limit, retired=retired)
        shown = _within_budget(page, limit=limit, summary=summary)
    fronts = courses_api.card_fronts(
        step_ids=[card.step_id for card in shown],
        quick_check_ids=[card.quick_check_id for card in shown if card.quick_check_id],
        generation=retired.generation,
    )
    backs = (
        courses_api.card_backs(
            step_ids=[card.step_id for card in shown if card.kind == ReviewCard.Kind.DEFINITION],
            quick_check_ids=[card.quick_check_id for card in shown if card.quick_check_id],
            generation=retired.generation,
        )
        if include_back
        else None
    )
    cards = [
        DueCard(
            id=card.id,
            kind=card.kind,
            front=card_front(
                kind=card.kind,
                term=fronts.step_terms[card.step_id],
                question=fronts.quick_check_questions.get(card.quick_check_id),
            ),
            term=fronts.step_terms[card.step_id],
            module_title=fronts.step_module_titles[card.step_id],
            state=card.state.state,
            is_new=card.state.is_new,
            due=card.state.due,
            intervals=intervals_preview(
                state=card.state,
                at=at,
                desired_retention=learner.desired_retention,
                parameters=card.parameters,
                exam_at=exam_start(exam_on=card.exam_on, time_zone=learner.time_zone),
            ),
            back=_card_back(card, backs) if backs is not None else None,
            is_first=card.step_id in first_step_ids,
        )
        for card in shown
    ]
    return dataclasses.replace(summary, cards=cards)


def _within_budget(
    page: list[sql.DueQueueCard], *, limit: int, summary: DueQueue
) -> list[sql.DueQueueCard]:
    """The page's cards that today's budget lets through: new cards only while the new-card
    budget lasts. Seen cards sort before new ones (within the first steps and after them), so
    cutting new cards never hides a seen one of the same part."""
    new_allowed = summary.new_count
    shown = []
    for card in page[: min(limit, summary.due_count)]:
        if card.state.is_new:
            if new_allowed == 0:
                continue
            new_allowed -= 1
        shown.append(card)
    return shown


def _card_back(card: sql.DueQueueCard, backs: CardBacks) -> str:
    if card.kind == ReviewCard.Kind.DEFINITION:
        return backs.step_definitions.get(card.step_id, "")
    return backs.quick_check_answers.get(card.quick_check_id, "")


def due_summary(*, learner: Learner, at: datetime.datetime) -> DueQueue:
    """``due_queue``'s counts without cards (the dashboard and statistics page)."""
    return _due_read(learner=learner, at=at, limit=0, retired=courses_api.retired_content())[0]


def due_count(*, learner: Learner, at: datetime.datetime) -> int:
    """What a reminder announces and the dashboard shows: cards reviewable now within today's
    limits (``due_summary``)."""
    return due_summary(learner=learner, at=at).due_count


@dataclass(frozen=True)
class CardFaces:
    id: int
    kind: str
    front: str
    back: str
    term: str
    module_title: str
    step_id: int
    module_id: int
    step_number: int
    state: int
    due: datetime.datetime
    last_review: datetime.datetime | None
    suspended: bool


def card_faces(*, learner_id: int, card_id: int) -> CardFaces:
    """Front and back of one of the learner's cards (another learner's card is a 404)."""
    row = (
        ReviewCard.objects.filter(id=card_id, learner_id=learner_id)
        .values(
            "id",
            "kind",
            "step_id",
            "step__module_id",
            "step__module__title",
            "step__number",
            "step__term",
            "step__definition",
            "quick_check__question",
            "quick_check__answer",
            "state",
            "due",
            "last_review",
            "suspended",
        )
        .first()
    )
    if row is None:
        raise NotFound(_("You have no review card with this id."), code="card_not_found")
    is_definition = row["kind"] == ReviewCard.Kind.DEFINITION
    return CardFaces(
        id=row["id"],
        kind=row["kind"],
        front=card_front(
            kind=row["kind"], term=row["step__term"], question=row["quick_check__question"]
        ),
        back=row["step__definition"] if is_definition else row["quick_check__answer"],
        term=row["step__term"],
        module_title=row["step__module__title"],
        step_id=row["step_id"],
        module_id=row["step__module_id"],
        step_number=row["step__number"],
        state=row["state"],
        due=row["due"],
        last_review=row["last_review"],
        suspended=row["suspended"],
    )


@dataclass(frozen=True)
class DayCount:
    date: datetime.date
    count: int


@dataclass(frozen=True)
class ReviewStats:
    due_today: int
    reviewed_today: int
    streak_days: int
    reviews_total: int
    recalled_total: int
    recall_share: float | None
    per_day: list[DayCount]


def review_stats(
    *, learner: Learner, at: datetime.datetime, due_today: int | None = None
) -> ReviewStats:
    """Due today, reviewed today, the streak, a 90-day heatmap and the recall share; a caller
    that read the due queue passes ``due_today`` and saves a query."""
    today = local_day(time_zone=learner.time_zone, at=at)
    if due_today is None:
        due_today = live_cards(learner_id=learner.id).filter(due__lt=today.end).count()
    by_day: dict[datetime.date, int] = {}
    reviews_total = recalled_total = 0
    per_local_day = (
        ReviewLog.objects.filter(
            learner_id=learner.id, source=ReviewLog.Source.REVIEW, reviewed_at__lt=today.end
        )
        .annotate(day=TruncDate("reviewed_at", tzinfo=zone_info(learner.time_zone)))
        .values("day")
        .annotate(count=Count("id"), recalled=Count("id", filter=Q(rating__gt=AGAIN)))
        .order_by()
    )
    for row in per_local_day:
        by_day[row["day"]] = row["count"]
        reviews_total += row["count"]
        recalled_total += row["recalled"]

    # A streak still counts while today has no review yet: it breaks only when a day passes.
    one_day = datetime.timedelta(days=1)
    day = today.date if today.date in by_day else today.date - one_day
    streak = 0
    while day in by_day:
        streak += 1
        day -= one_day

    first = today.date - datetime.timedelta(days=HEATMAP_DAYS - 1)
    per_day = [
        DayCount(date=d, count=by_day.get(d, 0))
        for d in (first + datetime.timedelta(days=i) for i in range(HEATMAP_DAYS))
    ]
    return ReviewStats(
        due_today=due_today,
        reviewed_today=by_day.get(today.date, 0),
        streak_days=streak,
        reviews_total=reviews_total,
        recalled_total=recalled_total,
        recall_share=round(recalled_total / reviews_total, 4) if reviews_total else None,
        per_day=per_day,
    )


FORECAST_DAYS = 30
# Anki's line between young and mature cards: an interval of 21 days or more.
MATURE_INTERVAL = datetime.timedelta(days=21)
# FSRS's "Again" (the learner did not recall the card); every higher rating is a recall.
AGAIN = 1


@dataclass(frozen=True)
class ReviewForecast:
    """Anki's "Future Due": the cards due on each of the learner's next 30 local days (today
    first; what is overdue counts on today, ``overdue`` says how many of today's that is)."""

    days: list[DayCount]
    overdue: int

    @property
    def total(self) -> int:
        return sum(day.count for day in self.days)

    @property
    def peak(self) -> int:
        return max((day.count for day in self.days), default=0)


def review_forecast(*, learner: Learner, at: datetime.datetime) -> ReviewForecast:
    """Seen cards due per local day for the next FORECAST_DAYS days (as Anki, no daily limit)."""
    today = local_day(time_zone=learner.time_zone, at=at)
    last = local_day_of(
        time_zone=learner.time_zone,
        date=today.date + datetime.timedelta(days=FORECAST_DAYS - 1),
    )
    per_local_day = (
        live_cards(learner_id=learner.id)
        .filter(last_review__isnull=False, due__lt=last.end)
        .annotate(day=TruncDate("due", tzinfo=zone_info(learner.time_zone)))
        .values("day")
        .annotate(count=Count("id"))
        .order_by()
    )
    by_day, overdue = {}, 0
    for row in per_local_day:
        # What is overdue counts on today.
        day = max(row["day"], today.date)
        by_day[day] = by_day.get(day, 0) + row["count"]
        if row["day"] < today.date:
            overdue += row["count"]
    return ReviewForecast(
        days=[
            DayCount(date=date, count=by_day.get(date, 0))
            for date in (today.date + datetime.timedelta(days=i) for i in range(FORECAST_DAYS))
        ],
        overdue=overdue,
    )


@dataclass(frozen=True)
class RetentionCount:
    passed: int
    failed: int

    @property
    def reviews(self) -> int:
        return self.passed + self.failed

    @property
    def retention(self) -> float | None:
        """The share recalled (rated Hard, Good or Easy), None without reviews."""
        return round(self.passed / self.reviews, 4) if self.reviews else None


@dataclass(frozen=True)
class RetentionPeriod:
    period: str  # today, yesterday, week, month, year, all
    young: RetentionCount
    mature: RetentionCount

    @property
    def total(self) -> RetentionCount:
        return RetentionCount(
            passed=self.young.passed + self.mature.passed,
            failed=self.young.failed + self.mature.failed,
        )


# Anki's "True Retention" periods, as the local days they go back (None: all time).
RETENTION_PERIODS: tuple[tuple[str, int | None], ...] = (
    ("today", 0),
    ("yesterday", 1),
    ("week", 6),
    ("month", 29),
    ("year", 364),
    ("all", None),
)


def true_retention(*, learner: Learner, at: datetime.datetime) -> list[RetentionPeriod]:
    """Anki's "True Retention" per period of local days, for young and mature review-state cards."""
    today = local_day(time_zone=learner.time_zone, at=at)
    mature = Q(before_due__gte=F("before_last_review") + MATURE_INTERVAL)
    ages = {"young": ~mature, "mature": mature}
    outcomes = {"passed": Q(rating__gt=AGAIN), "failed": Q(rating__lte=AGAIN)}
    counts = {}
    for period, days_back in RETENTION_PERIODS:
        in_period = Q(reviewed_at__lt=today.start if period == "yesterday" else today.end)
        if days_back is not None:
            start = today.date - datetime.timedelta(days=days_back)
            in_period &= Q(
                reviewed_at__gte=local_day_of(time_zone=learner.time_zone, date=start).start
            )
        for age, age_q in ages.items():
            for outcome, outcome_q in outcomes.items():
                counts[f"{period}_{age}_{outcome}"] = Count(
                    "id", filter=in_period & age_q & outcome_q
                )
    row = ReviewLog.objects.filter(
        learner_id=learner.id,
        source=ReviewLog.Source.REVIEW,
        before_state=fsrs.State.Review.value,
        before_last_review__isnull=False,
    ).aggregate(**counts)
    return [
        RetentionPeriod(
            period=period,
            **{
                age: RetentionCount(
                    passed=row[f"{period}_{age}_passed"], failed=row[f"{period}_{age}_failed"]
                )
                for age in ages
            },
        )
        for period, _days_back in RETENTION_PERIODS
    ]


@dataclass(frozen=True)
class UpcomingExam:
    date: datetime.date
    module_title: str
    # The calendar event links the module's exam page.
    module_slug: str = ""


def learner_exam_date(
    *, learner_id: int, today: datetime.date | None = None
) -> UpcomingExam | None:
    """The learner's next exam date (today or later): their own, else the module's plan."""
    today = today or datetime.datetime.now(datetime.UTC).date()
    own = dict(ExamDate.objects.filter(learner_id=learner_id).values_list("module_id", "exam_on"))
    planned = ModuleExamPlan.objects.filter(
        module__review_cards__learner_id=learner_id, exam_on__gte=today
    ).exclude(module_id__in=list(own))
    dates = {module_id: day for module_id, day in own.items() if day >= today}
    dates.update(dict(planned.values_list("module_id", "exam_on").distinct()))
    if not dates:
        return None
    module_id = min(dates, key=lambda key: (dates[key], key))
    module = courses_api.modules_by_ids([module_id])[module_id]
    return UpcomingExam(date=dates[module_id], module_title=module.title, module_slug=module.slug)


def calendar_feed_get(*, learner: User) -> CalendarFeed | None:
    """The learner's live private calendar address, if any (one query): not revoked, and made
    under the account's current credentials epoch (a password set or "log out everywhere" voids
    it as it ends every token)."""
    return CalendarFeed.objects.filter(
        learner_id=learner.pk,
        revoked_at__isnull=True,
        credentials_epoch=accounts_api.credentials_epoch(learner),
    ).first()


def calendar_feed_url(feed: CalendarFeed) -> str:
    """The address, absolute (for calendar apps). No query."""
    return settings.SITE_URL + reverse("calendar-feed", kwargs={"token": feed.token})


def calendar_feed_by_token(*, token: str) -> CalendarFeed:
    """The feed of a private address with its learner (one query): NotFound for an unknown
    address or a deactivated account, Gone (410) for a revoked one or one voided by a password
    set or "log out everywhere"."""
    feed = CalendarFeed.objects.select_related("learner").filter(token=token).first()
    if feed is None or not feed.learner.is_active:
        raise NotFound(_("There is no calendar with this address."), code="calendar_feed_not_found")
    voided = feed.credentials_epoch != accounts_api.credentials_epoch(feed.learner)
    if feed.revoked_at is not None or voided:
        raise Gone(_("This calendar address was revoked."), code="calendar_feed_revoked")
    return feed


def notification_list(*, learner_id: int, unread_only: bool = False) -> QuerySet[Notification]:
    """The learner's notifications, newest first."""
    notifications = Notification.objects.filter(learner_id=learner_id)
    if unread_only:
        notifications = notifications.filter(read_at__isnull=True)
    return notifications.order_by("-created_at", "-id")


def module_review_stats(
    *, module_id: int, now: datetime.datetime, days: int, time_zone: datetime.tzinfo
) -> ModuleReviewStats:
    """Reviews per day and true retention over the last ``days`` days (days in ``time_zone``),
    and the live cards due now, of one module's cards: 2 queries (plus courses' retired ids)."""
    first_day = timezone.localtime(now, time_zone).date() - datetime.timedelta(days=days - 1)
    logs = ReviewLog.objects.filter(
        card__step__module_id=module_id,
        source=ReviewLog.Source.REVIEW,
        reviewed_at__gte=datetime.datetime.combine(first_day, datetime.time(), time_zone),
    )
    recalled = Q(rating__gt=AGAIN)
    per_day = {
        row["day"]: row
        for row in logs.annotate(day=TruncDate("reviewed_at", tzinfo=time_zone))
        .order_by()
        .values("day")
        .annotate(
            n=Count("id"),
            recalled=Count("id", filter=recalled),
            mature=Count("id", filter=Q(before_state=ReviewCard.State.REVIEW)),
            mature_recalled=Count("id", filter=Q(before_state=ReviewCard.State.REVIEW) & recalled),
        )
    }
    series = []
    for offset in range(days):
        day = first_day + datetime.timedelta(days=offset)
        row = per_day.get(day)
        series.append(
            DayReviews(
                day=day, reviews=row["n"] if row else 0, recalled=row["recalled"] if row else 0
            )
        )
    mature = sum(row["mature"] for row in per_day.values())
    mature_recalled = sum(row["mature_recalled"] for row in per_day.values())
    due_now = (
        ReviewCard.objects.filter(
            live_cards_q(courses_api.retired_content()), step__module_id=module_id, due__lte=now
        )
        .order_by()
        .count()
    )
    return ModuleReviewStats(
        days=tuple(series),
        reviews=sum(day.reviews for day in series),
        retention=mature_recalled / mature if mature else None,
        due_now=due_now,
    )


# --- FSRS parameters --------------------------------------------------------------------------


def learner_reviews(learner_id: int) -> list[LoggedReview]:
    """The learner's whole review log as the optimizer reads it (one query)."""
    rows = ReviewLog.objects.filter(learner_id=learner_id).values_list(
        "card_id", "rating", "reviewed_at"
    )
    return [LoggedReview(card_id, rating, at) for card_id, rating, at in rows]


def parameters_in_use(learner_id: int) -> tuple[Parameters, str]:
    """The parameters the learner is scheduled with and their source: own, module or default."""
    own = LearnerParameters.objects.filter(learner_id=learner_id).first()
    if own is not None:
        return tuple(own.parameters), "own"
    pooled = module_parameters_of_learner(learner_id)
    if pooled is not None:
        return pooled, "module"
    return DEFAULT_PARAMETERS, "default"


def module_parameters_of_learner(learner_id: int) -> Parameters | None:
    """The pooled parameters of the module with most of the learner's cards, if it has adopted
    some (one query): a newcomer's start, and what a learner's own fit is drawn toward."""
    pooled = (
        ModuleParameters.objects.filter(module__review_cards__learner_id=learner_id)
        .annotate(cards=Count("module__review_cards"))
        .order_by("-cards")
        .first()
    )
    return None if pooled is None else tuple(pooled.parameters)


@dataclass(frozen=True)
class ParametersOverview:
    """What the settings page shows of a learner's FSRS parameters."""

    source: str  # "own", "module", "default"
    parameters: Parameters
    version: int | None
    # The reviews the parameters in use were fitted to (own parameters only).
    fitted_to_reviews: int | None
    # The learner's latest fit, adopted or not.
    fitted_at: datetime.datetime | None
    fit_review_count: int | None
    log_loss: float | None
    log_loss_before: float | None
    adopted: bool | None
    review_count: int
    min_reviews: int

    @property
    def can_fit(self) -> bool:
        return self.review_count >= self.min_reviews


def parameters_overview(*, learner_id: int) -> ParametersOverview:
    """The parameters in use, the last fit and the size of the log (four queries)."""
    parameters, source = parameters_in_use(learner_id)
    own = (
        LearnerParameters.objects.filter(learner_id=learner_id)
        .values("version", "fit__review_count")
        .first()
    )
    fit = ParameterFit.objects.filter(learner_id=learner_id).order_by("-fitted_at", "-id").first()
    return ParametersOverview(
        source=source,
        parameters=parameters,
        version=own["version"] if own else None,
        fitted_to_reviews=own["fit__review_count"] if own else None,
        fitted_at=fit.fitted_at if fit else None,
        fit_review_count=fit.review_count if fit else None,
        log_loss=fit.log_loss if fit else None,
        log_loss_before=fit.log_loss_before if fit else None,
        adopted=fit.adopted if fit else None,
        review_count=ReviewLog.objects.filter(learner_id=learner_id).count(),
        min_reviews=MIN_REVIEWS_FOR_FIT,
    )


# --- readiness for an exam date ---------------------------------------------------------------


@dataclass(frozen=True)
class StepReadiness:
    number: int
    term: str
    cards: int
    recall: float  # the mean predicted recall of its cards at the exam; 0 without cards


@dataclass(frozen=True)
class ExamReadiness:
    """The predicted recall on the exam day if the learner reviews what comes due."""

    module_id: int
    exam_on: datetime.date
    set_by: str  # "learner" or "module"
    days_left: int
    target: float  # the learner's desired retention
    steps: list[StepReadiness]
    recall: float  # the module's: the mean over its steps
    reviews: int  # the reviews the schedule needs until the exam
    max_days_ahead: int

    @property
    def score_percent(self) -> int:
        """The exam score the recall implies: the share of the module's terms recalled."""
        return round(100 * self.recall)

    @property
    def reviews_per_day(self) -> float:
        return self.reviews / max(1, self.days_left)

    @property
    def steps_below_target(self) -> int:
        return sum(1 for step in self.steps if step.recall < self.target)


def exam_date_for(*, learner_id: int, module_id: int) -> tuple[datetime.date | None, str, int]:
    """The exam date for the learner's cards of the module (their own, else the module's), who
    set it, and how far ahead one may be set."""
    own = ExamDate.objects.filter(learner_id=learner_id, module_id=module_id).values_list(
        "exam_on", Value(None, output_field=IntegerField())
    )
    plan = ModuleExamPlan.objects.filter(module_id=module_id).values_list(
        "exam_on", "max_days_ahead"
    )
    own_on, plan_on, max_days_ahead = None, None, 365
    # The learner's row has no max_days_ahead; the plan's always has one.
    for exam_on, days_ahead in own.union(plan, all=True):
        if days_ahead is None:
            own_on = exam_on
        else:
            plan_on, max_days_ahead = exam_on, days_ahead
    if own_on is not None:
        return own_on, "learner", max_days_ahead
    if plan_on is not None:
        return plan_on, "module", max_days_ahead
    return None, "", max_days_ahead


def exam_readiness(
    *,
    learner: Learner,
    module_id: int,
    at: datetime.datetime,
    exam_date: tuple[datetime.date | None, str, int] | None = None,
) -> ExamReadiness | None:
    """The learner's readiness for the module's exam date (None without a date, or once begun)."""
    if exam_date is None:
        exam_date = exam_date_for(learner_id=learner.id, module_id=module_id)
    exam_on, set_by, max_days_ahead = exam_date
    exam_at = exam_start(exam_on=exam_on, time_zone=learner.time_zone)
    if exam_at is None or exam_at <= at:
        return None
    own = LearnerParameters.objects.filter(learner_id=learner.id).values("parameters").first()
    pooled = ModuleParameters.objects.filter(module_id=module_id).values("parameters").first()
    parameters = tuple(
        (own and own["parameters"]) or (pooled and pooled["parameters"]) or DEFAULT_PARAMETERS
    )
    by_step: dict[int, list[float]] = {}
    reviews = 0
    for card in live_cards(learner_id=learner.id).filter(module_id=module_id):
        forecast = exam_forecast(
            state=CardState.from_columns(card),
            at=at,
            exam_at=exam_at,
            parameters=parameters,
            desired_retention=learner.desired_retention,
        )
        by_step.setdefault(card.step_id, []).append(forecast.recall)
        reviews += forecast.reviews
    steps = [
        StepReadiness(
            number=step.number,
            term=step.term,
            cards=len(by_step.get(step.id, [])),
            recall=sum(by_step.get(step.id, [])) / len(by_step[step.id])
            if by_step.get(step.id)
            else 0.0,
        )
        for step in courses_api.module_steps(module_id)
    ]
    recall = sum(step.recall for step in steps) / len(steps) if steps else 0.0
    today = local_day(time_zone=learner.time_zone, at=at).date
    return ExamReadiness(
        module_id=module_id,
        exam_on=exam_on,
        set_by=set_by,
        days_left=(exam_on - today).days,
        target=learner.desired_retention,
        steps=steps,
        recall=recall,
        reviews=reviews,
        max_days_ahead=max_days_ahead,
    )


def due_cards_by_step(
    *, learner_id: int, step_ids: Iterable[int], at: datetime.datetime
) -> dict[int, int]:
    """Per step, how many of the learner's live cards are due at ``at`` (steps without due
    cards are left out): one query plus courses' retired ids."""
    ids = list(step_ids)
    if not ids:
        return {}
    return dict(
        live_cards(learner_id=learner_id)
        .filter(step_id__in=ids, due__lte=at)
        .values("step_id")
        .annotate(due=Count("id"))
        .values_list("step_id", "due")
    )
