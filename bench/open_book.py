"""How far the public module outline answers the generated exam bank (issue 14's attacker).

The outline (`GET /api/v1/modules/{slug}/`) shows every step's term and definition to anyone, and
generated recall items are built from exactly those: they stay open-book, which is why only an
approved bank certifies. This measures how open: two players read nothing but the outline and an
item as a learner sees it (prompt and option texts), and answer.

- ``naive``: the 40-line script of the issue, exact suffix matching: a description is the tail of
  one definition, a statement is a term followed by the tail of its definition.
- ``overlap``: a slightly smarter one, word overlap between the item and each definition, to show
  what a masked word or a rephrased subject is worth against somebody who tries.

``python -m bench.open_book`` prints both scores for the seed module's generated bank.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from quizzes.generator import GeneratedItem, StepSource, items_generate

SEED_MODULE = Path(__file__).resolve().parents[1] / "fixtures" / "module-self-hosting-27.json"
_QUOTED = re.compile(r"„(.*?)“", re.DOTALL)


@dataclass(frozen=True)
class OutlineStep:
    """What the anonymous outline shows of a step."""

    term: str
    definition: str


def _squash(text: str) -> str:
    return " ".join(text.split())


def _tail(text: str) -> str:
    """A description as the item shows it, without the leading ellipsis."""
    return _squash(text).removeprefix("…").strip()


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.casefold()) if len(w) > 2}


def _naive(item: GeneratedItem, outline: Sequence[OutlineStep]) -> str | None:
    quoted = _QUOTED.search(item.prompt)
    if quoted is None:
        return None
    inner = _squash(quoted.group(1))
    options = {option.key: _squash(option.text) for option in item.options}
    if item.prompt.startswith("Richtig oder falsch?"):
        for step in outline:
            if inner.startswith(step.term + " "):
                tail = inner[len(step.term) + 1 :]
                return "true" if _squash(step.definition).endswith(tail) else "false"
        return None
    by_term = {step.term: step for step in outline}
    asked = by_term.get(inner)  # "Welche Beschreibung passt zu „TERM“?" (the bank before)
    if asked is None and inner.endswith(" …"):  # "Wie geht der Satz weiter? „SUBJECT …“"
        asked = next((s for s in outline if s.definition.startswith(inner[:-2] + " ")), None)
    if asked is not None:
        definition = _squash(asked.definition)
        for key, text in options.items():
            if _tail(text) and definition.endswith(_tail(text)):
                return key
        return None
    tail = _tail(inner)  # "Welcher Begriff passt zu dieser Beschreibung? „… tail“"
    for step in outline:
        if tail and _squash(step.definition).endswith(tail):
            for key, text in options.items():
                if text == step.term:
                    return key
    return None


def _best_definition(text: str, outline: Sequence[OutlineStep]) -> OutlineStep:
    words = _words(text)
    return max(outline, key=lambda step: len(words & _words(step.definition)))


def _overlap(item: GeneratedItem, outline: Sequence[OutlineStep]) -> str | None:
    quoted = _QUOTED.search(item.prompt)
    if quoted is None:
        return None
    inner = _squash(quoted.group(1))
    options = {option.key: _squash(option.text) for option in item.options}
    if item.prompt.startswith("Richtig oder falsch?"):
        # True when the definition the statement is closest to belongs to the term it names.
        step = _best_definition(inner, outline)
        named = _words(step.term) | _words(step.definition.split(" ", 3)[0])
        return "true" if named & _words(inner.split(" ", 3)[0] + " " + inner) else "false"
    by_label = {step.term.casefold(): step for step in outline}
    asked = by_label.get(inner.casefold())
    if asked is None:  # the prompt is a description: the closest definition names the answer
        step = _best_definition(inner, outline)
        words = _words(step.term) | _words(step.definition.split(",")[0][:40])
        return max(options, key=lambda key: len(_words(options[key]) & words))
    definition = _words(asked.definition)
    return max(options, key=lambda key: len(_words(options[key]) & definition))


PLAYERS: dict[str, Callable[[GeneratedItem, Sequence[OutlineStep]], str | None]] = {
    "naive": _naive,
    "overlap": _overlap,
}


def score(
    items: Sequence[GeneratedItem], outline: Sequence[OutlineStep], *, player: str
) -> tuple[int, int]:
    """(items answered right, items) for one player."""
    play = PLAYERS[player]
    right = sum(1 for item in items if play(item, outline) in item.correct_keys)
    return right, len(items)


def seed_steps(path: Path = SEED_MODULE) -> list[StepSource]:
    """The seed module's steps as the generator sees them, read from its fixture."""
    rows = [row for row in json.loads(path.read_text()) if row["model"] == "courses.step"]
    return [
        StepSource(
            id=row["fields"]["number"],
            slug=row["fields"]["slug"],
            number=row["fields"]["number"],
            term=row["fields"]["term"],
            definition=row["fields"]["definition"],
        )
        for row in rows
    ]


def main() -> int:
    steps = seed_steps()
    items = items_generate(steps)
    outline = [OutlineStep(term=step.term, definition=step.definition) for step in steps]
    for player in PLAYERS:
        right, total = score(items, outline, player=player)
        print(f"{player:8} {right:4} of {total} items right ({right / total:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
