"""The typed item kinds: answer keys, reading a learner's answer, grading it. Plain Python.
Keys: ``{"accepted": [...]}`` (with ``"case_sensitive": true`` when case matters),
``{"answers": [{"value", "tolerance"} | {"min", "max"}]}``,
``{"pairs": [{"left", "right"}]}`` in the bank (empty left: a distractor) and
``{"pairs": {"a": "2"}}`` in an attempt (all or nothing)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from quizzes.grading import answer_is_correct

SINGLE_CHOICE, MULTIPLE_CHOICE, TRUE_FALSE = "single_choice", "multiple_choice", "true_false"
SHORT_ANSWER, NUMERICAL, MATCHING = "short_answer", "numerical", "matching"
CHOICE_KINDS = frozenset({SINGLE_CHOICE, MULTIPLE_CHOICE, TRUE_FALSE})
TYPED_KINDS = frozenset({SHORT_ANSWER, NUMERICAL, MATCHING})

# What a learner may type into one short-answer or numerical item.
MAX_ANSWER_TEXT = 500
# A number a learner types: at most this many characters (Decimal never meets a huge exponent).
MAX_NUMBER_TEXT = 40
# Accepted answers and matching pairs of one item.
MAX_ACCEPTED = 50
MAX_PAIRS = 26
# GIFT writes "->" between a pair's sides and has no escape for it.
PAIR_ARROW = "->"

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})
# Stripped from the end of an answer: "Toolkit." reads as "Toolkit".
_TRAILING_PUNCTUATION = ".!?;:,…"


# --- short answer -------------------------------------------------------------------------------


def short_answer_normalise(text: str) -> str:
    """The form two answers are compared in: NFC, casefolded, umlauts spelled out (ä → ae),
    single spaces, no trailing punctuation; NFC again since casefolding can decompose (İ)."""
    text = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    text = " ".join(text.translate(_UMLAUTS).split())
    return text.rstrip(_TRAILING_PUNCTUATION + " ").strip()


def short_answer_matches(
    *, accepted: Iterable[str], text: str | None, case_sensitive: bool = False
) -> bool:
    """``text`` is one of the accepted answers, compared normalised; ``case_sensitive`` (the
    item's case rule) keeps upper and lower case apart ("NaCl" is not "nacl")."""
    given = short_answer_normalise(text or "")
    if not given:
        return False
    for answer in accepted:
        if given == short_answer_normalise(answer) and (
            not case_sensitive or _case_form(text or "") == _case_form(answer)
        ):
            return True
    return False


def _case_form(text: str) -> str:
    """The letters of an answer as typed, for the case-sensitive rule: NFC, single spaces,
    no trailing punctuation (the same forgiveness as the normal form, but not of case)."""
    text = " ".join(unicodedata.normalize("NFC", text).split())
    return text.rstrip(_TRAILING_PUNCTUATION + " ").strip()


# --- numerical ----------------------------------------------------------------------------------


class NumberFormatError(ValueError):
    """What a learner typed is not a number; ``code`` says why (``empty``, ``too_long``,
    ``not_a_number``)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


# Spaces and apostrophes only ever group digits ("1 000", "1'000"); they are never a decimal mark.
_SPACE_GROUP = "[ \u00a0\u202f\u2009'\u2019]"
_DIGITS_ONLY = re.compile(r"\d+")
_ONE_MARK = re.compile(r"(?:\d+[.,]\d*|[.,]\d+)")
_SPACE_GROUPED = re.compile(rf"\d{{1,3}}(?:{_SPACE_GROUP}\d{{3}})+(?:[.,]\d+)?")


def number_parse(text: str) -> Decimal:
    """The number a learner typed: decimal comma or point, optional sign; a single "." or ","
    is the decimal mark, thousands separators only when unambiguous. Else NumberFormatError."""
    value = text.strip()
    if not value:
        raise NumberFormatError("empty")
    if len(value) > MAX_NUMBER_TEXT:
        raise NumberFormatError("too_long")
    sign = ""
    if value[0] in "+-\u2212":
        sign, value = ("-" if value[0] != "+" else ""), value[1:].lstrip()
    digits = _number_digits(value)
    if digits is None:
        raise NumberFormatError("not_a_number")
    try:
        return Decimal(sign + digits)
    except InvalidOperation as exc:  # pragma: no cover - the patterns above admit digits only
        raise NumberFormatError("not_a_number") from exc


def _number_digits(value: str) -> str | None:
    """``value`` (no sign) as "1234.5", or None when it is no number by the rule above."""
    if _DIGITS_ONLY.fullmatch(value):
        return value
    if _SPACE_GROUPED.fullmatch(value):
        return re.sub(_SPACE_GROUP, "", value).replace(",", ".")
    points, commas = value.count("."), value.count(",")
    if points + commas == 1:
        if not _ONE_MARK.fullmatch(value):
            return None
        digits = value.replace(",", ".")
        return digits.rstrip(".") if digits.endswith(".") else digits
    if points and commas:
        decimal_mark = "." if value.rfind(".") > value.rfind(",") else ","
        group_mark = "," if decimal_mark == "." else "."
        whole, _, fraction = value.rpartition(decimal_mark)
        if decimal_mark in whole or not re.fullmatch(r"\d+", fraction):
            return None
        if not re.fullmatch(rf"\d{{1,3}}(?:{re.escape(group_mark)}\d{{3}})+", whole):
            return None
        return whole.replace(group_mark, "") + "." + fraction
    mark = "." if points else ","
    if re.fullmatch(rf"\d{{1,3}}(?:{re.escape(mark)}\d{{3}})+", value):
        return value.replace(mark, "")
    return None


def _decimal(value: Any) -> Decimal:
    """A number of an answer key (a decimal string, or an int/float an admin typed as JSON)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"not a number: {value!r}")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation as exc:
        raise ValueError(f"not a number: {value!r}") from exc
    if not number.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return number


