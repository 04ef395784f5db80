"""Reads of course content. Each function uses a fixed number of queries, whatever the size."""

from __future__ import annotations

import hashlib
import json
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

from courses import quick_check_roles
from courses.data import ModuleOutline, OutlineStep
from courses.models import (
    STEP_ACTIVE,
    Module,
    ModuleContentVersion,
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


def module_catalog() -> list[Module]:
    """``module_list()`` read at most once a second per process (the web's course list and the
    dashboard's other modules): counting the active steps of every module cost the dashboard
    more than any of its own reads (bench.profile web_dashboard)."""
    modules = _module_catalog.get("all")
    if modules is None:
        modules = list(module_list())
        _module_catalog.put("all", modules)
    return modules


def module_get(*, slug: str) -> Module:
    """The module with its active steps (each with its sections' kinds, ``section_kinds``, term
    card and the characters of its sections' text, ``body_chars``, for a reading time) and the
    hash of what the module page shows of them (``render_key``): 3 queries, none while this
    process read it less than ``CONTENT_MAX_AGE`` ago (callers only read it)."""
    module = _module_pages.get(slug)
    if module is None:
        module = _module_read(slug=slug)
        _module_pages.put(slug, module)
    return module


def _module_read(*, slug: str) -> Module:
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
        .only(
            "id",
            "module_id",
            "slug",
            "number",
            "term",
            "definition",
            "level",
            "content_hash",
            "term_card__id",
            "term_card__content_hash",
        )
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
    for step in module.active_steps:
        # What the module page counts per step, read once here rather than per request.
        step.section_kinds = tuple(section.kind for section in step.sections.all())
    module.render_key = _module_render_key(module)
    return module


def _module_render_key(module: Module) -> str:
    """Hash of every value of the module and its active steps the module page shows (web's
    content_fragment keys its cached HTML by it, so that HTML is never stale)."""
    return _hash(
        {
            "module": [
                module.pk,
                *(getattr(module, name) for name in ("slug", "series", "number", "title")),
                module.exam_heading,
            ],
            "steps": [
                [
                    step.pk,
                    step.number,
                    step.term,
                    step.level,
                    step.body_chars,
                    getattr(step, "term_card", None) is not None,
                    step.section_kinds,
                ]
                for step in module.active_steps
            ],
        }
    )


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

# The module page's content (module_get): building it from ~300 step and section rows cost more
# CPU than the rest of the page's queries together (bench.profile web_module).
_module_pages = ShortLivedCache(name="module pages", max_entries=500, max_age=CONTENT_MAX_AGE)
_module_catalog = ShortLivedCache(name="module catalog", max_entries=1, max_age=CONTENT_MAX_AGE)

# What each step's ETag is now, by (module, number), so step views and 304s of anonymous readers
# need no database at all (lms.content_cache).
_step_etags = ShortLivedCache(name="step ETags", max_entries=5000, max_age=CONTENT_MAX_AGE)


def step_version(step_hash: str, card_hash: str | None) -> str:
    """A step's content version: what its ETag quotes and the outline and bundle show as its
    ``content_hash`` (the step's own hash and its term card's)."""
    return f"{step_hash[:24]}{(card_hash or '')[:8]}"


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
    etag = f'"{step_version(hashes.step_hash, hashes.card_hash)}"'
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
    # A hash of everything the learner's step page shows of this content
    # (web's content_fragment keys its cached HTML by it, so that HTML is never stale).
    render_key: str = ""

    @property
    def etag(self) -> str:
        card_hash = self.card.content_hash if self.card else None
        return f'"{step_version(self.step.content_hash, card_hash)}"'


# The step pages' content (step_get), all active steps of a module read together: reading one
# step, its sections and quick checks through the ORM cost ~3 ms CPU, and with a copy trusted for
# a second each of a module's steps was read again every second (bench.profile web_step: a
# quarter of the step page's requests paid it). One read of the module's steps costs about as
# much as three of them.
_step_pages = ShortLivedCache(name="step pages", max_entries=500, max_age=CONTENT_MAX_AGE)


def step_get(*, module_slug: str, number: int) -> StepContent:
    """An active step with sections, quick checks and term card: 3 queries (for all active
    steps of the module), none while this process read the module's steps less than
    ``CONTENT_MAX_AGE`` ago (callers only read it)."""
    contents = _step_pages.get(module_slug)
    if contents is None:
        steps = list(
            Step.objects.select_related("module", "term_card")
            .filter(active_step_q(), module__slug=module_slug)
            .order_by("number")
        )
        if not steps:
            raise StepNotFound(module_slug, number)
        contents = {content.step.number: content for content in _step_contents(steps)}
        _step_pages.put(module_slug, contents)
    content = contents.get(number)
    if content is None:
        raise StepNotFound(module_slug, number)
    return content


def _step_content(step: Step) -> StepContent:
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
        content = StepContent(
            step=step,
            sections=sections_of.get(("step", step.pk), []),
            card=card,
            card_sections=sections_of.get(("card", card.pk), []) if card else [],
            quick_check_links=links_of.get(step.pk, []),
            previous_number=number - 1 if number > 1 else None,
            next_number=number + 1 if number < step.total else None,
        )
        content.render_key = _step_render_key(content)
        contents.append(content)
    return contents


def _step_render_key(content: StepContent) -> str:
    """Hash of every value of the step, its module, sections, term card and quick checks the
    step page shows. Not the ETag: that leaves out what the JSON does not serve (positions,
    ids, the quick checks' roles, the module's lines)."""
    step, card, module = content.step, content.card, content.step.module

    def sections(rows: list[Section]) -> list:
        return [
            [s.pk, s.position, s.kind, s.heading, s.body, s.is_truncated, s.commands] for s in rows
        ]

    return _hash(
        {
            "module": [module.pk, module.slug, module.title, module.header, module.exam_heading],
            "step": [
                step.pk,
                *(getattr(step, name) for name in ("number", "total", "term", "lead", "level")),
                step.as_of,
                step.source_count,
            ],
            "sections": sections(content.sections),
            "card": [card.pk, card.kind_line, card.title_line, card.lead] if card else None,
            "card_sections": sections(content.card_sections),
            "quick_checks": [
                [
                    link.quick_check.pk,
                    link.quick_check.question,
                    link.quick_check.answer,
                    link.quick_check.is_reflection_prompt,
                ]
                for link in content.quick_check_links
            ],
            "pager": [content.previous_number, content.next_number],
        }
    )


@dataclass
class StepPreview:
    """A step as the learner's page shows it to a reader who is not enrolled: the context of
    the learner's template ``web/courses/step.html``, built as ``web.views.learning.step_detail``
    builds it (``tests/courses/test_step_admin.py`` compares both pages)."""

    content: StepContent

    def template_context(self) -> dict:
        content = self.content
        links = content.quick_check_links
        return {
            "module": content.step.module,
            "step": content.step,
            "blocks": _preview_blocks(content.sections),
            "quick_checks": [
                {
                    "id": link.quick_check.id,
                    "question": link.quick_check.question,
                    "answer": link.quick_check.answer,
                    "rating": None,
                }
                for link in links
                if not link.quick_check.is_reflection_prompt
            ],
            "reflection_prompts": [
                {"question": link.quick_check.question, "answer": link.quick_check.answer}
                for link in links
                if link.quick_check.is_reflection_prompt
            ],
            "card": content.card,
            "card_blocks": _preview_blocks(content.card_sections),
            "previous_number": content.previous_number,
            "next_number": content.next_number,
            "learner": None,
        }


def section_anchor(section: Section) -> str:
    """The id of a section on the learner's step page (its outline links to it); the admin's
    preview of that page uses the same."""
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


def step_preview_get(*, step_id: int) -> StepPreview | None:
    """Any step (retired ones too) for the admin's preview of the learner's page: 3 queries."""
    step = Step.objects.select_related("module", "term_card").filter(pk=step_id).first()
    return StepPreview(_step_content(step)) if step else None


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


# --- the module bundle: a whole module for offline use -------------------------------------


@dataclass(frozen=True)
class ModuleManifest:
    """What a module's content is made of now: the version of each active step (by slug), each
    term card (by slug) and each quick check its steps show (by id), and of the module's own
    fields. ``version`` is a hash of all of it: the bundle's ETag."""

    module_id: int
    slug: str
    version: str
    # {"module": v, "steps": {slug: v}, "term_cards": {slug: v}, "quick_checks": {"id": v}}
    items: dict


def _hash(payload: object) -> str:
    return hashlib.sha256(
        json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str).encode()
    ).hexdigest()


