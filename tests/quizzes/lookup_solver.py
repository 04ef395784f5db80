"""The look-up solver of issue 28: answers exam items from the published course text alone.

It reads what an anonymous visitor can read through the public API (the module's outline and
every step: lead, definition, sections, quick checks), cut into sentences, each known with the
term of the step it stands under. For an item as a learner sees it (prompt, options, choices) it
searches the text for the item's words, treating each "…" gap as a wildcard, and picks the
option the text supports best:

- a quoted claim („…“) whose gaps, filled with an option (or left open), match a sentence
  word for word decides: a term option wins when the matched sentence stands under that term;
- otherwise the option whose words share the most with a sentence that shares the most words
  with the prompt wins (several options when their support is close to the best);
- a true/false statement is true when it matches a sentence (gaps as wildcards), or shares
  nearly all its words with one and names the term that sentence stands under;
- a short answer is the term of the best-matching step, a number the first number of the
  best-matching sentence, a matching pair the best supported choice per left side.

No answer key, no explanation, no knowledge beyond the text: what a script does that looks the
answers up. Generated recall items fall to it (the test demands at least 90 %); an authored bank
that asks to apply knowledge must not (below the pass mark).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

GAP = "…"
_QUOTED = re.compile(r"„(.*?)“", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ0-9„])")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
# Words that say nothing about the subject.
_STOPWORDS = frozenset(
    """aber alle als auch auf aus bei beim bis das dass dem den der des die dies diese dieser
    durch ein eine einem einen einer eines für hat ist kann mit nach nicht noch nur oder ohne
    sich sie sind und von vor was welche welcher welches wenn werden wie wird zum zur zu im in
    an am es er so ob""".split()  # noqa: SIM905
)
# An option's support within this share of the best counts as supported (multiple choice).
_CLOSE_TO_BEST = 0.75
# A statement sharing at least this share of its words with one sentence reads as true.
_TRUE_OVERLAP = 0.85


@dataclass(frozen=True)
class Passage:
    """A sentence of the published text and the term of the step it stands under."""

    term: str
    text: str


@functools.lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    return frozenset(
        w for w in re.findall(r"\w+", text.casefold()) if len(w) > 1 and w not in _STOPWORDS
    )


def _squash(text: str) -> str:
    return " ".join(text.replace("„", " ").replace("“", " ").split())


def course_passages(get: Callable[[str], dict], module: str) -> list[Passage]:
    """Every sentence an anonymous visitor can read of the module, through the public API;
    ``get`` fetches a path and returns its JSON."""
    outline = get(f"/api/v1/modules/{module}/")
    passages: list[Passage] = []

    def add(term: str, text: str) -> None:
        for line in (text or "").splitlines():
            passages.extend(
                Passage(term, sentence)
                for sentence in _SENTENCE_END.split(_squash(line))
                if sentence
            )

    for entry in outline["outline"]:
        add(entry["term"], entry["definition"])
        step = get(f"/api/v1/modules/{module}/steps/{entry['number']}/")
        add(step["term"], step["lead"])
        for section in step["sections"]:
            add(step["term"], section["heading"])
            for line in section["lines"]:
                add(step["term"], line)
        for check in step["quick_checks"]:
            add(step["term"], check["question"])
            add(step["term"], check["answer"])
    return passages


@functools.lru_cache(maxsize=4096)
def _pattern(claim: str) -> re.Pattern[str]:
    """The claim as a search pattern: each gap a wildcard, spacing and case free."""
    parts = [re.escape(part.strip()) for part in _squash(claim).split(GAP)]
    joined = r".{0,120}?".join(parts)
    return re.compile(joined.replace(r"\ ", r"\s+"), re.IGNORECASE)


def _matches(claim: str, passages: Sequence[Passage]) -> list[Passage]:
    if not words(claim):
        return []
    pattern = _pattern(claim)
    return [p for p in passages if pattern.search(p.text)]


def _overlap(text: str, passage: Passage) -> float:
    own = words(text)
    return len(own & words(passage.text)) / len(own) if own else 0.0


def _best(text: str, passages: Sequence[Passage]) -> Passage | None:
    return max(passages, key=lambda p: _overlap(text, p), default=None)


def _claim(prompt: str) -> str:
    quoted = _QUOTED.search(prompt)
    return quoted.group(1) if quoted else prompt


def _filled(claim: str, option: str) -> str:
    """The claim with its first gap filled by the option (a claim ending in a gap takes the
    option at its end); without a gap, the claim followed by the option."""
    claim = _squash(claim)
    if GAP in claim:
        return claim.replace(GAP, option, 1)
    return f"{claim} {option}"


def option_support(prompt: str, option: str, passages: Sequence[Passage]) -> float:
    """How well the text supports ``option`` as the answer to ``prompt`` (higher: better)."""
    claim = _claim(prompt)
    found = _matches(_filled(claim, option), passages)
    if found:
        return 10.0
    if GAP in claim:
        # The claim with its gaps open names the sentence; does it stand under the option?
        named = _matches(claim, passages)
        if any(words(p.term) == words(option) for p in named):
            return 5.0
    context = words(prompt)
    best = 0.0
    for passage in passages:
        shared = words(passage.text)
        if not shared:
            continue
        fit = _overlap(option, passage)
        if fit:
            best = max(best, fit * (1 + len(context & shared) / max(1, len(context))))
    return best


def answer(item: dict, passages: Sequence[Passage]) -> dict:
    """The solver's answer to an item as the attempt shows it (``kind``, ``prompt``,
    ``options``, ``choices``), in the shape the answers endpoint takes."""
    kind, prompt = item["kind"], item["prompt"]
    if kind == "true_false":
        statement = _claim(prompt)
        best = _best(statement, passages)
        # Nearly the words of a sentence, and the term that sentence stands under named too.
        true = bool(_matches(statement, passages)) or (
            best is not None
            and _overlap(statement, best) >= _TRUE_OVERLAP
            and words(best.term) <= words(statement)
        )
        return {"selected": ["true" if true else "false"]}
    if kind in ("single_choice", "multiple_choice"):
        support = {o["key"]: option_support(prompt, o["text"], passages) for o in item["options"]}
        top = max(support.values())
        if kind == "single_choice":
            return {"selected": [max(support, key=support.get)]}
        close = [key for key, value in support.items() if value >= top * _CLOSE_TO_BEST]
        return {"selected": close}
    best = _best(prompt, passages)
    if kind == "short_answer":
        return {"text": best.term if best else ""}
    if kind == "numerical":
        found = _NUMBER.search(best.text) if best else None
        return {"number": found.group(0) if found else "0"}
    # Matching: per left side the choice the text supports best beside it.
    pairs = {}
    for option in item["options"]:
        support = {
            choice["key"]: option_support(option["text"], choice["text"], passages)
            for choice in item["choices"]
        }
        pairs[option["key"]] = max(support, key=support.get)
    return {"pairs": pairs}