def numerical_bounds(answer: Mapping[str, Any]) -> tuple[Decimal, Decimal]:
    """The inclusive interval one accepted numerical answer stands for."""
    if "min" in answer:
        return _decimal(answer["min"]), _decimal(answer["max"])
    value, tolerance = _decimal(answer["value"]), _decimal(answer.get("tolerance", "0"))
    return value - tolerance, value + tolerance


def numerical_matches(*, answers: Sequence[Mapping[str, Any]], text: str | None) -> bool:
    """The typed number lies in one of the accepted intervals (edges included); an answer that
    is no number is wrong (saving refuses it, so it only meets old or hand-edited rows)."""
    try:
        number = number_parse(text or "")
    except NumberFormatError:
        return False
    for answer in answers:
        low, high = numerical_bounds(answer)
        if low <= number <= high:
            return True
    return False


def numerical_answer_text(answer: Mapping[str, Any]) -> str:
    """One accepted numerical answer as a review shows it: "14", "14 ± 0.5", "13 – 15"."""
    if "min" in answer:
        return f"{answer['min']} – {answer['max']}"
    tolerance = _decimal(answer.get("tolerance", "0"))
    return str(answer["value"]) if tolerance == 0 else f"{answer['value']} ± {answer['tolerance']}"


# --- matching -----------------------------------------------------------------------------------


def matching_parts(pairs: Sequence[Mapping[str, str]]) -> tuple[list[str], list[str], list[int]]:
    """A bank matching item's (left sides, distinct right sides to choose from, index of each
    left side's right side among them). Two left sides may share one right side, shown once."""
    lefts = [pair["left"] for pair in pairs if pair["left"].strip()]
    choices: list[str] = []
    for pair in pairs:
        if pair["right"] not in choices:
            choices.append(pair["right"])
    answers = [choices.index(pair["right"]) for pair in pairs if pair["left"].strip()]
    return lefts, choices, answers


def matching_draw_counts(pairs: Sequence[Mapping[str, str]]) -> tuple[int, int]:
    """(left sides, answers to choose from) of a bank matching item: what the draw shuffles."""
    lefts, choices, _answers = matching_parts(pairs)
    return len(lefts), len(choices)