# Manifests by module slug, trusted for CONTENT_MAX_AGE like the step ETags: a warm re-check of
# a bundle (If-None-Match) costs no query.
_module_manifests = ShortLivedCache(
    name="module manifests", max_entries=500, max_age=CONTENT_MAX_AGE
)


def module_manifest_get(*, slug: str) -> ModuleManifest:
    """The module's content manifest: 3 queries (module, steps with term cards, quick checks),
    none while the copy is trusted."""
    manifest = _module_manifests.get(slug)
    if manifest is not None:
        return manifest
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
    manifest = ModuleManifest(
        module_id=module["id"], slug=slug, version=_hash(items)[:24], items=items
    )
    _module_manifests.put(slug, manifest)
    return manifest


def module_manifest_find(*, module_id: int, version: str) -> ModuleManifest | None:
    """An earlier manifest of the module (one query), None when this version was never
    recorded (``courses.services.content_versions``)."""
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
    """A module for offline use: ``steps``, ``term_cards`` and ``quick_checks`` are all of
    them, or with ``since`` only those that changed since that version (``removed``: the keys
    of what is gone)."""

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
    """The module's bundle for ``manifest`` (all of it, or what changed since ``since``):
    4 queries whatever the size (module, steps with term cards, their sections, quick checks).
    """
    module = Module.objects.get(pk=manifest.module_id)
    steps = list(
        Step.objects.active().filter(module=module).select_related("term_card").order_by("number")
    )
    cards = {step.pk: getattr(step, "term_card", None) for step in steps}
    card_ids = [card.pk for card in cards.values() if card is not None]
    sections: dict[tuple[str, int], list[Section]] = {}
    for section in Section.objects.filter(
        Q(step_id__in=[step.pk for step in steps]) | Q(card_id__in=card_ids)
    ).order_by("position"):
        key = ("step", section.step_id) if section.step_id else ("card", section.card_id)
        sections.setdefault(key, []).append(section)
    links: dict[int, list[StepQuickCheck]] = {}
    for link in (
        StepQuickCheck.objects.filter(step_id__in=[step.pk for step in steps])
        .select_related("quick_check")
        .order_by("step_id", "position")
    ):
        links.setdefault(link.step_id, []).append(link)
    before = since.items if since else None
    now = manifest.items
    changed_steps = _changed(now["steps"], before and before["steps"])
    changed_cards = _changed(now["term_cards"], before and before["term_cards"])
    changed_checks = _changed(now["quick_checks"], before and before["quick_checks"])
    contents, term_cards = [], []
    for step in steps:
        step.module = module
        card = cards[step.pk]
        if card is not None:
            card.step = step
            card.module = module
            # TermCardSerializer reads the card's sections through card.sections.all().
            card._prefetched_objects_cache = {"sections": sections.get(("card", card.pk), [])}
            if card.slug in changed_cards:
                term_cards.append(card)
        if step.slug in changed_steps:
            contents.append(
                StepContent(
                    step=step,
                    sections=sections.get(("step", step.pk), []),
                    card=card,
                    card_sections=sections.get(("card", card.pk), []) if card else [],
                    quick_check_links=links.get(step.pk, []),
                    previous_number=step.number - 1 if step.number > 1 else None,
                    next_number=step.number + 1 if step.number < step.total else None,
                )
            )
        # The outline serializer reads section kinds through step.sections.all().
        step._prefetched_objects_cache = {"sections": sections.get(("step", step.pk), [])}
    shown: dict[int, BundleQuickCheck] = {}
    for step in steps:
        for link in links.get(step.pk, []):
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
        steps=contents,
        term_cards=term_cards,
        quick_checks=sorted(shown.values(), key=lambda check: check.id),
        removed=removed,
    )
