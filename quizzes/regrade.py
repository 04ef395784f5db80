"""Regrading after a bank item's key was corrected, as plain Python. Moodle's quiz regrade is
the model: a dry run shows every attempt's mark before and after, the real run writes exactly
that. An attempt keeps its own copy of each item with options relabelled in the order shown,
so the corrected key is carried over by option text, never by the bank's option keys."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from quizzes.answers import CHOICE_KINDS, MATCHING, NUMERICAL, SHORT_ANSWER

# What a regrade does to a learner's certificate.
CERTIFICATE_NONE = "none"
CERTIFICATE_ISSUED = "issued"
CERTIFICATE_REVOKED = "revoked"
CERTIFICATE_REINSTATED = "reinstated"
CERTIFICATE_SCORE = "score_updated"


@dataclass(frozen=True)
class ShownKey:
    """An attempt item's key in the attempt's own labels."""

    correct_keys: list[str]
    answer_key: dict | None


def _text(value: str) -> str:
    return " ".join(value.casefold().split())


def attempt_item_key(
    *,
    kind: str,
    bank_kind: str,
    bank_options: Sequence[Mapping[str, Any]],
    bank_correct_keys: Sequence[str],
    bank_answer_key: Mapping[str, Any] | None,
    shown_options: Sequence[Mapping[str, Any]],
    shown_choices: Sequence[Mapping[str, Any]] | None,
) -> ShownKey | None:
    """The bank item's current key as one attempt shows the item. None when the attempt's
    options are no longer the bank's (another kind, an option's text changed, added or
    removed): such an attempt keeps its grade, as Moodle refuses to regrade across a change
    of the question's structure."""
    if kind != bank_kind:
        return None
    if kind in (SHORT_ANSWER, NUMERICAL):
        return ShownKey(correct_keys=[], answer_key=dict(bank_answer_key or {}))
    if kind == MATCHING:
        return _matching_key(bank_answer_key or {}, shown_options, shown_choices or [])
    if kind not in CHOICE_KINDS or len(bank_options) != len(shown_options):
        return None
    bank_key_by_text = {_text(option["text"]): option["key"] for option in bank_options}
    correct = set(bank_correct_keys)
    shown_correct = []
    for option in shown_options:
        bank_key = bank_key_by_text.get(_text(option["text"]))
        if bank_key is None:
            return None
        if bank_key in correct:
            shown_correct.append(option["key"])
    return ShownKey(correct_keys=sorted(shown_correct), answer_key=None)


def _matching_key(
    bank_answer_key: Mapping[str, Any],
    shown_options: Sequence[Mapping[str, Any]],
    shown_choices: Sequence[Mapping[str, Any]],
) -> ShownKey | None:
    right_by_left = {
        _text(pair["left"]): _text(pair["right"])
        for pair in bank_answer_key.get("pairs", [])
        if pair["left"].strip()
    }
    if len(right_by_left) != len(shown_options):
        return None
    choice_by_text = {_text(choice["text"]): choice["key"] for choice in shown_choices}
    pairs = {}
    for option in shown_options:
        right = right_by_left.get(_text(option["text"]))
        choice = choice_by_text.get(right) if right is not None else None
        if choice is None:
            return None
        pairs[option["key"]] = choice
    return ShownKey(correct_keys=[], answer_key={"pairs": pairs})


def certificate_action(
    *,
    passed_before: bool,
    passed_after: bool,
    grade_before: Decimal | None,
    grade_after: Decimal | None,
    has_certificate: bool,
    certificate_valid: bool,
    revoked_by_regrade: bool,
) -> str:
    """What a regrade does to one learner's certificate in the module. Only a change of the
    final result acts, so a second run of the same regrade does nothing; a certificate an
    admin revoked by hand is never brought back by a regrade."""
    if passed_after and not passed_before:
        if not has_certificate:
            return CERTIFICATE_ISSUED
        if not certificate_valid and revoked_by_regrade:
            return CERTIFICATE_REINSTATED
        return CERTIFICATE_NONE
    if passed_before and not passed_after:
        return CERTIFICATE_REVOKED if certificate_valid else CERTIFICATE_NONE
    if passed_after and certificate_valid and grade_before != grade_after:
        return CERTIFICATE_SCORE
    return CERTIFICATE_NONE
