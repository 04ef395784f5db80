"""Reads of course content, each in a fixed number of queries whatever the size."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from django.contrib.postgres.expressions import ArraySubquery
from django.core.cache import cache
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

from courses import quick_check_roles
from courses.data import ModuleOutline, OutlineStep
from courses.models import (
    STEP_ACTIVE,
    Module,
    ModuleContentVersion,
    QuickCheck,
    Section,
    Step,
    StepQuickCheck,
    TermCard,
    active_step_q,
)
from courses.repetition import RepetitionReport, StepText, repetition_report
from courses.sql import step_hashes
from lms.errors import ModuleNotFound, StepNotFound

_T = TypeVar("_T")


def module_list() -> QuerySet[Module]:
    return Module.objects.annotate(
        step_count=Count("steps", filter=active_step_q("steps__"))
    ).order_by("series", "number")


def module_catalog() -> list[Module]:
    """The modules with their active step counts, in catalogue order."""
    return list(module_list())


def module_content_version(module_slug: str) -> str:
    """The module's content version, renewed by every write of its content: one query."""
    version = (
        Module.objects.filter(slug=module_slug).values_list("content_version", flat=True).first()
    )
    if version is None:
        raise ModuleNotFound(module_slug)
    return version.hex


# A version's content never changes: the timeout only bounds the memory old versions hold.
CONTENT_CACHE_SECONDS = 24 * 3600


def _cached(module_slug: str, part: str, read: Callable[[], _T]) -> _T:
    """``read()`` through Django's cache, keyed by the module's content version (one query more),
    so a publish on any host is seen by all at once."""
    key = f"courses:{module_slug}:{module_content_version(module_slug)}:{part}"
    return cache.get_or_set(key, read, CONTENT_CACHE_SECONDS)


def content_generation() -> str:
    """Every module's content version at once (one query): the key part of what is cached
    across modules, such as the retired content and the faces of review cards."""
    versions = Module.objects.order_by("pk").values_list("content_version", flat=True)
    return hashlib.sha256(b"".join(version.bytes for version in versions)).hexdigest()[:32]


def module_get(*, slug: str) -> Module:
    """The module with its ``active_steps``, each with its term card, ``section_kinds`` and
    ``body_chars`` (for a reading time), through the cache; new instances on every call."""
    return _cached(slug, "module", lambda: _module_read(slug=slug))


def section_kinds(step: str = "pk") -> ArraySubquery:
    """The kinds of a step's sections in document order, as an annotation of a query whose
    ``step`` field is the step's id."""
    return ArraySubquery(
        Section.objects.filter(step_id=OuterRef(step)).order_by("position").values("kind")
    )


def body_chars(step: str = "pk") -> Coalesce:
    """The characters of a step's section bodies (for its reading time), as an annotation of a
    query whose ``step`` field is the step's id."""
    total = (
        Section.objects.filter(step_id=OuterRef(step))
        .order_by()
        .values("step_id")
        .annotate(n=Sum(Length("body")))
        .values("n")
    )
    return Coalesce(Subquery(total), Value(0), output_field=IntegerField())


def rated_quick_check_ids(step: str = "pk") -> ArraySubquery:
    """The ids of the quick checks a step shows for rating (not its reflection prompts), in its
    order, as an annotation of a query whose ``step`` field is the step's id."""
    return ArraySubquery(
        QuickCheck.objects.filter(links__step_id=OuterRef(step))
        .exclude(role__in=quick_check_roles.REFLECTION_ROLES)
        .order_by("links__position")
        .values("id")
    )


