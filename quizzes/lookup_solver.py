"""The look-up solver: answers exam items from the published course text alone (plain Python).

It reads what an anonymous visitor can read (every step's definition, lead, sections and quick
checks: ``courses.api.module_public_text``), cut into sentences, each known with the term of the
step it stands under. For an item as a learner sees it (prompt, options, choices) it
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
answers up. Generated recall items fall to it (tests/quizzes/test_lookup_solver.py demands at
least 90 %); an authored bank that asks to apply knowledge must not (below the pass mark). The
question bank's review list flags the items it answers right ("look-up risk"), so the course
admin rewrites those first.
"""

from __future__ import annotations

import functools
import re
import string
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from quizzes.answers import item_is_correct, matching_attempt_copy

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


class Corpus(Sequence[Passage]):
    """The passages with an index from each word to the passages that hold it: a search looks
    only at passages that share a word with what it looks for (7.1 s → see the commit)."""

    def __init__(self, passages: Iterable[Passage]):
        self._passages = list(passages)
        self._index: dict[str, list[int]] = defaultdict(list)
        for position, passage in enumerate(self._passages):
            for word in words(passage.text):
                self._index[word].append(position)

    def __getitem__(self, position):
        return self._passages[position]

    def __len__(self) -> int:
        return len(self._passages)

    def sharing_a_word(self, text: str) -> list[Passage]:
        found = set().union(*(self._index.get(word, ()) for word in words(text)))
        return [self._passages[position] for position in sorted(found)]

    def holding_every_word(self, text: str) -> list[Passage]:
        found = None
        for word in words(text):
            held = set(self._index.get(word, ()))
            found = held if found is None else found & held
        return [self._passages[position] for position in sorted(found or ())]


def course_passages(texts: Iterable[tuple[str, str]]) -> Corpus:
    """Every sentence of the (term, text) pairs, each under its step's term."""
    return Corpus(
        Passage(term, sentence)
        for term, text in texts
        for line in (text or "").splitlines()
        for sentence in _SENTENCE_END.split(_squash(line))
        if sentence
    )


@functools.lru_cache(maxsize=4096)
def _pattern(claim: str) -> re.Pattern[str]:
    """The claim as a search pattern: each gap a wildcard, spacing and case free."""
    parts = [re.escape(part.strip()) for part in _squash(claim).split(GAP)]
    joined = r".{0,120}?".join(parts)
    return re.compile(joined.replace(r"\ ", r"\s+"), re.IGNORECASE)


def _matches(claim: str, passages: Corpus) -> list[Passage]:
    """The passages the claim matches, its gaps as wildcards (a match holds every word)."""
    if not words(claim):
        return []
    pattern = _pattern(claim)
    return [p for p in passages.holding_every_word(claim) if pattern.search(p.text)]


def _overlap(text: str, passage: Passage) -> float:
    own = words(text)
    return len(own & words(passage.text)) / len(own) if own else 0.0


def _best(text: str, passages: Corpus) -> Passage | None:
    """The passage sharing the most words with ``text`` (the first one when none shares any)."""
    candidates = passages.sharing_a_word(text) or passages[:1]
    return max(candidates, key=lambda p: _overlap(text, p), default=None)


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


def option_support(prompt: str, option: str, passages: Corpus) -> float:
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
    for passage in passages.sharing_a_word(option):
        shared = words(passage.text)
        if not shared:
            continue
        fit = _overlap(option, passage)
        if fit:
            best = max(best, fit * (1 + len(context & shared) / max(1, len(context))))
    return best


def answer(item: dict, passages: Corpus) -> dict:
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


def answers_right(
    *, kind: str, prompt: str, options: list, correct_keys: list, answer_key: dict, passages
) -> bool:
    """Whether the solver answers a bank item right, shown as an attempt shows it (matching:
    relabelled as ``matching_attempt_copy`` does, in bank order)."""
    view = {"kind": kind, "prompt": prompt, "options": options, "choices": []}
    if kind == "matching":
        pairs = answer_key["pairs"]
        lefts = [pair for pair in pairs if pair["left"].strip()]
        rights = list(dict.fromkeys(pair["right"] for pair in pairs))
        shown, choices, answer_key = matching_attempt_copy(
            pairs=pairs,
            option_order=range(len(lefts)),
            choice_order=range(len(rights)),
            option_labels=string.ascii_lowercase,
        )
        view.update(options=shown, choices=choices)
    given = answer(view, passages)
    return item_is_correct(
        kind=kind,
        correct_keys=correct_keys,
        answer_key=answer_key,
        selected_keys=given.get("selected"),
        answer_text=given.get("text") or given.get("number"),
        answer_pairs=given.get("pairs"),
    )