def matching_attempt_copy(
    *,
    pairs: Sequence[Mapping[str, str]],
    option_order: Sequence[int],
    choice_order: Sequence[int],
    option_labels: str,
) -> tuple[list[dict], list[dict], dict]:
    """A bank matching item as an attempt shows it: (options, choices, answer key), both lists
    relabelled in the order shown so no key or order gives a pair away."""
    lefts, choices, answers = matching_parts(pairs)
    choice_label = {index: str(shown + 1) for shown, index in enumerate(choice_order)}
    options = [
        {"key": option_labels[shown], "text": lefts[index]}
        for shown, index in enumerate(option_order)
    ]
    shown_choices = [{"key": choice_label[index], "text": choices[index]} for index in choice_order]
    key = {
        "pairs": {
            option_labels[shown]: choice_label[answers[index]]
            for shown, index in enumerate(option_order)
        }
    }
    return options, shown_choices, key


def matching_matches(*, pairs: Mapping[str, str], given: Mapping[str, str] | None) -> bool:
    """Every option paired with its choice; a missing or wrong pair makes the item wrong."""
    return bool(given) and dict(given) == dict(pairs)


# --- any item -----------------------------------------------------------------------------------


def item_is_correct(
    *,
    kind: str,
    correct_keys: Iterable[str] | None,
    answer_key: Mapping[str, Any] | None,
    selected_keys: Iterable[str] | None,
    answer_text: str | None,
    answer_pairs: Mapping[str, str] | None,
) -> bool:
    """Whether an attempt item's saved answer is right, for every kind (no answer is wrong)."""
    key = answer_key or {}
    if kind == SHORT_ANSWER:
        return short_answer_matches(
            accepted=key.get("accepted", []),
            text=answer_text,
            case_sensitive=bool(key.get("case_sensitive")),
        )
    if kind == NUMERICAL:
        return numerical_matches(answers=key.get("answers", []), text=answer_text)
    if kind == MATCHING:
        return matching_matches(pairs=key.get("pairs", {}), given=answer_pairs)
    return answer_is_correct(correct_keys=correct_keys or [], selected_keys=selected_keys)


def item_is_answered(
    *,
    kind: str,
    option_count: int,
    selected_keys: Sequence[str] | None,
    answer_text: str | None,
    answer_pairs: Mapping[str, str] | None,
) -> bool:
    """The learner has given an answer (a matching item: a choice for every option)."""
    if kind in (SHORT_ANSWER, NUMERICAL):
        return bool((answer_text or "").strip())
    if kind == MATCHING:
        return bool(answer_pairs) and len(answer_pairs) == option_count
    return bool(selected_keys)


def answer_feedback_shown(
    *,
    kind: str,
    feedback: Mapping[str, str] | None,
    answer_key: Mapping[str, Any] | None,
    selected_keys: Iterable[str] | None,
    answer_text: str | None,
) -> list[str]:
    """The feedback on the answer a learner gave: of each option chosen, or of the first
    accepted answer (short answer) or number (numerical) it matches."""
    feedback, key = feedback or {}, answer_key or {}
    if not feedback:
        return []
    if kind == SHORT_ANSWER:
        for index, accepted in enumerate(key.get("accepted", [])):
            if short_answer_matches(
                accepted=[accepted],
                text=answer_text,
                case_sensitive=bool(key.get("case_sensitive")),
            ):
                return [feedback[str(index)]] if feedback.get(str(index)) else []
        return []
    if kind == NUMERICAL:
        for index, answer in enumerate(key.get("answers", [])):
            if numerical_matches(answers=[answer], text=answer_text):
                return [feedback[str(index)]] if feedback.get(str(index)) else []
        return []
    if kind == MATCHING:
        return []
    return [feedback[k] for k in selected_keys or [] if feedback.get(k)]


