"""Reads of course content. Each function uses a fixed number of queries, whatever the size."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import (
    Count,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Length

from courses.data import ModuleOutline, OutlineStep
from courses.models import (
    STEP_ACTIVE,
    Module,
    Section,
    Step,
    StepQuickCheck,
    TermCard,
    active_step_q,
)
from courses.sql import step_hashes
from lms.content_cache import ShortLivedCache
from lms.errors import ModuleNotFound, StepNotFound


def module_list() -> QuerySet[Module]:
    return Module.objects.annotate(
        step_count=Count("steps", filter=active_step_q("steps__"))
    ).order_by("series", "number")


def module_get(*, slug: str) -> Module:
    """The module with its active steps (each with its section kinds, term card and the
    characters of its sections' text, ``body_chars``, for a reading time): 3 queries."""
    body_chars = (
        Section.objects.filter(step_id=OuterRef("pk"))
        .order_by()
        .values("step_id")
        .annotate(n=Sum(Length("body")))
        .values("n")
    )
    active_steps = (
        Step.objects.active()
        .select_related("term_card")
        .only("id", "module_id", "slug", "number", "term", "definition", "level", "term_card__id")
        .annotate(body_chars=Coalesce(Subquery(body_chars), Value(0), output_field=IntegerField()))
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
        raise ModuleNotFound(slug)
    return module


def module_id_get(*, slug: str) -> int:
    module_id = Module.objects.filter(slug=slug).values_list("id", flat=True).first()
    if module_id is None:
        raise ModuleNotFound(slug)
    return module_id


# How long a process trusts what it read of the course content without asking again: every
# ShortLivedCache of courses (step ETags, module outlines, retired content, card fronts). An import
# or admin edit in this process forgets them at once; other processes serve a change within it
# (README, "Scaling out").
CONTENT_MAX_AGE = 1.0

# What each step's ETag is now, by (module, number), so step views and 304s of anonymous readers
# need no database at all (lms.content_cache).
_step_etags = ShortLivedCache(name="step ETags", max_entries=5000, max_age=CONTENT_MAX_AGE)


def step_etag(*, module_slug: str, number: int) -> str | None:
    """The step's ETag (one query at most a second per step), or None when there is no such
    active step."""
    key = (module_slug, number)
    etag = _step_etags.get(key)
    if etag is not None:
        return etag
    hashes = step_hashes(module_slug=module_slug, number=number)
    if hashes is None:
        return None
    etag = f'"{hashes.step_hash[:24]}{(hashes.card_hash or "")[:8]}"'
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
        .filter(active_step_q(), module__slug=module_slug, number=number)
        .first()
    )
    if step is None:
        raise StepNotFound(module_slug, number)
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
        TermCard.objects.filter(active_step_q("step__"), module__slug=module_slug)
        .select_related("step")
        .prefetch_related(Prefetch("sections", queryset=Section.objects.order_by("position")))
        .order_by("step__number")
    )


# Module outlines by slug, trusted for CONTENT_MAX_AGE like the step ETags: the progress page
# reads one on every request, so a warm one costs no query.
_module_outlines = ShortLivedCache(name="module outlines", max_entries=500, max_age=CONTENT_MAX_AGE)


def module_outline_get(*, slug: str) -> ModuleOutline:
    """The module with all its steps (active first, in order) and their section kinds: one
    query (module LEFT JOIN steps LEFT JOIN sections), none while the copy is trusted."""
    outline = _module_outlines.get(slug)
    if outline is not None:
        return outline
    # Active steps first ("active" sorts before "retired"), each in number order.
    rows = list(
        Module.objects.filter(slug=slug)
        .order_by("steps__status", "steps__number", "steps__id", "steps__sections__position")
        .values(
            "id",
            "title",
            step_id=F("steps__id"),
            step_number=F("steps__number"),
            step_slug=F("steps__slug"),
            step_term=F("steps__term"),
            step_status=F("steps__status"),
            step_hash=F("steps__content_hash"),
            kind=F("steps__sections__kind"),
        )
    )
    if not rows:
        raise ModuleNotFound(slug)
    steps: dict[int, dict] = {}
    kinds: dict[int, list[str]] = {}
    for row in rows:
        if row["step_id"] is None:
            continue
        if row["step_id"] not in steps:
            steps[row["step_id"]] = row
            kinds[row["step_id"]] = []
        if row["kind"] is not None:
            kinds[row["step_id"]].append(row["kind"])
    outline = ModuleOutline(
        id=rows[0]["id"],
        slug=slug,
        title=rows[0]["title"],
        steps=tuple(
            OutlineStep(
                id=step_id,
                number=row["step_number"],
                slug=row["step_slug"],
                term=row["step_term"],
                is_active=row["step_status"] == STEP_ACTIVE,
                content_hash=row["step_hash"],
                section_kinds=tuple(kinds[step_id]),
            )
            for step_id, row in steps.items()
        ),
    )
    _module_outlines.put(slug, outline)
    return outline
