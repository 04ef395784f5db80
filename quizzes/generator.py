"""Exam items generated from a module's steps: plain Python, deterministic. Items use the
definition with its subject masked, and the closest related steps as distractors."""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

TEMPLATE_TERM_FOR_DESCRIPTION = "term-for-description"
TEMPLATE_DESCRIPTION_FOR_TERM = "description-for-term"
TEMPLATE_STATEMENT_OWN = "statement-own"
TEMPLATE_STATEMENT_OTHER = "statement-other"

SINGLE_CHOICE = "single_choice"
TRUE_FALSE = "true_false"
OPTION_KEYS = ("a", "b", "c", "d")
DISTRACTOR_COUNT = 3
# A false statement takes the predicate of a relative at least this close (its family,
# see ``relatedness``), never a random step's.
FAMILY_MIN_RELATEDNESS = 2.0
MASK = "…"
TRUE_FALSE_OPTIONS = (("true", "Richtig"), ("false", "Falsch"))

_ARTICLE = re.compile(r"(?:(?:Der|Die|Das|Ein|Eine)\s+)?")
_ARTICLES = frozenset({"der", "die", "das", "ein", "eine"})
# A subject found by the capitalisation heuristic is at most this many words long.
_MAX_SUBJECT_WORDS = 5
# Words too common to say two descriptions are related.
_STOPWORDS = frozenset(
    """aber alle als auch auf aus bei beim bis damit dann dass dem den der des die dies diese
    dieser durch eine einem einen einer eines etwa für hat ihre ist kann mehr mit nach nicht
    noch nur oder ohne sich sie sind sodass statt über und unter viele vom von vor wenn werden
    wie wird zum zur zwischen darunter eigene eigener""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class StepSource:
    """What the generator needs of a step."""

    id: int
    slug: str
    number: int
    term: str
    definition: str


@dataclass(frozen=True)
class ItemOption:
    key: str
    text: str


@dataclass(frozen=True)
class GeneratedItem:
    """One generated exam item; ``generator_key`` is its stable identity across regenerations."""

    generator_key: str
    step_id: int
    kind: str
    prompt: str
    options: tuple[ItemOption, ...]
    correct_keys: tuple[str, ...]
    explanation: str

    def options_json(self) -> list[dict[str, str]]:
        return [{"key": option.key, "text": option.text} for option in self.options]


# The pure string helpers below are called for every pair of steps: each is an lru_cache.
_text_cache = functools.lru_cache(maxsize=16384)


@_text_cache
def normalized(text: str) -> str:
    """Text compared for sameness: case-folded, punctuation and hyphens as single spaces."""
    return " ".join(re.sub(r"[\W_]+", " ", text.casefold()).split())


@_text_cache
def _term_pattern(term: str) -> re.Pattern[str]:
    tokens = [t for t in re.split(r"[\s\-_]+", term.strip()) if t]
    joined = r"[\s\-_]+".join(re.escape(t) for t in tokens)
    return re.compile(rf"(?<!\w){joined}(?![\w-])", re.IGNORECASE)


@_text_cache
def _words_of(phrase: str) -> frozenset[str]:
    """The words of a term or subject, case-folded, a format code also in its parts:
    "FP32" → fp32, fp, 32; "GPU-Gerät" → gpu, gerät. Articles are not words of a term."""
    words: set[str] = set()
    for token in re.split(r"[\W_]+", phrase.casefold()):
        if not token or token in _ARTICLES:
            continue
        words.add(token)
        words.update(part for part in re.findall(r"[^\W\d_]+|\d+", token) if len(part) >= 2)
    return frozenset(words)


# A word as a gap replaces it: letters, digits and underscores together with the parts a hyphen
# joins ("GPU-Gerät", "16-Bit-Gleitkomma") and a hyphen that opens or closes it ("Speicher- und").
_WORD = re.compile(r"-?\w+(?:-\w+)*-?")
# A gap that touches a letter, a digit, an underscore or a hyphen breaks a word.
_BROKEN_GAP = re.compile(rf"[\w-]{MASK}|{MASK}[\w-]")


@_text_cache
def _mask_words(text: str, words: frozenset[str]) -> str:
    """``text`` with every word that is one of ``words`` or holds one as a hyphen-joined part
    replaced by the mask, as a whole ("ein physisches GPU-Gerät" → "ein physisches …", never
    "…-Gerät"); masks next to each other collapse into one."""
    if not words:
        return text

    def masked(match: re.Match[str]) -> str:
        parts = re.split(r"[\W_]+", match.group(0).casefold())
        return MASK if words.intersection(parts) else match.group(0)

    return _gaps_joined(_WORD.sub(masked, text))


def _gaps_joined(text: str) -> str:
    """Masks with only space between them become one: a gap is one gap."""
    return re.sub(rf"{MASK}(?:\s*{MASK})+", MASK, text)


def gap_is_clean(text: str) -> bool:
    """Whether every gap of ``text`` stands for whole words and a word with content is left
    ("ist ein …" says nothing)."""
    if _BROKEN_GAP.search(text):
        return False
    left = re.findall(r"\w+", text.replace(MASK, " ").casefold())
    return any(word not in _STOPWORDS and word not in _ARTICLES for word in left)


@_text_cache
def definition_split(term: str, definition: str) -> tuple[str, str]:
    """Split a definition into its subject and the rest: ``("", definition)`` without a subject,
    ``(subject, "")`` when it is nothing but its subject."""
    text = " ".join(definition.split())
    article_end = _ARTICLE.match(text).end()
    body = text[article_end:]
    match = _term_pattern(term).match(body)
    if match:
        subject_end = match.end()
    else:
        # Translated subjects ("VRAM-Fragmentierung", "Die NVIDIA-Container-Runtime"): German
        # nouns and names are capitalised, the verb that follows the subject is not.
        words = list(re.finditer(r"\S+", body))
        verb = next(
            (
                index
                for index, word in enumerate(words[1 : _MAX_SUBJECT_WORDS + 1], start=1)
                if not (word.group()[0].isupper() or word.group()[0].isdigit())
            ),
            None,
        )
        if verb is None:
            return "", text  # no verb in sight: better no items than a wrong cut
        subject_end = words[verb - 1].end()
    subject = text[: article_end + subject_end].strip()
    rest = text[article_end + subject_end :].strip()
    return subject, rest


def subject(step: StepSource) -> str:
    """The document's own subject phrase ("Das CUDA Toolkit"), or the term where there is none."""
    found, _rest = definition_split(step.term, step.definition)
    return found or step.term


def _answer_words(step: StepSource) -> frozenset[str]:
    """Every word that would name the step: its term's and its subject's."""
    found, _rest = definition_split(step.term, step.definition)
    return _words_of(step.term) | _words_of(found)


def predicate(step: StepSource) -> str:
    """The definition without its subject, every word of the term and subject masked."""
    _subject, rest = definition_split(step.term, step.definition)
    return _mask_words(rest, _answer_words(step))


def description(step: StepSource) -> str:
    """What a learner sees instead of the definition: '… ist …-Bit-Gleitkomma …'."""
    return _gaps_joined(f"{MASK} {predicate(step)}")


def _sentence_rest(step: StepSource) -> str:
    """The definition's predicate as the document wrote it, for a whole sentence."""
    return definition_split(step.term, step.definition)[1]


@_text_cache
def _term_tokens(term: str) -> frozenset[str]:
    return frozenset(t for t in re.split(r"[\W_]+", term.casefold()) if t)


@_text_cache
def _stems(text: str) -> frozenset[str]:
    # A six-letter prefix is a crude but deterministic German stem (Speicher/Speicherbedarf).
    words = re.findall(r"\w+", text.casefold())
    return frozenset(w[:6] for w in words if len(w) >= 4 and w not in _STOPWORDS)


@_text_cache
def _code_family(term: str) -> tuple[str, str] | None:
    """('fp', '16') for format codes such as FP16, BF16, INT8; None for other terms."""
    match = re.fullmatch(r"([a-z]+)(\d+)", normalized(term).replace(" ", ""))
    return (match.group(1), match.group(2)) if match else None


def _shared_term_tokens(a: StepSource, b: StepSource) -> set[str]:
    shared = set()
    for token in _term_tokens(a.term):
        for other in _term_tokens(b.term):
            if token == other or (
                min(len(token), len(other)) >= 5 and (token in other or other in token)
            ):
                shared.add(token)
    return shared


def relatedness(a: StepSource, b: StepSource) -> float:
    """How close a relative ``b`` is of ``a`` (symmetric, higher is closer)."""
    score = 3.0 * len(_shared_term_tokens(a, b))
    family_a, family_b = _code_family(a.term), _code_family(b.term)
    if family_a and family_b:
        score += 2.0  # both are number formats
        if family_a[0] == family_b[0]:
            score += 3.0  # same family: FP16/FP32, INT8/INT4
        if family_a[1] == family_b[1]:
            score += 1.5  # same width: FP16/BF16
    term_a, term_b = normalized(a.term), normalized(b.term)
    prefix = 0
    for char_a, char_b in zip(term_a, term_b, strict=False):
        if char_a != char_b:
            break
        prefix += 1
    if prefix >= 3:
        score += 1.0
    stems_a, stems_b = _stems(predicate(a)), _stems(predicate(b))
    if stems_a and stems_b:
        score += 4.0 * len(stems_a & stems_b) / len(stems_a | stems_b)
    if _term_pattern(b.term).search(a.definition) or _term_pattern(a.term).search(b.definition):
        score += 1.5  # one mentions the other ("… kleinerem Zahlenbereich als FP32")
    return score


def relatives(step: StepSource, steps: Sequence[StepSource]) -> list[StepSource]:
    """The other steps that can stand beside ``step``, closest first, without those that
    normalise to its term or description (the right answer in disguise)."""
    own_term, own_predicate = normalized(step.term), normalized(predicate(step))
    candidates = [
        other
        for other in steps
        if other.id != step.id
        and normalized(other.term) != own_term
        and normalized(predicate(other)) not in ("", own_predicate)
    ]
    return sorted(
        candidates,
        key=lambda other: (
            -round(relatedness(step, other), 6),
            abs(other.number - step.number),
            other.number,
        ),
    )


def _distinct(steps: Sequence[StepSource], count: int) -> list[StepSource]:
    """The first ``count`` steps whose terms and descriptions differ from each other."""
    chosen: list[StepSource] = []
    terms: set[str] = set()
    predicates: set[str] = set()
    for step in steps:
        term, pred = normalized(step.term), normalized(predicate(step))
        if term in terms or pred in predicates:
            continue
        chosen.append(step)
        terms.add(term)
        predicates.add(pred)
        if len(chosen) == count:
            break
    return chosen


def _stable_order(generator_key: str, count: int) -> list[int]:
    # The correct option's place depends on the key only: stable, and spread over a to d.
    seed = int.from_bytes(hashlib.sha256(generator_key.encode()).digest()[:8], "big")
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return order


def _choice_item(
    *, generator_key: str, step: StepSource, prompt: str, texts: list[str], explanation: str
) -> GeneratedItem:
    """A single-choice item; ``texts[0]`` is the correct option."""
    order = _stable_order(generator_key, len(texts))
    options = tuple(
        ItemOption(key=OPTION_KEYS[position], text=texts[index])
        for position, index in enumerate(order)
    )
    correct = OPTION_KEYS[order.index(0)]
    return GeneratedItem(
        generator_key=generator_key,
        step_id=step.id,
        kind=SINGLE_CHOICE,
        prompt=prompt,
        options=options,
        correct_keys=(correct,),
        explanation=explanation,
    )


def _statement_item(
    *, generator_key: str, step: StepSource, statement: str, is_true: bool, explanation: str
) -> GeneratedItem:
    return GeneratedItem(
        generator_key=generator_key,
        step_id=step.id,
        kind=TRUE_FALSE,
        prompt=f"Richtig oder falsch?\n„{statement}“",
        options=tuple(ItemOption(key=key, text=text) for key, text in TRUE_FALSE_OPTIONS),
        correct_keys=("true" if is_true else "false",),
        explanation=explanation,
    )


def _false_partner(step: StepSource, related: Sequence[StepSource]) -> StepSource | None:
    """The relative whose predicate makes a false statement about ``step``, or None; predicates
    naming an unshared word of either term would contradict themselves or give the answer away."""
    for other in related:
        if relatedness(step, other) < FAMILY_MIN_RELATEDNESS:
            return None  # closest first: no family member further down either
        rest = _sentence_rest(other)
        telling = _answer_words(step) ^ _answer_words(other)
        if rest and _mask_words(rest, telling) == rest:
            return other
    return None


def step_items(step: StepSource, steps: Sequence[StepSource]) -> list[GeneratedItem]:
    """The items generated for one step (none when its definition has no usable description)."""
    own_predicate = predicate(step)
    if not own_predicate:
        return []
    # No step numbers: renumbering the module must not change what an approval vouches for.
    definition_line = f"{step.term}: {' '.join(step.definition.split())}"
    related = relatives(step, steps)
    # An item whose gaps cannot stand for whole words is not made (its options neither).
    distractors = _distinct(
        [other for other in related if gap_is_clean(description(other))], DISTRACTOR_COUNT
    )
    items: list[GeneratedItem] = []
    if gap_is_clean(description(step)) and len(distractors) == DISTRACTOR_COUNT:
        key = f"{step.slug}:{TEMPLATE_TERM_FOR_DESCRIPTION}"
        items.append(
            _choice_item(
                generator_key=key,
                step=step,
                prompt=f"Welcher Begriff passt zu dieser Beschreibung?\n„{description(step)}“",
                texts=[step.term, *(other.term for other in distractors)],
                explanation=definition_line,
            )
        )
        key = f"{step.slug}:{TEMPLATE_DESCRIPTION_FOR_TERM}"
        items.append(
            _choice_item(
                generator_key=key,
                step=step,
                prompt=f"Wie geht der Satz richtig weiter?\n„{subject(step)} …“",
                texts=[predicate(step), *(predicate(other) for other in distractors)],
                explanation=definition_line,
            )
        )
    own_subject = subject(step)
    items.append(
        _statement_item(
            generator_key=f"{step.slug}:{TEMPLATE_STATEMENT_OWN}",
            step=step,
            statement=f"{own_subject} {_sentence_rest(step)}",
            is_true=True,
            explanation=f"Richtig. {definition_line}",
        )
    )
    other = _false_partner(step, related)
    if other is not None:
        items.append(
            _statement_item(
                generator_key=f"{step.slug}:{TEMPLATE_STATEMENT_OTHER}",
                step=step,
                statement=f"{own_subject} {_sentence_rest(other)}",
                is_true=False,
                explanation=(f"Falsch: das beschreibt {other.term}. {definition_line}"),
            )
        )
    return items


def items_generate(steps: Sequence[StepSource]) -> list[GeneratedItem]:
    """All generated items of a module's active steps, in step order."""
    ordered = sorted(steps, key=lambda step: (step.number, step.id))
    return [item for step in ordered for item in step_items(step, ordered)]
