"""Reads of course content. Each function uses a fixed number of queries, whatever the size."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, Prefetch, Q, QuerySet

from courses.models import Module, Section, Step, StepQuickCheck, TermCard
from lms.content_cache import ShortLivedCache
from lms.errors import NotFound


def module_list() -> QuerySet[Module]:
    return Module.objects.annotate(
        step_count=Count("steps", filter=Q(steps__status=Step.Status.ACTIVE))
    ).order_by("series", "number")


def module_get(*, slug: str) -> Module:
    """The module with its active steps (each with its section kinds and term card): 3 queries."""
    active_steps = (
        Step.objects.filter(status=Step.Status.ACTIVE)
        .select_related("term_card")
        .only("id", "module_id", "slug", "number", "term", "definition", "level", "term_card__id")
        .prefetch_related(
            Prefetch("sections", queryset=Section.objects.only("id", "step_id", "kind", "position"))
        )
        .order_by("number")
    )
    module = (
        Module.objects.filter(slug=slug)
        .prefetch_related(Prefetch("steps", queryset=active_steps, to_attr="active_steps"))
        .first()
    )
    if module is None:
        raise NotFound(f"There is no module '{slug}'.", code="module_not_found")
    return module


def module_id_get(*, slug: str) -> int:
    module_id = Module.objects.filter(slug=slug).values_list("id", flat=True).first()
    if module_id is None:
        raise NotFound(f"There is no module '{slug}'.", code="module_not_found")
    return module_id


# Every step view and every 304 starts with this read, so it is plain SQL: building the same
# ORM query cost about five times more CPU than running it (bench/README.md, step lines).
_STEP_ETAG_SQL = (
    "SELECT s.content_hash, c.content_hash FROM courses_step s "
    "JOIN courses_module m ON m.id = s.module_id "
    "LEFT JOIN courses_termcard c ON c.step_id = s.id "
    "WHERE m.slug = %s AND s.number = %s AND s.status = %s"
)


# What each step's ETag is now, by (module, number): trusted for a second, so step views and
# 304s of anonymous readers need no database at all (lms.content_cache). An import or admin edit
# in this process forgets it at once; other processes serve the change within that second.
STEP_ETAG_MAX_AGE = 1.0
_step_etags = ShortLivedCache(name="step ETags", max_entries=5000, max_age=STEP_ETAG_MAX_AGE)


def step_etag(*, module_slug: str, number: int) -> str | None:
    """The step's ETag (one query at most a second per step), or None when there is no such
    active step."""
    key = (module_slug, number)
    etag = _step_etags.get(key)
    if etag is not None:
        return etag
    with connection.cursor() as cursor:
        cursor.execute(_STEP_ETAG_SQL, [module_slug, number, Step.Status.ACTIVE])
        row = cursor.fetchone()
    if row is None:
        return None
    step_hash, card_hash = row
    etag = f'"{step_hash[:24]}{(card_hash or "")[:8]}"'
    _step_etags.put(key, etag)
    return etag


@dataclass
class StepContent:
    step: Step
    sections: list[Section]
    card: TermCard | None
    card_sections: list[Section]
    quick_check_links: list[StepQuickCheck]
    previous_number: int | None
    next_number: int | None

    @property
    def etag(self) -> str:
        card_hash = self.card.content_hash if self.card else ""
        return f'"{self.step.content_hash[:24]}{card_hash[:8]}"'


def step_get(*, module_slug: str, number: int) -> StepContent:
    """An active step with sections, quick checks and term card: 3 queries."""
    step = (
        Step.objects.select_related("module", "term_card")
        .filter(module__slug=module_slug, number=number, status=Step.Status.ACTIVE)
        .first()
    )
    if step is None:
        raise NotFound(f"Module '{module_slug}' has no step {number}.", code="step_not_found")
    card = getattr(step, "term_card", None)
    owner = Q(step=step) | Q(card=card) if card else Q(step=step)
    sections = list(Section.objects.filter(owner).order_by("position"))
    links = list(
        StepQuickCheck.objects.filter(step=step).select_related("quick_check").order_by("position")
    )
    return StepContent(
        step=step,
        sections=[s for s in sections if s.step_id == step.pk],
        card=card,
        card_sections=[s for s in sections if s.card_id is not None],
        quick_check_links=links,
        previous_number=number - 1 if number > 1 else None,
        next_number=number + 1 if number < step.total else None,
    )


def term_card_list(*, module_slug: str) -> QuerySet[TermCard]:
    return (
        TermCard.objects.filter(module__slug=module_slug, step__status=Step.Status.ACTIVE)
        .select_related("step")
        .prefetch_related(Prefetch("sections", queryset=Section.objects.order_by("position")))
        .order_by("step__number")
    )