def accepted_answers(*, kind: str, answer_key: Mapping[str, Any] | None) -> list[str]:
    """What a review with the correct answers shows as the accepted answers of a typed item."""
    key = answer_key or {}
    if kind == SHORT_ANSWER:
        return list(key.get("accepted", []))
    if kind == NUMERICAL:
        return [numerical_answer_text(answer) for answer in key.get("answers", [])]
    return []


def answer_key_errors(*, kind: str, answer_key: Any) -> list[str]:
    """What is wrong with a bank item's answer key for its kind (empty list: fine)."""
    if kind in CHOICE_KINDS:
        return [] if answer_key in ({}, None) else ["A choice item has no answer key."]
    if not isinstance(answer_key, dict):
        return ["The answer key must be an object."]
    if kind == SHORT_ANSWER:
        return _short_answer_key_errors(answer_key)
    if kind == NUMERICAL:
        return _numerical_key_errors(answer_key)
    if kind == MATCHING:
        return _matching_key_errors(answer_key)
    return [f"Unknown kind {kind!r}."]


def _short_answer_key_errors(key: dict) -> list[str]:
    accepted = key.get("accepted")
    if (
        not {"accepted"} <= set(key) <= {"accepted", "case_sensitive"}
        or not isinstance(accepted, list)
        or not accepted
        or not isinstance(key.get("case_sensitive", False), bool)
    ):
        return ['A short-answer item needs {"accepted": ["answer", ...]}.']
    if len(accepted) > MAX_ACCEPTED:
        return [f"At most {MAX_ACCEPTED} accepted answers."]
    errors = []
    if not all(isinstance(a, str) and short_answer_normalise(a) for a in accepted):
        errors.append("Every accepted answer must be a non-empty text.")
    elif any(len(a) > MAX_ANSWER_TEXT for a in accepted):
        errors.append(f"An accepted answer has at most {MAX_ANSWER_TEXT} characters.")
    elif any(PAIR_ARROW in a for a in accepted):
        # GIFT would read "=a -> b" as a matching pair.
        errors.append('An accepted answer may not contain "->".')
    return errors


def _numerical_key_errors(key: dict) -> list[str]:
    answers = key.get("answers")
    if set(key) != {"answers"} or not isinstance(answers, list) or not answers:
        return [
            'A numerical item needs {"answers": [{"value": "14", "tolerance": "0.5"} '
            'or {"min": "13", "max": "15"}, ...]}.'
        ]
    if len(answers) > MAX_ACCEPTED:
        return [f"At most {MAX_ACCEPTED} accepted answers."]
    for answer in answers:
        if not isinstance(answer, dict) or set(answer) not in (
            {"value", "tolerance"},
            {"min", "max"},
        ):
            return ['Each answer is {"value", "tolerance"} or {"min", "max"}.']
        try:
            low, high = numerical_bounds(answer)
        except ValueError:
            return ["Every value, tolerance, min and max must be a number."]
        if low > high:
            return ["A tolerance is never negative, and min is at most max."]
    return []


def _matching_key_errors(key: dict) -> list[str]:
    pairs = key.get("pairs")
    if set(key) != {"pairs"} or not isinstance(pairs, list):
        return ['A matching item needs {"pairs": [{"left": "...", "right": "..."}, ...]}.']
    if not all(
        isinstance(p, dict)
        and set(p) == {"left", "right"}
        and isinstance(p["left"], str)
        and isinstance(p["right"], str)
        and p["right"].strip()
        for p in pairs
    ):
        return ['Each pair is {"left": "...", "right": "..."} with a right side.']
    lefts = [" ".join(p["left"].casefold().split()) for p in pairs if p["left"].strip()]
    errors = []
    if len(lefts) < 2:
        errors.append("A matching item needs at least two pairs.")
    if len(lefts) > MAX_PAIRS:
        errors.append(f"A matching item has at most {MAX_PAIRS} pairs.")
    if len(set(lefts)) != len(lefts):
        errors.append("The left sides must be distinct.")
    if any(PAIR_ARROW in p["left"] for p in pairs):
        errors.append('A left side may not contain "->".')
    return errors