def _module_read(*, slug: str) -> Module:
    active_steps = (
        Step.objects.active()
        .select_related("term_card")
        .annotate(
            body_chars=body_chars(),
            section_kinds=section_kinds(),
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


def step_version(step_hash: str, card_hash: str | None) -> str:
    """A step's content version (its ETag, and ``content_hash`` in outline and bundle)."""
    return f"{step_hash[:24]}{(card_hash or '')[:8]}"


def step_etag(*, module_slug: str, number: int) -> str | None:
    """The step's ETag (one query), or None when there is no such active step."""
    hashes = step_hashes(module_slug=module_slug, number=number)
    if hashes is None:
        return None
    return f'"{step_version(hashes["step_hash"], hashes["card_hash"])}"'


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
        card_hash = self.card.content_hash if self.card else None
        return f'"{step_version(self.step.content_hash, card_hash)}"'


def step_get(*, module_slug: str, number: int) -> StepContent:
    """An active step with its module, sections, quick checks and term card, through the cache
    (3 queries on a miss); new instances on every call."""
    try:
        return _cached(module_slug, f"step:{number}", lambda: _step_read(module_slug, number))
    except ModuleNotFound:
        raise StepNotFound(module_slug, number) from None


def _step_read(module_slug: str, number: int) -> StepContent:
    step = (
        Step.objects.select_related("module", "term_card")
        .filter(active_step_q(), module__slug=module_slug, number=number)
        .first()
    )
    if step is None:
        raise StepNotFound(module_slug, number)
    return _step_contents([step])[0]


def _step_contents(steps: list[Step]) -> list[StepContent]:
    """The content of each of ``steps`` (with their module and term card): 2 queries."""
    step_ids = [step.pk for step in steps]
    card_ids = [step.term_card.pk for step in steps if getattr(step, "term_card", None)]
    sections_of: dict[tuple[str, int], list[Section]] = {}
    for section in Section.objects.filter(
        Q(step_id__in=step_ids) | Q(card_id__in=card_ids)
    ).order_by("position"):
        owner = ("step", section.step_id) if section.step_id else ("card", section.card_id)
        sections_of.setdefault(owner, []).append(section)
    links_of: dict[int, list[StepQuickCheck]] = {}
    for link in (
        StepQuickCheck.objects.filter(step_id__in=step_ids)
        .select_related("quick_check")
        .order_by("position")
    ):
        links_of.setdefault(link.step_id, []).append(link)
    contents = []
    for step in steps:
        number = step.number
        card = getattr(step, "term_card", None)
        contents.append(
            StepContent(
                step=step,
                sections=sections_of.get(("step", step.pk), []),
                card=card,
                card_sections=sections_of.get(("card", card.pk), []) if card else [],
                quick_check_links=links_of.get(step.pk, []),
                previous_number=number - 1 if number > 1 else None,
                next_number=number + 1 if number < step.total else None,
            )
        )
    return contents


def section_anchor(section: Section) -> str:
    """The id of a section on the learner's step page (its outline links to it)."""
    return f"section-{section.kind}-{section.position}"


def _preview_blocks(sections: list[Section]) -> list[dict]:
    blocks = []
    for section in sections:
        commands = set(section.commands or [])
        items = [{"text": line, "command": line in commands} for line in section.lines if line]
        blocks.append(
            {"section": section, "items": items, "note": "", "anchor": section_anchor(section)}
        )
    return blocks


def step_prompts(quick_check_links) -> tuple[list[dict], list[dict]]:
    """A step's rated quick checks and its reflection prompts (lines that recur in most steps,
    instructions: shown apart, without a rating, making no review card), as the step page shows
    them. A prompt the step already asks as a rated quick check ("Was ist der Zweck?") is shown
    once."""
    quick_checks = [
        {
            "id": link.quick_check.id,
            "question": link.quick_check.question,
            "answer": link.quick_check.answer,
            "rating": None,
        }
        for link in quick_check_links
        if not link.quick_check.is_reflection_prompt
    ]
    asked = {quick_check["question"].strip().casefold() for quick_check in quick_checks}
    reflection_prompts = [
        {"question": link.quick_check.question, "answer": link.quick_check.answer}
        for link in quick_check_links
        if link.quick_check.is_reflection_prompt
        and link.quick_check.question.strip().casefold() not in asked
    ]
    return quick_checks, reflection_prompts


def step_preview_context(*, step_id: int) -> dict | None:
    """The context of the learner's ``web/courses/step.html`` for any step (retired ones too)
    and no enrolled reader, as ``web.views.learning.step_detail`` builds it: 3 queries."""
    step = Step.objects.select_related("module", "term_card").filter(pk=step_id).first()
    if step is None:
        return None
    content = _step_contents([step])[0]
    quick_checks, reflection_prompts = step_prompts(content.quick_check_links)
    return {
        "module": step.module,
        "step": step,
        "blocks": _preview_blocks(content.sections),
        "quick_checks": quick_checks,
        "reflection_prompts": reflection_prompts,
        "card": content.card,
        "card_blocks": _preview_blocks(content.card_sections),
        "previous_number": content.previous_number,
        "next_number": content.next_number,
        "learner": None,
    }


def term_card_list(*, module_slug: str) -> QuerySet[TermCard]:
    return (
        TermCard.objects.filter(active_step_q("step__"), module__slug=module_slug)
        .select_related("step")
        .prefetch_related(Prefetch("sections", queryset=Section.objects.order_by("position")))
        .order_by("step__number")
    )


def module_public_text(module_slug: str) -> list[tuple[str, str]]:
    """(step term, text) of all an anonymous visitor reads of the module's active steps: the
    definition, the lead, section headings and bodies, quick-check questions and answers;
    through the content cache (3 queries on a miss)."""

    def read() -> list[tuple[str, str]]:
        steps = dict(
            Step.objects.filter(active_step_q(), module__slug=module_slug)
            .order_by("number")
            .values_list("pk", "term")
        )
        texts = [
            (term, text)
            for term, definition, lead in Step.objects.filter(pk__in=steps)
            .order_by("number")
            .values_list("term", "definition", "lead")
            for text in (definition, lead)
        ]
        for step_id, heading, body in (
            Section.objects.filter(step_id__in=steps)
            .order_by("step__number", "position")
            .values_list("step_id", "heading", "body")
        ):
            texts += [(steps[step_id], heading), (steps[step_id], body)]
        for step_id, question, answer in (
            StepQuickCheck.objects.filter(step_id__in=steps)
            .order_by("step__number", "position")
            .values_list("step_id", "quick_check__question", "quick_check__answer")
        ):
            texts += [(steps[step_id], question), (steps[step_id], answer)]
        return texts

    return _cached(module_slug, "public-text", read)


def module_outline_get(*, slug: str) -> ModuleOutline:
    """The module with all its steps (active first) and their section kinds, through the cache
    (one query on a miss)."""
    return _cached(slug, "outline", lambda: _module_outline_read(slug))


def _module_outline_read(slug: str) -> ModuleOutline:
    # Active steps first ("active" sorts before "retired"), each in number order.
    rows = list(
        Module.objects.filter(slug=slug)
        .order_by("steps__status", "steps__number", "steps__id")
        .values(
            "id",
            "title",
            step_id=F("steps__id"),
            step_number=F("steps__number"),
            step_slug=F("steps__slug"),
            step_term=F("steps__term"),
            step_status=F("steps__status"),
            step_hash=F("steps__content_hash"),
            kinds=section_kinds("steps__id"),
        )
    )
    if not rows:
        raise ModuleNotFound(slug)
    return ModuleOutline(
        id=rows[0]["id"],
        slug=slug,
        title=rows[0]["title"],
        steps=tuple(
            OutlineStep(
                id=row["step_id"],
                number=row["step_number"],
                slug=row["step_slug"],
                term=row["step_term"],
                is_active=row["step_status"] == STEP_ACTIVE,
                content_hash=row["step_hash"],
                section_kinds=tuple(row["kinds"]),
            )
            for row in rows
            if row["step_id"] is not None
        ),
    )


@dataclass(frozen=True)
class ModuleManifest:
    """The version of a module's own fields and of each active step, term card and quick check
    it shows; ``version`` hashes all of it (the bundle's ETag)."""

    module_id: int
    slug: str
    version: str
    # {"module": v, "steps": {slug: v}, "term_cards": {slug: v}, "quick_checks": {"id": v}}
    items: dict


def _hash(payload: object) -> str:
    return hashlib.sha256(
        json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str).encode()
    ).hexdigest()


def module_manifest_get(*, slug: str) -> ModuleManifest:
    """The module's content manifest, through the cache (3 queries on a miss)."""
    return _cached(slug, "manifest", lambda: _module_manifest_read(slug))


def _module_manifest_read(slug: str) -> ModuleManifest:
    module = (
        Module.objects.filter(slug=slug)
        .values("id", "series", "number", "title", "header", "exam_heading", "exam_block_count")
        .first()
    )
    if module is None:
        raise ModuleNotFound(slug)
    steps = (
        Step.objects.active()
        .filter(module_id=module["id"])
        .order_by("number")
        .values_list("slug", "content_hash", "number", "term_card__slug", "term_card__content_hash")
    )
    items: dict = {"module": _hash(module)[:24], "steps": {}, "term_cards": {}, "quick_checks": {}}
    for step_slug, step_hash, number, card_slug, card_hash in steps:
        items["steps"][step_slug] = step_version(step_hash, card_hash)
        if card_slug is not None:
            # The card shows its step's number, which its own hash does not cover.
            items["term_cards"][card_slug] = f"{card_hash[:24]}:{number}"
    quick_checks = (
        StepQuickCheck.objects.filter(active_step_q("step__"), step__module_id=module["id"])
        .order_by("quick_check_id", "step__number")
        .values_list(
            "quick_check_id", "quick_check__text_hash", "quick_check__role", "step__number"
        )
    )
    shown: dict[int, list] = {}
    for quick_check_id, text_hash, role, number in quick_checks:
        shown.setdefault(quick_check_id, [text_hash[:16], role]).append(number)
    items["quick_checks"] = {str(pk): _hash(value)[:16] for pk, value in shown.items()}
    return ModuleManifest(module_id=module["id"], slug=slug, version=_hash(items)[:24], items=items)


def module_manifest_find(*, module_id: int, version: str) -> ModuleManifest | None:
    """An earlier recorded manifest of the module, or None: one query."""
    row = (
        ModuleContentVersion.objects.filter(module_id=module_id, version=version)
        .values_list("manifest", flat=True)
        .first()
    )
    if row is None:
        return None
    return ModuleManifest(module_id=module_id, slug="", version=version, items=row)


@dataclass(frozen=True)
class BundleQuickCheck:
    id: int
    question: str
    answer: str
    role: str
    step_numbers: tuple[int, ...]

    @property
    def takes_rating(self) -> bool:
        return self.role not in quick_check_roles.REFLECTION_ROLES


@dataclass(frozen=True)
class ModuleBundle:
    """A module for offline use: everything, or with ``since`` only what changed since that
    version (``removed``: the keys of what is gone)."""

    module: Module
    version: str
    since: str | None
    outline: list[Step]
    steps: list[StepContent]
    term_cards: list[TermCard]
    quick_checks: list[BundleQuickCheck]
    removed: dict[str, list]

    @property
    def delta(self) -> bool:
        return self.since is not None


def _changed(now: dict, before: dict | None) -> set:
    if before is None:
        return set(now)
    return {key for key, value in now.items() if before.get(key) != value}


def module_bundle_get(*, manifest: ModuleManifest, since: ModuleManifest | None) -> ModuleBundle:
    """The module's bundle for ``manifest`` (all, or what changed since ``since``): 4 queries."""
    module = Module.objects.get(pk=manifest.module_id)
    steps = list(
        Step.objects.active().filter(module=module).select_related("term_card").order_by("number")
    )
    for step in steps:
        step.module = module
    contents = _step_contents(steps)
    before = since.items if since else None
    now = manifest.items
    changed_steps = _changed(now["steps"], before and before["steps"])
    changed_cards = _changed(now["term_cards"], before and before["term_cards"])
    changed_checks = _changed(now["quick_checks"], before and before["quick_checks"])
    term_cards = []
    shown: dict[int, BundleQuickCheck] = {}
    for content in contents:
        step, card = content.step, content.card
        step.section_kinds = tuple(section.kind for section in content.sections)
        if card is not None and card.slug in changed_cards:
            card.module = module
            # TermCardSerializer reads the card's sections through card.sections.all().
            card._prefetched_objects_cache = {"sections": content.card_sections}
            term_cards.append(card)
        for link in content.quick_check_links:
            check = link.quick_check
            if str(check.pk) not in changed_checks:
                continue
            entry = shown.get(check.pk)
            numbers = (*entry.step_numbers, step.number) if entry else (step.number,)
            shown[check.pk] = BundleQuickCheck(
                id=check.pk,
                question=check.question,
                answer=check.answer,
                role=check.role,
                step_numbers=numbers,
            )
    removed: dict[str, list] = {"steps": [], "term_cards": [], "quick_checks": []}
    if before is not None:
        removed = {
            "steps": sorted(set(before["steps"]) - set(now["steps"])),
            "term_cards": sorted(set(before["term_cards"]) - set(now["term_cards"])),
            "quick_checks": sorted(
                int(pk) for pk in set(before["quick_checks"]) - set(now["quick_checks"])
            ),
        }
    return ModuleBundle(
        module=module,
        version=manifest.version,
        since=since.version if since else None,
        outline=steps,
        steps=[content for content in contents if content.step.slug in changed_steps],
        term_cards=term_cards,
        quick_checks=sorted(shown.values(), key=lambda check: check.id),
        removed=removed,
    )


def module_repetition(*, module_id: int) -> RepetitionReport:
    """Sections word for word the same across the module's active steps (apart from each step's
    term and definition) and quick-check questions several of them ask (the module's admin
    page): 3 queries."""
    sections: dict[int, list[tuple[str, str]]] = {}
    rows = (
        Section.objects.filter(step__module_id=module_id, step__status=STEP_ACTIVE)
        .order_by("step_id", "position")
        .values_list("step_id", "heading", "body")
    )
    for step_id, heading, body in rows:
        sections.setdefault(step_id, []).append((heading, body))
    questions: dict[int, list[str]] = {}
    links = StepQuickCheck.objects.filter(
        step__module_id=module_id, step__status=STEP_ACTIVE
    ).values_list("step_id", "quick_check__question")
    for step_id, question in links:
        questions.setdefault(step_id, []).append(question)
    steps = Step.objects.filter(module_id=module_id, status=STEP_ACTIVE).values_list(
        "id", "term", "definition"
    )
    return repetition_report(
        StepText(
            sections=sections.get(step_id, []),
            questions=questions.get(step_id, []),
            term=term,
            definition=definition,
        )
        for step_id, term, definition in steps
    )
